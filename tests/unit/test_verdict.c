/*
 * probes/clocks: the verdict (verdict.c, docs/clocks.md "Verdict"). Each
 * self-check is tried both ways on a synthetic run directory: a valid run
 * (valid_run: an anycast and a DNS client at 10 requests/s, site a failing
 * after 3 s of 10, every event, capture and record consistent) is valid
 * with no warning, and one change to it makes the check speak, with a
 * message that names what a user would look for: the agent, the client
 * and its rate, the site, the figure. Then what a user sees: clocks.json's
 * "valid" and "warnings", the table's first and last lines, "≥" for a
 * lower bound, a scheme absent from the table, clocks.json and the
 * report's files.
 */
#include "report.h"
#include "test_clocks_util.h"

#define S (1000 * MS)
#define RATE 10		  /* each client's requests per second */
#define PERIOD (S / RATE) /* and between two of them */
#define NREQ 100	  /* 10 s of traffic */
#define VIA_B "198.18.0.6"

/* sent: request k of a client, from the traffic's start (t0 - 3 s) */
static int64_t sent_at(int k)
{
	return T0 - 3 * S + (int64_t)k * PERIOD + 5 * MS;
}

/* a request as the capture sees it: 1 ms after it was sent */
struct vpkt {
	int64_t t;
	uint32_t client;
	const char *dst;
	uint64_t seq;
};

static int cmp_vpkt(const void *a, const void *b)
{
	const struct vpkt *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

static void write_vpcap(const char *dir, const char *name, struct vpkt *p, size_t n)
{
	struct dumper w;
	uint8_t f[FRAME_MAX];

	if (n > 1)
		qsort(p, n, sizeof(*p), cmp_vpkt);
	dump_open(&w, dir, name, PCAP_TSTAMP_PRECISION_NANO);
	for (size_t i = 0; i < n; i++) {
		struct tpkt t = {p[i].t, 7000, WIRE_REQUEST, p[i].client, p[i].dst};

		dump_frame(&w, p[i].t, f, frame_seq(f, &t, p[i].seq));
	}
	dump_close(&w);
}

/*
 * The requests of valid_run (below) as captured: anycast client 1 and DNS
 * client 100001 send request k at sent_at(k), k < NREQ; site a fails at t0
 * (k = 30). Anycast: k <= 32 reach a (the route goes at 255 ms), then b.
 * DNS: k <= 34 reach a at its own address (authd steers at 301 ms), then
 * b. The requests of a (site 'a') or b, with n more from extra, are
 * written to capture-SITE.pcap; how many, returned.
 */
#define ANY_LAST_AT_A 32
#define DNS_LAST_AT_A 34

static size_t site_capture(const char *dir, char site, int with_dns, const struct vpkt *extra,
			   size_t n)
{
	struct vpkt p[2 * NREQ + 64];
	char name[32];
	size_t np = 0;

	assert_true(n <= 64);
	for (int k = 0; k < NREQ; k++) {
		if ((k <= ANY_LAST_AT_A) == (site == 'a'))
			p[np++] = (struct vpkt){sent_at(k) + MS, 1, ANY, (uint64_t)k};
		if (with_dns && (k <= DNS_LAST_AT_A) == (site == 'a'))
			p[np++] = (struct vpkt){sent_at(k) + MS, DNS_ID(1),
						site == 'a' ? ADDR_A : ADDR_B, (uint64_t)k};
	}
	for (size_t i = 0; i < n; i++)
		p[np++] = extra[i];
	snprintf(name, sizeof(name), "capture-%c.pcap", site);
	write_vpcap(dir, name, p, np);
	return np;
}

/* client_events: NODE.AGENT.events.jsonl of a client: client_started at
 * the traffic's start, client_summary (if summary) at its end */
static void client_events(const char *dir, const char *node, const char *agent, uint32_t id,
			  double rate, int64_t sent, int summary)
{
	char name[128], extra[256];

	snprintf(name, sizeof(name), "%s.%s.events.jsonl", node, agent);
	snprintf(extra, sizeof(extra), ",\"client\":%u,\"target\":\"x\",\"rate\":%.1f", id, rate);
	ev(dir, name, T0 - 3 * S, "client_started", extra);
	if (!summary)
		return;
	snprintf(extra, sizeof(extra), ",\"client\":%u,\"sent\":%lld,\"ok\":0,\"lost\":0", id,
		 (long long)sent);
	ev(dir, name, T0 + 7 * S + MS, "client_summary", extra);
}

/* what site_failed says besides: "routes" in a lab of several routers */
static const char *fail_extra = "";
/* what traffic_stopped says besides ("by": "down") */
static const char *stop_extra = "";

/* lab_events: the lab's events; interrupted: -1 no traffic_stopped, else
 * its flag, stopped at stop */
static void lab_events(const char *dir, int interrupted, int64_t stop)
{
	char failed[512];

	put(dir, "topology.ini", "[lab]\nname = t\nport = 7000\ntimeout = 500ms\n");
	ev(dir, "lab.events.jsonl", T0 - 5 * S, "lab_up", ",\"lab\":\"t\",\"port\":7000");
	ev(dir, "lab.events.jsonl", T0 - 3 * S, "traffic_started",
	   ",\"fail_at_ns\":3000000000,\"duration_ns\":10000000000");
	snprintf(failed, sizeof(failed),
		 ",\"site\":\"a\",\"via\":\"198.18.0.2\",\"prefix\":\"198.19.0.1/32\","
		 "\"address\":\"" ADDR_A
		 "\",\"how\":\"sigkill\",\"killed_ns\":1700000000123556789%s",
		 fail_extra);
	ev(dir, "lab.events.jsonl", T0, "site_failed", failed);
	if (interrupted >= 0) {
		char extra[128];

		snprintf(extra, sizeof(extra), ",\"interrupted\":%s%s",
			 interrupted ? "true" : "false", stop_extra);
		ev(dir, "lab.events.jsonl", stop, "traffic_stopped", extra);
	}
	ev(dir, "lab.events.jsonl", T0 + 7800 * MS, "lab_stopping", "");
	ev(dir, "lab.events.jsonl", T0 + 9 * S, "lab_down", "");
}

/*
 * valid_run: a run that passes every check: the requests of site_capture,
 * those sent before t0 answered, those that reached a after it lost (3
 * anycast, 5 DNS), the others answered by b; the clients' events, the
 * probers', the collector's, authd's. with_dns: with the DNS client, its
 * query capture and authd's events; else anycast alone.
 */
/* the RTT of every answered request of valid_run */
static int64_t valid_rtt_ns = 2000000;

static void valid_run_as(const char *dir, int with_dns)
{
	size_t na, nb;
	const char *col = "core.collector.events.jsonl", *authd = "ns.authd.events.jsonl";
	const char *route = ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\"";
	char extra[256];

	lab_events(dir, 0, T0 + 7500 * MS);
	put(dir, "requests-c1.csv", "client,seq,sent_ns,status,site,rtt_ns\n");
	for (int k = 0; k < NREQ; k++) {
		int dead = k >= 30 && k <= ANY_LAST_AT_A, at_a = k <= ANY_LAST_AT_A;

		put(dir, "requests-c1.csv", "1,%d,%lld,%s,%s,%d\n", k, (long long)sent_at(k),
		    dead ? "timeout" : "ok",
		    dead   ? ""
		    : at_a ? "a"
			   : "b",
		    dead ? 0 : (int)valid_rtt_ns);
	}
	client_events(dir, "c1", "client", 1, RATE, NREQ, 1);
	if (with_dns) {
		put(dir, "requests-c1-dns.csv", "client,seq,sent_ns,status,site,rtt_ns\n");
		for (int k = 0; k < NREQ; k++) {
			int dead = k >= 30 && k <= DNS_LAST_AT_A, at_a = k <= DNS_LAST_AT_A;

			put(dir, "requests-c1-dns.csv", "100001,%d,%lld,%s,%s,%d\n", k,
			    (long long)sent_at(k), dead ? "timeout" : "ok",
			    dead   ? ""
			    : at_a ? "a"
				   : "b",
			    dead ? 0 : (int)valid_rtt_ns);
		}
		client_events(dir, "c1", "client-dns", DNS_ID(1), RATE, NREQ, 1);
	}
	na = site_capture(dir, 'a', with_dns, NULL, 0);
	nb = site_capture(dir, 'b', with_dns, NULL, 0);
	ev(dir, "a.prober.events.jsonl", T0 + 250 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, col, T0 - 4 * S, "route_added", route);
	ev(dir, col, T0 + 255 * MS, "route_deleted", route);
	snprintf(extra, sizeof(extra),
		 ",\"label\":\"a\",\"packets\":%zu,\"received\":%zu,\"dropped\":0,\"if_dropped\":0,"
		 "\"written\":%zu",
		 na, na, na);
	ev(dir, col, T0 + 8 * S, "capture_stats", extra);
	snprintf(extra, sizeof(extra),
		 ",\"label\":\"b\",\"packets\":%zu,\"received\":%zu,\"dropped\":0,\"if_dropped\":0,"
		 "\"written\":%zu",
		 nb, nb, nb);
	ev(dir, col, T0 + 8 * S, "capture_stats", extra);
	if (!with_dns)
		return;
	const struct tquery q[] = {{T0 - 2900 * MS, "198.18.0.26", 53, 0},
				   {T0 + 2100 * MS, "198.18.0.26", 53, 0}};
	write_query_pcap(dir, "capture-dns-ns.pcap", q, 2);
	ev(dir, "core.collector-dns.events.jsonl", T0 + 8 * S, "capture_stats",
	   ",\"label\":\"dns-ns\",\"packets\":2,\"received\":2,\"dropped\":0,\"if_dropped\":0,"
	   "\"written\":2");
	ev(dir, "p1.prober.events.jsonl", T0 + 280 * MS, "declared_dead", ",\"site\":\"a\"");
	ev(dir, authd, T0 - 4 * S, "answer_changed",
	   ",\"name\":\"w.\",\"before\":[],\"after\":[\"" ADDR_A "\"]");
	ev(dir, authd, T0 + 300 * MS, "health_changed", ",\"site\":\"a\",\"healthy\":false");
	ev(dir, authd, T0 + 301 * MS, "answer_changed",
	   ",\"name\":\"w.\",\"before\":[\"" ADDR_A "\"],\"after\":[\"" ADDR_B "\"]");
}

static void valid_run(const char *dir)
{
	valid_run_as(dir, 1);
}

/* rm: remove dir/name */
static void rm(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(unlink(path), 0);
}

/* expect: analyse dir; the run's validity, and the table */
static json_t *expect(const char *dir, int valid, char **table)
{
	json_t *root = analyse(dir, table);

	if (is_valid(root) != valid)
		fail_msg("the run is %s, expected %s; first warning: %s",
			 is_valid(root) ? "valid" : "invalid", valid ? "valid" : "invalid",
			 json_string_value(json_object_get(
			     json_array_get(json_object_get(root, "warnings"), 0), "message")));
	return root;
}

/* last_line: the table's last line */
static const char *last_line(const char *table)
{
	size_t n = strlen(table);
	const char *p;

	assert_true(n > 1 && table[n - 1] == '\n');
	for (p = table + n - 2; p > table && p[-1] != '\n'; p--)
		;
	return p;
}

/* after_title: the table after its title's two lines (the failure, the
 * site's addresses): where the warnings are said */
static const char *after_title(const char *table)
{
	const char *p = strchr(table, '\n');

	assert_non_null(p);
	assert_memory_equal(table, "lab ", 4);
	p = strchr(p + 1, '\n');
	assert_non_null(p);
	return p + 1;
}

static void test_valid_run(void **state)
{
	const char *dir = *state;
	char *table;
	json_t *root;

	valid_run(dir);
	root = expect(dir, 1, &table);
	assert_int_equal(count_code(root, NULL), 0);
	assert_seconds(anycast(root), "window_s", 0.206);
	assert_seconds(dns(root), "window_s", 0.406);
	assert_true(json_is_false(json_object_get(dns(root), "window_lower_bound")));
	assert_int_equal(json_array_size(json_object_get(root, "schemes_absent")), 0);
	assert_count(json_object_get(root, "failed"), "killed_ns", 1700000000123556789LL);
	/* nothing loud: the table opens with the lab, ends with the verdict */
	assert_memory_equal(table, "lab t: site a failed", 20);
	assert_string_equal(last_line(table),
			    "valid run: every self-check passed (docs/clocks.md, \"Verdict\")\n");
	assert_null(strstr(table, "\u2265"));
	free(table);
	json_decref(root);
}

static void test_agent_exited(void **state)
{
	const char *dir = *state;
	char *table;
	json_t *root;

	valid_run(dir);
	/* expected: the failing site's sited, killed at t0; and an agent that
	 * ends after the teardown began is the lab stopping it */
	ev(dir, "lab.events.jsonl", T0 + 1 * MS, "agent_exited",
	   ",\"node\":\"a\",\"agent\":\"sited\",\"pid\":41,\"exit_code\":null,\"signal\":9,"
	   "\"expected\":true");
	ev(dir, "lab.events.jsonl", T0 + 7900 * MS, "agent_exited",
	   ",\"node\":\"p1\",\"agent\":\"prober\",\"pid\":43,\"exit_code\":1,\"signal\":null,"
	   "\"expected\":false");
	json_decref(expect(dir, 1, NULL));
	/* not expected, during the run: resolverd killed, authd exited */
	ev(dir, "lab.events.jsonl", T0 + 1 * S, "agent_exited",
	   ",\"node\":\"r\",\"agent\":\"resolverd\",\"pid\":4242,\"exit_code\":null,\"signal\":9,"
	   "\"expected\":false");
	ev(dir, "lab.events.jsonl", T0 + 2 * S, "agent_exited",
	   ",\"node\":\"ns\",\"agent\":\"authd\",\"pid\":4243,\"exit_code\":1,\"signal\":null,"
	   "\"expected\":false");
	root = expect(dir, 0, &table);
	assert_code(root, "agent_exited",
		    "resolverd on r (pid 4242) was killed by signal 9 (SIGKILL) at t0 + 1.000 s, "
		    "4.000 s into the traffic",
		    1);
	assert_code(root, "agent_exited", "authd on ns (pid 4243) exited with status 1", 1);
	assert_int_equal(count_code(root, "agent_exited"), 2);
	/* loud: first and last lines */
	assert_memory_equal(after_title(table), "*** INVALID RUN: 2 self-checks failed", 37);
	assert_non_null(strstr(table, "\nINVALID (agent_exited): resolverd on r (pid 4242)"));
	assert_string_equal(
	    last_line(table),
	    "*** INVALID RUN (agent_exited): see docs/clocks.md, \"Verdict\" ***\n");
	free(table);
	json_decref(root);
}

static void test_client_behind(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	/* 1 % behind is within the tolerance */
	rm(dir, "c1.client.events.jsonl");
	client_events(dir, "c1", "client", 1, RATE, 99, 1);
	json_decref(expect(dir, 1, NULL));
	/* 10 % behind is not */
	rm(dir, "c1.client.events.jsonl");
	client_events(dir, "c1", "client", 1, RATE, 90, 1);
	root = expect(dir, 0, NULL);
	assert_code(root, "client_behind",
		    "client 1 (client on c1) sent 90 requests in 10.000 s: 9.0 per s, 10.0 % "
		    "behind its configured 10.0 per s",
		    1);
	json_decref(root);
	/* every request sent, but over 12.5 s of a 10 s run: it fell behind and
	 * caught up late, which is as bad */
	rm(dir, "c1.client.events.jsonl");
	client_events(dir, "c1", "client", 1, RATE, 100, 0);
	ev(dir, "c1.client.events.jsonl", T0 + 10 * S, "client_summary",
	   ",\"client\":1,\"sent\":100,\"ok\":100,\"lost\":0,\"sending_ns\":12500000000");
	root = expect(dir, 0, NULL);
	assert_code(root, "client_behind",
		    "client 1 (client on c1) sent 100 requests in 12.500 s: 8.0 per s, 20.0 % "
		    "behind its configured 10.0 per s",
		    1);
	json_decref(root);
}

/* client_csv: client 1's records of valid_run, requests first to last
 * sent at late_at (from t0) instead, in a burst, answered by b */
static void client_csv(const char *dir, int first, int last, int64_t late_at)
{
	rm(dir, "requests-c1.csv");
	put(dir, "requests-c1.csv", "client,seq,sent_ns,status,site,rtt_ns\n");
	for (int k = 0; k < NREQ; k++) {
		int dead = k >= 30 && k <= ANY_LAST_AT_A, at_a = k <= ANY_LAST_AT_A;
		int64_t sent = sent_at(k);

		if (k >= first && k <= last) {
			sent = T0 + late_at + (k - first) * 1000;
			dead = at_a = 0;
		}
		put(dir, "requests-c1.csv", "1,%d,%lld,%s,%s,%d\n", k, (long long)sent,
		    dead ? "timeout" : "ok",
		    dead   ? ""
		    : at_a ? "a"
			   : "b",
		    dead ? 0 : 2000000);
	}
}

/* SIGSTOP of a client for 1 s across t0: it catches up in a burst, so its
 * rate is right, but where its requests went at t0 is not measured */
static void test_client_stalled(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	/* the requests due from t0 - 395 ms to t0 + 505 ms, sent at t0 + 520 ms */
	client_csv(dir, 26, 35, 520 * MS);
	root = analyse(dir, NULL);
	assert_code(root, "client_stalled",
		    "client 1 (client on c1) sent nothing from t0 - 0.495 s to t0 + 0.520 s, a gap "
		    "of 1.015 s though it sends every 0.100 s, across t0: it was not running "
		    "(stopped, or starved of CPU), so when it left a is not measured (a gap of "
		    "more than 2 intervals and 0.100 s invalidates)",
		    1);
	assert_no_code(root, "client_behind");
	json_decref(root);
	/* 150 ms, one request late by half an interval: within the tolerance */
	client_csv(dir, 30, 30, 50 * MS);
	root = analyse(dir, NULL);
	assert_no_code(root, "client_stalled");
	json_decref(root);
}

/* pop_csv: a population of 100 logical clients (node 3, anycast: base
 * 2^31 + 3 x 2^17) sending 1000 requests a second in all, paced, each
 * answered by b; those due from t0 + gap_from to t0 + gap_to sent at the
 * gap's end instead (starved of CPU, then its backlog in a burst) */
static void pop_csv(const char *dir, int64_t gap_from, int64_t gap_to)
{
	uint32_t base = WIRE_POP_ID(3, 0, 0);
	char extra[256], path[512];
	long n = 0;

	/* the ones before, if any */
	snprintf(path, sizeof(path), "%s/requests-users.csv", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/users.client.events.jsonl", dir);
	unlink(path);
	put(dir, "requests-users.csv", "client,seq,sent_ns,status,site,rtt_ns\n");
	for (int64_t t = T0 - 3 * S; t < T0 + 7 * S; t += MS, n++) {
		int64_t sent = t > T0 + gap_from && t < T0 + gap_to ? T0 + gap_to : t;

		put(dir, "requests-users.csv", "%u,%ld,%lld,ok,b,%d\n", base + (uint32_t)(n % 100),
		    n, (long long)sent, (int)valid_rtt_ns);
	}
	snprintf(extra, sizeof(extra),
		 ",\"client\":%u,\"target\":\"x\",\"rate\":1000.0,\"population\":100", base);
	ev(dir, "users.client.events.jsonl", T0 - 3 * S, "client_started", extra);
	snprintf(extra, sizeof(extra), ",\"client\":%u,\"sent\":%ld,\"ok\":%ld,\"lost\":0", base, n,
		 n);
	ev(dir, "users.client.events.jsonl", T0 + 7 * S + MS, "client_summary", extra);
}

/* a population starved of CPU for 300 ms after t0 sends its backlog in a
 * burst: its total passes client_behind, but its 100 ms buckets do not
 * (verdict_pop.c); one on schedule, or 40 ms late, passes */
static void test_population_stalled(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	pop_csv(dir, 0, 0);
	root = analyse(dir, NULL);
	assert_no_code(root, "client_stalled");
	json_decref(root);
	pop_csv(dir, 1000 * MS, 1040 * MS);
	root = analyse(dir, NULL);
	assert_no_code(root, "client_stalled");
	json_decref(root);
	pop_csv(dir, 1000 * MS, 1300 * MS);
	root = analyse(dir, NULL);
	assert_code(root, "client_stalled",
		    "population 2147876864 (client on users, 100 logical clients) sent 0 requests "
		    "from t0 + 1.000 s in 100 ms though its rate sends 100",
		    1);
	assert_no_code(root, "client_behind");
	json_decref(root);
}

static void test_client_killed(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	rm(dir, "c1.client-dns.events.jsonl");
	client_events(dir, "c1", "client-dns", DNS_ID(1), RATE, 0, 0);
	root = expect(dir, 0, NULL);
	assert_code(root, "client_behind",
		    "client 100001 (client-dns on c1) started but wrote no client_summary", 1);
	json_decref(root);
}

/* records of clients without their events: a warning, the run stays valid */
static void test_client_rate_unchecked(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	rm(dir, "c1.client-dns.events.jsonl");
	root = expect(dir, 1, NULL);
	assert_code(root, "client_rate_unchecked", "1 client of the records (100001)", 0);
	json_decref(root);
	rm(dir, "c1.client.events.jsonl");
	root = expect(dir, 1, NULL);
	assert_code(root, "client_rate_unchecked", "no NODE.client*.events.jsonl", 0);
	json_decref(root);
}

/* a request lost just before t0, sent within the client timeout and seen
 * at the dying site, is the failure's */
static void test_loss_before_t0_explained(void **state)
{
	const char *dir = *state;
	struct vpkt p = {T0 - 99 * MS, 1, ANY, 500};

	valid_run(dir);
	put(dir, "requests-c1.csv", "1,500,%lld,timeout,,0\n", (long long)(T0 - 100 * MS));
	site_capture(dir, 'a', 1, &p, 1);
	json_decref(expect(dir, 1, NULL));
}

/* requests queued in a when it failed: captured on a's link before t0,
 * sent within a timeout before it, lost. The failure's (a warning), and
 * counted with the capture's losses: 20 of them are no loss_mismatch */
static void test_lost_queued(void **state)
{
	const char *dir = *state;
	struct vpkt p[20];
	json_t *root;

	valid_run(dir);
	for (int i = 0; i < 20; i++) {
		p[i] = (struct vpkt){T0 - 50 * MS + i * MS, 1, ANY, (uint64_t)(600 + i)};
		put(dir, "requests-c1.csv", "1,%d,%lld,timeout,,0\n", 600 + i,
		    (long long)(T0 - 60 * MS + i * MS));
	}
	site_capture(dir, 'a', 1, p, 20);
	root = expect(dir, 1, NULL);
	assert_code(root, "lost_queued",
		    "anycast: 20 of the 23 requests the clients lost reached a's link before t0 "
		    "(sent less than one client timeout before it): queued in a when it failed",
		    0);
	assert_no_code(root, "loss_mismatch");
	assert_no_code(root, "unexplained_loss");
	/* the capture's own count is still the requests after t0 */
	assert_count(anycast(root), "lost_capture", 3);
	json_decref(root);
}

/* three requests queued in a when it failed: every kill has a few, within
 * loss_mismatch's tolerance: no warning */
static void test_few_queued(void **state)
{
	const char *dir = *state;
	struct vpkt p[3];
	json_t *root;

	valid_run(dir);
	for (int i = 0; i < 3; i++) {
		p[i] = (struct vpkt){T0 - 5 * MS + i * MS, 1, ANY, (uint64_t)(600 + i)};
		put(dir, "requests-c1.csv", "1,%d,%lld,timeout,,0\n", 600 + i,
		    (long long)(T0 - 6 * MS + i * MS));
	}
	site_capture(dir, 'a', 1, p, 3);
	root = expect(dir, 1, NULL);
	assert_no_code(root, "lost_queued");
	assert_no_code(root, "loss_mismatch");
	assert_no_code(root, "unexplained_loss");
	json_decref(root);
}

static void test_unexplained_loss(void **state)
{
	const char *dir = *state;
	struct vpkt p = {T0 + 1 * S + MS, 1, ANY, 300};
	json_t *root;

	valid_run(dir);
	/* one sent long before t0; one that reached b and was not answered;
	 * one that reached no site's link */
	put(dir, "requests-c1.csv", "1,200,%lld,timeout,,0\n", (long long)(T0 - 2 * S));
	put(dir, "requests-c1.csv", "1,300,%lld,timeout,,0\n", (long long)(T0 + 1 * S));
	put(dir, "requests-c1.csv", "1,301,%lld,timeout,,0\n", (long long)(T0 + 2 * S));
	site_capture(dir, 'b', 1, &p, 1);
	root = expect(dir, 0, NULL);
	assert_code(root, "unexplained_loss",
		    "anycast: 3 of the 6 requests the clients lost are not explained by the "
		    "failure of a: 1 reached site b, which did not answer in time; 1 reached no "
		    "site's link; 1 was sent more than 0.500 s (the client timeout) before t0, "
		    "the first at t0 - 2.000 s",
		    1);
	assert_no_code(root, "loss_mismatch");
	json_decref(root);
}

/* a request lost at no site's link, sent before the last FIB change: lost
 * on the way while the routers converged (a warning, the run valid); the
 * same after the last change is unexplained */
static void test_lost_in_transit(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	put(dir, "requests-c1.csv", "1,300,%lld,timeout,,0\n", (long long)(T0 + 100 * MS));
	root = expect(dir, 1, NULL);
	assert_code(root, "lost_in_transit",
		    "anycast: 1 of the 4 requests the clients lost reached no site's link: sent "
		    "before the last FIB change (t0 + 0.255 s)",
		    0);
	assert_no_code(root, "unexplained_loss");
	json_decref(root);
	put(dir, "requests-c1.csv", "1,301,%lld,timeout,,0\n", (long long)(T0 + 1 * S));
	root = expect(dir, 0, NULL);
	assert_code(root, "unexplained_loss",
		    "anycast: 1 of the 5 requests the clients lost are not explained by the "
		    "failure of a: 1 reached no site's link",
		    1);
	json_decref(root);
}

/* requests seen at the dead site that the clients do not count lost:
 * more than 10 and 1 % invalidate, 10 do not */
static void test_loss_mismatch(void **state)
{
	const char *dir = *state;
	struct vpkt p[20];
	json_t *root;

	valid_run(dir);
	for (int i = 0; i < 20; i++)
		p[i] = (struct vpkt){T0 + 1 * S + i * MS, 2, ANY, (uint64_t)i};
	site_capture(dir, 'a', 1, p, 10);
	json_decref(expect(dir, 1, NULL));
	site_capture(dir, 'a', 1, p, 20);
	root = expect(dir, 0, NULL);
	assert_code(root, "loss_mismatch",
		    "anycast: the clients lost 3 requests and the capture of a's link 23 (23 "
		    "reached it after t0, 0 were lost on the way, queued in a at t0 or reached it "
		    "before it answered again, 0 it answered after t0): they differ by 20",
		    1);
	assert_int_equal(count_code(root, "loss_mismatch"), 1);
	json_decref(root);
}

/* the failure took effect after t0 (a freeze's nftables table is in place
 * milliseconds after t0 is stamped): requests captured on a's link after
 * t0 that a answered are no losses, and no loss_mismatch */
static void test_answered_after_t0(void **state)
{
	const char *dir = *state;
	struct vpkt p[20];
	json_t *root;

	valid_run(dir);
	for (int i = 0; i < 20; i++) {
		p[i] = (struct vpkt){T0 + 1 * MS + i * MS / 2, 1, ANY, (uint64_t)(700 + i)};
		put(dir, "requests-c1.csv", "1,%d,%lld,ok,a,1000000\n", 700 + i,
		    (long long)(T0 + i * MS / 2));
	}
	site_capture(dir, 'a', 1, p, 20);
	root = expect(dir, 1, NULL);
	assert_no_code(root, "loss_mismatch");
	/* the capture's own count is still every request after t0 */
	assert_count(anycast(root), "lost_capture", 23);
	json_decref(root);
}

/* answered, but by another site: those captured on a's link after t0 are
 * not a's answers, and 12 of them make a loss_mismatch */
static void test_answered_elsewhere(void **state)
{
	const char *dir = *state;
	struct vpkt p[24];
	json_t *root;

	valid_run(dir);
	for (int i = 0; i < 24; i++) {
		p[i] = (struct vpkt){T0 + 1 * MS + i * MS / 2, 1, ANY, (uint64_t)(700 + i)};
		put(dir, "requests-c1.csv", "1,%d,%lld,ok,%s,1000000\n", 700 + i,
		    (long long)(T0 + i * MS / 2), i % 2 ? "b" : "a");
	}
	site_capture(dir, 'a', 1, p, 24);
	root = expect(dir, 0, NULL);
	assert_code(root, "loss_mismatch",
		    "anycast: the clients lost 3 requests and the capture of a's link 15 (27 "
		    "reached it after t0, 0 were lost on the way, queued in a at t0 or reached it "
		    "before it answered again, 12 it answered after t0): they differ by 12",
		    1);
	json_decref(root);
}

static void test_healthy_site_dead(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	/* while the lab settles, and once it is stopping: not the run's */
	ev(dir, "p1.prober.events.jsonl", T0 - 4 * S, "declared_dead", ",\"site\":\"b\"");
	ev(dir, "p1.prober.events.jsonl", T0 + 7900 * MS, "declared_dead", ",\"site\":\"b\"");
	ev(dir, "ns.authd.events.jsonl", T0 + 7900 * MS, "health_changed",
	   ",\"site\":\"b\",\"healthy\":false");
	json_decref(expect(dir, 1, NULL));
	ev(dir, "p1.prober.events.jsonl", T0 + 1 * S, "declared_dead", ",\"site\":\"b\"");
	ev(dir, "b.prober.events.jsonl", T0 + 1100 * MS, "declared_dead", ",\"site\":\"b\"");
	ev(dir, "b.prober.events.jsonl", T0 + 1200 * MS, "declared_dead", ",\"site\":\"b\"");
	ev(dir, "ns.authd.events.jsonl", T0 + 2 * S, "health_changed",
	   ",\"site\":\"b\",\"healthy\":false");
	root = expect(dir, 0, NULL);
	assert_code(root, "healthy_site_dead",
		    "the prober on p1 declared site b dead once, first at t0 + 1.000 s, though "
		    "it is not the failing site",
		    1);
	assert_code(root, "healthy_site_dead", "the prober on b declared site b dead 2 times", 1);
	assert_code(root, "healthy_site_dead",
		    "authd marked site b unhealthy once, first at t0 + 2.000 s", 1);
	json_decref(root);
}

/* what the timeline did (event_applied) is not a healthy site dying: b
 * crashed at t0 + 0.5 s, its declarations, authd's verdict and the route
 * via its link after that are the timeline's; the same before the step
 * are not; losses are then not compared with a's capture (loss_unchecked) */
static void test_timeline_hits(void **state)
{
	const char *dir = *state;
	const char *col = "core.collector.events.jsonl";
	json_t *root;

	valid_run(dir);
	ev(dir, "lab.events.jsonl", T0 + 500 * MS, "event_applied",
	   ",\"name\":\"e2\",\"action\":\"crash\",\"target\":\"b\",\"kind\":\"site\","
	   "\"site\":\"b\",\"step\":null,\"cycle\":0,\"vias\":[\"" VIA_B "\"]");
	ev(dir, "p1.prober.events.jsonl", T0 + 1 * S, "declared_dead", ",\"site\":\"b\"");
	ev(dir, "ns.authd.events.jsonl", T0 + 2 * S, "health_changed",
	   ",\"site\":\"b\",\"healthy\":false");
	ev(dir, col, T0 + 1 * S, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"" VIA_B "\"");
	root = expect(dir, 1, NULL);
	assert_int_equal(count_code(root, "healthy_site_dead"), 0);
	assert_int_equal(count_code(root, "healthy_route_withdrawn"), 0);
	assert_code(root, "loss_unchecked", "the timeline took site b out too (e2)", 0);
	json_decref(root);
	/* before the step: a healthy site dying */
	ev(dir, "p1.prober.events.jsonl", T0 + 400 * MS, "declared_dead", ",\"site\":\"b\"");
	root = expect(dir, 0, NULL);
	assert_code(root, "healthy_site_dead",
		    "the prober on p1 declared site b dead once, first at t0 + 0.400 s", 1);
	json_decref(root);
}

/* recovered: the timeline's recover of site a, applied at t */
static void recovered(const char *dir, int64_t t)
{
	ev(dir, "lab.events.jsonl", t, "event_applied",
	   ",\"name\":\"r\",\"action\":\"recover\",\"target\":\"a\",\"kind\":\"site\","
	   "\"site\":\"a\",\"step\":null,\"cycle\":0,\"vias\":[]");
}

/* a recovery of the failed site ends its failure for the clocks (the
 * requests that reach a after it are answered, not lost) and starts its
 * fail-back clocks */
static void test_recovery_ends_window(void **state)
{
	const char *dir = *state;
	json_t *root, *any;

	valid_run(dir);
	root = expect(dir, 1, NULL);
	any = json_object_get(json_object_get(root, "schemes"), "anycast");
	assert_true(json_real_value(json_object_get(any, "window_s")) > 0.2);
	assert_null(json_object_get(any, "failback")); /* no recovery: none */
	json_decref(root);
	recovered(dir, T0 + 100 * MS);
	ev(dir, "a.prober.events.jsonl", T0 + 350 * MS, "declared_alive", ",\"site\":\"a\"");
	ev(dir, "core.collector.events.jsonl", T0 + 360 * MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\"");
	root = analyse(dir, NULL);
	any = json_object_get(json_object_get(root, "schemes"), "anycast");
	assert_true(json_real_value(json_object_get(any, "window_s")) < 0.1);
	assert_int_equal(json_integer_value(json_object_get(any, "lost_capture")), 1);
	/* the fail-back clocks, from the recovery: healthy at 250 ms, the route
	 * back at 260 ms, the client's first request to a at 6 ms (request 31,
	 * sent at t0 + 105 ms, captured 1 ms later) */
	json_t *fb = json_object_get(any, "failback");
	assert_non_null(fb);
	assert_true(fabs(json_real_value(json_object_get(fb, "recovered_s")) - 0.1) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(fb, "healthy_s")) - 0.25) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(fb, "steer_s")) - 0.26) < 1e-6);
	assert_true(fabs(json_real_value(json_object_get(fb, "first_client_s")) - 0.006) < 1e-6);
	assert_int_equal(json_integer_value(json_object_get(fb, "clients_back")), 1);
	json_decref(root);
}

/* a recovered site answers again some time after the recovery began (its
 * sited starting, slower on a busy machine): the requests it got meanwhile
 * are lost, and the failure's, though its capture counts the outage up to
 * the recovery only: no loss_mismatch */
static void test_lost_while_restarting(void **state)
{
	const char *dir = *state;
	struct vpkt p[20];
	json_t *root;

	valid_run(dir);
	recovered(dir, T0 + 100 * MS);
	for (int i = 0; i < 20; i++) {
		p[i] = (struct vpkt){T0 + 150 * MS + i * MS, 1, ANY, (uint64_t)(800 + i)};
		put(dir, "requests-c1.csv", "1,%d,%lld,timeout,,0\n", 800 + i,
		    (long long)(T0 + 149 * MS + i * MS));
	}
	site_capture(dir, 'a', 1, p, 20);
	root = expect(dir, 1, NULL);
	assert_no_code(root, "loss_mismatch");
	assert_no_code(root, "unexplained_loss");
	json_decref(root);
}

/* the failed site taken out again after its recovery (a flap's next
 * down): the capture's count is the first failure's, so the losses are not
 * compared (loss_unchecked, not loss_mismatch) */
static void test_failed_again(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	ev(dir, "lab.events.jsonl", T0 + 100 * MS, "event_applied",
	   ",\"name\":\"e1\",\"action\":\"flap\",\"target\":\"a\",\"kind\":\"site\","
	   "\"site\":\"a\",\"step\":\"up\",\"cycle\":1,\"vias\":[]");
	ev(dir, "lab.events.jsonl", T0 + 200 * MS, "event_applied",
	   ",\"name\":\"e1\",\"action\":\"flap\",\"target\":\"a\",\"kind\":\"site\","
	   "\"site\":\"a\",\"step\":\"down\",\"cycle\":2,\"vias\":[\"198.18.0.2\"]");
	root = analyse(dir, NULL);
	assert_int_equal(count_code(root, "loss_mismatch"), 0);
	assert_code(root, "loss_unchecked",
		    "the timeline took a out again after its recovery (e1, a flap's next down)", 0);
	json_decref(root);
}

/* second_failure: site b fails too at t0 + at (site_failed and its step,
 * as lab/run/actions.c writes both) */
static void second_failure(const char *dir, int64_t at)
{
	ev(dir, "lab.events.jsonl", T0 + at, "site_failed",
	   ",\"site\":\"b\",\"via\":\"" VIA_B "\",\"prefix\":\"198.19.0.1/32\",\"address\":"
	   "\"" ADDR_B "\",\"how\":\"sigkill\",\"cause\":\"e2\"");
	ev(dir, "lab.events.jsonl", T0 + at, "event_applied",
	   ",\"name\":\"e2\",\"action\":\"kill\",\"target\":\"b\",\"kind\":\"site\","
	   "\"site\":\"b\",\"cycle\":0,\"vias\":[\"" VIA_B "\"]");
}

/* two failures, each site's losses counted at its own link: the clients'
 * losses are compared with the sum (no loss_unchecked); b failing after
 * its last request lost nothing there */
static void test_two_failures_compared(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	second_failure(dir, 6950 * MS);
	root = expect(dir, 1, NULL);
	assert_int_equal(count_code(root, "loss_unchecked"), 0);
	assert_int_equal(count_code(root, "loss_mismatch"), 0);
	assert_int_equal(json_array_size(json_object_get(root, "failures")), 1);
	json_decref(root);
}

/* b "failed" at t0 + 5 s, yet the clients had its answers to what reached
 * it after: the failures' captures count more than the clients lost */
static void test_two_failures_mismatch(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	second_failure(dir, 5 * S);
	root = expect(dir, 0, NULL);
	assert_int_equal(count_code(root, "loss_unchecked"), 0);
	assert_code(root, "loss_mismatch",
		    "anycast: the clients lost 3 requests and the captures of the failed sites' "
		    "links saw 23 reach them while they were out (a 3, b 20)",
		    1);
	json_decref(root);
}

static void test_healthy_route_withdrawn(void **state)
{
	const char *dir = *state;
	const char *col = "core.collector.events.jsonl";
	json_t *root;

	valid_run(dir);
	/* the teardown withdraws every route: not the run's */
	ev(dir, col, T0 + 7900 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"" VIA_B "\"");
	/* another prefix is not the service's */
	ev(dir, col, T0 + 1 * S, "route_deleted",
	   ",\"prefix\":\"198.19.9.0/24\",\"via\":\"" VIA_B "\"");
	json_decref(expect(dir, 1, NULL));
	ev(dir, col, T0 + 1 * S, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"" VIA_B "\"");
	root = expect(dir, 0, NULL);
	assert_code(root, "healthy_route_withdrawn",
		    "the route to 198.19.0.1/32 via 198.18.0.6 left the router's FIB once, first "
		    "at t0 + 1.000 s, though it is not the failing site's link",
		    1);
	json_decref(root);
}

/* several routers: the failed site's route leaves r2's FIB too, via r1
 * (site_failed's "routes"); that is no healthy route withdrawn, but the
 * same next hop at another metric, or before t0, is */
static void test_healthy_route_withdrawn_routers(void **state)
{
	const char *dir = *state;
	const char *col = "r2.collector.events.jsonl";
	json_t *root;

	fail_extra = ",\"routes\":[{\"router\":\"core\",\"via\":\"198.18.0.2\",\"metric\":10},"
		     "{\"router\":\"r2\",\"via\":\"198.18.32.1\",\"metric\":16777226}]";
	valid_run(dir);
	fail_extra = "";
	ev(dir, col, T0 + 300 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.32.1\",\"metric\":16777226");
	json_decref(expect(dir, 1, NULL));
	/* another site's route through r1: not the failed one */
	ev(dir, col, T0 + 400 * MS, "route_deleted",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.32.1\",\"metric\":16777236");
	root = expect(dir, 0, NULL);
	assert_code(root, "healthy_route_withdrawn",
		    "the route to 198.19.0.1/32 via 198.18.32.1 left the router's FIB once, first "
		    "at t0 + 0.400 s, though it is not the failing site's link",
		    1);
	json_decref(root);
}

/* a route_deleted event's node and metric, and site_failed's routes, read */
static void test_fail_routes_malformed(void **state)
{
	const char *dir = *state;
	char err[512];
	struct clocks_input in;

	fail_extra = ",\"routes\":[{\"router\":\"r2\",\"via\":\"nowhere\",\"metric\":1}]";
	valid_run(dir);
	fail_extra = "";
	assert_int_equal(clocks_load(dir, &in, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "site_failed has an entry without router, via and metric in "
				    "\"routes\""));
}

/* routing = bgp: a route leaves the FIB by a replacement via another next
 * hop (zebra), with no deletion of its own */
static void test_healthy_route_replaced(void **state)
{
	const char *dir = *state;
	const char *col = "core.collector.events.jsonl";
	json_t *root;

	valid_run(dir);
	ev(dir, col, T0 + 1 * S, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"" VIA_B "\",\"replace\":true");
	json_decref(expect(dir, 1, NULL));
	ev(dir, col, T0 + 2 * S, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.10\",\"replace\":true");
	root = expect(dir, 0, NULL);
	assert_code(root, "healthy_route_withdrawn",
		    "the route to 198.19.0.1/32 via 198.18.0.6 left the router's FIB once, first "
		    "at t0 + 2.000 s, though it is not the failing site's link",
		    1);
	json_decref(root);
}

/* with BGP, the route moves back to a by a replacement once a recovers: the
 * fail-back, not b's route leaving; the same move before the recovery is */
static void test_failback_route_replaced(void **state)
{
	const char *dir = *state;
	const char *col = "core.collector.events.jsonl";

	valid_run(dir);
	ev(dir, col, T0 + 1 * S, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"" VIA_B "\",\"replace\":true");
	recovered(dir, T0 + 2 * S);
	ev(dir, col, T0 + 2 * S + 300 * MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"replace\":true");
	json_decref(expect(dir, 1, NULL));
}

static void test_failback_early_replace(void **state)
{
	const char *dir = *state;
	const char *col = "core.collector.events.jsonl";
	json_t *root;

	valid_run(dir);
	ev(dir, col, T0 + 1 * S, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"" VIA_B "\",\"replace\":true");
	ev(dir, col, T0 + 1 * S + 300 * MS, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\",\"replace\":true");
	recovered(dir, T0 + 2 * S);
	root = expect(dir, 0, NULL);
	assert_code(root, "healthy_route_withdrawn",
		    "the route to 198.19.0.1/32 via 198.18.0.6 left the router's FIB once, first "
		    "at t0 + 1.300 s, though it is not the failing site's link",
		    1);
	json_decref(root);
}

static void test_capture_drops(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	ev(dir, "core.collector.events.jsonl", T0 + 8 * S, "capture_stats",
	   ",\"label\":\"c\",\"packets\":9,\"received\":11,\"dropped\":2,\"if_dropped\":0");
	write_vpcap(dir, "capture-c.pcap", NULL, 0);
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_drops",
		    "the collector on core dropped 2 packets of link c (dropped 2, if_dropped 0)",
		    1);
	json_decref(root);
}

static void test_capture_stats_missing(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	ev(dir, "core.collector.events.jsonl", T0 + 8 * S, "capture_stats",
	   ",\"label\":\"c\",\"packets\":9,\"received\":9,\"dropped\":null,\"if_dropped\":null");
	write_vpcap(dir, "capture-c.pcap", NULL, 0);
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_stats_missing",
		    "the collector on core has no drop counts for link c", 1);
	json_decref(root);
	rm(dir, "core.collector.events.jsonl");
	rm(dir, "core.collector-dns.events.jsonl");
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_stats_missing", "no capture_stats", 1);
	json_decref(root);
}

static void test_capture_missing(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	rm(dir, "capture-b.pcap");
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_missing",
		    "no capture-b.pcap, though the collector on core captured link b", 1);
	json_decref(root);
	rm(dir, "capture-a.pcap");
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_missing", "no capture-a.pcap of the failed site's link", 1);
	json_decref(root);
}

/* the collector wrote more than the file holds */
static void test_capture_written(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	ev(dir, "core.collector.events.jsonl", T0 + 8 * S, "capture_stats",
	   ",\"label\":\"c\",\"packets\":5,\"received\":5,\"dropped\":0,\"if_dropped\":0,"
	   "\"written\":5");
	write_vpcap(dir, "capture-c.pcap", NULL, 0);
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_truncated",
		    "capture-c.pcap holds 0 packets, but the collector on core wrote 5", 1);
	json_decref(root);
}

/* a file that ends in the middle of a record */
static void test_capture_cut(void **state)
{
	const char *dir = *state;
	char path[512];
	json_t *root;
	FILE *fp;

	valid_run(dir);
	snprintf(path, sizeof(path), "%s/capture-b.pcap", dir);
	fp = fopen(path, "a");
	assert_non_null(fp);
	fwrite("\x01\x02\x03\x04\x05\x06\x07", 1, 7, fp);
	fclose(fp);
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_truncated",
		    "capture-b.pcap: after packet 132: truncated dump file", 1);
	json_decref(root);
}

/* core.collector.events.jsonl of valid_run, its route leaving a's link at
 * steer (from t0) with route_extra, and extra as more events (NULL: none) */
static void collector_again(const char *dir, int64_t steer, const char *route_extra)
{
	const char *col = "core.collector.events.jsonl";
	char route[256], extra[256];
	size_t na = 0, nb = 0;

	for (int k = 0; k < NREQ; k++) {
		na += (k <= ANY_LAST_AT_A) + (k <= DNS_LAST_AT_A);
		nb += (k > ANY_LAST_AT_A) + (k > DNS_LAST_AT_A);
	}
	rm(dir, col);
	snprintf(route, sizeof(route), ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\"%s",
		 route_extra);
	ev(dir, col, T0 - 4 * S, "route_added",
	   ",\"prefix\":\"198.19.0.1/32\",\"via\":\"198.18.0.2\"");
	ev(dir, col, T0 + steer, "route_deleted", route);
	for (int i = 0; i < 2; i++) {
		snprintf(extra, sizeof(extra),
			 ",\"label\":\"%c\",\"packets\":%zu,\"received\":%zu,\"dropped\":0,"
			 "\"if_dropped\":0,\"written\":%zu",
			 i ? 'b' : 'a', i ? nb : na, i ? nb : na, i ? nb : na);
		ev(dir, col, T0 + 8 * S, "capture_stats", extra);
	}
}

/* the collector SIGSTOPped 2 s from just before the route left: it read the
 * change 1.843 s late; the packets say when it was */
static void test_route_monitor_stalled(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	json_decref(expect(dir, 1, NULL));
	collector_again(dir, 2098 * MS, ",\"stalled_ns\":2000000000");
	root = expect(dir, 0, NULL);
	assert_code(root, "route_monitor_stalled",
		    "the collector on core read a change of its route to 198.19.0.1/32 (deleted "
		    "via 198.18.0.2) at t0 + 2.098 s only after its loop had not run for 2.000 s "
		    "(stopped, or starved of CPU): it may have happened that much earlier, so "
		    "steer and the FIB clocks from it are not measured (more than 0.050 s "
		    "invalidates)",
		    1);
	assert_code(root, "steer_after_window",
		    "anycast: the route via a's link left core's FIB at t0 + 2.098 s by its route "
		    "monitor, but the last anycast request reached a at t0 + 0.206 s, 1.892 s "
		    "before, though its clients sent every 0.100 s at most: the route was gone by "
		    "t0 + 0.306 s (plus 0.050 s of slack) at the latest, so steer is late",
		    1);
	json_decref(root);
	/* a stall of 40 ms is within the slack; so is a steer 140 ms after the
	 * last request (an interval and 40 ms) */
	collector_again(dir, 346 * MS, ",\"stalled_ns\":40000000");
	root = expect(dir, 1, NULL);
	assert_no_code(root, "route_monitor_stalled");
	assert_no_code(root, "steer_after_window");
	json_decref(root);
	/* the site's link cut: the requests stop on the way, not at steer */
	collector_again(dir, 2098 * MS, "");
	rm(dir, "lab.events.jsonl");
	fail_extra = ",\"how\":\"link-down\"";
	lab_events(dir, 0, T0 + 7500 * MS);
	fail_extra = "";
	root = analyse(dir, NULL);
	assert_no_code(root, "steer_after_window");
	json_decref(root);
}

/* the kernel dropped route notifications (ENOBUFS), or the monitor stopped */
static void test_route_events_lost(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	ev(dir, "core.collector.events.jsonl", T0 + 100 * MS, "route_monitor_overrun",
	   ",\"overruns\":1");
	ev(dir, "core.collector.events.jsonl", T0 + 120 * MS, "route_monitor_overrun",
	   ",\"overruns\":2");
	root = expect(dir, 0, NULL);
	assert_code(root, "route_events_lost",
		    "the kernel dropped route notifications of the collector on core (ENOBUFS, 2 "
		    "times, the first at t0 + 0.100 s): its FIB's changes are incomplete, so the "
		    "FIB clocks and steer may miss theirs",
		    1);
	assert_int_equal(count_code(root, "route_events_lost"), 1);
	json_decref(root);
	ev(dir, "core.collector.events.jsonl", T0 + 150 * MS, "route_monitor_error", "");
	root = expect(dir, 0, NULL);
	assert_code(root, "route_events_lost",
		    "the route monitor of the collector on core stopped at t0 + 0.150 s "
		    "(route_monitor_error)",
		    1);
	assert_int_equal(count_code(root, "route_events_lost"), 2);
	json_decref(root);
}

static void test_capture_write_error(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	ev(dir, "core.collector.events.jsonl", T0 + 1 * S, "capture_error",
	   ",\"label\":\"a\",\"file\":\"capture-a.pcap\",\"errno\":28,"
	   "\"error\":\"No space left on device\"");
	root = expect(dir, 0, NULL);
	assert_code(root, "capture_write_error",
		    "the collector on core could not write capture-a.pcap at t0 + 1.000 s: No "
		    "space left on device (ENOSPC); the capture of link a stopped there",
		    1);
	json_decref(root);
}

static void test_interrupted(void **state)
{
	const char *dir = *state;
	struct clocks_input in;
	struct clocks_result *r = calloc(1, sizeof(*r));
	struct clocks_budget b;
	char err[512];
	json_t *root;

	assert_non_null(r);
	valid_run(dir);
	/* stopped by Ctrl-C 5 s into the 10 s of traffic */
	rm(dir, "lab.events.jsonl");
	lab_events(dir, 1, T0 + 2 * S);
	root = expect(dir, 0, NULL);
	assert_code(root, "interrupted",
		    "the run was interrupted 5.000 s after the traffic started (t0 + 2.000 s), of "
		    "the 10.000 s configured: the observation after t0 lasted 2.000 s of the "
		    "7.000 s configured, the last 5.000 s were never run",
		    1);
	/* every rate is over the 5 s that ran: the clients sent 100 each,
	 * 20 per s, not behind; 2 queries in 5 s */
	assert_no_code(root, "client_behind");
	assert_seconds(dns(root), "upstream_queries_per_s", 0.4);
	json_decref(root);
	assert_int_equal(clocks_load(dir, &in, err, sizeof(err)), 0);
	assert_int_equal(clocks_traffic_ns(&in), 5 * S);
	assert_int_equal(clocks_traffic_end(&in), T0 + 2 * S);
	clocks_anycast(&in, r);
	clocks_budget(&in, r, 99.9, &b);
	assert_true(fabs(b.rate_per_s - 20.0) < 1e-9);
	clocks_result_free(r);
	clocks_input_free(&in);
	free(r);
}

/* `steerlab run` SIGKILLed 4 s into the traffic, then `steerlab down`: the
 * run is interrupted, said as such (not client_behind: the clients were
 * stopped by down, not behind) */
static void test_stopped_by_down(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	rm(dir, "lab.events.jsonl");
	stop_extra = ",\"by\":\"down\"";
	lab_events(dir, 1, T0 + 2 * S);
	stop_extra = "";
	root = expect(dir, 0, NULL);
	assert_code(root, "interrupted",
		    "steerlab run never finished this run (it was killed, or taken down under "
		    "it): `steerlab down` stopped the lab at t0 + 2.000 s, 5.000 s after the "
		    "traffic started; nothing watched the agents to the end, so one that ended "
		    "meanwhile is not known; rates, budgets and the decay use the 5.000 s the "
		    "clients could have sent",
		    1);
	assert_no_code(root, "client_behind");
	json_decref(root);
	/* down long after the clients' own end: their 10 s, not more */
	rm(dir, "lab.events.jsonl");
	stop_extra = ",\"by\":\"down\"";
	lab_events(dir, 1, T0 + 60 * S);
	stop_extra = "";
	root = expect(dir, 0, NULL);
	assert_code(root, "interrupted", "63.000 s after the traffic started", 1);
	assert_code(root, "interrupted", "use the 10.000 s the clients could have sent", 1);
	assert_no_code(root, "client_behind");
	json_decref(root);
}

static void test_not_finished(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	rm(dir, "lab.events.jsonl");
	lab_events(dir, -1, 0);
	root = expect(dir, 0, NULL);
	assert_code(root, "interrupted", "no traffic_stopped: steerlab did not finish the run", 1);
	json_decref(root);
}

static void test_no_traffic(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	rm(dir, "requests-c1.csv");
	rm(dir, "requests-c1-dns.csv");
	rm(dir, "capture-a.pcap");
	rm(dir, "capture-b.pcap");
	write_vpcap(dir, "capture-a.pcap", NULL, 0);
	write_vpcap(dir, "capture-b.pcap", NULL, 0);
	put(dir, "requests-c1.csv", "client,seq,sent_ns,status,site,rtt_ns\n");
	root = expect(dir, 0, NULL);
	assert_code(root, "no_traffic", "nothing was measured", 1);
	/* no scheme, no column, no object */
	assert_int_equal(json_object_size(json_object_get(root, "schemes")), 0);
	assert_int_equal(json_array_size(json_object_get(root, "schemes_absent")), 2);
	json_decref(root);
}

/* a clock the end of the observation cut short: a lower bound, shown as
 * such; a warning, the run stays valid */
static void test_window_cut(void **state)
{
	const char *dir = *state;
	struct vpkt a[64];
	char *table, row[128];
	json_t *root, *o, *lb;

	valid_run(dir);
	/* a sticky DNS client that never leaves a: from t0 + 4 s on, every
	 * 100 ms, lost there, until the traffic ends */
	put(dir, "requests-c2-dns.csv", "client,seq,sent_ns,status,site,rtt_ns\n");
	for (int k = 70; k < NREQ; k++) {
		put(dir, "requests-c2-dns.csv", "100002,%d,%lld,timeout,,0\n", k,
		    (long long)sent_at(k));
		a[k - 70] = (struct vpkt){sent_at(k) + MS, DNS_ID(2), ADDR_A, (uint64_t)k};
	}
	site_capture(dir, 'a', 1, a, NREQ - 70);
	client_events(dir, "c2", "client-dns", DNS_ID(2), RATE * 0.3, NREQ - 70, 1);
	root = expect(dir, 1, &table);
	assert_code(root, "window_cut",
		    "dns: the window (>= 6.906 s) is a lower bound: 1 client (100002) still sent "
		    "to a in the last request interval",
		    0);
	o = dns(root);
	assert_true(json_is_true(json_object_get(o, "window_lower_bound")));
	assert_int_equal(
	    json_integer_value(json_array_get(json_object_get(o, "lower_bound_clients"), 0)),
	    DNS_ID(2));
	lb = json_object_get(json_object_get(o, "last_per_client_s"), "lower_bound");
	assert_true(json_is_true(json_object_get(lb, "max")));
	/* the other client's last request, the median of two, is not */
	assert_true(json_is_false(json_object_get(lb, "p50")));
	assert_true(json_is_false(json_object_get(anycast(root), "window_lower_bound")));
	/* "≥" is one column: the cells stay aligned */
	snprintf(row, sizeof(row), "\n%-26s %14s %16s\n", "window (s)", "0.206000",
		 "\u2265 6.906000");
	assert_non_null(strstr(table, row));
	assert_memory_equal(after_title(table),
			    "1 warning (the run is valid; docs/clocks.md, \"Verdict\"):\n"
			    "warning (window_cut): ",
			    79);
	assert_string_equal(last_line(table),
			    "valid run, with 1 warning (above; docs/clocks.md, \"Verdict\")\n");
	free(table);
	json_decref(root);
}

static void test_control_rejected(void **state)
{
	const char *dir = *state;
	json_t *root;

	valid_run(dir);
	ev(dir, "core.routed.events.jsonl", T0 + 1 * S, "control_rejected",
	   ",\"from\":\"198.18.0.26\",\"reason\":\"not a health agent of this router's sites\","
	   "\"count\":3");
	ev(dir, "core.routed.events.jsonl", T0 + 2 * S, "control_rejected",
	   ",\"from\":\"198.18.0.26\",\"reason\":\"not a health agent of this router's sites\","
	   "\"count\":4");
	ev(dir, "ns.authd.events.jsonl", T0 + 2 * S, "control_rejected",
	   ",\"from\":\"198.18.0.30\",\"reason\":\"not a prober\",\"count\":1");
	root = expect(dir, 1, NULL);
	assert_code(root, "control_rejected",
		    "routed on core dropped 7 control messages from 198.18.0.26 (not a health "
		    "agent of this router's sites), the first reported at t0 + 1.000 s",
		    0);
	assert_code(root, "control_rejected",
		    "authd on ns dropped 1 control message from 198.18.0.30 (not a prober)", 0);
	json_decref(root);
}

/* a scheme the lab does not have: absent from clocks.json, the table,
 * the report's tables, decay.csv and the plot */
static void test_absent_scheme(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "steerlab-test-no-such-gnuplot"};
	char path[512], *table, *text;
	json_t *root;
	size_t len;
	FILE *out;

	valid_run_as(dir, 0);
	root = expect(dir, 1, &table);
	assert_int_equal(json_object_size(json_object_get(root, "schemes")), 1);
	assert_null(json_object_get(json_object_get(root, "schemes"), "dns"));
	assert_string_equal(
	    json_string_value(json_array_get(json_object_get(root, "schemes_absent"), 0)), "dns");
	assert_int_equal(count_code(root, NULL), 0);
	assert_non_null(strstr(table, "\n                                  anycast\ndetect (s)"));
	assert_non_null(strstr(table, "\nupstream DNS queries                  n/a\n"));
	assert_non_null(strstr(table, "\ndns: absent: the run has no DNS-steered flows"));
	free(table);
	json_decref(root);
	/* and the report */
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(report_run(dir, &o, out), 0);
	fclose(out);
	/* the budget's and the decay's header rows end with anycast */
	assert_non_null(strstr(text, " anycast\nrequests sent "));
	assert_non_null(strstr(text, "\nafter t0        anycast\n"));
	free(text);
	snprintf(path, sizeof(path), "%s/decay.csv", dir);
	text = test_read_file(path);
	/* after its '#' lines (lib/csvmeta.h) */
	assert_true(strncmp(text, "# steerlab ", 11) == 0);
	assert_non_null(strstr(text, "\nt_s,t_end_s,anycast_share,anycast_dead,anycast_all\n"));
	free(text);
	snprintf(path, sizeof(path), "%s/decay.gp", dir);
	text = test_read_file(path);
	assert_null(strstr(text, "DNS steering"));
	free(text);
}

/* report_run says what the verdict is: REPORT_INVALID, report.md's banner */
static void test_report_invalid(void **state)
{
	const char *dir = *state;
	struct report_opts o = {.gnuplot = "steerlab-test-no-such-gnuplot"};
	char path[512], *text, *md;
	size_t len;
	FILE *out;

	valid_run(dir);
	ev(dir, "lab.events.jsonl", T0 + 1 * S, "agent_exited",
	   ",\"node\":\"core\",\"agent\":\"collector\",\"pid\":77,\"exit_code\":null,"
	   "\"signal\":9,\"expected\":false");
	out = open_memstream(&text, &len);
	assert_non_null(out);
	assert_int_equal(report_run(dir, &o, out), REPORT_INVALID);
	fclose(out);
	assert_memory_equal(after_title(text), "*** INVALID RUN: 1 self-check failed", 36);
	assert_string_equal(
	    last_line(text),
	    "*** INVALID RUN (agent_exited): see docs/clocks.md, \"Verdict\" ***\n");
	snprintf(path, sizeof(path), "%s/report.md", dir);
	md = test_read_file(path);
	assert_non_null(strstr(md, " (INVALID RUN)\n\n**INVALID RUN**: 1 self-check failed"));
	assert_non_null(strstr(md, "\n- **invalid** `agent_exited`: collector on core (pid 77) was "
				   "killed by signal 9 (SIGKILL)"));
	free(md);
	free(text);
}

/* empty_dir: every file of dir removed, for a second run in it */
static void empty_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		assert_int_equal(unlink(path), 0);
	}
	closedir(d);
}

/* impairments: lab.events.jsonl's configured paths of c1, a at rtt_ms
 * (loss a_loss %), b at 30 ms */
static void impairments(const char *dir, double rtt_ms, double a_loss)
{
	char extra[512];

	snprintf(extra, sizeof(extra),
		 ",\"mechanism\":\"delayline\",\"why\":\"\",\"paths\":["
		 "{\"client\":\"c1\",\"site\":\"a\",\"rtt_ns\":%lld,\"loss_pct\":%g},"
		 "{\"client\":\"c1\",\"site\":\"b\",\"rtt_ns\":30000000,\"loss_pct\":0}]",
		 (long long)(rtt_ms * 1e6), a_loss);
	ev(dir, "lab.events.jsonl", T0 - 4 * S, "impairments", extra);
}

/* measured, not assumed: the RTT of c1's requests a answered before t0
 * (both flows, 30 each), against the configured 30 ms: 40 ms invalidates,
 * 31 ms (3.3 %) does not; clocks.json lists both paths */
static void test_impairment_mismatch(void **state)
{
	const char *dir = *state;
	json_t *root, *paths, *a;

	valid_rtt_ns = 40 * MS;
	valid_run(dir);
	valid_rtt_ns = 2 * MS;
	impairments(dir, 30, 0);
	root = expect(dir, 0, NULL);
	assert_code(root, "impairment_mismatch",
		    "client c1 to site a: the RTT of its 60 requests answered before t0 was "
		    "40.000 ms (p50), the links were configured for 30.000 ms (delayline): they "
		    "differ by 10.000 ms, more than 1.500 ms (max(0.5 ms, 5 %))",
		    1);
	paths = json_object_get(json_object_get(root, "impairments"), "paths");
	assert_int_equal(json_array_size(paths), 2);
	a = json_array_get(paths, 0);
	assert_string_equal(json_string_value(json_object_get(a, "site")), "a");
	assert_seconds(a, "configured_rtt_s", 0.030);
	assert_seconds(a, "measured_rtt_p50_s", 0.040);
	assert_count(a, "requests", 60);
	assert_true(json_is_true(json_object_get(a, "mismatch")));
	/* b answered before t0 none of c1's: not measured, not judged */
	assert_json_null(json_array_get(paths, 1), "measured_rtt_p50_s");
	assert_json_null(json_array_get(paths, 1), "mismatch");
	json_decref(root);
	empty_dir(dir);

	valid_rtt_ns = 31 * MS;
	valid_run(dir);
	valid_rtt_ns = 2 * MS;
	impairments(dir, 30, 0);
	root = expect(dir, 1, NULL);
	assert_no_code(root, "impairment_mismatch");
	json_decref(root);
	empty_dir(dir);

	/* a short path (2 ms measured): 0.5 ms is the floor of the tolerance */
	valid_run(dir);
	impairments(dir, 1.6, 0);
	json_decref(expect(dir, 1, NULL));
	empty_dir(dir);
	valid_run(dir);
	impairments(dir, 1.4, 0);
	root = expect(dir, 0, NULL);
	assert_code(root, "impairment_mismatch", "differ by 0.600 ms, more than 0.500 ms", 1);
	json_decref(root);
}

/* link_impaired: the paths in force from its t. c1's requests to a take
 * 30 ms; the links were configured for 10 ms at bring-up and changed to 30
 * ms before any request: no mismatch (bring-up's alone would be one); a
 * change to 20 ms is one, said as after the change, in its own entry */
static void test_impairment_changed(void **state)
{
	const char *dir = *state;
	char extra[512];
	json_t *root, *paths, *p;

	for (int ms = 30; ms >= 20; ms -= 10) {
		valid_rtt_ns = 30 * MS;
		valid_run(dir);
		valid_rtt_ns = 2 * MS;
		impairments(dir, 10, 0);
		snprintf(
		    extra, sizeof(extra),
		    ",\"name\":\"slow\",\"link\":\"a core\",\"from\":\"a\",\"to\":\"core\","
		    "\"paths\":[{\"client\":\"c1\",\"site\":\"a\",\"rtt_ns\":%d,\"loss_pct\":0},"
		    "{\"client\":\"c1\",\"site\":\"b\",\"rtt_ns\":30000000,\"loss_pct\":0}]",
		    ms * 1000000);
		ev(dir, "lab.events.jsonl", T0 - 3500 * MS, "link_impaired", extra);
		root = expect(dir, ms == 30, NULL);
		paths = json_object_get(json_object_get(root, "impairments"), "paths");
		/* b's did not change: no new entry */
		assert_int_equal(json_array_size(paths), 3);
		p = json_array_get(paths, 2);
		assert_seconds(p, "configured_rtt_s", ms / 1000.0);
		assert_count(p, "from_ns", T0 - 3500 * MS);
		assert_count(p, "requests", 60);
		/* bring-up's: no request while it was in force */
		assert_count(json_array_get(paths, 0), "requests", 0);
		if (ms == 30) {
			assert_no_code(root, "impairment_mismatch");
		} else {
			assert_code(
			    root, "impairment_mismatch",
			    "client c1 to site a: the RTT of its 60 requests answered after "
			    "the impairment changed was 30.000 ms (p50), the links were "
			    "configured for 20.000 ms (delayline): they differ by 10.000 ms",
			    1);
		}
		json_decref(root);
		empty_dir(dir);
	}
}

/* a gray failure (site_failed how impair): detected, its clocks as any
 * failure's and the table says what it was; not detected, no clock but
 * "not detected within the run", in clocks.json and the table */
static void test_gray_failure(void **state)
{
	const char *dir = *state;
	char *table;
	json_t *root;

	fail_extra = ",\"how\":\"impair\"";
	valid_run(dir);
	fail_extra = "";
	root = expect(dir, 1, &table);
	assert_seconds(anycast(root), "detect_s", 0.250);
	assert_seconds(dns(root), "detect_s", 0.300);
	assert_null(json_object_get(dns(root), "detect_note"));
	assert_int_equal(count_code(root, "gray_undetected"), 0);
	assert_non_null(strstr(table, "\ngray failure: site a's link was impaired (slow or lossy, "
				      "not out)\n"));
	free(table);
	json_decref(root);
	empty_dir(dir);

	/* no prober declared a dead, authd never judged it */
	fail_extra = ",\"how\":\"impair\"";
	valid_run(dir);
	fail_extra = "";
	rm(dir, "a.prober.events.jsonl");
	rm(dir, "p1.prober.events.jsonl");
	rm(dir, "ns.authd.events.jsonl");
	ev(dir, "ns.authd.events.jsonl", T0 - 4 * S, "answer_changed",
	   ",\"name\":\"w.\",\"before\":[],\"after\":[\"" ADDR_A "\"]");
	root = analyse(dir, &table);
	assert_json_null(anycast(root), "detect_s");
	assert_json_null(dns(root), "detect_s");
	assert_json_null(dns(root), "steer_s");
	assert_string_equal(json_string_value(json_object_get(dns(root), "detect_note")),
			    "not detected within the run");
	assert_string_equal(json_string_value(json_object_get(anycast(root), "detect_note")),
			    "not detected within the run");
	assert_code(root, "gray_undetected",
		    "dns: site a: not detected within the run: its link was impaired (a gray "
		    "failure: slow or lossy, not out), and no prober declared it dead, so neither "
		    "detect nor steer came",
		    0);
	assert_int_equal(count_code(root, "gray_undetected"), 2);
	assert_null(warning_of(root, "clock_missing", "dns: detect"));
	assert_null(warning_of(root, "clock_missing", "dns: steer"));
	assert_null(warning_of(root, "clock_missing", "dns: remote prober"));
	assert_non_null(strstr(table, "\ngray failure: site a's link was impaired (slow or lossy, "
				      "not out); not detected within the run: anycast, dns\n"));
	free(table);
	json_decref(root);
}

/* lossy_run: valid_run, n more of c1's requests lost before t0, and c1's
 * path to a configured at 5 % loss from bring-up */
static void lossy_run(const char *dir, int n)
{
	valid_run(dir);
	for (int k = 0; k < n; k++)
		put(dir, "requests-c1.csv", "1,%d,%lld,timeout,,0\n", 200 + k,
		    (long long)(T0 - 2 * S + k * MS));
	impairments(dir, 2, 5);
}

/* a lossy link: losses it explains are not unexplained_loss (up to the
 * 99 % bound of the requests drawn at its loss), and loss_mismatch is not
 * checked */
static void test_configured_loss(void **state)
{
	const char *dir = *state;
	json_t *root;

	/* c1's 100 requests at 5 %: 5 expected, 12 at most */
	lossy_run(dir, 4);
	root = expect(dir, 1, NULL);
	assert_no_code(root, "unexplained_loss");
	assert_code(root, "loss_configured",
		    "anycast: 4 of the 7 requests the clients lost are not the failure of a's, "
		    "within what the links' configured loss explains (at most 12: the 99 % "
		    "bound)",
		    0);
	assert_code(root, "loss_unchecked", "a link on their paths has a configured loss", 0);
	json_decref(root);
	empty_dir(dir);
	/* more than the bound: unexplained, the bound said */
	lossy_run(dir, 20);
	root = expect(dir, 0, NULL);
	assert_code(root, "unexplained_loss", "the links' configured loss explains at most 13", 1);
	json_decref(root);
	empty_dir(dir);
	/* 5 % at bring-up, none from an impair before the traffic: the loss
	 * in force when each request was sent explains none of the 4 (the
	 * highest the path ever had would have explained them) */
	lossy_run(dir, 4);
	ev(dir, "lab.events.jsonl", T0 - 3500 * MS, "link_impaired",
	   ",\"name\":\"clean\",\"link\":\"a core\",\"from\":\"a\",\"to\":\"core\","
	   "\"paths\":[{\"client\":\"c1\",\"site\":\"a\",\"rtt_ns\":2000000,\"loss_pct\":0},"
	   "{\"client\":\"c1\",\"site\":\"b\",\"rtt_ns\":30000000,\"loss_pct\":0}]");
	root = expect(dir, 0, NULL);
	assert_no_code(root, "loss_configured");
	assert_code(root, "unexplained_loss", "4 of the 7 requests the clients lost", 1);
	json_decref(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_valid_run, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_impairment_mismatch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_configured_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_impairment_changed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gray_failure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_agent_exited, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_client_behind, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_client_killed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_client_stalled, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_population_stalled, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_client_rate_unchecked, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_loss_before_t0_explained, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unexplained_loss, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lost_in_transit, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lost_queued, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_few_queued, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_answered_after_t0, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_answered_elsewhere, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_lost_while_restarting, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_loss_mismatch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_healthy_site_dead, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timeline_hits, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_recovery_ends_window, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_failures_compared, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_two_failures_mismatch, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failed_again, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_healthy_route_withdrawn, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_healthy_route_withdrawn_routers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_healthy_route_replaced, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failback_route_replaced, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failback_early_replace, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fail_routes_malformed, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture_drops, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture_stats_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture_missing, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture_written, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture_cut, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_capture_write_error, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_route_monitor_stalled, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_route_events_lost, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_interrupted, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stopped_by_down, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_finished, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_traffic, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_window_cut, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_control_rejected, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_absent_scheme, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_report_invalid, setup, teardown),
	};

	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
