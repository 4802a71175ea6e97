/* Logging to stderr; see log.h. */
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *log_name = "steerlab";
static int log_level;

void log_init(const char *name, int verbose)
{
	log_name = name;
	log_level = verbose;
}

int log_verbose(void)
{
	return log_level;
}

static void log_vwrite(const char *tag, const char *fmt, va_list ap, const char *err)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld %s: %s", when, ts.tv_nsec / 1000000, log_name, tag);
	vfprintf(stderr, fmt, ap);
	if (err)
		fprintf(stderr, ": %s", err);
	fputc('\n', stderr);
	fflush(stderr);
}

void log_warn(const char *fmt, ...)
{
	const char *err = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("", fmt, ap, err);
	va_end(ap);
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("", fmt, ap, NULL);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("", fmt, ap, NULL);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_level < 1)
		return;
	va_start(ap, fmt);
	log_vwrite("debug: ", fmt, ap, NULL);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	const char *err = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("fatal: ", fmt, ap, err);
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite("fatal: ", fmt, ap, NULL);
	va_end(ap);
	exit(1);
}
