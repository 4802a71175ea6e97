/* epoll event loop; see loop.h. */
#include "loop.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

struct loop_handler {
	int fd;
	loop_cb cb; /* NULL once deleted */
	void *arg;
	struct loop_handler *next;
};

struct loop {
	int epfd;
	int stop;
	struct loop_handler *handlers;
	/* deleted during a dispatch batch: freed after it, so that an event
	 * already returned for them finds a handler with no callback */
	struct loop_handler *graveyard;
};

static void loop_bury(struct loop *loop)
{
	struct loop_handler *h, *next;

	for (h = loop->graveyard; h; h = next) {
		next = h->next;
		free(h);
	}
	loop->graveyard = NULL;
}

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
	return loop;
}

void loop_free(struct loop *loop)
{
	struct loop_handler *h, *next;

	if (loop == NULL)
		return;
	for (h = loop->handlers; h; h = next) {
		next = h->next;
		free(h);
	}
	loop_bury(loop);
	close(loop->epfd);
	free(loop);
}

int loop_add(struct loop *loop, int fd, uint32_t events, loop_cb cb, void *arg)
{
	struct loop_handler *h = calloc(1, sizeof(*h));
	struct epoll_event ev = {.events = events};

	if (h == NULL)
		return -1;
	h->fd = fd;
	h->cb = cb;
	h->arg = arg;
	ev.data.ptr = h;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) == -1) {
		free(h);
		return -1;
	}
	h->next = loop->handlers;
	loop->handlers = h;
	return 0;
}

int loop_del(struct loop *loop, int fd)
{
	struct loop_handler **pp;

	for (pp = &loop->handlers; *pp; pp = &(*pp)->next) {
		if ((*pp)->fd == fd) {
			struct loop_handler *h = *pp;
			*pp = h->next;
			epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
			h->cb = NULL;
			h->next = loop->graveyard;
			loop->graveyard = h;
			return 0;
		}
	}
	return -1;
}

int loop_timer_set(int fd, int64_t first_ns, int64_t interval_ns)
{
	struct itimerspec its = {
		.it_value = ns_to_timespec(first_ns),
		.it_interval = ns_to_timespec(interval_ns),
	};

	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	return timerfd_settime(fd, TFD_TIMER_ABSTIME, &its, NULL);
}

int loop_timer(struct loop *loop, int64_t first_ns, int64_t interval_ns, loop_cb cb, void *arg)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);

	if (fd == -1)
		return -1;
	if (loop_timer_set(fd, first_ns, interval_ns) == -1 ||
	    loop_add(loop, fd, EPOLLIN, cb, arg) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

uint64_t loop_timer_read(int fd)
{
	uint64_t n;

	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

int loop_signals(struct loop *loop, loop_cb cb, void *arg)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		return -1;
	fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd == -1)
		return -1;
	if (loop_add(loop, fd, EPOLLIN, cb, arg) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

int loop_signal_read(int fd)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return 0;
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

int loop_run(struct loop *loop)
{
	struct epoll_event evs[32];

	while (!loop->stop) {
		int n = epoll_wait(loop->epfd, evs, 32, -1);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			log_warn("epoll_wait");
			return -1;
		}
		for (int i = 0; i < n && !loop->stop; i++) {
			struct loop_handler *h = evs[i].data.ptr;
			if (h->cb)
				h->cb(loop, h->fd, evs[i].events, h->arg);
		}
		loop_bury(loop);
	}
	return 0;
}
