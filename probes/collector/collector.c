/*
 * collector: packet captures of the router-to-site links (-c, the request
 * filter), of the router-to-router links (-b, BGP: TCP port 179) and a
 * route monitor, in one namespace, in one epoll loop (docs/agents.md). The
 * route monitor starts with what the FIB holds (op "present"), then every
 * change; with -P and no capture it runs alone (a router without sites).
 *
 * Every capture and the route monitor are handlers of one lib/loop.h loop.
 * On SIGTERM or SIGINT the collector keeps reading for COLLECTOR_DRAIN_NS
 * (the kernel hands a partly filled ring block over only after the capture
 * timeout), then empties every ring, closes the files, writes one
 * capture_stats event per link and exits 0 (1 if a file failed).
 *
 * A file that cannot be written (ENOSPC, EIO, ...) is reported at once as a
 * capture_error event naming it and the error; its capture goes on being
 * read and counted, but nothing more is written to it, and capture_stats
 * says how many packets the file holds (written) beside how many were
 * captured (packets).
 *
 * The kernel gives a route notification no time stamp (netlink_recvmsg
 * passes none: SO_TIMESTAMPNS and SO_TIMESTAMPING on the socket give no
 * control message, tried on Linux 6.18), so a route change is stamped when
 * it is read: late by as long as the loop did not run. A timer every
 * COLLECTOR_WATCH_NS tells: a loop that did not run for longer than
 * COLLECTOR_STALL_NS (stopped, starved of CPU) is reported as
 * collector_stalled, and a route change read at the end of such a stall
 * carries stalled_ns, how much earlier it may have happened.
 *
 * Every COLLECTOR_PROGRESS_NS, if any link saw a packet since the last one,
 * a capture_progress event gives each link's requests so far by flow
 * (capture.h): what `steerlab run`'s progress line shows, a few ms behind
 * the packets rather than a client's second. Not once a capture file has
 * failed: the disk kept for the events (COLLECTOR_RESERVE) is for the
 * errors and the capture_stats.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <linux/rtnetlink.h>
#include <limits.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "addr.h"
#include "addrplan.h"
#include "capring.h"
#include "capture.h"
#include "event.h"
#include "events.h"
#include "log.h"
#include "loop.h"
#include "opt.h"
#include "rtmon.h"
#include "timeutil.h"

#define COLLECTOR_MAX_LINKS 128 /* a site link is two with BGP (its requests, its session) */
#define COLLECTOR_LABEL_MAX 64
/* packets per callback, so one busy link does not starve the others */
#define COLLECTOR_BATCH 8192
/* the last block is handed over CAPRING_TIMEOUT_MS after its first packet:
 * three of them, read on a loaded machine */
#define COLLECTOR_DRAIN_NS (3 * CAPRING_TIMEOUT_MS * NSEC_PER_MSEC)
#define COLLECTOR_DEFAULT_FILTER "udp dst port 7000"
/* the router-to-router links: BGP only (the requests that cross them are
 * counted on the site links) */
#define COLLECTOR_BGP_FILTER "tcp port 179"
/* and whole: an UPDATE is up to 4096 bytes (65535 with RFC 8654) */
#define COLLECTOR_BGP_SNAPLEN 65535
/* disk kept for the event file and the log, so that a full disk can still
 * be reported in them (the captures are usually what fills it) */
#define COLLECTOR_RESERVE (64 << 10)
/* how often the files are written out even when their buffers are not
 * full: a full disk shows within this time, not after a megabyte */
#define COLLECTOR_FLUSH_NS NSEC_PER_SEC
/* how often the request counts are published (capture_progress) */
#define COLLECTOR_PROGRESS_NS (100 * NSEC_PER_MSEC)
/* how often the loop says it runs, and how long it may not before that is
 * a stall (the verdict's slack on a route change's time, docs/clocks.md) */
#define COLLECTOR_WATCH_NS (20 * NSEC_PER_MSEC)
#define COLLECTOR_STALL_NS (50 * NSEC_PER_MSEC)

struct collector_link {
	char iface[IF_NAMESIZE];
	char label[COLLECTOR_LABEL_MAX + 1];
	int bgp;    /* -b: a router link, captured with the BGP filter */
	int buffer; /* its kernel ring, bytes (IFACE=LABEL:BYTES); 0: -B's */
	struct capture *cap;
	struct loop_handler h;
	int failed;	    /* a read error: no longer watched */
	int write_failed;   /* its file's error has been reported */
	uint64_t published; /* packets at the last capture_progress */
	struct collector *col;
};

#define COLLECTOR_MAX_PREFIXES 8

struct collector {
	struct loop *loop;
	struct event_log *ev;
	struct rtmon *rtmon;
	struct collector_link links[COLLECTOR_MAX_LINKS];
	int nlinks;
	int nprefix; /* -P: route events only for these (0: every route) */
	struct addr_prefix prefix[COLLECTOR_MAX_PREFIXES]; /* an IPv6 one: IPv6 routes too */
	int ipv6;
	const char *filter, *bgp_filter; /* of the -c captures, of the -b ones */
	int draining;
	struct loop_handler sig, rtmon_h, drain_timer, flush_timer, progress_timer, watch_timer;
	int overruns;
	/* the loop's watch (CLOCK_MONOTONIC): when it last ran, and the last
	 * stall: from when, seen when; stalled_ns for the route changes being
	 * read (0: none) */
	int64_t alive_ns, stall_from_ns, stall_seen_ns, read_stalled_ns;
};

#define COLLECTOR_USAGE                                                                            \
	"usage: collector -o DIR [-c IFACE=LABEL[:BYTES] ...] [-b IFACE=LABEL[:BYTES] ...]\n"      \
	"                 [-n NODE] [-e FILE] [-f FILTER] [-F FILTER] [-B BYTES] [-s SNAPLEN]\n"   \
	"                 [-P PREFIX ...] [-v] [-h]\n"

static void collector_usage(FILE *fp)
{
	fprintf(fp,
		COLLECTOR_USAGE
		"  -o DIR          where capture-LABEL.pcap files are written\n"
		"  -c IFACE=LABEL[:BYTES]  capture IFACE into DIR/capture-LABEL.pcap\n"
		"                  (repeatable), with a kernel buffer of BYTES (else -B's)\n"
		"  -b IFACE=LABEL[:BYTES]  capture IFACE with the -F filter, whole packets\n"
		"                  (a router-to-router link: its BGP)\n"
		"  -f FILTER       BPF filter of the -c captures (default \"%s\")\n"
		"  -F FILTER       BPF filter of the -b captures (default \"%s\")\n"
		"  -B BYTES        kernel buffer of a capture given none, e.g. 64M (default\n"
		"                  64M)\n"
		"  -s SNAPLEN      bytes kept of each packet (default %d)\n"
		"  -P PREFIX       route events only for this prefix, e.g. " ADDRPLAN_SERVICE_TEXT
		"/32\n"
		"                  or 2001:2:0:ff00::1/128 (an IPv6 one: the IPv6 routes too)\n"
		"                  (repeatable, at most 8); with -P, no capture is needed:\n"
		"                  a route monitor alone\n"
		"  -n NODE         lab node, written into every event (default: collector)\n"
		"  -e FILE         JSON Lines event file (default: standard output)\n"
		"  -v              debug logging\n"
		"  -h              this help\n",
		COLLECTOR_DEFAULT_FILTER, COLLECTOR_BGP_FILTER, CAPTURE_SNAPLEN_DEFAULT);
}

/* collector_parse_size: "67108864", "64M", "64MiB", "512K", "1G". */
static int collector_parse_size(const char *s, int *bytes)
{
	char *end;
	unsigned long long v, mult = 1;

	/* digits first: no sign, no space (strtoull would take both) */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		end++;
		break;
	}
	if (mult > 1 && *end == 'i')
		end++;
	if (*end == 'B')
		end++;
	if (*end != '\0' || v == 0 || v > INT_MAX / mult)
		return -1;
	*bytes = (int)(v * mult);
	return 0;
}

static int collector_valid_label(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > COLLECTOR_LABEL_MAX)
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

/* collector_add_link: one -c IFACE=LABEL[:BYTES], or -b (bgp). */
static int collector_add_link(struct collector *col, const char *arg, int bgp)
{
	const char *eq = strchr(arg, '='), *colon;
	char label[COLLECTOR_LABEL_MAX + 1];
	struct collector_link *l;
	size_t ilen, llen = 0;
	int buffer = 0;

	if (col->nlinks == COLLECTOR_MAX_LINKS) {
		log_warnx("-c %s: at most %d captures", arg, COLLECTOR_MAX_LINKS);
		return -1;
	}
	ilen = eq ? (size_t)(eq - arg) : 0;
	colon = eq ? strchr(eq + 1, ':') : NULL;
	if (eq)
		llen = colon ? (size_t)(colon - eq - 1) : strlen(eq + 1);
	if (eq == NULL || ilen == 0 || ilen >= IF_NAMESIZE || llen > COLLECTOR_LABEL_MAX) {
		log_warnx("-c %s: expected IFACE=LABEL (label of [A-Za-z0-9._-])", arg);
		return -1;
	}
	memcpy(label, eq + 1, llen);
	label[llen] = '\0';
	if (!collector_valid_label(label)) {
		log_warnx("-c %s: expected IFACE=LABEL (label of [A-Za-z0-9._-])", arg);
		return -1;
	}
	if (colon && collector_parse_size(colon + 1, &buffer) == -1) {
		log_warnx("-c %s: expected IFACE=LABEL:BYTES, BYTES a size such as 4M", arg);
		return -1;
	}
	for (int i = 0; i < col->nlinks; i++) {
		if (strcmp(col->links[i].label, label) == 0) {
			log_warnx("-c %s: label %s given twice", arg, label);
			return -1;
		}
	}
	l = &col->links[col->nlinks++];
	memcpy(l->iface, arg, ilen);
	l->iface[ilen] = '\0';
	memcpy(l->label, label, llen + 1);
	l->buffer = buffer;
	l->bgp = bgp;
	l->col = col;
	return 0;
}

/* collector_nexthops: a multipath route's next hops, [{via, dev}] */
static json_t *collector_nexthops(const struct rtmon_route *r)
{
	json_t *a = json_array();

	for (int i = 0; a && i < r->nnh; i++) {
		char via[INET6_ADDRSTRLEN], dev[IF_NAMESIZE];

		inet_ntop(r->family,
			  r->family == AF_INET6 ? (const void *)&r->nh[i].gateway6
						: (const void *)&r->nh[i].gateway,
			  via, sizeof(via));
		if (r->nh[i].oif == 0 || if_indextoname((unsigned)r->nh[i].oif, dev) == NULL)
			dev[0] = '\0';
		json_array_append_new(a, json_pack("{s:s?, s:s?}", "via",
						   r->nh[i].has_gateway ? via : NULL, "dev",
						   dev[0] ? dev : NULL));
	}
	return a;
}

/* collector_wanted: route r is one of the -P prefixes (any without -P) */
static int collector_wanted(const struct collector *col, const struct rtmon_route *r)
{
	const void *dst = r->family == AF_INET6 ? (const void *)&r->dst6 : (const void *)&r->dst;
	size_t len = r->family == AF_INET6 ? sizeof(r->dst6) : sizeof(r->dst);

	if (col->nprefix == 0)
		return r->family == AF_INET;
	for (int k = 0; k < col->nprefix; k++)
		if (col->prefix[k].family == r->family && col->prefix[k].len == r->dst_len &&
		    memcmp(col->prefix[k].addr, dst, len) == 0)
			return 1;
	return 0;
}

static void collector_route(const struct rtmon_route *r, void *arg)
{
	struct collector *col = arg;
	char prefix[INET6_ADDRSTRLEN + 4], via[INET6_ADDRSTRLEN], dev[IF_NAMESIZE];
	const char *name = r->deleted ? EVENTS_ROUTE_DELETED : EVENTS_ROUTE_ADDED;
	int v6 = r->family == AF_INET6;

	if (r->table != RT_TABLE_MAIN || !collector_wanted(col, r))
		return;
	inet_ntop(r->family, v6 ? (const void *)&r->dst6 : (const void *)&r->dst, via, sizeof(via));
	snprintf(prefix, sizeof(prefix), "%s/%d", via, r->dst_len);
	inet_ntop(r->family, v6 ? (const void *)&r->gateway6 : (const void *)&r->gateway, via,
		  sizeof(via));
	if (r->oif == 0 || if_indextoname((unsigned)r->oif, dev) == NULL)
		dev[0] = '\0';
	/* via and dev: the (first) next hop; nexthops: all of a multipath
	 * route's, in one event, so that one route change is one event */
	event_emit_at(col->ev, r->t_ns, name,
		      "{s:s, s:s, s:b, s:s?, s:I, s:i, s:i, s:s, s:s?, s:b, s:o?, s:o?, s:o*}",
		      "prefix", prefix, "op", rtmon_op_name(r->op), "replace",
		      r->op == RTMON_REPLACE, "via", r->has_gateway ? via : NULL, "metric",
		      (json_int_t)r->metric, "protocol", (int)r->protocol, "table", (int)r->table,
		      "type", rtmon_type_name(r->type), "dev", dev[0] ? dev : NULL, "multipath",
		      r->multipath, "nexthops", r->multipath ? collector_nexthops(r) : NULL, "nhid",
		      r->nhid ? json_integer(r->nhid) : NULL, "stalled_ns",
		      col->read_stalled_ns ? json_integer(col->read_stalled_ns) : NULL);
	if (r->nnh_total > r->nnh)
		log_warnx("%s: %d next hops, the first %d recorded", prefix, r->nnh_total, r->nnh);
	log_debug("%s %s %s via %s metric %u proto %d", name, rtmon_op_name(r->op), prefix,
		  r->has_gateway ? via : "-", r->metric, r->protocol);
}

/* collector_watch: the loop runs now (CLOCK_MONOTONIC): a stall since it
 * last ran is said (collector_stalled). How long before now what is read
 * now may have happened, beyond the usual: 0, or the stall that ended at
 * this wake-up (the watch's timer may have been served first). */
static int64_t collector_watch(struct collector *col, int64_t now)
{
	int64_t away = now - col->alive_ns;

	if (col->alive_ns && away > COLLECTOR_STALL_NS) {
		col->stall_from_ns = col->alive_ns;
		col->stall_seen_ns = now;
		log_warnx("the loop did not run for %.3f s (stopped, or starved of CPU)",
			  (double)away / NSEC_PER_SEC);
		event_emit(col->ev, EVENTS_COLLECTOR_STALLED, "{s:I, s:I}", "stalled_ns",
			   (json_int_t)away, "from",
			   (json_int_t)(now_real_ns() - (now_mono_ns() - col->alive_ns)));
	}
	col->alive_ns = now;
	if (col->stall_seen_ns && now - col->stall_seen_ns < COLLECTOR_WATCH_NS)
		return now - col->stall_from_ns;
	return 0;
}

static void collector_watch_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop, (void)events;
	loop_timer_read(fd);
	collector_watch(arg, now_mono_ns());
}

static void collector_rtmon_read(struct collector *col)
{
	int rc;

	/* a route change read after a stall may be that much older */
	col->read_stalled_ns = collector_watch(col, now_mono_ns());
	rc = rtmon_read(col->rtmon);
	col->read_stalled_ns = 0;

	if (rc == 1) {
		/* the route events are incomplete from here on: say so */
		col->overruns++;
		log_warnx("route monitor: the kernel dropped notifications (ENOBUFS)");
		event_emit(col->ev, EVENTS_ROUTE_MONITOR_OVERRUN, "{s:i}", "overruns",
			   col->overruns);
	} else if (rc == -1) {
		log_warnx("route monitor stopped");
		event_emit(col->ev, EVENTS_ROUTE_MONITOR_ERROR, NULL);
		loop_del(col->loop, &col->rtmon_h);
		rtmon_close(col->rtmon);
		col->rtmon = NULL;
	}
}

static void collector_rtmon_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop, (void)fd, (void)events;
	collector_rtmon_read(arg);
}

/* collector_file_error: a capture file failed with err: said once, by
 * the file's name and the error's */
static void collector_file_error(struct collector *col, const char *label, const char *iface,
				 const char *path, int err, unsigned long long written)
{
	log_warnx("%s: %s: no longer writing this capture (%llu packets written)", path,
		  strerror(err), written);
	event_emit(col->ev, EVENTS_CAPTURE_ERROR, "{s:s, s:s, s:s, s:i, s:s}", "label", label,
		   "iface", iface, "file", path, "errno", err, "error", strerror(err));
}

/* collector_check_write: reports a new write error of l's file */
static void collector_check_write(struct collector_link *l)
{
	int err = capture_write_error(l->cap);

	if (err == 0 || l->write_failed)
		return;
	l->write_failed = 1;
	collector_file_error(l->col, l->label, l->iface, capture_path(l->cap), err,
			     (unsigned long long)capture_written(l->cap));
}

/* collector_link_fail: the capture itself failed (libpcap, not the file) */
static void collector_link_fail(struct collector_link *l)
{
	l->failed = 1;
	loop_del(l->col->loop, &l->h);
	log_warnx("%s: capture stopped", l->label);
	/* errno 0: libpcap's error (logged above) has no errno */
	event_emit(l->col->ev, EVENTS_CAPTURE_ERROR, "{s:s, s:s, s:s, s:i, s:s}", "label", l->label,
		   "iface", l->iface, "file", capture_path(l->cap), "errno", 0, "error",
		   "capture failed");
}

static void collector_flush_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct collector *col = arg;

	(void)loop, (void)events;
	loop_timer_read(fd);
	for (int i = 0; i < col->nlinks; i++) {
		struct collector_link *l = &col->links[i];

		(void)capture_flush(l->cap);
		collector_check_write(l);
	}
}

/* collector_progress_cb: capture_progress, if a link saw anything new */
static void collector_progress_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct collector *col = arg;
	struct capture_requests r;
	json_t *links;
	int changed = 0;

	(void)loop, (void)events;
	loop_timer_read(fd);
	for (int i = 0; i < col->nlinks; i++) {
		struct collector_link *l = &col->links[i];
		/* a full disk: the disk kept for events is for the errors */
		if (l->write_failed)
			return;
		capture_requests(l->cap, &r);
		if (r.probe + r.anycast + r.dns + r.other != l->published)
			changed = 1;
	}
	if (!changed || (links = json_object()) == NULL)
		return;
	for (int i = 0; i < col->nlinks; i++) {
		struct collector_link *l = &col->links[i];
		capture_requests(l->cap, &r);
		l->published = r.probe + r.anycast + r.dns + r.other;
		json_object_set_new(
		    links, l->label,
		    json_pack("{s:I, s:I, s:I, s:I, s:o, s:o}", "probe", (json_int_t)r.probe,
			      "anycast", (json_int_t)r.anycast, "dns", (json_int_t)r.dns, "other",
			      (json_int_t)r.other, "anycast_last_ns",
			      r.anycast_last_ns ? json_integer(r.anycast_last_ns) : json_null(),
			      "dns_last_ns",
			      r.dns_last_ns ? json_integer(r.dns_last_ns) : json_null()));
	}
	event_emit(col->ev, EVENTS_CAPTURE_PROGRESS, "{s:o}", "links", links);
}

static void collector_capture_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct collector_link *l = arg;

	(void)loop, (void)fd, (void)events;
	if (capture_read(l->cap, COLLECTOR_BATCH) == -1)
		collector_link_fail(l);
	collector_check_write(l);
}

/* collector_finish: empty every ring and the route socket, then stop. */
static void collector_finish(struct collector *col)
{
	for (int i = 0; i < col->nlinks; i++) {
		struct collector_link *l = &col->links[i];
		/* bounded: traffic that never stops must not keep us here */
		for (int round = 0; !l->failed && round < 1000; round++) {
			int n = capture_read(l->cap, 0);
			if (n == -1)
				collector_link_fail(l);
			if (n <= 0)
				break;
		}
		collector_check_write(l);
	}
	if (col->rtmon)
		collector_rtmon_read(col);
	loop_stop(col->loop);
}

static void collector_drain_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop, (void)fd, (void)events;
	loop_timer_read(fd);
	collector_finish(arg);
}

static void collector_signal_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct collector *col = arg;
	int sig = loop_signal_read(fd);

	(void)events;
	if (sig == 0)
		return;
	if (sig == SIGHUP) {
		log_info("SIGHUP ignored");
		return;
	}
	if (col->draining) {
		log_info("%s again: stopping now", strsignal(sig));
		collector_finish(col);
		return;
	}
	col->draining = 1;
	log_info("%s: draining captures", strsignal(sig));
	if (loop_timer_add(loop, &col->drain_timer, now_mono_ns() + COLLECTOR_DRAIN_NS, 0,
			   collector_drain_cb, col) == -1)
		collector_finish(col);
}

static int collector_start(struct collector *col, struct capture_config *cfg)
{
	const int snaplen = cfg->snaplen, buffer = cfg->buffer_bytes;

	col->rtmon = rtmon_open(collector_route, col, col->ipv6);
	if (col->rtmon == NULL || loop_add(col->loop, &col->rtmon_h, rtmon_fd(col->rtmon), EPOLLIN,
					   collector_rtmon_cb, col) == -1) {
		log_warnx("cannot start the route monitor");
		return -1;
	}
	/* what the FIB holds already, then every change */
	if (rtmon_dump(col->rtmon) == -1)
		return -1;
	/* the route monitor is listening before the first capture_ready */
	for (int i = 0; i < col->nlinks; i++) {
		struct collector_link *l = &col->links[i];

		int err;

		cfg->iface = l->iface;
		cfg->label = l->label;
		cfg->buffer_bytes = l->buffer ? l->buffer : buffer;
		cfg->filter = l->bgp ? col->bgp_filter : col->filter;
		cfg->snaplen = l->bgp ? COLLECTOR_BGP_SNAPLEN : snaplen;
		l->cap = capture_open(cfg, &err);
		if (l->cap == NULL) {
			char path[PATH_MAX];

			snprintf(path, sizeof(path), "%s/capture-%s.pcap", cfg->dir, l->label);
			if (err)
				collector_file_error(col, l->label, l->iface, path, err, 0);
			return -1;
		}
		if (loop_add(col->loop, &l->h, capture_fd(l->cap), EPOLLIN, collector_capture_cb,
			     l) == -1) {
			log_warn("%s: %s: loop", __func__, l->iface);
			return -1;
		}
		event_emit(col->ev, EVENTS_CAPTURE_READY, "{s:s, s:s, s:s, s:i, s:i}", "label",
			   l->label, "iface", l->iface, "linktype", capture_linktype(l->cap),
			   "snaplen", cfg->snaplen, "buffer", cfg->buffer_bytes);
		log_info("capturing on %s (%s)", l->iface, l->label);
	}
	if (loop_timer_add(col->loop, &col->flush_timer, now_mono_ns() + COLLECTOR_FLUSH_NS,
			   COLLECTOR_FLUSH_NS, collector_flush_cb, col) == -1 ||
	    loop_timer_add(col->loop, &col->progress_timer, now_mono_ns() + COLLECTOR_PROGRESS_NS,
			   COLLECTOR_PROGRESS_NS, collector_progress_cb, col) == -1 ||
	    loop_timer_add(col->loop, &col->watch_timer, now_mono_ns() + COLLECTOR_WATCH_NS,
			   COLLECTOR_WATCH_NS, collector_watch_cb, col) == -1) {
		log_warn("%s: timers", __func__);
		return -1;
	}
	return 0;
}

/* collector_stop: per link, close the file (its last write error is
 * reported), write capture_stats, then close everything. Returns 0, or -1
 * if a capture file could not be written completely. */
static int collector_stop(struct collector *col)
{
	int rc = 0;

	for (int i = 0; i < col->nlinks; i++) {
		struct collector_link *l = &col->links[i];
		struct capture_stats st;

		if (l->cap == NULL)
			continue;
		if (capture_close_file(l->cap) == -1)
			rc = -1;
		collector_check_write(l);
		if (capture_stats(l->cap, &st) == 0)
			event_emit(col->ev, EVENTS_CAPTURE_STATS,
				   "{s:s, s:s, s:I, s:I, s:I, s:I, s:I}", "label", l->label,
				   "iface", l->iface, "packets", (json_int_t)st.packets, "written",
				   (json_int_t)st.written, "received", (json_int_t)st.received,
				   "dropped", (json_int_t)st.dropped, "if_dropped",
				   (json_int_t)st.if_dropped);
		else /* counts unknown: null, never a made-up zero */
			event_emit(col->ev, EVENTS_CAPTURE_STATS,
				   "{s:s, s:s, s:I, s:I, s:n, s:n, s:n}", "label", l->label,
				   "iface", l->iface, "packets", (json_int_t)st.packets, "written",
				   (json_int_t)st.written, "received", "dropped", "if_dropped");
		log_info("%s: %llu packets captured, %llu written, %llu received, %llu dropped, "
			 "%llu if_dropped",
			 l->label, (unsigned long long)st.packets, (unsigned long long)st.written,
			 (unsigned long long)st.received, (unsigned long long)st.dropped,
			 (unsigned long long)st.if_dropped);
		capture_close(l->cap);
		l->cap = NULL;
	}
	rtmon_close(col->rtmon);
	col->rtmon = NULL;
	loop_timer_del(col->loop, &col->drain_timer);
	loop_timer_del(col->loop, &col->flush_timer);
	loop_timer_del(col->loop, &col->progress_timer);
	loop_timer_del(col->loop, &col->watch_timer);
	return rc;
}

/* collector_reserve: disk for the events and the log (when standard error
 * is a file) that a full disk cannot take away; where the filesystem
 * cannot reserve, they share the disk with the captures */
static void collector_reserve(struct collector *col)
{
	struct stat st;
	off_t end;

	if (event_reserve(col->ev, COLLECTOR_RESERVE) == -1)
		log_debug("events: no disk reserved: %s", strerror(errno));
	if (fstat(STDERR_FILENO, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (end = lseek(STDERR_FILENO, 0, SEEK_END)) == -1)
		return;
	if (fallocate(STDERR_FILENO, FALLOC_FL_KEEP_SIZE, end, COLLECTOR_RESERVE) == -1)
		log_debug("log: no disk reserved: %s", strerror(errno));
}

/* collector_opt_error: the collector's options fail through fatalx */
static void collector_opt_error(const struct opt_cmd *cmd, enum opt_error e, int flag,
				const char *what, const char *arg)
{
	(void)cmd;
	if (e == OPT_ERR_MISSING)
		fatalx("-%c: missing argument", flag);
	if (e == OPT_ERR_UNKNOWN)
		fatalx("unknown flag -%c; -h for help", flag);
	if (e == OPT_ERR_BAD)
		fatalx("-%c %s: expected %s", flag, arg, what);
	fatalx("unexpected argument '%s'; -h for help", arg);
}

/* collector_opt_link, collector_opt_bgp: -c and -b; collector_add_link
 * says why it refuses one */
static int collector_opt_link(const char *arg, void *dst, const char **what)
{
	*what = NULL;
	return collector_add_link(dst, arg, 0);
}

static int collector_opt_bgp(const char *arg, void *dst, const char **what)
{
	*what = NULL;
	return collector_add_link(dst, arg, 1);
}

static int collector_opt_prefix(const char *arg, void *dst, const char **what)
{
	struct collector *col = dst;

	if (col->nprefix == COLLECTOR_MAX_PREFIXES) {
		*what = "at most 8 prefixes";
		return -1;
	}
	if (addr_parse_prefix(arg, &col->prefix[col->nprefix]) == -1)
		return -1;
	if (col->prefix[col->nprefix].family == AF_INET6)
		col->ipv6 = 1;
	col->nprefix++;
	return 0;
}

static int collector_opt_size(const char *arg, void *dst, const char **what)
{
	(void)what;
	return collector_parse_size(arg, dst);
}

int main(int argc, char *argv[])
{
	static struct collector col;
	struct capture_config cfg = {.filter = COLLECTOR_DEFAULT_FILTER,
				     .buffer_bytes = CAPTURE_BUFFER_DEFAULT,
				     .snaplen = CAPTURE_SNAPLEN_DEFAULT};
	static const struct opt_cmd cmd = {"collector", COLLECTOR_USAGE, collector_usage,
					   collector_opt_error};
	const char *node = "collector", *evpath = NULL;
	int verbose = 0, rc = 1;
	const struct opt opts[] = {
	    {OPT_STR('n', &node)},
	    {OPT_STR('e', &evpath)},
	    {OPT_STR('o', &cfg.dir)},
	    {OPT_CALL('c', collector_opt_link, &col, NULL)},
	    {OPT_CALL('b', collector_opt_bgp, &col, NULL)},
	    {OPT_STR('f', &col.filter)},
	    {OPT_STR('F', &col.bgp_filter)},
	    {OPT_CALL('B', collector_opt_size, &cfg.buffer_bytes, "a size such as 64M")},
	    {OPT_INT('s', &cfg.snaplen, 1, 262144, "a snaplen of 1 to 262144")},
	    {OPT_CALL('P', collector_opt_prefix, &col,
		      "a prefix such as " ADDRPLAN_SERVICE_TEXT "/32 or 2001:2:0:ff00::1/128")},
	    {OPT_COUNT('v', &verbose)},
	    {0},
	};

	log_init("collector", 0);
	col.filter = COLLECTOR_DEFAULT_FILTER;
	col.bgp_filter = COLLECTOR_BGP_FILTER;
	opt_parse(&cmd, opts, argc, argv);
	/* nothing to capture is fine for a route monitor (-P) alone */
	if (cfg.dir == NULL || (col.nlinks == 0 && col.nprefix == 0)) {
		collector_usage(stderr);
		return 1;
	}
	log_init("collector", verbose);
	if (cfg.snaplen < 96)
		log_warnx("snaplen %d cuts request payloads: the clocks cannot decode them",
			  cfg.snaplen);
	col.ev = event_open(evpath, node, "collector");
	col.loop = loop_new();
	if (col.ev == NULL || col.loop == NULL)
		fatalx("cannot start");
	if (loop_signals(col.loop, &col.sig, collector_signal_cb, &col) == -1)
		fatal("%s: signals", __func__);
	collector_reserve(&col);
	if (collector_start(&col, &cfg) == -1)
		goto out;
	if (loop_run(col.loop) == -1)
		goto out;
	rc = 0;
out:
	if (collector_stop(&col) == -1)
		rc = 1;
	loop_free(col.loop);
	event_close(col.ev);
	return rc;
}
