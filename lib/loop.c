/* epoll event loop with caller-owned handlers; see loop.h. */
#include "loop.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

#define LOOP_BATCH 64

struct loop {
	int epfd;
	int stop;
	SLIST_HEAD(, loop_handler) fin; /* finalizers due after the batch */
	/* the batch being dispatched: loop_del() clears a removed handler's
	 * events after next, so none reaches it */
	struct epoll_event evs[LOOP_BATCH];
	int nev, next;
	int dispatching;
};

struct loop *loop_new(void)
{
	struct loop *loop = calloc(1, sizeof(*loop));

	if (loop == NULL)
		return NULL;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd == -1) {
		free(loop);
		return NULL;
	}
	SLIST_INIT(&loop->fin);
	return loop;
}

static void loop_finalize(struct loop *loop)
{
	struct loop_handler *h;

	while ((h = SLIST_FIRST(&loop->fin)) != NULL) {
		SLIST_REMOVE_HEAD(&loop->fin, fin_entry);
		h->fin(h);
	}
}

void loop_free(struct loop *loop)
{
	if (loop == NULL)
		return;
	loop_finalize(loop);
	close(loop->epfd);
	free(loop);
}

int loop_add(struct loop *loop, struct loop_handler *h, int fd, uint32_t events, loop_cb cb,
	     void *arg)
{
	struct epoll_event ev = {.events = events, .data.ptr = h};

	h->fd = fd;
	h->events = events;
	h->cb = cb;
	h->arg = arg;
	h->fin = NULL;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) == -1) {
		h->added = 0;
		return -1;
	}
	h->added = 1;
	return 0;
}

int loop_mod(struct loop *loop, struct loop_handler *h, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = h};

	if (!h->added) {
		errno = EINVAL;
		return -1;
	}
	if (h->events == events)
		return 0;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, h->fd, &ev) == -1)
		return -1;
	h->events = events;
	return 0;
}

void loop_del(struct loop *loop, struct loop_handler *h)
{
	if (!h->added)
		return;
	epoll_ctl(loop->epfd, EPOLL_CTL_DEL, h->fd, NULL);
	h->added = 0;
	/* at most one event per descriptor in a batch, still to come or not */
	for (int i = loop->next; i < loop->nev; i++)
		if (loop->evs[i].data.ptr == h)
			loop->evs[i].data.ptr = NULL;
}

void loop_del_finalize(struct loop *loop, struct loop_handler *h, loop_fin_cb fin)
{
	h->fin = fin;
	if (loop == NULL) {
		fin(h);
		return;
	}
	loop_del(loop, h);
	if (!loop->dispatching) {
		fin(h);
		return;
	}
	SLIST_INSERT_HEAD(&loop->fin, h, fin_entry);
}

int loop_timer_set(struct loop_handler *h, int64_t first_ns, int64_t interval_ns)
{
	struct itimerspec its = {
	    .it_value = ns_to_timespec(first_ns),
	    .it_interval = ns_to_timespec(interval_ns),
	};

	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	return timerfd_settime(h->fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int loop_timer_add(struct loop *loop, struct loop_handler *h, int64_t first_ns, int64_t interval_ns,
		   loop_cb cb, void *arg)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	h->added = 0;
	h->fd = fd;
	if (fd == -1)
		return -1;
	if (loop_timer_set(h, first_ns, interval_ns) == -1 ||
	    loop_add(loop, h, fd, EPOLLIN, cb, arg) == -1) {
		close(fd);
		h->fd = -1;
		return -1;
	}
	return 0;
}

void loop_timer_del(struct loop *loop, struct loop_handler *h)
{
	if (!h->added)
		return;
	loop_del(loop, h);
	close(h->fd);
	h->fd = -1;
}

uint64_t loop_timer_read(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

int loop_add_signals(struct loop *loop, struct loop_handler *h, const int *signals, loop_cb cb,
		     void *arg)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	for (; *signals; signals++)
		if (sigaddset(&set, *signals) == -1)
			return -1;
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		return -1;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd == -1)
		return -1;
	if (loop_add(loop, h, fd, EPOLLIN, cb, arg) == -1) {
		close(fd);
		return -1;
	}
	return 0;
}

int loop_signals(struct loop *loop, struct loop_handler *h, loop_cb cb, void *arg)
{
	static const int stop[] = {SIGINT, SIGTERM, SIGHUP, 0};

	return loop_add_signals(loop, h, stop, cb, arg);
}

int loop_signal_read(int fd)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return 0;
	return (int)si.ssi_signo;
}

int loop_signal_read_value(int fd, int *value)
{
	struct signalfd_siginfo si;

	*value = 0;
	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return 0;
	*value = si.ssi_int;
	return (int)si.ssi_signo;
}

void loop_stop_on_signal(struct loop *loop, int fd, uint32_t events, void *arg)
{
	const char *note = arg;
	int sig = loop_signal_read(fd);

	(void)events;
	if (sig == SIGHUP) {
		log_info("SIGHUP ignored");
		return;
	}
	log_info("signal %d: stopping%s", sig, note ? note : "");
	loop_stop(loop);
}

void loop_stop(struct loop *loop)
{
	loop->stop = 1;
}

int loop_once(struct loop *loop, int timeout_ms)
{
	int n = epoll_wait(loop->epfd, loop->evs, LOOP_BATCH, timeout_ms);

	if (n == -1)
		return errno == EINTR ? 0 : -1;
	loop->nev = n;
	loop->dispatching = 1;
	for (loop->next = 0; loop->next < loop->nev && !loop->stop;) {
		struct epoll_event *ev = &loop->evs[loop->next++];
		struct loop_handler *h = ev->data.ptr;

		if (h)
			h->cb(loop, h->fd, ev->events, h->arg);
	}
	loop->nev = loop->next = 0;
	loop->dispatching = 0;
	loop_finalize(loop);
	return n;
}

int loop_run(struct loop *loop)
{
	while (!loop->stop) {
		if (loop_once(loop, -1) == -1) {
			log_warn("%s: epoll_wait", __func__);
			return -1;
		}
	}
	return 0;
}
