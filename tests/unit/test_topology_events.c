/*
 * The timeline of a topology (lab/topology/topology_events.c): [event] sections,
 * their targets (a node, a link by its two ends in either order, a node's
 * one link), the order and what each recover undoes, fail = yes desugared
 * into a kill, --set EVENT.KEY, every error with its line, the printed form
 * read back, and the schedule of steps the run follows (lab/run/actions.c).
 * Run from the repository root.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/run/run.h"
#include "lab/topology/topology.h"
#include "lab/topology/topology.h"
#include "test_topology_util.h"
#include "zone_change.h"

#define S 1000000000LL

/* the lab every case adds its events to: two sites, a dns node, a
 * resolver of two caches, two routers linked */
static const char base[] = "[lab]\n"		  /* 1 */
			   "name = tl\n"	  /* 2 */
			   "duration = 10s\n"	  /* 3 */
			   "[router core]\n"	  /* 4 */
			   "[router edge]\n"	  /* 5 */
			   "[link core edge]\n"	  /* 6 */
			   "[site a]\n"		  /* 7 */
			   "link = core\n"	  /* 8 */
			   "[site b]\n"		  /* 9 */
			   "link = edge\n"	  /* 10 */
			   "[client c1]\n"	  /* 11 */
			   "link = core\n"	  /* 12 */
			   "[dns ns]\n"		  /* 13 */
			   "link = core\n"	  /* 14 */
			   "[resolver r]\n"	  /* 15 */
			   "link = core\n"	  /* 16 */
			   "count = 2\n"	  /* 17 */
			   "[zone lab.example]\n" /* 18: not checked by topo_load */
			   "ttl = 60\n";	  /* 19; events from line 20 */

/* with_events: base and events into a temporary file; path[64] */
static void with_events(char *path, const char *events)
{
	char *text;
	int n = asprintf(&text, "%s%s", base, events);

	assert_true(n > 0);
	write_temp(path, text, (size_t)n);
	free(text);
}

static int event_index(const struct topology *t, const char *name)
{
	for (int i = 0; i < t->nevents; i++)
		if (strcmp(t->events[i].name, name) == 0)
			return i;
	fail_msg("no event '%s'", name);
	return -1;
}

/* errors_of: loading events (with sets) fails; its messages, with the
 * temporary path replaced by F */
static char *errors_of(const char *events, char *const sets[], int nsets)
{
	struct topology *t = new_topology();
	char path[64], *errs, *out, *p, *o;
	size_t plen;

	with_events(path, events);
	assert_int_equal(load(t, path, sets, nsets, &errs), -1);
	plen = strlen(path);
	out = calloc(1, strlen(errs) + 1);
	assert_non_null(out);
	for (p = errs, o = out; *p;) {
		if (strncmp(p, path, plen) == 0) {
			*o++ = 'F';
			p += plen;
		} else {
			*o++ = *p++;
		}
	}
	unlink(path);
	free(errs);
	free(t);
	return out;
}

static void expect_event_errors(const char *events, char *const sets[], int nsets,
				const char *expected)
{
	char *got = errors_of(events, sets, nsets);

	assert_string_equal(got, expected);
	free(got);
}

/* a timeline in file order out of time order: sorted by at, targets
 * resolved (links in either order, a node's one link), what each recover
 * and *-up undoes */
static void test_timeline_order(void **state)
{
	struct topology *t = new_topology();
	char path[64];
	const struct topo_event *e;

	(void)state;
	with_events(path, "[event back]\n"
			  "at = 6s\n"
			  "action = recover\n"
			  "target = a\n"
			  "[event e1]\n"
			  "at = 3s\n"
			  "action = crash\n"
			  "target = a\n"
			  "[event cut]\n"
			  "at = 1500ms\n"
			  "action = link-down\n"
			  "target = edge core\n"
			  "[event up]\n"
			  "at = 2s\n"
			  "action = link-up\n"
			  "target = core edge\n"
			  "[event bl]\n"
			  "at = 4s\n"
			  "action = link-down\n"
			  "target = b\n"
			  "[event r1]\n"
			  "at = 4s\n"
			  "action = resolver-down\n"
			  "target = r\n"
			  "instance = 2\n"
			  "[event f]\n"
			  "at = 7s\n"
			  "action = flap\n"
			  "target = c1 core\n"
			  "count = 2\n"
			  "period = 1s\n");
	load_ok(t, path, NULL, 0);
	unlink(path);
	assert_int_equal(t->nevents, 7);
	/* by at; bl before r1 at 4s: file order */
	const char *order[] = {"cut", "up", "e1", "bl", "r1", "back", "f"};
	for (int i = 0; i < 7; i++)
		assert_string_equal(t->events[i].name, order[i]);
	e = &t->events[event_index(t, "cut")];
	assert_int_equal(e->at_ns, 1500000000LL);
	assert_int_equal(e->action, TOPO_A_LINK_DOWN);
	assert_int_equal(e->node, -1);
	assert_int_equal(e->link, -1);
	assert_int_equal(e->rlink, 0);
	e = &t->events[event_index(t, "up")];
	assert_int_equal(e->rlink, 0); /* the same link, written the other way */
	assert_int_equal(e->undoes, event_index(t, "cut"));
	e = &t->events[event_index(t, "bl")];
	assert_int_equal(e->link, node(t, "b")->link); /* a node's one link */
	e = &t->events[event_index(t, "r1")];
	assert_int_equal(e->node, node_index(t, "r"));
	assert_int_equal(e->instance, 2);
	e = &t->events[event_index(t, "back")];
	assert_int_equal(e->undoes, event_index(t, "e1"));
	assert_int_equal(e->node, node_index(t, "a"));
	e = &t->events[event_index(t, "f")];
	assert_int_equal(e->link, node(t, "c1")->link);
	assert_int_equal(e->count, 2);
	assert_int_equal(e->period_ns, S);
	/* the first failure of a site: a at 3 s (cut is between routers) */
	int64_t at = 0;
	assert_int_equal(topo_first_failure(t, &at), node_index(t, "a"));
	assert_int_equal(at, 3 * S);
	free(t);
}

/* the steps the run follows: a flap is count downs and ups, up at half a
 * period; steps in time order, file order among equals */
static void test_plan(void **state)
{
	struct topology *t = new_topology();
	struct action_step steps[16];
	char path[64];
	int n;

	(void)state;
	with_events(path, "[event f]\n"
			  "at = 1s\n"
			  "action = flap\n"
			  "target = a\n"
			  "count = 3\n"
			  "period = 2s\n"
			  "[event k]\n"
			  "at = 2s\n"
			  "action = kill\n"
			  "target = b\n");
	load_ok(t, path, NULL, 0);
	unlink(path);
	n = action_plan(t, steps, 16);
	assert_int_equal(n, 7);
	const int64_t at[] = {1 * S, 2 * S, 2 * S, 3 * S, 4 * S, 5 * S, 6 * S};
	const int up[] = {0, 1, 0, 0, 1, 0, 1};
	for (int i = 0; i < n; i++) {
		assert_int_equal(steps[i].at_ns, at[i]);
		assert_int_equal(steps[i].up, up[i]);
	}
	/* at 2 s: the flap's first up (file order: f before k), then k */
	assert_string_equal(t->events[steps[1].event].name, "f");
	assert_string_equal(t->events[steps[2].event].name, "k");
	assert_int_equal(steps[4].cycle, 2);
	free(t);
}

/* with fail_jitter, each event moves by its own draw in [0, jitter), and
 * never before the previous event on its target: a recover stays after
 * the crash it undoes, whatever the draws */
static void test_plan_jitter(void **state)
{
	struct topology *t = new_topology();
	struct action_step steps[8];
	char path[64];
	int n, seen_before = 0;

	(void)state;
	for (int64_t seed = 0; seed < 64; seed++) {
		char *sets[2], s1[32], s2[32];

		snprintf(s1, sizeof(s1), "seed=%lld", (long long)seed);
		snprintf(s2, sizeof(s2), "fail_jitter=900ms");
		sets[0] = s1;
		sets[1] = s2;
		with_events(path, "[event e1]\nat = 3s\naction = crash\ntarget = a\n"
				  "[event e2]\nat = 3100ms\naction = recover\ntarget = a\n"
				  "[event k]\nat = 3s\naction = kill\ntarget = b\n");
		load_ok(t, path, sets, 2);
		unlink(path);
		n = action_plan(t, steps, 8);
		assert_int_equal(n, 3);
		int64_t crash = -1, recover = -1;
		for (int i = 0; i < n; i++) {
			const struct action_step *s = &steps[i];

			assert_true(s->at_ns >= s->nominal_ns);
			if (i > 0)
				assert_true(s->at_ns >= steps[i - 1].at_ns);
			if (strcmp(t->events[s->event].name, "e1") == 0)
				crash = s->at_ns;
			if (strcmp(t->events[s->event].name, "e2") == 0)
				recover = s->at_ns;
			if (strcmp(t->events[s->event].name, "k") == 0)
				assert_true(s->at_ns < s->nominal_ns + 900 * 1000000LL);
		}
		assert_true(crash >= 3 * S && crash < 3 * S + 900 * 1000000LL);
		assert_true(recover > crash);
		/* the draw alone (e2 is event 2: e1, k, e2) would have put the recover
		 * first, for some seed */
		seen_before |=
		    3100 * 1000000LL + jitter_offset_ns(900 * 1000000LL, (uint32_t)seed, 2) <=
		    crash;
	}
	assert_true(seen_before);
	free(t);
}

/* fail = yes and fail_at: one kill called fail, printed back as fail = yes */
static void test_shorthand(void **state)
{
	struct topology *t = new_topology(), *t2 = new_topology();
	char path[64], path2[64], *printed, *printed2;

	(void)state;
	write_temp(path,
		   "[lab]\nname = sh\nfail_at = 2s\n[router core]\n[site a]\nlink = core\nfail = "
		   "yes\n[site b]\nlink = core\n[client c1]\nlink = core\n",
		   strlen("[lab]\nname = sh\nfail_at = 2s\n[router core]\n[site a]\nlink = "
			  "core\nfail = yes\n[site b]\nlink = core\n[client c1]\nlink = core\n"));
	load_ok(t, path, NULL, 0);
	assert_int_equal(t->nevents, 1);
	assert_string_equal(t->events[0].name, "fail");
	assert_int_equal(t->events[0].action, TOPO_A_KILL);
	assert_int_equal(t->events[0].node, node_index(t, "a"));
	assert_int_equal(t->events[0].at_ns, 2 * S);
	assert_int_equal(t->events[0].line, 7);
	printed = print_to_string(t);
	assert_null(strstr(printed, "[event"));
	assert_non_null(strstr(printed, "fail = yes"));
	write_temp(path2, printed, strlen(printed));
	load_ok(t2, path2, NULL, 0);
	printed2 = print_to_string(t2);
	assert_string_equal(printed, printed2);
	assert_int_equal(t2->nevents, 1);
	unlink(path);
	unlink(path2);
	free(printed);
	free(printed2);
	free(t);
	free(t2);
}

/* --set EVENT.KEY: a sweep over the action; a link action on a site's
 * target means its link */
static void test_set(void **state)
{
	struct topology *t = new_topology();
	char path[64];
	char *sets[] = {"e1.action=link-down", "e1.at=2500ms"};

	(void)state;
	with_events(path, "[event e1]\nat = 3s\naction = kill\ntarget = a\n");
	load_ok(t, path, sets, 2);
	assert_int_equal(t->events[0].action, TOPO_A_LINK_DOWN);
	assert_int_equal(t->events[0].link, node(t, "a")->link);
	assert_int_equal(t->events[0].at_ns, 2500000000LL);
	unlink(path);
	free(t);
}

/* impair: its keys as [link] writes them, both directions or A>B.KEY for
 * one, after the plain ones whatever the order; a site's name means its
 * link; printed back as written; a --set replaces a key; an impair of a
 * site's link is the run's failure (a gray one) */
static void test_impair(void **state)
{
	struct topology *t = new_topology(), *t2 = new_topology();
	char path[64], path2[64], *p1, *p2, keys[256];
	char *sets[] = {"slow.loss=30% 25%"};
	const struct topo_event *e;
	int64_t at;

	(void)state;
	with_events(path, "[event slow]\nat = 2s\naction = impair\ntarget = a\n"
			  "core>a.delay = 80ms\ndelay = 40ms\nloss = 1%\n"
			  "[event wan]\nat = 3s\naction = impair\ntarget = edge core\n"
			  "rate = 10mbit\njitter = 2ms normal\n");
	load_ok(t, path, sets, 1);
	e = &t->events[event_index(t, "slow")];
	assert_int_equal(e->action, TOPO_A_IMPAIR);
	assert_int_equal(e->link, node(t, "a")->link);
	assert_int_equal(e->node, -1);
	/* [0] leaves a, [1] leaves core: the direction's own key wins */
	assert_int_equal(e->im[0].delay_ns, 40000000);
	assert_int_equal(e->im[1].delay_ns, 80000000);
	assert_true(e->im[0].loss_pct == 30 && e->im[0].loss_corr_pct == 25);
	assert_int_equal(e->imset[0], 1u << 0 | 1u << 2);
	assert_int_equal(e->imset[1], 1u << 0 | 1u << 2);
	assert_string_equal(topo_event_impair_text(t, e, ", ", keys, sizeof(keys)),
			    "a>core.delay = 40ms, core>a.delay = 80ms, loss = 30% 25%");
	e = &t->events[event_index(t, "wan")];
	assert_int_equal(e->rlink, 0);
	assert_int_equal(e->im[1].rate_bps, 10000000);
	assert_int_equal(e->im[0].dist, IMPAIR_DIST_NORMAL);
	assert_int_equal(topo_first_failure(t, &at), topo_find(t, "a"));
	assert_int_equal(at, 2 * S);
	p1 = print_to_string(t);
	assert_non_null(strstr(p1, "[event slow]\nat = 2s\naction = impair\ntarget = a core\n"
				   "a>core.delay = 40ms\ncore>a.delay = 80ms\nloss = 30% 25%\n"));
	write_temp(path2, p1, strlen(p1));
	load_ok(t2, path2, NULL, 0);
	p2 = print_to_string(t2);
	assert_string_equal(p1, p2);
	unlink(path);
	unlink(path2);
	free(p1);
	free(p2);
	free(t);
	free(t2);
}

/* impair's errors, each at its line, naming what was expected */
static void test_impair_errors(void **state)
{
	(void)state;
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = impair\ntarget = a\n", NULL, 0,
	    "F:22: [event e1]: impair takes the new values as keys (delay, jitter, "
	    "loss, duplicate, reorder, rate; A>B.KEY for one direction), got none\n");
	expect_event_errors("[event e1]\nat = 3s\naction = kill\ntarget = a\ndelay = 5ms\n", NULL,
			    0,
			    "F:24: [event e1] delay: only an impair takes it (action is kill)\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = impair\ntarget = a\ndelay = soon\n", NULL, 0,
	    "F:24: [event e1] delay: expected a duration such as 15ms, got 'soon'\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = impair\ntarget = a\nb>core.loss = 5%\n", NULL, 0,
	    "F:24: [event e1] b>core.loss: expected a>core.loss or core>a.loss (the direction: "
	    "from one end of the link to the other), got 'b>core'\n");
	expect_event_errors("[event e1]\nat = 3s\naction = impair\ntarget = a\nloss = 1%\n"
			    "loss = 2%\n",
			    NULL, 0, "F:25: [event e1] loss: set twice (first at line 24)\n");
	expect_event_errors("[event e1]\nat = 3s\naction = impair\ntarget = core\nloss = 1%\n",
			    NULL, 0,
			    "F:23: [event e1] target: impair acts on a link ('core ROUTER', or two "
			    "routers), and router 'core' has several\n");
}

/* `steerlab impair LAB A B KEY=VALUE ...`'s arguments */
static void test_impair_args(void **state)
{
	struct topology *t = new_topology();
	char path[64], err[512];
	char *kv[] = {"core>a.delay=80ms", "delay=40ms", "loss=2%"}, *bad[] = {"delay"},
	     *badv[] = {"rate=fast"}, *baddir[] = {"a>edge.delay=1ms"}, *unk[] = {"speed=1"};
	struct impair chg[2];
	unsigned set[2];
	int link, rlink;

	(void)state;
	with_events(path, "");
	load_ok(t, path, NULL, 0);
	assert_int_equal(
	    topo_impair_args(t, "core", "a", 3, kv, &link, &rlink, chg, set, err, sizeof(err)), 0);
	assert_int_equal(link, node(t, "a")->link);
	assert_int_equal(rlink, -1);
	assert_int_equal(chg[0].delay_ns, 40000000);
	assert_int_equal(chg[1].delay_ns, 80000000);
	assert_true(chg[1].loss_pct == 2);
	assert_int_equal(topo_impair_args(t, "edge", "core", 1, kv + 2, &link, &rlink, chg, set,
					  err, sizeof(err)),
			 0);
	assert_int_equal(rlink, 0);
#define BAD(a, b, n, v, want)                                                                      \
	do {                                                                                       \
		assert_int_equal(                                                                  \
		    topo_impair_args(t, a, b, n, v, &link, &rlink, chg, set, err, sizeof(err)),    \
		    -1);                                                                           \
		assert_string_equal(err, want);                                                    \
	} while (0)
	BAD("a", "zz", 1, kv, "no node named 'zz'");
	BAD("a", "edge", 1, kv,
	    "no link between 'a' and 'edge' (a node's link = ROUTER, or a [link a edge] section)");
	BAD("a", "core", 0, kv,
	    "expected KEY=VALUE after the link (delay, jitter, loss, duplicate, reorder, rate; "
	    "A>B.KEY for one direction), got none");
	BAD("a", "core", 1, bad,
	    "'delay': expected KEY=VALUE (delay, jitter, loss, duplicate, reorder, rate; A>B.KEY "
	    "for one direction)");
	BAD("a", "core", 1, badv,
	    "rate: expected a rate such as 100mbit (bit, kbit, mbit, gbit, tbit; bps, kbps, mbps, "
	    "gbps, tbps are bytes per second), got 'fast'");
	BAD("a", "core", 1, baddir,
	    "a>edge.delay: expected a>core.delay or core>a.delay (the direction: from one end of "
	    "the link to the other), got 'a>edge'");
	BAD("a", "core", 1, unk,
	    "unknown impairment 'speed' (expected delay, jitter, loss, rate, duplicate or "
	    "reorder)");
#undef BAD
	unlink(path);
	free(t);
}

/* topo_print writes every event back; it reads back the same */
static void test_print_round_trip(void **state)
{
	struct topology *t = new_topology(), *t2 = new_topology();
	char path[64], path2[64], *p1, *p2;

	(void)state;
	with_events(path, "[event x]\nat = 1s\naction = resolver-down\ntarget = r\ninstance = 1\n"
			  "[event y]\nat = 2s\naction = resolver-up\ntarget = r\n"
			  "[event z]\nat = 3s\naction = flap\ntarget = edge core\ncount = 2\n"
			  "period = 500ms\n");
	load_ok(t, path, NULL, 0);
	p1 = print_to_string(t);
	assert_non_null(strstr(p1, "[event z]\nat = 3s\naction = flap\ntarget = core edge\n"
				   "count = 2\nperiod = 500ms\n"));
	assert_non_null(strstr(p1, "[event x]\nat = 1s\naction = resolver-down\ntarget = r\n"
				   "instance = 1\n"));
	write_temp(path2, p1, strlen(p1));
	load_ok(t2, path2, NULL, 0);
	p2 = print_to_string(t2);
	assert_string_equal(p1, p2);
	assert_int_equal(t2->events[1].undoes, 0);
	unlink(path);
	unlink(path2);
	free(p1);
	free(p2);
	free(t);
	free(t2);
}

/* each error names the file, the line and what was expected */
static void test_errors(void **state)
{
	char *set_bad[] = {"e1.action=boom"}, *set_node[] = {"zz.at=1s"};

	(void)state;
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = explode\ntarget = a\n", NULL, 0,
	    "F:22: [event e1] action: expected kill, crash, freeze, drain, undrain, degrade, "
	    "undegrade, slow, unslow, link-down, link-up, dns-down, dns-up, resolver-down, "
	    "resolver-up, recover, flap, impair, set-ttl, set-weight, add-record, "
	    "remove-record, icmp-down or icmp-up, got 'explode'\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = kill\ntarget = c1\n", NULL, 0,
	    "F:23: [event e1] target: kill acts on a [site], and 'c1' is a client\n");
	expect_event_errors("[event e1]\nat = 3s\naction = dns-down\ntarget = r\n", NULL, 0,
			    "F:23: [event e1] target: dns-down acts on a [dns] node, and 'r' is a "
			    "resolver\n");
	expect_event_errors("[event e1]\nat = 3s\naction = resolver-down\ntarget = ns\n", NULL, 0,
			    "F:23: [event e1] target: resolver-down acts on a [resolver] node, and "
			    "'ns' is a dns\n");
	expect_event_errors("[event e1]\nat = 3s\naction = link-down\ntarget = a edge\n", NULL, 0,
			    "F:23: [event e1] target: no link between 'a' and 'edge' (a node's "
			    "link = ROUTER, or a [link a edge] section)\n");
	expect_event_errors("[event e1]\nat = 3s\naction = link-down\ntarget = core\n", NULL, 0,
			    "F:23: [event e1] target: link-down acts on a link ('core ROUTER', or "
			    "two routers), and router 'core' has several\n");
	expect_event_errors("[event e1]\nat = 3s\naction = kill\ntarget = zz\n", NULL, 0,
			    "F:23: [event e1] target: no node named 'zz'\n");
	expect_event_errors("[event e1]\nat = 10s\naction = kill\ntarget = a\n", NULL, 0,
			    "F:21: [event e1] at: expected less than [lab] duration (10s): the "
			    "traffic's time, got 10s\n");
	expect_event_errors("[event e1]\nat = 3s\naction = recover\ntarget = a\n", NULL, 0,
			    "F:22: [event e1]: recover of 'a' at 3s: nothing to recover (expected "
			    "an earlier kill, crash, freeze, drain, link-down, dns-down, "
			    "resolver-down or icmp-down of it without a recover since)\n");
	expect_event_errors("[event e1]\nat = 3s\naction = kill\ntarget = a\n"
			    "[event e2]\nat = 4s\naction = crash\ntarget = a\n",
			    NULL, 0,
			    "F:26: [event e2]: crash of 'a' at 4s, but e1 (line 20) already took "
			    "it out with kill and nothing recovered it: expected a recover between "
			    "them\n");
	expect_event_errors("[event e1]\nat = 3s\naction = drain\ntarget = a\n"
			    "[event e2]\nat = 4s\naction = link-up\ntarget = a\n",
			    NULL, 0,
			    "F:26: [event e2]: link-up of 'a core' at 4s: nothing to bring back "
			    "(expected an earlier link-down of it without a recover since)\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = flap\ntarget = a\ncount = 3\n"
	    "[event e2]\nat = 4s\naction = kill\ntarget = a\n",
	    NULL, 0,
	    "F:27: [event e2]: kill of 'a' at 4s falls during the flap e1 (line 20): "
	    "expected it after the flap's last cycle\n");
	expect_event_errors("[event e1]\nat = 8s\naction = flap\ntarget = a\ncount = 3\n", NULL, 0,
			    "F:24: [event e1]: a flap of 3 cycles of 1s from 8s ends after [lab] "
			    "duration (10s): expected fewer cycles, a shorter period or an earlier "
			    "at\n");
	expect_event_errors("[event e1]\nat = 3s\naction = kill\ntarget = a\ncount = 2\n", NULL, 0,
			    "F:24: [event e1] count: only a flap takes it (action is kill)\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = resolver-down\ntarget = r\ninstance = 3\n", NULL, 0,
	    "F:24: [event e1] instance: [resolver r] has 2 caches, got 3\n");
	expect_event_errors("[event a]\nat = 3s\naction = kill\ntarget = b\n", NULL, 0,
			    "F:20: [event a]: a node has that name (line 7): --set a.KEY would be "
			    "ambiguous; expected another name\n");
	expect_event_errors("[event e1]\nat = 3s\naction = kill\ntarget = a\n[event e1]\n", NULL, 0,
			    "F:24: duplicate event name 'e1' (first defined at line 20)\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\n", NULL, 0,
	    "F:20: [event e1] action: missing: expected one of kill, crash, freeze, "
	    "drain, undrain, degrade, undegrade, slow, unslow, link-down, link-up, dns-down, "
	    "dns-up, resolver-down, resolver-up, recover, flap, impair, set-ttl, set-weight, "
	    "add-record, remove-record, icmp-down or icmp-up\n"
	    "F:20: [event e1] target: missing: expected a node, or a link as its "
	    "two ends\n");
	/* slow takes delay, and nothing else */
	expect_event_errors("[event e1]\nat = 3s\naction = slow\ntarget = a\n", NULL, 0,
			    "F:22: [event e1]: slow takes delay = DURATION (how late sited "
			    "answers each request), got none\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = slow\ntarget = a\nloss = 5\n", NULL, 0,
	    "F:24: [event e1] loss: slow takes delay alone, a duration from 1us to 1h (how late "
	    "sited answers), got loss = 5\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = kill\ntarget = a\ncolour = red\n", NULL, 0,
	    "F:24: unknown key 'colour' in [event e1] (expected: at, action, target, "
	    "count, period, instance, family; with action = impair: delay, jitter, loss, "
	    "duplicate, "
	    "reorder, rate; with action = slow: delay; with a DNS change: name, ttl, site, "
	    "weight, record)\n");
	expect_event_errors(
	    "[event e1]\nat = 3s\naction = kill\ntarget = a\n", set_bad, 1,
	    "--set e1.action=boom: [event e1] action: expected kill, crash, freeze, "
	    "drain, undrain, degrade, undegrade, slow, unslow, link-down, link-up, dns-down, "
	    "dns-up, resolver-down, resolver-up, recover, flap, impair, set-ttl, set-weight, "
	    "add-record, remove-record, icmp-down or icmp-up, got 'boom'\n");
	expect_event_errors("[event e1]\nat = 3s\naction = kill\ntarget = a\n", set_node, 1,
			    "--set zz.at=1s: no node or event named 'zz'\n");
}

/* a weighted [name] for the DNS changes, lines 20-24; events from 25 */
#define DNS_NAME "[name w.lab.example]\npolicy = weighted\nweight = a 90\nweight = b 10\nttl = 10\n"

/* DNS changes: their keys, the [dns] node found from the name's zone, the
 * order with the other events, printed back, and the CHANGE line each
 * becomes (lib/zone_change.h) */
static void test_dns_changes(void **state)
{
	struct topology *t = new_topology(), *t2 = new_topology();
	char path[64], path2[64], *p1, *p2, line[ZONE_CHANGE_LINE_MAX + 2], text[160];
	char *set[] = {"up.weight=50"};
	const struct topo_event *e;
	struct zone_change c;

	(void)state;
	with_events(path,
		    DNS_NAME "[event up]\nat = 2s\naction = set-weight\nname = "
			     "w.lab.example\nsite = b\nweight = 20\n"
			     "[event low]\nat = 1s\naction = set-ttl\nname = W.lab.example.\n"
			     "ttl = 1s\n"
			     "[event add]\nat = 3s\naction = add-record\nname = new.lab.example\n"
			     "record = 60 A 198.19.9.1\n"
			     "[event rm]\nat = 4s\naction = remove-record\ntarget = ns\n"
			     "name = new.lab.example\nrecord = A\n"
			     "[event k]\nat = 5s\naction = kill\ntarget = a\n");
	load_ok(t, path, set, 1);
	e = &t->events[event_index(t, "low")];
	assert_int_equal(event_index(t, "low"), 0);
	assert_int_equal(e->action, TOPO_A_SET_TTL);
	assert_int_equal(e->node, topo_find(t, "ns"));
	assert_int_equal(e->dns_ttl_ns, S);
	topo_event_change(e, &c);
	assert_true(zone_change_format(&c, line, sizeof(line)) > 0);
	assert_string_equal(line, "CHANGE low set-ttl W.lab.example. 1\n");
	e = &t->events[event_index(t, "up")];
	assert_int_equal(e->dns_weight, 50); /* the --set */
	topo_event_change(e, &c);
	assert_true(zone_change_format(&c, line, sizeof(line)) > 0);
	assert_string_equal(line, "CHANGE up set-weight w.lab.example b 50\n");
	assert_string_equal(topo_event_change_text(e, text, sizeof(text)),
			    "w.lab.example b weight 50");
	topo_event_change(&t->events[event_index(t, "add")], &c);
	assert_true(zone_change_format(&c, line, sizeof(line)) > 0);
	assert_string_equal(line, "CHANGE add add-record new.lab.example 60 A 198.19.9.1\n");
	/* a DNS change takes nothing out: the kill is still the first failure */
	assert_int_equal(topo_first_failure(t, NULL), topo_find(t, "a"));
	p1 = print_to_string(t);
	assert_non_null(strstr(p1, "[event up]\nat = 2s\naction = set-weight\ntarget = ns\n"
				   "name = w.lab.example\nsite = b\nweight = 50\n"));
	assert_non_null(strstr(p1, "[event low]\nat = 1s\naction = set-ttl\ntarget = ns\n"
				   "name = W.lab.example.\nttl = 1s\n"));
	{
		char *tl = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&tl, &len);

		topo_print_timeline(t, f);
		fclose(f);
		assert_non_null(strstr(tl,
				       "#   at 3.000 s: add-record dns ns (add: new.lab.example "
				       "60 A 198.19.9.1)\n"));
		free(tl);
	}
	write_temp(path2, p1, strlen(p1));
	load_ok(t2, path2, NULL, 0);
	p2 = print_to_string(t2);
	assert_string_equal(p1, p2);
	unlink(path);
	unlink(path2);
	free(p1);
	free(p2);
	free(t);
	free(t2);
}

/* a DNS change's refusals: its keys, its name, its site, its target */
static void test_dns_change_errors(void **state)
{
	(void)state;
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = set-ttl\nname = "
				     "w.lab.example\n",
			    NULL, 0,
			    "F:25: [event e1] ttl: missing: set-ttl takes it: expected the new "
			    "TTL, in whole seconds, such as 1s\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = set-ttl\nname = "
				     "w.lab.example\nttl = 1s\nweight = 5\n",
			    NULL, 0,
			    "F:30: [event e1] weight: set-ttl takes name and ttl, not weight\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = kill\ntarget = a\n"
				     "name = w.lab.example\n",
			    NULL, 0,
			    "F:29: [event e1] name: only a DNS change takes it (set-ttl, "
			    "set-weight, add-record, remove-record; action is kill)\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = set-ttl\nname = "
				     "w.lab.example\nttl = 1500ms\n",
			    NULL, 0,
			    "F:29: [event e1] ttl: expected whole seconds (a DNS TTL), such as 1s "
			    "or 30s, got 1500ms\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = set-ttl\nname = "
				     "www.other.example\nttl = 1s\n",
			    NULL, 0,
			    "F:28: [event e1] name: www.other.example is in no [zone] of the lab: "
			    "expected a name of one\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = set-ttl\nname = "
				     "x.lab.example\nttl = 1s\n",
			    NULL, 0,
			    "F:28: [event e1] name: no [name x.lab.example] section: set-ttl "
			    "changes a steered name's\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = set-weight\nname = "
				     "w.lab.example\nsite = c1\nweight = 5\n",
			    NULL, 0, "F:29: [event e1] site: no [site] named 'c1'\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = set-weight\nname = "
				     "w.lab.example\nsite = a\nweight = 1000001\n",
			    NULL, 0,
			    "F:30: [event e1] weight: expected a whole number from 0 to 1000000, "
			    "got '1000001'\n");
	expect_event_errors(DNS_NAME "[event e1]\nat = 1s\naction = add-record\nname = "
				     "n.lab.example\ntarget = r\nrecord = A 198.19.9.1\n",
			    NULL, 0,
			    "F:29: [event e1] target: add-record acts on a [dns] node, got 'r'\n");
	/* two servers of the zone: which one, the event says */
	expect_event_errors(DNS_NAME "[dns ns2]\nlink = core\n"
				     "[event e1]\nat = 1s\naction = add-record\nname = "
				     "n.lab.example\nrecord = A 198.19.9.1\n",
			    NULL, 0,
			    "F:27: [event e1]: zone lab.example. (of n.lab.example) is served by "
			    "ns, ns2: expected target = one of them (an event per server)\n");
	expect_event_errors(DNS_NAME "[dns ns2]\nlink = core\nzones = other.example\n"
				     "[zone other.example]\n"
				     "[event e1]\nat = 1s\naction = add-record\ntarget = ns2\n"
				     "name = n.lab.example\nrecord = A 198.19.9.1\n",
			    NULL, 0,
			    "F:32: [event e1] target: ns2 does not serve zone lab.example. "
			    "(n.lab.example): expected ns\n");
	expect_event_errors(
	    DNS_NAME "[event e1]\nat = 1s\naction = remove-record\nname = "
		     "n.lab.example\n",
	    NULL, 0,
	    "F:25: [event e1] record: missing: remove-record takes it: expected "
	    "the record: [TTL] TYPE DATA for add-record (A 198.19.9.1), TYPE [DATA] "
	    "for remove-record\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_timeline_order),
	    cmocka_unit_test(test_plan),
	    cmocka_unit_test(test_plan_jitter),
	    cmocka_unit_test(test_shorthand),
	    cmocka_unit_test(test_set),
	    cmocka_unit_test(test_print_round_trip),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_impair),
	    cmocka_unit_test(test_impair_errors),
	    cmocka_unit_test(test_impair_args),
	    cmocka_unit_test(test_dns_changes),
	    cmocka_unit_test(test_dns_change_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
