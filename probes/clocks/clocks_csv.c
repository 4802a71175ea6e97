/*
 * Reading the clients' per-request records, requests-NODE.csv
 * (docs/agents.md, client): '#' lines (lib/csvmeta.h; files from before
 * them have none), a header line, then one line per request,
 *
 *   client,seq,sent_ns,status,site,rtt_ns
 *
 * (in a dual lab, two more: family,fallback)
 *
 * Anything else is an error naming the file, the line and the field, except
 * a last line without its '\n' that does not parse: a client killed mid-line
 * wrote it, and it is ignored with a warning.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clocks_int.h"
#include "csvmeta.h"
#include "recbin.h"

#define CLOCKS_CSV_HEADER "client,seq,sent_ns,status,site,rtt_ns"
#define CLOCKS_CSV_FIELDS 6
/* a client told its address family (a dual lab): the family a request's
 * reply came over (4 or 6; its last attempt's when none), and whether it
 * was sent again over IPv4 (Happy Eyeballs) */
#define CLOCKS_CSV_HEADER_FAMILY CLOCKS_CSV_HEADER ",family,fallback"
#define CLOCKS_CSV_FIELDS_MAX 8

static int clocks_csv_number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end != '\0' || *v > max ? -1 : 0;
}

/* clocks_csv_parse: one record line (modified in place) of nfields (6, or
 * 8 with the family columns). Returns 0, or -1 with what is wrong in why. */
static int clocks_csv_parse(char *line, int nfields, struct clocks_request *r, char *why,
			    size_t whylen)
{
	static const char *const names[CLOCKS_CSV_FIELDS_MAX] = {
	    "client", "seq", "sent_ns", "status", "site", "rtt_ns", "family", "fallback"};
	char *field[CLOCKS_CSV_FIELDS_MAX];
	uint64_t v;
	int n = 0;

	for (char *p = line;; p++) {
		if (n == nfields) {
			snprintf(why, whylen, "more than %d fields", nfields);
			return -1;
		}
		field[n++] = p;
		p = strchr(p, ',');
		if (p == NULL)
			break;
		*p = '\0';
	}
	if (n != nfields) {
		snprintf(why, whylen, "%d fields, expected %d (%s)", n, nfields,
			 nfields == CLOCKS_CSV_FIELDS ? CLOCKS_CSV_HEADER
						      : CLOCKS_CSV_HEADER_FAMILY);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < nfields; i++) {
		const char *f = field[i];
		int bad = 0;

		switch (i) {
		case 0:
			bad = clocks_csv_number(f, UINT32_MAX, &v);
			r->client = (uint32_t)v;
			break;
		case 1:
			bad = clocks_csv_number(f, UINT64_MAX, &r->seq);
			break;
		case 2:
		case 5:
			bad = clocks_csv_number(f, INT64_MAX, &v);
			*(i == 2 ? &r->sent_ns : &r->rtt_ns) = (int64_t)v;
			break;
		case 3:
			if (strcmp(f, "ok") == 0)
				r->status = CLOCKS_OK;
			else if (strcmp(f, "timeout") == 0)
				r->status = CLOCKS_TIMEOUT;
			else if (strcmp(f, "error") == 0)
				r->status = CLOCKS_ERROR;
			else
				bad = 1;
			break;
		case 4:
			bad = strlen(f) > WIRE_SITE_LEN || (r->status == CLOCKS_OK && *f == '\0');
			if (!bad)
				strcpy(r->site, f);
			break;
		case 6:
			bad = strcmp(f, "4") != 0 && strcmp(f, "6") != 0;
			r->family = (uint8_t)(bad ? 0 : f[0] - '0');
			break;
		case 7:
			bad = strcmp(f, "0") != 0 && strcmp(f, "1") != 0;
			r->fell_back = f[0] == '1';
			break;
		}
		if (bad) {
			snprintf(why, whylen, "bad %s \"%.40s\"", names[i], f);
			return -1;
		}
	}
	return 0;
}

int clocks_read_requests_stream(FILE *fp, const char *path, struct clocks_input *in, char *err,
				size_t errlen)
{
	char *line = NULL, why[128];
	size_t cap = 0;
	int lineno = 0, header = 0, complete, rc = -1, nfields = CLOCKS_CSV_FIELDS;
	ssize_t len;

	while ((len = clocks_read_line(fp, &line, &cap, &complete)) != -1) {
		struct clocks_request r;

		++lineno;
		if (!header && csvmeta_is_meta(line))
			continue; /* the '#' lines before the header (lib/csvmeta.h) */
		if (!header) {
			if (strcmp(line, CLOCKS_CSV_HEADER_FAMILY) == 0) {
				nfields = CLOCKS_CSV_FIELDS_MAX;
			} else if (strcmp(line, CLOCKS_CSV_HEADER) != 0) {
				snprintf(err, errlen, "%s:%d: expected the header %s (or %s)", path,
					 lineno, CLOCKS_CSV_HEADER, CLOCKS_CSV_HEADER_FAMILY);
				goto out;
			}
			header = 1;
			in->have_requests = 1;
			continue;
		}
		if (clocks_csv_parse(line, nfields, &r, why, sizeof(why)) == -1) {
			if (!complete) {
				clocks_warn(&in->notes, "file_cut",
					    "%s:%d: last line cut short, ignored", path, lineno);
				break;
			}
			snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
			goto out;
		}
		if (clocks_grow((void **)&in->requests, &in->caprequests, in->nrequests,
				sizeof(r)) == -1) {
			snprintf(err, errlen, "%s:%d: out of memory", path, lineno);
			goto out;
		}
		in->requests[in->nrequests++] = r;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!header)
		clocks_warn(&in->notes, "records_empty",
			    "%s: empty (not even a header): no records", path);
	rc = 0;
out:
	free(line);
	return rc;
}

static int clocks_read_csv(const char *path, struct clocks_input *in, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	int rc;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = clocks_read_requests_stream(fp, path, in, err, errlen);
	fclose(fp);
	return rc;
}

/* clocks_has_bin: whether names (sorted) has stem.bin for stem.csv */
static int clocks_has_bin(char **bins, size_t nbins, const char *csv)
{
	size_t len = strlen(csv) - 4;

	for (size_t i = 0; i < nbins; i++)
		if (strlen(bins[i]) == len + 4 && strncmp(bins[i], csv, len) == 0)
			return 1;
	return 0;
}

/* clocks_requests_reserve: room for every record the files to be read can
 * hold, at once (clocks_reserve): a binary record is RECBIN_LEN bytes, a
 * CSV line at least CLOCKS_CSV_MIN_LINE */
#define CLOCKS_CSV_MIN_LINE 30 /* "1,0,T,ok,a,1\n" is 31 bytes, T a time of 19 digits */
static void clocks_requests_reserve(const char *rundir, struct clocks_input *in, char **bins,
				    size_t nbins, char **names, size_t n)
{
	char path[PATH_MAX];
	struct stat st;
	size_t want = 0;

	for (size_t i = 0; i < nbins + n; i++) {
		const char *name = i < nbins ? bins[i] : names[i - nbins];

		if (i >= nbins && clocks_has_bin(bins, nbins, name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", rundir, name);
		if (stat(path, &st) == 0 && st.st_size > 0)
			want += (size_t)st.st_size / (i < nbins ? RECBIN_LEN : CLOCKS_CSV_MIN_LINE);
	}
	clocks_reserve((void **)&in->requests, &in->caprequests, want, sizeof(*in->requests));
}

/* clocks_requests_shift: in a lab over several hosts, the records of
 * requests-NODE.EXT read from index from on: their sent_ns on the
 * reference's clock, less the offset of NODE's host (clocks_hosts.h) */
static void clocks_requests_shift(struct clocks_input *in, const char *name, size_t from)
{
	char node[CLOCKS_NAME_MAX];
	const char *stem = name + strlen("requests-"), *dot = strrchr(stem, '.');
	int64_t offset;

	if (!clocks_multi_host(in) || dot == NULL || (size_t)(dot - stem) >= sizeof(node))
		return;
	memcpy(node, stem, (size_t)(dot - stem));
	node[dot - stem] = '\0';
	if ((offset = clocks_node_offset(in, node)) == 0)
		return;
	for (size_t i = from; i < in->nrequests; i++)
		in->requests[i].sent_ns -= offset;
}

/* clocks_read_requests: every requests-NODE.bin, and every requests-NODE.csv
 * but those with a .bin beside them (records = both: the same requests) */
int clocks_read_requests(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	char path[PATH_MAX], **names, **bins;
	size_t n, nbins;
	int rc = 0;

	if (clocks_list_dir(rundir, "requests-", ".bin", &bins, &nbins, err, errlen) == -1)
		return -1;
	if (clocks_list_dir(rundir, "requests-", ".csv", &names, &n, err, errlen) == -1) {
		clocks_free_names(bins, nbins);
		return -1;
	}
	clocks_requests_reserve(rundir, in, bins, nbins, names, n);
	for (size_t i = 0; i < nbins && rc == 0; i++) {
		size_t from = in->nrequests;

		snprintf(path, sizeof(path), "%s/%s", rundir, bins[i]);
		rc = clocks_read_requests_bin(path, in, err, errlen);
		clocks_requests_shift(in, bins[i], from);
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (clocks_has_bin(bins, nbins, names[i]))
			continue;
		size_t from = in->nrequests;

		snprintf(path, sizeof(path), "%s/%s", rundir, names[i]);
		rc = clocks_read_csv(path, in, err, errlen);
		clocks_requests_shift(in, names[i], from);
	}
	clocks_free_names(names, n);
	clocks_free_names(bins, nbins);
	return rc;
}
