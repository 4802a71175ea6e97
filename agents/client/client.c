/*
 * client: paced requests to a target, one record per request
 * (docs/agents.md). The command line, start-up and the summary live here;
 * the traffic itself is traffic.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "addr.h"
#include "log.h"
#include "loop.h"
#include "strfmt.h"
#include "timeutil.h"
#include "traffic.h"

#define CLIENT_USAGE                                                                               \
	"usage: client -i ID -t ADDR:PORT [-n NODE] [-e FILE] [-r RATE] [-w TIMEOUT]\n"            \
	"              [-d DURATION] [-o CSV] [-v] [-h]\n"
#define CLIENT_RATE_MAX 10e6

struct client_opts {
	const char *node;
	const char *events;
	const char *csv;
	const char *target;
	struct client_cfg cfg;
	int has_id;
	int verbose;
};

static void client_usage(FILE *fp)
{
	fprintf(fp,
		CLIENT_USAGE
		"  -i ID        client id carried in every request (0-4294967295)\n"
		"  -t ADDR:PORT target of the requests (port default %d)\n"
		"  -r RATE      requests per second (default 1000)\n"
		"  -w TIMEOUT   a request unanswered this long is lost (default 500ms)\n"
		"  -d DURATION  stop sending after this long (default: at SIGTERM)\n"
		"  -o CSV       per-request records (default requests-NODE.csv)\n"
		"  -n NODE      lab node, written into every event (default: client)\n"
		"  -e FILE      JSON Lines event file (default: standard output)\n"
		"  -v           debug logging\n"
		"  -h           this help\n"
		"Durations take a unit: 500ms, 1.5s, 250us, 2m (no unit: seconds).\n",
		WIRE_PORT_DEFAULT);
}

static void client_bad(const char *flag, const char *what, const char *arg)
{
	fprintf(stderr, "client: %s: expected %s, got '%s'\n" CLIENT_USAGE, flag, what, arg);
	exit(1);
}

static void client_parse(int argc, char **argv, struct client_opts *o)
{
	unsigned long long v;
	char *end;
	int ch;

	memset(o, 0, sizeof(*o));
	o->node = "client";
	o->cfg.rate = 1000;
	o->cfg.timeout_ns = 500 * NSEC_PER_MSEC;
	opterr = 0;
	while ((ch = getopt(argc, argv, ":n:e:i:t:r:w:d:o:vh")) != -1) {
		switch (ch) {
		case 'n':
			o->node = optarg;
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'i':
			errno = 0;
			v = strtoull(optarg, &end, 10);
			if (errno || end == optarg || *end || v > UINT32_MAX || optarg[0] == '-')
				client_bad("-i", "a client id (0-4294967295)", optarg);
			o->cfg.id = (uint32_t)v;
			o->has_id = 1;
			break;
		case 't':
			if (parse_addr_port(optarg, WIRE_PORT_DEFAULT, &o->cfg.target) == -1)
				client_bad("-t", "an IPv4 ADDR:PORT", optarg);
			o->target = optarg;
			break;
		case 'r':
			errno = 0;
			o->cfg.rate = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->cfg.rate) ||
			    o->cfg.rate <= 0 || o->cfg.rate > CLIENT_RATE_MAX)
				client_bad("-r", "a rate in requests per second", optarg);
			break;
		case 'w':
			if (parse_duration_ns(optarg, &o->cfg.timeout_ns) == -1 ||
			    o->cfg.timeout_ns == 0)
				client_bad("-w", "a timeout such as 500ms", optarg);
			break;
		case 'd':
			if (parse_duration_ns(optarg, &o->cfg.duration_ns) == -1 ||
			    o->cfg.duration_ns == 0)
				client_bad("-d", "a duration such as 10s", optarg);
			break;
		case 'o':
			o->csv = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			client_usage(stdout);
			exit(0);
		case ':':
			fprintf(stderr, "client: -%c: missing argument\n" CLIENT_USAGE, optopt);
			exit(1);
		default:
			fprintf(stderr, "client: unknown flag -%c\n" CLIENT_USAGE, optopt);
			exit(1);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "client: unexpected argument '%s'\n" CLIENT_USAGE, argv[optind]);
		exit(1);
	}
	if (!o->has_id || o->target == NULL) {
		fprintf(stderr, "client: -i ID and -t ADDR:PORT are required\n" CLIENT_USAGE);
		exit(1);
	}
}

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

static void client_summary(struct event_log *ev, const struct client *c)
{
	json_t *sites = json_object();

	for (int i = 0; sites && i < c->tally.n; i++)
		json_object_set_new(sites, c->tally.sites[i].site,
				    json_integer((json_int_t)c->tally.sites[i].replies));
	if (sites && c->tally.other)
		json_object_set_new(sites, "(other)", json_integer((json_int_t)c->tally.other));
	log_info("sent %llu ok %llu lost %llu errors %llu late %llu stray %llu, %llu wake-ups",
		 (unsigned long long)c->stats.sent, (unsigned long long)c->stats.ok,
		 (unsigned long long)c->stats.lost, (unsigned long long)c->stats.errors,
		 (unsigned long long)c->stats.late, (unsigned long long)c->stats.stray,
		 (unsigned long long)c->stats.wakeups);
	event_emit(ev, "client_summary", "{s:I, s:I, s:I, s:I, s:I, s:I, s:o*}", "client",
		   (json_int_t)c->cfg.id, "sent", (json_int_t)c->stats.sent, "ok",
		   (json_int_t)c->stats.ok, "lost", (json_int_t)c->stats.lost, "errors",
		   (json_int_t)c->stats.errors, "late", (json_int_t)c->stats.late, "sites", sites);
}

int main(int argc, char **argv)
{
	struct client_opts o;
	struct client c = {.fd = -1, .send_timer = -1, .expire_timer = -1};
	struct event_log *ev = NULL;
	struct loop *loop = NULL;
	char csvpath[256];
	FILE *csv = NULL;
	int rc = 1, started = 0;

	client_parse(argc, argv, &o);
	log_init("client", o.verbose);
	if (o.csv == NULL) {
		if (strfmt(csvpath, sizeof(csvpath), "requests-%s.csv", o.node) == -1) {
			log_warnx("node name too long for a file name: %s", o.node);
			goto out;
		}
		o.csv = csvpath;
	}
	if ((ev = event_open(o.events, o.node, "client")) == NULL)
		goto out;
	if ((csv = fopen(o.csv, "w")) == NULL) {
		log_warn("%s", o.csv);
		goto out;
	}
	setvbuf(csv, NULL, _IOFBF, 1 << 20);
	fputs(CLIENT_CSV_HEADER, csv);
	if ((loop = loop_new()) == NULL) {
		log_warn("loop_new");
		goto out;
	}
	if (loop_signals(loop, client_on_signal, &c) == -1) {
		log_warn("signals");
		goto out;
	}
	if (client_start(&c, loop, &o.cfg, csv) == -1)
		goto out;
	started = 1;
	log_info("client %u: %.0f requests/s to %s, timeout %lldms", o.cfg.id, o.cfg.rate, o.target,
		 (long long)(o.cfg.timeout_ns / NSEC_PER_MSEC));
	event_emit(ev, "client_started", "{s:I, s:s, s:f}", "client", (json_int_t)o.cfg.id,
		   "target", o.target, "rate", o.cfg.rate);
	if (loop_run(loop) == -1 || c.failed)
		goto out;
	rc = 0;
out:
	if (started) {
		/* the span of the requests sent: up to when the next one fell due */
		int64_t end = c.send_end_ns ? c.send_end_ns : now_mono_ns();
		int64_t next = client_sched_due_at(&c.sched, c.stats.sent);
		int64_t took = (next > end ? next : end) - c.sched.start_ns;

		client_finish(&c);
		if (took > 0)
			log_info("achieved %.1f requests/s over %.3fs of sending",
				 (double)c.stats.sent * NSEC_PER_SEC / (double)took,
				 (double)took / NSEC_PER_SEC);
		client_summary(ev, &c);
	}
	client_close(&c);
	if (csv && fclose(csv) != 0) {
		log_warn("%s", o.csv);
		rc = 1;
	}
	loop_free(loop);
	event_close(ev);
	return rc;
}
