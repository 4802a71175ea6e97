/*
 * strtonum: OpenBSD's strtonum(3), for every bounded number the lab's
 * files and command lines take, instead of strtoul and a '-' guard at
 * each call (glibc has no strtonum).
 *
 * As OpenBSD's: base 10, the whole string, minval..maxval, and *errstr
 * NULL on success or "invalid", "too small", "too large" (0 is returned
 * then). One difference, kept from the checks it replaced: with
 * minval >= 0 a '-' sign is "invalid" even on "-0".
 */
#ifndef STEERLAB_STRTONUM_H
#define STEERLAB_STRTONUM_H

long long strtonum(const char *numstr, long long minval, long long maxval, const char **errstr);

#endif
