/*
 * Reading the captures of a run directory with libpcap in nanosecond
 * precision (a microsecond file is scaled):
 *
 *   capture-dns-NODE.pcap   the queries reaching an authd link: every UDP
 *                           DNS query is kept, with its source address
 *   capture-LABEL.pcap      any other: a site's link; the request packets
 *                           (clocks_decode.c) are kept, with their
 *                           destination address
 *
 * The other packets of a file are counted. A file that ends in the middle of
 * a packet (the collector was killed) is read up to there, with a warning; a
 * file that is not a pcap at all is an error.
 */
#include <limits.h>
#include <pcap/pcap.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"

#define CLOCKS_CAPTURE_PREFIX "capture-"
#define CLOCKS_QUERY_PREFIX "capture-dns-"
#define CLOCKS_CAPTURE_SUFFIX ".pcap"

/* one packet of a file: keep it (0), skip it (1), or fail (-1: out of memory) */
typedef int (*clocks_packet_fn)(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
				const u_char *data, size_t caplen);

static int clocks_keep_request(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
			       const u_char *data, size_t caplen)
{
	struct clocks_capture *c = capture;
	struct clocks_packet *p;
	struct wire_msg m;
	struct in_addr dst;

	if (clocks_decode_request(dlt, data, caplen, in->port, &m, &dst) == -1) {
		c->other++;
		return 1;
	}
	if (clocks_grow((void **)&c->packets, &c->cap, c->n, sizeof(*c->packets)) == -1)
		return -1;
	p = &c->packets[c->n++];
	p->t_ns = t_ns;
	p->client = m.client_id;
	p->seq = m.seq;
	p->dst = dst;
	return 0;
}

static int clocks_keep_query(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
			     const u_char *data, size_t caplen)
{
	struct clocks_query_capture *c = capture;
	struct in_addr src;

	(void)in;
	if (clocks_decode_query(dlt, data, caplen, &src) == -1) {
		c->other++;
		return 1;
	}
	if (clocks_grow((void **)&c->queries, &c->cap, c->n, sizeof(*c->queries)) == -1)
		return -1;
	c->queries[c->n++] = (struct clocks_query){t_ns, src};
	return 0;
}

static int clocks_read_pcap(const char *path, struct clocks_input *in, clocks_packet_fn fn,
			    void *capture, char *err, size_t errlen)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	size_t npkt = 0;
	pcap_t *p;
	int dlt, rc;

	errbuf[0] = '\0';
	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL) {
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
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		/* in nanosecond precision tv_usec holds nanoseconds */
		int64_t t_ns = (int64_t)h->ts.tv_sec * NSEC_PER_SEC + h->ts.tv_usec;

		npkt++;
		if (fn(in, capture, dlt, t_ns, data, h->caplen) == -1) {
			snprintf(err, errlen, "%s: packet %zu: out of memory", path, npkt);
			pcap_close(p);
			return -1;
		}
	}
	if (rc == PCAP_ERROR)
		clocks_warn(&in->notes, "%s: after packet %zu: %s; read up to there", path, npkt,
			    pcap_geterr(p));
	pcap_close(p);
	return 0;
}

/* clocks_read_capture: one capture file, its label after "capture-" */
static int clocks_read_capture(const char *rundir, const char *name, struct clocks_input *in,
			       char *err, size_t errlen)
{
	const char *label = name + strlen(CLOCKS_CAPTURE_PREFIX);
	size_t len = strlen(label) - strlen(CLOCKS_CAPTURE_SUFFIX);
	int query = strncmp(name, CLOCKS_QUERY_PREFIX, strlen(CLOCKS_QUERY_PREFIX)) == 0;
	char path[PATH_MAX];
	void *capture;
	char *dest;

	if (len >= CLOCKS_NAME_MAX) {
		clocks_warn(&in->notes, "%s: label too long, skipped", name);
		return 0;
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
	} else {
		struct clocks_capture *c;

		if (clocks_grow((void **)&in->captures, &in->capcaptures, in->ncaptures,
				sizeof(*in->captures)) == -1)
			goto nomem;
		c = &in->captures[in->ncaptures++];
		memset(c, 0, sizeof(*c));
		capture = c;
		dest = c->label;
	}
	memcpy(dest, label, len);
	dest[len] = '\0';
	snprintf(path, sizeof(path), "%s/%s", rundir, name);
	return clocks_read_pcap(path, in, query ? clocks_keep_query : clocks_keep_request, capture,
				err, errlen);
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
