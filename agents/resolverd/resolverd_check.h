/*
 * resolverd_check: what another program calls to check a configuration of
 * resolverd's, as `resolverd -t` does, without resolverd's internals
 * (config.h). The lab checks the configuration it writes for each
 * [resolver] node with it (lab/build/resolvconf.c), before anything is built.
 */
#ifndef STEERLAB_RESOLVERD_CHECK_H
#define STEERLAB_RESOLVERD_CHECK_H

#include <stdint.h>
#include <stdio.h>

/* resolverd_check_stream: reads a configuration from f, named path in the
 * messages, and checks it whole. Returns 0 if resolverd would run it, or
 * -1 with every problem on err as "path:line: message"
 * (docs/resolverd.md). */
int resolverd_check_stream(FILE *f, const char *path, FILE *err);

/* The knobs of resolverd's first cache as resolverd reads them, every
 * default filled in: what the lab maps onto a real resolver's options
 * (lab/build/realres.c), so a knob means the same whatever runs it. */
struct resolverd_knobs {
	uint32_t min_ttl, max_ttl, neg_max_ttl, stale_ttl; /* seconds */
	int serve_stale;
	int64_t max_stale_ns, stale_recheck_ns;
	unsigned prefetch_pct; /* 0: off */
	int phase_zero;	       /* the first fill has no phase (none, 0%, spread of one) */
	unsigned max_entries;
	int64_t timeout_ns; /* one upstream attempt */
	unsigned retries, max_pending;
	int64_t stats_ns;
};

/* resolverd_knobs_stream: as resolverd_check_stream, and on success the
 * knobs of the first cache the configuration defines into k. 0 or -1. */
int resolverd_knobs_stream(FILE *f, const char *path, FILE *err, struct resolverd_knobs *k);

#endif
