/*
 * client: paced requests to a target, one record per request
 * (docs/agents.md). Start-up and the summary live here; the command line
 * is opts.c, the traffic traffic.c, a population's schedule pop.c and its
 * DNS popdns.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <libknot/libknot.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mount.h>
#include <sched.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "event.h"
#include "events.h"
#include "log.h"
#include "loop.h"
#include "strfmt.h"
#include "timeutil.h"
#include "dns.h"
#include "http.h"
#include "pop.h"
#include "popdns.h"
#include "poptcp.h"
#include "opts.h"
#include "tcp.h"
#include "traffic.h"

static void client_on_signal(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client *c = arg;
	int sig = loop_signal_read(fd);

	(void)events;
	if (sig == SIGHUP) {
		log_info("SIGHUP ignored");
		return;
	}
	if (c->draining) {
		log_info("signal %d again: outstanding requests count as lost", sig);
		loop_stop(loop);
		return;
	}
	log_info("signal %d: stopping", sig);
	client_drain(c);
}

/* client_sites_json: {SITE: replies, ...} so far, or NULL. */
static json_t *client_sites_json(const struct client *c)
{
	json_t *sites = json_object();

	for (int i = 0; sites && i < c->tally.n; i++)
		json_object_set_new(sites, c->tally.sites[i].site,
				    json_integer((json_int_t)c->tally.sites[i].replies));
	if (sites && c->tally.other)
		json_object_set_new(sites, "(other)", json_integer((json_int_t)c->tally.other));
	return sites;
}

/* client_summary: the counts, and sending_ns, how long the sends took (a
 * client that falls behind catches up late: the verdict divides by this). */
static void client_summary(struct event_log *ev, const struct client *c, int64_t sending_ns)
{
	json_t *sites = client_sites_json(c);
	json_t *tcp = c->tcp	  ? client_tcp_json(c->tcp)
		      : c->poptcp ? client_tcp_counts_json(poptcp_counts(c->poptcp))
				  : NULL;
	json_t *http = c->http ? client_http_json(c->http) : NULL;
	/* a client told its family: which answered, and Happy Eyeballs' copies */
	json_t *family =
	    c->cfg.family_column
		? json_pack("{s:I, s:I, s:I}", "ok6", (json_int_t)c->stats.ok6, "ok4",
			    (json_int_t)c->stats.ok4, "fell_back", (json_int_t)c->stats.fell_back)
		: NULL;

	log_info("sent %llu ok %llu lost %llu errors %llu late %llu stray %llu, %llu wake-ups, "
		 "%llu ticks back to back",
		 (unsigned long long)c->stats.sent, (unsigned long long)c->stats.ok,
		 (unsigned long long)c->stats.lost, (unsigned long long)c->stats.errors,
		 (unsigned long long)c->stats.late, (unsigned long long)c->stats.stray,
		 (unsigned long long)c->stats.wakeups, (unsigned long long)c->stats.busy_rounds);
	if (c->tcp)
		client_tcp_log(c->tcp);
	if (c->poptcp)
		client_tcp_counts_log(poptcp_counts(c->poptcp));
	if (c->http)
		client_http_log(c->http);
	if (family)
		log_info("answered over IPv6 %llu, over IPv4 %llu; %llu sent again over IPv4",
			 (unsigned long long)c->stats.ok6, (unsigned long long)c->stats.ok4,
			 (unsigned long long)c->stats.fell_back);
	event_emit(ev, EVENTS_CLIENT_SUMMARY,
		   "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o*, s:o*, s:o*, s:o*}", "client",
		   (json_int_t)c->cfg.id, "sent", (json_int_t)c->stats.sent, "ok",
		   (json_int_t)c->stats.ok, "lost", (json_int_t)c->stats.lost, "errors",
		   (json_int_t)c->stats.errors, "late", (json_int_t)c->stats.late, "sending_ns",
		   (json_int_t)sending_ns, "sites", sites, "tcp", tcp, "http", http, "family",
		   family);
}

/* The counts so far, every CLIENT_PROGRESS_NS: what `steerlab run` shows
 * while the run goes on (its progress line), without reading the CSV. */
#define CLIENT_PROGRESS_NS NSEC_PER_SEC

struct client_progress {
	struct client *c;
	struct event_log *ev;
	struct loop_handler timer;
};

static void client_on_progress(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_progress *pr = arg;
	const struct client *c = pr->c;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	event_emit(pr->ev, EVENTS_CLIENT_PROGRESS, "{s:I, s:I, s:I, s:I, s:I, s:o*}", "client",
		   (json_int_t)c->cfg.id, "sent", (json_int_t)c->stats.sent, "ok",
		   (json_int_t)c->stats.ok, "lost", (json_int_t)c->stats.lost, "errors",
		   (json_int_t)c->stats.errors, "sites", client_sites_json(c));
}

/* DNS mode: the resolver's answers steer where requests go. */
struct client_steer {
	struct client_dns dns;
	struct client *c;
	struct event_log *ev;
	struct loop_handler dns_h, timer;
	int fallback; /* Happy Eyeballs: the A lookup, its answer the IPv4 fallback */
};

/* client_resolution: one resolution's outcome (docs/events.md,
 * dns_resolution): fresh, stale, servfail, rcode (another), timeout */
static void client_resolution(struct event_log *ev, const struct client_dns *d, uint32_t id,
			      int timeout)
{
	const struct client_dns_response *r = &d->last;
	const char *outcome;
	char addr[INET6_ADDRSTRLEN];

	if (ev == NULL)
		return;
	if (timeout) {
		event_emit(ev, EVENTS_DNS_RESOLUTION, "{s:I, s:s, s:n, s:b, s:n, s:I}", "client",
			   (json_int_t)id, "outcome", "timeout", "rcode", "stale", 0, "address",
			   "latency_ns", (json_int_t)(now_mono_ns() - d->sent_ns));
		return;
	}
	if (r->rcode == CLIENT_DNS_RCODE_NOERROR && d->pending == 0)
		outcome = r->stale ? "stale" : "fresh";
	else if (r->rcode == CLIENT_DNS_RCODE_SERVFAIL)
		outcome = "servfail";
	else
		outcome = "rcode";
	if (r->qtype == KNOT_RRTYPE_AAAA)
		inet_ntop(AF_INET6, &r->addr6, addr, sizeof(addr));
	else
		inet_ntop(AF_INET, &r->addr, addr, sizeof(addr));
	event_emit(ev, EVENTS_DNS_RESOLUTION, "{s:I, s:s, s:i, s:b, s:s?, s:I}", "client",
		   (json_int_t)id, "outcome", outcome, "rcode", r->rcode, "stale", r->stale,
		   "address", d->pending ? NULL : addr, "latency_ns",
		   (json_int_t)d->last_latency_ns);
}

/* client_steer_target: the address the answers gave into the target
 * (an AAAA client's IPv6 one), and in text into buf */
static const char *client_steer_target(const struct client_dns *d, union client_addr *target,
				       char *buf, size_t len)
{
	if (d->qtype == KNOT_RRTYPE_AAAA) {
		target->sin6.sin6_family = AF_INET6;
		target->sin6.sin6_addr = d->addr6;
		return inet_ntop(AF_INET6, &d->addr6, buf, (socklen_t)len);
	}
	target->sin.sin_family = AF_INET;
	target->sin.sin_addr = d->addr;
	return inet_ntop(AF_INET, &d->addr, buf, (socklen_t)len);
}

static void client_steer_answer(struct client_steer *st, int64_t now)
{
	struct client_dns *d = &st->dns;
	union client_addr *target = st->fallback ? &st->c->cfg.fallback : &st->c->cfg.target;
	char was[INET6_ADDRSTRLEN], now_addr[INET6_ADDRSTRLEN];
	int rc = client_dns_receive(d, now), changed;

	if (rc == 1 || rc == 2)
		client_resolution(st->ev, d, st->c->cfg.id, 0);
	if (rc != 1)
		return;
	client_addr_text(target, was, sizeof(was));
	client_steer_target(d, target, now_addr, sizeof(now_addr));
	changed = strcmp(was, now_addr) != 0;
	event_emit(st->ev, EVENTS_DNS_ANSWER, "{s:I, s:s, s:s, s:s, s:I, s:b}", "client",
		   (json_int_t)st->c->cfg.id, "name", d->name, "address", now_addr, "previous", was,
		   "ttl", (json_int_t)d->ttl, "changed", changed);
	if (changed)
		log_info("%s now %s (was %s), ttl %us", d->name, now_addr, was, d->ttl);
}

static void client_steer_rearm(struct client_steer *st)
{
	if (loop_timer_set(&st->timer, client_dns_next_ns(&st->dns), 0) == -1)
		log_warn("%s: timerfd", __func__);
}

static void client_on_dns(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_steer *st = arg;

	(void)loop;
	(void)fd;
	(void)events;
	client_steer_answer(st, now_mono_ns());
	client_steer_rearm(st);
}

static void client_on_dns_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct client_steer *st = arg;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	if (now_mono_ns() >= client_dns_next_ns(&st->dns)) {
		/* the pending query had no response at all: timed out */
		if (st->dns.pending && !st->dns.responded)
			client_resolution(st->ev, &st->dns, st->c->cfg.id, 1);
		client_dns_query(&st->dns, now_mono_ns());
	}
	client_steer_rearm(st);
}

static void client_on_popdns(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	popdns_receive(arg, now_mono_ns());
}

/* client_private_resolv: a resolv.conf of this client's own, naming
 * resolver, in place of the host's, for the system's resolver that
 * libcurl's resolves through (-L): a mount namespace of the process's own
 * (what `ip netns exec` does with /etc/netns/NAME/resolv.conf), the file
 * bound over /etc/resolv.conf, then unlinked (the mount keeps it). 0, or
 * -1 (logged). */
static int client_private_resolv(const union client_addr *resolver)
{
	char path[] = "/tmp/steerlab-resolv.XXXXXX", addr[INET6_ADDRSTRLEN];
	int fd = mkstemp(path), rc = -1;
	FILE *fp;

	if (fd == -1 || (fp = fdopen(fd, "w")) == NULL) {
		log_warn("%s: a resolv.conf of its own", __func__);
		if (fd != -1)
			close(fd);
		return -1;
	}
	fprintf(fp,
		"# steerlab client -L: libcurl's resolver asks the lab's\n"
		"nameserver %s\noptions timeout:1 attempts:1\n",
		client_addr_text(resolver, addr, sizeof(addr)));
	if (fclose(fp) != 0)
		log_warn("%s: %s", __func__, path);
	else if (unshare(CLONE_NEWNS) == -1 ||
		 mount(NULL, "/", NULL, MS_SLAVE | MS_REC, NULL) == -1)
		log_warn("%s: a mount namespace of its own (root?)", __func__);
	else if (mount(path, "/etc/resolv.conf", NULL, MS_BIND, NULL) == -1)
		log_warn("%s: bind %s on /etc/resolv.conf", __func__, path);
	else
		rc = 0;
	unlink(path);
	return rc;
}

/* client_family_name: client_started's family: what -F said, or NULL */
static const char *client_family_name(int family)
{
	return family == CLIENT_FAMILY_DUAL ? "dual" : family == 6 ? "6" : family == 4 ? "4" : NULL;
}

/* client_pop_start: a population's start-up: its rates, its DNS state and
 * first answers, its traffic. 0 or -1 (logged). */
static int client_pop_start(struct client_opts *o, struct client *c, struct loop *loop, FILE *csv,
			    struct event_log *ev, struct pop *pop, struct popdns *pd,
			    struct loop_handler *pd_h)
{
	if (pop_init(pop, o->population, o->cfg.id, &o->rates, o->cfg.rate, o->poisson, o->seed) ==
	    -1) {
		log_warnx("out of memory for %u logical clients", o->population);
		return -1;
	}
	pop->src_net = o->src_net;
	pop->src_size = o->src_size;
	if (o->resolver) {
		/* IPv6 (and dual): the AAAA; dual: the A too, apart, as one
		 * client's */
		int v6 = o->family == 6 || o->family == CLIENT_FAMILY_DUAL;

		if (pop_dns_init(pop, o->nresolvers, o->nweights ? o->weights : NULL,
				 o->sticky_share,
				 o->family == CLIENT_FAMILY_DUAL ? AF_UNSPEC
				 : v6				 ? AF_INET6
								 : AF_INET) == -1) {
			log_warnx("out of memory for %u logical clients", o->population);
			return -1;
		}
		if (popdns_open(pd, pop, o->resolvers, o->nresolvers, o->name, o->sticky_ns, ev) ==
			-1 ||
		    popdns_first(pd) == -1)
			return -1;
		/* each logical client's address is its own; the port sits at
		 * one offset in both families' sockaddr */
		o->cfg.target.sa.sa_family = v6 ? AF_INET6 : AF_INET;
		o->cfg.target.sin.sin_port = htons(o->port ? o->port : WIRE_PORT_DEFAULT);
		if (o->family == CLIENT_FAMILY_DUAL) {
			o->cfg.fallback.sin.sin_family = AF_INET;
			o->cfg.fallback.sin.sin_port = o->cfg.target.sin.sin_port;
		}
		o->target = o->name;
		if (loop_add(loop, pd_h, pd->fd, EPOLLIN, client_on_popdns, pd) == -1) {
			log_warn("%s: dns loop", __func__);
			return -1;
		}
	}
	return client_start_pop(c, loop, &o->cfg, csv, pop, o->resolver ? pd : NULL, o->tcp,
				o->http, o->resolver ? o->name : NULL);
}

/* client_steer_first: the first address, before any request can be sent:
 * up to 5 tries a second apart. 0 or -1. */
static int client_steer_first(struct client_dns *d)
{
	for (int i = 0; i < 5; i++) {
		int64_t deadline = now_mono_ns() + CLIENT_DNS_RETRY_NS;
		if (client_dns_query(d, now_mono_ns()) == -1)
			return -1;
		while (now_mono_ns() < deadline) {
			if (client_dns_receive(d, now_mono_ns()) == 1)
				return 0;
			usleep(1000);
		}
	}
	char a[INET6_ADDRSTRLEN];

	log_warnx("no answer for %s from %s in 5 tries", d->name,
		  client_dns_resolver_text(d, a, sizeof(a)));
	return -1;
}

/* client_wait_start: sleeps until the CLOCK_MONOTONIC instant start_ns
 * (-z), the lab's common start of its clients; one started after it begins
 * at once, said. 0, or -1 if a signal to stop came meanwhile. */
static int client_wait_start(int64_t start_ns)
{
	struct timespec at = {.tv_sec = start_ns / NSEC_PER_SEC,
			      .tv_nsec = start_ns % NSEC_PER_SEC};
	int64_t late = now_mono_ns() - start_ns;
	int err;

	if (late > NSEC_PER_MSEC)
		log_info("started %.1f ms after the common start (-z): beginning at once",
			 (double)late / NSEC_PER_MSEC);
	/* SIGTERM and SIGINT are blocked for the loop's signalfd: pending
	 * ones are read by the loop once it runs */
	while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL)) == EINTR)
		;
	if (err != 0) {
		errno = err;
		log_warn("%s: clock_nanosleep", __func__);
		return -1;
	}
	return 0;
}

/* client_wait_go: -Z BASE, the lab's barrier: says it is ready
 * (client_ready) and waits for the go, SIGUSR2 whose sigqueue value is the
 * start in us after BASE, then for that start (client_wait_start). The go
 * is blocked before the word is out, so one sent at once waits pending.
 * SIGTERM or SIGINT meanwhile (the lab stopping): *stopped, -1. */
static int client_wait_go(struct event_log *ev, uint32_t id, int64_t base_ns, int *stopped,
			  int64_t *start_ns)
{
	sigset_t set;
	siginfo_t si;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1) {
		log_warn("%s: sigprocmask", __func__);
		return -1;
	}
	event_emit(ev, EVENTS_CLIENT_READY, "{s:I}", "client", (json_int_t)id);
	/* SIGTERM and SIGINT are blocked already, for the loop's signalfd */
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	while ((sig = sigwaitinfo(&set, &si)) == -1 && errno == EINTR)
		;
	if (sig == -1) {
		log_warn("%s: sigwaitinfo", __func__);
		return -1;
	}
	if (sig != SIGUSR2) {
		log_info("stopped before the go");
		*stopped = 1;
		return -1;
	}
	if (si.si_code != SI_QUEUE || si.si_value.sival_int < 0) {
		log_warnx("a go without a start (SIGUSR2 from pid %d, not sigqueue'd with the "
			  "start in us after -Z)",
			  (int)si.si_pid);
		return -1;
	}
	*start_ns = base_ns + (int64_t)si.si_value.sival_int * NSEC_PER_USEC;
	return client_wait_start(*start_ns);
}

int main(int argc, char **argv)
{
	struct client_opts o;
	struct client c = {.fd = -1};
	struct client_steer st = {.dns = {.fd = -1}}, st4 = {.dns = {.fd = -1}, .fallback = 1};
	char first4[INET_ADDRSTRLEN] = "";
	struct client_progress pr = {.c = &c};
	struct event_log *ev = NULL;
	struct loop *loop = NULL;
	struct loop_handler sig, pd_h = {0};
	struct pop pop = {0};
	struct popdns pd = {.fd = -1};
	char csvpath[256];
	char first[INET6_ADDRSTRLEN] = "";
	struct client_recfile csvfile = {0}, binfile = {0};
	struct client_recbin bin;
	int rc = 1, started = 0, go_stopped = 0;
	int64_t start_at = 0; /* the common start, when the lab gave one */

	client_parse(argc, argv, &o);
	log_init("client", o.verbose);
	if (o.csv == NULL && o.bin == NULL) {
		if (strfmt(csvpath, sizeof(csvpath), "requests-%s.csv", o.node) == -1) {
			log_warnx("node name too long for a file name: %s", o.node);
			goto out;
		}
		o.csv = csvpath;
	}
	if ((ev = event_open(o.events, o.node, "client")) == NULL)
		goto out;
	if (o.csv) {
		if (client_record_open(&csvfile, o.csv) == -1) {
			log_warn("%s: %s", __func__, o.csv);
			goto out;
		}
		client_record_meta(csvfile.fp, o.csv, o.topology);
		fputs(o.family ? CLIENT_CSV_HEADER_FAMILY : CLIENT_CSV_HEADER, csvfile.fp);
	}
	if (o.bin) {
		if (client_record_open(&binfile, o.bin) == -1) {
			log_warn("%s: %s", __func__, o.bin);
			goto out;
		}
		if (client_recbin_start(&bin, binfile.fp) == -1) {
			log_warn("%s: %s", __func__, o.bin);
			goto out;
		}
	}
	if ((loop = loop_new()) == NULL) {
		log_warn("%s: loop_new", __func__);
		goto out;
	}
	if (loop_signals(loop, &sig, client_on_signal, &c) == -1) {
		log_warn("%s: signals", __func__);
		goto out;
	}
	if (o.start_ns && client_wait_start(o.start_ns) == -1)
		goto out;
	start_at = o.start_ns;
	if (o.go_base_ns &&
	    client_wait_go(ev, o.cfg.id, o.go_base_ns, &go_stopped, &start_at) == -1) {
		/* stopped while waiting: nothing was sent, nothing failed */
		rc = go_stopped ? 0 : 1;
		goto out;
	}
	if (o.population) {
		/* a DNS population's requests from the common start, not from
		 * when its first answers came (a loaded machine's 64 caches took
		 * 70 ms: every phase the model counts from the start moved) */
		if (o.resolver)
			o.cfg.sched_start_ns = start_at;
		if (client_pop_start(&o, &c, loop, csvfile.fp, ev, &pop, &pd, &pd_h) == -1)
			goto out;
	} else if (o.curl_dns) {
		/* libcurl resolves: the name through the lab's resolver (an
		 * IPv6 client's at its IPv6 address); the target's family
		 * (and a dual-stack client's fallback's) is what the records
		 * say when no reply names another */
		if (client_private_resolv(&o.resolver_addr) == -1)
			goto out;
		o.cfg.target.sa.sa_family =
		    o.family == 6 || o.family == CLIENT_FAMILY_DUAL ? AF_INET6 : AF_INET;
		if (o.family == CLIENT_FAMILY_DUAL)
			o.cfg.fallback.sa.sa_family = AF_INET;
		o.cfg.target.sin.sin_port = htons(o.port ? o.port : WIRE_PORT_DEFAULT);
		o.target = o.name;
	} else if (o.resolver) {
		/* IPv6 (and dual): the AAAA; dual: the A too, apart, each
		 * asked again as its own TTL says, as the resolver caches them */
		if (client_dns_init_family(
			&st.dns, &o.resolver_addr.sa, client_addr_len(&o.resolver_addr), o.name,
			o.sticky_ns, o.pick,
			o.family == 6 || o.family == CLIENT_FAMILY_DUAL ? AF_INET6 : AF_INET) ==
			-1 ||
		    client_steer_first(&st.dns) == -1)
			goto out;
		client_steer_target(&st.dns, &o.cfg.target, first, sizeof(first));
		/* the port sits at one offset in both families' sockaddr */
		o.cfg.target.sin.sin_port = htons(o.port ? o.port : WIRE_PORT_DEFAULT);
		if (o.family == CLIENT_FAMILY_DUAL) {
			if (client_dns_init_family(&st4.dns, &o.resolver_addr.sa,
						   client_addr_len(&o.resolver_addr), o.name,
						   o.sticky_ns, o.pick, AF_INET) == -1 ||
			    client_steer_first(&st4.dns) == -1)
				goto out;
			client_steer_target(&st4.dns, &o.cfg.fallback, first4, sizeof(first4));
			o.cfg.fallback.sin.sin_port = o.cfg.target.sin.sin_port;
		}
		o.target = o.name;
	}
	if (!o.population && o.tcp) {
		if (client_start_tcp(&c, loop, &o.cfg, csvfile.fp, ev, o.resolver ? &st.dns : NULL,
				     st4.dns.fd != -1 ? &st4.dns : NULL) == -1)
			goto out;
	} else if (!o.population && o.http) {
		if (client_start_http(&c, loop, &o.cfg, csvfile.fp, o.resolver ? o.name : NULL,
				      ev) == -1)
			goto out;
		if (o.curl_dns)
			client_http_resolve(c.http, (long)(o.curl_dns_cache_ns / NSEC_PER_SEC));
	} else if (!o.population && client_start(&c, loop, &o.cfg, csvfile.fp) == -1) {
		goto out;
	}
	started = 1;
	if (binfile.fp)
		c.bin = &bin;
	pr.ev = ev;
	if (loop_timer_add(loop, &pr.timer, now_mono_ns() + CLIENT_PROGRESS_NS, CLIENT_PROGRESS_NS,
			   client_on_progress, &pr) == -1) {
		log_warn("%s: progress timer", __func__);
		goto out;
	}
	if (o.resolver && !o.population && !o.curl_dns) {
		st.c = &c;
		st.ev = ev;
		if (loop_add(loop, &st.dns_h, st.dns.fd, EPOLLIN, client_on_dns, &st) == -1 ||
		    loop_timer_add(loop, &st.timer, client_dns_next_ns(&st.dns), 0,
				   client_on_dns_timer, &st) == -1) {
			log_warn("%s: dns loop", __func__);
			goto out;
		}
		log_info("%s is %s (ttl %us) from resolver %s%s", o.name, first, st.dns.ttl,
			 o.resolver, o.sticky_ns ? ", sticky" : "");
	}
	if (st4.dns.fd != -1) {
		st4.c = &c;
		st4.ev = ev;
		if (loop_add(loop, &st4.dns_h, st4.dns.fd, EPOLLIN, client_on_dns, &st4) == -1 ||
		    loop_timer_add(loop, &st4.timer, client_dns_next_ns(&st4.dns), 0,
				   client_on_dns_timer, &st4) == -1) {
			log_warn("%s: dns loop", __func__);
			goto out;
		}
		log_info("%s is also %s (ttl %us): over IPv4 %lld ms after a request is sent over "
			 "IPv6 and not answered (Happy Eyeballs)",
			 o.name, first4, st4.dns.ttl,
			 (long long)(o.cfg.attempt_delay_ns / NSEC_PER_MSEC));
	} else if (o.family == CLIENT_FAMILY_DUAL) {
		log_info("IPv4 %lld ms after a request is sent over IPv6 and not answered (Happy "
			 "Eyeballs)",
			 (long long)(o.cfg.attempt_delay_ns / NSEC_PER_MSEC));
	}
	log_info("client %u: %.0f requests/s to %s over %s, timeout %lldms", o.cfg.id, o.cfg.rate,
		 o.target,
		 o.tcp	  ? "TCP"
		 : o.http ? client_http_library()
			  : "UDP",
		 (long long)(o.cfg.timeout_ns / NSEC_PER_MSEC));
	if (o.population) {
		log_info("a population of %u logical clients, ids %u to %u, %s arrivals, %d "
			 "resolver%s %s",
			 o.population, o.cfg.id, o.cfg.id + o.population - 1,
			 o.poisson ? "poisson" : "paced", o.nresolvers,
			 o.nresolvers == 1 ? "" : "s", o.nweights ? "weighted" : "in turn");
		event_emit(ev, EVENTS_CLIENT_STARTED,
			   "{s:I, s:s, s:f, s:s?, s:s?, s:I, s:s, s:I, s:s, s:f, s:s?}", "client",
			   (json_int_t)o.cfg.id, "target", o.target, "rate", o.cfg.rate, "resolver",
			   o.resolver, "mode", o.resolver ? "dns" : "anycast", "sticky_ns",
			   (json_int_t)o.sticky_ns, "proto",
			   o.tcp    ? "tcp"
			   : o.http ? "http"
				    : "udp",
			   "population", (json_int_t)o.population, "arrivals",
			   o.poisson ? "poisson" : "paced", "sticky_share", o.sticky_share,
			   "family", client_family_name(o.family));
	} else {
		event_emit(ev, EVENTS_CLIENT_STARTED, "{s:I, s:s, s:f, s:s?, s:s?, s:I, s:s, s:s?}",
			   "client", (json_int_t)o.cfg.id, "target", o.target, "rate", o.cfg.rate,
			   "resolver", o.resolver, "mode", o.resolver ? "dns" : "anycast",
			   "sticky_ns", (json_int_t)o.sticky_ns, "proto",
			   o.tcp    ? "tcp"
			   : o.http ? "http"
				    : "udp",
			   "family", client_family_name(o.family));
	}
	if (o.resolver && !o.population && !o.curl_dns) {
		event_emit(ev, EVENTS_DNS_ANSWER, "{s:I, s:s, s:s, s:n, s:I, s:b}", "client",
			   (json_int_t)o.cfg.id, "name", o.name, "address", first, "previous",
			   "ttl", (json_int_t)st.dns.ttl, "changed", 1);
	}
	if (first4[0])
		event_emit(ev, EVENTS_DNS_ANSWER, "{s:I, s:s, s:s, s:n, s:I, s:b}", "client",
			   (json_int_t)o.cfg.id, "name", o.name, "address", first4, "previous",
			   "ttl", (json_int_t)st4.dns.ttl, "changed", 1);
	if (loop_run(loop) == -1 || c.failed)
		goto out;
	rc = 0;
out:
	if (started) {
		/* the span of the requests sent: up to when the next one fell due */
		int64_t took = client_sending_ns(&c);

		client_finish(&c);
		if (took > 0)
			log_info("achieved %.1f requests/s over %.3fs of sending",
				 (double)c.stats.sent * NSEC_PER_SEC / (double)took,
				 (double)took / NSEC_PER_SEC);
		client_summary(ev, &c, took > 0 ? took : 0);
		if (o.resolver && o.population)
			event_emit(ev, EVENTS_DNS_SUMMARY, "{s:I, s:I, s:I, s:I, s:I, s:I}",
				   "client", (json_int_t)o.cfg.id, "queries",
				   (json_int_t)pd.queries, "answers", (json_int_t)pd.answers,
				   "failures", (json_int_t)pd.failures, "changes",
				   (json_int_t)pd.changes, "population", (json_int_t)o.population);
		else if (o.resolver && !o.curl_dns)
			event_emit(ev, EVENTS_DNS_SUMMARY, "{s:I, s:I, s:I, s:I, s:I}", "client",
				   (json_int_t)o.cfg.id, "queries", (json_int_t)st.dns.queries,
				   "answers", (json_int_t)st.dns.answers, "failures",
				   (json_int_t)st.dns.failures, "changes",
				   (json_int_t)st.dns.changes);
	}
	loop_timer_del(loop, &st.timer);
	loop_timer_del(loop, &st4.timer);
	loop_timer_del(loop, &pr.timer);
	loop_del(loop, &st.dns_h);
	loop_del(loop, &st4.dns_h);
	client_dns_close(&st4.dns);
	client_dns_close(&st.dns);
	loop_del(loop, &pd_h);
	popdns_close(&pd);
	pop_free(&pop);
	client_close(&c);
	if (client_record_close(&csvfile) == -1) {
		log_warn("%s: %s", __func__, o.csv);
		rc = 1;
	}
	if (client_record_close(&binfile) == -1) {
		log_warn("%s: %s", __func__, o.bin);
		rc = 1;
	}
	loop_free(loop);
	event_close(ev);
	return rc;
}
