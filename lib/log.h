/*
 * One logging API for every steerlab program, after OpenBSD's log.c.
 *
 * Messages go to stderr, prefixed with a wall-clock time and the program
 * name. The supervisor redirects each agent's stderr to NODE.AGENT.log in
 * the run directory, so this is also the agents' log file.
 *
 * log_warn() appends strerror(errno); log_warnx() does not. fatal() and
 * fatalx() log and exit(1): use them at start-up or on a broken invariant.
 */
#ifndef STEERLAB_LOG_H
#define STEERLAB_LOG_H

#include <stdarg.h>

/* log_init: name is the program name shown in every line; verbose > 0
 * enables log_debug(). */
void log_init(const char *name, int verbose);
int log_verbose(void);

void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
