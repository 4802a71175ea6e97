/*
 * resolverd: many independent caching resolvers in one process, each on
 * its own address (docs/resolverd.md). The command line, start-up, the
 * event loop and the exit live here; the cache is cache.c, the messages
 * msg.c, the sockets server.c and upstream.c, what a resolver does
 * resolver.c, and what is written stats.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config.h"
#include "ctx.h"
#include "event.h"
#include "events.h"
#include "log.h"
#include "opt.h"
#include "loop.h"
#include "strfmt.h"
#include "timeutil.h"

#define RESOLVERD_USAGE                                                                            \
	"usage: resolverd -c CONFIG [-n NODE] [-e FILE] [-o CSV] [-t] [-p] [-v] [-h]\n"
#define RESOLVERD_TICK (10 * NSEC_PER_MSEC)

struct resolverd_opts {
	const char *node;
	const char *events;
	const char *csv;
	const char *config;
	int check, print;
	int verbose;
};

static void resolverd_usage(FILE *fp)
{
	fprintf(fp, RESOLVERD_USAGE
		"  -c CONFIG  the resolvers and their caches (docs/resolverd.md)\n"
		"  -o CSV     one line per upstream query (default upstream-NODE.csv)\n"
		"  -t         check the configuration, print 'configuration OK' and exit\n"
		"  -p         print the configuration as used (every resolver, every value) and "
		"exit\n"
		"  -n NODE    lab node, written into every event (default: resolverd)\n"
		"  -e FILE    JSON Lines event file (default: standard output)\n"
		"  -v         debug logging\n"
		"  -h         this help\n");
}

static void resolverd_parse(int argc, char **argv, struct resolverd_opts *o)
{
	static const struct opt_cmd cmd = {"resolverd", RESOLVERD_USAGE, resolverd_usage, NULL};
	const struct opt opts[] = {
	    {OPT_STR('n', &o->node)},	   {OPT_STR('e', &o->events)},
	    {OPT_STR('o', &o->csv)},	   {OPT_STR('c', &o->config)},
	    {OPT_FLAG('t', &o->check)},	   {OPT_FLAG('p', &o->print)},
	    {OPT_COUNT('v', &o->verbose)}, {0},
	};

	memset(o, 0, sizeof(*o));
	o->node = "resolverd";
	opt_parse(&cmd, opts, argc, argv);
	if (o->config == NULL)
		opt_refuse(&cmd, "-c CONFIG is required");
}

/* resolverd_fds: raises the descriptor limit for every socket. Returns
 * the descriptors the TCP connection table covers (a connection on a
 * higher one is refused), or -1 if the limit cannot be had. */
static int resolverd_fds(const struct rsv_conf *c)
{
	rlim_t need = (rlim_t)c->ninst * (c->tcp ? 3 : 2) + RSV_TCP_CONNS + 1024 + 64;
	struct rlimit rl;

	for (int i = 0; i < c->ninst; i++) /* the IPv6 sockets */
		if (c->inst[i].has_addr6)
			need += (rlim_t)(c->tcp ? 2 : 1) + (rsv_conf_up6(c) ? 1 : 0);

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("%s: getrlimit", __func__);
		return -1;
	}
	if (rl.rlim_cur >= need) /* descriptors are numbered from the lowest free */
		return (int)(rl.rlim_cur < need + 65536 ? rl.rlim_cur : need + 65536);
	if (rl.rlim_max < need)
		rl.rlim_max = need; /* root may raise it */
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("%s: %d resolvers need %llu file descriptors: setrlimit", __func__,
			 c->ninst, (unsigned long long)need);
		return -1;
	}
	return (int)need;
}

static void resolverd_on_tick(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	loop_timer_read(fd);
	rsv_ctx_tick(arg);
}

static void resolverd_on_stats(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)events;
	loop_timer_read(fd);
	rsv_stats_period(arg);
}

static void resolverd_ready(struct rsv_ctx *ctx)
{
	const struct rsv_conf *c = ctx->conf;
	char ups[RSV_UPSTREAM_MAX * RSV_SA_STRLEN];
	const char *mode = c->mode == RSV_MODE_ITERATE ? "iterate" : "forward";

	rsv_stats_servers(c, ups, sizeof(ups));
	log_info("%d resolvers on port %u (%s), %s %s", ctx->ninst, c->port,
		 c->tcp ? "UDP and TCP" : "UDP",
		 c->mode == RSV_MODE_ITERATE ? "iterating from the root hints" : "upstream", ups);
	event_emit(ctx->stats.ev, EVENTS_RESOLVERD_READY, "{s:i, s:i, s:b, s:s, s:s}", "resolvers",
		   ctx->ninst, "port", c->port, "tcp", c->tcp, "mode", mode,
		   c->mode == RSV_MODE_ITERATE ? "root" : "upstream", ups);
}

int main(int argc, char **argv)
{
	struct resolverd_opts o;
	struct rsv_conf conf;
	struct rsv_ctx ctx = {.conf = &conf};
	struct loop *loop = NULL;
	struct loop_handler sig, tick, stats;
	char csvpath[256];
	int rc = 1, nfd, started = 0;

	resolverd_parse(argc, argv, &o);
	log_init("resolverd", o.verbose);
	if (rsv_conf_load(&conf, o.config, stderr) == -1)
		return 1;
	if (o.check || o.print) {
		if (o.print)
			rsv_conf_print(&conf, stdout);
		else
			printf("configuration OK: %d resolvers\n", conf.ninst);
		rsv_conf_free(&conf);
		return 0;
	}
	if (o.csv == NULL) {
		if (strfmt(csvpath, sizeof(csvpath), "upstream-%s.csv", o.node) == -1) {
			log_warnx("node name too long for a file name: %s", o.node);
			goto out;
		}
		o.csv = csvpath;
	}
	if ((nfd = resolverd_fds(&conf)) == -1)
		goto out;
	if ((ctx.stats.ev = event_open(o.events, o.node, "resolverd")) == NULL)
		goto out;
	if ((ctx.stats.csv = fopen(o.csv, "w")) == NULL) {
		log_warn("%s: %s", __func__, o.csv);
		goto out;
	}
	setvbuf(ctx.stats.csv, NULL, _IOFBF, 1 << 20);
	fputs(RSV_CSV_HEADER, ctx.stats.csv);
	if ((loop = loop_new()) == NULL) {
		log_warn("%s: loop_new", __func__);
		goto out;
	}
	if (rsv_ctx_open(&ctx, &conf, nfd, loop) == -1)
		goto out;
	ctx.now = now_mono_ns();
	if (loop_signals(loop, &sig, loop_stop_on_signal, NULL) == -1 ||
	    loop_timer_add(loop, &tick, ctx.now + RESOLVERD_TICK, RESOLVERD_TICK, resolverd_on_tick,
			   &ctx) == -1 ||
	    loop_timer_add(loop, &stats, ctx.now + conf.stats_ns, conf.stats_ns, resolverd_on_stats,
			   &ctx) == -1) {
		log_warn("%s: event loop", __func__);
		goto out;
	}
	started = 1;
	resolverd_ready(&ctx);
	if (loop_run(loop) == -1)
		goto out;
	rc = 0;
out:
	if (started) {
		ctx.now = now_mono_ns();
		rsv_stats_period(&ctx);
		rsv_stats_summary(&ctx);
	}
	rsv_ctx_close(&ctx); /* writes the queries still in flight as abandoned */
	if (ctx.stats.csv && (rsv_stats_flush(&ctx) == -1 || fclose(ctx.stats.csv) != 0)) {
		log_warn("%s: %s", __func__, o.csv);
		rc = 1;
	}
	loop_free(loop);
	event_close(ctx.stats.ev);
	rsv_conf_free(&conf);
	return rc;
}
