/*
 * The one event loop every agent uses: epoll over file descriptors, with
 * timers as timerfds and signals as a signalfd, so that callbacks never run
 * in signal context (docs/style.md: signals come through signalfd).
 *
 * Designed on NSD's netio.h and libevent: a handler (struct loop_handler) is
 * owned by the caller, usually embedded in the object it serves, and the
 * loop never allocates one. loop_add() starts watching, loop_mod() changes
 * the events watched (EPOLLIN to EPOLLOUT and back, without removing the
 * descriptor), loop_del() removes by handle in constant time. A handler
 * removed while the loop dispatches gets no further event from the batch
 * being dispatched, so a callback may delete any handler, its own included.
 * loop_del_finalize() is libevent's event_free_finalize(): the handler's
 * object is released by a callback once the current batch is done, for
 * objects still in use further up the call chain.
 */
#ifndef STEERLAB_LOOP_H
#define STEERLAB_LOOP_H

#include <stdint.h>
#include <sys/epoll.h>
#include <sys/queue.h>

struct loop;
struct loop_handler;

/* loop_cb: fd is ready for events (EPOLLIN, EPOLLOUT, EPOLLHUP, ...); arg
 * is the one given to loop_add(). */
typedef void (*loop_cb)(struct loop *loop, int fd, uint32_t events, void *arg);
/* loop_fin_cb: h is out of the loop and no event will reach it. */
typedef void (*loop_fin_cb)(struct loop_handler *h);

struct loop_handler {
	int fd;
	uint32_t events; /* watched */
	loop_cb cb;
	void *arg;
	/* the loop's own */
	int added;
	loop_fin_cb fin;
	SLIST_ENTRY(loop_handler) fin_entry;
};

struct loop *loop_new(void);
/* loop_free: runs the finalizers still due, then frees the loop. It does
 * not touch the handlers still added: their owners may have freed them. */
void loop_free(struct loop *loop);

/* loop_add: watch fd for events with h. h must stay valid until
 * loop_del(). 0 or -1 (errno from epoll_ctl). */
int loop_add(struct loop *loop, struct loop_handler *h, int fd, uint32_t events, loop_cb cb,
	     void *arg);
/* loop_mod: watch h's fd for events instead. 0 or -1. */
int loop_mod(struct loop *loop, struct loop_handler *h, uint32_t events);
/* loop_del: stop watching h (does not close its fd). A handler not added
 * is ignored. */
void loop_del(struct loop *loop, struct loop_handler *h);
/* loop_del_finalize: loop_del() (h need not have been added), then fin(h)
 * once the batch being dispatched is done (at once when the loop is not
 * dispatching, or is NULL). */
void loop_del_finalize(struct loop *loop, struct loop_handler *h, loop_fin_cb fin);

/* loop_timer_add: h becomes a timerfd on CLOCK_MONOTONIC firing first at
 * the absolute time first_ns, then every interval_ns (0: once); its fd is
 * h->fd. The callback should call loop_timer_read(). 0 or -1. */
int loop_timer_add(struct loop *loop, struct loop_handler *h, int64_t first_ns, int64_t interval_ns,
		   loop_cb cb, void *arg);
/* loop_timer_set: re-arm the timer h. 0 or -1. */
int loop_timer_set(struct loop_handler *h, int64_t first_ns, int64_t interval_ns);
/* loop_timer_del: loop_del() and close the timerfd. */
void loop_timer_del(struct loop *loop, struct loop_handler *h);
/* loop_timer_read: expirations since the last read (0 if none). */
uint64_t loop_timer_read(int fd);

/* loop_add_signals: block the signals (a list ending with 0) and deliver
 * them through a signalfd watched by h; the callback reads the signal
 * number with loop_signal_read(). 0 or -1 (errno). */
int loop_add_signals(struct loop *loop, struct loop_handler *h, const int *signals, loop_cb cb,
		     void *arg);
/* loop_signals: loop_add_signals() of SIGINT, SIGTERM and SIGHUP. */
int loop_signals(struct loop *loop, struct loop_handler *h, loop_cb cb, void *arg);
int loop_signal_read(int fd);
/* loop_signal_read_value: the same, and the value a sigqueue(3) sent with
 * it (ssi_int; 0 for a plain kill) into *value */
int loop_signal_read_value(int fd, int *value);

/* loop_stop_on_signal: the handler most agents give loop_signals():
 * SIGINT and SIGTERM stop the loop, logged as "signal N: stopping" followed
 * by arg (a const char * note, or NULL); SIGHUP is logged and ignored. */
void loop_stop_on_signal(struct loop *loop, int fd, uint32_t events, void *arg);

/* loop_run: dispatch until loop_stop() is called. 0, or -1 on epoll error. */
int loop_run(struct loop *loop);
/* loop_once: one batch, waiting at most timeout_ms (-1: forever, 0: not
 * at all) for the first event. The number of events, or -1. */
int loop_once(struct loop *loop, int timeout_ms);
void loop_stop(struct loop *loop);

#endif
