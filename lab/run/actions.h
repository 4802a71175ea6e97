/*
 * The timeline's actions on a lab that is up (topology.h's enum
 * topo_action; docs/man/steerlab.ini.5 says what each does in the kernel,
 * docs/topology.md which incident it stands for):
 *
 *   kill           SIGKILL of the site's sited
 *   crash          SIGKILL of every agent the lab runs at the node, as
 *                  agents.tsv records them by node: sited, prober, and a
 *                  BGP speaker's daemons wherever the lab starts some
 *   freeze         an nftables table in the node's namespace dropping every
 *                  packet in and out but loopback's: the processes run, the
 *                  links stay up, nothing is answered
 *   drain/undrain  SIGUSR1/SIGUSR2 to sited: it keeps answering, and flags
 *                  its replies "draining", so every prober (the site's, and
 *                  the vantage points reporting to authd) takes it out
 *   link-down/up   IFF_UP cleared/set on both veth ends (libnl); on the way
 *                  up both ends' routes are added back
 *   dns-down/up    an nftables table dropping DNS (UDP and TCP port 53) to
 *                  the [dns] node: resolvers time out
 *   resolver-down/up  the same at a [resolver] node, for all its caches or
 *                  one (instance)
 *   recover        undoes the event the parser found it undoes: sited or the
 *                  node's agents started again with up's command lines, the
 *                  table deleted, the link up, the drain lifted
 *   flap           count cycles of the site's kill/recover or the link's
 *                  down/up, period apart, up at half of each
 *
 * Where routing = bgp (issue 11) plugs in: crash kills whatever agents.tsv
 * records at the node, FRR's daemons included once the lab records them
 * there, and recover starts them again through lab_start_node; drain goes
 * through the probers' own verdict (a draining reply is a failed probe), so
 * a prober that withdraws by removing the anycast /32 from lo drains that
 * way too; freeze drops the BGP session's packets with the rest.
 *
 * One step is one call: the caller (lab/run/run.c) schedules them. Every step
 * writes event_applied to lab.events.jsonl at the instant it was applied;
 * the first step that takes a site out (kill, crash, freeze, drain, its
 * link down, a flap's first down) also writes site_failed, stamped before
 * the step (t0), which the clocks measure from.
 *
 * What a step does to the lab goes through one table of calls, struct
 * action_ops: the agents' signals and starts (lab/build/supervise.c), a node's
 * routes (lab/build/build.c), an nftables script in a node's namespace, a link's
 * end up or down (lab/build/kernel.c). The rest, which step does what to whom,
 * which script, which events, is decided here and unit-tested against a
 * fake table (tests/unit/test_lab_actions.c); action_lab_ops is the lab's.
 */
#ifndef STEERLAB_ACTIONS_H
#define STEERLAB_ACTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"

/* One scheduled step of the timeline. */
struct action_step {
	int64_t at_ns;	    /* from the traffic's start, fail_jitter included */
	int64_t nominal_ns; /* as written (a flap's cycle's instant) */
	int event;	    /* index in t->events */
	int cycle;	    /* flap: 1..count; 0 otherwise */
	int up;		    /* flap: the cycle's way back */
};

#define ACTION_MAX_STEPS 2048

/* action_plan: the steps of t's timeline in order into steps[0..max).
 * Their number (at most max). With [lab] fail_jitter, event i (in time
 * order) moves later by jitter_offset_ns(fail_jitter, seed, i) (lab/topology/jitter.h;
 * the fail = yes shorthand alone is event 0, as before the timeline), a
 * flap with all its cycles; an event never moves before the previous one on
 * its target ended (a recover stays after what it undoes). */
int action_plan(const struct topology *t, struct action_step *steps, int max);

/* action_fail_at: the instant of the first step that takes a site out
 * (topo_first_failure's event), jitter included, and as written into
 * *nominal; t->fail_at_ns (both) if none. */
int64_t action_fail_at(const struct topology *t, const struct action_step *steps, int n,
		       int64_t *nominal);

/* action_reset: forget which sites failed (a new run). */
void action_reset(void);

/* action_sites_failed: how many sites a step took out since action_reset
 * (each wrote its site_failed). */
int action_sites_failed(void);

/* action_apply: apply one step to the lab now, writing its events to
 * lab->ev; by is "timeline" or "hand". A line saying what was done goes to
 * said. 0, or -1 (said, with why) if the step could not be applied. */
int action_apply(struct lab *lab, const struct action_step *s, const char *by, char *said,
		 size_t len);

/* The lab's side of the actions: what each call does to the lab of the
 * real table, action_lab_ops. Agent i is lab->agents[i], node n
 * lab->t->nodes[n]. */
struct action_ops {
	/* report the agents that have ended (lab_watch(lab, 0)): a killed
	 * agent's end is then told from one that ended before */
	void (*watch)(struct lab *lab);
	/* SIGKILL agent i on purpose (lab_kill_agent); any signal to it
	 * (lab_signal_agent). 0, or -1 with errno (ESRCH: it had ended) */
	int (*kill_agent)(struct lab *lab, int i);
	int (*signal_agent)(struct lab *lab, int i, int sig);
	/* node n's sited (its index in lab->agents), or every agent of the
	 * node (0), started again with up's command lines; -1 (logged) */
	int (*start_sited)(struct lab *lab, int n);
	int (*start_node)(struct lab *lab, int n);
	/* node n's addresses and routes again, after a link came back up.
	 * 0 or -1 (logged) */
	int (*reconfigure_node)(struct lab *lab, int n);
	/* `nft -f -` with script in node n's namespace. 0, or -1 with why in
	 * said */
	int (*nft)(struct lab *lab, int n, const char *script, char *said, size_t len);
	/* IFF_UP set (up) or cleared on node n's interface ifname. 0 or -1
	 * (logged) */
	int (*link_set)(struct lab *lab, int n, const char *ifname, int up);
};

extern const struct action_ops action_lab_ops;

/* action_set_ops: the table action_apply uses from now on (NULL: the
 * lab's, action_lab_ops, as at start). */
void action_set_ops(const struct action_ops *ops);

/* action_describe: "crash site a" for the step, into buf. */
const char *action_describe(const struct topology *t, const struct action_step *s, char *buf,
			    size_t len);

#endif
