/*
 * A running lab: its namespaces, links and agents, and the state directory
 * /run/steerlab/LAB/ that lets `steerlab down LAB` remove exactly what
 * `steerlab up` made, from another process:
 *
 *   rundir       the run directory (events, logs, captures)
 *   bindir       where the agent programs are: down signals only those
 *   namespaces   one namespace name per line, appended as each is made
 *   agents.tsv   pid, start time (/proc/PID/stat field 22), node, agent
 *
 * Files are appended before the thing they record is relied upon, so a lab
 * that failed half-way up is still taken down completely. /run/steerlab and
 * each state directory are root's, 0711 and 0700 (0711 with routing = bgp:
 * FRR's daemons, as frr, traverse them to STATEDIR/frr/NODE, lab/build/frr.c;
 * and with a real resolver, to STATEDIR/resolvers/NODE, lab/build/realres_run.c);
 * `down` still trusts nothing in
 * them it can check: a namespace line must be LAB-NODE, a PID must run one
 * of the agent programs in bindir and have the recorded start time.
 *
 * While the process that started them lives (`up`, `run`), the agents are
 * watched through pidfds: an agent that ends before the lab stops them is
 * reported at once, as `agent_exited` in lab.events.jsonl and a line on the
 * terminal, and counted in lab->unexpected unless the run meant it to end
 * (an agent the timeline killed, lab/run/actions.c; a client done after its
 * duration).
 */
#ifndef STEERLAB_LAB_H
#define STEERLAB_LAB_H

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "topology.h"
#include "wire.h"

#define LAB_STATE_DIR "/run/steerlab"
#define LAB_MAX_AGENTS (4 * TOPO_MAX_NODES)
#define LAB_GRACE_NS (3 * 1000000000LL) /* SIGTERM to SIGKILL, SIGKILL to giving up */

struct event_log;

struct lab_agent {
	pid_t pid;
	unsigned long long starttime;
	int node;	 /* index into the topology, -1 if unknown */
	char name[16];	 /* its label: sited, client, client-dns, ... */
	int reaped;	 /* it has exited (and, if our child, been waited for) */
	int pidfd;	 /* -1: none (not ours, or not opened yet) */
	int expect_kill; /* the timeline kills it: its SIGKILL is expected */
	int reported;	 /* agent_exited written (or not to be: teardown) */
	int child;	 /* started by this process: ours to wait for */
	int line;	 /* its line in agents.tsv, for down's warnings */
	siginfo_t exit;	 /* how it ended, when this process waited for it */
	/* as agents.tsv names it */
	char nodename[TOPO_NAME_MAX + 1];
	/* while its batch is open (lab_start_batch): its program, and what its
	 * child said it could not do before exec (start_step -1: nothing) */
	char *prog;
	int start_step, start_errno;
};

/* Where a lab's life is, for the supervisor's terminal lines. */
enum lab_phase {
	LAB_BRINGUP, /* namespaces, links, agents being started */
	LAB_WARMUP,  /* waiting for captures, routes and servers */
	LAB_TRAFFIC, /* clients sending: an agent lost now invalidates the run */
	LAB_UP,	     /* `up` is done: the agents run on their own */
};

struct lab {
	const struct topology *t;
	char rundir[PATH_MAX];
	char statedir[PATH_MAX];
	char bindir[PATH_MAX];
	int nsfd[TOPO_MAX_NODES];
	struct lab_agent agents[LAB_MAX_AGENTS];
	int nagents;
	struct event_log *ev; /* lab.events.jsonl */
	int no_agents;	      /* up: namespaces, links and routes only */
	/* when set and non-zero (a signal handler's flag), bring-up stops
	 * before the next namespace or agent, and lab_up takes down what it
	 * made */
	const volatile sig_atomic_t *interrupt;
	int lockfd; /* the state directory's lock while lab_up holds it, else -1 */

	/* the supervisor's */
	enum lab_phase phase;
	int64_t traffic_start;	  /* CLOCK_MONOTONIC: "at 2.5 s" is after this */
	int64_t clients_until;	  /* CLOCK_MONOTONIC: clients may end from then (0: never) */
	int stopping;		  /* teardown began: exits are no longer reported */
	int unexpected;		  /* agents that ended unexpectedly */
	void (*before_say)(void); /* clears a progress line before a terminal line */

	/* the batch of agent starts open (lab_start_batch), if any */
	struct lab_batch {
		int open;
		int first;     /* its first agent's index in agents[] */
		int go[2];     /* a byte each: "recorded: run" (pipe) */
		int report[2]; /* what a child could not do (pipe) */
		int failed;    /* an agent of it could not be started */
	} batch;
};

/* lab_init: bind a lab to a parsed topology and a run directory (created
 * if missing). bindir is where the agent programs are. */
int lab_init(struct lab *lab, const struct topology *t, const char *rundir, const char *bindir);

/* lab_up: state directory, namespaces, links, addresses, routes, sysctls,
 * then the agents of every node except clients. Refuses if the lab exists.
 * On failure, takes down whatever it made and returns -1. */
int lab_up(struct lab *lab);

/* lab_start_clients: start the client agent of every client node, sending
 * for duration_ns (0: until stopped). */
int lab_start_clients(struct lab *lab, int64_t duration_ns);

/* A client node's DNS-steered flow carries this id, its anycast flow the
 * node's client_id, so captures tell the two apart. */
#define LAB_DNS_CLIENT_ID(id) (100000u + (id))
/* a population's base id (lib/wire.h, WIRE_POP_ID): its logical client j
 * sends as LAB_POP_ID(id, dns) + j */
#define LAB_POP_ID(id, dns) WIRE_POP_ID((id), (dns), 0u)

/* lab_start_infra: every agent of every node but the clients. */
int lab_start_infra(struct lab *lab);

/* lab_start_sited: the sited of site node n, with the command line lab_up
 * gives it (`steerlab recover` starts it again the same way). The index in
 * lab->agents, or -1. */
int lab_start_sited(struct lab *lab, int n);

/* lab_start_node: every agent of node n but a client's, with the command
 * lines lab_up gives them (a crashed node recovering). The lab's agents of
 * the node are started here, so a node kind that gains agents (a BGP
 * speaker) gains them on recovery too. 0 or -1. */
int lab_start_node(struct lab *lab, int n);

/* lab_reconfigure_node: node n's addresses and routes as lab_up set them,
 * keeping what is still there (after one of its links came back up). */
int lab_reconfigure_node(struct lab *lab, int n);

/* lab_start_agent_as: fork, enter the node's namespace, redirect output to
 * RUNDIR/NODE.LABEL.log and exec BINDIR/PROG (PROG itself if it is an
 * absolute path: FRR's daemons) with argv. Recorded in
 * agents.tsv under LABEL (e.g. "client-dns") before it may run. Returns
 * the index in lab->agents once it has exec'd, or -1 (said). Inside a
 * batch it returns once the agent is forked and recorded, and the index
 * holds once lab_start_wait has returned 0. */
int lab_start_agent_as(struct lab *lab, int node, const char *prog, const char *label,
		       char *const argv[]);

/* lab_start_batch: from here to lab_start_wait, lab_start_agent_as forks
 * and records each agent, which waits; lab_start_wait lets every recorded
 * one run at once and waits until each has exec'd (or said why it could
 * not), so that starting N agents costs one round trip through the
 * scheduler, not N. An agent that could not be forked or recorded stops
 * the batch there: those before it run, as they would have one by one.
 * lab_start_wait: 0 if every agent of the batch runs; -1 (each failure
 * said, in the order of the batch) if one could not be started, which is
 * then not in lab->agents. A batch that cannot be opened (no pipe) is
 * said, and its agents are started one by one. */
void lab_start_batch(struct lab *lab);
int lab_start_wait(struct lab *lab);

/* lab_signal_agents: send sig to the lab's agents called name (NULL: all;
 * "client*": every label that begins with client). */
void lab_signal_agents(struct lab *lab, const char *name, int sig);

/* lab_signal_agent: sig to agent i, through its pidfd. 0, or -1 (errno;
 * ESRCH if it had ended). */
int lab_signal_agent(struct lab *lab, int i, int sig);

/* lab_kill_agent: SIGKILL agent i on purpose (the timeline): its exit is
 * reported as expected. 0, or -1 with errno (ESRCH: it had already ended). */
int lab_kill_agent(struct lab *lab, int i);

/* lab_watch: wait up to timeout_ns (0: just look) for any agent of the
 * lab to end; report each that did (agent_exited, and a terminal line if
 * unexpected). Returns how many ended, or -1 if a signal interrupted the
 * wait. */
int lab_watch(struct lab *lab, int64_t timeout_ns);

/* lab_wait_agents: wait up to timeout_ns for the agents called name (NULL:
 * all) to exit, reporting any agent that ends meanwhile (lab_watch).
 * Returns how many are still running. A signal cuts the wait short. */
int lab_wait_agents(struct lab *lab, const char *name, int64_t timeout_ns);

/* lab_down_state: take down the lab whose state is in statedir: stop its
 * agents (SIGTERM, then SIGKILL after a grace period; only PIDs that run
 * one of the lab's agent programs with their recorded start time), delete
 * its namespaces by their recorded names (only names LAB-NODE of this lab),
 * remove statedir. Bad lines are refused with a warning naming them. 0, or
 * -1 if something was refused or could not be removed. */
int lab_down_state(const char *statedir, FILE *out);

/* lab_state_lock: the lock of statedir (flock on the directory), so that
 * two takedowns of one lab (two `steerlab down`, or one beside the run that
 * is stopping it) do not both stop its agents and write its closing events:
 * taken, waiting (said on stderr) while another process holds it. The
 * descriptor that holds it (lab_state_unlock releases it); -2 if statedir
 * was removed while waiting (the lab is down); -1 (errno) if it cannot be
 * opened. lab_down_state takes it; lab_down_state_locked is the same for
 * a caller that holds it already. */
int lab_state_lock(const char *statedir);
void lab_state_unlock(int fd);
int lab_down_state_locked(const char *statedir, FILE *out);

/* lab_state_check: statedir (or LAB_STATE_DIR) is a real directory, not a
 * symbolic link, owned by root and not writable by others. 0, or -1 with a
 * warning. */
int lab_state_check(const char *dir);

/* lab_ns_valid: name is a namespace name of lab's own form: LAB-NODE with
 * NODE a valid node name. */
int lab_ns_valid(const char *lab, const char *name);

/* lab_parse_agent_line: one agents.tsv line, "PID\tSTART\tNODE\tLABEL"
 * (with or without its newline) into *a: PID above 1, NODE a valid node
 * name, LABEL one of steerlab's agents. 0, or -1 if it is not of that form. */
int lab_parse_agent_line(const char *line, struct lab_agent *a);

/* lab_agent_claim: is the agent a, read from agents.tsv (path, for the
 * warning), still the process recorded there: its PID alive with the
 * recorded start time, running bindir's program for its label? 1: yes, and
 * a->pidfd holds it (release with lab_agent_release); 0: it is gone (or
 * another process has its PID); -1: a process with that start time runs
 * another program (said if warn). The test `down` makes before it signals. */
int lab_agent_claim(struct lab_agent *a, const char *bindir, const char *path, int warn);
void lab_agent_release(struct lab_agent *a);

/* lab_state_read_agents: the agents.tsv of statedir into agents[0..max);
 * each line not of the form is refused (with a warning if warn) and
 * counted in *refused. How many were read. */
int lab_state_read_agents(const char *statedir, struct lab_agent *agents, int max, int warn,
			  int *refused);

/* lab_state_bindir: where the lab's agent programs are, as `up` recorded
 * it (an absolute path), else where this steerlab finds them. */
void lab_state_bindir(const char *statedir, char *buf, size_t len);

/* lab_agent_prog: the program an agent label runs (client-dns: client;
 * zebra, bgpd and bfdd: FRR's, lab_frr_prog), or NULL if the label is not
 * one of the lab's agents. */
const char *lab_agent_prog(const char *label);

/* lab_down: the same for a lab this process brought up. */
int lab_down(struct lab *lab);

/* lab_status: print the labs under LAB_STATE_DIR (lab/build/state.c), or only
 * the lab called only (NULL: all): one row each, then the agents that are
 * no longer alive; as one JSON document if json. 0, or -1 (said; only
 * given and no such lab up). */
int lab_status(FILE *out, int json, const char *only);

/* lab_statedir: LAB_STATE_DIR/name into buf. */
int lab_statedir(char *buf, size_t len, const char *name);

/* lab_append: a line to DIR/FILE, created 0644 if missing; never through a
 * symbolic link. 0 or -1 (said). */
int lab_append(const char *dir, const char *file, const char *line);

/* lab_fopen_new: DIR/FILE for writing, which must not exist yet (O_EXCL);
 * lab_fopen_write: truncated if it exists. Neither follows a symbolic
 * link. NULL (said) on error. */
FILE *lab_fopen_new(const char *dir, const char *file);
FILE *lab_fopen_write(const char *dir, const char *file);

/* lab_fopen_read: path for reading, not through a symbolic link. NULL
 * (errno) on error. */
FILE *lab_fopen_read(const char *path);

/* lab_agent_dir: where the agent programs are (lab/build/agentdir.c): the
 * directory of the running steerlab if sited is there (a checkout's bin/),
 * else lab_libexecdir() if it is a directory (an installed steerlab), else
 * the running steerlab's directory, so that a missing agent is named there.
 * lab_agent_dir_pick is the choice, given both directories. */
void lab_agent_dir(char *buf, size_t len);
void lab_agent_dir_pick(const char *selfdir, const char *libexecdir, char *buf, size_t len);

/* lab_libexecdir: where make install puts the agents (LIBEXECDIR at build
 * time, /usr/local/libexec/steerlab by default). */
const char *lab_libexecdir(void);

/* FRR in the lab (lab/build/frr.c), when routing = bgp. lab_frr_prepare: the
 * FRR directories and configurations under the state directory (and the
 * configurations in the run directory). lab_start_frr: zebra, bgpd (and
 * bfdd) of node n, if it runs FRR, in its three steps:
 * lab_frr_start_zebra (n's zebra), lab_frr_wait_zebra (until the zebra of
 * every FRR node of [from, to) listens on its zserv.api; -1, said, if one
 * does not within 5 s of the last that did, ends, or the bring-up is
 * interrupted), lab_frr_start_bgp (n's bfdd and bgpd); lab_start_infra
 * takes each step for every node at once. lab_frr_remove: what FRR left
 * under statedir, and the directory. lab_frr_prog: the program of an FRR
 * label (zebra, bgpd, bfdd), or NULL. lab_frr_forget: after FRR daemon pid
 * of label ended, its /var/tmp/frr/LABEL.PID (log buffers, crash logs). */
int lab_frr_prepare(struct lab *lab);
int lab_start_frr(struct lab *lab, int n);
int lab_frr_start_zebra(struct lab *lab, int n);
int lab_frr_wait_zebra(struct lab *lab, int from, int to);
int lab_frr_start_bgp(struct lab *lab, int n);
int lab_frr_remove(const char *statedir);
const char *lab_frr_prog(const char *label);
void lab_frr_forget(const char *label, pid_t pid);

/* Real resolvers in the lab (lab/build/realres_run.c), impl = unbound |
 * knot-resolver | bind9 on a [resolver] node. lab_realres_prepare: their
 * directories, configurations and root hints under the state directory (and
 * the configurations in the run directory). lab_realres_start: node n's.
 * lab_realres_ready: 1 when every one answers the lab's name.
 * lab_realres_remove: what they left under statedir, and the directory.
 * lab_realres_prog: the program of a label (unbound, kresd, named), or
 * NULL. */
int lab_realres_prepare(struct lab *lab);
int lab_realres_start(struct lab *lab, int n);
int lab_realres_ready(struct lab *lab);
int lab_realres_remove(const char *statedir);
const char *lab_realres_prog(const char *label);

/* lab_nsname: LAB-NODE into buf. */
int lab_nsname(char *buf, size_t len, const struct topology *t, int node);

#endif
