/*
 * routed: routes from announcements (docs/agents.md).
 *
 * Listens for ANNOUNCE / WITHDRAW datagrams (lib/announce.h) from the
 * sites' probers and applies them to the kernel FIB of its router: the
 * prefix via the datagram's source, at the announced metric. A route its
 * site has not announced again within the hold time (-H) is deleted, as
 * BGP's hold timer deletes a silent peer's. Who may send them, and which
 * prefixes, is acl.c; one datagram's handling control.c; the table logic
 * and the expiry rib.c; the netlink calls kroute.c.
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

#include "acl.h"
#include "addr.h"
#include "addrplan.h"
#include "announce.h"
#include "control.h"
#include "event.h"
#include "events.h"
#include "kroute.h"
#include "log.h"
#include "loop.h"
#include "opt.h"
#include "strtonum.h"
#include "timeutil.h"
#include "twin.h"

#define ROUTED_USAGE                                                                               \
	"usage: routed [-n NODE] [-e FILE] [-l ADDR[:PORT]] [-T TABLE] [-H HOLD] [-E ECMP]\n"      \
	"              [-a [SITE=]ADDR[,via=NEXTHOP][,hops=N]|none ...]\n"                         \
	"              [-P PREFIX ...] [-6 V4=V6 ...] [-v] [-h]\n"

/* three of the prober's default refreshes (prober -k 1s) */
#define ROUTED_HOLD_DEFAULT (3 * NSEC_PER_SEC)
#define ROUTED_HOLD_MAX (24 * 3600 * NSEC_PER_SEC)
/* the hold timer's check: a tenth of the hold, at most 100 ms late */
#define ROUTED_CHECK_MAX (100 * NSEC_PER_MSEC)

struct routed_opts {
	const char *node;
	const char *events;
	struct sockaddr_storage listen;
	uint32_t table;
	int64_t hold_ns;
	enum kroute_ecmp ecmp;
	struct routed_acl acl;
	struct twins twins;
	int verbose;
};

static void routed_usage(FILE *fp)
{
	fprintf(fp,
		ROUTED_USAGE
		"  -l ADDR[:PORT]  where to listen for announcements (default 0.0.0.0:%d);\n"
		"                  [IPV6]:PORT over IPv6 ([::]:PORT: both families)\n"
		"  -T TABLE        routing table number, or main (default main)\n"
		"  -H HOLD         delete a route its site has not announced again for HOLD,\n"
		"                  e.g. 3s (default 3s: three of the prober's default 1 s\n"
		"                  refreshes); 0: never\n"
		"  -a [SITE=]ADDR  accept announcements only from ADDR, IPv4 or IPv6 (for\n"
		"                  SITE only, if given); repeatable; none: from nobody.\n"
		"                  Without -a: from any sender (the lab always gives -a)\n"
		"  -a SITE=ADDR,via=NEXTHOP,hops=N\n"
		"                  the same, for a site behind other routers: its route goes\n"
		"                  via NEXTHOP (ADDR's family) at metric N * 16777216 + the\n"
		"                  announced one\n"
		"  -E ECMP         sites announcing a prefix at one metric share its route:\n"
		"                  hash (one multipath route: the kernel's hash-threshold)\n"
		"                  or resilient (a resilient nexthop group: a next hop's\n"
		"                  removal moves only its own flows). Default: the latest\n"
		"                  announcement's site alone\n"
		"  -P PREFIX       accept announcements only of PREFIX, e.g. " ADDRPLAN_SERVICE_TEXT
		"/32\n"
		"                  or 2001:2:0:ff00::1/128; repeatable. Without -P: any prefix\n"
		"                  (the lab always gives -P). An IPv6 prefix's route is an\n"
		"                  IPv6 one, via its IPv6 sender\n"
		"  -6 V4=V6        an IPv4 prefix's (V4/LEN=V6/LEN) or next hop's IPv6 twin:\n"
		"                  each route to a prefix with a twin is installed and\n"
		"                  deleted in IPv6 too, via its next hops' twins (a dual lab)\n"
		"  -n NODE         lab node, written into every event (default: routed)\n"
		"  -e FILE         JSON Lines event file (default: standard output)\n"
		"  -v              debug logging\n"
		"  -h              this help\n",
		ANNOUNCE_PORT);
}

/* routed_opt_table: a routing table number, or main */
static int routed_opt_table(const char *arg, void *dst, const char **what)
{
	const char *errstr;
	long long v;

	(void)what;
	if (strcmp(arg, "main") == 0) {
		*(uint32_t *)dst = RT_TABLE_MAIN;
		return 0;
	}
	v = strtonum(arg, 1, UINT32_MAX, &errstr);
	/* 0 is unspec, 253-255 are default, main and local */
	if (errstr || (v >= 253 && v <= 255 && v != RT_TABLE_MAIN))
		return -1;
	*(uint32_t *)dst = (uint32_t)v;
	return 0;
}

static int routed_opt_ecmp(const char *arg, void *dst, const char **what)
{
	(void)what;
	if (strcmp(arg, "hash") == 0)
		*(enum kroute_ecmp *)dst = KROUTE_ECMP_HASH;
	else if (strcmp(arg, "resilient") == 0)
		*(enum kroute_ecmp *)dst = KROUTE_ECMP_RESILIENT;
	else
		return -1;
	return 0;
}

static int routed_opt_sender(const char *arg, void *dst, const char **what)
{
	(void)what;
	return routed_acl_add_sender(dst, arg);
}

static int routed_opt_prefix(const char *arg, void *dst, const char **what)
{
	(void)what;
	return routed_acl_add_prefix(dst, arg);
}

static int routed_opt_listen(const char *arg, void *dst, const char **what)
{
	(void)what;
	return addr_parse_sockaddr(arg, ANNOUNCE_PORT, dst);
}

static int routed_opt_twin(const char *arg, void *dst, const char **what)
{
	(void)what;
	return twin_add(dst, arg);
}

static void routed_parse(int argc, char **argv, struct routed_opts *o)
{
	static const struct opt_cmd cmd = {"routed", ROUTED_USAGE, routed_usage, NULL};
	const struct opt opts[] = {
	    {OPT_STR('n', &o->node)},
	    {OPT_STR('e', &o->events)},
	    {OPT_CALL('l', routed_opt_listen, &o->listen, "ADDR[:PORT] or [IPV6]:PORT")},
	    {OPT_CALL('T', routed_opt_table, &o->table,
		      "a routing table number (1-252, 254, 256-) or main")},
	    {OPT_DURATION('H', &o->hold_ns, 0, ROUTED_HOLD_MAX,
			  "a duration such as 3s (at most 24h), or 0")},
	    {OPT_CALL('a', routed_opt_sender, &o->acl,
		      "ADDR, SITE=ADDR[,via=NEXTHOP][,hops=0-255] or none (at most 256)")},
	    {OPT_CALL('E', routed_opt_ecmp, &o->ecmp, "hash or resilient")},
	    {OPT_CALL('P', routed_opt_prefix, &o->acl,
		      "a PREFIX such as " ADDRPLAN_SERVICE_TEXT
		      "/32 or 2001:2:0:ff00::1/128 (at most 256)")},
	    {OPT_CALL('6', routed_opt_twin, &o->twins,
		      "an IPv4 prefix's or next hop's IPv6 twin, V4/LEN=V6/LEN or V4=V6 (at most "
		      "256)")},
	    {OPT_COUNT('v', &o->verbose)},
	    {0},
	};

	memset(o, 0, sizeof(*o));
	o->node = "routed";
	((struct sockaddr_in *)&o->listen)->sin_family = AF_INET;
	((struct sockaddr_in *)&o->listen)->sin_port = htons(ANNOUNCE_PORT);
	o->table = RT_TABLE_MAIN;
	o->hold_ns = ROUTED_HOLD_DEFAULT;
	opt_parse(&cmd, opts, argc, argv);
}

/* the FIB the table writes to: the kernel's routes, and their IPv6 twins */
struct routed_fib {
	struct kroute_ctx *kr;
	const struct twins *twins;
};

/* routed_twin: r's IPv6 twin (twin.h) changed or deleted like r: 0, or -1
 * with the reason in err */
static int routed_twin(struct routed_fib *f, const struct kroute *r, int del, char *err,
		       size_t errlen)
{
	struct kroute r6;
	char why[96];
	int rc;

	if (r->family == AF_INET6) /* an IPv6 announcement's own route */
		return 0;
	rc = twin_route(f->twins, r, &r6);
	if (rc == 0)
		return 0;
	if (rc == -1) {
		snprintf(err, errlen, "IPv6 twin: a next hop has none (-6)");
		return -1;
	}
	rc = del ? kroute_delete(f->kr, &r6, why, sizeof(why))
		 : kroute_change(f->kr, &r6, why, sizeof(why));
	if (rc == -1) {
		snprintf(err, errlen, "IPv6 twin: %s", why);
		return -1;
	}
	return 0;
}

static int routed_kernel_change(void *ctx, const struct kroute *r, char *err, size_t errlen)
{
	struct routed_fib *f = ctx;

	if (kroute_change(f->kr, r, err, errlen) == -1)
		return -1;
	return routed_twin(f, r, 0, err, errlen);
}

static int routed_kernel_remove(void *ctx, const struct kroute *r, char *err, size_t errlen)
{
	struct routed_fib *f = ctx;
	int rc = kroute_delete(f->kr, r, err, errlen);

	/* the twin goes with it, whether or not the IPv4 route was there */
	if (rc != -1 && routed_twin(f, r, 1, err, errlen) == -1)
		return -1;
	return rc;
}

/* what the socket reads and the loop needs besides the control state */
struct routed_main {
	struct routed rd;
	struct kroute_ctx *kr;
	struct routed_fib fib;
	int fd;
	struct loop_handler sig, msg, hold;
};

static void routed_on_hold_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct routed *rd = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	routed_control_expire(rd, now_mono_ns());
}

/* routed_check_ns: how often the hold timer looks for silent routes */
static int64_t routed_check_ns(int64_t hold_ns)
{
	int64_t ns = hold_ns / 10;

	if (ns > ROUTED_CHECK_MAX)
		ns = ROUTED_CHECK_MAX;
	return ns < NSEC_PER_MSEC ? NSEC_PER_MSEC : ns;
}

static void routed_on_message(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct routed *rd = arg;

	(void)loop;
	(void)events;
	for (int i = 0; i < 64; i++) {
		char buf[ANNOUNCE_MAX + 1];
		struct sockaddr_storage from;
		socklen_t fromlen = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fromlen);

		if (n == -1) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				log_warn("%s: recvfrom", __func__);
			return;
		}
		if ((from.ss_family != AF_INET && from.ss_family != AF_INET6) ||
		    fromlen != addr_sa_len((const struct sockaddr *)&from))
			continue;
		routed_control_handle(rd, buf, (size_t)n, (const struct sockaddr *)&from,
				      now_mono_ns());
	}
}

static int routed_socket(const struct sockaddr_storage *ss)
{
	const struct sockaddr *sa = (const struct sockaddr *)ss;
	int fd = socket(sa->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	char name[INET6_ADDRSTRLEN + 8];

	if (fd == -1) {
		log_warn("%s: socket", __func__);
		return -1;
	}
	if (bind(fd, sa, addr_sa_len(sa)) == -1) {
		log_warn("%s: bind %s", __func__, addr_sockaddr_str(ss, name, sizeof(name)));
		close(fd);
		return -1;
	}
	return fd;
}

/* routed_log_acl: what the allow-lists let in, said once at start */
static void routed_log_acl(const struct routed_acl *acl)
{
	if (!acl->senders_set)
		log_warnx(
		    "no -a: accepting announcements from any sender (the lab always gives -a)");
	else if (acl->nsenders == 0)
		log_info("-a none: accepting announcements from nobody");
	for (int i = 0; i < acl->nsenders; i++) {
		const struct routed_sender *s = &acl->senders[i];
		char via[INET6_ADDRSTRLEN], a[INET6_ADDRSTRLEN];

		addr_ip_str(&s->addr, a, sizeof(a));
		if (s->has_via)
			log_info("accepting announcements from %s for site %s, routed via %s, %u "
				 "hops away",
				 a, s->site, addr_ip_str(&s->via, via, sizeof(via)), s->hops);
		else
			log_info("accepting announcements from %s%s%s", a,
				 s->site[0] ? " for site " : "", s->site);
	}
	if (acl->nprefixes == 0)
		log_warnx("no -P: accepting announcements of any prefix (the lab always gives -P)");
	for (int i = 0; i < acl->nprefixes; i++) {
		char p[ANNOUNCE_PREFIX_STRLEN];

		log_info("accepting announcements of %s",
			 announce_prefix_str(&acl->prefixes[i].prefix, acl->prefixes[i].prefixlen,
					     p, sizeof(p)));
	}
}

int main(int argc, char **argv)
{
	struct routed_opts o;
	struct routed_main *rm;
	struct routed *rd;
	struct event_log *ev;
	struct loop *loop = NULL;
	int rc = 1;

	routed_parse(argc, argv, &o);
	log_init("routed", o.verbose);
	if ((rm = calloc(1, sizeof(*rm))) == NULL)
		fatal("%s: calloc", __func__);
	rm->fd = -1;
	if ((ev = event_open(o.events, o.node, "routed")) == NULL)
		goto out;
	if ((loop = loop_new()) == NULL) {
		log_warn("%s: loop_new", __func__);
		goto out;
	}
	if (loop_signals(loop, &rm->sig, loop_stop_on_signal,
			 (void *)" (routes stay in the kernel)") == -1) {
		log_warn("%s: signals", __func__);
		goto out;
	}
	if ((rm->kr = kroute_open(o.table, o.ecmp)) == NULL)
		goto out;
	rd = &rm->rd;
	rm->fib = (struct routed_fib){rm->kr, &o.twins};
	routed_control_init(
	    rd, &(struct rib_kernel){routed_kernel_change, routed_kernel_remove, &rm->fib}, ev,
	    loop);
	rd->acl = o.acl;
	rd->hold_ns = o.hold_ns;
	rd->rib.ecmp = o.ecmp != KROUTE_ECMP_NO;
	if (o.ecmp != KROUTE_ECMP_NO)
		log_info("ECMP: the sites of a prefix and metric share its route (%s)",
			 o.ecmp == KROUTE_ECMP_HASH ? "hash" : "resilient nexthop group");
	routed_log_acl(&rd->acl);
	if (o.twins.n)
		log_info("%d IPv6 twins: the routes of their prefixes go in both families",
			 o.twins.n);
	if (o.hold_ns > 0) {
		int64_t check = routed_check_ns(o.hold_ns);

		if (loop_timer_add(loop, &rm->hold, now_mono_ns() + check, check,
				   routed_on_hold_timer, rd) == -1) {
			log_warn("%s: hold timer", __func__);
			goto out;
		}
		log_info("hold time %.3f s: a route not announced again for that long is deleted",
			 (double)o.hold_ns / NSEC_PER_SEC);
	} else {
		log_info("-H 0: routes never expire, only a WITHDRAW deletes them");
	}
	if ((rm->fd = routed_socket(&o.listen)) == -1)
		goto out;
	if (loop_add(loop, &rm->msg, rm->fd, EPOLLIN, routed_on_message, rd) == -1) {
		log_warn("%s: loop_add", __func__);
		goto out;
	}
	{
		char name[INET6_ADDRSTRLEN + 8];

		log_info("listening on %s, table %u",
			 addr_sockaddr_str(&o.listen, name, sizeof(name)), o.table);
	}
	if (loop_run(loop) == -1)
		goto out;
	rc = 0;
out:
	if (rm->fd != -1) {
		rd = &rm->rd;
		routed_control_close(rd);
		log_info(
		    "%llu messages, %llu malformed, %llu rejected, %llu applied, %llu withdrawn, "
		    "%llu expired, %llu errors",
		    rd->messages, rd->bad, rd->rejected, rd->applied, rd->withdrawn, rd->expired,
		    rd->errors);
		event_emit(ev, EVENTS_ROUTED_SUMMARY, "{s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
			   "messages", (json_int_t)rd->messages, "bad", (json_int_t)rd->bad,
			   "rejected", (json_int_t)rd->rejected, "applied", (json_int_t)rd->applied,
			   "withdrawn", (json_int_t)rd->withdrawn, "expired",
			   (json_int_t)rd->expired, "errors", (json_int_t)rd->errors);
		close(rm->fd);
	}
	if (loop)
		loop_timer_del(loop, &rm->hold); /* ignores a timer never added */
	kroute_close(rm->kr);
	loop_free(loop);
	event_close(ev);
	free(rm);
	return rc;
}
