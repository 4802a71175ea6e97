/*
 * Reading the captures of a run directory, capture-LABEL.pcap, with libpcap
 * in nanosecond precision (a microsecond file is scaled). Only the request
 * packets are kept (clocks_decode.c); the others are counted. A file that
 * ends in the middle of a packet (the collector was killed) is read up to
 * there, with a warning; a file that is not a pcap at all is an error.
 */
#include <limits.h>
#include <pcap/pcap.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"

static int clocks_read_pcap(const char *path, struct clocks_input *in, struct clocks_capture *c,
			    char *err, size_t errlen)
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
		struct wire_msg m;

		npkt++;
		if (clocks_decode_request(dlt, data, h->caplen, in->port, &m) == -1) {
			c->other++;
			continue;
		}
		if (clocks_grow((void **)&c->packets, &c->cap, c->n, sizeof(*c->packets)) == -1) {
			snprintf(err, errlen, "%s: packet %zu: out of memory", path, npkt);
			pcap_close(p);
			return -1;
		}
		/* in nanosecond precision tv_usec holds nanoseconds */
		c->packets[c->n].t_ns = (int64_t)h->ts.tv_sec * NSEC_PER_SEC + h->ts.tv_usec;
		c->packets[c->n].client = m.client_id;
		c->packets[c->n].seq = m.seq;
		c->n++;
	}
	if (rc == PCAP_ERROR)
		clocks_warn(&in->notes, "%s: after packet %zu: %s; read up to there", path, npkt,
			    pcap_geterr(p));
	pcap_close(p);
	return 0;
}

int clocks_read_captures(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	static const char prefix[] = "capture-", suffix[] = ".pcap";
	char path[PATH_MAX], **names;
	size_t n;
	int rc = 0;

	if (clocks_list_dir(rundir, prefix, suffix, &names, &n, err, errlen) == -1)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t len = strlen(names[i]) - (sizeof(prefix) - 1) - (sizeof(suffix) - 1);
		struct clocks_capture *c;

		if (len >= CLOCKS_NAME_MAX) {
			clocks_warn(&in->notes, "%s: label too long, skipped", names[i]);
			continue;
		}
		if (clocks_grow((void **)&in->captures, &in->capcaptures, in->ncaptures,
				sizeof(*in->captures)) == -1) {
			snprintf(err, errlen, "%s: out of memory", names[i]);
			rc = -1;
			break;
		}
		c = &in->captures[in->ncaptures++];
		memset(c, 0, sizeof(*c));
		memcpy(c->label, names[i] + sizeof(prefix) - 1, len);
		c->label[len] = '\0';
		snprintf(path, sizeof(path), "%s/%s", rundir, names[i]);
		rc = clocks_read_pcap(path, in, c, err, errlen);
	}
	clocks_free_names(names, n);
	return rc;
}
