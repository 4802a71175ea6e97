/*
 * probes/clocks/clocks_explain.c: what held each scheme at the dead site,
 * on a synthetic run read as the agents write it (clocks_read_events_stream)
 * with captures built by hand, as topology/compare.ini's run is: two
 * anycast clients behind router core, whose route to a goes 100 ms after
 * a's prober declared it dead; three DNS clients, c1 on cache r1 within
 * its TTL, c2 asking authd itself and answered after t0 before authd
 * steered (detection), c3 sticky for 8 s. The window of DNS is c3's, and
 * the output names c3; every request to the dead site is given one cause,
 * the decay's by cause adds up to its dead counts.
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "atomicfile.h"
#include "clocks.h"
#include "clocks_int.h"
#include "test_events.h"
#include "test_rundir.h"

#define T0 1700000000000000000LL
#define MS 1000000LL
#define S 1000000000LL
#define DNS(n) (WIRE_DNS_CLIENT_BASE + (n))

struct fixture {
	struct clocks_input in;
	struct clocks_result res[CLOCKS_NSCHEMES];
	struct clocks_decay d;
	struct clocks_explain ex;
	char err[512];
};

static void cleanup(struct fixture *f)
{
	for (int i = 0; i < CLOCKS_NSCHEMES; i++)
		clocks_result_free(&f->res[i]);
	clocks_decay_free(&f->d);
	clocks_explain_free(&f->ex);
}

TEST_EVENTS_FIXTURE(struct fixture, cleanup)

static void feed(struct fixture *f, const char *node, const char *agent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* feed: one event line (printf) as the events file of agent on node */
static void feed(struct fixture *f, const char *node, const char *agent, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	assert_int_equal(test_read_events(&f->in, f->err, sizeof(f->err), node, agent, line), 0);
}

static struct clocks_capture *capture(struct clocks_input *in, const char *label)
{
	for (size_t i = 0; i < in->ncaptures; i++)
		if (strcmp(in->captures[i].label, label) == 0)
			return &in->captures[i];
	assert_int_equal(clocks_grow((void **)&in->captures, &in->capcaptures, in->ncaptures,
				     sizeof(*in->captures)),
			 0);
	memset(&in->captures[in->ncaptures], 0, sizeof(in->captures[0]));
	snprintf(in->captures[in->ncaptures].label, CLOCKS_NAME_MAX, "%s", label);
	return &in->captures[in->ncaptures++];
}

/* sends: client's requests to dst every 10 ms in [from, until), captured on
 * label's link */
static void sends(struct clocks_input *in, const char *label, uint32_t client, const char *dst,
		  int64_t from, int64_t until)
{
	struct clocks_capture *c = capture(in, label);
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, dst, &a), 1);
	for (int64_t t = from; t < until; t += 10 * MS) {
		assert_int_equal(
		    clocks_grow((void **)&c->packets, &c->cap, c->n, sizeof(*c->packets)), 0);
		c->packets[c->n++] = (struct clocks_packet){t, client, (uint32_t)c->n, a};
	}
}

static void answer(struct fixture *f, const char *node, uint32_t client, int64_t t,
		   const char *addr, int ttl)
{
	feed(f, node, "client-dns",
	     "{\"t\":%lld,\"event\":\"dns_answer\",\"client\":%u,\"name\":\"www.lab.example\","
	     "\"address\":\"%s\",\"previous\":null,\"ttl\":%d,\"changed\":true}\n",
	     (long long)t, client, addr, ttl);
}

/* the run: events, captures and the DNS side of topology.ini */
static void run(struct fixture *f)
{
	struct clocks_topo_dns *t = &f->in.dnstopo;
	static const char *const client[3] = {"c1", "c2", "c3"};

	feed(f, "lab", "steerlab",
	     "{\"t\":1,\"event\":\"lab_up\",\"lab\":\"x\",\"port\":7000,\"addresses\":{"
	     "\"198.18.0.1\":{\"node\":\"core\",\"kind\":\"router\"},"
	     "\"198.18.0.2\":{\"node\":\"a\",\"kind\":\"site\"},"
	     "\"198.18.0.6\":{\"node\":\"b\",\"kind\":\"site\"}}}\n"
	     "{\"t\":%lld,\"event\":\"site_failed\",\"site\":\"a\",\"via\":\"198.18.0.2\","
	     "\"prefix\":\"198.19.0.1/32\",\"address\":\"198.19.1.1\"}\n",
	     (long long)T0);
	feed(f, "a", "prober", "{\"t\":%lld,\"event\":\"declared_dead\",\"site\":\"a\"}\n",
	     (long long)(T0 + 200 * MS));
	feed(f, "p2", "prober", "{\"t\":%lld,\"event\":\"declared_dead\",\"site\":\"a\"}\n",
	     (long long)(T0 + 240 * MS));
	feed(
	    f, "core", "collector",
	    "{\"t\":%lld,\"event\":\"route_added\",\"prefix\":\"198.19.0.1/32\",\"op\":\"present\","
	    "\"via\":\"198.18.0.2\",\"metric\":20,\"protocol\":186}\n"
	    "{\"t\":%lld,\"event\":\"route_added\",\"prefix\":\"198.19.0.1/32\",\"op\":\"replace\","
	    "\"via\":\"198.18.0.6\",\"metric\":20,\"protocol\":186}\n",
	    (long long)(T0 - 5 * S), (long long)(T0 + 300 * MS));
	feed(f, "ns", "authd",
	     "{\"t\":%lld,\"event\":\"health_changed\",\"site\":\"a\",\"healthy\":false}\n"
	     "{\"t\":%lld,\"event\":\"answer_changed\",\"name\":\"www.lab.example.\",\"before\":"
	     "[\"198.19.1.1\"],\"after\":[\"198.19.1.2\"]}\n",
	     (long long)(T0 + 250 * MS), (long long)(T0 + 260 * MS));
	for (int i = 0; i < 3; i++) {
		if (i < 2)
			feed(f, client[i], "client",
			     "{\"t\":%lld,\"event\":\"client_started\",\"client\":%d,\"rate\":100,"
			     "\"resolver\":null,\"mode\":\"anycast\",\"sticky_ns\":0}\n",
			     (long long)(T0 - 5 * S), i + 1);
		feed(f, client[i], "client-dns",
		     "{\"t\":%lld,\"event\":\"client_started\",\"client\":%u,\"rate\":100,"
		     "\"resolver\":\"%s\",\"mode\":\"dns\",\"sticky_ns\":%lld}\n",
		     (long long)(T0 - 5 * S), DNS(i + 1),
		     i == 0   ? "198.18.128.1"
		     : i == 1 ? "198.18.0.10"
			      : "198.18.128.3",
		     i == 2 ? 8 * S : 0LL);
	}
	/* c1: from cache r1, within its TTL until 0.5 s */
	answer(f, "c1", DNS(1), T0 - 1500 * MS, "198.19.1.1", 2);
	answer(f, "c1", DNS(1), T0 + 501 * MS, "198.19.1.2", 2);
	/* c2 asks authd itself: a fresh answer after t0, before the steer */
	answer(f, "c2", DNS(2), T0 - 1900 * MS, "198.19.1.1", 2);
	answer(f, "c2", DNS(2), T0 + 100 * MS, "198.19.1.1", 2);
	answer(f, "c2", DNS(2), T0 + 2101 * MS, "198.19.1.2", 2);
	/* c3: sticky, 8 s whatever the TTL */
	answer(f, "c3", DNS(3), T0 - 3000 * MS, "198.19.1.1", 2);
	answer(f, "c3", DNS(3), T0 + 5001 * MS, "198.19.1.2", 2);
	/* the requests, as those answers and the route send them */
	for (uint32_t c = 1; c <= 2; c++) {
		sends(&f->in, "a", c, "198.19.0.1", T0 - 1 * S, T0 + 300 * MS);
		sends(&f->in, "b", c, "198.19.0.1", T0 + 300 * MS, T0 + 6 * S);
	}
	sends(&f->in, "a", DNS(1), "198.19.1.1", T0 - 1 * S, T0 + 501 * MS);
	sends(&f->in, "b", DNS(1), "198.19.1.2", T0 + 501 * MS, T0 + 6 * S);
	sends(&f->in, "a", DNS(2), "198.19.1.1", T0 - 1 * S, T0 + 2101 * MS);
	sends(&f->in, "b", DNS(2), "198.19.1.2", T0 + 2101 * MS, T0 + 6 * S);
	sends(&f->in, "a", DNS(3), "198.19.1.1", T0 - 1 * S, T0 + 5001 * MS);
	sends(&f->in, "b", DNS(3), "198.19.1.2", T0 + 5001 * MS, T0 + 6 * S);
	f->in.traffic_start_ns = T0 - 3 * S;
	f->in.traffic_duration_ns = 9 * S;
	/* topology.ini's DNS side: r's four caches, the name's TTL, links */
	t->nrsv = 1;
	snprintf(t->rsv[0].name, CLOCKS_NAME_MAX, "r");
	t->rsv[0].count = 4;
	t->nnames = 1;
	snprintf(t->names[0].name, CLOCKS_DNS_NAME_MAX, "www.lab.example");
	t->names[0].ttl_s = 2;
	t->nclients = 3;
	for (int i = 0; i < 3; i++) {
		snprintf(t->clients[i].name, CLOCKS_NAME_MAX, "%s", client[i]);
		snprintf(t->clients[i].router, CLOCKS_NAME_MAX, "core");
		t->clients[i].rsv = i == 1 ? -1 : 0;
	}
	clocks_anycast(&f->in, &f->res[0]);
	clocks_dns(&f->in, &f->res[1]);
	assert_int_equal(clocks_explain_init(&f->in, f->res, CLOCKS_NSCHEMES, &f->ex), 0);
	assert_int_equal(clocks_decay_explain(&f->in, 100 * MS, &f->d, &f->ex, f->res,
					      CLOCKS_NSCHEMES, f->err, sizeof(f->err)),
			 0);
}

static const struct clocks_cause_entry *entry(const struct clocks_explain_scheme *xs,
					      enum clocks_cause cause, const char *who)
{
	for (int k = 0; k < xs->n; k++)
		if (xs->e[k].cause == cause && strcmp(xs->e[k].who, who) == 0)
			return &xs->e[k];
	fail_msg("no entry %s %s", clocks_cause_names[cause], who);
	return NULL;
}

static void test_causes(void **state)
{
	struct fixture *f = *state;
	const struct clocks_explain_scheme *any = &f->ex.s[0], *dns = &f->ex.s[1];
	const struct clocks_cause_entry *e;
	int64_t sum = 0;

	run(f);
	/* anycast: a's prober counting to 0.2 s, core's route to 0.3 s */
	e = entry(any, CLOCKS_CAUSE_DETECT, "a");
	assert_int_equal(e->requests, 2 * 19); /* 10 ms to 190 ms: at t0 is none */
	assert_int_equal(e->last_ns, 190 * MS);
	e = entry(any, CLOCKS_CAUSE_ROUTING, "core");
	assert_int_equal(e->requests, 2 * 10);
	assert_int_equal(e->last_ns, 290 * MS);
	assert_int_equal(any->e[any->held].cause, CLOCKS_CAUSE_ROUTING);
	/* dns: r1's cache, c2's fresh answer before the steer, c3 sticky */
	e = entry(dns, CLOCKS_CAUSE_RESOLVER, "r1");
	assert_int_equal(e->last_ns, 500 * MS);
	e = entry(dns, CLOCKS_CAUSE_DETECT, "p2");
	assert_int_equal(e->first_ns, 100 * MS);
	assert_int_equal(e->last_ns, 2100 * MS);
	e = entry(dns, CLOCKS_CAUSE_CLIENT, "c2"); /* its answer before t0, its own cache */
	assert_int_equal(e->last_ns, 90 * MS);
	e = entry(dns, CLOCKS_CAUSE_STICKY, "c3");
	assert_int_equal(e->requests, 500);
	assert_int_equal(e->last_ns, 5000 * MS);
	/* the window is c3's; without it, c2's fresh answer's */
	assert_int_equal(f->res[1].window_ns, 5000 * MS);
	assert_string_equal(dns->e[dns->held].who, "c3");
	assert_int_equal(dns->e[dns->held].cause, CLOCKS_CAUSE_STICKY);
	assert_int_equal(dns->without_ns, 2100 * MS);
	/* every request to the dead site once: the causes add up */
	for (int k = 0; k < dns->n; k++)
		sum += dns->e[k].requests;
	assert_int_equal(sum, f->res[1].lost_capture);
	for (size_t k = 0; k < f->d.n; k++) {
		for (int i = 0; i < CLOCKS_NSCHEMES; i++) {
			int64_t by = 0;

			for (int x = 0; x < CLOCKS_CAUSES; x++)
				by += f->d.s[i].cause[x][k];
			assert_int_equal(by, f->d.s[i].dead[k]);
		}
	}
}

/* the verdict in words: who left first, by how much, and what held the
 * slower one, by name */
static void test_words(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	run(f);
	assert_int_equal(f->ex.first, 0);
	assert_int_equal(f->ex.by_ns, 5000 * MS - 290 * MS);
	assert_int_equal(f->ex.nwords, 5);
	assert_string_equal(f->ex.words[0],
			    "anycast left a first: its last request reached it 0.290 s after t0, "
			    "dns's 5.000 s, 4.710 s later.");
	assert_string_equal(f->ex.words[1],
			    "dns: its window, 5.000 s, was held by the sticky "
			    "client c3 (it keeps an address 8 s whatever the TTL).");
	assert_string_equal(f->ex.words[2],
			    "dns without c3: 2.100 s, held by detection: authd still handed out "
			    "a's address, its probers (the first p2) still counting failed probes "
			    "to their threshold.");
	assert_string_equal(f->ex.words[3],
			    "anycast: its window, 0.290 s, was held by router core, whose route "
			    "still led to a 0.090 s after the site was declared dead (BGP "
			    "propagation).");
	assert_string_equal(f->ex.words[4],
			    "anycast without core: 0.190 s, held by detection: a's prober still "
			    "counting failed probes to its threshold.");
	out = open_memstream(&text, &len);
	assert_non_null(out);
	clocks_explain_print(out, &f->in, &f->ex);
	fclose(out);
	assert_non_null(strstr(text, "\ndns       sticky client past its TTL          c3  "));
	free(text);
}

/* clocks.json's explain: the scheme first, what held each, by name */
static void test_json(void **state)
{
	struct fixture *f = *state;
	char *dir = rundir_new("test_clocks_explain"), path[512], err[512];
	struct clocks_notes v;
	json_t *root, *ex, *held;
	json_error_t jerr;
	int dirfd;

	run(f);
	memset(&v, 0, sizeof(v));
	assert_non_null(dir);
	dirfd = atomicfile_dir(dir, err, sizeof(err));
	assert_true(dirfd >= 0);
	assert_int_equal(clocks_write_json(dirfd, dir, "clocks.json", &f->in, f->res,
					   CLOCKS_NSCHEMES, &v, &f->ex, err, sizeof(err)),
			 0);
	close(dirfd);
	snprintf(path, sizeof(path), "%s/clocks.json", dir);
	root = json_load_file(path, 0, &jerr);
	assert_non_null(root);
	ex = json_object_get(root, "explain");
	assert_string_equal(json_string_value(json_object_get(ex, "first")), "anycast");
	held = json_object_get(
	    json_object_get(json_object_get(json_object_get(ex, "schemes"), "dns"), "held_by"),
	    "who");
	assert_string_equal(json_string_value(held), "c3");
	assert_string_equal(
	    json_string_value(json_object_get(
		json_object_get(json_object_get(json_object_get(ex, "schemes"), "dns"), "held_by"),
		"cause")),
	    "sticky");
	assert_true(json_array_size(json_object_get(ex, "words")) >= 3);
	/* each scheme's decay at the report's marks, by cause */
	assert_non_null(json_object_get(
	    json_object_get(json_object_get(json_object_get(root, "schemes"), "dns"), "decay"),
	    "marks"));
	json_decref(root);
	rundir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_causes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_words, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
