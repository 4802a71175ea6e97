/*
 * The one event loop every agent uses: epoll over file descriptors, with
 * timers as timerfds and signals as a signalfd, so that callbacks never run
 * in signal context (docs/style.md: signals come through signalfd).
 *
 * A handler is (fd, callback, argument), as NSD's netio handlers.
 */
#ifndef STEERLAB_LOOP_H
#define STEERLAB_LOOP_H

#include <stdint.h>

struct loop;
typedef void (*loop_cb)(struct loop *loop, int fd, uint32_t events, void *arg);

struct loop *loop_new(void);
void loop_free(struct loop *loop);

/* loop_add: watch fd for events (EPOLLIN, ...). 0 or -1. */
int loop_add(struct loop *loop, int fd, uint32_t events, loop_cb cb, void *arg);
int loop_del(struct loop *loop, int fd);

/* loop_timer: a timerfd on CLOCK_MONOTONIC firing first at the absolute
 * time first_ns, then every interval_ns (0: once). Returns the fd (close it
 * with loop_del + close), or -1. The callback should call loop_timer_read(). */
int loop_timer(struct loop *loop, int64_t first_ns, int64_t interval_ns, loop_cb cb, void *arg);
/* loop_timer_set: re-arm an existing timer fd. */
int loop_timer_set(int fd, int64_t first_ns, int64_t interval_ns);
/* loop_timer_read: expirations since the last read (0 if none). */
uint64_t loop_timer_read(int fd);

/* loop_signals: block SIGINT, SIGTERM and SIGHUP and deliver them through a
 * signalfd; cb gets the signal number in *(int *)arg-less form via
 * loop_signal_read(). Returns the fd or -1. */
int loop_signals(struct loop *loop, loop_cb cb, void *arg);
int loop_signal_read(int fd);

/* loop_stop_on_signal: the handler most agents give loop_signals():
 * SIGINT and SIGTERM stop the loop, logged as "signal N: stopping" followed
 * by arg (a const char * note, or NULL); SIGHUP is logged and ignored. */
void loop_stop_on_signal(struct loop *loop, int fd, uint32_t events, void *arg);

/* loop_run: dispatch until loop_stop() is called. 0, or -1 on epoll error. */
int loop_run(struct loop *loop);
void loop_stop(struct loop *loop);

#endif
