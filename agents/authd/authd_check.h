/*
 * authd_check: what another program calls to check a configuration of
 * authd's, as `authd -t` does, without authd's internals (conf.h, db.h).
 * The lab checks the configuration it writes for its [dns] nodes with it
 * (lab/build/dnsconf.c), before anything is built, and the DNS changes its
 * timeline will send them (lib/zone_change.h), applied in order as authd
 * will apply them.
 */
#ifndef STEERLAB_AUTHD_CHECK_H
#define STEERLAB_AUTHD_CHECK_H

#include <stdio.h>

#include "zone_change.h"

/* authd_check_stream: reads a configuration from f, named path in the
 * messages, and checks it whole (zones, records, names, policies, the
 * server). Returns 0 if authd would serve it, or -1 with every problem on
 * err as "path:line: what was expected" (docs/authd.md). */
int authd_check_stream(FILE *f, const char *path, FILE *err);

/* A change a run will send, and where it is written. */
struct authd_check_change {
	struct zone_change change;
	int line;	/* of path: what its message names */
	char label[48]; /* its message's start: "[event e1]" */
};

/* authd_check_changes: authd_check_stream, then the n changes applied in
 * order to what the configuration makes, each as a CHANGE line would be.
 * 0 if authd would take every one, or -1 with each refusal on err as
 * "path:line: label: why" (and the configuration's problems as above). */
int authd_check_changes(FILE *f, const char *path, const struct authd_check_change *c, int n,
			FILE *err);

#endif
