/* lib/loop.c: caller-owned handlers, loop_mod, removal by handle during a
 * dispatch, deferred finalizers, timers, signals through a signalfd.
 * Socket pairs only, no root. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "loop.h"
#include "timeutil.h"

struct peer {
	struct loop_handler h;
	int fd[2]; /* fd[0] watched, fd[1] written */
	struct peer *other;
	uint32_t seen; /* events of the last callback */
	int calls;
	int finalized;
};

static void peer_open(struct peer *p)
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, p->fd), 0);
}

static void peer_close(struct peer *p)
{
	close(p->fd[0]);
	close(p->fd[1]);
}

static void count_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct peer *p = arg;

	(void)loop;
	assert_int_equal(fd, p->fd[0]);
	p->seen = events;
	p->calls++;
}

static void test_mod_switches_events(void **state)
{
	struct loop *loop = loop_new();
	struct peer p = {0};

	(void)state;
	peer_open(&p);
	assert_int_equal(loop_add(loop, &p.h, p.fd[0], EPOLLIN, count_cb, &p), 0);
	assert_int_equal(loop_once(loop, 0), 0); /* nothing to read */
	assert_int_equal(loop_mod(loop, &p.h, EPOLLOUT), 0);
	assert_int_equal(loop_once(loop, 100), 1);
	assert_int_equal(p.calls, 1);
	assert_true(p.seen & EPOLLOUT);
	assert_false(p.seen & EPOLLIN);
	assert_int_equal(loop_mod(loop, &p.h, EPOLLIN), 0);
	assert_int_equal(loop_once(loop, 0), 0);
	assert_int_equal(write(p.fd[1], "x", 1), 1);
	assert_int_equal(loop_once(loop, 100), 1);
	assert_int_equal(p.calls, 2);
	assert_true(p.seen & EPOLLIN);
	loop_del(loop, &p.h);
	loop_del(loop, &p.h); /* twice: ignored */
	assert_int_equal(loop_mod(loop, &p.h, EPOLLOUT), -1);
	peer_close(&p);
	loop_free(loop);
}

/* each frees the other: whichever runs first, the other must not run */
static int del_calls;
static struct peer *del_freed;

static void free_other_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct peer *p = arg;

	(void)fd, (void)events;
	del_calls++;
	loop_del(loop, &p->other->h);
	peer_close(p->other);
	del_freed = p->other;
	free(p->other);
}

static void test_del_in_dispatch(void **state)
{
	struct loop *loop = loop_new();
	struct peer *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct peer *alive;

	(void)state;
	peer_open(a);
	peer_open(b);
	a->other = b;
	b->other = a;
	assert_int_equal(loop_add(loop, &a->h, a->fd[0], EPOLLIN, free_other_cb, a), 0);
	assert_int_equal(loop_add(loop, &b->h, b->fd[0], EPOLLIN, free_other_cb, b), 0);
	assert_int_equal(write(a->fd[1], "x", 1), 1);
	assert_int_equal(write(b->fd[1], "x", 1), 1);
	/* both ready in one batch; the second's event is dropped (under ASan,
	 * running it would be a use after free) */
	assert_int_equal(loop_once(loop, 100), 2);
	assert_int_equal(del_calls, 1);
	alive = del_freed == a ? b : a;
	loop_del(loop, &alive->h);
	peer_close(alive);
	free(alive);
	loop_free(loop);
}

static void fin_cb(struct loop_handler *h)
{
	struct peer *p = (struct peer *)((char *)h - offsetof(struct peer, h));

	p->finalized++;
}

static void del_self_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct peer *p = arg;

	(void)fd, (void)events;
	p->calls++;
	loop_del_finalize(loop, &p->h, fin_cb);
	/* still ours until the batch is done */
	assert_int_equal(p->finalized, 0);
}

static void test_finalize_after_batch(void **state)
{
	struct loop *loop = loop_new();
	struct peer p = {0}, q = {0};

	(void)state;
	peer_open(&p);
	peer_open(&q);
	assert_int_equal(loop_add(loop, &p.h, p.fd[0], EPOLLIN, del_self_cb, &p), 0);
	assert_int_equal(write(p.fd[1], "x", 1), 1);
	assert_int_equal(loop_once(loop, 100), 1);
	assert_int_equal(p.calls, 1);
	assert_int_equal(p.finalized, 1);
	/* no event reaches a deleted handler, even with data still there */
	assert_int_equal(loop_once(loop, 0), 0);
	assert_int_equal(p.calls, 1);
	/* outside a dispatch the finalizer runs at once */
	assert_int_equal(loop_add(loop, &q.h, q.fd[0], EPOLLIN, count_cb, &q), 0);
	loop_del_finalize(loop, &q.h, fin_cb);
	assert_int_equal(q.finalized, 1);
	peer_close(&p);
	peer_close(&q);
	loop_free(loop);
}

struct tick {
	struct loop_handler h;
	int fired;
	uint64_t expirations;
};

static void tick_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct tick *t = arg;

	(void)events;
	t->expirations += loop_timer_read(fd);
	if (++t->fired == 3)
		loop_stop(loop);
}

static void test_timers(void **state)
{
	struct loop *loop = loop_new();
	struct tick once = {0}, every = {0};
	int64_t now = now_mono_ns();

	(void)state;
	/* a time in the past fires at once */
	assert_int_equal(loop_timer_add(loop, &once.h, now - NSEC_PER_SEC, 0, tick_cb, &once), 0);
	assert_int_equal(loop_once(loop, 100), 1);
	assert_int_equal(once.fired, 1);
	assert_int_equal(loop_once(loop, 20), 0); /* once only */
	/* re-armed */
	assert_int_equal(loop_timer_set(&once.h, now_mono_ns() + NSEC_PER_MSEC, 0), 0);
	assert_int_equal(loop_once(loop, 1000), 1);
	assert_int_equal(once.fired, 2);
	loop_timer_del(loop, &once.h);
	assert_int_equal(once.h.fd, -1);
	loop_timer_del(loop, &once.h); /* twice: ignored */
	/* periodic: three times, then loop_run returns */
	assert_int_equal(loop_timer_add(loop, &every.h, now_mono_ns() + NSEC_PER_MSEC,
					2 * NSEC_PER_MSEC, tick_cb, &every),
			 0);
	assert_int_equal(loop_run(loop), 0);
	assert_int_equal(every.fired, 3);
	assert_true(every.expirations >= 3);
	loop_timer_del(loop, &every.h);
	loop_free(loop);
}

struct sigs {
	int got[2]; /* SIGUSR1's, SIGUSR2's */
	int other;
};

static void sigs_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sigs *s = arg;
	int sig;

	(void)loop;
	(void)events;
	while ((sig = loop_signal_read(fd)) != 0) {
		if (sig == SIGUSR1 || sig == SIGUSR2)
			s->got[sig == SIGUSR2]++;
		else
			s->other++;
	}
}

static void test_signals(void **state)
{
	static const int usr[] = {SIGUSR1, SIGUSR2, 0}, bad[] = {SIGUSR1, 999, 0};
	struct loop *loop = loop_new();
	struct loop_handler h, hbad;
	struct sigs s = {0};
	sigset_t before, now;

	(void)state;
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &before), 0);
	assert_int_equal(loop_add_signals(loop, &h, usr, sigs_cb, &s), 0);
	/* blocked, so that only the signalfd sees them; nothing else is */
	assert_int_equal(sigprocmask(SIG_BLOCK, NULL, &now), 0);
	assert_true(sigismember(&now, SIGUSR1) && sigismember(&now, SIGUSR2));
	assert_int_equal(sigismember(&now, SIGINT), sigismember(&before, SIGINT));
	assert_int_equal(sigismember(&now, SIGTERM), sigismember(&before, SIGTERM));
	assert_int_equal(loop_once(loop, 0), 0);
	raise(SIGUSR2);
	raise(SIGUSR1);
	assert_int_equal(loop_once(loop, 1000), 1);
	assert_int_equal(s.got[0], 1);
	assert_int_equal(s.got[1], 1);
	assert_int_equal(s.other, 0);
	/* a number that is no signal is refused */
	errno = 0;
	assert_int_equal(loop_add_signals(loop, &hbad, bad, sigs_cb, &s), -1);
	assert_int_equal(errno, EINVAL);
	loop_del(loop, &h);
	close(h.fd);
	loop_free(loop);
	assert_int_equal(sigprocmask(SIG_SETMASK, &before, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mod_switches_events),
	    cmocka_unit_test(test_del_in_dispatch),
	    cmocka_unit_test(test_finalize_after_batch),
	    cmocka_unit_test(test_timers),
	    cmocka_unit_test(test_signals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
