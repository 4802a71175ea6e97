/*
 * The timeline's actions (lab/run/actions.c) on a fake lab (struct action_ops):
 * which agent each step kills, signals or starts, which nftables script it
 * runs in which node, which link ends it sets down or up, what it says, and
 * the events it writes to lab.events.jsonl: event_applied for every step,
 * site_failed once per site, stamped t0 with killed_ns after it; the steps
 * of one instant applied in the timeline's order. Run from the repository
 * root.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <ctype.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "event.h"
#include "lab/run/run.h"
#include "lab/build/lab.h"
#include "test_rundir.h"
#include "test_topology_util.h"

#define S 1000000000LL

/* two sites on two linked routers, a client, a dns node, a resolver of two
 * caches; each case adds its [event]s */
static const char base[] = "[lab]\n"
			   "name = ta\n"
			   "duration = 10s\n"
			   "[router core]\n"
			   "[router edge]\n"
			   "[link core edge]\n"
			   "[site a]\n"
			   "link = core\n"
			   "[site b]\n"
			   "link = edge\n"
			   "[client c1]\n"
			   "link = core\n"
			   "[dns ns]\n"
			   "link = core\n"
			   "[resolver r]\n"
			   "link = core\n"
			   "count = 2\n"
			   "[zone lab.example]\n"
			   "ttl = 60\n";

/* the fake lab's side: every call logged, one a line; what each returns */
struct fake {
	char log[8192];
	int ended;	  /* watch: this agent has ended (-1: none) */
	int kill_errno;	  /* kill_agent fails with it (0: succeeds) */
	int signal_errno; /* signal_agent fails with it */
	int start_rc;	  /* start_sited and start_node: -1 fails */
	int reconf_rc;
	int nft_rc;
	int link_rc;
	int next_pid;
	int dns_rc;	     /* dns_change: -1 no answer */
	int dns_refuse;	     /* dns_change: authd answers ERR */
	uint32_t dns_serial; /* its answer's serial */
};

static struct fake fk;
static struct topology *topo;
static struct lab lab;
static char *dir;

static void fake_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fake_log(const char *fmt, ...)
{
	size_t n = strlen(fk.log);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(fk.log + n, sizeof(fk.log) - n, fmt, ap);
	va_end(ap);
	n = strlen(fk.log);
	snprintf(fk.log + n, sizeof(fk.log) - n, "\n");
}

static const char *node_name(int n)
{
	return lab.t->nodes[n].name;
}

static void fake_watch(struct lab *l)
{
	fake_log("watch");
	if (fk.ended >= 0)
		l->agents[fk.ended].reaped = 1;
}

static int fake_kill(struct lab *l, int i)
{
	struct lab_agent *a = &l->agents[i];

	fake_log("kill %s %s %d", node_name(a->node), a->name, (int)a->pid);
	if (fk.kill_errno) {
		errno = fk.kill_errno;
		return -1;
	}
	a->expect_kill = 1;
	a->reaped = 1;
	return 0;
}

static int fake_signal(struct lab *l, int i, int sig)
{
	struct lab_agent *a = &l->agents[i];

	fake_log("signal %s %s %d %s", node_name(a->node), a->name, (int)a->pid,
		 sig == SIGUSR1	       ? "USR1"
		 : sig == SIGUSR2      ? "USR2"
		 : sig == SIGRTMIN + 1 ? "RTMIN+1"
		 : sig == SIGRTMIN + 2 ? "RTMIN+2"
				       : "other");
	if (fk.signal_errno) {
		errno = fk.signal_errno;
		return -1;
	}
	return 0;
}

static int add_agent(struct lab *l, int n, const char *name, int pid)
{
	struct lab_agent *a = &l->agents[l->nagents];

	memset(a, 0, sizeof(*a));
	a->pid = pid;
	a->node = n;
	a->pidfd = -1;
	a->child = 1;
	snprintf(a->name, sizeof(a->name), "%s", name);
	return l->nagents++;
}

static int fake_start_sited(struct lab *l, int n)
{
	fake_log("start sited %s", node_name(n));
	if (fk.start_rc == -1)
		return -1;
	return add_agent(l, n, "sited", fk.next_pid++);
}

static int fake_start_node(struct lab *l, int n)
{
	fake_log("start node %s", node_name(n));
	if (fk.start_rc == -1)
		return -1;
	add_agent(l, n, "sited", fk.next_pid++);
	add_agent(l, n, "prober", fk.next_pid++);
	return 0;
}

static int fake_reconfigure(struct lab *l, int n)
{
	(void)l;
	fake_log("reconfigure %s", node_name(n));
	return fk.reconf_rc;
}

static int fake_nft(struct lab *l, int n, const char *script, char *said, size_t len)
{
	(void)l;
	fake_log("nft %s\n%s", node_name(n), script);
	if (fk.nft_rc == -1)
		snprintf(said, len, "nft in the namespace of %s failed (status 1)", node_name(n));
	return fk.nft_rc;
}

static int fake_link_set(struct lab *l, int n, const char *ifname, int up)
{
	(void)l;
	fake_log("link %s %s %s", node_name(n), ifname, up ? "up" : "down");
	return fk.link_rc;
}

static int fake_impair(struct lab *l, const struct topo_event *e, const char *by, char *said,
		       size_t len)
{
	char keys[256];

	fake_log("impair %s by %s: %s", e->name, by,
		 topo_event_impair_text(l->t, e, ", ", keys, sizeof(keys)));
	if (fk.link_rc == -1)
		snprintf(said, len, "linkd of a is not running");
	return fk.link_rc;
}

static int fake_dns_change(struct lab *l, int n, const struct zone_change *c,
			   struct zone_change_reply *r, char *said, size_t len)
{
	char line[ZONE_CHANGE_LINE_MAX + 2];

	(void)l;
	assert_true(zone_change_format(c, line, sizeof(line)) > 0);
	fake_log("dns %s %s", node_name(n), line);
	if (fk.dns_rc == -1) {
		snprintf(said, len, "authd of %s did not answer change %s within 2000 ms",
			 node_name(n), c->id);
		return -1;
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->id, sizeof(r->id), "%s", c->id);
	r->ok = !fk.dns_refuse;
	r->serial = ++fk.dns_serial;
	if (fk.dns_refuse)
		snprintf(r->reason, sizeof(r->reason),
			 "w.lab.example.: policy failover has no "
			 "weights");
	return 0;
}

static const struct action_ops fake_ops = {
    .watch = fake_watch,
    .kill_agent = fake_kill,
    .signal_agent = fake_signal,
    .start_sited = fake_start_sited,
    .start_node = fake_start_node,
    .reconfigure_node = fake_reconfigure,
    .nft = fake_nft,
    .link_set = fake_link_set,
    .impair = fake_impair,
    .dns_change = fake_dns_change,
};

/* --set lines of the next lab_of (setup clears them) */
static char **lab_sets;
static int lab_nsets;

/* lab_of: base with events loaded into topo, and a lab of it whose agents
 * are those up starts: a's sited and prober pids 101 and 102, b's 103 and
 * 104; the routers' routed and collector, authd, resolverd and the client
 * from 301 */
static void lab_of(const char *events)
{
	char path[64], *text;
	int n = asprintf(&text, "%s%s", base, events);

	assert_true(n > 0);
	write_temp(path, text, (size_t)n);
	free(text);
	load_ok(topo, path, lab_sets, lab_nsets);
	unlink(path);

	memset(&lab, 0, sizeof(lab));
	lab.t = topo;
	for (int k = 0; k < TOPO_MAX_NODES; k++)
		lab.nsfd[k] = -1;
	snprintf(lab.rundir, sizeof(lab.rundir), "%s", dir);
	int site_pid = 101, pid = 301;
	for (int i = 0; i < topo->nnodes; i++) {
		switch (topo->nodes[i].kind) {
		case TOPO_SITE:
			add_agent(&lab, i, "sited", site_pid++);
			add_agent(&lab, i, "prober", site_pid++);
			break;
		case TOPO_ROUTER:
			add_agent(&lab, i, "routed", pid++);
			add_agent(&lab, i, "collector", pid++);
			break;
		case TOPO_DNS:
			add_agent(&lab, i, "authd", pid++);
			break;
		case TOPO_RESOLVER:
			add_agent(&lab, i, "resolverd", pid++);
			break;
		default:
			add_agent(&lab, i, "client", pid++);
			break;
		}
	}
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", dir);
	lab.ev = event_open(path, "lab", "steerlab");
	assert_non_null(lab.ev);
}

static int setup(void **state)
{
	(void)state;
	memset(&fk, 0, sizeof(fk));
	lab_sets = NULL;
	lab_nsets = 0;
	fk.ended = -1;
	fk.next_pid = 201;
	topo = new_topology();
	dir = rundir_new("test_lab_actions");
	assert_non_null(dir);
	action_set_ops(&fake_ops);
	action_reset();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	event_close(lab.ev);
	lab.ev = NULL;
	action_set_ops(NULL);
	rundir_free(dir);
	free(topo);
	return 0;
}

/* events: the lines of lab.events.jsonl so far, as one JSON array */
static json_t *events(void)
{
	char path[512], line[8192];
	json_t *all = json_array();
	FILE *fp;

	snprintf(path, sizeof(path), "%s/lab.events.jsonl", dir);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		json_error_t err;
		json_t *o = json_loads(line, 0, &err);

		if (o == NULL)
			fail_msg("%s: %s: %s", path, err.text, line);
		json_array_append_new(all, o);
	}
	fclose(fp);
	return all;
}

/* dump: o as compact JSON (until the next call) */
static const char *dump(json_t *o)
{
	static char buf[1024];
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENCODE_ANY);

	assert_non_null(s);
	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	return buf;
}

static const char *str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		fail_msg("\"%s\" is not a string in %s", key, dump(o));
	return json_string_value(v);
}

static int64_t num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v))
		fail_msg("\"%s\" is not an integer in %s", key, dump(o));
	return json_integer_value(v);
}

/* names: each event's "event" (and, for event_applied, its "name"),
 * comma-separated */
static const char *names(json_t *evs)
{
	static char buf[1024];
	size_t i, n = 0;
	json_t *o;

	buf[0] = '\0';
	json_array_foreach(evs, i, o)
	{
		const char *ev = str(o, "event");

		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "", ev);
		if (strcmp(ev, "event_applied") == 0)
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, " %s", str(o, "name"));
	}
	return buf;
}

/* apply: step i of the plan, applied by the timeline; said into said */
static int apply(int i, char *said, size_t len)
{
	static struct action_step steps[64];
	int n = action_plan(topo, steps, 64);

	assert_true(i < n);
	said[0] = '\0';
	return action_apply(&lab, &steps[i], "timeline", said, len);
}

/* a kill: sited of a killed (after a look at who had ended), site_failed
 * at t0 before the kill with killed_ns after it, the routes of a in
 * every router, then event_applied at the same t0 */
static void test_kill(void **state)
{
	char said[256];
	json_t *evs, *sf, *ea, *routes;

	(void)state;
	lab_of("[event k]\nat = 2s\naction = kill\ntarget = a\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "kill site a (sited pid 101)");
	assert_string_equal(fk.log, "watch\nkill a sited 101\n");
	assert_int_equal(action_sites_failed(), 1);

	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied k");
	sf = json_array_get(evs, 0);
	ea = json_array_get(evs, 1);
	assert_string_equal(str(sf, "site"), "a");
	assert_string_equal(str(sf, "how"), "sigkill");
	assert_int_equal(num(sf, "pid"), 101);
	assert_string_equal(str(sf, "via"), "198.18.0.2");
	assert_string_equal(str(sf, "prefix"), "198.19.0.1/32");
	assert_string_equal(str(sf, "address"), "198.19.1.1");
	assert_string_equal(str(sf, "cause"), "k");
	assert_string_equal(str(sf, "by"), "timeline");
	assert_int_equal(num(sf, "nominal_at_ns"), 2 * S);
	assert_int_equal(num(sf, "jitter_offset_ns"), 0);
	/* t0 before the kill, killed_ns after it; event_applied at t0 too */
	assert_true(num(sf, "killed_ns") >= num(sf, "t"));
	assert_int_equal(num(ea, "t"), num(sf, "t"));
	assert_int_equal(num(ea, "done_ns"), num(sf, "killed_ns"));
	/* a's route as routed installs it: core's via a's link, edge's via
	 * core's end of the router link, one hop away */
	routes = json_object_get(sf, "routes");
	assert_int_equal(json_array_size(routes), 2);
	assert_string_equal(str(json_array_get(routes, 0), "router"), "core");
	assert_string_equal(str(json_array_get(routes, 0), "via"), "198.18.0.2");
	assert_int_equal(num(json_array_get(routes, 0), "metric"),
			 topo->nodes[topo_find(topo, "a")].metric);
	assert_string_equal(str(json_array_get(routes, 1), "router"), "edge");
	assert_string_equal(str(json_array_get(routes, 1), "via"), "198.18.32.1");
	assert_int_equal(num(json_array_get(routes, 1), "metric"),
			 TOPO_HOPS_METRIC + topo->nodes[topo_find(topo, "a")].metric);

	assert_string_equal(str(ea, "action"), "kill");
	assert_string_equal(str(ea, "target"), "a");
	assert_string_equal(str(ea, "kind"), "site");
	assert_string_equal(str(ea, "site"), "a");
	assert_true(json_is_null(json_object_get(ea, "step")));
	assert_int_equal(num(ea, "cycle"), 0);
	assert_string_equal(dump(json_object_get(ea, "vias")), "[\"198.18.0.2\"]");
	assert_string_equal(str(ea, "by"), "timeline");
	assert_int_equal(num(ea, "at_ns"), 2 * S);
	/* not a DNS change */
	assert_true(json_is_null(json_object_get(ea, "change")));
	assert_true(json_is_null(json_object_get(ea, "serial")));
	json_decref(evs);
}

/* a crash kills every agent of the node, and only those */
static void test_crash(void **state)
{
	char said[256];
	json_t *evs;

	(void)state;
	lab_of("[event c]\nat = 2s\naction = crash\ntarget = b\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "crash site b: 2 processes killed");
	assert_string_equal(fk.log, "watch\nkill b sited 103\nkill b prober 104\n");
	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied c");
	assert_string_equal(str(json_array_get(evs, 0), "how"), "crash");
	assert_int_equal(num(json_array_get(evs, 0), "pid"), 103);
	json_decref(evs);
}

/* a freeze: one table dropping everything in and out of the node but
 * loopback's; its recover deletes that table */
static void test_freeze(void **state)
{
	char said[256];
	json_t *evs;

	(void)state;
	lab_of("[event f]\nat = 2s\naction = freeze\ntarget = a\n"
	       "[event back]\nat = 4s\naction = recover\ntarget = a\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "freeze site a");
	assert_string_equal(fk.log,
			    "nft a\n"
			    "table inet steerlab_freeze {\n"
			    "  chain input { type filter hook input priority -300; policy "
			    "drop; iif \"lo\" accept; }\n"
			    "  chain output { type filter hook output priority -300; policy "
			    "drop; oif \"lo\" accept; }\n"
			    "}\n"
			    "\n");
	fk.log[0] = '\0';
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_string_equal(said, "recover site a");
	assert_string_equal(fk.log, "nft a\ndelete table inet steerlab_freeze\n\n");
	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied f,event_applied back");
	assert_string_equal(str(json_array_get(evs, 0), "how"), "freeze");
	assert_int_equal(num(json_array_get(evs, 0), "pid"), 0);
	json_decref(evs);
}

/* impair: the ops' impair with the event's keys; of a site's link, a
 * gray failure (site_failed how impair, once); of two routers', none;
 * refused, nothing written */
static void test_impair(void **state)
{
	char said[256];
	json_t *evs;

	(void)state;
	lab_of("[event slow]\nat = 2s\naction = impair\ntarget = a\ndelay = 40ms\n"
	       "[event wan]\nat = 3s\naction = impair\ntarget = core edge\ncore>edge.loss = 5%\n"
	       "[event slower]\nat = 4s\naction = impair\ntarget = a core\ndelay = 80ms\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "impair link a core: delay = 40ms");
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_string_equal(said, "impair link core edge: core>edge.loss = 5%");
	assert_int_equal(apply(2, said, sizeof(said)), 0);
	assert_string_equal(fk.log, "impair slow by timeline: delay = 40ms\n"
				    "impair wan by timeline: core>edge.loss = 5%\n"
				    "impair slower by timeline: delay = 80ms\n");
	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied slow,event_applied wan,"
					"event_applied slower");
	assert_string_equal(str(json_array_get(evs, 0), "how"), "impair");
	assert_string_equal(str(json_array_get(evs, 0), "cause"), "slow");
	assert_string_equal(str(json_array_get(evs, 1), "action"), "impair");
	assert_string_equal(str(json_array_get(evs, 1), "target"), "a core");
	json_decref(evs);
	fk.link_rc = -1;
	assert_int_equal(apply(0, said, sizeof(said)), -1);
	assert_string_equal(said, "linkd of a is not running");
}

/* dns-down drops DNS to the [dns] node, resolver-down to one cache of a
 * [resolver] node (or all): no site fails, so no site_failed */
static void test_dns_down(void **state)
{
	char said[256];
	json_t *evs;

	(void)state;
	lab_of("[event d]\nat = 1s\naction = dns-down\ntarget = ns\n"
	       "[event r2]\nat = 2s\naction = resolver-down\ntarget = r\ninstance = 2\n"
	       "[event rup]\nat = 2500ms\naction = resolver-up\ntarget = r\n"
	       "[event rall]\nat = 3s\naction = resolver-down\ntarget = r\n"
	       "[event dup]\nat = 4s\naction = dns-up\ntarget = ns\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "dns-down dns ns");
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_string_equal(said, "resolver-down resolver r (cache 2)");
	assert_int_equal(apply(2, said, sizeof(said)), 0);
	assert_string_equal(said, "resolver-up resolver r");
	assert_int_equal(apply(3, said, sizeof(said)), 0);
	assert_string_equal(said, "resolver-down resolver r");
	assert_int_equal(apply(4, said, sizeof(said)), 0);
	assert_string_equal(said, "dns-up dns ns");
	assert_string_equal(fk.log, "nft ns\n"
				    "table inet steerlab_dns_down {\n"
				    "  chain input { type filter hook input priority -300; policy "
				    "accept; udp dport 53 drop; tcp dport 53 drop; }\n"
				    "}\n"
				    "\n"
				    "nft r\n"
				    "table inet steerlab_resolver_down {\n"
				    "  chain input { type filter hook input priority -300; policy "
				    "accept; ip daddr 198.18.128.2 udp dport 53 drop; ip daddr "
				    "198.18.128.2 tcp dport 53 drop; }\n"
				    "}\n"
				    "\n"
				    "nft r\n"
				    "delete table inet steerlab_resolver_down\n"
				    "\n"
				    "nft r\n"
				    "table inet steerlab_resolver_down {\n"
				    "  chain input { type filter hook input priority -300; policy "
				    "accept; udp dport 53 drop; tcp dport 53 drop; }\n"
				    "}\n"
				    "\n"
				    "nft ns\n"
				    "delete table inet steerlab_dns_down\n"
				    "\n");
	assert_int_equal(action_sites_failed(), 0);
	evs = events();
	assert_string_equal(names(evs), "event_applied d,event_applied r2,event_applied rup,"
					"event_applied rall,event_applied dup");
	assert_true(json_is_null(json_object_get(json_array_get(evs, 0), "site")));
	assert_string_equal(str(json_array_get(evs, 0), "kind"), "dns");
	assert_string_equal(str(json_array_get(evs, 1), "kind"), "resolver");
	json_decref(evs);
}

/* drain is SIGUSR1 to the site's sited, its undrain SIGUSR2 */
static void test_drain(void **state)
{
	char said[256];
	json_t *evs;

	(void)state;
	lab_of("[event d]\nat = 2s\naction = drain\ntarget = a\n"
	       "[event u]\nat = 3s\naction = undrain\ntarget = a\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "drain site a (sited pid 101)");
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_string_equal(said, "undrain site a (sited pid 101)");
	assert_string_equal(fk.log, "signal a sited 101 USR1\nsignal a sited 101 USR2\n");
	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied d,event_applied u");
	assert_string_equal(str(json_array_get(evs, 0), "how"), "drain");
	json_decref(evs);
}

/* degrade is SIGRTMIN+1 to the site's sited (lib/sited_signals.h), a
 * site failed by "degrade"; undegrade SIGRTMIN+2, and a recover of a
 * degrade the same */
static void test_degrade(void **state)
{
	char said[256];
	json_t *evs;

	(void)state;
	lab_of("[event d]\nat = 2s\naction = degrade\ntarget = a\n"
	       "[event u]\nat = 3s\naction = undegrade\ntarget = a\n"
	       "[event d2]\nat = 4s\naction = degrade\ntarget = a\n"
	       "[event rc]\nat = 5s\naction = recover\ntarget = a\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "degrade site a (sited pid 101)");
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_string_equal(said, "undegrade site a (sited pid 101)");
	assert_int_equal(apply(2, said, sizeof(said)), 0);
	assert_int_equal(apply(3, said, sizeof(said)), 0);
	assert_string_equal(fk.log, "signal a sited 101 RTMIN+1\nsignal a sited 101 RTMIN+2\n"
				    "signal a sited 101 RTMIN+1\nsignal a sited 101 RTMIN+2\n");
	evs = events();
	assert_string_equal(str(json_array_get(evs, 0), "event"), "site_failed");
	assert_string_equal(str(json_array_get(evs, 0), "how"), "degrade");
	json_decref(evs);
}

/* link-down clears IFF_UP on both ends; link-up sets it and gives both
 * nodes their routes back */
static void test_link(void **state)
{
	char said[256];
	json_t *evs;
	int a;

	(void)state;
	lab_of("[event cut]\nat = 2s\naction = link-down\ntarget = a\n"
	       "[event mend]\nat = 3s\naction = link-up\ntarget = core a\n"
	       "[event rcut]\nat = 4s\naction = link-down\ntarget = core edge\n");
	a = topo_find(topo, "a");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "link-down link a core");
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_int_equal(apply(2, said, sizeof(said)), 0);
	char want[512];
	snprintf(want, sizeof(want),
		 "link a %s down\nlink core %s down\n"
		 "link a %s up\nlink core %s up\nreconfigure a\nreconfigure core\n"
		 "link core %s down\nlink edge %s down\n",
		 topo->links[topo->nodes[a].link].node_ifname,
		 topo->links[topo->nodes[a].link].router_ifname,
		 topo->links[topo->nodes[a].link].node_ifname,
		 topo->links[topo->nodes[a].link].router_ifname, topo->rlinks[0].a_ifname,
		 topo->rlinks[0].b_ifname);
	assert_string_equal(fk.log, want);
	evs = events();
	/* a router link takes no site out */
	assert_string_equal(names(evs),
			    "site_failed,event_applied cut,event_applied mend,event_applied rcut");
	assert_string_equal(str(json_array_get(evs, 0), "how"), "link-down");
	assert_string_equal(str(json_array_get(evs, 1), "kind"), "link");
	assert_string_equal(str(json_array_get(evs, 1), "site"), "a");
	assert_string_equal(dump(json_object_get(json_array_get(evs, 3), "vias")),
			    "[\"198.18.32.1\",\"198.18.32.2\"]");
	json_decref(evs);
}

/* a link-down of family = 6 (a dual lab): the links stay up, an nftables
 * table of the interface's own in each end drops IPv6 through it (the
 * prerouting and postrouting hooks: forwarded packets too); its link-up
 * deletes both; site_failed says family 6 */
static void test_link_family(void **state)
{
	static char *dual[] = {"ip=dual"};
	char said[256], want[2048];
	const char *ni, *ri;
	json_t *evs;

	(void)state;
	lab_sets = dual;
	lab_nsets = 1;
	lab_of("[event cut6]\nat = 2s\naction = link-down\ntarget = a\nfamily = 6\n"
	       "[event mend]\nat = 3s\naction = link-up\ntarget = core a\n");
	ni = topo->links[topo->nodes[topo_find(topo, "a")].link].node_ifname;
	ri = topo->links[topo->nodes[topo_find(topo, "a")].link].router_ifname;
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "link-down link a core, IPv6 only");
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	snprintf(want, sizeof(want),
		 "nft a\ntable inet steerlab_link_%s {\n"
		 "  chain pre { type filter hook prerouting priority -300; policy accept; "
		 "iifname \"%s\" meta nfproto ipv6 drop; }\n"
		 "  chain post { type filter hook postrouting priority -300; policy accept; "
		 "oifname \"%s\" meta nfproto ipv6 drop; }\n}\n\n"
		 "nft core\ntable inet steerlab_link_%s {\n"
		 "  chain pre { type filter hook prerouting priority -300; policy accept; "
		 "iifname \"%s\" meta nfproto ipv6 drop; }\n"
		 "  chain post { type filter hook postrouting priority -300; policy accept; "
		 "oifname \"%s\" meta nfproto ipv6 drop; }\n}\n\n"
		 "nft a\ndelete table inet steerlab_link_%s\n\n"
		 "nft core\ndelete table inet steerlab_link_%s\n\n",
		 ni, ni, ni, ri, ri, ri, ni, ri);
	/* interface names of letters and digits: the table's name as is */
	for (const char *c = ni; *c; c++)
		assert_true(isalnum((unsigned char)*c));
	for (const char *c = ri; *c; c++)
		assert_true(isalnum((unsigned char)*c));
	assert_string_equal(fk.log, want);
	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied cut6,event_applied mend");
	assert_string_equal(str(json_array_get(evs, 0), "how"), "link-down");
	assert_int_equal(num(json_array_get(evs, 0), "family"), 6);
	json_decref(evs);
}

/* recover after a kill starts sited again (a new pid); after a crash,
 * every agent of the node; a site fails once: a second kill after the
 * recover writes no second site_failed, until action_reset */
static void test_recover(void **state)
{
	char said[256];
	json_t *evs;

	(void)state;
	lab_of("[event k]\nat = 1s\naction = kill\ntarget = a\n"
	       "[event back]\nat = 2s\naction = recover\ntarget = a\n"
	       "[event k2]\nat = 3s\naction = kill\ntarget = a\n"
	       "[event c]\nat = 4s\naction = crash\ntarget = b\n"
	       "[event cb]\nat = 5s\naction = recover\ntarget = b\n");
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_string_equal(said, "recover site a (sited pid 201)");
	assert_int_equal(apply(2, said, sizeof(said)), 0);
	assert_string_equal(said, "kill site a (sited pid 201)");
	assert_int_equal(apply(3, said, sizeof(said)), 0);
	assert_int_equal(apply(4, said, sizeof(said)), 0);
	assert_string_equal(said, "recover site b");
	assert_string_equal(fk.log, "watch\nkill a sited 101\nstart sited a\n"
				    "watch\nkill a sited 201\n"
				    "watch\nkill b sited 103\nkill b prober 104\nstart node b\n");
	assert_int_equal(action_sites_failed(), 2);
	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied k,event_applied back,"
					"event_applied k2,site_failed,event_applied c,"
					"event_applied cb");
	json_decref(evs);

	/* a new run: a's failure is written again */
	action_reset();
	assert_int_equal(action_sites_failed(), 0);
	assert_int_equal(apply(2, said, sizeof(said)), -1); /* 201 was killed */
	assert_string_equal(said, "sited of a is not running: nothing to kill");
}

/* a flap of a site: count kills and recovers, half a period apart; one
 * site_failed, at the first down; each step's cycle and way */
static void test_flap(void **state)
{
	struct action_step steps[8];
	char said[256], buf[96];
	json_t *evs;
	int n;

	(void)state;
	lab_of("[event fl]\nat = 1s\naction = flap\ntarget = a\ncount = 2\nperiod = 2s\n");
	n = action_plan(topo, steps, 8);
	assert_int_equal(n, 4);
	assert_string_equal(action_describe(topo, &steps[0], buf, sizeof(buf)),
			    "flap site a: down (cycle 1 of 2)");
	assert_string_equal(action_describe(topo, &steps[3], buf, sizeof(buf)),
			    "flap site a: back up (cycle 2 of 2)");
	for (int i = 0; i < n; i++)
		assert_int_equal(action_apply(&lab, &steps[i], "timeline", said, sizeof(said)), 0);
	assert_string_equal(said, "flap site a: back up (cycle 2 of 2) (sited pid 202)");
	assert_string_equal(fk.log, "watch\nkill a sited 101\nstart sited a\n"
				    "watch\nkill a sited 201\nstart sited a\n");
	evs = events();
	assert_string_equal(names(evs), "site_failed,event_applied fl,event_applied fl,"
					"event_applied fl,event_applied fl");
	const char *way[] = {"down", "up", "down", "up"};
	const int64_t at[] = {1 * S, 2 * S, 3 * S, 4 * S};
	for (int i = 0; i < 4; i++) {
		json_t *ea = json_array_get(evs, (size_t)i + 1);

		assert_string_equal(str(ea, "step"), way[i]);
		assert_int_equal(num(ea, "cycle"), i / 2 + 1);
		assert_int_equal(num(ea, "at_ns"), at[i]);
		assert_string_equal(str(ea, "action"), "flap");
	}
	json_decref(evs);
}

/* the steps of one instant: in the timeline's order (file order among
 * equals), each applied in turn, and so written */
static void test_one_instant(void **state)
{
	struct action_step steps[8];
	char said[256];
	json_t *evs;
	int n;

	(void)state;
	lab_of("[event x]\nat = 2s\naction = drain\ntarget = a\n"
	       "[event y]\nat = 2s\naction = crash\ntarget = b\n"
	       "[event early]\nat = 1s\naction = dns-down\ntarget = ns\n"
	       "[event z]\nat = 2s\naction = resolver-down\ntarget = r\n");
	n = action_plan(topo, steps, 8);
	assert_int_equal(n, 4);
	for (int i = 0; i < n; i++)
		assert_int_equal(action_apply(&lab, &steps[i], "timeline", said, sizeof(said)), 0);
	assert_int_equal(action_sites_failed(), 2);
	evs = events();
	assert_string_equal(names(evs), "event_applied early,site_failed,event_applied x,"
					"site_failed,event_applied y,event_applied z");
	assert_string_equal(str(json_array_get(evs, 1), "site"), "a");
	assert_string_equal(str(json_array_get(evs, 3), "site"), "b");
	assert_string_equal(fk.log, "nft ns\n"
				    "table inet steerlab_dns_down {\n"
				    "  chain input { type filter hook input priority -300; policy "
				    "accept; udp dport 53 drop; tcp dport 53 drop; }\n"
				    "}\n"
				    "\n"
				    "signal a sited 101 USR1\n"
				    "watch\nkill b sited 103\nkill b prober 104\n"
				    "nft r\n"
				    "table inet steerlab_resolver_down {\n"
				    "  chain input { type filter hook input priority -300; policy "
				    "accept; udp dport 53 drop; tcp dport 53 drop; }\n"
				    "}\n"
				    "\n");
	/* each event_applied has its step's instant from the traffic's start */
	assert_int_equal(num(json_array_get(evs, 0), "at_ns"), 1 * S);
	assert_int_equal(num(json_array_get(evs, 2), "at_ns"), 2 * S);
	assert_int_equal(num(json_array_get(evs, 4), "at_ns"), 2 * S);
	assert_int_equal(num(json_array_get(evs, 5), "at_ns"), 2 * S);
	json_decref(evs);
}

/* the instant of t0: the first step that takes the failing site out,
 * not a dns-down before it; fail_at when nothing does */
static void test_fail_at(void **state)
{
	struct action_step steps[8];
	int64_t nominal = -1;
	int n;

	(void)state;
	lab_of("[event d]\nat = 1s\naction = dns-down\ntarget = ns\n"
	       "[event l]\nat = 2500ms\naction = link-down\ntarget = b\n");
	n = action_plan(topo, steps, 8);
	assert_int_equal(action_fail_at(topo, steps, n, &nominal), 2500 * 1000000LL);
	assert_int_equal(nominal, 2500 * 1000000LL);

	/* no site fails: fail_at as configured */
	event_close(lab.ev);
	lab_of("[event d]\nat = 1s\naction = dns-down\ntarget = ns\n");
	n = action_plan(topo, steps, 8);
	assert_int_equal(action_fail_at(topo, steps, n, &nominal), topo->fail_at_ns);
	assert_int_equal(nominal, topo->fail_at_ns);
}

/* by hand (steerlab fail): site_failed says so, without the timeline's
 * instants */
static void test_by_hand(void **state)
{
	struct action_step step = {0};
	char said[256];
	json_t *evs, *sf;

	(void)state;
	lab_of("[event k]\nat = 2s\naction = kill\ntarget = a\n");
	assert_int_equal(action_apply(&lab, &step, "hand", said, sizeof(said)), 0);
	evs = events();
	sf = json_array_get(evs, 0);
	assert_string_equal(str(sf, "event"), "site_failed");
	assert_string_equal(str(sf, "by"), "hand");
	assert_null(json_object_get(sf, "nominal_at_ns"));
	assert_null(json_object_get(sf, "jitter_offset_ns"));
	assert_string_equal(str(json_array_get(evs, 1), "by"), "hand");
	json_decref(evs);
}

/* what a step cannot do, it says, and writes no event */
static void test_refusals(void **state)
{
	static const struct {
		const char *events;
		int *knob, value; /* knob NULL: every agent of a has ended */
		const char *said;
	} cases[] = {
	    {"[event k]\nat = 1s\naction = kill\ntarget = a\n", &fk.kill_errno, EPERM,
	     "kill sited of a (pid 101): Operation not permitted"},
	    {"[event k]\nat = 1s\naction = kill\ntarget = a\n", &fk.kill_errno, ESRCH,
	     "sited of a is not running: nothing to kill"},
	    {"[event c]\nat = 1s\naction = crash\ntarget = a\n", NULL, 0,
	     "no agent of a is running: nothing to kill"},
	    {"[event d]\nat = 1s\naction = drain\ntarget = a\n", &fk.signal_errno, ESRCH,
	     "sited of a is not running: it cannot be drained"},
	    {"[event f]\nat = 1s\naction = freeze\ntarget = a\n", &fk.nft_rc, -1,
	     "nft in the namespace of a failed (status 1)"},
	    {"[event l]\nat = 1s\naction = link-down\ntarget = a\n", &fk.link_rc, -1,
	     "link eth0 of a down: failed (above)"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char said[256];

		memset(&fk, 0, sizeof(fk));
		fk.ended = -1;
		lab_of(cases[i].events);
		if (cases[i].knob)
			*cases[i].knob = cases[i].value;
		for (int k = 0; cases[i].knob == NULL && k < lab.nagents; k++)
			lab.agents[k].reaped |= strcmp(node_name(lab.agents[k].node), "a") == 0;
		action_reset();
		assert_int_equal(apply(0, said, sizeof(said)), -1);
		assert_string_equal(said, cases[i].said);
		json_t *evs = events();
		assert_int_equal(json_array_size(evs), 0);
		json_decref(evs);
		assert_int_equal(action_sites_failed(), 0);
		event_close(lab.ev);
		lab.ev = NULL;
	}
}

/* the way back can fail too: sited or the node not started, routes not
 * given back */
static void test_undo_refusals(void **state)
{
	char said[256];

	(void)state;
	lab_of("[event k]\nat = 1s\naction = kill\ntarget = a\n"
	       "[event back]\nat = 2s\naction = recover\ntarget = a\n"
	       "[event c]\nat = 3s\naction = crash\ntarget = b\n"
	       "[event cb]\nat = 4s\naction = recover\ntarget = b\n"
	       "[event cut]\nat = 5s\naction = link-down\ntarget = c1\n"
	       "[event mend]\nat = 6s\naction = link-up\ntarget = c1\n");
	for (int i = 0; i < 6; i += 2)
		assert_int_equal(apply(i, said, sizeof(said)), 0);
	fk.start_rc = -1;
	fk.reconf_rc = -1;
	assert_int_equal(apply(1, said, sizeof(said)), -1);
	assert_string_equal(said, "sited of a could not be started (above)");
	assert_int_equal(apply(3, said, sizeof(said)), -1);
	assert_string_equal(said, "the agents of b could not be started (above)");
	assert_int_equal(apply(5, said, sizeof(said)), -1);
	assert_string_equal(said, "routes of c1 after its link came up: failed (above)");
}

/* a DNS change: one CHANGE line to the [dns] node of its name's zone,
 * event_applied with what changed and the serial authd answered; no site
 * fails; authd's refusal, or its silence, fails the step with the reason */
static void test_dns_change(void **state)
{
	char said[256];
	json_t *evs, *ea;

	(void)state;
	lab_of("[name w.lab.example]\npolicy = weighted\nweight = a 1\nweight = b 1\n"
	       "[event low]\nat = 1s\naction = set-ttl\nname = w.lab.example\nttl = 1s\n"
	       "[event drain]\nat = 2s\naction = set-weight\nname = w.lab.example\n"
	       "site = a\nweight = 0\n");
	fk.dns_serial = 41;
	assert_int_equal(apply(0, said, sizeof(said)), 0);
	assert_string_equal(said, "set-ttl dns ns: w.lab.example ttl 1s (serial 42)");
	assert_int_equal(apply(1, said, sizeof(said)), 0);
	assert_string_equal(said, "set-weight dns ns: w.lab.example a weight 0 (serial 43)");
	assert_string_equal(fk.log, "dns ns CHANGE low set-ttl w.lab.example 1\n\n"
				    "dns ns CHANGE drain set-weight w.lab.example a 0\n\n");
	assert_int_equal(action_sites_failed(), 0);
	evs = events();
	assert_string_equal(names(evs), "event_applied low,event_applied drain");
	ea = json_array_get(evs, 1);
	assert_string_equal(str(ea, "action"), "set-weight");
	assert_string_equal(str(ea, "target"), "ns");
	assert_string_equal(str(ea, "kind"), "dns");
	assert_true(json_is_null(json_object_get(ea, "site")));
	assert_string_equal(str(ea, "change"), "w.lab.example a weight 0");
	assert_int_equal(num(ea, "serial"), 43);
	json_decref(evs);

	fk.dns_refuse = 1;
	assert_int_equal(apply(1, said, sizeof(said)), -1);
	assert_string_equal(said, "authd of ns refused set-weight w.lab.example: w.lab.example.: "
				  "policy failover has no weights");
	fk.dns_rc = -1;
	assert_int_equal(apply(0, said, sizeof(said)), -1);
	assert_string_equal(said, "authd of ns did not answer change low within 2000 ms");
	/* no event for a step not applied */
	evs = events();
	assert_int_equal(json_array_size(evs), 2);
	json_decref(evs);
}

/* the lab's own table: a namespace that cannot be entered is said, and
 * nothing is run */
static void test_lab_ops_no_namespace(void **state)
{
	char said[256];

	(void)state;
	lab_of("[event f]\nat = 1s\naction = freeze\ntarget = a\n");
	action_set_ops(NULL);
	assert_int_equal(apply(0, said, sizeof(said)), -1);
	assert_string_equal(said, "entering the namespace of a: Bad file descriptor");
}

/* the lab's DNS change: no namespace, no datagram */
static void test_lab_ops_dns_no_namespace(void **state)
{
	char said[256];

	(void)state;
	lab_of("[name w.lab.example]\npolicy = weighted\nweight = a 1\nweight = b 1\n"
	       "[event low]\nat = 1s\naction = set-ttl\nname = w.lab.example\nttl = 1s\n");
	action_set_ops(NULL);
	assert_int_equal(apply(0, said, sizeof(said)), -1);
	assert_string_equal(said, "entering the namespace of ns: Bad file descriptor");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_kill, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_crash, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_freeze, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_impair, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_down, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_drain, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_degrade, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_family, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_flap, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_instant, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fail_at, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_by_hand, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_undo_refusals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lab_ops_no_namespace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lab_ops_dns_no_namespace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_dns_change, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
