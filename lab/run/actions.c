/* The timeline's actions on a lab that is up; see run.h. */
#include "run.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <nftables/libnftables.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "events.h"
#include "topology.h"
#include "log.h"
#include "lab.h"
#include "prober_signals.h"
#include "sited_signals.h"
#include "strfmt.h"
#include "subproc.h"
#include "timeutil.h"

/* the nftables tables the actions add, one per kind, in the node's own
 * namespace: they go with it at `down` */
#define ACTION_T_FREEZE "steerlab_freeze"
#define ACTION_T_DNS "steerlab_dns_down"
#define ACTION_T_RESOLVER "steerlab_resolver_down"
#define ACTION_T_ICMP "steerlab_icmp_down"

static unsigned char action_failed[TOPO_MAX_NODES]; /* site_failed written */
static const struct action_ops *action_ops = &action_lab_ops;

void action_set_ops(const struct action_ops *ops)
{
	action_ops = ops ? ops : &action_lab_ops;
}

void action_reset(void)
{
	memset(action_failed, 0, sizeof(action_failed));
}

int action_sites_failed(void)
{
	int n = 0;

	for (int i = 0; i < TOPO_MAX_NODES; i++)
		n += action_failed[i];
	return n;
}

/* action_target_key: one number per target */
static int action_target_key(const struct topo_event *e)
{
	if (e->node >= 0)
		return e->node;
	if (e->link >= 0)
		return TOPO_MAX_NODES + e->link;
	return 2 * TOPO_MAX_NODES + e->rlink;
}

int action_plan(const struct topology *t, struct action_step *steps, int max)
{
	static int64_t busy[2 * TOPO_MAX_NODES + TOPO_MAX_RLINKS];
	uint32_t seed = t->seed >= 0 ? (uint32_t)t->seed : 0;
	int n = 0;

	for (size_t k = 0; k < sizeof(busy) / sizeof(busy[0]); k++)
		busy[k] = -1;
	for (int i = 0; i < t->nevents; i++) {
		const struct topo_event *e = &t->events[i];
		int key = action_target_key(e);
		int64_t shift = jitter_offset_ns(t->fail_jitter_ns, seed, (unsigned)i), end;

		/* not before the previous event on the target has ended */
		if (e->at_ns + shift <= busy[key])
			shift = busy[key] + 1000 - e->at_ns;
		if (e->action != TOPO_A_FLAP) {
			if (n < max)
				steps[n++] = (struct action_step){
				    .at_ns = e->at_ns + shift, .nominal_ns = e->at_ns, .event = i};
			busy[key] = e->at_ns + shift;
			continue;
		}
		for (unsigned c = 1; c <= e->count; c++) {
			int64_t down = e->at_ns + (int64_t)(c - 1) * e->period_ns;
			if (n < max)
				steps[n++] = (struct action_step){.at_ns = down + shift,
								  .nominal_ns = down,
								  .event = i,
								  .cycle = (int)c};
			if (n < max)
				steps[n++] =
				    (struct action_step){.at_ns = down + e->period_ns / 2 + shift,
							 .nominal_ns = down + e->period_ns / 2,
							 .event = i,
							 .cycle = (int)c,
							 .up = 1};
		}
		end = e->at_ns + (int64_t)(e->count - 1) * e->period_ns + e->period_ns / 2;
		busy[key] = end + shift;
	}
	/* by instant, the timeline's order among equals (insertion: stable) */
	for (int i = 1; i < n; i++) {
		struct action_step s = steps[i];
		int j = i;

		for (; j > 0 && steps[j - 1].at_ns > s.at_ns; j--)
			steps[j] = steps[j - 1];
		steps[j] = s;
	}
	return n;
}

/* action_site: the site a step on e takes out: its node, or the site at
 * the end of its link; -1 if none */
static int action_site(const struct topology *t, const struct topo_event *e)
{
	if (e->node >= 0)
		return t->nodes[e->node].kind == TOPO_SITE ? e->node : -1;
	if (e->link >= 0 && t->nodes[t->links[e->link].node].kind == TOPO_SITE)
		return t->links[e->link].node;
	return -1;
}

/* action_family: the one address family e takes out (a freeze or a
 * link-down of family = 6 or 4), 0 if both */
static int action_family(const struct topo_event *e)
{
	return e->family == TOPO_EV_FAMILY_6 ? 6 : e->family == TOPO_EV_FAMILY_4 ? 4 : 0;
}

/* action_effective: what a step does: a flap's down is its target's kill
 * or link-down, its up the recover; a recover or *-up undoes its event */
static int action_effective(const struct topology *t, const struct action_step *s, int *undoing)
{
	const struct topo_event *e = &t->events[s->event];

	*undoing = -1;
	if (e->action == TOPO_A_FLAP) {
		int down = e->node >= 0 ? TOPO_A_KILL : TOPO_A_LINK_DOWN;
		if (s->up)
			*undoing = down;
		return s->up ? TOPO_A_RECOVER : down;
	}
	if (!topo_event_failing(e->action) && e->undoes >= 0)
		*undoing = t->events[e->undoes].action;
	return e->action;
}

int64_t action_fail_at(const struct topology *t, const struct action_step *steps, int n,
		       int64_t *nominal)
{
	int first = topo_first_failure(t, NULL);

	for (int i = 0; first >= 0 && i < n; i++) {
		const struct topo_event *e = &t->events[steps[i].event];
		int site = action_site(t, e);

		if (site != first || steps[i].up ||
		    (!topo_event_failing(e->action) && e->action != TOPO_A_IMPAIR) ||
		    e->action == TOPO_A_DNS_DOWN || e->action == TOPO_A_RESOLVER_DOWN ||
		    e->action == TOPO_A_ICMP_DOWN)
			continue;
		*nominal = steps[i].nominal_ns;
		return steps[i].at_ns;
	}
	*nominal = t->fail_at_ns;
	return t->fail_at_ns;
}

const char *action_describe(const struct topology *t, const struct action_step *s, char *buf,
			    size_t len)
{
	const struct topo_event *e = &t->events[s->event];
	const char *kind = e->node >= 0 ? topo_kind_name(t->nodes[e->node].kind) : "link";
	char tg[32];

	topo_event_target(t, e, tg, sizeof(tg));
	if (e->action == TOPO_A_FLAP)
		strfmt(buf, len, "flap %s %s: %s (cycle %d of %u)", kind, tg,
		       s->up ? "back up" : "down", s->cycle, e->count);
	else if (e->action == TOPO_A_RESOLVER_DOWN && e->instance)
		strfmt(buf, len, "%s %s %s (cache %u)", topo_action_name(e->action), kind, tg,
		       e->instance);
	else if (action_family(e))
		strfmt(buf, len, "%s %s %s, IPv%d only", topo_action_name(e->action), kind, tg,
		       action_family(e));
	else
		strfmt(buf, len, "%s %s %s", topo_action_name(e->action), kind, tg);
	return buf;
}

/* action_agent: the running agent called name at node n (the newest: a
 * recovered sited comes after the killed one), or -1 */
static int action_agent(const struct lab *lab, int n, const char *name)
{
	for (int i = lab->nagents - 1; i >= 0; i--)
		if (lab->agents[i].node == n && !lab->agents[i].reaped &&
		    (name == NULL || strcmp(lab->agents[i].name, name) == 0))
			return i;
	return -1;
}

/* action_fail_routes: the site's anycast route in every router (as routed
 * installs it with routing = static), so the clocks tell its withdrawal
 * from that of a healthy site's route */
static json_t *action_fail_routes(const struct topology *t, int site)
{
	static struct topo_path path[TOPO_MAX_NODES];
	json_t *routes = json_array();
	char via[INET_ADDRSTRLEN];

	for (int r = 0; routes && r < t->nnodes; r++) {
		struct in_addr nh;
		const char *ifname;
		int hops;

		if (t->nodes[r].kind != TOPO_ROUTER)
			continue;
		topo_paths(t, r, path);
		if ((hops = topo_route_to(t, r, path, site, &nh, &ifname)) < 0)
			continue;
		inet_ntop(AF_INET, &nh, via, sizeof(via));
		json_array_append_new(
		    routes,
		    json_pack(
			"{s:s, s:s, s:I}", "router", t->nodes[r].name, "via", via, "metric",
			(json_int_t)((uint64_t)hops * TOPO_HOPS_METRIC + t->nodes[site].metric)));
	}
	return routes;
}

/* action_site_failed: site_failed for the first step that takes site n
 * out, stamped t0 (before the step); how: sigkill, crash, freeze, ... */
static void action_site_failed(struct lab *lab, int n, const char *how, int pid, int64_t t0,
			       int64_t done, const char *event, const char *by,
			       const struct action_step *s, int family)
{
	const struct topology *t = lab->t;
	char via[INET_ADDRSTRLEN], service[INET_ADDRSTRLEN], prefix[INET_ADDRSTRLEN + 4],
	    address[INET_ADDRSTRLEN];
	struct in_addr answer, svc;

	if (n < 0 || action_failed[n])
		return;
	action_failed[n] = 1;
	/* what DNS hands out for it and what it announces: its front door */
	answer = topo_site_answer(t, n);
	svc = topo_site_service(t, n);

	inet_ntop(AF_INET, &answer, address, sizeof(address));
	inet_ntop(AF_INET, &t->links[t->nodes[n].link].node_addr, via, sizeof(via));
	inet_ntop(AF_INET, &svc, service, sizeof(service));
	strfmt(prefix, sizeof(prefix), "%s/32", service);
	if (strcmp(by, "timeline") == 0) /* and where fail_jitter put it */
		event_emit_at(lab->ev, t0, EVENTS_SITE_FAILED,
			      "{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:o?, s:s, s:s, s:I, s:I, s:o*}",
			      "site", t->nodes[n].name, "via", via, "prefix", prefix, "address",
			      address, "how", how, "pid", pid, "killed_ns", (json_int_t)done,
			      "routes", action_fail_routes(t, n), "cause", event, "by", by,
			      "nominal_at_ns", (json_int_t)s->nominal_ns, "jitter_offset_ns",
			      (json_int_t)(s->at_ns - s->nominal_ns), "family",
			      family ? json_integer(family) : NULL);
	else
		event_emit_at(lab->ev, t0, EVENTS_SITE_FAILED,
			      "{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:o?, s:s, s:s}", "site",
			      t->nodes[n].name, "via", via, "prefix", prefix, "address", address,
			      "how", how, "pid", pid, "killed_ns", (json_int_t)done, "routes",
			      action_fail_routes(t, n), "cause", event, "by", by);
}

/* action_vias: the next hops whose routes the step may take away: a
 * site's link address, or both ends of a link */
static json_t *action_vias(const struct topology *t, const struct topo_event *e)
{
	json_t *a = json_array();
	char buf[INET_ADDRSTRLEN];

	if (e->node >= 0 && t->nodes[e->node].link >= 0)
		json_array_append_new(
		    a, json_string(inet_ntop(AF_INET, &t->links[t->nodes[e->node].link].node_addr,
					     buf, sizeof(buf))));
	if (e->link >= 0) {
		json_array_append_new(a,
				      json_string(inet_ntop(AF_INET, &t->links[e->link].node_addr,
							    buf, sizeof(buf))));
		json_array_append_new(a,
				      json_string(inet_ntop(AF_INET, &t->links[e->link].router_addr,
							    buf, sizeof(buf))));
	}
	if (e->rlink >= 0) {
		json_array_append_new(a, json_string(inet_ntop(AF_INET, &t->rlinks[e->rlink].a_addr,
							       buf, sizeof(buf))));
		json_array_append_new(a, json_string(inet_ntop(AF_INET, &t->rlinks[e->rlink].b_addr,
							       buf, sizeof(buf))));
	}
	return a;
}

/* action_kill: SIGKILL of the agents of node n called name (NULL: every
 * one); how many were killed into *killed, the first one's pid into *pid */
static int action_kill(struct lab *lab, int n, const char *name, int *killed, int *pid, char *said,
		       size_t len)
{
	*killed = 0;
	*pid = 0;
	action_ops->watch(lab); /* one that already ended is reported as such */
	for (int i = 0; i < lab->nagents; i++) {
		struct lab_agent *a = &lab->agents[i];

		if (a->node != n || a->reaped || (name && strcmp(a->name, name) != 0))
			continue;
		/* the delay line is the link's, not the node's: a crashed node's
		 * links keep their impairment, and come back with it */
		if (name == NULL && strcmp(a->name, "linkd") == 0)
			continue;
		if (action_ops->kill_agent(lab, i) == -1) {
			if (errno == ESRCH)
				continue;
			strfmt(said, len, "kill %s of %s (pid %d): %s", a->name,
			       lab->t->nodes[n].name, (int)a->pid, strerror(errno));
			return -1;
		}
		if ((*killed)++ == 0)
			*pid = (int)a->pid;
	}
	if (*killed == 0) {
		if (name)
			strfmt(said, len, "%s of %s is not running: nothing to kill", name,
			       lab->t->nodes[n].name);
		else
			strfmt(said, len, "no agent of %s is running: nothing to kill",
			       lab->t->nodes[n].name);
		return -1;
	}
	return 0;
}

/* action_block: the nftables table of a freeze, dns-down or resolver-down */
static int action_block(struct lab *lab, const struct topo_event *e, int action, char *said,
			size_t len)
{
	const struct topology *t = lab->t;
	char script[1024], daddr[64] = "", addr[INET_ADDRSTRLEN];

	if (action == TOPO_A_FREEZE && e->family != TOPO_EV_FAMILY_BOTH) {
		/* one family out: its packets dropped, the other's untouched
		 * (the probes, the announcements and authd's checks are IPv4:
		 * nothing in the lab notices an IPv6 freeze) */
		const char *nf = e->family == TOPO_EV_FAMILY_6 ? "ipv6" : "ipv4";

		strfmt(script, sizeof(script),
		       "table inet " ACTION_T_FREEZE " {\n"
		       "  chain input { type filter hook input priority -300; policy accept; "
		       "iif != \"lo\" meta nfproto %s drop; }\n"
		       "  chain output { type filter hook output priority -300; policy accept; "
		       "oif != \"lo\" meta nfproto %s drop; }\n"
		       "}\n",
		       nf, nf);
		return action_ops->nft(lab, e->node, script, said, len);
	}
	if (action == TOPO_A_FREEZE) {
		strfmt(script, sizeof(script),
		       "table inet " ACTION_T_FREEZE " {\n"
		       "  chain input { type filter hook input priority -300; policy drop; "
		       "iif \"lo\" accept; }\n"
		       "  chain output { type filter hook output priority -300; policy drop; "
		       "oif \"lo\" accept; }\n"
		       "}\n");
		return action_ops->nft(lab, e->node, script, said, len);
	}
	if (action == TOPO_A_ICMP_DOWN) {
		/* the proximity probes: the caches answer DNS, not echoes */
		strfmt(script, sizeof(script),
		       "table inet " ACTION_T_ICMP " {\n"
		       "  chain input { type filter hook input priority -300; policy accept; "
		       "icmp type echo-request drop; }\n"
		       "}\n");
		return action_ops->nft(lab, e->node, script, said, len);
	}
	if (action == TOPO_A_RESOLVER_DOWN && e->instance) {
		struct in_addr a = topo_resolver_addr(t, e->node, (int)e->instance);
		strfmt(daddr, sizeof(daddr), "ip daddr %s ",
		       inet_ntop(AF_INET, &a, addr, sizeof(addr)));
	}
	strfmt(script, sizeof(script),
	       "table inet %s {\n"
	       "  chain input { type filter hook input priority -300; policy accept; "
	       "%sudp dport 53 drop; %stcp dport 53 drop; }\n"
	       "}\n",
	       action == TOPO_A_DNS_DOWN ? ACTION_T_DNS : ACTION_T_RESOLVER, daddr, daddr);
	return action_ops->nft(lab, e->node, script, said, len);
}

static int action_unblock(struct lab *lab, int n, int action, char *said, size_t len)
{
	char script[128];

	strfmt(script, sizeof(script), "delete table inet %s\n",
	       action == TOPO_A_FREEZE	    ? ACTION_T_FREEZE
	       : action == TOPO_A_DNS_DOWN  ? ACTION_T_DNS
	       : action == TOPO_A_ICMP_DOWN ? ACTION_T_ICMP
					    : ACTION_T_RESOLVER);
	return action_ops->nft(lab, n, script, said, len);
}

/* action_link_family: one family's packets through interface ifname of
 * node n dropped (up = 0: an nftables table of the interface's own, on
 * prerouting and postrouting, so forwarded packets too) or let through
 * again (up = 1: the table deleted) */
static int action_link_family(struct lab *lab, int n, const char *ifname, int family, int up,
			      char *said, size_t len)
{
	char table[64], script[768];
	size_t k = strfmt(table, sizeof(table), "steerlab_link_%s", ifname);

	/* a table's name: letters, digits and '_' */
	for (size_t i = 0; i < k && table[i]; i++)
		if (!isalnum((unsigned char)table[i]))
			table[i] = '_';
	if (up) {
		strfmt(script, sizeof(script), "delete table inet %s\n", table);
		return action_ops->nft(lab, n, script, said, len);
	}
	strfmt(script, sizeof(script),
	       "table inet %s {\n"
	       "  chain pre { type filter hook prerouting priority -300; policy accept; "
	       "iifname \"%s\" meta nfproto %s drop; }\n"
	       "  chain post { type filter hook postrouting priority -300; policy accept; "
	       "oifname \"%s\" meta nfproto %s drop; }\n"
	       "}\n",
	       table, ifname, family == 6 ? "ipv6" : "ipv4", ifname, family == 6 ? "ipv6" : "ipv4");
	return action_ops->nft(lab, n, script, said, len);
}

/* action_link: both ends of e's link down or up; up, both ends' addresses
 * and routes are added back (the kernel dropped the routes through it).
 * family 6 or 4 (a link-down of one family, or its undoing): the links
 * stay up, that family's packets on them dropped, or let through again */
static int action_link(struct lab *lab, const struct topo_event *e, int up, int family, char *said,
		       size_t len)
{
	const struct topology *t = lab->t;
	int node[2];
	const char *ifname[2];

	if (e->link >= 0) {
		node[0] = t->links[e->link].node;
		ifname[0] = t->links[e->link].node_ifname;
		node[1] = t->links[e->link].router;
		ifname[1] = t->links[e->link].router_ifname;
	} else {
		node[0] = t->rlinks[e->rlink].a;
		ifname[0] = t->rlinks[e->rlink].a_ifname;
		node[1] = t->rlinks[e->rlink].b;
		ifname[1] = t->rlinks[e->rlink].b_ifname;
	}
	for (int i = 0; family && i < 2; i++)
		if (action_link_family(lab, node[i], ifname[i], family, up, said, len) == -1)
			return -1;
	if (family)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (action_ops->link_set(lab, node[i], ifname[i], up) == -1) {
			strfmt(said, len, "link %s of %s %s: failed (above)", ifname[i],
			       t->nodes[node[i]].name, up ? "up" : "down");
			return -1;
		}
	}
	for (int i = 0; up && i < 2; i++) {
		if (action_ops->reconfigure_node(lab, node[i]) == -1) {
			strfmt(said, len, "routes of %s after its link came up: failed (above)",
			       t->nodes[node[i]].name);
			return -1;
		}
	}
	return 0;
}

/* action_signal_sited: drain, undrain, degrade or restore (lib/sited_signals.h),
 * done: what it is said to be ("drained", ...) */
static int action_signal_sited(struct lab *lab, int n, int sig, const char *done, int *pid,
			       char *said, size_t len)
{
	int i = action_agent(lab, n, "sited");

	if (i == -1 || action_ops->signal_agent(lab, i, sig) == -1) {
		strfmt(said, len, "sited of %s is not running: it cannot be %s",
		       lab->t->nodes[n].name, done);
		return -1;
	}
	*pid = (int)lab->agents[i].pid;
	return 0;
}

/* action_slow_sited: node n's sited told to hold each reply slow_ns (0:
 * not any more) */
static int action_slow_sited(struct lab *lab, int n, int64_t slow_ns, int *pid, char *said,
			     size_t len)
{
	int i = action_agent(lab, n, "sited");

	if (i == -1 || action_ops->signal_agent_value == NULL ||
	    action_ops->signal_agent_value(lab, i, SITED_SIG_SLOW, (int)(slow_ns / 1000)) == -1) {
		strfmt(said, len, "sited of %s is not running: it cannot be %s",
		       lab->t->nodes[n].name, slow_ns ? "slowed" : "sped up");
		return -1;
	}
	*pid = (int)lab->agents[i].pid;
	return 0;
}

/* action_withhold: site n's prober told to keep family's service address
 * off lo (6 or 4; 0: both as its verdict says again), so that bgpd
 * withdraws that family's announcement alone (a drain of one family) */
static int action_withhold(struct lab *lab, int n, int family, int *pid, char *said, size_t len)
{
	int i = action_agent(lab, n, "prober");

	if (i == -1 || action_ops->signal_agent_value == NULL ||
	    action_ops->signal_agent_value(lab, i, PROBER_SIG_WITHHOLD, family) == -1) {
		strfmt(said, len, "the prober of %s is not running: its IPv%d address cannot be %s",
		       lab->t->nodes[n].name, family ? family : 6,
		       family ? "withheld" : "restored");
		return -1;
	}
	*pid = (int)lab->agents[i].pid;
	return 0;
}

/* action_undo: what a recover (or an *-up, or a flap's way back) does for
 * the earlier action `undoing` on e's target */
static int action_undo(struct lab *lab, const struct topo_event *e, int undoing, int *pid,
		       char *said, size_t len)
{
	int n = e->node, i;

	switch (undoing) {
	case TOPO_A_KILL:
		if ((i = action_ops->start_sited(lab, n)) == -1) {
			strfmt(said, len, "sited of %s could not be started (above)",
			       lab->t->nodes[n].name);
			return -1;
		}
		*pid = (int)lab->agents[i].pid;
		return 0;
	case TOPO_A_CRASH:
		/* every agent of the node, with up's command lines */
		if (action_ops->start_node(lab, n) == -1) {
			strfmt(said, len, "the agents of %s could not be started (above)",
			       lab->t->nodes[n].name);
			return -1;
		}
		return 0;
	case TOPO_A_DRAIN:
		if (action_family(e->undoes >= 0 ? &lab->t->events[e->undoes] : e))
			return action_withhold(lab, n, 0, pid, said, len);
		return action_signal_sited(lab, n, SITED_SIG_UNDRAIN, "undrained", pid, said, len);
	case TOPO_A_DEGRADE:
		return action_signal_sited(lab, n, SITED_SIG_RESTORE, "restored", pid, said, len);
	case TOPO_A_SLOW:
		return action_slow_sited(lab, n, 0, pid, said, len);
	case TOPO_A_LINK_DOWN:
		return action_link(lab, e, 1,
				   action_family(e->undoes >= 0 ? &lab->t->events[e->undoes] : e),
				   said, len);
	case TOPO_A_FREEZE:
	case TOPO_A_DNS_DOWN:
	case TOPO_A_RESOLVER_DOWN:
	case TOPO_A_ICMP_DOWN:
		return action_unblock(lab, n, undoing, said, len);
	}
	strfmt(said, len, "nothing to undo");
	return -1;
}

int action_apply(struct lab *lab, const struct action_step *s, const char *by, char *said,
		 size_t len)
{
	const struct topology *t = lab->t;
	const struct topo_event *e = &t->events[s->event];
	int undoing, action = action_effective(t, s, &undoing), site = action_site(t, e);
	int pid = 0, killed = 0, rc = -1, dns = topo_event_dns(e->action);
	const char *how = NULL;
	char what[96], tg[32], change[160] = "";
	uint32_t serial = 0;
	int64_t t0 = now_real_ns();

	action_describe(t, s, what, sizeof(what));
	switch (action) {
	case TOPO_A_KILL:
		rc = action_kill(lab, e->node,
				 t->nodes[e->node].site_impl == TOPO_SITE_NGINX ? "nginx" : "sited",
				 &killed, &pid, said, len);
		how = "sigkill";
		break;
	case TOPO_A_CRASH:
		rc = action_kill(lab, e->node, NULL, &killed, &pid, said, len);
		how = "crash";
		break;
	case TOPO_A_FREEZE:
		rc = action_block(lab, e, action, said, len);
		how = "freeze";
		break;
	case TOPO_A_DNS_DOWN:
	case TOPO_A_RESOLVER_DOWN: /* no site fails: DNS does */
	case TOPO_A_ICMP_DOWN:	   /* nor here: the sites' proximity probes do */
		rc = action_block(lab, e, action, said, len);
		break;
	case TOPO_A_DRAIN:
		/* of one family: its announcement withdrawn, the site answering */
		rc = action_family(e)
			 ? action_withhold(lab, e->node, action_family(e), &pid, said, len)
			 : action_signal_sited(lab, e->node, SITED_SIG_DRAIN, "drained", &pid, said,
					       len);
		how = "drain";
		break;
	case TOPO_A_DEGRADE:
		/* the application broken, the host not: it accepts connections
		 * and answers no request */
		rc = action_signal_sited(lab, e->node, SITED_SIG_DEGRADE, "degraded", &pid, said,
					 len);
		how = "degrade";
		break;
	case TOPO_A_SLOW:
		/* the application late, the host not: every reply held */
		rc = action_slow_sited(lab, e->node, e->slow_ns, &pid, said, len);
		how = "slow";
		break;
	case TOPO_A_LINK_DOWN:
		rc = action_link(lab, e, 0, action_family(e), said, len);
		how = "link-down";
		break;
	case TOPO_A_IMPAIR:
		rc = action_ops->impair ? action_ops->impair(lab, e, by, said, len) : -1;
		if (!action_ops->impair)
			strfmt(said, len, "impair: not supported here");
		/* of a site's own link: a gray failure, slow or lossy, whose
		 * detection is the probers' timeouts and thresholds against it */
		how = "impair";
		break;
	case TOPO_A_SET_TTL:
	case TOPO_A_SET_WEIGHT:
	case TOPO_A_ADD_RECORD:
	case TOPO_A_REMOVE_RECORD: /* a zone changes: no site fails */
		rc = action_dns(lab, e, action_ops, &serial, said, len);
		topo_event_change_text(e, change, sizeof(change));
		break;
	default: /* recover, undrain, undegrade, unslow, link-up, dns-up, resolver-up, a flap's up
		  */
		rc = action_undo(lab, e, undoing, &pid, said, len);
		break;
	}
	if (rc == -1)
		return -1;
	int64_t done = now_real_ns();
	if (how && site >= 0)
		action_site_failed(lab, site, how, pid, t0, done, e->name, by, s,
				   action == TOPO_A_FREEZE || action == TOPO_A_LINK_DOWN ||
					   action == TOPO_A_DRAIN
				       ? action_family(e)
				       : 0);
	event_emit_at(lab->ev, t0, EVENTS_EVENT_APPLIED,
		      "{s:s, s:s, s:s, s:s, s:s?, s:s?, s:i, s:o, s:I, s:s, s:I, s:I, s:s?, s:o?}",
		      "name", e->name, "action", topo_action_name(e->action), "target",
		      topo_event_target(t, e, tg, sizeof(tg)), "kind",
		      e->node >= 0 ? topo_kind_name(t->nodes[e->node].kind) : "link", "site",
		      site >= 0 ? t->nodes[site].name : NULL, "step",
		      e->action == TOPO_A_FLAP ? (s->up ? "up" : "down") : NULL, "cycle", s->cycle,
		      "vias", action_vias(t, e), "done_ns", (json_int_t)done, "by", by,
		      "nominal_at_ns", (json_int_t)s->nominal_ns, "at_ns", (json_int_t)s->at_ns,
		      "change", dns ? change : NULL, "serial",
		      dns ? json_integer((json_int_t)serial) : NULL);
	if (dns)
		strfmt(said, len, "%s: %s (serial %u)", what, change, serial);
	else if (action == TOPO_A_CRASH)
		strfmt(said, len, "%s: %d process%s killed", what, killed, killed == 1 ? "" : "es");
	else if (pid)
		strfmt(said, len, "%s (sited pid %d)", what, pid);
	else if (action == TOPO_A_IMPAIR) {
		char keys[256];

		strfmt(said, len, "%s: %s", what,
		       topo_event_impair_text(t, e, ", ", keys, sizeof(keys)));
	} else
		strfmt(said, len, "%s", what);
	return 0;
}

/* The lab's side (action_lab_ops): the supervisor's agents, build.c's
 * routes, and what the kernel is asked in a node's namespace. */

static void action_lab_watch(struct lab *lab)
{
	lab_watch(lab, 0);
}

/* action_lab_nft: script loaded by libnftables in node n's namespace, in
 * this process: a freeze takes effect within milliseconds of t0 (run as
 * `nft -f -`, its fork and exec took 45 to 300 ms on a loaded machine, and
 * a probe sent in between was still answered). 0 or -1 (said) */
static int action_lab_nft(struct lab *lab, int n, const char *script, char *said, size_t len)
{
	struct nft_ctx *ctx;
	const char *err;
	int rc;

	if (netns_enter(lab->nsfd[n]) == -1) {
		strfmt(said, len, "entering the namespace of %s: %s", lab->t->nodes[n].name,
		       strerror(errno));
		return -1;
	}
	/* its netlink socket is the namespace's it is made in */
	if ((ctx = nft_ctx_new(NFT_CTX_DEFAULT)) == NULL || nft_ctx_buffer_output(ctx) != 0 ||
	    nft_ctx_buffer_error(ctx) != 0) {
		if (netns_enter_root() == -1)
			fatal("%s: back to the root namespace", __func__);
		strfmt(said, len, "libnftables: no context");
		if (ctx)
			nft_ctx_free(ctx);
		return -1;
	}
	rc = nft_run_cmd_from_buffer(ctx, script);
	if (netns_enter_root() == -1)
		fatal("%s: back to the root namespace", __func__);
	if (rc != 0) {
		err = nft_ctx_get_error_buffer(ctx);
		strfmt(said, len, "nftables in the namespace of %s failed: %.*s",
		       lab->t->nodes[n].name, err ? (int)strcspn(err, "\n") : 0, err ? err : "");
	}
	nft_ctx_free(ctx);
	return rc == 0 ? 0 : -1;
}

/* action_lab_impair: the impair through lab_impair_change, with the
 * mechanism bring-up used */
static int action_lab_impair(struct lab *lab, const struct topo_event *e, const char *by,
			     char *said, size_t len)
{
	enum impair_mech mech;
	char why[256];

	if (lab_impair_mech(lab->t, &mech, why, sizeof(why), stderr) == -2) {
		strfmt(said, len, "impairments: %s", why);
		return -1;
	}
	return lab_impair_change(lab, mech, e->link, e->rlink, e->im, e->imset, e->name, by, said,
				 len);
}

const struct action_ops action_lab_ops = {
    .watch = action_lab_watch,
    .kill_agent = lab_kill_agent,
    .signal_agent = lab_signal_agent,
    .signal_agent_value = lab_signal_agent_value,
    .start_sited = lab_start_sited,
    .start_node = lab_start_node,
    .reconfigure_node = lab_reconfigure_node,
    .nft = action_lab_nft,
    .link_set = lab_link_set,
    .impair = action_lab_impair,
    .dns_change = action_lab_dns_change,
};
