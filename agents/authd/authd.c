/*
 * authd: the authoritative DNS server of the lab (docs/authd.md).
 *
 * Serves the zones of its configuration file over UDP and TCP, answering
 * steered names by policy from the sites' health, which the probers report
 * on the control socket, from the senders the lab entitles (allow.h).
 * Takes zone changes on the same socket from the senders -A entitles
 * (change.h), answers each and bumps the zone's serial. Writes
 * `health_changed` when a site's verdict changes, `answer_changed` when
 * what a name hands out changes, `zone_changed` for each change, and
 * `control_rejected` for reports and changes from senders that are not
 * entitled.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "allow.h"
#include "change.h"
#include "conf.h"
#include "ctlreject.h"
#include "event.h"
#include "events.h"
#include "handout.h"
#include "health.h"
#include "log.h"
#include "opt.h"
#include "loop.h"
#include "net.h"
#include "respond.h"
#include "timeutil.h"
#include "zone_change.h"

#define AUTHD_USAGE                                                                                \
	"usage: authd -c CONFIG [-t] [-l ADDR[:PORT] ...] [-C ADDR[:PORT]|none] [-S SEED]\n"       \
	"             [-a [ID=]ADDR|none ...] [-A ADDR ...] [-n NODE] [-e FILE] [-v] [-h]\n"

struct authd_opts {
	const char *node;
	const char *events;
	const char *config;
	int check;
	int nlisten;
	struct sockaddr_storage listen[AUTHD_MAX_LISTEN];
	int control_set, control_none;
	struct sockaddr_storage control;
	uint64_t seed;
	struct authd_allow allow;
	int verbose;
};

struct authd {
	struct authd_opts *o;
	struct authd_db *db;
	struct event_log *ev;
	struct loop *loop;
	struct loop_handler sig;
	struct authd_health health;
	struct authd_handouts handouts;
	struct authd_respond_ctx rc;
	struct authd_net *net;
	int has_latency;   /* a latency name: the probers' RTTs change answers */
	int has_proximity; /* a proximity name: the sites' RTTs do */
	struct loop_handler expire_timer;
	struct ctl_reject rejects, change_rejects;
	uint64_t reports, bad_reports, unknown_site, rejected, prox_reports;
	uint64_t changes, bad_changes, failed_changes, rejected_changes;
};

static void authd_usage(FILE *fp)
{
	fprintf(fp,
		AUTHD_USAGE
		"  -c CONFIG          the configuration file (docs/authd.md)\n"
		"  -t                 check the configuration, print 'configuration OK', exit\n"
		"  -l ADDR[:PORT]     listen here instead of the [server] listen lines; "
		"repeatable\n"
		"  -C ADDR[:PORT]     the control socket for health reports, or none\n"
		"  -S SEED            seed of the random choices (default: random)\n"
		"  -a [ID=]ADDR       accept health reports only from ADDR (under prober id ID,\n"
		"                     or the first id it uses); repeatable, at most %d; none:\n"
		"                     from nobody. Without -a: from anyone (the lab always\n"
		"                     gives -a)\n"
		"  -A ADDR            accept zone changes (CHANGE lines) from ADDR; repeatable,\n"
		"                     at most %d. Without -A: from nobody (the lab gives\n"
		"                     -A 127.0.0.1)\n"
		"  -n NODE            lab node, written into every event (default: authd)\n"
		"  -e FILE            JSON Lines event file (default: standard output)\n"
		"  -v                 debug logging\n"
		"  -h                 this help\n",
		AUTHD_MAX_PROBERS, AUTHD_MAX_CHANGERS);
}

/* authd_opt_listen: one -l, at most AUTHD_MAX_LISTEN */
static int authd_opt_listen(const char *arg, void *dst, const char **what)
{
	struct authd_opts *o = dst;

	if (o->nlisten == AUTHD_MAX_LISTEN) {
		*what = "at most 8 listen addresses";
		return -1;
	}
	if (addr_parse_sockaddr(arg, AUTHD_PORT, &o->listen[o->nlisten]) == -1)
		return -1;
	o->nlisten++;
	return 0;
}

static int authd_opt_control(const char *arg, void *dst, const char **what)
{
	struct authd_opts *o = dst;

	(void)what;
	o->control_set = 1;
	if (strcmp(arg, "none") == 0) {
		o->control_none = 1;
		return 0;
	}
	return addr_parse_sockaddr(arg, AUTHD_CONTROL_PORT, &o->control);
}

/* authd_opt_seed: not strtonum: a full 64-bit seed, in decimal, hex (0x)
 * or octal, beyond strtonum's long long */
static int authd_opt_seed(const char *arg, void *dst, const char **what)
{
	unsigned long long v;
	char *end;

	(void)what;
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || v == 0 || arg[0] == '-')
		return -1;
	*(uint64_t *)dst = v;
	return 0;
}

static int authd_opt_allow(const char *arg, void *dst, const char **what)
{
	(void)what;
	return authd_allow_add(dst, arg);
}

static int authd_opt_changer(const char *arg, void *dst, const char **what)
{
	(void)what;
	return authd_allow_changer(dst, arg);
}

static void authd_parse(int argc, char **argv, struct authd_opts *o)
{
	static const struct opt_cmd cmd = {"authd", AUTHD_USAGE, authd_usage, NULL};
	const struct opt opts[] = {
	    {OPT_STR('c', &o->config)},
	    {OPT_FLAG('t', &o->check)},
	    {OPT_CALL('l', authd_opt_listen, o, "ADDR[:PORT] or [IPV6]:PORT")},
	    {OPT_CALL('C', authd_opt_control, o, "ADDR[:PORT], [IPV6]:PORT or none")},
	    {OPT_CALL('S', authd_opt_seed, &o->seed, "a non-zero number")},
	    {OPT_CALL('a', authd_opt_allow, &o->allow,
		      "ADDR, ID=ADDR (ID of [A-Za-z0-9._-], at most 32) or none, at most 64 of "
		      "them")},
	    {OPT_CALL('A', authd_opt_changer, &o->allow,
		      "an IPv4 or IPv6 address, at most 8 of them")},
	    {OPT_STR('n', &o->node)},
	    {OPT_STR('e', &o->events)},
	    {OPT_COUNT('v', &o->verbose)},
	    {0},
	};

	memset(o, 0, sizeof(*o));
	o->node = "authd";
	opt_parse(&cmd, opts, argc, argv);
	if (o->config == NULL)
		opt_refuse(&cmd, "-c CONFIG is required");
}

/* authd_evaluate: recomputes every name's handout; answer_changed for each
 * that changed. rtt_only: only latency and proximity names can have
 * changed. */
static void authd_evaluate(struct authd *a, const char *reason, int rtt_only)
{
	for (int i = 0; i < a->db->nnames; i++) {
		const struct authd_name *nm = a->db->names[i];
		uint64_t before[2], after[2];
		json_t *nets;

		if (rtt_only && nm->policy != AUTHD_LATENCY && nm->policy != AUTHD_PROXIMITY)
			continue;
		if (!authd_handout_update(&a->handouts, a->db, &a->health, i, before, after))
			continue;
		log_info("%s: %s", nm->text, reason);
		nets = authd_handout_networks(&a->handouts, a->db, i);
		if (nets)
			event_emit(a->ev, EVENTS_ANSWER_CHANGED, "{s:s, s:o, s:o, s:s, s:s, s:o}",
				   "name", nm->text, "before",
				   authd_handout_addresses(a->db, before), "after",
				   authd_handout_addresses(a->db, after), "reason", reason,
				   "policy", authd_policy_name(nm->policy), "networks", nets);
		else
			event_emit(a->ev, EVENTS_ANSWER_CHANGED, "{s:s, s:o, s:o, s:s, s:s}",
				   "name", nm->text, "before",
				   authd_handout_addresses(a->db, before), "after",
				   authd_handout_addresses(a->db, after), "reason", reason,
				   "policy", authd_policy_name(nm->policy));
	}
}

/* authd_change_reply: the answer to a change, to its sender */
static void authd_change_reply(struct authd *a, const struct sockaddr_storage *to, const char *id,
			       int ok, uint32_t serial, const char *reason)
{
	struct zone_change_reply r = {.ok = ok, .serial = serial};
	char buf[ZONE_CHANGE_LINE_MAX + 2];
	int n;

	snprintf(r.id, sizeof(r.id), "%s", id);
	snprintf(r.reason, sizeof(r.reason), "%s", reason ? reason : "");
	if ((n = zone_change_reply_format(&r, buf, sizeof(buf))) > 0 &&
	    authd_net_control_reply(a->net, to, buf, (size_t)n) == -1)
		log_warn("%s: answer to change %s", __func__, id[0] ? id : "-");
}

/* authd_on_change: one CHANGE line from the control socket */
static void authd_on_change(struct authd *a, const char *line, size_t len,
			    const struct sockaddr_storage *from)
{
	char who[INET6_ADDRSTRLEN + 8], why[ZONE_CHANGE_REASON_LEN + 1],
	    reason[ZONE_CHANGE_LINE_MAX];
	char zone[KNOT_DNAME_TXT_MAXLEN + 1];
	struct authd_change_result r;
	struct zone_change c;

	/* before the change is even read: no answer to the unentitled */
	if (authd_allow_change(&a->o->allow, from, why, sizeof(why)) == -1) {
		a->rejected_changes++;
		ctl_reject_drop(&a->change_rejects, now_mono_ns(),
				authd_allow_addr_str(from, who, sizeof(who)), why);
		return;
	}
	if (zone_change_parse(line, len, &c, why, sizeof(why)) == -1) {
		a->bad_changes++;
		log_warnx("malformed change from %s: %s",
			  authd_allow_addr_str(from, who, sizeof(who)), why);
		authd_change_reply(a, from, c.id, 0, 0, why);
		return;
	}
	if (authd_change_apply(a->db, &c, &r, why, sizeof(why)) == -1) {
		a->failed_changes++;
		log_warnx("change %s refused: %s", c.id, why);
		authd_change_reply(a, from, c.id, 0, 0, why);
		return;
	}
	a->changes++;
	knot_dname_to_str(zone, r.zone->apex, sizeof(zone));
	log_info("change %s: %s %s%s%s, serial %u", c.id, zone_change_op_name(c.op), r.owner,
		 c.op == ZONE_SET_WEIGHT ? " site " : "", c.op == ZONE_SET_WEIGHT ? c.site : "",
		 r.serial);
	event_emit(a->ev, EVENTS_ZONE_CHANGED, "{s:s, s:s, s:s, s:s?, s:s?, s:o, s:o, s:I, s:s}",
		   "zone", zone, "name", r.owner, "what", zone_change_op_name(c.op), "site",
		   c.op == ZONE_SET_WEIGHT ? c.site : NULL, "type", r.type[0] ? r.type : NULL,
		   "before", r.before, "after", r.after, "serial", (json_int_t)r.serial, "id",
		   c.id);
	authd_change_reply(a, from, c.id, 1, r.serial, NULL);
	if (c.op == ZONE_SET_WEIGHT) {
		snprintf(reason, sizeof(reason), "weight of site %s %u (change %s)", c.site,
			 c.value, c.id);
		authd_evaluate(a, reason, 0);
	}
}

/* authd_on_proximity: one PROXIMITY line from an entitled prober */
static void authd_on_proximity(struct authd *a, const struct health_report *r)
{
	struct authd_health_change c;
	char reason[128], q[INET_ADDRSTRLEN];

	if (authd_health_apply_prox(&a->health, r, now_mono_ns(), &c) == -1) {
		if (a->unknown_site++ == 0)
			log_warnx("proximity report on unknown site '%s' from prober %s (or more "
				  "than %d queriers)",
				  r->site, r->prober, AUTHD_PROX_MAX);
		return;
	}
	a->prox_reports++;
	if (!c.rtt_changed || !a->has_proximity)
		return;
	inet_ntop(AF_INET, &r->querier, q, sizeof(q));
	log_debug("rtt from site %s to %s: %u us", r->site, q, r->rtt_us);
	snprintf(reason, sizeof(reason), "rtt from site %s to %s", r->site, q);
	authd_evaluate(a, reason, 1);
}

/* authd_on_expire: proximity measurements too old to stand for anything */
static void authd_on_expire(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct authd *a = arg;
	char reason[128], q[INET_ADDRSTRLEN];
	int querier = 0, site = 0, n;

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	n = authd_health_expire(&a->health, now_mono_ns(), a->db->server.proximity_stale_ns,
				&querier, &site);
	if (n == 0)
		return;
	inet_ntop(AF_INET, a->health.prox[querier].addr, q, sizeof(q));
	snprintf(reason, sizeof(reason), "rtt from site %s to %s stale%s", a->db->sites[site].name,
		 q, n > 1 ? " (and more)" : "");
	authd_evaluate(a, reason, 1);
}

static void authd_on_report(void *arg, const char *line, size_t len,
			    const struct sockaddr_storage *from)
{
	struct authd *a = arg;
	struct health_report r;
	struct authd_health_change c;
	char who[INET6_ADDRSTRLEN + 8], reason[128];

	if (zone_change_is(line, len)) {
		authd_on_change(a, line, len, from);
		return;
	}
	a->reports++;
	if (health_report_parse(line, len, &r) == -1) {
		if (a->bad_reports++ == 0)
			log_warnx("malformed health report from %s: '%.*s' (further ones at debug "
				  "level)",
				  addr_sockaddr_str(from, who, sizeof(who)),
				  (int)(len > 80 ? 80 : len), line);
		else
			log_debug("malformed health report from %s",
				  addr_sockaddr_str(from, who, sizeof(who)));
		return;
	}
	/* before the report can touch the prober table */
	if (authd_allow_check(&a->o->allow, from, r.prober, reason, sizeof(reason)) == -1) {
		a->rejected++;
		ctl_reject_drop(&a->rejects, now_mono_ns(),
				authd_allow_addr_str(from, who, sizeof(who)), reason);
		return;
	}
	if (r.proximity) {
		authd_on_proximity(a, &r);
		return;
	}
	if (authd_health_apply(&a->health, &r, &c) == -1) {
		if (a->unknown_site++ == 0)
			log_warnx("health report on unknown site '%s' from prober %s (or more than "
				  "%d probers)",
				  r.site, r.prober, AUTHD_MAX_PROBERS);
		return;
	}
	if (c.state_changed)
		log_debug("prober %s: site %s %s", r.prober, r.site, r.up ? "up" : "down");
	if (c.health_changed) {
		int healthy = a->health.healthy[c.site];

		log_info("site %s %s (%d of %d probers up)", r.site,
			 healthy ? "healthy" : "unhealthy", a->health.up[c.site],
			 a->health.reports[c.site]);
		event_emit(a->ev, EVENTS_HEALTH_CHANGED, "{s:s, s:b, s:i, s:i, s:s}", "site",
			   r.site, "healthy", healthy, "up_reports", a->health.up[c.site],
			   "reports", a->health.reports[c.site], "prober", r.prober);
		snprintf(reason, sizeof(reason), "site %s %s", r.site,
			 healthy ? "healthy" : "unhealthy");
		authd_evaluate(a, reason, 0);
	} else if (c.rtt_changed && a->has_latency) {
		snprintf(reason, sizeof(reason), "rtt from prober %s to site %s", r.prober, r.site);
		authd_evaluate(a, reason, 1);
	}
}

static json_t *authd_rcodes(const struct authd_stats *s)
{
	static const char *names[] = {"NOERROR",  "FORMERR", "SERVFAIL",
				      "NXDOMAIN", "NOTIMP",  "REFUSED"};
	json_t *o = json_object();

	for (size_t i = 0; i < sizeof(s->rcode) / sizeof(s->rcode[0]); i++) {
		char other[16];

		if (s->rcode[i] == 0)
			continue;
		snprintf(other, sizeof(other), i == 16 ? "BADVERS" : "RCODE%zu", i);
		json_object_set_new(o, i < 6 ? names[i] : other,
				    json_integer((json_int_t)s->rcode[i]));
	}
	return o;
}

static void authd_summary(struct authd *a)
{
	const struct authd_stats *s = &a->rc.stats;
	const struct authd_net_counts *n = authd_net_counts(a->net);

	log_info("queries %llu responses %llu truncated %llu, udp %llu tcp %llu, reports %llu "
		 "(bad %llu, rejected %llu), changes %llu (refused %llu, rejected %llu)",
		 (unsigned long long)s->queries, (unsigned long long)s->responses,
		 (unsigned long long)s->truncated, (unsigned long long)n->udp_queries,
		 (unsigned long long)n->tcp_queries, (unsigned long long)a->reports,
		 (unsigned long long)(a->bad_reports + a->unknown_site),
		 (unsigned long long)a->rejected, (unsigned long long)a->changes,
		 (unsigned long long)(a->bad_changes + a->failed_changes),
		 (unsigned long long)a->rejected_changes);
	event_emit(a->ev, EVENTS_AUTHD_SUMMARY,
		   "{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, "
		   "s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		   "queries", (json_int_t)s->queries, "responses", (json_int_t)s->responses,
		   "dropped", (json_int_t)s->dropped, "truncated", (json_int_t)s->truncated,
		   "referrals", (json_int_t)s->referrals, "nodata", (json_int_t)s->nodata, "ecs",
		   (json_int_t)s->ecs, "rcodes", authd_rcodes(s), "udp_queries",
		   (json_int_t)n->udp_queries, "tcp_queries", (json_int_t)n->tcp_queries,
		   "tcp_connections", (json_int_t)n->tcp_accepted, "tcp_rejected",
		   (json_int_t)n->tcp_rejected, "send_errors", (json_int_t)n->udp_send_errors,
		   "reports", (json_int_t)a->reports, "bad_reports", (json_int_t)a->bad_reports,
		   "proximity_reports", (json_int_t)a->prox_reports, "unknown_site_reports",
		   (json_int_t)a->unknown_site, "rejected_reports", (json_int_t)a->rejected,
		   "changes", (json_int_t)a->changes, "bad_changes", (json_int_t)a->bad_changes,
		   "failed_changes", (json_int_t)a->failed_changes, "rejected_changes",
		   (json_int_t)a->rejected_changes);
}

static void authd_ready(struct authd *a)
{
	const struct authd_server_conf *sv = &a->db->server;
	json_t *listen = json_array();
	char buf[INET6_ADDRSTRLEN + 8];

	for (int i = 0; i < sv->nlisten; i++)
		json_array_append_new(
		    listen, json_string(addr_sockaddr_str(&sv->listen[i], buf, sizeof(buf))));
	if (sv->has_control)
		addr_sockaddr_str(&sv->control, buf, sizeof(buf));
	event_emit(a->ev, EVENTS_AUTHD_READY, "{s:o, s:s?, s:i, s:i, s:i}", "listen", listen,
		   "control", sv->has_control ? buf : NULL, "zones", a->db->nzones, "names",
		   a->db->nnames, "sites", a->db->nsites);
	log_info("serving %d zone(s), %d steered name(s) on %d address(es)%s%s", a->db->nzones,
		 a->db->nnames, sv->nlisten, sv->has_control ? ", health reports on " : "",
		 sv->has_control ? buf : "");
}

/* authd_log_allow: who may report, said once at start */
static void authd_log_allow(const struct authd_allow *al, int has_control)
{
	char buf[INET6_ADDRSTRLEN];

	if (!has_control)
		return;
	if (!al->set)
		log_warnx("no -a: accepting health reports from any sender, under any prober id "
			  "while the table has room (the lab always gives -a)");
	else if (al->n == 0)
		log_info("-a none: accepting health reports from nobody");
	for (int i = 0; i < al->n; i++) {
		const struct authd_sender *s = &al->senders[i];

		inet_ntop(s->family, s->addr, buf, sizeof(buf));
		log_info("accepting health reports from %s as %s", buf,
			 s->id_given ? s->id : "the first prober id it uses");
	}
	for (int i = 0; i < al->nchangers; i++) {
		inet_ntop(al->changers[i].family, al->changers[i].addr, buf, sizeof(buf));
		log_info("accepting zone changes from %s", buf);
	}
}

int main(int argc, char **argv)
{
	struct authd_opts o;
	struct authd a = {.o = &o};
	char err[160];
	int rc = 1;

	authd_parse(argc, argv, &o);
	log_init("authd", o.verbose);
	if ((a.db = authd_conf_load(o.config, stderr)) == NULL)
		return 1;
	if (o.nlisten) {
		memcpy(a.db->server.listen, o.listen, sizeof(o.listen));
		a.db->server.nlisten = o.nlisten;
	}
	if (o.control_set) {
		a.db->server.has_control = !o.control_none;
		a.db->server.control = o.control;
	}
	if (authd_allow_fits(&o.allow, a.db->probers, a.db->nprobers, err, sizeof(err)) == -1) {
		fprintf(stderr, "authd: -a: %s\n", err);
		authd_db_free(a.db);
		return 1;
	}
	if (o.check) {
		printf("configuration OK\n");
		authd_db_free(a.db);
		return 0;
	}
	if (o.seed == 0 && getrandom(&o.seed, sizeof(o.seed), 0) != sizeof(o.seed))
		o.seed = (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < a.db->nnames; i++) {
		a.has_proximity |= a.db->names[i]->policy == AUTHD_PROXIMITY;
		a.has_latency |= a.db->names[i]->policy == AUTHD_LATENCY;
	}
	authd_health_init(&a.health, a.db);
	if (authd_respond_init(&a.rc, a.db, &a.health, o.seed | 1) == -1 ||
	    authd_handouts_init(&a.handouts, a.db) == -1) {
		log_warnx("%s: out of memory", __func__);
		goto out;
	}
	if ((a.ev = event_open(o.events, o.node, "authd")) == NULL)
		goto out;
	if ((a.loop = loop_new()) == NULL) {
		log_warn("%s: loop_new", __func__);
		goto out;
	}
	if (loop_signals(a.loop, &a.sig, loop_stop_on_signal, NULL) == -1) {
		log_warn("%s: signals", __func__);
		goto out;
	}
	ctl_reject_init(&a.rejects, a.loop, a.ev, "health report");
	ctl_reject_init(&a.change_rejects, a.loop, a.ev, "zone change");
	a.net = authd_net_open(a.loop, &a.db->server, &a.rc, authd_on_report, &a);
	if (a.net == NULL)
		goto out;
	authd_log_allow(&o.allow, a.db->server.has_control);
	/* a tenth of proximity_stale late at most, and not busier than 10/s */
	if (a.has_proximity) {
		int64_t every = a.db->server.proximity_stale_ns / 10;

		every = every < 100000000 ? 100000000 : every;
		if (loop_timer_add(a.loop, &a.expire_timer, now_mono_ns() + every, every,
				   authd_on_expire, &a) == -1) {
			log_warn("%s: timerfd", __func__);
			goto out;
		}
	}
	authd_ready(&a);
	authd_evaluate(&a, "start", 0);
	if (loop_run(a.loop) == -1)
		goto out;
	rc = 0;
out:
	if (a.net) {
		ctl_reject_close(&a.rejects);
		ctl_reject_close(&a.change_rejects);
		authd_summary(&a);
		authd_net_close(a.net);
	}
	loop_free(a.loop);
	event_close(a.ev);
	authd_handouts_free(&a.handouts);
	authd_respond_free(&a.rc);
	authd_db_free(a.db);
	return rc;
}
