/*
 * routed: routes from announcements (docs/agents.md).
 *
 * Listens for ANNOUNCE / WITHDRAW datagrams (lib/announce.h) from the
 * sites' probers and applies them to the kernel FIB of its router: the
 * prefix via the datagram's source, at the announced metric. The table
 * logic is rib.c, the netlink calls kroute.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <linux/rtnetlink.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "announce.h"
#include "event.h"
#include "kroute.h"
#include "addr.h"
#include "log.h"
#include "opt.h"
#include "loop.h"
#include "rib.h"

#define ROUTED_USAGE "usage: routed [-n NODE] [-e FILE] [-l ADDR[:PORT]] [-T TABLE] [-v] [-h]\n"

struct routed_opts {
	const char *node;
	const char *events;
	struct sockaddr_in listen;
	uint32_t table;
	int verbose;
};

struct routed {
	struct event_log *ev;
	struct kroute_ctx *kr;
	struct rib rib;
	int fd;
	unsigned long long messages, bad, applied, withdrawn, errors;
};

static void routed_usage(FILE *fp)
{
	fprintf(fp,
		ROUTED_USAGE
		"  -l ADDR[:PORT]  where to listen for announcements (default 0.0.0.0:%d)\n"
		"  -T TABLE        routing table number, or main (default main)\n"
		"  -n NODE         lab node, written into every event (default: routed)\n"
		"  -e FILE         JSON Lines event file (default: standard output)\n"
		"  -v              debug logging\n"
		"  -h              this help\n",
		ANNOUNCE_PORT);
}

static void routed_bad(const char *flag, const char *what, const char *arg)
{
	fprintf(stderr, "routed: %s: expected %s, got '%s'\n" ROUTED_USAGE, flag, what, arg);
	exit(1);
}

static void routed_parse(int argc, char **argv, struct routed_opts *o)
{
	unsigned long v;
	char *end;
	int ch;

	memset(o, 0, sizeof(*o));
	o->node = "routed";
	o->listen.sin_family = AF_INET;
	o->listen.sin_port = htons(ANNOUNCE_PORT);
	o->table = RT_TABLE_MAIN;
	opterr = 0;
	while ((ch = getopt(argc, argv, ":n:e:l:T:vh")) != -1) {
		switch (ch) {
		case 'n':
			o->node = optarg;
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'l':
			if (parse_addr_port(optarg, ANNOUNCE_PORT, &o->listen) == -1)
				routed_bad("-l", "an IPv4 ADDR[:PORT]", optarg);
			break;
		case 'T':
			if (strcmp(optarg, "main") == 0) {
				o->table = RT_TABLE_MAIN;
				break;
			}
			errno = 0;
			v = strtoul(optarg, &end, 10);
			/* 0 is unspec, 253-255 are default, main and local */
			if (errno || end == optarg || *end || v == 0 || v > UINT32_MAX ||
			    optarg[0] == '-' || (v >= 253 && v <= 255 && v != RT_TABLE_MAIN))
				routed_bad("-T",
					   "a routing table number (1-252, 254, 256-) or main",
					   optarg);
			o->table = (uint32_t)v;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			routed_usage(stdout);
			exit(0);
		default:
			opt_fail("routed", ROUTED_USAGE, ch);
		}
	}
	opt_no_operands("routed", ROUTED_USAGE, argc, argv);
}

static int routed_kernel_change(void *ctx, const struct kroute *r, char *err, size_t errlen)
{
	return kroute_change(ctx, r, err, errlen);
}

static int routed_kernel_remove(void *ctx, const struct kroute *r, char *err, size_t errlen)
{
	return kroute_delete(ctx, r, err, errlen);
}

static void routed_handle(struct routed *rd, const char *buf, size_t len,
			  const struct sockaddr_in *from)
{
	const struct rib_kernel kernel = {routed_kernel_change, routed_kernel_remove, rd->kr};
	struct announce_msg m;
	struct rib_result res;
	char src[INET_ADDRSTRLEN], via[INET_ADDRSTRLEN], addr[INET_ADDRSTRLEN];
	char prefix[INET_ADDRSTRLEN + 4];

	inet_ntop(AF_INET, &from->sin_addr, src, sizeof(src));
	if (announce_parse(buf, len, &m) == -1) {
		if (rd->bad++ == 0)
			log_warnx("malformed announcement from %s (more at debug level)", src);
		else
			log_debug("malformed announcement from %s", src);
		return;
	}
	rd->messages++;
	inet_ntop(AF_INET, &m.prefix, addr, sizeof(addr));
	snprintf(prefix, sizeof(prefix), "%s/%d", addr, m.prefixlen);
	rib_apply(&rd->rib, &kernel, &m, from->sin_addr, &res);
	inet_ntop(AF_INET, &res.via, via, sizeof(via));
	switch (res.outcome) {
	case RIB_UNCHANGED:
		log_debug("%s %s %s from %s: no change", m.withdraw ? "withdraw" : "announce",
			  m.site, prefix, src);
		break;
	case RIB_APPLIED:
		rd->applied++;
		log_info("route %s via %s metric %u for site %s", prefix, via, res.metric, m.site);
		event_emit(rd->ev, "route_applied", "{s:s, s:s, s:s, s:I}", "site", m.site,
			   "prefix", prefix, "via", via, "metric", (json_int_t)res.metric);
		break;
	case RIB_WITHDRAWN:
		rd->withdrawn++;
		log_info("route %s via %s withdrawn by site %s", prefix, via, m.site);
		event_emit(rd->ev, "route_withdrawn", "{s:s, s:s, s:s}", "site", m.site, "prefix",
			   prefix, "via", via);
		break;
	case RIB_ERROR:
		rd->errors++;
		log_warnx("%s %s %s from %s: %s", m.withdraw ? "withdraw" : "announce", m.site,
			  prefix, src, res.error);
		event_emit(rd->ev, "route_error", "{s:s, s:s, s:s}", "site", m.site, "prefix",
			   prefix, "error", res.error);
		break;
	}
}

static void routed_on_message(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct routed *rd = arg;

	(void)loop;
	(void)events;
	for (int i = 0; i < 64; i++) {
		char buf[ANNOUNCE_MAX + 1];
		struct sockaddr_in from;
		socklen_t fromlen = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);

		if (n == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("recvfrom");
			return;
		}
		if (fromlen != sizeof(from) || from.sin_family != AF_INET)
			continue;
		routed_handle(rd, buf, (size_t)n, &from);
	}
}

static int routed_socket(const struct sockaddr_in *sin)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd == -1) {
		log_warn("socket");
		return -1;
	}
	if (bind(fd, (const struct sockaddr *)sin, sizeof(*sin)) == -1) {
		log_warn("bind %s:%u", inet_ntoa(sin->sin_addr), ntohs(sin->sin_port));
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct routed_opts o;
	struct routed *rd;
	struct loop *loop = NULL;
	int rc = 1;

	routed_parse(argc, argv, &o);
	log_init("routed", o.verbose);
	if ((rd = calloc(1, sizeof(*rd))) == NULL)
		fatal("calloc");
	rd->fd = -1;
	rib_init(&rd->rib);
	if ((rd->ev = event_open(o.events, o.node, "routed")) == NULL)
		goto out;
	if ((loop = loop_new()) == NULL) {
		log_warn("loop_new");
		goto out;
	}
	if (loop_signals(loop, loop_stop_on_signal, (void *)" (routes stay in the kernel)") == -1) {
		log_warn("signals");
		goto out;
	}
	if ((rd->kr = kroute_open(o.table)) == NULL)
		goto out;
	if ((rd->fd = routed_socket(&o.listen)) == -1)
		goto out;
	if (loop_add(loop, rd->fd, EPOLLIN, routed_on_message, rd) == -1) {
		log_warn("loop_add");
		goto out;
	}
	log_info("listening on %s:%u, table %u", inet_ntoa(o.listen.sin_addr),
		 ntohs(o.listen.sin_port), o.table);
	if (loop_run(loop) == -1)
		goto out;
	rc = 0;
out:
	if (rd->fd != -1) {
		log_info("%llu messages, %llu malformed, %llu applied, %llu withdrawn, %llu errors",
			 rd->messages, rd->bad, rd->applied, rd->withdrawn, rd->errors);
		event_emit(rd->ev, "routed_summary", "{s:I, s:I, s:I, s:I, s:I}", "messages",
			   (json_int_t)rd->messages, "bad", (json_int_t)rd->bad, "applied",
			   (json_int_t)rd->applied, "withdrawn", (json_int_t)rd->withdrawn,
			   "errors", (json_int_t)rd->errors);
		close(rd->fd);
	}
	kroute_close(rd->kr);
	loop_free(loop);
	event_close(rd->ev);
	free(rd);
	return rc;
}
