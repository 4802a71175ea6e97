/*
 * strfmt: snprintf that says when it truncated. Paths and names in steerlab
 * are built with it; a truncated path must never be used silently.
 */
#ifndef STEERLAB_STRFMT_H
#define STEERLAB_STRFMT_H

#include <stddef.h>

/* strfmt: format into buf; 0, or -1 (buf holds a truncated string) if the
 * result did not fit. */
int strfmt(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
