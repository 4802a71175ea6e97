/*
 * Reading the captures of a run directory in nanosecond precision (a
 * microsecond file is scaled):
 *
 *   capture-dns-NODE.pcap   the queries reaching an authd link: every UDP
 *                           DNS query is kept, with its source address
 *   capture-resolver-NODE.pcap  a [resolver] node's link: every UDP DNS
 *                           message is kept (clients' queries, the
 *                           answers, the node's own queries upstream)
 *   capture-link-R1-R2.pcap a router-to-router link (BGP): its packets
 *                           are counted, nothing kept
 *   capture-LABEL.pcap      any other: a site's link; the request packets
 *                           (clocks_decode.c) are kept, with their
 *                           destination address (an IPv6 one as its
 *                           IPv4 twin)
 *
 * The other packets of a file are counted. A file that ends in the middle of
 * a packet (the collector was killed) is read up to there, with a warning
 * that invalidates the run (capture_truncated: what followed is unknown); a
 * file that is not a pcap at all is an error.
 *
 * A classic pcap file of a link type the decoders know (what the collector
 * writes) is read here, in blocks of a MiB, its record headers parsed in
 * place and each frame decoded where it lies: libpcap's pcap_next_ex costs
 * two fread calls and a copy per packet,
 * and a capture holds millions. Every other file (pcapng, the "modified"
 * format, another version) is read through libpcap, which knows them all.
 * They agree packet for packet, and on where a damaged file stops and in
 * what words (tests/unit/test_clocks_pcap.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clocks_int.h"
#include "timeutil.h"

#define CLOCKS_CAPTURE_PREFIX "capture-"
#define CLOCKS_QUERY_PREFIX "capture-dns-"
#define CLOCKS_LINK_PREFIX "capture-link-"
#define CLOCKS_RSV_PREFIX "capture-resolver-"
#define CLOCKS_CAPTURE_SUFFIX ".pcap"
#define CLOCKS_USEC_PER_SEC 1000000u
/* the fewest bytes a request takes in a capture: a record header, IPv4 and
 * UDP headers with no link header, the request; a capture's size over it
 * bounds the requests it holds */
#define CLOCKS_PCAP_MIN_REQUEST (16 + 20 + 8 + WIRE_LEN)

/* clocks_mark_v6: packet k of c went over IPv6. 0, or -1 out of memory. */
static int clocks_mark_v6(struct clocks_capture *c, size_t k)
{
	if (k / 64 >= c->capv6) {
		size_t cap = c->capv6 ? c->capv6 : 1024;
		uint64_t *v;

		while (k / 64 >= cap)
			cap *= 2;
		if ((v = realloc(c->v6, cap * sizeof(*v))) == NULL)
			return -1;
		memset(v + c->capv6, 0, (cap - c->capv6) * sizeof(*v));
		c->v6 = v;
		c->capv6 = cap;
	}
	c->v6[k / 64] |= 1ull << (k % 64);
	return 0;
}

static int clocks_keep_request(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
			       const u_char *data, size_t caplen)
{
	struct clocks_capture *c = capture;
	struct clocks_packet *p;
	struct ipframe u;
	uint32_t client;
	uint64_t seq;

	if (clocks_request_of(dlt, data, caplen, in->port, &client, &seq, &u) == -1) {
		struct clocks_tcpseg seg;

		c->other++;
		/* not a request: a connection's SYN, FIN or RST is kept */
		if (clocks_decode_tcpseg(in, dlt, data, caplen, in->port, &seg) == -1)
			return 1;
		if (clocks_grow((void **)&c->tcp, &c->captcp, c->ntcp, sizeof(*c->tcp)) == -1)
			return -1;
		seg.t_ns = t_ns;
		c->tcp[c->ntcp++] = seg;
		return 1;
	}
	if (c->n == c->cap &&
	    clocks_grow((void **)&c->packets, &c->cap, c->n, sizeof(*c->packets)) == -1)
		return -1;
	p = &c->packets[c->n++];
	p->t_ns = t_ns;
	p->client = client;
	p->seq = (uint32_t)seq;
	/* a request to an IPv6 address counts as one to its IPv4 twin (the
	 * service's, a site's own: lab_up's twins); one to an address with
	 * none as one to neither scheme's */
	p->dst = u.dst;
	if (u.family == AF_INET6 && clocks_twin_of(in, &u.dst6, &p->dst) == -1)
		p->dst.s_addr = 0;
	if (u.family == AF_INET6 && clocks_mark_v6(c, c->n - 1) == -1)
		return -1;
	if (client != WIRE_PROBE_CLIENT && t_ns > c->last_request_ns)
		c->last_request_ns = t_ns;
	c->last_of_n = c->n;
	return 0;
}

/* clocks_keep_none: a router link's packet, counted by the reader */
static int clocks_keep_none(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
			    const u_char *data, size_t caplen)
{
	(void)in, (void)capture, (void)dlt, (void)t_ns, (void)data, (void)caplen;
	return 1;
}

static int clocks_keep_query(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
			     const u_char *data, size_t caplen)
{
	struct clocks_query_capture *c = capture;
	const uint8_t *qname;
	struct in_addr src;
	size_t qlen;

	if (clocks_decode_query_name(in, dlt, data, caplen, &src, &qname, &qlen) == -1) {
		struct clocks_response r;

		c->other++;
		/* a response to a [name] of a server that checks the sites
		 * itself: kept (clocks_authority.c); authd's are its events */
		if (in->dnstopo.nown == 0 || in->dnstopo.nnames == 0 ||
		    clocks_decode_response(in, dlt, data, caplen, &r, &qname, &qlen) == -1 ||
		    (r.name = clocks_topo_name_of(&in->dnstopo, qname, qlen)) == 0)
			return 1;
		if (clocks_grow((void **)&c->responses, &c->capresp, c->nresp,
				sizeof(*c->responses)) == -1)
			return -1;
		r.t_ns = t_ns;
		c->responses[c->nresp++] = r;
		return 1;
	}
	if (clocks_grow((void **)&c->queries, &c->cap, c->n, sizeof(*c->queries)) == -1)
		return -1;
	c->queries[c->n++] =
	    (struct clocks_query){t_ns, src, clocks_topo_name_of(&in->dnstopo, qname, qlen)};
	return 0;
}

static int clocks_keep_dnsmsg(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
			      const u_char *data, size_t caplen)
{
	struct clocks_rsv_capture *c = capture;
	struct clocks_dnsmsg m;

	if (clocks_decode_dnsmsg(in, dlt, data, caplen, &m) == -1) {
		c->other++;
		return 1;
	}
	if (clocks_grow((void **)&c->msgs, &c->cap, c->n, sizeof(*c->msgs)) == -1)
		return -1;
	m.t_ns = t_ns;
	c->msgs[c->n++] = m;
	return 0;
}

enum clocks_pcap_via clocks_pcap_via = CLOCKS_PCAP_VIA_OWN;

/* clocks_pcap_bad_time: the note on the packet after npkt, its record at
 * byte off of path, whose fraction of a second (frac, in micro- or
 * nanoseconds) is a second or more. libpcap passes it on as it is (tcpdump
 * prints it as "invalid"); the clocks cannot place such a packet in time,
 * so the file ends there as at other damage, worded the same by both
 * readers. */
static void clocks_pcap_bad_time(struct clocks_input *in, const struct clocks_file_marks *mk,
				 const char *path, size_t npkt, long long off, uint32_t frac,
				 int nano)
{
	clocks_invalid(&in->notes, "capture_truncated",
		       "%s: after packet %zu: invalid time stamp in the record at byte %lld: %u %s "
		       "past the second; read up to there",
		       path, npkt, off, frac, nano ? "nanoseconds" : "microseconds");
	*mk->truncated = 1;
}

/* clocks_pcap_bad_seconds: the same for seconds that nanoseconds since
 * 1970 in 64 bits cannot hold (a pcapng file's time stamps are 64-bit
 * counts of units it chooses: libpcap turns them into any time_t) */
static void clocks_pcap_bad_seconds(struct clocks_input *in, const struct clocks_file_marks *mk,
				    const char *path, size_t npkt, long long off, int64_t sec)
{
	clocks_invalid(&in->notes, "capture_truncated",
		       "%s: after packet %zu: invalid time stamp in the record at byte %lld: %lld "
		       "seconds, not within 1970..2262; read up to there",
		       path, npkt, off, (long long)sec);
	*mk->truncated = 1;
}

/* clocks_pcap_usec: is the file of fp a classic pcap (or the "modified"
 * format) in microseconds, by its magic number? fp is left at its start. */
static int clocks_pcap_usec(FILE *fp)
{
	uint8_t m[4];
	uint32_t v;
	int usec = 0;

	if (fread(m, 1, sizeof(m), fp) == sizeof(m)) {
		v = (uint32_t)m[0] << 24 | (uint32_t)m[1] << 16 | (uint32_t)m[2] << 8 | m[3];
		usec = v == 0xa1b2c3d4u || v == 0xd4c3b2a1u || v == 0xa1b2cd34u || v == 0x34cdb2a1u;
	}
	rewind(fp);
	return usec;
}

/* libpcap's path: any format it reads. A microsecond pcap is opened in
 * microseconds, so that its fraction is checked as the file has it, not as
 * libpcap scales it. libpcap 1.10 reads a classic pcap's fields signed;
 * they are taken unsigned here, as pcap-savefile(5) has them and the own
 * reader does. */
static int clocks_read_libpcap(const char *path, struct clocks_input *in, clocks_packet_fn fn,
			       void *capture, const struct clocks_file_marks *mk, char *err,
			       size_t errlen)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t npkt = 0;
	int dlt, rc, usec;
	pcap_t *p;
	FILE *fp;

	errbuf[0] = '\0';
	if ((fp = fopen(path, "rb")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	usec = clocks_pcap_usec(fp);
	p = pcap_fopen_offline_with_tstamp_precision(
	    fp, usec ? PCAP_TSTAMP_PRECISION_MICRO : PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL) {
		fclose(fp);
		snprintf(err, errlen, "%s: %s", path, errbuf);
		return -1;
	}
	dlt = pcap_datalink(p);
	if (dlt != DLT_EN10MB && dlt != DLT_LINUX_SLL && dlt != DLT_LINUX_SLL2 && dlt != DLT_RAW &&
	    dlt != DLT_IPV4) {
		snprintf(err, errlen,
			 "%s: link type %s; the clocks read EN10MB, LINUX_SLL, "
			 "LINUX_SLL2 and RAW",
			 path, pcap_datalink_val_to_name(dlt));
		pcap_close(p);
		return -1;
	}
	for (;;) {
		/* where the next record starts (in a pcapng file, the next
		 * block) */
		long long off = ftello(pcap_file(p));
		int64_t sec, t_ns;
		uint32_t frac;

		if ((rc = pcap_next_ex(p, &h, &data)) != 1)
			break;
		frac = (uint32_t)h->ts.tv_usec;
		if (frac >= (usec ? CLOCKS_USEC_PER_SEC : NSEC_PER_SEC)) {
			clocks_pcap_bad_time(in, mk, path, npkt, off, frac, !usec);
			rc = 0;
			break;
		}
		/* a classic pcap's seconds are unsigned 32 bits */
		sec = pcap_major_version(p) == 2 ? (uint32_t)h->ts.tv_sec : h->ts.tv_sec;
		if (sec < 0 || sec >= INT64_MAX / NSEC_PER_SEC) {
			clocks_pcap_bad_seconds(in, mk, path, npkt, off, sec);
			rc = 0;
			break;
		}
		t_ns =
		    sec * NSEC_PER_SEC + (int64_t)frac * (usec ? NSEC_PER_USEC : 1) - mk->offset_ns;
		npkt++;
		(*mk->records)++;
		if (fn(in, capture, dlt, t_ns, data, h->caplen) == -1) {
			snprintf(err, errlen, "%s: packet %zu: out of memory", path, npkt);
			pcap_close(p);
			return -1;
		}
	}
	if (rc == PCAP_ERROR) {
		clocks_invalid(&in->notes, "capture_truncated",
			       "%s: after packet %zu: %s; read up to there", path, npkt,
			       pcap_geterr(p));
		*mk->truncated = 1;
	}
	pcap_close(p);
	return 0;
}

/*
 * The classic pcap format (pcap-savefile(5)): a 24-byte file header, then
 * per packet a 16-byte record header (seconds, microseconds or nanoseconds,
 * captured length, length on the wire) and the captured bytes, all in the
 * byte order of the magic number.
 */
#define CLOCKS_PCAP_MAGIC_USEC 0xa1b2c3d4u
#define CLOCKS_PCAP_MAGIC_NSEC 0xa1b23c4du
#define CLOCKS_PCAP_FILE_HDR 24
#define CLOCKS_PCAP_REC_HDR 16
#define CLOCKS_PCAP_MAX_CAPLEN 262144u /* libpcap's MAXIMUM_SNAPLEN: more is damage */
#define CLOCKS_PCAP_BLOCK (1u << 20)

/* the LINKTYPE_ values of the file header (not DLT_RAW, which differs
 * between systems) */
#define CLOCKS_LINKTYPE_ETHERNET 1
#define CLOCKS_LINKTYPE_RAW 101
#define CLOCKS_LINKTYPE_LINUX_SLL 113
#define CLOCKS_LINKTYPE_IPV4 228
#define CLOCKS_LINKTYPE_LINUX_SLL2 276

struct clocks_pcap_hdr {
	int swapped;	  /* the file's byte order is not ours */
	int64_t frac_ns;  /* nanoseconds per unit of the second field */
	uint32_t snaplen; /* what libpcap cuts longer records to */
	int dlt;
};

static uint32_t clocks_pcap_u32(const uint8_t *p, int swapped)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swapped ? __builtin_bswap32(v) : v;
}

/* clocks_pcap_hdr_parse: 0 if h is the header of a classic pcap (version
 * 2.4) of a link type the decoders know; -1 if libpcap is to read the file */
static int clocks_pcap_hdr_parse(const uint8_t *h, struct clocks_pcap_hdr *f)
{
	uint32_t magic, linktype;
	uint16_t major, minor;

	memcpy(&magic, h, sizeof(magic));
	if (magic == CLOCKS_PCAP_MAGIC_USEC || magic == CLOCKS_PCAP_MAGIC_NSEC)
		f->swapped = 0;
	else if (__builtin_bswap32(magic) == CLOCKS_PCAP_MAGIC_USEC ||
		 __builtin_bswap32(magic) == CLOCKS_PCAP_MAGIC_NSEC)
		f->swapped = 1;
	else
		return -1;
	if (f->swapped)
		magic = __builtin_bswap32(magic);
	f->frac_ns = magic == CLOCKS_PCAP_MAGIC_NSEC ? 1 : NSEC_PER_USEC;
	memcpy(&major, h + 4, sizeof(major));
	memcpy(&minor, h + 6, sizeof(minor));
	if (f->swapped) {
		major = __builtin_bswap16(major);
		minor = __builtin_bswap16(minor);
	}
	if (major != 2 || minor != 4)
		return -1;
	f->snaplen = clocks_pcap_u32(h + 16, f->swapped);
	/* libpcap's rule (1.10): a snaplen that is not a positive int is the
	 * maximum; a larger one stays, and only its words about a damaged
	 * capture length show it */
	if (f->snaplen == 0 || f->snaplen > INT_MAX)
		f->snaplen = CLOCKS_PCAP_MAX_CAPLEN;
	linktype = clocks_pcap_u32(h + 20, f->swapped);
	switch (linktype) {
	case CLOCKS_LINKTYPE_ETHERNET:
		f->dlt = DLT_EN10MB;
		return 0;
	case CLOCKS_LINKTYPE_RAW:
		f->dlt = DLT_RAW;
		return 0;
	case CLOCKS_LINKTYPE_LINUX_SLL:
		f->dlt = DLT_LINUX_SLL;
		return 0;
	case CLOCKS_LINKTYPE_IPV4:
		f->dlt = DLT_IPV4;
		return 0;
	case CLOCKS_LINKTYPE_LINUX_SLL2:
		f->dlt = DLT_LINUX_SLL2;
		return 0;
	}
	return -1; /* another link type, or FCS bits: libpcap says which */
}

/* reading one classic pcap: where, and what to do with each packet */
struct clocks_pcap_reader {
	const char *path;
	struct clocks_pcap_hdr f;
	struct clocks_input *in;
	clocks_packet_fn fn;
	void *capture;
	const struct clocks_file_marks *mk;
	size_t npkt;	  /* packets so far */
	long long offset; /* in the file, of the buffer's first byte */
};

/* clocks_pcap_cut: the warning on a file that ends in a record, left bytes
 * of it there, worded as libpcap words it */
static void clocks_pcap_cut(struct clocks_pcap_reader *rd, size_t left, uint32_t caplen)
{
	size_t want = caplen, got = left - CLOCKS_PCAP_REC_HDR;
	const char *what = "captured";

	if (left < CLOCKS_PCAP_REC_HDR) {
		want = CLOCKS_PCAP_REC_HDR;
		got = left;
		what = "header";
	} else if (caplen > rd->f.snaplen && got < rd->f.snaplen) {
		want = rd->f.snaplen; /* libpcap reads the snaplen first, then the rest */
	}
	clocks_invalid(
	    &rd->in->notes, "capture_truncated",
	    "%s: after packet %zu: truncated dump file; tried to read %zu %s bytes, only "
	    "got %zu; read up to there",
	    rd->path, rd->npkt, want, what, got);
	*rd->mk->truncated = 1;
}

/* clocks_pcap_records: give rd->fn every whole record at the start of
 * buf[0, len); *used: the bytes they took. *done is set when the file ends
 * there: at a damaged record (with a warning), or when eof (nothing follows
 * buf; a record cut short has a warning). -1 when rd->fn fails. */
static int clocks_pcap_records(struct clocks_pcap_reader *rd, const uint8_t *buf, size_t len,
			       int eof, size_t *used, int *done)
{
	const struct clocks_pcap_hdr *f = &rd->f;
	size_t off = 0;

	*done = 0;
	for (;;) {
		size_t left = len - off, need = CLOCKS_PCAP_REC_HDR;
		const uint8_t *r = buf + off;
		uint32_t caplen = 0, frac;

		if (left >= CLOCKS_PCAP_REC_HDR) {
			caplen = clocks_pcap_u32(r + 8, f->swapped);
			if (caplen > CLOCKS_PCAP_MAX_CAPLEN) {
				clocks_invalid(
				    &rd->in->notes, "capture_truncated",
				    "%s: after packet %zu: invalid packet capture length "
				    "%u, bigger than %s of %u; read up to there",
				    rd->path, rd->npkt, caplen,
				    caplen > f->snaplen ? "snaplen" : "maximum",
				    caplen > f->snaplen ? f->snaplen : CLOCKS_PCAP_MAX_CAPLEN);
				*rd->mk->truncated = 1;
				*done = 1;
				break;
			}
			need += caplen;
		}
		if (left < need) {
			if (eof) {
				if (left > 0)
					clocks_pcap_cut(rd, left, caplen);
				*done = 1;
			}
			break;
		}
		frac = clocks_pcap_u32(r + 4, f->swapped);
		if ((int64_t)frac * f->frac_ns >= NSEC_PER_SEC) {
			clocks_pcap_bad_time(rd->in, rd->mk, rd->path, rd->npkt,
					     rd->offset + (long long)off, frac, f->frac_ns == 1);
			*done = 1;
			break;
		}
		rd->npkt++;
		(*rd->mk->records)++;
		/* the seconds unsigned, as pcap-savefile(5) has them (libpcap
		 * 1.10 reads them signed; its path above takes them unsigned) */
		if (rd->fn(rd->in, rd->capture, f->dlt,
			   (int64_t)clocks_pcap_u32(r, f->swapped) * NSEC_PER_SEC +
			       (int64_t)frac * f->frac_ns - rd->mk->offset_ns,
			   r + CLOCKS_PCAP_REC_HDR,
			   caplen < f->snaplen ? caplen : f->snaplen) == -1)
			return -1;
		off += need;
	}
	*used = off;
	return 0;
}

/* clocks_pcap_read: the records from fd's offset on, read in blocks of a
 * MiB: as fast as mapping the file here, and no SIGBUS if someone shortens
 * it meanwhile */
static int clocks_pcap_read(struct clocks_pcap_reader *rd, int fd)
{
	/* a block, and room for the longest record that begins at its end */
	size_t size = CLOCKS_PCAP_BLOCK + CLOCKS_PCAP_REC_HDR + CLOCKS_PCAP_MAX_CAPLEN;
	size_t have = 0, used;
	int done = 0, rc = 0;
	uint8_t *buf;

	buf = malloc(size);
	if (buf == NULL)
		return -1;
	while (!done) {
		ssize_t n = read(fd, buf + have, size - have);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			clocks_invalid(&rd->in->notes, "capture_truncated",
				       "%s: after packet %zu: error reading dump file: %s; read up "
				       "to there",
				       rd->path, rd->npkt, strerror(errno));
			*rd->mk->truncated = 1;
			break;
		}
		have += (size_t)n;
		if ((rc = clocks_pcap_records(rd, buf, have, n == 0, &used, &done)) == -1)
			break;
		memmove(buf, buf + used, have - used);
		have -= used;
		rd->offset += (long long)used;
	}
	free(buf);
	return rc;
}

int clocks_read_pcap(const char *path, struct clocks_input *in, clocks_packet_fn fn, void *capture,
		     const struct clocks_file_marks *mk, char *err, size_t errlen)
{
	struct clocks_pcap_reader rd = {.path = path,
					.in = in,
					.fn = fn,
					.capture = capture,
					.mk = mk,
					.offset = CLOCKS_PCAP_FILE_HDR};
	uint8_t h[CLOCKS_PCAP_FILE_HDR];
	size_t got = 0;
	int fd, rc;

	if (clocks_pcap_via == CLOCKS_PCAP_VIA_LIBPCAP)
		return clocks_read_libpcap(path, in, fn, capture, mk, err, errlen);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (got < sizeof(h)) {
		ssize_t n = read(fd, h + got, sizeof(h) - got);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < sizeof(h) || clocks_pcap_hdr_parse(h, &rd.f) == -1) {
		/* short, not a classic pcap, or not one of ours: libpcap
		 * reads it or says what it is */
		close(fd);
		return clocks_read_libpcap(path, in, fn, capture, mk, err, errlen);
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	rc = clocks_pcap_read(&rd, fd);
	close(fd);
	if (rc == -1)
		snprintf(err, errlen, "%s: packet %zu: out of memory", path, rd.npkt);
	return rc;
}

/* clocks_read_capture: one capture file, its label after "capture-" */
static int clocks_read_capture(const char *rundir, const char *name, struct clocks_input *in,
			       char *err, size_t errlen)
{
	const char *label = name + strlen(CLOCKS_CAPTURE_PREFIX);
	size_t len = strlen(label) - strlen(CLOCKS_CAPTURE_SUFFIX);
	int query = strncmp(name, CLOCKS_QUERY_PREFIX, strlen(CLOCKS_QUERY_PREFIX)) == 0;
	struct clocks_file_marks mk;
	char path[PATH_MAX], lname[CLOCKS_NAME_MAX];
	struct stat st;
	int64_t offset;
	void *capture;
	char *dest;

	if (len >= CLOCKS_NAME_MAX) {
		clocks_warn(&in->notes, "capture_skipped", "%s: label too long, skipped", name);
		return 0;
	}
	/* on the reference's clock: less its collector's host's offset */
	memcpy(lname, label, len);
	lname[len] = '\0';
	offset = clocks_label_offset(in, lname);
	snprintf(path, sizeof(path), "%s/%s", rundir, name);
	if (strncmp(name, CLOCKS_LINK_PREFIX, strlen(CLOCKS_LINK_PREFIX)) == 0) {
		struct clocks_link_capture *lc;

		if (clocks_grow((void **)&in->lcaptures, &in->caplcaptures, in->nlcaptures,
				sizeof(*in->lcaptures)) == -1)
			goto nomem;
		lc = &in->lcaptures[in->nlcaptures++];
		memset(lc, 0, sizeof(*lc));
		memcpy(lc->label, label, len);
		lc->label[len] = '\0';
		mk = (struct clocks_file_marks){&lc->records, &lc->truncated, offset};
		return clocks_read_pcap(path, in, clocks_keep_none, lc, &mk, err, errlen);
	}
	if (strncmp(name, CLOCKS_RSV_PREFIX, strlen(CLOCKS_RSV_PREFIX)) == 0) {
		struct clocks_rsv_capture *rc;

		if (clocks_grow((void **)&in->rcaptures, &in->caprcaptures, in->nrcaptures,
				sizeof(*in->rcaptures)) == -1)
			goto nomem;
		rc = &in->rcaptures[in->nrcaptures++];
		memset(rc, 0, sizeof(*rc));
		memcpy(rc->label, label, len);
		rc->label[len] = '\0';
		mk = (struct clocks_file_marks){&rc->records, &rc->truncated, offset};
		return clocks_read_pcap(path, in, clocks_keep_dnsmsg, rc, &mk, err, errlen);
	}
	if (query) {
		struct clocks_query_capture *q;

		if (clocks_grow((void **)&in->qcaptures, &in->capqcaptures, in->nqcaptures,
				sizeof(*in->qcaptures)) == -1)
			goto nomem;
		q = &in->qcaptures[in->nqcaptures++];
		memset(q, 0, sizeof(*q));
		capture = q;
		dest = q->label;
		mk = (struct clocks_file_marks){&q->records, &q->truncated, offset};
	} else {
		struct clocks_capture *c;

		if (clocks_grow((void **)&in->captures, &in->capcaptures, in->ncaptures,
				sizeof(*in->captures)) == -1)
			goto nomem;
		c = &in->captures[in->ncaptures++];
		memset(c, 0, sizeof(*c));
		c->last_request_ns = CLOCKS_NONE;
		if (stat(path, &st) == 0 && st.st_size > 0)
			clocks_reserve((void **)&c->packets, &c->cap,
				       (size_t)st.st_size / CLOCKS_PCAP_MIN_REQUEST,
				       sizeof(*c->packets));
		capture = c;
		dest = c->label;
		mk = (struct clocks_file_marks){&c->records, &c->truncated, offset};
	}
	memcpy(dest, label, len);
	dest[len] = '\0';
	return clocks_read_pcap(path, in, query ? clocks_keep_query : clocks_keep_request, capture,
				&mk, err, errlen);
nomem:
	snprintf(err, errlen, "%s: out of memory", name);
	return -1;
}

int clocks_read_captures(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	char **names;
	size_t n;
	int rc = 0;

	if (clocks_list_dir(rundir, CLOCKS_CAPTURE_PREFIX, CLOCKS_CAPTURE_SUFFIX, &names, &n, err,
			    errlen) == -1)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = clocks_read_capture(rundir, names[i], in, err, errlen);
	clocks_free_names(names, n);
	return rc;
}
