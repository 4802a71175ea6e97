/*
 * sited: the service at a site (docs/agents.md).
 *
 * Answers every request datagram on UDP ADDR:PORT with a reply naming the
 * site, sent from the address the request was sent to. The lab kills it
 * to fail the site; the prober notices. SIGUSR1 drains the site (the
 * timeline's drain): it goes on answering, its replies flagged
 * WIRE_F_DRAINING, so that the probers take it out; SIGUSR2 lifts it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "event.h"
#include "events.h"
#include "log.h"
#include "opt.h"
#include "loop.h"
#include "serve.h"

struct sited_opts {
	const char *node;
	const char *events;
	const char *site;
	struct sockaddr_in addr;
	int verbose;
};

#define SITED_USAGE "usage: sited -s SITE [-n NODE] [-e FILE] [-p PORT] [-a ADDR] [-v] [-h]\n"

static void sited_usage(FILE *fp)
{
	fprintf(fp,
		SITED_USAGE "  -s SITE   the site name put in every reply (at most %d characters)\n"
			    "  -p PORT   UDP port to answer on (default %d)\n"
			    "  -a ADDR   IPv4 address to bind (default 0.0.0.0: all)\n"
			    "  -n NODE   lab node, written into every event (default: sited)\n"
			    "  -e FILE   JSON Lines event file (default: standard output)\n"
			    "  -v        debug logging\n"
			    "  -h        this help\n",
		WIRE_SITE_LEN, WIRE_PORT_DEFAULT);
}

/* sited_opt_addr: an IPv4 address alone (the port is -p) */
static int sited_opt_addr(const char *arg, void *dst, const char **what)
{
	(void)what;
	return inet_pton(AF_INET, arg, dst) == 1 ? 0 : -1;
}

static void sited_parse(int argc, char **argv, struct sited_opts *o)
{
	static const struct opt_cmd cmd = {"sited", SITED_USAGE, sited_usage, NULL};
	uint16_t port = WIRE_PORT_DEFAULT;
	const struct opt opts[] = {
	    {OPT_STR('n', &o->node)},
	    {OPT_STR('e', &o->events)},
	    {OPT_NAME('s', &o->site, WIRE_SITE_LEN,
		      "a site name of 1 to 16 letters, digits, '.', '_' or '-'")},
	    {OPT_INT('p', &port, 1, 65535, "a UDP port (1-65535)")},
	    {OPT_CALL('a', sited_opt_addr, &o->addr.sin_addr, "an IPv4 address")},
	    {OPT_COUNT('v', &o->verbose)},
	    {0},
	};

	memset(o, 0, sizeof(*o));
	o->node = "sited";
	o->addr.sin_family = AF_INET;
	o->addr.sin_addr.s_addr = htonl(INADDR_ANY);
	opt_parse(&cmd, opts, argc, argv);
	o->addr.sin_port = htons(port);
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

struct sited_drain {
	struct sited_server *srv;
	struct event_log *ev;
	const char *site;
};

/* sited_on_drain: SIGUSR1 drains, SIGUSR2 lifts the drain */
static void sited_on_drain(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sited_drain *d = arg;
	int sig = loop_signal_read(fd), was = d->srv->draining;

	(void)loop;
	(void)events;
	if (sig != SIGUSR1 && sig != SIGUSR2)
		return;
	d->srv->draining = sig == SIGUSR1;
	if (d->srv->draining == was)
		return;
	log_info("site %s %s", d->site, was ? "undrained" : "draining");
	event_emit(d->ev, was ? EVENTS_SITED_UNDRAINED : EVENTS_SITED_DRAINING, "{s:s}", "site",
		   d->site);
}

int main(int argc, char **argv)
{
	struct sited_opts o;
	struct sited_server srv = {.fd = -1, .local_fd = -1};
	struct event_log *ev = NULL;
	struct loop *loop = NULL;
	struct loop_handler sig, req, local, drain;
	struct sited_drain d;
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
	d = (struct sited_drain){.srv = &srv, .ev = ev, .site = o.site};
	if (loop_add_signals(loop, &drain, (const int[]){SIGUSR1, SIGUSR2, 0}, sited_on_drain,
			     &d) == -1) {
		log_warn("%s: SIGUSR1, SIGUSR2", __func__);
		goto out;
	}
	if (loop_add(loop, &req, srv.fd, EPOLLIN, sited_on_request, &srv) == -1 ||
	    (srv.local_fd != -1 &&
	     loop_add(loop, &local, srv.local_fd, EPOLLIN, sited_on_request, &srv) == -1)) {
		log_warn("%s: loop_add", __func__);
		goto out;
	}
	log_info("site %s answering on %s:%u", o.site, inet_ntoa(o.addr.sin_addr),
		 ntohs(o.addr.sin_port));
	event_emit(ev, EVENTS_SITED_READY, "{s:s, s:i}", "site", o.site, "port",
		   (int)ntohs(o.addr.sin_port));
	if (loop_run(loop) == -1)
		goto out;
	rc = 0;
out:
	if (srv.batch) {
		log_info(
		    "requests %llu replies %llu bad %llu", (unsigned long long)srv.counts.requests,
		    (unsigned long long)srv.counts.replies, (unsigned long long)srv.counts.bad);
		event_emit(ev, EVENTS_SITED_SUMMARY, "{s:s, s:I, s:I, s:I}", "site", o.site,
			   "requests", (json_int_t)srv.counts.requests, "replies",
			   (json_int_t)srv.counts.replies, "bad", (json_int_t)srv.counts.bad);
	}
	sited_server_close(&srv);
	loop_free(loop);
	event_close(ev);
	return rc;
}
