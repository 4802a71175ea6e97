/* libpcap captures written to nanosecond pcap files; see capture.h. */
#include "capture.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capfile.h"
#include "capring.h"
#include "log.h"
#include "ipframe.h"
#include "wire.h"

struct capture {
	pcap_t *pcap;
	struct capfile *file; /* NULL once closed */
	char *label;
	char *iface;
	char *path;
	uint64_t packets; /* handed to us by libpcap */
	uint64_t written; /* in the file, once it is closed */
	int write_errno;  /* the file's first error, once it is closed */
	int fd;
	int dlt;			  /* the link type, for the request counts */
	struct capture_requests requests; /* what capture_requests says */
};

/* capture_count: a request's client id says its flow (lib/wire.h);
 * counters only, the events are written by the collector's timer */
static void capture_count(struct capture *c, const struct pcap_pkthdr *h, const u_char *bytes)
{
	uint32_t client;

	if (ipframe_request(c->dlt, bytes, h->caplen, 0, &client, NULL, NULL) == -1) {
		c->requests.other++;
		return;
	}
	if (client == WIRE_PROBE_CLIENT) {
		c->requests.probe++;
	} else if (!wire_is_dns(client)) {
		c->requests.anycast++;
		c->requests.anycast_last_ns = (int64_t)h->ts.tv_sec * 1000000000LL + h->ts.tv_usec;
	} else {
		c->requests.dns++;
		c->requests.dns_last_ns = (int64_t)h->ts.tv_sec * 1000000000LL + h->ts.tv_usec;
	}
}

static void capture_write(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capture *c = (struct capture *)user;

	c->packets++;
	capture_count(c, h, bytes);
	/* the handle is in nanosecond precision: tv_usec holds nanoseconds,
	 * as pcap_dump() would write them; after a write error nothing more
	 * is written (capture_write_error) */
	if (c->file)
		(void)capfile_add(c->file, (uint32_t)h->ts.tv_sec, (uint32_t)h->ts.tv_usec,
				  h->caplen, h->len, bytes);
}

/* capture_setup: everything that must happen before pcap_activate. */
static int capture_setup(struct capture *c, const struct capture_config *cfg)
{
	int rc;

	if (pcap_set_snaplen(c->pcap, cfg->snaplen) != 0 ||
	    pcap_set_buffer_size(c->pcap, cfg->buffer_bytes) != 0 ||
	    pcap_set_timeout(c->pcap, CAPRING_TIMEOUT_MS) != 0 ||
	    pcap_set_promisc(c->pcap, 0) != 0) {
		log_warnx("%s: %s: cannot configure capture", __func__, c->iface);
		return -1;
	}
	rc = pcap_set_tstamp_precision(c->pcap, PCAP_TSTAMP_PRECISION_NANO);
	if (rc != 0) {
		log_warnx("%s: %s: nanosecond timestamps: %s", __func__, c->iface,
			  pcap_statustostr(rc));
		return -1;
	}
	return 0;
}

static int capture_activate(struct capture *c, const struct capture_config *cfg)
{
	struct bpf_program prog;
	char errbuf[PCAP_ERRBUF_SIZE];
	int rc;

	rc = pcap_activate(c->pcap);
	if (rc != 0) {
		/* the detailed message when there is one, else the generic */
		const char *why = pcap_geterr(c->pcap);
		log_warnx("%s: %s: %s: %s", __func__, c->iface,
			  rc < 0 ? "cannot capture" : "warning",
			  why && *why ? why : pcap_statustostr(rc));
		if (rc < 0)
			return -1;
	}
	if (pcap_get_tstamp_precision(c->pcap) != PCAP_TSTAMP_PRECISION_NANO) {
		log_warnx("%s: capture is not in nanosecond precision", c->iface);
		return -1;
	}
	if (pcap_compile(c->pcap, &prog, cfg->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		log_warnx("%s: %s: filter \"%s\": %s", __func__, c->iface, cfg->filter,
			  pcap_geterr(c->pcap));
		return -1;
	}
	rc = pcap_setfilter(c->pcap, &prog);
	pcap_freecode(&prog);
	if (rc != 0) {
		log_warnx("%s: %s: setfilter: %s", __func__, c->iface, pcap_geterr(c->pcap));
		return -1;
	}
	if (pcap_setnonblock(c->pcap, 1, errbuf) != 0) {
		log_warnx("%s: %s: setnonblock: %s", __func__, c->iface, errbuf);
		return -1;
	}
	c->dlt = pcap_datalink(c->pcap);
	c->fd = pcap_get_selectable_fd(c->pcap);
	if (c->fd == -1) {
		log_warnx("%s: %s: no selectable descriptor", __func__, c->iface);
		return -1;
	}
	return 0;
}

/* capture_file_header: the pcap file header libpcap writes for this
 * handle (nanosecond magic: the handle's precision; its snaplen and link
 * type), written to memory. 0, or -1. */
static int capture_file_header(struct capture *c, char **hdr, size_t *len)
{
	FILE *mem = open_memstream(hdr, len);
	pcap_dumper_t *d;

	if (mem == NULL) {
		log_warn("%s: %s: header", __func__, c->path);
		return -1;
	}
	if ((d = pcap_dump_fopen(c->pcap, mem)) == NULL) {
		log_warnx("%s: %s: %s", __func__, c->path, pcap_geterr(c->pcap));
		fclose(mem);
		free(*hdr);
		return -1;
	}
	pcap_dump_close(d); /* fclose: *hdr and *len are final */
	return 0;
}

/* capture_open_file: the file, with its header already written, so that
 * even an empty capture is a valid file */
static int capture_open_file(struct capture *c, int *file_errno)
{
	char *hdr = NULL;
	size_t len = 0;

	if (capture_file_header(c, &hdr, &len) == -1)
		return -1;
	c->file = capfile_open(c->path, hdr, len, CAPFILE_BUFFER_DEFAULT);
	free(hdr);
	if (c->file == NULL) {
		*file_errno = errno;
		log_warnx("%s: %s: %s", __func__, c->path, strerror(errno));
		return -1;
	}
	return 0;
}

struct capture *capture_open(const struct capture_config *cfg, int *file_errno)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct capture *c;

	*file_errno = 0;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->fd = -1;
	c->label = strdup(cfg->label);
	c->iface = strdup(cfg->iface);
	if (c->label == NULL || c->iface == NULL ||
	    asprintf(&c->path, "%s/capture-%s.pcap", cfg->dir, cfg->label) == -1) {
		c->path = NULL;
		log_warnx("%s: out of memory", __func__);
		goto fail;
	}
	errbuf[0] = '\0';
	c->pcap = pcap_create(cfg->iface, errbuf);
	if (c->pcap == NULL) {
		log_warnx("%s: %s: %s", __func__, cfg->iface, errbuf);
		goto fail;
	}
	if (capture_setup(c, cfg) == -1 || capture_activate(c, cfg) == -1)
		goto fail;
	if (capture_open_file(c, file_errno) == -1)
		goto fail;
	return c;
fail:
	capture_close(c);
	return NULL;
}

int capture_fd(const struct capture *c)
{
	return c->fd;
}

const char *capture_label(const struct capture *c)
{
	return c->label;
}

const char *capture_iface(const struct capture *c)
{
	return c->iface;
}

const char *capture_path(const struct capture *c)
{
	return c->path;
}

int capture_write_error(const struct capture *c)
{
	return c->file ? capfile_error(c->file) : c->write_errno;
}

uint64_t capture_written(const struct capture *c)
{
	return c->file ? capfile_written(c->file) : c->written;
}

const char *capture_linktype(const struct capture *c)
{
	const char *name = pcap_datalink_val_to_name(pcap_datalink(c->pcap));

	return name ? name : "unknown";
}

int capture_read(struct capture *c, int max)
{
	int n = pcap_dispatch(c->pcap, max > 0 ? max : -1, capture_write, (u_char *)c);

	if (n == PCAP_ERROR) {
		log_warnx("%s: %s: %s", __func__, c->iface, pcap_geterr(c->pcap));
		return -1;
	}
	return n < 0 ? 0 : n;
}

void capture_requests(const struct capture *c, struct capture_requests *r)
{
	*r = c->requests;
}

int capture_stats(struct capture *c, struct capture_stats *st)
{
	struct pcap_stat ps;

	memset(st, 0, sizeof(*st));
	st->packets = c->packets;
	st->written = capture_written(c);
	if (pcap_stats(c->pcap, &ps) != 0) {
		log_warnx("%s: %s: stats: %s", __func__, c->iface, pcap_geterr(c->pcap));
		return -1;
	}
	st->received = ps.ps_recv;
	st->dropped = ps.ps_drop;
	st->if_dropped = ps.ps_ifdrop;
	return 0;
}

int capture_flush(struct capture *c)
{
	if (c->file == NULL)
		return c->write_errno ? -1 : 0;
	return capfile_flush(c->file);
}

int capture_close_file(struct capture *c)
{
	int rc;

	if (c->file == NULL)
		return c->write_errno ? -1 : 0;
	/* the last records first, so that written is final */
	(void)capfile_flush(c->file);
	c->written = capfile_written(c->file);
	rc = capfile_close(c->file, &c->write_errno);
	c->file = NULL;
	return rc;
}

int capture_close(struct capture *c)
{
	int rc = 0;

	if (c == NULL)
		return 0;
	if (capture_close_file(c) == -1)
		rc = -1;
	if (c->pcap)
		pcap_close(c->pcap);
	free(c->label);
	free(c->iface);
	free(c->path);
	free(c);
	return rc;
}
