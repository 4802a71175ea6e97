/*
 * resolverd_check: what another program calls to check a configuration of
 * resolverd's, as `resolverd -t` does, without resolverd's internals
 * (config.h). The lab checks the configuration it writes for each
 * [resolver] node with it (lab/resolvconf.c), before anything is built.
 */
#ifndef STEERLAB_RESOLVERD_CHECK_H
#define STEERLAB_RESOLVERD_CHECK_H

#include <stdio.h>

/* resolverd_check_stream: reads a configuration from f, named path in the
 * messages, and checks it whole. Returns 0 if resolverd would run it, or
 * -1 with every problem on err as "path:line: message"
 * (docs/resolverd.md). */
int resolverd_check_stream(FILE *f, const char *path, FILE *err);

#endif
