/* libpcap captures written to nanosecond pcap files; see capture.h. */
#include "capture.h"

#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

/* stdio buffer of each dump file: fewer write(2) calls at high rates */
#define CAPTURE_FILE_BUFFER (1 << 20)

struct capture {
	pcap_t *pcap;
	pcap_dumper_t *dumper;
	FILE *fp;
	char *filebuf;
	char *label;
	char *iface;
	char *path;
	uint64_t packets;
	int fd;
};

static void capture_write(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct capture *c = (struct capture *)user;

	pcap_dump((u_char *)c->dumper, h, bytes);
	c->packets++;
}

/* capture_setup: everything that must happen before pcap_activate. */
static int capture_setup(struct capture *c, const struct capture_config *cfg)
{
	int rc;

	if (pcap_set_snaplen(c->pcap, cfg->snaplen) != 0 ||
	    pcap_set_buffer_size(c->pcap, cfg->buffer_bytes) != 0 ||
	    pcap_set_timeout(c->pcap, CAPTURE_TIMEOUT_MS) != 0 ||
	    pcap_set_promisc(c->pcap, 0) != 0) {
		log_warnx("%s: cannot configure capture", c->iface);
		return -1;
	}
	rc = pcap_set_tstamp_precision(c->pcap, PCAP_TSTAMP_PRECISION_NANO);
	if (rc != 0) {
		log_warnx("%s: nanosecond timestamps: %s", c->iface, pcap_statustostr(rc));
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
		log_warnx("%s: %s: %s", c->iface, rc < 0 ? "cannot capture" : "warning",
			  why && *why ? why : pcap_statustostr(rc));
		if (rc < 0)
			return -1;
	}
	if (pcap_get_tstamp_precision(c->pcap) != PCAP_TSTAMP_PRECISION_NANO) {
		log_warnx("%s: capture is not in nanosecond precision", c->iface);
		return -1;
	}
	if (pcap_compile(c->pcap, &prog, cfg->filter, 1, PCAP_NETMASK_UNKNOWN) != 0) {
		log_warnx("%s: filter \"%s\": %s", c->iface, cfg->filter, pcap_geterr(c->pcap));
		return -1;
	}
	rc = pcap_setfilter(c->pcap, &prog);
	pcap_freecode(&prog);
	if (rc != 0) {
		log_warnx("%s: setfilter: %s", c->iface, pcap_geterr(c->pcap));
		return -1;
	}
	if (pcap_setnonblock(c->pcap, 1, errbuf) != 0) {
		log_warnx("%s: setnonblock: %s", c->iface, errbuf);
		return -1;
	}
	c->fd = pcap_get_selectable_fd(c->pcap);
	if (c->fd == -1) {
		log_warnx("%s: no selectable descriptor", c->iface);
		return -1;
	}
	return 0;
}

static int capture_open_file(struct capture *c)
{
	c->fp = fopen(c->path, "w");
	if (c->fp == NULL) {
		log_warn("%s", c->path);
		return -1;
	}
	c->filebuf = malloc(CAPTURE_FILE_BUFFER);
	if (c->filebuf && setvbuf(c->fp, c->filebuf, _IOFBF, CAPTURE_FILE_BUFFER) != 0) {
		free(c->filebuf);
		c->filebuf = NULL;
	}
	/* the dumper writes the nanosecond magic: the handle's precision */
	c->dumper = pcap_dump_fopen(c->pcap, c->fp);
	if (c->dumper == NULL) {
		log_warnx("%s: %s", c->path, pcap_geterr(c->pcap));
		fclose(c->fp);
		c->fp = NULL;
		return -1;
	}
	/* the header now, so that even an empty capture is a valid file */
	if (pcap_dump_flush(c->dumper) != 0) {
		log_warn("%s", c->path);
		return -1;
	}
	return 0;
}

struct capture *capture_open(const struct capture_config *cfg)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct capture *c;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->fd = -1;
	c->label = strdup(cfg->label);
	c->iface = strdup(cfg->iface);
	if (c->label == NULL || c->iface == NULL ||
	    asprintf(&c->path, "%s/capture-%s.pcap", cfg->dir, cfg->label) == -1) {
		c->path = NULL;
		log_warnx("out of memory");
		goto fail;
	}
	errbuf[0] = '\0';
	c->pcap = pcap_create(cfg->iface, errbuf);
	if (c->pcap == NULL) {
		log_warnx("%s: %s", cfg->iface, errbuf);
		goto fail;
	}
	if (capture_setup(c, cfg) == -1 || capture_activate(c, cfg) == -1)
		goto fail;
	if (capture_open_file(c) == -1)
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

const char *capture_linktype(const struct capture *c)
{
	const char *name = pcap_datalink_val_to_name(pcap_datalink(c->pcap));

	return name ? name : "unknown";
}

int capture_read(struct capture *c, int max)
{
	int n = pcap_dispatch(c->pcap, max > 0 ? max : -1, capture_write, (u_char *)c);

	if (n == PCAP_ERROR) {
		log_warnx("%s: %s", c->iface, pcap_geterr(c->pcap));
		return -1;
	}
	return n < 0 ? 0 : n;
}

int capture_stats(struct capture *c, struct capture_stats *st)
{
	struct pcap_stat ps;

	memset(st, 0, sizeof(*st));
	st->packets = c->packets;
	if (pcap_stats(c->pcap, &ps) != 0) {
		log_warnx("%s: stats: %s", c->iface, pcap_geterr(c->pcap));
		return -1;
	}
	st->received = ps.ps_recv;
	st->dropped = ps.ps_drop;
	st->if_dropped = ps.ps_ifdrop;
	return 0;
}

int capture_close(struct capture *c)
{
	int rc = 0;

	if (c == NULL)
		return 0;
	if (c->dumper) {
		if (pcap_dump_flush(c->dumper) != 0 || ferror(c->fp)) {
			log_warnx("%s: write error: %s", c->path, strerror(errno));
			rc = -1;
		}
		/* pcap_dump_close fcloses c->fp; its error is not reported */
		pcap_dump_close(c->dumper);
	} else if (c->fp) {
		fclose(c->fp);
	}
	if (c->pcap)
		pcap_close(c->pcap);
	free(c->filebuf);
	free(c->label);
	free(c->iface);
	free(c->path);
	free(c);
	return rc;
}
