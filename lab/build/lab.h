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

#include <jansson.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "topology.h"
#include "wire.h"
#include "zone_change.h"

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
	int replaced;	 /* a new instance took over from it: its exit is expected */
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
	/* SCHED_FIFO here (lab_rt_permitted): 0 not asked yet, 1 permitted,
	 * -1 refused (bfdd and linkd then run at the default policy, said) */
	int rt;
	char rundir[PATH_MAX];
	char statedir[PATH_MAX];
	char bindir[PATH_MAX];
	int nsfd[TOPO_MAX_NODES];
	int hostfd[TOPO_MAX_HOSTS]; /* each [host]'s namespace (lab/build/hosts.c), or -1 */
	struct lab_agent agents[LAB_MAX_AGENTS];
	int nagents;
	struct event_log *ev; /* lab.events.jsonl */
	int no_agents;	      /* up: namespaces, links and routes only */
	/* when set and non-zero (a signal handler's flag), bring-up stops
	 * before the next namespace or agent, and lab_up takes down what it
	 * made */
	const volatile sig_atomic_t *interrupt;
	int lockfd; /* the state directory's lock while lab_up holds it, else -1 */
	/* bring-up left PowerDNS and gdnsd to lab_authority_start_later */
	int authority_later;
	/* the timeline's DNS changes PowerDNS and gdnsd took, in order, and
	 * the node of each (lab_authority_change) */
	int nauthority_changes;
	int authority_change_node[TOPO_MAX_EVENTS];
	struct zone_change authority_changes[TOPO_MAX_EVENTS];

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

/*
 * One lab over several hosts (lab/build/hosts.c; topology.h, "[host]"):
 * lab_hosts_up: each host's namespace (recorded first), the underlay and
 * the hosts' capture directories; lab_hosts_link: the VXLAN devices of a
 * link between nodes a and b on two hosts, vni its id, named as its veth
 * ends would be; lab_host_nsname: host h's namespace; lab_host_capdir:
 * where node's collector writes its captures (its host's directory, or the
 * run directory of a lab on one host); lab_hosts_fetch: every host's
 * captures under statedir moved into rundir, each copy's size checked,
 * how many files and hosts in *files and *hosts. Each 0 or -1 (said).
 */
struct kern;
int lab_hosts_up(struct lab *lab, struct kern *root);
int lab_hosts_link(struct lab *lab, unsigned vni, int a, const char *a_ifname, int b,
		   const char *b_ifname);
int lab_host_nsname(char *buf, size_t len, const struct topology *t, int h);
int lab_host_capdir(const struct lab *lab, int node, char *buf, size_t len);
int lab_hosts_fetch(const char *statedir, const char *rundir, int *files, int *hosts);
/* lab_hosts_clocks: each host's clock measured against the first host's
 * over the underlay (lab/build/hostclock.c), one host_clock event each;
 * 0, or -1 if one could not be (said, its event's offset null) */
int lab_hosts_clocks(struct lab *lab);

/* lab_init: bind a lab to a parsed topology and a run directory (created
 * if missing). bindir is where the agent programs are. */
int lab_init(struct lab *lab, const struct topology *t, const char *rundir, const char *bindir);

/* lab_up: state directory, namespaces, links, addresses, routes, sysctls,
 * then the agents of every node except clients. Refuses if the lab exists.
 * On failure, takes down whatever it made and returns -1. */
int lab_up(struct lab *lab);

/* lab_start_clients: start the client agent of every client node, sending
 * for duration_ns (0: until stopped). With go_base_ns (a CLOCK_MONOTONIC
 * instant, client -Z) each says client_ready once set up and waits for the
 * go (lab_clients_go) before its first resolution and its first request;
 * 0: each begins at once. */
int lab_start_clients(struct lab *lab, int64_t duration_ns, int64_t go_base_ns);

/* lab_clients_go: every client agent's go (SIGUSR2, its value the start in
 * us after go_base_ns): they all begin at the CLOCK_MONOTONIC start_ns */
void lab_clients_go(struct lab *lab, int64_t go_base_ns, int64_t start_ns);

/* A client node's DNS-steered flow carries this id, its anycast flow the
 * node's client_id, so captures tell the two apart. */
#define LAB_DNS_CLIENT_ID(id) WIRE_DNS_CLIENT_ID(id)
/* a population's base id (lib/wire.h, WIRE_POP_ID): its logical client j
 * sends as LAB_POP_ID(id, dns) + j */
#define LAB_POP_ID(id, dns) WIRE_POP_ID((id), (dns), 0u)

/* lab_start_infra: every agent of every node but the clients. */
int lab_start_infra(struct lab *lab);

/* lab_start_sited: the sited of site node n, with the command line lab_up
 * gives it (`steerlab recover` starts it again the same way). The index in
 * lab->agents, or -1. */
int lab_start_sited(struct lab *lab, int n);

/* lab_start_nginx: nginx in place of site n's sited (impl = nginx,
 * lab/build/nginx.c): its configuration written and checked (nginx -t),
 * then started as an agent labelled nginx. 0 or -1 (logged). */
int lab_start_nginx(struct lab *lab, int n);
/* lab_nginx_prog: the program nginx runs as */
const char *lab_nginx_prog(void);

/* lab_start_node: every agent of node n but a client's, with the command
 * lines lab_up gives them (a crashed node recovering). The lab's agents of
 * the node are started here, so a node kind that gains agents (a BGP
 * speaker) gains them on recovery too. 0 or -1. */
int lab_start_node(struct lab *lab, int n);

/* lab_reconfigure_node: node n's addresses and routes as lab_up set them,
 * keeping what is still there (after one of its links came back up). */
int lab_reconfigure_node(struct lab *lab, int n);

/* lab_link_set: the link ifname of node n up (up) or down, as the
 * timeline's link-down and its recover set it. 0 or -1. */
int lab_link_set(struct lab *lab, int n, const char *ifname, int up);

/* lab_start_agent_as: fork, enter the node's namespace, redirect output to
 * RUNDIR/NODE.LABEL.log and exec BINDIR/PROG (PROG itself if it is an
 * absolute path: FRR's daemons) with argv. Recorded in
 * agents.tsv under LABEL (e.g. "client-dns") before it may run. Returns
 * the index in lab->agents once it has exec'd, or -1 (said). Inside a
 * batch it returns once the agent is forked and recorded, and the index
 * holds once lab_start_wait has returned 0. */
int lab_start_agent_as(struct lab *lab, int node, const char *prog, const char *label,
		       char *const argv[]);

/* lab_start_agent_rt: lab_start_agent_as at SCHED_FIFO priority rtprio
 * (0: the default policy), set in the child before exec: an agent whose
 * timing is what the lab measures (bfdd); at the default policy where
 * SCHED_FIFO is refused (lab_rt_permitted) */
int lab_start_agent_rt(struct lab *lab, int node, const char *prog, const char *label,
		       char *const argv[], int rtprio);

/* lab_rt_permitted: whether agents may run at SCHED_FIFO here, asked once
 * a lab (a child of ours tries it: a cgroup with no real-time budget, as
 * in many containers, refuses it even to root). Refused: said once, and 0:
 * the agents that want it (bfdd, linkd) run at the default policy, and a
 * busy machine may make them late, which the verdict sees on the packets
 * (docs/topology.md, "Real-time priority"). */
int lab_rt_permitted(struct lab *lab);

/* lab_start_agent_user: lab_start_agent_as, run as uid and gid (its
 * supplementary groups none), set in the child before exec: a program that
 * does not drop root itself (gdnsd) */
int lab_start_agent_user(struct lab *lab, int node, const char *prog, const char *label,
			 char *const argv[], uid_t uid, gid_t gid);

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

/* lab_probers_phase: every prober's phase (SIGUSR1, its value an instant's
 * CLOCK_MONOTONIC microseconds modulo 2^31): its probes half an interval
 * after start_ns and every interval after, however late it reads it; with
 * probe_phase = random its cycle topo_probe_offset_ns later (the offset
 * within its interval drawn from the run's seed) */
void lab_probers_phase(struct lab *lab, int64_t start_ns);

/* lab_signal_agents: send sig to the lab's agents called name (NULL: all;
 * "client*": every label that begins with client). */
void lab_signal_agents(struct lab *lab, const char *name, int sig);

/* lab_signal_agent: sig to agent i, through its pidfd. 0, or -1 (errno;
 * ESRCH if it had ended). */
int lab_signal_agent(struct lab *lab, int i, int sig);
/* lab_signal_agent_value: the same, with a value (sigqueue(3)'s) */
int lab_signal_agent_value(struct lab *lab, int i, int sig, int value);

/* lab_kill_agent: SIGKILL agent i on purpose (the timeline): its exit is
 * reported as expected. 0, or -1 with errno (ESRCH: it had already ended). */
int lab_kill_agent(struct lab *lab, int i);

/* lab_watch: wait up to timeout_ns (0: just look) for any agent of the
 * lab to end; report each that did (agent_exited, and a terminal line if
 * unexpected). Returns how many ended, or -1 if a signal interrupted the
 * wait. */
int lab_watch(struct lab *lab, int64_t timeout_ns);

/* lab_agent_find: the index of node's live agent labelled label, or -1 */
int lab_agent_find(const struct lab *lab, int node, const char *label);

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

/* lab_frr_bfd_up: 1 if node n's bfdd has every BFD session its
 * configuration asks for up (vtysh "show bfd peers json" over the node's
 * vty sockets), or n runs no bfdd; 0 if one is not, that peer and its
 * status in why; -1 if bfdd could not be asked (why says so). */
int lab_frr_bfd_up(const struct lab *lab, int n, char *why, size_t len);

/* Real resolvers in the lab (lab/build/realres_run.c), impl = unbound |
 * knot-resolver | bind9 on a [resolver] node. lab_realres_prepare: their
 * directories, configurations and root hints under the state directory (and
 * the configurations in the run directory). lab_realres_start: node n's.
 * lab_realres_ready: 1 when every one answers the lab's name, else what
 * does not yet in why (if not NULL).
 * lab_realres_remove: what they left under statedir, and the directory.
 * lab_realres_prog: the program of a label (unbound, kresd, named), or
 * NULL. */
int lab_realres_prepare(struct lab *lab);

/* Real authoritative servers (lab/build/authority_run.c), impl = pdns on a
 * [dns] node, likewise: lab_authority_prepare, _start (node n's), _ready
 * (1 when every one answers, else which does not in why), _remove, _prog (the program of a label,
 * pdns, or NULL). */
int lab_authority_prepare(struct lab *lab);
int lab_authority_start(struct lab *lab, int n);
int lab_authority_ready(struct lab *lab, char *why, size_t len);
/* lab_authority_change: the timeline's DNS change c to node n's PowerDNS
 * or gdnsd: its zones written as authd would hold them after it, and the
 * server told to read them (lab/build/authority_change.c); its outcome in
 * r as authd's answer would be (refused: r->ok 0 and why). 0, or -1 with
 * what failed in said. */
int lab_authority_change(struct lab *lab, int n, const struct zone_change *c,
			 struct zone_change_reply *r, char *said, size_t len);
/* lab_authority_start_later: start the PowerDNS and gdnsd servers that
 * bring-up (lab_start_infra) left for when every site is reachable, the
 * warm-up's call once the rest is ready; 0 if none is left, or -1 */
int lab_authority_start_later(struct lab *lab);
/* lab_authority_replace: node n's gdnsd replaced by a new instance that
 * reads its configuration again (`gdnsd -R start`: it takes the sockets
 * over, and the old one exits, expected); 0 once the old one has, or -1
 * with why in said */
int lab_authority_replace(struct lab *lab, int n, char *said, size_t len);
int lab_authority_remove(const char *statedir);

/* lab_configure_node6: [lab] ip = dual: node n's IPv6 addresses and routes
 * through k, its namespace's kernel socket (lab/build/addr6.c); 0 (also
 * when the lab is IPv4 only), or -1 (logged) */
struct kern;
int lab_configure_node6(struct lab *lab, struct kern *k, int n);
/* lab_router_link6: ip = dual: a router's end of node link l (on ifindex)
 * in IPv6, and its routes to the node's site or cache addresses */
struct topo_link;
int lab_router_link6(struct lab *lab, struct kern *k, const struct topo_link *l, int ifindex);
/* lab_wait_ipv6: ip = dual: waits, at most 3 s, until every link of every
 * node has its link-local IPv6 address (without it, the node's IPv6
 * waits); said if one never does. 0, or -1 (netlink failed). */
int lab_wait_ipv6(struct lab *lab);

/* lab_namespace6: ip = dual: node n's new namespace set for IPv6 before
 * its links are made (no duplicate address detection); 0, or -1 */
int lab_namespace6(struct lab *lab, int n);
const char *lab_authority_prog(const char *label);

/* lab_dns_answers: 1 if addr answers name's type (NOERROR, an answer)
 * within 100 ms, asked from node n's namespace (with rd: recursion
 * desired) */
int lab_dns_answers(struct lab *lab, int n, struct in_addr addr, const char *name, uint16_t type,
		    int rd);
/* lab_dns_ask: lab_dns_answers of a server at to, of either family (an
 * IPv6-only lab's) */
int lab_dns_ask(struct lab *lab, int n, const struct sockaddr *to, socklen_t tolen,
		const char *name, uint16_t type, int rd);
int lab_realres_start(struct lab *lab, int n);
int lab_realres_ready(struct lab *lab, char *why, size_t len);
int lab_realres_remove(const char *statedir);
const char *lab_realres_prog(const char *label);

/*
 * The links' impairments (lab/build/linkimpair.c; docs/topology.md,
 * "Distance"): applied once the links are made, before any other agent
 * starts, by netem where the kernel has sch_netem, else by one linkd per
 * namespace with impaired egress interfaces, supervised like every agent.
 *
 * lab_impair_mech: the mechanism (detected once a process: impair_detect)
 * into *mech, and why the delay line if it is (the kernel's refusal) into
 * why; then every impaired direction of t as it applies them: each one it
 * cannot (duplicate with the delay line) said on err as FILE:LINE. 0; -1
 * when one cannot be applied; -2 when the mechanism is not known (why
 * says why: detecting needs root). lab_impair_mech_text: "netem" or "delayline
 * (linkd)". lab_impair_apply: the impairments into the lab's namespaces,
 * and with the delay line each linkd started and ready (linkd_ready, at
 * most settle); the mechanism and every client's paths as configured as
 * the event impairments (docs/events.md). 0 or -1 (said).
 */
#define LAB_LINKD_PRIO 50 /* linkd's SCHED_FIFO priority */
/* bfdd's, below linkd's (its packets cross the delay line): BFD at 100 ms
 * x 3 notices a scheduler that holds bfdd back 300 ms, which a loaded
 * machine did at bring-up; routers run BFD in hardware or at priority */
#define LAB_BFDD_PRIO 40
int lab_impair_mech(const struct topology *t, enum impair_mech *mech, char *why, size_t len,
		    FILE *err);
const char *lab_impair_mech_text(enum impair_mech mech);
/* lab_impair_mech_pin: the mechanism decided without detecting it, why as
 * lab_impair_mech gives it (the delay line's tests, on any kernel) */
void lab_impair_mech_pin(enum impair_mech mech, const char *why);
int lab_impair_apply(struct lab *lab);

/*
 * lab_impair_change: the impairment of link (t->links) or rlink
 * (t->rlinks) changed while the lab runs (`steerlab impair`, the
 * timeline's impair): in each direction d that set[d] names, the keys set
 * of chg[d] replace those in force (RUNDIR/NODE.impair, else the
 * topology's), the result is written back there, and mech applies it:
 * netem's qdisc replaced in the node's namespace, or the node's linkd sent
 * SIGHUP and waited for (linkd_impaired, LAB_IMPAIR_ACK_NS). The delay line
 * changes only the interfaces it delays since bring-up: a direction that
 * had no impairment there is refused, naming the fix. One link_impaired
 * per direction in lab->ev (name: the event's, by: timeline or hand), t0
 * before the change. 0, or -1 with why in said.
 */
#define LAB_IMPAIR_ACK_NS (2 * 1000000000LL)
int lab_impair_change(struct lab *lab, enum impair_mech mech, int link, int rlink,
		      const struct impair chg[2], const unsigned set[2], const char *name,
		      const char *by, char *said, size_t len);

/* lab_nsname: LAB-NODE into buf. */
int lab_nsname(char *buf, size_t len, const struct topology *t, int node);

/*
 * Named network namespaces, made the way iproute2's `ip netns add` makes
 * them: /run/netns is a shared mount point, each namespace is a file there
 * with the namespace bind-mounted on it, so `ip netns exec NAME ...` works
 * for the user beside the lab.
 *
 * netns.c is the only file that unshares, mounts and unmounts. Like
 * kernel.h, these functions are a seam: tests/unit/test_lab_build.c links a
 * fake of every one in place of netns.c; tests/unit/test_lab_netns.c checks
 * netns.c itself, in mount and network namespaces of its own.
 */

#define NETNS_DIR "/run/netns"

/* netns_create: make namespace name. Fails (-1, errno EEXIST) if a file
 * of that name already exists. The caller's namespace is unchanged. */
int netns_create(const char *name);

/* netns_delete: unmount and remove it. 0, or -1 (errno ENOENT if absent). */
int netns_delete(const char *name);

int netns_exists(const char *name);

/* netns_open: an O_RDONLY fd on the namespace, for setns(), or -1. */
int netns_open(const char *name);

/* netns_enter: setns() into fd. netns_enter_root(): back to the namespace
 * the process started in. 0 or -1. */
int netns_enter(int fd);
int netns_enter_root(void);

/* netns_enter_exec: what `ip netns exec` does before it runs a command:
 * setns() into fd, then a mount namespace of the process's own in which
 * /sys is a fresh sysfs of that network namespace (so /sys/class/net lists
 * its interfaces). 0, or -1 with errno; the caller then exits, its
 * namespaces half changed. */
int netns_enter_exec(int fd);

/* A process found inside a named namespace (netns_members). */
struct netns_member {
	int pid;
	int pidfd;     /* holds it: signal it through this */
	char comm[16]; /* /proc/PID/comm, for the messages */
	int ns;	       /* the index of its namespace in names[] */
};

/* netns_members: every process but this one whose network namespace is one
 * of names[0..n) (NETNS_DIR/NAME), matched by the namespace's device and
 * inode, never by a process's name. Each is held by a pidfd opened before
 * its namespace is checked, so the process checked is the one held (the
 * caller closes each pidfd). How many were found, at most max, into m; -1
 * (errno) if /proc cannot be read. A namespace that is not there matches
 * nothing. */
int netns_members(const char *const names[], int n, struct netns_member *m, int max);

/*
 * The run directory of a command that makes one (run, up, sweep, run
 * --repeat): one set of rules, checked by one function before anything is
 * created, so that no command writes where another would refuse to.
 *
 * A run directory is new, or an empty directory, or (a sweep, a repeat) one
 * of its own kind to resume. It is never reached through a symbolic link
 * (its last component: what the link points to is not a directory the lab
 * made, /etc for one), and its path has no control character (it is
 * written one a line in the lab's state, /run/steerlab/LAB/rundir, read
 * back by status and down, and into the events).
 */

/* rundir_check: may cmd ("run", "up", "sweep", "repeat") make, or use, its
 * run directory dir? Refused, each said on err as "steerlab: CMD: ...": a
 * control character in dir; a dir that is a symbolic link, or not a
 * directory; a directory that is not empty, unless it holds the file
 * marker (a sweep's sweep.args, a repeat's repeat.args; NULL: none may).
 * explicit_out: dir was given with --out (the advice differs). Nothing is
 * created. 0, or -1. */
int rundir_check(const char *cmd, const char *dir, const char *marker, int explicit_out, FILE *err);

/* rundir_ctl: the first control character of s (a byte below 0x20, or
 * 0x7f), or NULL if it has none. */
const char *rundir_ctl(const char *s);

/* rundir_quote: s into buf as C would write it, its control characters
 * escaped (\n, \t, \xHH), so that a refusal shows where they are. buf. */
const char *rundir_quote(const char *s, char *buf, size_t len);

/* rundir_make: mkdir -p dir (0755), then dir must be a directory and not
 * a symbolic link (a link planted since rundir_check is refused). 0, or -1
 * (logged). */
int rundir_make(const char *dir);

/*
 * The --set overrides the topology parser does not take, and loading a
 * topology with all of them (what check, up, run and sweep do).
 *
 * `--set ttl=V` sets the TTL the DNS names hand out: the `ttl` key of every
 * [name] section (authd's, which --set KEY=VALUE cannot otherwise reach:
 * topology.h). It rewrites the pair as written, or adds one to a [name]
 * that had none (which took its zone's), before authd's parser checks
 * them, so `steerlab check` prints it and topology.ini records it. A [zone]
 * ttl (the zone's records, its SOA) is left alone.
 */

struct overrides {
	const char *ttl; /* the value of --set ttl=, NULL if none */
};

/* overrides_take: move the items that are ours out of sets[0..*nsets)
 * into *ov, keeping the others in order. The last of a key wins, as with
 * the topology's own keys. */
void overrides_take(char *sets[], int *nsets, struct overrides *ov);

/* overrides_apply: the overrides in *ov on a parsed topology. 0, or -1 with
 * "--set ...: why" on err. */
int overrides_apply(struct topology *t, const struct overrides *ov, FILE *err);

/* overrides_load: topo_load path with sets[0..nsets) ("key=value",
 * "node.key=value" and ours), then authd's and resolverd's parsers on
 * their sections. 0, or -1 after printing every error to err. */
int overrides_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err);

/*
 * STEERLAB_SET: more overrides from the environment, "KEY=VALUE" items
 * separated by spaces or tabs (STEERLAB_SET="duration=3s fail_at=1s"), for
 * running a documented command shorter (tests/tools/doctest). They are
 * added after the command line's --set, so they win over them.
 */
#define OVERRIDES_ENV "STEERLAB_SET"

/* overrides_env: the items of value (the variable's) copied into buf and
 * appended to sets[*nsets..max), *nenv of them. An item must be KEY=VALUE
 * with one value (a sweep's values go on the command line). 0, or -1 with
 * "STEERLAB_SET: why" on err. */
int overrides_env(const char *value, char *buf, size_t len, char *sets[], int *nsets, int max,
		  int *nenv, FILE *err);

/* overrides_env_check: sets[0..nsets), the command line's then the nenv
 * of the variable, on the topology path. When it loads with the command
 * line's alone (without a sweep's comma-separated one), but not with the
 * variable's too, -1 after printing each refusal as "STEERLAB_SET: --set
 * ...: why" to err; else 0 (the other errors are the command's to tell). t
 * is scratch. */
int overrides_env_check(struct topology *t, const char *path, char *const sets[], int nsets,
			int nenv, FILE *err);

/*
 * A lab that is up, read back from its state directory by a later steerlab
 * process (`nodes`, `exec`, `fail`, `recover`, `status`): the topology as
 * used (topology.ini, printed by lab_up), where its run directory and agent
 * programs are, the namespaces it made and its recorded agents, each found
 * alive or not by the test `down` makes before it signals one
 * (lab_agent_claim: the PID, its start time, bindir's program for its
 * label). The `up` process has exited by then: nothing watches the agents,
 * they are looked at when asked.
 *
 * agents.tsv only grows: `recover` appends the sited it starts, so a
 * node's agent may have several lines. The last one is the agent; the
 * earlier ones are superseded (lab_state_current) and listed by nobody but
 * `down`, which still stops every line's process that is alive.
 *
 * Loading and checking are here; the formatting of `nodes` (text and JSON)
 * is in lab/cli/nodes.c, with no I/O of its own, so that it is unit-tested on
 * a topology and a hand-made agent list.
 */

struct lab_state {
	char name[TOPO_NAME_MAX + 1];
	char dir[PATH_MAX];    /* LAB_STATE_DIR/name */
	char rundir[PATH_MAX]; /* "" if not recorded */
	char bindir[PATH_MAX];
	struct topology t;
	/* each agent's node is its index in t (-1: a node t does not have);
	 * alive is !reaped */
	struct lab_agent agents[LAB_MAX_AGENTS];
	int nagents;
	int refused; /* agents.tsv lines not of the form */
};

/* lab_state_load: the state of lab name into *s: the topology, the run and
 * agent directories, the agents, each checked alive. -1 with the reason in
 * err (for "steerlab: CMD: " to precede): not a lab name, no such lab up,
 * a state directory refused, a topology.ini that does not load. */
int lab_state_load(struct lab_state *s, const char *name, char *err, size_t errlen);

/* lab_state_line: the first line of DIR/FILE, without its newline, into
 * buf ("" if there is none). */
void lab_state_line(const char *dir, const char *file, char *buf, size_t len);

/* lab_state_current: agent i is the last line of its node and label (not
 * superseded by a later start of the same agent). */
int lab_state_current(const struct lab_state *s, int i);

/* lab_state_find_agent: the index of the current agent called label of
 * node, or -1. */
int lab_state_find_agent(const struct lab_state *s, int node, const char *label);

/* lab_state_node: the index of node name in the lab's topology, or -1 with
 * "LAB has no node NAME (its nodes: a, b, ...)" in err. */
int lab_state_node(const struct lab_state *s, const char *name, char *err, size_t errlen);

/* lab_state_has_ns: nsname is a line of the lab's namespaces file. */
int lab_state_has_ns(const struct lab_state *s, const char *nsname);

/*
 * Where BGP should converge: each router's best path to the anycast
 * service in a lab of routing = bgp, computed from the topology as BGP's
 * decision process picks it (RFC 4271 9.1.2.2, FRR's order): the highest
 * local preference (a [link]'s local_pref at the receiving end, else 100),
 * the shortest AS path (the sites' and the [link]s' prepends included; a
 * path through the router's own AS is a loop, dropped), the lowest MED (a
 * site's metric, from the site to its router only: MED is not passed on
 * to another AS; missing counts as 0). Further ties are broken by FRR on
 * the routes' age, which the topology does not know: a tie between next
 * hops that bring the same AS path leaves either acceptable; one between
 * different AS paths makes the whole "not known".
 *
 * Local preferences can give BGP more than one stable state (RFC 4264's
 * wedgies): the computation finds the one reached when every announcement
 * travels in step. A lab that settles in another fails its warm-up ("BGP
 * had not converged within settle"), which says so.
 *
 * `run` waits for every router's FIB to route the service as computed
 * before it starts the traffic (lab/run/run.c, run_bgp_ready): BGP has
 * converged. Labs with iBGP (two linked routers in one AS) are not
 * modelled either: bgpx_compute says so, and the caller falls back.
 */

#define BGPX_MAX_VIA 16

struct bgpx_router {
	int have;     /* a route to the service at all */
	unsigned lp;  /* its local preference */
	unsigned len; /* its AS path length */
	unsigned med; /* its MED (0: none) */
	int nvia;     /* the next hops it may use (ties), at most BGPX_MAX_VIA */
	int via_node[BGPX_MAX_VIA];
	struct in_addr via[BGPX_MAX_VIA];
};

struct bgpx {
	int known; /* 0: not modelled (iBGP) or did not settle; the rest unset */
	struct bgpx_router r[TOPO_MAX_NODES]; /* by node index; routers only */
};

/* bgpx_compute: into x, every router's best routes to the service once
 * BGP has converged, with site `without` (a node index, or -1) not
 * announcing it. 0, or -1 if out of memory. */
int bgpx_compute(const struct topology *t, int without, struct bgpx *x);

/* bgpx_compute_door: the same for the anycast address door, announced by
 * the sites whose service it is (the [lab] service, or a front door:
 * topo_site_service) */
int bgpx_compute_door(const struct topology *t, int without, struct in_addr door, struct bgpx *x);

/* bgpx_via_ok: router r may route the service via `via` (x known). */
int bgpx_via_ok(const struct bgpx *x, int r, struct in_addr via);

/*
 * FRR's configuration for a lab's routers and sites when [lab] routing =
 * bgp (docs/topology.md, "Routing"), made from the topology, and FRR's own
 * dry run on it.
 *
 * Every router and every site runs zebra and bgpd (and bfdd with bfd =
 * yes). Each site is an AS of its own, each router in its `asn`
 * (topo_node_asn), with a BGP session over each of its links to another
 * BGP speaker: its BGP neighbours (frrconf_neighbors), computed from the
 * links: a site's link to its router, a router's [link]s to routers (eBGP,
 * or iBGP with next-hop-self between routers of one AS). A site announces
 * the anycast service /32 by `redistribute connected` filtered to it (the
 * prober keeps it on the site's lo only while the local service answers),
 * with its metric as the MED, and its own unicast address; routers compare
 * MEDs across ASes (`bgp always-compare-med`) so the lower metric wins as
 * with routing = static. The node's `frr = LINE`s come last, as written.
 *
 * Nothing here runs FRR's daemons; frrconf_check runs FRR's dry run
 * (`vtysh -C` and `bgpd -C`) before anything is built: every node's at
 * once, as many side by side as there are CPUs, what steerlab wrote alone
 * checked by one vtysh.
 */

#define FRR_DIR "/usr/lib/frr" /* Debian's frr package */
#define FRR_ZEBRA FRR_DIR "/zebra"
#define FRR_BGPD FRR_DIR "/bgpd"
#define FRR_BFDD FRR_DIR "/bfdd"
#define FRR_VTYSH "/usr/bin/vtysh"
#define FRR_USER "frr" /* FRR's daemons run as frr:frr, never root */

/* which configuration file of a node */
enum frrconf_daemon {
	FRRCONF_BGPD,
	FRRCONF_BFDD,
};

#define FRRCONF_MAX_NEIGHBORS TOPO_MAX_NODES /* a node's BGP neighbours, at most */

struct frrconf_neighbor {
	int node;		       /* the peer's node index */
	struct in_addr addr;	       /* the peer's address on the shared link */
	struct in_addr local;	       /* ours on it */
	struct in6_addr addr6, local6; /* the same in IPv6 (ip = dual) */
	unsigned asn;		       /* the peer's AS */
	int rlink;		       /* the [link] to it, or -1 (a site's link) */
};

/* frrconf_node: 1 if node n runs FRR (routing = bgp, a router or a site). */
int frrconf_node(const struct topology *t, int n);

/* frrconf_bfd: 1 if node n runs bfdd: one of its BGP sessions has BFD
 * (frrconf_session_bfd). */
int frrconf_bfd(const struct topology *t, int n);

/* frrconf_session_bfd: whether node n's session with neighbour nb runs
 * BFD: its [link]'s bfd if the link sets it, else yes if either end's bfd
 * (its own, or the [lab]'s) says so. */
int frrconf_session_bfd(const struct topology *t, int n, const struct frrconf_neighbor *nb);

/* frrconf_neighbors: node n's BGP neighbours into nb (at most max): a
 * router's [link]s first, then its sites (routing = bgp), in file order; a
 * site's router. Their number. A router has its [link] neighbours with
 * routing = static too: what check --frr writes. */
int frrconf_neighbors(const struct topology *t, int n, struct frrconf_neighbor *nb, int max);

/* frrconf_write: daemon d's configuration of node n to out. *raw_from, if
 * not NULL, is set to the line number of its first `frr =` line (0 if it
 * has none; bgpd only). 0 or -1. */
int frrconf_write(const struct topology *t, int n, enum frrconf_daemon d, FILE *out, int *raw_from);

/* frrconf_check: FRR's dry run on every FRR node's configuration, all at
 * once. A line FRR rejects is an error on err, each node's first in node
 * order: "steerlab: node a: FRR rejected its configuration (bgpd line 40:
 * ...)". 0 if every one passed (or the lab runs no FRR), else -1. Writes
 * no file. */
int frrconf_check(const struct topology *t, FILE *err);

/* frrconf_check_node: FRR's dry run on node n's bgpd configuration, in
 * any routing (a router's, with routing = static, as check --frr writes
 * it). 0, or -1 said on err as frrconf_check says it. */
int frrconf_check_node(const struct topology *t, int n, FILE *err);

/* frrconf_load: overrides_load (above), then, if it loaded,
 * frrconf_check and realres_check (lab/build/realres.h): what check, up, run and
 * sweep load. 0 or -1 (said). */
int frrconf_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err);

/* frrconf_print: every FRR node's configurations as comments (what
 * `steerlab check` adds). */
void frrconf_print(const struct topology *t, FILE *out);

/* realres_print (lab/build/realres.c): each real resolver's configuration
 * as comments, as `steerlab check` prints it. */
void realres_print(const struct topology *t, FILE *out);

#endif
