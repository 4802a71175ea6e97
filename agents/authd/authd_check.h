/*
 * authd_check: what another program calls to check a configuration of
 * authd's, as `authd -t` does, without authd's internals (conf.h, db.h).
 * The lab checks the configuration it writes for its [dns] nodes with it
 * (lab/build/dnsconf.c), before anything is built.
 */
#ifndef STEERLAB_AUTHD_CHECK_H
#define STEERLAB_AUTHD_CHECK_H

#include <stdio.h>

/* authd_check_stream: reads a configuration from f, named path in the
 * messages, and checks it whole (zones, records, names, policies, the
 * server). Returns 0 if authd would serve it, or -1 with every problem on
 * err as "path:line: what was expected" (docs/authd.md). */
int authd_check_stream(FILE *f, const char *path, FILE *err);

#endif
