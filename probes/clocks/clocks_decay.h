/*
 * The decay curve (clocks_decay.c; docs/clocks.md, "Decay"): per time
 * bucket after t0, each scheme's requests still sent to the dead site. A
 * clock's computation, as it counts exactly the requests the window does;
 * the report draws and tabulates it.
 */
#ifndef STEERLAB_CLOCKS_DECAY_H
#define STEERLAB_CLOCKS_DECAY_H

#include <stddef.h>
#include <stdint.h>

#include "clocks_explain.h"
#include "clocks_input.h"

#define CLOCKS_MAX_BUCKETS 1000000

/* bucket k of a series holds the times t with t0 + k w < t <= t0 + (k+1) w:
 * clocks_bucket_of gives k for rel = t - t0 (any sign) and width w > 0 */
int64_t clocks_bucket_of(int64_t rel_ns, int64_t width_ns);

/* One scheme's decay curve: per bucket, its requests captured on the dead
 * site's link (to the dead site, as in the window) and on every site link.
 * known = 0: it cannot be told (no capture of the failed site; for dns, no
 * site address in site_failed). */
struct clocks_decay_series {
	int known;
	int64_t *dead, *all;
	/* the fail-back curve, when the timeline recovered the failed site
	 * (failure.recovered_ns; else NULL): per bucket, the scheme's requests
	 * captured on the site's link (to it, as in the fail-back clocks) from
	 * the recovery on */
	int64_t *back;
	/* dead by cause, when the decay was computed with an explanation
	 * (clocks_decay_explain; else NULL): dead[k] = the sum over the causes
	 * of cause[c][k] */
	int64_t *cause[CLOCKS_CAUSES];
	/* the connection attempts, when clients spoke TCP (in->conn; else
	 * NULL): per bucket, the scheme's clients' SYNs captured on the dead
	 * site's link and on every site link, retransmissions included (a
	 * client that keeps connecting to a dead address keeps sending them) */
	int64_t *syn_dead, *syn_all;
};

struct clocks_decay {
	int64_t bucket_ns;
	int64_t end_ns; /* the end of the observation, relative to t0 */
	size_t n;	/* buckets, covering (t0, t0 + end_ns] */
	struct clocks_decay_series s[CLOCKS_NSCHEMES];
	/* the DNS curve of the clients of each [resolver] node (k-th of
	 * in->dnstopo), known as the DNS curve is; no fail-back curve */
	int nrsv;
	struct clocks_decay_series *rsv;
};

/* clocks_decay_auto_bucket: the bucket for an observation of obs_ns: the
 * largest of 1 s, 100 ms and 10 ms that gives at least 50 buckets (10 ms if
 * none does). */
int64_t clocks_decay_auto_bucket(int64_t obs_ns);

/* clocks_decay: the decay curves of in with buckets of bucket_ns (> 0) into
 * *d. 0, or -1 with the reason in err (too many buckets, no memory). Free
 * with clocks_decay_free either way. */
int clocks_decay(const struct clocks_input *in, int64_t bucket_ns, struct clocks_decay *d,
		 char *err, size_t errlen);
void clocks_decay_free(struct clocks_decay *d);

/* clocks_decay_marks: the times a decay table shows, after its start, up
 * to limit (ns after the start): 0.5 s, 1 s, 2 s, 5 s, 10 s (for an
 * observation of at most 2 min), 15 s, 30 s, ... 30 min, no finer than the
 * bucket, then the end of the last whole bucket if no mark is there (*end
 * set: the last mark is that one). At most CLOCKS_MAX_MARKS; how many. */
#define CLOCKS_MAX_MARKS 16
int clocks_decay_marks(const struct clocks_decay *d, int64_t limit, int64_t *marks, int *end);

#endif
