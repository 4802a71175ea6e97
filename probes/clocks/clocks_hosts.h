/*
 * A lab over several hosts (docs/clocks.md, "Several hosts"): one kernel
 * clock no longer stamps every file. lab_up's hosts say which host each
 * node is on, the host_clock events each host's clock offset against the
 * reference (the first host, where lab.events.jsonl and t0 are stamped)
 * and its uncertainty. The readers subtract a node's host's offset from
 * its stamps (its events' t, its collector's captures, its client's
 * records); a clock that compares a stamp of another host than the
 * reference with t0 carries that host's uncertainty, and the verdict
 * flags one whose uncertainty is too large a share of it.
 */
#ifndef STEERLAB_CLOCKS_HOSTS_H
#define STEERLAB_CLOCKS_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "clocks_base.h"

/* the verdict's share: a clock's uncertainty above 10 % of it is
 * clock_sync_uncertain (lib/clocksync.h, clocksync_too_uncertain) */
#define CLOCKS_SYNC_SHARE 0.1

struct clocks_host {
	char name[CLOCKS_NAME_MAX];
	int reference; /* host_clock's "reference": its offset is 0, exactly */
	int measured;  /* a host_clock with an offset (the reference: 1) */
	int said;      /* a host_clock named it (as host or as reference) */
	/* its clock less the reference's, and the bound on that (0 and 0
	 * when not measured: its stamps are taken as they are) */
	int64_t offset_ns, uncertainty_ns;
	int64_t probes; /* the probes answered; -1: the reference */
};

/* a node and its host (an index into clocks_input's hosts) */
struct clocks_node_host {
	char node[CLOCKS_NAME_MAX];
	size_t host;
};

/* a capture label and the node whose collector captured it (the file's
 * NODE of its capture_ready) */
struct clocks_label_node {
	char label[CLOCKS_NAME_MAX];
	char node[CLOCKS_NAME_MAX];
};

struct clocks_input;
struct clocks_result;

/* clocks_multi_host: whether the run's lab is over several hosts */
int clocks_multi_host(const struct clocks_input *in);

/* clocks_node_host: node's host, or NULL (a lab of one host, a node it
 * does not know) */
const struct clocks_host *clocks_node_host(const struct clocks_input *in, const char *node);

/* clocks_node_offset: what to subtract from node's stamps: its host's
 * offset (0 if none is known); clocks_label_offset: the same for the
 * capture of label, by the node of its collector */
int64_t clocks_node_offset(const struct clocks_input *in, const char *node);
int64_t clocks_label_offset(const struct clocks_input *in, const char *label);

/* clocks_label_node: the node whose collector captured label, or NULL */
const char *clocks_label_node(const struct clocks_input *in, const char *label);

/* clocks_hosts_max_uncertainty: the largest uncertainty of the lab's hosts
 * (the bound of a clock whose stamp's host is not known) */
int64_t clocks_hosts_max_uncertainty(const struct clocks_input *in);

/* clocks_node_uncertainty: the uncertainty of node's stamps, its host's
 * (0: the reference's, or a node of no host); CLOCKS_NONE in a lab of one
 * host */
int64_t clocks_node_uncertainty(const struct clocks_input *in, const char *node);

/* clocks_hosts_uncertainty (clocks_hosts_u.c): every uncertainty of r, each
 * its stamp's host's: the main clocks' (r->u_*_ns: detect, steer, the
 * remote prober's dead, window, last packet), the fail-back's
 * (r->failback.u_*_ns) and the FIB's (each router's, the first and the
 * last change: r->fib, r->fib6 and their fail-back episodes). CLOCKS_NONE
 * in a lab of one host or for a clock not measured. */
void clocks_hosts_uncertainty(const struct clocks_input *in, struct clocks_result *r);

/* clocks_hosts_any_u: r has a clock of some uncertainty (above 0) */
int clocks_hosts_any_u(const struct clocks_result *r);

/* clocks_hosts_json: clocks.json's "hosts", {NAME: {reference, offset_s,
 * uncertainty_s, probes}}; clocks_hosts_json_u: a scheme's
 * "uncertainty_s", {CLOCK: U} of the clocks that have one (detect, steer,
 * window, last_packet, remote_dead, fib_convergence,
 * failback_fib_convergence, failback_healthy, failback_steer,
 * failback_first_client, failback_last_client; NULL: none);
 * clocks_hosts_json_fib_u: an episode's FIB "uncertainty_s", {first,
 * last, convergence} (NULL: none) */
json_t *clocks_hosts_json(const struct clocks_input *in);
json_t *clocks_hosts_json_u(const struct clocks_result *r);
struct clocks_fib;
json_t *clocks_hosts_json_fib_u(const struct clocks_fib *fib);

/* clocks_hosts_verdict: a host not measured (clock_sync_unmeasured), a
 * clock of res whose uncertainty is more than CLOCKS_SYNC_SHARE of it
 * (clock_sync_uncertain); both invalidate the run.
 * clocks_hosts_verdict_failure: the same for the clocks of a later failure
 * (res, its schemes'), named by name in the message */
void clocks_hosts_verdict(const struct clocks_input *in, const struct clocks_result *res, int nres,
			  struct clocks_notes *v);
void clocks_hosts_verdict_failure(const struct clocks_input *in, const char *name,
				  const struct clocks_result *res, int nres,
				  struct clocks_notes *v);

#endif
