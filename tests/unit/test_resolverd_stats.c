/*
 * What resolverd writes about itself (agents/resolverd/stats.c), as
 * docs/events.md and docs/resolverd.md give it: a resolver_stats event per
 * period for each resolver that did anything in it, with the period's
 * counts; on exit resolver_summary per resolver with its totals, then
 * resolverd_summary with the process's, and the log line; one line of the
 * upstream CSV per attempt; a CSV that cannot be written said once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "agents/resolverd/ctx.h"
#include "log.h"
#include "test_child.h"
#include "test_file.h"

struct fixture {
	struct rsv_ctx ctx;
	struct rsv_inst inst[2];
	struct rsv_inst_conf conf[2];
	char events[64];
	char *csv;
	size_t csv_len;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	for (int i = 0; i < 2; i++) {
		snprintf(f->conf[i].name, sizeof(f->conf[i].name), "r%d", i + 1);
		f->conf[i].addr.s_addr = htonl(0x7f00000b + (uint32_t)i); /* 127.0.0.11, .12 */
		f->inst[i].conf = &f->conf[i];
		f->inst[i].index = i;
		f->inst[i].ctx = &f->ctx;
		snprintf(f->inst[i].src, sizeof(f->inst[i].src), "127.0.0.%d:35635", 11 + i);
	}
	f->ctx.inst = f->inst;
	f->ctx.ninst = 2;
	snprintf(f->events, sizeof(f->events), "/tmp/test_resolverd_stats.XXXXXX");
	assert_true((fd = mkstemp(f->events)) >= 0);
	close(fd);
	assert_non_null(f->ctx.stats.ev = event_open(f->events, "res", "resolverd"));
	assert_non_null(f->ctx.stats.csv = open_memstream(&f->csv, &f->csv_len));
	log_init("resolverd", 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->ctx.stats.csv)
		fclose(f->ctx.stats.csv);
	free(f->csv);
	event_close(f->ctx.stats.ev);
	unlink(f->events);
	free(f);
	return 0;
}

/* events: the events written so far, one a line, without their time, the
 * keys sorted and the names of zero counts left out, for reading; every
 * count checked to be there */
static char *events(struct fixture *f)
{
	static const char *counts[] = {"queries",	    "hits",
				       "negative_hits",	    "misses",
				       "coalesced",	    "upstream_queries",
				       "upstream_timeouts", "stale_answers",
				       "prefetches",	    "servfail",
				       "overloaded",	    "bad"};
	char *text = test_read_file(f->events), *line, *save = NULL;
	char *out = calloc(1, strlen(text) + 1);

	assert_non_null(out);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		json_t *o = json_loads(line, 0, NULL);
		char *s;

		assert_non_null(o);
		json_object_del(o, "t");
		json_object_del(o, "node");
		json_object_del(o, "agent");
		for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
			json_t *v = json_object_get(o, counts[i]);

			if (!json_is_integer(v))
				fail_msg("no count %s in %s", counts[i], line);
			if (json_integer_value(v) == 0)
				json_object_del(o, counts[i]);
		}
		s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
		strcat(out, s);
		strcat(out, "\n");
		free(s);
		json_decref(o);
	}
	free(text);
	return out;
}

static void test_period_per_active_resolver(void **state)
{
	struct fixture *f = *state;
	struct rsv_inst *r1 = &f->inst[0], *r2 = &f->inst[1];
	char *ev;

	r1->n.queries = 5;
	r1->n.hits = 3;
	r1->n.negative_hits = 1;
	r1->n.misses = 2;
	r1->n.coalesced = 1;
	r1->n.upstream_queries = 2;
	r1->cache.count = 2;
	r1->cache.evictions = 1;
	rsv_stats_period(&f->ctx);
	/* the next period: its own counts; r2 busy too */
	r1->n.queries += 4;
	r1->n.hits += 4;
	r2->n.queries = 3;
	r2->n.misses = 3;
	r2->n.upstream_queries = 4;
	r2->n.upstream_timeouts = 1;
	r2->n.stale_answers = 1;
	r2->n.prefetches = 1;
	r2->n.servfail = 1;
	r2->n.overloaded = 1;
	r2->n.bad = 2;
	r2->pending = 2;
	rsv_stats_period(&f->ctx);
	/* a quiet period writes nothing */
	rsv_stats_period(&f->ctx);
	ev = events(f);
	assert_string_equal(
	    ev, "{\"address\":\"127.0.0.11\",\"coalesced\":1,\"entries\":2,\"event\":\"resolver_"
		"stats\","
		"\"evictions\":1,\"hits\":3,\"misses\":2,\"negative_hits\":1,\"pending\":0,"
		"\"queries\":5,\"resolver\":\"r1\",\"upstream_queries\":2}\n"
		"{\"address\":\"127.0.0.11\",\"entries\":2,\"event\":\"resolver_stats\","
		"\"evictions\":1,\"hits\":4,\"pending\":0,\"queries\":4,\"resolver\":\"r1\"}\n"
		"{\"address\":\"127.0.0.12\",\"bad\":2,\"entries\":0,\"event\":\"resolver_stats\","
		"\"evictions\":0,\"misses\":3,\"overloaded\":1,\"pending\":2,\"prefetches\":1,"
		"\"queries\":3,\"resolver\":\"r2\",\"servfail\":1,\"stale_answers\":1,"
		"\"upstream_queries\":4,\"upstream_timeouts\":1}\n");
	free(ev);
}

static void test_summary(void **state)
{
	struct fixture *f = *state;
	struct rsv_inst *r1 = &f->inst[0], *r2 = &f->inst[1];
	int saved;
	char *ev, *err, *text;

	r1->n.queries = 9;
	r1->n.hits = 7;
	r1->n.misses = 2;
	r1->n.upstream_queries = 2;
	r1->cache.count = 2;
	r2->n.queries = 1;
	r2->n.misses = 1;
	r2->n.upstream_queries = 3;
	r2->n.upstream_timeouts = 2;
	r2->n.servfail = 1;
	r2->cache.count = 1;
	/* a period written before does not change the totals */
	rsv_stats_period(&f->ctx);
	saved = test_stderr_begin();
	rsv_stats_summary(&f->ctx);
	err = test_stderr_end(saved);
	text = test_strip_stamps(err);
	assert_string_equal(text,
			    "resolverd: 2 resolvers: 10 queries, 7 hits, 3 misses, 5 upstream "
			    "queries, 2 timeouts, 0 stale answers, 0 prefetches, 1 SERVFAIL\n");
	ev = events(f);
	assert_non_null(strstr(ev, "\"event\":\"resolver_stats\""));
	assert_string_equal(
	    strstr(ev, "{\"address\":\"127.0.0.11\",\"entries\":2,\"event\":\"resolver_summary\""),
	    "{\"address\":\"127.0.0.11\",\"entries\":2,\"event\":\"resolver_summary\","
	    "\"evictions\":0,\"hits\":7,\"misses\":2,\"pending\":0,\"queries\":9,\"resolver\":"
	    "\"r1\","
	    "\"upstream_queries\":2}\n"
	    "{\"address\":\"127.0.0.12\",\"entries\":1,\"event\":\"resolver_summary\","
	    "\"evictions\":0,\"misses\":1,\"pending\":0,\"queries\":1,\"resolver\":\"r2\","
	    "\"servfail\":1,\"upstream_queries\":3,\"upstream_timeouts\":2}\n"
	    "{\"entries\":3,\"event\":\"resolverd_summary\",\"hits\":7,\"misses\":3,\"queries\":10,"
	    "\"resolvers\":2,\"servfail\":1,\"upstream_queries\":5,\"upstream_timeouts\":2}\n");
	free(ev);
	free(text);
	free(err);
}

/* pending: an attempt of r1 for name A to 127.0.0.54:5300 */
static void pending(struct fixture *f, struct rsv_pending *p, const char *name)
{
	uint8_t wire[KNOT_DNAME_MAXLEN];

	memset(p, 0, sizeof(*p));
	assert_non_null(knot_dname_from_str(wire, name, sizeof(wire)));
	assert_int_equal(
	    rsv_cache_key(&p->key, wire, knot_dname_size(wire), KNOT_RRTYPE_A, KNOT_CLASS_IN), 0);
	p->ask = &p->key;
	p->inst = &f->inst[0];
	p->to.sin_family = AF_INET;
	p->to.sin_port = htons(5300);
	inet_pton(AF_INET, "127.0.0.54", &p->to.sin_addr);
	p->id = 44051;
	p->attempt = 1;
	p->sent_real = 1796002702637852846;
}

static void test_upstream_csv(void **state)
{
	struct fixture *f = *state;
	struct rsv_pending p;

	pending(f, &p, "WWW.lab.example");
	rsv_stats_attempt(&f->ctx, &p, "answer", 0, 87791);
	p.attempt = 2;
	rsv_stats_attempt(&f->ctx, &p, "timeout", -1, 0);
	/* a prefetch over TCP, from the TCP connection's address */
	pending(f, &p, "a,b\"c.lab.example");
	p.reason = RSV_REASON_PREFETCH;
	p.tcp = 1;
	snprintf(p.tcp_src, sizeof(p.tcp_src), "127.0.0.11:40001");
	rsv_stats_attempt(&f->ctx, &p, "answer", 3, 1200);
	assert_int_equal(rsv_stats_flush(&f->ctx), 0);
	assert_string_equal(f->csv,
			    "1796002702637852846,r1,127.0.0.11:35635,127.0.0.54:5300,udp,"
			    "44051,www.lab.example.,A,miss,1,answer,NOERROR,87791,,www.lab."
			    "example.,A\n"
			    "1796002702637852846,r1,127.0.0.11:35635,127.0.0.54:5300,udp,"
			    "44051,www.lab.example.,A,miss,2,timeout,,0,,www.lab.example.,A\n"
			    "1796002702637852846,r1,127.0.0.11:40001,127.0.0.54:5300,tcp,"
			    "44051,a\\044b\\034c.lab.example.,A,prefetch,1,answer,NXDOMAIN,"
			    "1200,,a\\044b\\034c.lab.example.,A\n");
}

static void test_no_csv(void **state)
{
	struct fixture *f = *state;
	struct rsv_pending p;

	fclose(f->ctx.stats.csv);
	f->ctx.stats.csv = NULL;
	pending(f, &p, "www.lab.example");
	rsv_stats_attempt(&f->ctx, &p, "answer", 0, 1);
	assert_int_equal(rsv_stats_flush(&f->ctx), 0);
}

/* a file every write to fails, as on a full disk */
static ssize_t full_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie, (void)buf, (void)size;
	errno = ENOSPC;
	return -1;
}

static void test_csv_unwritable(void **state)
{
	struct fixture *f = *state;
	struct rsv_pending p;
	int saved;
	char *err, *text;

	fclose(f->ctx.stats.csv);
	f->ctx.stats.csv = fopencookie(NULL, "w", (cookie_io_functions_t){.write = full_write});
	assert_non_null(f->ctx.stats.csv);
	pending(f, &p, "www.lab.example");
	rsv_stats_attempt(&f->ctx, &p, "answer", 0, 1);
	saved = test_stderr_begin();
	assert_int_equal(rsv_stats_flush(&f->ctx), -1);
	/* said once; each period's flush fails quietly after */
	rsv_stats_attempt(&f->ctx, &p, "answer", 0, 1);
	assert_int_equal(rsv_stats_flush(&f->ctx), -1);
	rsv_stats_period(&f->ctx);
	err = test_stderr_end(saved);
	text = test_strip_stamps(err);
	assert_string_equal(text,
			    "resolverd: rsv_stats_flush: upstream CSV: No space left on device\n");
	assert_int_equal(f->ctx.stats.csv_failed, 1);
	free(text);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_period_per_active_resolver, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_upstream_csv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_csv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_csv_unwritable, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
