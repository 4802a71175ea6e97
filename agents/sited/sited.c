/*
 * sited: the service at a site (docs/agents.md).
 *
 * Answers every request datagram on UDP ADDR:PORT with a reply naming the
 * site, sent from the address the request was sent to, and the same
 * requests as a stream on TCP ADDR:PORT (tcp.h). ADDR is the wildcard
 * unless -a says, and the wildcard is both families': 0.0.0.0 and [::]
 * (serve.h). The lab kills it to fail the site; the prober notices.
 * SIGUSR1 drains the site (the timeline's drain): it goes on answering,
 * its replies flagged WIRE_F_DRAINING, so that the probers take it out;
 * SIGUSR2 lifts it.
 * SIGRTMIN+1 degrades it (the application broken, the kernel not): it
 * reads every request and answers none, while TCP connections are still
 * accepted; SIGRTMIN+2 restores it (state.h, lib/sited_signals.h). With
 * -H the TCP port speaks HTTP/1.1 through libmicrohttpd instead (http.h),
 * a degraded site answering 503.
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

#include "event.h"
#include "http.h"
#include "events.h"
#include "log.h"
#include "opt.h"
#include "loop.h"
#include "serve.h"
#include "state.h"
#include "tcp.h"

struct sited_opts {
	const char *node;
	const char *events;
	const char *site;
	struct sockaddr_storage addr; /* AF_INET or AF_INET6, its port */
	uint16_t port;
	int http; /* -H: HTTP/1.1 on the TCP port */
	int verbose;
};

#define SITED_USAGE "usage: sited -s SITE [-n NODE] [-e FILE] [-p PORT] [-a ADDR] [-H] [-v] [-h]\n"

static void sited_usage(FILE *fp)
{
	fprintf(fp,
		SITED_USAGE
		"  -s SITE   the site name put in every reply (at most %d characters)\n"
		"  -p PORT   UDP and TCP port to answer on (default %d)\n"
		"  -a ADDR   IPv4 or IPv6 address to bind, alone (default: all of both)\n"
		"  -H        HTTP/1.1 on the TCP port (libmicrohttpd), not the lab's stream\n"
		"  -n NODE   lab node, written into every event (default: sited)\n"
		"  -e FILE   JSON Lines event file (default: standard output)\n"
		"  -v        debug logging\n"
		"  -h        this help\n",
		WIRE_SITE_LEN, WIRE_PORT_DEFAULT);
}

/* sited_opt_addr: an IPv4 or IPv6 address alone (the port is -p) */
static int sited_opt_addr(const char *arg, void *dst, const char **what)
{
	struct sockaddr_in *sin = dst;
	struct sockaddr_in6 *sin6 = dst;

	(void)what;
	if (inet_pton(AF_INET, arg, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		return 0;
	}
	memset(dst, 0, sizeof(struct sockaddr_storage));
	if (inet_pton(AF_INET6, arg, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		return 0;
	}
	return -1;
}

static void sited_parse(int argc, char **argv, struct sited_opts *o)
{
	static const struct opt_cmd cmd = {"sited", SITED_USAGE, sited_usage, NULL};
	const struct opt opts[] = {
	    {OPT_STR('n', &o->node)},
	    {OPT_STR('e', &o->events)},
	    {OPT_NAME('s', &o->site, WIRE_SITE_LEN,
		      "a site name of 1 to 16 letters, digits, '.', '_' or '-'")},
	    {OPT_INT('p', &o->port, 1, 65535, "a port (1-65535)")},
	    {OPT_CALL('a', sited_opt_addr, &o->addr, "an IPv4 or IPv6 address")},
	    {OPT_FLAG('H', &o->http)},
	    {OPT_COUNT('v', &o->verbose)},
	    {0},
	};

	memset(o, 0, sizeof(*o));
	o->node = "sited";
	o->port = WIRE_PORT_DEFAULT;
	/* 0.0.0.0, and [::] beside it (serve.h) */
	((struct sockaddr_in *)&o->addr)->sin_family = AF_INET;
	((struct sockaddr_in *)&o->addr)->sin_addr.s_addr = htonl(INADDR_ANY);
	opt_parse(&cmd, opts, argc, argv);
	if (o->addr.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&o->addr)->sin6_port = htons(o->port);
	else
		((struct sockaddr_in *)&o->addr)->sin_port = htons(o->port);
	if (o->site == NULL)
		opt_refuse(&cmd, "-s SITE is required");
}

static void sited_on_request(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sited_server *s = arg;

	(void)fd;
	(void)events;
	if (sited_server_serve(s) == -1)
		loop_stop(loop);
}

/* descriptors kept for what is not a TCP connection: sockets, the loop,
 * the event file, and the spare of tcp.h */
#define SITED_FDS_OTHER 64

/* sited_fds: raises the soft descriptor limit towards the hard one as far
 * as the connections need, and returns how many connections fit under it. */
static unsigned sited_fds(void)
{
	rlim_t need = SITED_TCP_CONNS + SITED_FDS_OTHER, fit;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1) {
		log_warn("%s: getrlimit", __func__);
		return SITED_TCP_CONNS / 16;
	}
	if (rl.rlim_cur < need && rl.rlim_max > rl.rlim_cur) {
		struct rlimit up = {.rlim_cur = rl.rlim_max < need ? rl.rlim_max : need,
				    .rlim_max = rl.rlim_max};

		if (setrlimit(RLIMIT_NOFILE, &up) == -1)
			log_warn("%s: setrlimit", __func__);
		else
			rl = up;
	}
	if (rl.rlim_cur >= need)
		return SITED_TCP_CONNS;
	fit = rl.rlim_cur > 2 * SITED_FDS_OTHER ? rl.rlim_cur - SITED_FDS_OTHER : rl.rlim_cur / 2;
	log_info("%llu file descriptors: at most %llu TCP connections",
		 (unsigned long long)rl.rlim_cur, (unsigned long long)fit);
	return (unsigned)fit;
}

/* sited_summary: the transports' counts, the log line and the event;
 * http NULL unless -H */
static void sited_summary(struct event_log *ev, const char *site, const struct sited_counts *u,
			  const struct sited_tcp_counts *t, const struct sited_http *http)
{
	const struct sited_http_counts *hc = http ? &http->counts : NULL;
	uint64_t requests = u->requests + t->requests + (hc ? hc->requests : 0),
		 replies = u->replies + t->replies + (hc ? hc->replies : 0), bad = u->bad + t->bad,
		 dropped = u->degraded_dropped + t->degraded_dropped;
	json_t *hj = NULL;

	log_info("requests %llu replies %llu bad %llu degraded_dropped %llu; TCP: requests %llu, "
		 "connections accepted %llu refused %llu closed %llu reset %llu aborted %llu open "
		 "%llu",
		 (unsigned long long)requests, (unsigned long long)replies, (unsigned long long)bad,
		 (unsigned long long)dropped, (unsigned long long)t->requests,
		 (unsigned long long)t->accepted, (unsigned long long)t->refused,
		 (unsigned long long)t->closed, (unsigned long long)t->reset,
		 (unsigned long long)t->aborted, (unsigned long long)t->open);
	if (hc) {
		log_info("%s: requests %llu, 200 %llu, 503 %llu, other %llu, bad %llu; connections "
			 "accepted %llu closed %llu",
			 http->server, (unsigned long long)hc->requests,
			 (unsigned long long)hc->replies, (unsigned long long)hc->unavailable,
			 (unsigned long long)hc->other, (unsigned long long)hc->bad,
			 (unsigned long long)hc->accepted, (unsigned long long)hc->closed);
		hj = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "server", http->server,
			       "requests", (json_int_t)hc->requests, "replies",
			       (json_int_t)hc->replies, "unavailable", (json_int_t)hc->unavailable,
			       "other", (json_int_t)hc->other, "bad", (json_int_t)hc->bad,
			       "accepted", (json_int_t)hc->accepted, "closed",
			       (json_int_t)hc->closed);
	}
	event_emit(ev, EVENTS_SITED_SUMMARY,
		   "{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o*}", "site",
		   site, "requests", (json_int_t)requests, "replies", (json_int_t)replies, "bad",
		   (json_int_t)bad, "degraded_dropped", (json_int_t)dropped, "tcp_requests",
		   (json_int_t)t->requests, "tcp_accepted", (json_int_t)t->accepted, "tcp_refused",
		   (json_int_t)t->refused, "tcp_closed", (json_int_t)t->closed, "tcp_reset",
		   (json_int_t)t->reset, "tcp_aborted", (json_int_t)t->aborted, "tcp_open",
		   (json_int_t)t->open, "http", hj);
}

int main(int argc, char **argv)
{
	struct sited_opts o;
	struct sited_server srv = {.fd = -1, .fd6 = -1, .local_fd = -1};
	struct sited_tcp tcp = {.fd = -1, .fd6 = -1, .spare = -1};
	struct sited_http http = {0};
	struct event_log *ev = NULL;
	struct loop *loop = NULL;
	struct loop_handler sig, req, req6, local;
	char name[SITED_ADDRSTRLEN];
	struct sited_state state;
	int rc = 1;

	sited_parse(argc, argv, &o);
	log_init("sited", o.verbose);
	if ((ev = event_open(o.events, o.node, "sited")) == NULL)
		goto out;
	if ((loop = loop_new()) == NULL) {
		log_warn("%s: loop_new", __func__);
		goto out;
	}
	if (loop_signals(loop, &sig, loop_stop_on_signal, NULL) == -1) {
		log_warn("%s: signals", __func__);
		goto out;
	}
	if (sited_server_open(&srv, &o.addr, o.site) == -1)
		goto out;
	if (o.http ? sited_http_open(&http, loop, &srv, &o.addr, sited_fds()) == -1
		   : sited_tcp_open(&tcp, loop, &srv, &o.addr, sited_fds()) == -1)
		goto out;
	if (sited_state_open(&state, loop, &srv, ev, o.site) == -1)
		goto out;
	/* every socket the same: sited_server_serve reads them all */
	if (loop_add(loop, &req, srv.fd, EPOLLIN, sited_on_request, &srv) == -1 ||
	    (srv.fd6 != -1 &&
	     loop_add(loop, &req6, srv.fd6, EPOLLIN, sited_on_request, &srv) == -1) ||
	    (srv.local_fd != -1 &&
	     loop_add(loop, &local, srv.local_fd, EPOLLIN, sited_on_request, &srv) == -1)) {
		log_warn("%s: loop_add", __func__);
		goto out;
	}
	log_info("site %s answering on UDP and %s %s%s", o.site, o.http ? http.server : "TCP",
		 sited_addr_str(&o.addr, name, sizeof(name)), srv.fd6 != -1 ? " and [::]" : "");
	event_emit(ev, EVENTS_SITED_READY, "{s:s, s:i}", "site", o.site, "port", (int)o.port);
	if (loop_run(loop) == -1)
		goto out;
	rc = 0;
out:
	if (srv.batch && (tcp.fd != -1 || http.mhd[0].daemon))
		sited_summary(ev, o.site, &srv.counts, &tcp.counts, o.http ? &http : NULL);
	sited_http_close(&http);
	sited_tcp_close(&tcp);
	sited_server_close(&srv);
	loop_free(loop);
	event_close(ev);
	return rc;
}
