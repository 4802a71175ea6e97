/* A degraded sited (agents/sited/state.h), on 127.0.0.1 with a port the
 * kernel picks, its UDP and TCP sides in one loop the test turns, and the
 * lab's signals (lib/sited_signals.h) raised in the test process: degraded,
 * a request over UDP and one over TCP are read and go unanswered, while a
 * TCP connection is still accepted, so the prober's tcp check passes and
 * its udp check hears nothing; restored, both are answered again, on the
 * connection that stayed open. The events say so, once per change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include "agents/prober/probe.h"
#include "agents/sited/state.h"
#include "agents/sited/tcp.h"
#include "event.h"
#include "loop.h"
#include "sited_signals.h"
#include "test_file.h"
#include "test_rundir.h"
#include "timeutil.h"

#define DEG_DEADLINE_NS (5 * NSEC_PER_SEC)

struct deg_fix {
	char *dir, events[512];
	struct loop *loop;
	struct event_log *ev;
	struct sited_server srv;
	struct sited_tcp tcp;
	struct sited_state state;
	struct loop_handler udp;
	struct sockaddr_in at; /* UDP and TCP */
};

static void deg_on_udp(struct loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop, (void)fd, (void)events;
	assert_int_equal(sited_server_serve(arg), 0);
}

static struct deg_fix *deg_fix_new(void)
{
	struct deg_fix *f = calloc(1, sizeof(*f));
	struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(f->at);

	assert_non_null(f);
	assert_non_null(f->dir = rundir_new("test_sited_degrade"));
	snprintf(f->events, sizeof(f->events), "%s/sited.events.jsonl", f->dir);
	assert_non_null(f->ev = event_open(f->events, "s1", "sited"));
	assert_non_null(f->loop = loop_new());
	/* the port the kernel gave the UDP side may be another process's TCP
	 * port (an outgoing connection of a test beside this one, in the same
	 * ephemeral range): then another UDP port, until the TCP side binds
	 * too (it said EADDRINUSE in a gate's unit run) */
	for (int tries = 0;; tries++) {
		assert_int_equal(sited_server_open(&f->srv, &lo, "deg"), 0);
		len = sizeof(f->at);
		assert_int_equal(getsockname(f->srv.fd, (struct sockaddr *)&f->at, &len), 0);
		if (sited_tcp_open(&f->tcp, f->loop, &f->srv, &f->at, 16) == 0)
			break;
		assert_true(tries < 20);
		sited_server_close(&f->srv);
	}
	assert_int_equal(loop_add(f->loop, &f->udp, f->srv.fd, EPOLLIN, deg_on_udp, &f->srv), 0);
	assert_int_equal(sited_state_open(&f->state, f->loop, &f->srv, f->ev, "deg"), 0);
	return f;
}

static void deg_fix_free(struct deg_fix *f)
{
	sited_tcp_close(&f->tcp);
	sited_server_close(&f->srv);
	loop_free(f->loop);
	event_close(f->ev);
	rundir_free(f->dir);
	free(f);
}

/* deg_until: turns the loop until the flag *v is want (a signal taken);
 * fails after 5 s */
static void deg_until(struct deg_fix *f, const int *v, int want)
{
	int64_t end = now_mono_ns() + DEG_DEADLINE_NS;

	while (*v != want) {
		if (now_mono_ns() >= end)
			fail_msg("the flag is not %d after 5 s", want);
		assert_true(loop_once(f->loop, 10) >= 0);
	}
}

/* deg_request: request seq of client 9 into buf (WIRE_LEN bytes) */
static void deg_request(uint8_t *buf, uint64_t seq)
{
	struct wire_msg m = {.type = WIRE_REQUEST, .client_id = 9, .seq = seq};

	assert_int_equal(wire_encode(&m, buf, WIRE_LEN), WIRE_LEN);
}

/* deg_ask: request seq to f on fd (a connected UDP or TCP socket); the
 * loop turned until sited has read it */
static void deg_ask(struct deg_fix *f, int fd, uint64_t seq)
{
	uint64_t want = f->srv.counts.requests + f->tcp.counts.requests + 1;
	int64_t end = now_mono_ns() + DEG_DEADLINE_NS;
	uint8_t buf[WIRE_LEN];

	deg_request(buf, seq);
	assert_int_equal(send(fd, buf, WIRE_LEN, MSG_NOSIGNAL), WIRE_LEN);
	while (f->srv.counts.requests + f->tcp.counts.requests < want) {
		if (now_mono_ns() >= end)
			fail_msg("request %llu not read within 5 s", (unsigned long long)seq);
		assert_true(loop_once(f->loop, 10) >= 0);
	}
}

/* deg_answered: fd has the reply to seq, in the site's name. sited sends
 * a reply within the turn that read its request: none to read after it is
 * none at all. */
static int deg_answered(int fd, uint64_t seq)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	uint8_t buf[WIRE_LEN];
	struct wire_msg m;

	/* loopback delivers in the sender's call; a short poll for safety */
	if (poll(&p, 1, 100) == 0)
		return 0;
	assert_int_equal(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), WIRE_LEN);
	assert_int_equal(wire_decode(buf, sizeof(buf), &m), 0);
	assert_int_equal(m.type, WIRE_REPLY);
	assert_int_equal(m.seq, seq);
	assert_string_equal(m.site, "deg");
	return 1;
}

/* deg_socket: a socket of type connected to f */
static int deg_socket(struct deg_fix *f, int type)
{
	int fd = socket(AF_INET, type, 0);

	assert_true(fd != -1);
	assert_int_equal(connect(fd, (struct sockaddr *)&f->at, sizeof(f->at)), 0);
	return fd;
}

/* deg_check: the verdict of one probe of check against f: 1 passed, 0
 * nothing within 200 ms, -1 failed */
static int deg_check(struct deg_fix *f, const struct prober_check *check)
{
	struct prober_probe p;
	int64_t end;
	int r = 0;

	assert_int_equal(check->open(&p, (const struct sockaddr *)&f->at, "deg"), 0);
	assert_int_equal(check->send(&p, 200 * NSEC_PER_MSEC), 0);
	for (end = p.deadline; now_mono_ns() < end;) {
		assert_true(loop_once(f->loop, 5) >= 0);
		if ((r = check->read(&p)) != -1 || errno != EAGAIN)
			break;
	}
	check->close(&p);
	if (r == -1)
		return errno == EAGAIN ? 0 : -1;
	return r == PROBER_REPLY_OK ? 1 : -1;
}

/* deg_count: how many lines of f's events are the event name */
static int deg_count(struct deg_fix *f, const char *name)
{
	char *text = test_read_file(f->events), needle[64], *s = text;
	int n = 0;

	snprintf(needle, sizeof(needle), "\"event\":\"%s\"", name);
	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	free(text);
	return n;
}

static void test_degrade_and_restore(void **state)
{
	struct deg_fix *f = deg_fix_new();
	int udp = deg_socket(f, SOCK_DGRAM), tcp = deg_socket(f, SOCK_STREAM), later;

	(void)state;
	deg_ask(f, udp, 1);
	assert_true(deg_answered(udp, 1));
	deg_ask(f, tcp, 2);
	assert_true(deg_answered(tcp, 2));
	assert_int_equal(deg_check(f, &prober_check_udp), 1);
	assert_int_equal(deg_check(f, &prober_check_tcp), 1);

	/* degraded: read, unanswered, over both; connections still accepted */
	raise(SITED_SIG_DEGRADE);
	deg_until(f, &f->srv.degraded, 1);
	deg_ask(f, udp, 3);
	assert_false(deg_answered(udp, 3));
	deg_ask(f, tcp, 4);
	assert_false(deg_answered(tcp, 4));
	later = deg_socket(f, SOCK_STREAM);
	deg_ask(f, later, 5);
	assert_false(deg_answered(later, 5));
	assert_int_equal(f->srv.counts.degraded_dropped, 1);
	assert_int_equal(f->tcp.counts.degraded_dropped, 2);
	/* the shallow check passes, the deep one hears nothing */
	assert_int_equal(deg_check(f, &prober_check_tcp), 1);
	assert_int_equal(deg_check(f, &prober_check_udp), 0);
	assert_int_equal(f->srv.counts.degraded_dropped, 2);
	/* degraded again: no change, no event */
	raise(SITED_SIG_DEGRADE);
	assert_true(loop_once(f->loop, 10) >= 1);

	raise(SITED_SIG_RESTORE);
	deg_until(f, &f->srv.degraded, 0);
	deg_ask(f, udp, 6);
	assert_true(deg_answered(udp, 6));
	deg_ask(f, tcp, 7);
	assert_true(deg_answered(tcp, 7));
	assert_int_equal(deg_check(f, &prober_check_udp), 1);
	assert_int_equal(f->srv.counts.degraded_dropped + f->tcp.counts.degraded_dropped, 4);
	event_close(f->ev);
	f->ev = NULL;
	assert_int_equal(deg_count(f, "sited_degraded"), 1);
	assert_int_equal(deg_count(f, "sited_restored"), 1);
	assert_int_equal(deg_count(f, "sited_draining"), 0);
	close(udp);
	close(tcp);
	close(later);
	deg_fix_free(f);
}

/* drain and undrain come through the same handler, and do not degrade */
static void test_drain_signals(void **state)
{
	struct deg_fix *f = deg_fix_new();

	(void)state;
	raise(SITED_SIG_DRAIN);
	deg_until(f, &f->srv.draining, 1);
	assert_int_equal(f->srv.degraded, 0);
	raise(SITED_SIG_UNDRAIN);
	deg_until(f, &f->srv.draining, 0);
	event_close(f->ev);
	f->ev = NULL;
	assert_int_equal(deg_count(f, "sited_draining"), 1);
	assert_int_equal(deg_count(f, "sited_undrained"), 1);
	assert_int_equal(deg_count(f, "sited_degraded"), 0);
	deg_fix_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_degrade_and_restore),
	    cmocka_unit_test(test_drain_signals),
	};

	return cmocka_run_group_tests_name("sited_degrade", tests, NULL, NULL);
}
