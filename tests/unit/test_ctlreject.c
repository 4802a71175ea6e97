/* lib/ctlreject.c: refused control messages, counted, and reported at most once a second. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ctlreject.h"
#include "event.h"
#include "loop.h"
#include "timeutil.h"

struct fixture {
	char path[64];
	struct event_log *ev;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	int fd;

	assert_non_null(f);
	snprintf(f->path, sizeof(f->path), "/tmp/test_ctlreject.XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd != -1);
	close(fd);
	f->ev = event_open(f->path, "core", "routed");
	assert_non_null(f->ev);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	event_close(f->ev);
	unlink(f->path);
	free(f);
	return 0;
}

/* events: the control_rejected lines written so far, as "from reason count;" */
static const char *events(struct fixture *f)
{
	static char out[1024];
	char line[512], from[64], reason[128];
	FILE *fp = fopen(f->path, "r");
	long long count;

	out[0] = '\0';
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		const char *p = strstr(line, "\"event\":\"control_rejected\",");
		size_t n = strlen(out);

		assert_non_null(p);
		assert_int_equal(sscanf(p,
					"\"event\":\"control_rejected\",\"from\":\"%63[^\"]\","
					"\"reason\":\"%127[^\"]\",\"count\":%lld}",
					from, reason, &count),
				 3);
		snprintf(out + n, sizeof(out) - n, "%s %s %lld;", from, reason, count);
	}
	fclose(fp);
	return out;
}

static void test_first_at_once_then_once_a_second(void **state)
{
	struct fixture *f = *state;
	struct ctl_reject r;
	const int64_t t = 50 * NSEC_PER_SEC;

	ctl_reject_init(&r, NULL, f->ev, "announcement");
	ctl_reject_drop(&r, t, "198.18.0.10", "sender not allowed");
	assert_string_equal(events(f), "198.18.0.10 sender not allowed 1;");
	/* a flood within the second: counted, not written */
	for (int i = 1; i <= 1000; i++)
		ctl_reject_drop(&r, t + i * 900000, "198.18.0.14", "sender not allowed");
	assert_string_equal(events(f), "198.18.0.10 sender not allowed 1;");
	assert_int_equal(r.pending, 1000);
	/* a second after the last report: the drops since, with the latest sender */
	ctl_reject_drop(&r, t + NSEC_PER_SEC, "198.18.0.2", "prefix 0.0.0.0/0 not allowed");
	assert_string_equal(events(f), "198.18.0.10 sender not allowed 1;"
				       "198.18.0.2 prefix 0.0.0.0/0 not allowed 1001;");
	assert_int_equal(r.pending, 0);
	assert_int_equal(r.total, 1002);
	/* nothing pending: close writes nothing more */
	ctl_reject_close(&r);
	assert_string_equal(events(f), "198.18.0.10 sender not allowed 1;"
				       "198.18.0.2 prefix 0.0.0.0/0 not allowed 1001;");
}

static void test_close_reports_pending(void **state)
{
	struct fixture *f = *state;
	struct ctl_reject r;
	const int64_t t = now_mono_ns();

	ctl_reject_init(&r, NULL, f->ev, "health report");
	ctl_reject_drop(&r, t, "198.18.0.10", "sender not allowed");
	ctl_reject_drop(&r, t + 1, "198.18.0.10", "prober id x not allowed from this sender");
	ctl_reject_drop(&r, t + 2, "198.18.0.11", "sender not allowed");
	ctl_reject_close(&r);
	assert_string_equal(events(f), "198.18.0.10 sender not allowed 1;"
				       "198.18.0.11 sender not allowed 2;");
	assert_int_equal(r.total, 3);
}

static void stop_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)fd, (void)events, (void)arg;
	loop_stop(loop);
}

static void test_timer_reports_the_rest(void **state)
{
	struct fixture *f = *state;
	struct loop *loop = loop_new();
	struct ctl_reject r;
	int64_t now = now_mono_ns();
	int stop;

	assert_non_null(loop);
	ctl_reject_init(&r, loop, f->ev, "announcement");
	ctl_reject_drop(&r, now, "198.18.0.10", "sender not allowed");
	/* as if the first report were 990 ms old: the timer is due in 10 ms */
	r.last_ns = now - 990 * NSEC_PER_MSEC;
	ctl_reject_drop(&r, now, "198.18.0.10", "sender not allowed");
	ctl_reject_drop(&r, now, "198.18.0.10", "sender not allowed");
	assert_int_equal(r.timer_armed, 1);
	assert_string_equal(events(f), "198.18.0.10 sender not allowed 1;");
	stop = loop_timer(loop, now_mono_ns() + 300 * NSEC_PER_MSEC, 0, stop_cb, NULL);
	assert_true(stop != -1);
	assert_int_equal(loop_run(loop), 0);
	/* written by the timer, without another drop */
	assert_string_equal(events(f), "198.18.0.10 sender not allowed 1;"
				       "198.18.0.10 sender not allowed 2;");
	assert_int_equal(r.timer_armed, 0);
	ctl_reject_close(&r);
	loop_del(loop, stop);
	close(stop);
	loop_free(loop);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_first_at_once_then_once_a_second, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_close_reports_pending, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timer_reports_the_rest, setup, teardown),
	};

	return cmocka_run_group_tests_name("ctlreject", tests, NULL, NULL);
}
