/*
 * The client's per-request records and per-site tally.
 *
 * One CSV line per request once its fate is known (docs/agents.md):
 *
 *   client,seq,sent_ns,status,site,rtt_ns
 *
 * status ok: site is the site that answered and rtt_ns the round trip;
 * timeout: no reply within the timeout (site empty, rtt 0); error: the
 * kernel refused to send it, or over TCP (tcp.h) no connection was up or it
 * broke before the reply (site empty, rtt 0). The first line of the file
 * is that header. Site names come off the wire, so anything but
 * [A-Za-z0-9._-] in them is written as '_' to keep the CSV well formed.
 */
#ifndef STEERLAB_CLIENT_RECORD_H
#define STEERLAB_CLIENT_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "recbin.h"
#include "wire.h"

#define CLIENT_CSV_HEADER "client,seq,sent_ns,status,site,rtt_ns\n"
/* a client told its address family (-F): two more columns, the family a
 * request's reply came over (4 or 6; its last attempt's if none) and
 * whether it was sent again over IPv4 (Happy Eyeballs: 1) */
#define CLIENT_CSV_HEADER_FAMILY "client,seq,sent_ns,status,site,rtt_ns,family,fallback\n"
#define CLIENT_MAX_SITES 64
/* the units of the CSV's columns, in its '#' lines (lib/csvmeta.h) */
#define CLIENT_CSV_UNITS                                                                           \
	"sent_ns=ns since the epoch (CLOCK_REALTIME), rtt_ns=ns, status=ok|timeout|error, "        \
	"site=the site that answered (empty: none), family=4|6, fallback=0|1"

enum client_status {
	CLIENT_OK,
	CLIENT_TIMEOUT,
	CLIENT_ERROR,
};

struct client_site_count {
	char site[WIRE_SITE_LEN + 1];
	uint64_t replies;
};

/* Replies per answering site; sites past CLIENT_MAX_SITES are counted in
 * other. */
struct client_tally {
	struct client_site_count sites[CLIENT_MAX_SITES];
	int n;
	uint64_t other;
};

/* client_site_clean: copies a site name from the wire to out (at least
 * WIRE_SITE_LEN + 1 bytes), replacing CSV-unsafe characters with '_'. */
void client_site_clean(const char *in, char *out);

/* client_record_format: one CSV line (with '\n') into buf, as snprintf
 * with "%u,%llu,%lld,%s,%s,%lld\n" would write it, without its cost (a
 * line a request). Its length, or -1 if it does not fit. site may be NULL
 * (timeout, error). */
int client_record_format(char *buf, size_t len, uint32_t client, uint64_t seq, int64_t sent_ns,
			 enum client_status status, const char *site, int64_t rtt_ns);

/* Records reach their file CLIENT_RECORD_BUF bytes at a time, one write(2)
 * per 32,768 binary records: a FILE given a buffer of its own (glibc's
 * setvbuf ignores the size asked for with a NULL buffer and writes every
 * 4 KiB). */
#define CLIENT_RECORD_BUF (1 << 20)

struct client_recfile {
	FILE *fp; /* NULL: not open */
	char *buf;
};

/* client_record_meta: the '#' lines that open the CSV file at path
 * (lib/csvmeta.h): the run (the name of the directory that holds it),
 * topology (NULL: "-") and the columns' units. */
void client_record_meta(FILE *fp, const char *path, const char *topology);

/* client_record_open: f->fp, path opened for writing (truncated) with a
 * buffer of CLIENT_RECORD_BUF. 0, or -1 (errno set). */
int client_record_open(struct client_recfile *f, const char *path);

/* client_record_close: flushes and closes f->fp if open, and frees its
 * buffer. 0, or -1 (errno set) if a write failed. */
int client_record_close(struct client_recfile *f);

/* Binary records (lib/recbin.h), beside or instead of the CSV: the sites
 * named so far, by index. */
struct client_recbin {
	FILE *fp;
	char sites[RECBIN_MAX_SITES][WIRE_SITE_LEN + 1];
	int nsites;
	int last; /* the index of the last site written, a guess for the next */
};

/* client_recbin_start: the header. 0 or -1 (a write error). */
int client_recbin_start(struct client_recbin *w, FILE *fp);

/* client_recbin_write: one request's record (site NULL unless ok), its
 * site named first if new. 0, or -1 (not written) if 255 other sites are
 * named already or fwrite failed. */
int client_recbin_write(struct client_recbin *w, uint32_t client, uint64_t seq, int64_t sent_ns,
			enum client_status status, const char *site, int64_t rtt_ns);

/* client_tally_add: one more reply from site. */
void client_tally_add(struct client_tally *t, const char *site);

#endif
