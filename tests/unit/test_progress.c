/*
 * The live status line of a run (lab/run/progress.h): its formatting in every
 * phase and at every width, the client_progress and capture_progress
 * events it reads, and the share "to the dead site" it computes from them;
 * the line as a run draws it, from the event files of a fake lab's clients
 * and collector, on a terminal and in a log.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "clocks.h"
#include "lab/build/lab.h"
#include "lab/run/progress.h"
#include "test_file.h"
#include "test_rundir.h"
#include "timeutil.h"
#include "wire.h"

#define S 1000000000LL

static const char *format(const struct progress_view *v)
{
	static char buf[256];
	int n = progress_format(buf, sizeof(buf), v, 0);

	assert_int_equal(n, (int)strlen(buf));
	return buf;
}

static void test_format_phases(void **state)
{
	struct progress_view v = {
	    .phase = PROGRESS_WARMUP,
	    .elapsed_ns = 1234 * 1000000LL,
	    .total_ns = 10 * S,
	    .fail_at_ns = 3 * S,
	    .sent = -1,
	    .dead = "a",
	    .window_ns = S,
	};

	(void)state;
	assert_string_equal(format(&v), "[warm-up] 1.2 s: waiting for captures, routes and DNS "
					"servers");
	v.phase = PROGRESS_TRAFFIC;
	v.elapsed_ns = 500 * 1000000LL;
	v.scheme[PROGRESS_ANYCAST].present = 1;
	v.scheme[PROGRESS_DNS].present = 1;
	assert_string_equal(format(&v), "[traffic] 0.5/10.0 s, failure at 3.0 s  no counts yet");
	/* the captures have counts before the clients' first second */
	v.scheme[PROGRESS_ANYCAST].to_dead = v.scheme[PROGRESS_ANYCAST].resolved = 150;
	assert_string_equal(format(&v), "[traffic] 0.5/10.0 s, failure at 3.0 s  to a (last 1 s): "
					"anycast 100% dns -");
	v.scheme[PROGRESS_ANYCAST].to_dead = v.scheme[PROGRESS_ANYCAST].resolved = 0;
	v.elapsed_ns = 2100 * 1000000LL;
	v.sent = 5400;
	v.scheme[PROGRESS_ANYCAST].to_dead = 1480;
	v.scheme[PROGRESS_ANYCAST].resolved = 2000;
	v.scheme[PROGRESS_DNS].to_dead = 1500;
	v.scheme[PROGRESS_DNS].resolved = 2000;
	assert_string_equal(format(&v), "[traffic] 2.1/10.0 s, failure at 3.0 s  sent 5400  to a "
					"(last 1 s): anycast 74% dns 75%");
	v.phase = PROGRESS_OBSERVING;
	v.elapsed_ns = 6200 * 1000000LL;
	v.sent = 31200;
	v.scheme[PROGRESS_ANYCAST].to_dead = 0;
	v.scheme[PROGRESS_DNS].to_dead = 683;
	assert_string_equal(format(&v), "[observing] 6.2/10.0 s  sent 31200  to a (last 1 s): "
					"anycast 0% dns 34%");
	/* a scheme without a resolved request in the interval */
	v.scheme[PROGRESS_DNS].resolved = 0;
	v.phase = PROGRESS_DRAINING;
	v.elapsed_ns = 10300 * 1000000LL;
	assert_string_equal(format(&v), "[last replies] 10.3/10.0 s  sent 31200  to a (last 1 s): "
					"anycast 0% dns -");
}

static void test_format_label_and_one_scheme(void **state)
{
	struct progress_view v = {
	    .label = "ttl=30 2/4",
	    .phase = PROGRESS_OBSERVING,
	    .elapsed_ns = 4 * S,
	    .total_ns = 10 * S,
	    .sent = 4000,
	    .dead = "a",
	    .window_ns = 500 * 1000000LL,
	};

	(void)state;
	v.scheme[PROGRESS_ANYCAST].present = 1;
	v.scheme[PROGRESS_ANYCAST].to_dead = 1;
	v.scheme[PROGRESS_ANYCAST].resolved = 1000;
	assert_string_equal(format(&v), "ttl=30 2/4 [observing] 4.0/10.0 s  sent 4000  to a (last "
					"0.5 s): anycast 0%");
	/* no failing site: no share */
	v.dead = "";
	assert_string_equal(format(&v), "ttl=30 2/4 [observing] 4.0/10.0 s  sent 4000");
}

/* a buffer too small keeps whole fields, never overrun */
static void test_format_truncates(void **state)
{
	struct progress_view v = {
	    .phase = PROGRESS_OBSERVING, .total_ns = S, .sent = 1, .dead = "a", .window_ns = S};
	char buf[16];

	(void)state;
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(progress_format(buf, sizeof(buf), &v, 0), 15);
	assert_string_equal(buf, "[obs] 0.0s a: -");
	assert_int_equal(progress_format(buf, 0, &v, 0), 0);
}

/* every maximal run of digits of line is one of full's: no number cut */
static void assert_numbers_whole(const char *line, const char *full)
{
	for (const char *p = line; *p;) {
		size_t n = strspn(p, "0123456789"), found = 0;
		if (n == 0) {
			p++;
			continue;
		}
		for (const char *q = full; *q && !found;) {
			size_t m = strspn(q, "0123456789");
			if (m == 0) {
				q++;
				continue;
			}
			found = m == n && memcmp(p, q, n) == 0;
			q += m;
		}
		if (!found)
			fail_msg("\"%s\": %.*s is not a number of \"%s\"", line, (int)n, p, full);
		p += n;
	}
}

/* at 40, 60, 80 and 120 columns, with a sweep's long label and large
 * counts: never wider, never a number cut, both schemes always there */
static void test_format_widths(void **state)
{
	static const int widths[] = {40, 60, 80, 120};
	static const char *const labels[] = {NULL, "ttl=30 3/12",
					     "ttl=30 probe_interval=250ms 3/12"};
	struct progress_view v = {
	    .phase = PROGRESS_OBSERVING,
	    .elapsed_ns = 123400 * 1000000LL,
	    .total_ns = 600 * S,
	    .sent = 12345678,
	    .dead = "a",
	    .window_ns = 500 * 1000000LL,
	};
	char full[512], buf[512];

	(void)state;
	v.scheme[PROGRESS_ANYCAST].present = 1;
	v.scheme[PROGRESS_ANYCAST].resolved = 98765;
	v.scheme[PROGRESS_DNS].present = 1;
	v.scheme[PROGRESS_DNS].to_dead = 57;
	v.scheme[PROGRESS_DNS].resolved = 100;
	for (size_t l = 0; l < sizeof(labels) / sizeof(labels[0]); l++) {
		for (int cut = 0; cut < 2; cut++) {
			v.label = labels[l];
			v.phase = cut ? PROGRESS_DRAINING : PROGRESS_OBSERVING;
			v.scheme[PROGRESS_DNS].cut = cut;
			progress_format(full, sizeof(full), &v, 0);
			for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
				int n = progress_format(buf, sizeof(buf), &v, widths[w]);
				assert_int_equal(n, (int)strlen(buf));
				assert_true(n <= widths[w]);
				assert_numbers_whole(buf, full);
				assert_true(strstr(buf, "any 0%") || strstr(buf, "anycast 0%"));
				assert_non_null(strstr(buf, cut ? "dns 57% cut" : "dns 57%"));
				if (widths[w] == 120)
					assert_string_equal(buf, full);
			}
		}
	}
	/* the long line at 80, shortened field by field */
	v.label = "ttl=30 probe_interval=250ms 3/12";
	v.phase = PROGRESS_OBSERVING;
	v.scheme[PROGRESS_DNS].cut = 0;
	progress_format(buf, sizeof(buf), &v, 80);
	assert_string_equal(buf, "30 250ms 3/12 [observing] 123.4/600.0 s sent 12345678  to a: "
				 "any 0% dns 57%");
}

/* a sweep point's label keeps its form from the traffic to the
 * observation at 70 columns: the failure's instant gives way first */
static void test_format_label_stable(void **state)
{
	struct progress_view v = {
	    .label = "ttl=1 1/2",
	    .phase = PROGRESS_TRAFFIC,
	    .elapsed_ns = 2 * S,
	    .total_ns = 20 * S,
	    .fail_at_ns = 5 * S,
	    .sent = 19205,
	    .dead = "a",
	    .window_ns = 500 * 1000000LL,
	};
	char buf[512];

	(void)state;
	v.scheme[PROGRESS_ANYCAST].present = 1;
	v.scheme[PROGRESS_ANYCAST].resolved = 100;
	v.scheme[PROGRESS_ANYCAST].to_dead = 100;
	v.scheme[PROGRESS_DNS].present = 1;
	v.scheme[PROGRESS_DNS].resolved = 100;
	v.scheme[PROGRESS_DNS].to_dead = 100;
	progress_format(buf, sizeof(buf), &v, 70);
	assert_string_equal(buf,
			    "ttl=1 1/2 [traffic] 2.0/20.0 s sent 19205  to a: any 100% dns 100%");
	v.phase = PROGRESS_OBSERVING;
	progress_format(buf, sizeof(buf), &v, 70);
	assert_string_equal(
	    buf, "ttl=1 1/2 [observing] 2.0/20.0 s  sent 19205  to a: any 100% dns 100%");
}

static void test_parse(void **state)
{
	struct progress_sample s;

	(void)state;
	assert_int_equal(
	    progress_parse("{\"t\": 1700000000000000000, \"node\": \"c1\", \"agent\": "
			   "\"client\", \"event\": \"client_progress\", \"client\": 1, "
			   "\"sent\": 2000, \"ok\": 1900, \"lost\": 50, \"errors\": 1, "
			   "\"sites\": {\"a\": 1400, \"b\": 500}}\n",
			   "a", &s),
	    0);
	assert_true(s.t_ns == 1700000000000000000LL);
	assert_true(s.sent == 2000 && s.ok == 1900 && s.lost == 50 && s.errors == 1);
	assert_true(s.dead == 1400);
	/* a dead site that never answered */
	assert_int_equal(
	    progress_parse("{\"t\": 5, \"event\": \"client_progress\", \"sent\": 1, "
			   "\"ok\": 1, \"lost\": 0, \"errors\": 0, \"sites\": {\"b\": 1}}",
			   "a", &s),
	    0);
	assert_true(s.dead == 0 && s.ok == 1);
	/* other events, other lines */
	assert_int_equal(
	    progress_parse("{\"t\": 5, \"event\": \"client_summary\", \"sent\": 1}", "a", &s), -1);
	assert_int_equal(progress_parse("{\"t\": 5, \"event\": \"client_pro", "a", &s), -1);
	assert_int_equal(progress_parse("{\"event\": \"client_progress\"}", "a", &s), -1);
	assert_int_equal(progress_parse("", "a", &s), -1);
}

static void test_share(void **state)
{
	struct progress_sample prev = {
	    .t_ns = 10 * S, .sent = 1000, .ok = 900, .lost = 10, .errors = 0, .dead = 600};
	struct progress_sample cur = {
	    .t_ns = 11 * S, .sent = 2000, .ok = 1500, .lost = 400, .errors = 10, .dead = 650};
	int64_t to_dead = 0, resolved = 0;

	(void)state;
	/* before t0 (or no t0 yet): only the dead site's replies */
	progress_share(&prev, &cur, 0, &to_dead, &resolved);
	assert_true(resolved == 600 + 390 + 10 && to_dead == 50);
	to_dead = resolved = 0;
	progress_share(&prev, &cur, 12 * S, &to_dead, &resolved);
	assert_true(resolved == 1000 && to_dead == 50);
	/* after t0, the timeouts went to the dead site too; the counts add up
	 * over flows */
	progress_share(&prev, &cur, 10500 * 1000000LL, &to_dead, &resolved);
	assert_true(resolved == 2000 && to_dead == 50 + 50 + 390);
	/* one sample only, or samples out of order: nothing */
	to_dead = resolved = 0;
	struct progress_sample none = {0};
	progress_share(&none, &cur, 0, &to_dead, &resolved);
	progress_share(&cur, &prev, 0, &to_dead, &resolved);
	assert_true(resolved == 0 && to_dead == 0);
}

/* the collector's event, as collector.c writes it */
static void test_parse_capture(void **state)
{
	struct progress_capsample s;

	(void)state;
	assert_int_equal(
	    progress_parse_capture(
		"{\"t\": 1700000000100000000, \"node\": \"core\", \"agent\": \"collector\", "
		"\"event\": \"capture_progress\", \"links\": {\"a\": {\"probe\": 40, "
		"\"anycast\": 900, \"dns\": 300, \"other\": 0, \"anycast_last_ns\": "
		"1700000000090000000, \"dns_last_ns\": 1700000000095000000}, \"b\": "
		"{\"probe\": 40, \"anycast\": 100, \"dns\": 700, \"other\": 2, "
		"\"anycast_last_ns\": 1700000000099000000, \"dns_last_ns\": null}}}\n",
		"a", &s),
	    0);
	assert_true(s.t_ns == 1700000000100000000LL);
	assert_true(s.dead[PROGRESS_ANYCAST] == 900 && s.all[PROGRESS_ANYCAST] == 1000);
	assert_true(s.dead[PROGRESS_DNS] == 300 && s.all[PROGRESS_DNS] == 1000);
	assert_true(s.dead_last_ns[PROGRESS_ANYCAST] == 1700000000090000000LL);
	assert_true(s.all_last_ns[PROGRESS_ANYCAST] == 1700000000099000000LL);
	assert_true(s.all_last_ns[PROGRESS_DNS] == 1700000000095000000LL);
	assert_int_equal(
	    progress_parse_capture("{\"t\": 5, \"event\": \"capture_stats\"}", "a", &s), -1);
	assert_int_equal(
	    progress_parse_capture("{\"event\": \"capture_progress\", \"links\": {}}", "a", &s),
	    -1);
	assert_int_equal(progress_parse_capture("{\"t\": 5, \"event\": \"capture_pro", "a", &s),
			 -1);
}

/* samples every 100 ms: anycast moves off a at 1.0 s, dns keeps going to a
 * until the traffic stops at 2.0 s */
static void test_capshare(void **state)
{
	struct progress_capsample s[30];
	int64_t to_dead, seen;
	int n = 0;

	(void)state;
	memset(s, 0, sizeof(s));
	for (int i = 0; i < 30; i++, n++) {
		int64_t t = i * 100 * 1000000LL;
		s[i].t_ns = t;
		if (i > 0)
			s[i] = s[i - 1];
		s[i].t_ns = t;
		if (i == 0 || i > 20) /* traffic from 0.1 to 2.0 s */
			continue;
		s[i].all[PROGRESS_ANYCAST] += 30;
		s[i].all[PROGRESS_DNS] += 30;
		s[i].dead[PROGRESS_DNS] += 10;
		s[i].dead_last_ns[PROGRESS_DNS] = t;
		s[i].all_last_ns[PROGRESS_DNS] = t;
		s[i].all_last_ns[PROGRESS_ANYCAST] = t;
		if (i <= 10) {
			s[i].dead[PROGRESS_ANYCAST] += 30;
			s[i].dead_last_ns[PROGRESS_ANYCAST] = t;
		}
	}
	/* at 1.0 s: the last 0.5 s all to a */
	to_dead = seen = 0;
	progress_capshare(s, 11, PROGRESS_ANYCAST, 500 * 1000000LL, &to_dead, &seen);
	assert_true(to_dead == 150 && seen == 150);
	/* 0.2 s later the share has moved: 3 of 5 samples to b */
	to_dead = seen = 0;
	progress_capshare(s, 13, PROGRESS_ANYCAST, 500 * 1000000LL, &to_dead, &seen);
	assert_true(to_dead == 90 && seen == 150);
	/* after the traffic: the last window before it stopped, not "-" */
	to_dead = seen = 0;
	progress_capshare(s, n, PROGRESS_ANYCAST, 500 * 1000000LL, &to_dead, &seen);
	assert_true(to_dead == 0 && seen == 150);
	to_dead = seen = 0;
	progress_capshare(s, n, PROGRESS_DNS, 500 * 1000000LL, &to_dead, &seen);
	assert_true(to_dead == 50 && seen == 150);
	/* one sample: nothing */
	to_dead = seen = 0;
	progress_capshare(s, 1, PROGRESS_DNS, 500 * 1000000LL, &to_dead, &seen);
	assert_true(to_dead == 0 && seen == 0);
	/* dns reached a until the end: cut; anycast had left it: not */
	assert_true(progress_capcut(&s[n - 1], PROGRESS_DNS, 300 * 1000000LL));
	assert_false(progress_capcut(&s[n - 1], PROGRESS_ANYCAST, 300 * 1000000LL));
	/* no failure yet, or the last request to a before t0: not cut */
	assert_false(progress_capcut(&s[n - 1], PROGRESS_DNS, 0));
	assert_false(progress_capcut(&s[n - 1], PROGRESS_DNS, 2500 * 1000000LL));
}

/* the collector tells the schemes apart by the ids the lab gives */
static void test_client_ids(void **state)
{
	(void)state;
	assert_int_equal(WIRE_DNS_CLIENT_BASE, LAB_DNS_CLIENT_ID(0));
	assert_int_equal(clocks_scheme_of(WIRE_PROBE_CLIENT), CLOCKS_SCHEME_NONE);
}

/* A run's progress as it reads the event files (progress_tick): a lab of
 * two sites, a failing, and one client node sending both ways, whose
 * agents' event files are written by the tests. */
static struct topology *live_t;
static struct lab live_lab;
static struct progress live_p;
static char *live_dir, *live_buf;
static size_t live_len;
static FILE *live_out;

static int live_setup(void **state)
{
	static const char ini[] = "[lab]\nname = tprog\nduration = 10s\nfail_at = 5s\n"
				  "[router core]\n[site a]\nlink = core\nfail = yes\n"
				  "[site b]\nlink = core\n[client c1]\nlink = core\n";
	static const struct {
		const char *name, *node;
	} agents[] = {
	    {"collector", "core"}, {"sited", "a"}, {"client", "c1"}, {"client-dns", "c1"}};
	FILE *null = fopen("/dev/null", "w");

	(void)state;
	live_dir = rundir_new("test_progress");
	assert_non_null(live_dir);
	test_write_file(live_dir, "topology.ini", ini);
	live_t = calloc(1, sizeof(*live_t));
	assert_non_null(live_t);
	char path[512];
	snprintf(path, sizeof(path), "%s/topology.ini", live_dir);
	assert_int_equal(topo_load(live_t, path, NULL, 0, null), 0);
	fclose(null);
	memset(&live_lab, 0, sizeof(live_lab));
	live_lab.t = live_t;
	snprintf(live_lab.rundir, sizeof(live_lab.rundir), "%s", live_dir);
	for (size_t i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
		struct lab_agent *a = &live_lab.agents[live_lab.nagents++];

		snprintf(a->name, sizeof(a->name), "%s", agents[i].name);
		a->node = topo_find(live_t, agents[i].node);
		assert_true(a->node >= 0);
	}
	live_out = open_memstream(&live_buf, &live_len);
	assert_non_null(live_out);
	return 0;
}

static int live_teardown(void **state)
{
	(void)state;
	progress_free(&live_p);
	fclose(live_out);
	free(live_buf);
	rundir_free(live_dir);
	free(live_t);
	return 0;
}

/* live_text: what the progress has written so far, the elapsed time of
 * each line ("3.0/10.0 s", "0.1 s") as T: it is the machine's */
static const char *live_text(void)
{
	static char buf[4096];
	size_t o = 0;

	fflush(live_out);
	for (const char *p = live_buf; *p && o + 2 < sizeof(buf);) {
		/* "] D.D" (the phase, then the time) */
		if (p[0] == ']' && p[1] == ' ' && p[2] >= '0' && p[2] <= '9') {
			buf[o++] = ']';
			buf[o++] = ' ';
			buf[o++] = 'T';
			p += 2;
			p += strspn(p, "0123456789.");
			continue;
		}
		buf[o++] = *p++;
	}
	buf[o] = '\0';
	return buf;
}

/* live_reset: what the progress writes from now on, alone */
static void live_reset(void)
{
	fclose(live_out);
	free(live_buf);
	live_out = open_memstream(&live_buf, &live_len);
	assert_non_null(live_out);
	live_p.out = live_out;
}

/* live_event: a line (with its newline, or not: still being written) to
 * the agent's events file */
static void live_event(const char *file, const char *line, int whole)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", live_dir, file);
	fp = fopen(path, "a");
	assert_non_null(fp);
	fprintf(fp, "%s%s", line, whole ? "\n" : "");
	assert_int_equal(fclose(fp), 0);
}

/* client_progress of a flow, ago_ms before now */
static void live_client(const char *file, int ago_ms, int sent, int ok, int lost, int to_a,
			int whole)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"node\":\"c1\",\"agent\":\"client\",\"event\":\"client_progress\","
		 "\"sent\":%d,\"ok\":%d,\"lost\":%d,\"errors\":0,\"sites\":{\"a\":%d,\"b\":%d}}",
		 (long long)(now_real_ns() - ago_ms * 1000000LL), sent, ok, lost, to_a, ok - to_a);
	live_event(file, line, whole);
}

/* capture_progress of core's collector, ago_ms before now: the anycast
 * and dns requests captured on a's link and b's so far, and when the last
 * one to a was (ago) */
static void live_capture(int ago_ms, int any_a, int any_b, int dns_a, int dns_b, int a_last_ms)
{
	char line[1024];
	long long now = (long long)now_real_ns(), t = now - ago_ms * 1000000LL;
	long long a_last = now - a_last_ms * 1000000LL;

	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"node\":\"core\",\"agent\":\"collector\",\"event\":"
		 "\"capture_progress\",\"links\":{\"a\":{\"anycast\":%d,\"dns\":%d,"
		 "\"anycast_last_ns\":%lld,\"dns_last_ns\":%lld},\"b\":{\"anycast\":%d,"
		 "\"dns\":%d,\"anycast_last_ns\":%lld,\"dns_last_ns\":%lld}}}",
		 t, any_a, dns_a, a_last, a_last, any_b, dns_b, t, t);
	live_event("core.collector.events.jsonl", line, 1);
}

/* in a log: one plain line every 2 s of traffic, from the clients' last
 * second (no capture counts yet): sent by both flows, the share of the
 * requests a answered */
static void test_live_plain(void **state)
{
	(void)state;
	assert_int_equal(progress_mode_for(live_out, 0), PROGRESS_PLAIN);
	assert_int_equal(progress_mode_for(live_out, 1), PROGRESS_QUIET);
	progress_init(&live_p, live_t, PROGRESS_PLAIN, live_out, NULL);
	assert_string_equal(live_p.dead, "a");
	assert_true(live_p.fail_at_ns == 5 * S && live_p.total_ns == 10 * S);
	/* the warm-up draws nothing in a log: the run says it */
	progress_phase(&live_p, PROGRESS_WARMUP);
	progress_tick(&live_p);
	assert_string_equal(live_text(), "");

	live_client("c1.client.events.jsonl", 1500, 100, 100, 0, 60, 1);
	live_client("c1.client.events.jsonl", 500, 200, 200, 0, 110, 1);
	live_client("c1.client-dns.events.jsonl", 1500, 50, 50, 0, 50, 1);
	live_client("c1.client-dns.events.jsonl", 500, 100, 100, 0, 100, 1);
	/* traffic for 2.5 s: the first line was due at 2 s, the next at 4 s */
	progress_traffic(&live_p, now_mono_ns() - 2500 * 1000000LL, &live_lab);
	assert_int_equal(live_p.nflows, 2);
	assert_int_equal(live_p.ncaps, 1);
	progress_tick(&live_p);
	progress_tick(&live_p); /* the next at 4 s */
	/* 70 columns (80 less "steerlab: "): the fields shortened */
	assert_string_equal(live_text(), "steerlab: [traffic] T/10.0 s fail@5.0s  sent 300  to a: "
					 "any 50% dns 100%\n");
}

/* on a terminal: the line drawn in place, from the captures once there
 * are two samples (the last half second), cleared before another line and
 * at the end; a line still being written is read once it is whole */
static void test_live_tty(void **state)
{
	(void)state;
	progress_init(&live_p, live_t, PROGRESS_TTY, live_out, "ttl=30 1/2");
	progress_phase(&live_p, PROGRESS_WARMUP);
	progress_tick(&live_p);
	assert_string_equal(live_text(), "\r\033[Kttl=30 1/2 [warm-up] T s: waiting for captures, "
					 "routes and DNS servers");
	progress_clear(&live_p);
	progress_traffic(&live_p, now_mono_ns() - 2 * S, &live_lab);
	progress_tick(&live_p);
	assert_string_equal(live_text(),
			    "\r\033[Kttl=30 1/2 [warm-up] T s: waiting for captures, "
			    "routes and DNS servers\r\033[K\r\033[Kttl=30 1/2 [traffic] "
			    "T/10.0 s, failure at 5.0 s  no counts yet");
	live_reset();

	/* a client's sample half written: not read yet */
	live_client("c1.client.events.jsonl", 1500, 100, 100, 0, 100, 1);
	live_client("c1.client.events.jsonl", 500, 200, 190, 10, 190, 0);
	progress_clear(&live_p);
	progress_tick(&live_p);
	live_event("c1.client.events.jsonl", "", 1);
	progress_clear(&live_p);
	progress_tick(&live_p);
	/* 79 columns (not a terminal: 80, less the last) */
	assert_string_equal(live_text(), "\r\033[K\r\033[Kttl=30 1/2 [traffic] T/10.0 s fail@5.0s  "
					 "sent 100  to a: any 100% dns -"
					 "\r\033[K\r\033[Kttl=30 1/2 [traffic] T/10.0 s fail@5.0s  "
					 "sent 200  to a: any 90% dns -");
	live_reset();

	/* the failure; then the captures: 200 of 400 anycast requests to a in
	 * the last half second, 50 of 100 dns ones; the clients' counts no
	 * longer */
	progress_failed(&live_p, now_real_ns());
	assert_int_equal(live_p.phase, PROGRESS_OBSERVING);
	live_capture(700, 100, 100, 10, 10, 700);
	live_capture(100, 300, 300, 60, 60, 100);
	progress_clear(&live_p);
	progress_tick(&live_p);
	assert_string_equal(live_text(), "\r\033[K\r\033[Kttl=30 1/2 [observing] T/10.0 s  sent "
					 "200  to a: anycast 50% dns 50%");
	live_reset();

	/* the end: cleared, and nothing drawn any more */
	progress_phase(&live_p, PROGRESS_DONE);
	progress_tick(&live_p);
	assert_string_equal(live_text(), "\r\033[K");
}

/* after the traffic's duration: the last replies; a scheme whose traffic
 * still went to a when it ended is cut (its window a lower bound) */
static void test_live_cut(void **state)
{
	(void)state;
	progress_init(&live_p, live_t, PROGRESS_TTY, live_out, NULL);
	progress_traffic(&live_p, now_mono_ns() - 11 * S, &live_lab);
	progress_failed(&live_p, now_real_ns() - 5 * S);
	/* anycast left a 5 s ago; dns to a until its last request */
	live_capture(1200, 500, 100, 100, 100, 5000);
	live_capture(600, 500, 600, 400, 100, 5000);
	char line[1024];
	long long now = (long long)now_real_ns();
	snprintf(line, sizeof(line),
		 "{\"t\":%lld,\"event\":\"capture_progress\",\"links\":{\"a\":{\"anycast\":500,"
		 "\"dns\":700,\"anycast_last_ns\":%lld,\"dns_last_ns\":%lld},\"b\":{\"anycast\":"
		 "1100,\"dns\":100,\"anycast_last_ns\":%lld,\"dns_last_ns\":%lld}}}",
		 now, now - 5 * S, now - 50 * 1000000LL, now - 60 * 1000000LL, now - 5 * S);
	live_event("core.collector.events.jsonl", line, 1);
	progress_tick(&live_p);
	assert_string_equal(live_text(), "\r\033[K[last replies] T/10.0 s  to a (last 0.5 s): "
					 "anycast 0% dns 100% cut");
}

/* quiet: nothing read, nothing drawn */
static void test_live_quiet(void **state)
{
	(void)state;
	progress_init(&live_p, live_t, PROGRESS_QUIET, live_out, NULL);
	progress_phase(&live_p, PROGRESS_WARMUP);
	progress_traffic(&live_p, now_mono_ns() - 3 * S, &live_lab);
	assert_int_equal(live_p.nflows, 0);
	progress_tick(&live_p);
	progress_clear(&live_p);
	assert_string_equal(live_text(), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_format_phases),
	    cmocka_unit_test(test_format_label_and_one_scheme),
	    cmocka_unit_test(test_format_label_stable),
	    cmocka_unit_test(test_format_truncates),
	    cmocka_unit_test(test_format_widths),
	    cmocka_unit_test(test_parse_capture),
	    cmocka_unit_test(test_capshare),
	    cmocka_unit_test(test_client_ids),
	    cmocka_unit_test(test_parse),
	    cmocka_unit_test(test_share),
	    cmocka_unit_test_setup_teardown(test_live_plain, live_setup, live_teardown),
	    cmocka_unit_test_setup_teardown(test_live_tty, live_setup, live_teardown),
	    cmocka_unit_test_setup_teardown(test_live_cut, live_setup, live_teardown),
	    cmocka_unit_test_setup_teardown(test_live_quiet, live_setup, live_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
