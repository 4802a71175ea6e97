/*
 * The impairment of one direction of a link, as netem defines it: a delay,
 * a jitter drawn from a distribution, a loss rate with an optional
 * correlation, a rate, duplication and reordering (docs/agents.md, linkd).
 *
 * Two mechanisms apply it, with one behaviour: netem (tc qdisc) where the
 * kernel has sch_netem, and the user-space delay line (linkd: NFQUEUE and a
 * heap of release times) where it does not. So that both behave alike, the
 * delay line draws its numbers as sch_netem.c does: the same correlated
 * random numbers (get_crandom) for reorder, the same distribution tables
 * (iproute2's normal, pareto and paretonormal, generated here by iproute2's
 * own formulas) and the same tabledist(); reorder is netem's: a packet
 * chosen with that probability is sent at once. Loss without correlation is
 * netem's random loss; with one, a two-state chain that keeps the rate
 * (netem's get_crandom() pulls it down: loss 5% 25% loses 0.2 %), so there
 * the two mechanisms differ: netem is given the correlation as it is. The
 * delay line keeps each flow's order under jitter (netem reorders) and
 * cannot duplicate.
 *
 * The values are written as a topology writes them (`delay = 15ms`,
 * `jitter = 2ms normal`, `loss = 1% 25%`, `rate = 100mbit`); the netem
 * request is built through libnl (impair_kernel.c), so that a unit test
 * reads the message even on a kernel without sch_netem.
 */
#ifndef STEERLAB_IMPAIR_H
#define STEERLAB_IMPAIR_H

#include <stddef.h>
#include <stdint.h>

enum impair_dist {
	IMPAIR_DIST_UNIFORM, /* netem's default: no table */
	IMPAIR_DIST_NORMAL,
	IMPAIR_DIST_PARETO,
	IMPAIR_DIST_PARETONORMAL,
};

/* NETEM_DIST_SCALE: a table entry of 8192 is one sigma */
#define IMPAIR_DIST_SCALE 8192
/* entries in each distribution table, as iproute2's .dist files */
#define IMPAIR_DIST_LEN 4096

/* one direction of a link; all zero is no impairment */
struct impair {
	int64_t delay_ns;
	int64_t jitter_ns;
	enum impair_dist dist;
	double loss_pct, loss_corr_pct;
	double duplicate_pct, duplicate_corr_pct;
	double reorder_pct, reorder_corr_pct;
	uint64_t rate_bps; /* bits per second; 0: unlimited */
};

/* which mechanism applies impairments on this kernel */
enum impair_mech {
	IMPAIR_MECH_NETEM,
	IMPAIR_MECH_DELAYLINE,
};

/* the longest jitter netem takes (a signed 32-bit number of ns) */
#define IMPAIR_JITTER_MAX_NS INT32_MAX

/* impair_parse: sets the impairment key (delay, jitter, loss, rate,
 * duplicate, reorder) of im to value. 0, or -1 with *what set to what was
 * expected ("a duration such as 15ms"), for impair_error(). */
int impair_parse(struct impair *im, const char *key, const char *value, const char **what);

/* impair_error: "KEY: expected WHAT, got 'VALUE'" into buf (len bytes);
 * for an unknown key, "unknown impairment 'KEY' (expected ...)". */
void impair_error(char *buf, size_t len, const char *key, const char *value, const char *what);

/* impair_check: im as mech can apply it. 0, or -1 with the reason in buf. */
int impair_check(const struct impair *im, enum impair_mech mech, char *buf, size_t len);

/* impair_format: im as the keys would write it ("delay 15ms jitter 2ms
 * normal loss 1% 25% rate 100mbit"; "none"), into buf. */
void impair_format(const struct impair *im, char *buf, size_t len);

/*
 * The impairments in force of a node's interfaces, as `steerlab impair` and
 * the timeline's impair write them (RUNDIR/NODE.impair) and linkd re-reads
 * them on SIGHUP (-c): one line per key, "IFNAME KEY VALUE" (VALUE as a
 * [link] writes it: "eth0 loss 1% 25%"), or "IFNAME none".
 */

/* impair_file_read: ifname's impairment in the file at path into *im
 * (from zero), *found 1 if the file has a line of it (0: im untouched).
 * A file that does not exist is none found. 0, or -1 with "PATH:LINE:
 * what was expected" in err. */
int impair_file_read(const char *path, const char *ifname, struct impair *im, int *found, char *err,
		     size_t errlen);

const char *impair_dist_name(enum impair_dist dist);
const char *impair_mech_name(enum impair_mech mech);

/* impair_dist_table: the distribution's table of IMPAIR_DIST_LEN entries
 * (generated once, as iproute2's maketable programs do), or NULL for the
 * uniform distribution, which has none. */
const int16_t *impair_dist_table(enum impair_dist dist);

/* netem's correlated random numbers (sch_netem.c struct crndstate) */
struct impair_crnd {
	uint32_t last;
	uint32_t rho;
};

/* The draws of one direction, as sch_netem.c makes them, from a seed. */
struct impair_sampler {
	struct impair im;
	uint64_t prng;
	struct impair_crnd delay_cor, loss_cor, reorder_cor;
	const int16_t *table;
	uint32_t loss, reorder; /* probabilities scaled to 2^32 - 1 */
};

/* impair_pct_u32: a percentage as netem's u32 probability (iproute2's
 * get_percent: rint(pct / 100 * UINT32_MAX)) */
uint32_t impair_pct_u32(double pct);

/* impair_sampler_init: the sampler of im, seeded with seed. */
void impair_sampler_init(struct impair_sampler *s, const struct impair *im, uint64_t seed);
/* impair_sample_delay_ns: delay plus a jitter draw (netem's tabledist()),
 * never below 0. */
int64_t impair_sample_delay_ns(struct impair_sampler *s);
/* impair_sample_loss: 1 if this packet is lost (netem's random loss) */
int impair_sample_loss(struct impair_sampler *s);
/* impair_sample_reorder: 1 if this packet goes out at once, ahead of those
 * being delayed (netem's reorder) */
int impair_sample_reorder(struct impair_sampler *s);

/*
 * The kernel (impair_kernel.c, libnl-route-3). Root is needed for all but
 * impair_netem_request().
 */

/* impair_netem_request: the RTM_NEWQDISC messages that put im on the
 * interface ifindex with netem (root 1:, with a tbf child 10: for a rate),
 * copied one after the other into *buf (malloc'd, *len bytes). 0, or -1
 * with the reason in err. */
int impair_netem_request(int ifindex, const struct impair *im, void **buf, size_t *len, char *err,
			 size_t errlen);
/* impair_netem_apply: im on ifname through netem. 0, or -1 with the reason
 * in err; on a kernel without sch_netem the reason says so. */
int impair_netem_apply(const char *ifname, const struct impair *im, char *err, size_t errlen);
/* impair_tbf_request: the RTM_NEWQDISC message of a root tbf of rate_bps
 * on ifindex, as impair_netem_request() gives its messages. */
int impair_tbf_request(int ifindex, uint64_t rate_bps, void **buf, size_t *len, char *err,
		       size_t errlen);
/* impair_tbf_apply: the rate as a root tbf on ifname (replacing the root
 * qdisc); impair_root_remove: ifname's root qdisc back to the default.
 * 0, or -1 with the reason in err. */
int impair_tbf_apply(const char *ifname, uint64_t rate_bps, char *err, size_t errlen);
int impair_root_remove(const char *ifname, char *err, size_t errlen);
/* impair_detect: netem if the kernel takes a netem qdisc (tried on the
 * loopback of a throwaway network namespace, in a child process), else the
 * delay line, with the kernel's refusal in err. 0 and *mech, or -1 with the
 * reason in err when it cannot tell (no privilege to make the namespace). */
int impair_detect(enum impair_mech *mech, char *err, size_t errlen);

#endif
