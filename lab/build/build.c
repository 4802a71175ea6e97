/*
 * Bringing a lab up: the state directory, one namespace per node, one veth
 * per link, addresses, routes and forwarding, then the agents.
 */
#include "lab.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "event.h"
#include "events.h"
#include "kernel.h"
#include "log.h"
#include "strfmt.h"

int lab_init(struct lab *lab, const struct topology *t, const char *rundir, const char *bindir)
{
	char path[PATH_MAX];

	memset(lab, 0, sizeof(*lab));
	lab->t = t;
	lab->lockfd = -1;
	for (int i = 0; i < TOPO_MAX_NODES; i++)
		lab->nsfd[i] = -1;
	for (int h = 0; h < TOPO_MAX_HOSTS; h++)
		lab->hostfd[h] = -1;
	lab->phase = LAB_BRINGUP;
	if (strfmt(lab->rundir, sizeof(lab->rundir), "%s", rundir) == -1 ||
	    strfmt(lab->bindir, sizeof(lab->bindir), "%s", bindir) == -1 ||
	    lab_statedir(lab->statedir, sizeof(lab->statedir), t->name) == -1) {
		log_warnx("path too long");
		return -1;
	}
	if (rundir_make(rundir) == -1)
		return -1;
	strfmt(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	if ((lab->ev = event_open(path, "lab", "steerlab")) == NULL)
		return -1;
	return 0;
}

/* lab_write_new: DIR/FILE, new, holding one line. */
static int lab_write_new(const char *dir, const char *file, const char *line)
{
	FILE *fp = lab_fopen_new(dir, file);
	int rc;

	if (fp == NULL)
		return -1;
	rc = fprintf(fp, "%s\n", line) < 0 ? -1 : 0;
	if (fclose(fp) == EOF || rc == -1) {
		log_warn("%s: %s/%s", __func__, dir, file);
		return -1;
	}
	return 0;
}

/* lab_private_dir: dir (LAB_STATE_DIR) exists, is a directory of root's
 * and not a symbolic link, and is 0711: only root lists it, FRR's daemons
 * (user frr) traverse it to their directories (lab/build/frr.c). 0 or -1 (said). */
static int lab_private_dir(const char *dir)
{
	if (mkdir(dir, 0711) == -1 && errno != EEXIST) {
		log_warn("%s: mkdir %s", __func__, dir);
		return -1;
	}
	if (lab_state_check(dir) == -1)
		return -1;
	/* a /run/steerlab from before */
	if (chmod(dir, 0711) == -1) {
		log_warn("%s: chmod %s", __func__, dir);
		return -1;
	}
	return 0;
}

/* Claim the lab's name: the state directory, and no namespace in the way. */
static int lab_claim(struct lab *lab)
{
	const struct topology *t = lab->t;
	char ns[64], bindir[PATH_MAX], rundir[PATH_MAX], path[PATH_MAX];

	if (lab_private_dir(LAB_STATE_DIR) == -1)
		return -1;
	if (mkdir(lab->statedir, 0700) == -1) {
		if (errno == EEXIST)
			log_warnx("lab '%s' already exists (%s); take it down first with: "
				  "steerlab down %s",
				  t->name, lab->statedir, t->name);
		else
			log_warn("%s: mkdir %s", __func__, lab->statedir);
		return -1;
	}
	if (chmod(lab->statedir, 0700) == -1) {
		log_warn("%s: chmod %s", __func__, lab->statedir);
		goto out_rmdir;
	}
	/* held until the lab is up: a `down` meanwhile waits, and then takes
	 * down all of it, not what was recorded so far */
	if ((lab->lockfd = lab_state_lock(lab->statedir)) < 0) {
		lab->lockfd = -1;
		log_warn("%s: lock %s", __func__, lab->statedir);
		goto out_rmdir;
	}
	for (int i = 0; i < t->nnodes + t->nhosts; i++) {
		if (i < t->nnodes)
			lab_nsname(ns, sizeof(ns), t, i);
		else
			lab_host_nsname(ns, sizeof(ns), t, i - t->nnodes);
		if (netns_exists(ns)) {
			log_warnx("namespace %s already exists and is not this lab's; "
				  "remove it or rename the lab",
				  ns);
			goto out_rmdir;
		}
	}
	/* down signals only the programs of this directory */
	if (realpath(lab->bindir, bindir) == NULL) {
		log_warn("%s: %s", __func__, lab->bindir);
		goto out_rmdir;
	}
	/* as an absolute path: status, fail, recover and down may be run from
	 * another directory (runs/LAB-... is relative to up's) */
	if (realpath(lab->rundir, rundir) == NULL) {
		log_warn("%s: %s", __func__, lab->rundir);
		goto out_rmdir;
	}
	/* each is one line of the state, read back by status and down */
	if (rundir_ctl(rundir) || rundir_ctl(bindir)) {
		log_warnx("%s: a control character in the path: refused",
			  rundir_ctl(rundir) ? "the run directory" : "the agents' directory");
		goto out_rmdir;
	}
	if (lab_write_new(lab->statedir, "rundir", rundir) == -1 ||
	    lab_write_new(lab->statedir, "bindir", bindir) == -1)
		goto out_unlink;
	return 0;

out_unlink:
	strfmt(path, sizeof(path), "%s/rundir", lab->statedir);
	unlink(path);
	strfmt(path, sizeof(path), "%s/bindir", lab->statedir);
	unlink(path);
out_rmdir:
	rmdir(lab->statedir);
	lab_state_unlock(lab->lockfd);
	lab->lockfd = -1;
	return -1;
}

/* lab_interrupted: bring-up was interrupted (said once) */
static int lab_interrupted(const struct lab *lab)
{
	return lab->interrupt && *lab->interrupt;
}

static int lab_make_namespaces(struct lab *lab)
{
	const struct topology *t = lab->t;
	char ns[64];

	for (int i = 0; i < t->nnodes && !lab_interrupted(lab); i++) {
		lab_nsname(ns, sizeof(ns), t, i);
		/* record first: a crash after netns_create still gets it removed */
		if (lab_append(lab->statedir, "namespaces", ns) == -1)
			return -1;
		if (netns_create(ns) == -1) {
			log_warn("%s: namespace %s", __func__, ns);
			return -1;
		}
		if ((lab->nsfd[i] = netns_open(ns)) == -1) {
			log_warn("%s: open namespace %s", __func__, ns);
			return -1;
		}
		if (lab_namespace6(lab, i) == -1)
			return -1;
	}
	return 0;
}

static int lab_make_links(struct lab *lab, struct kern *root)
{
	const struct topology *t = lab->t;

	if (lab_hosts_up(lab, root) == -1)
		return -1;
	/* a link between two hosts is a VXLAN tunnel (lab/build/hosts.c) */
	for (int i = 0; i < t->nlinks && !lab_interrupted(lab); i++) {
		const struct topo_link *l = &t->links[i];
		unsigned vni = topo_link_vni(t, i);

		if (vni ? lab_hosts_link(lab, vni, l->router, l->router_ifname, l->node,
					 l->node_ifname)
			: kern_veth(root, l->router_ifname, lab->nsfd[l->router], l->node_ifname,
				    lab->nsfd[l->node]))
			return -1;
	}
	for (int j = 0; j < t->nrlinks && !lab_interrupted(lab); j++) {
		const struct topo_rlink *rl = &t->rlinks[j];
		unsigned vni = topo_rlink_vni(t, j);

		if (vni ? lab_hosts_link(lab, vni, rl->a, rl->a_ifname, rl->b, rl->b_ifname)
			: kern_veth(root, rl->a_ifname, lab->nsfd[rl->a], rl->b_ifname,
				    lab->nsfd[rl->b]))
			return -1;
	}
	return 0;
}

static struct in_addr lab_net(struct in_addr a, int prefixlen)
{
	struct in_addr n;

	n.s_addr = a.s_addr & htonl(~0u << (32 - prefixlen));
	return n;
}

/* lab_route_via: dst/prefixlen via the next hop toward node `to` (a lab of
 * IPv4), and (a lab of IPv6, dst6 not NULL) dst6/prefixlen6 via its IPv6
 * twin */
static int lab_route_via(struct kern *k, const struct topology *t, int r,
			 const struct topo_path *path, int to, struct in_addr dst, int prefixlen,
			 const struct in6_addr *dst6, int prefixlen6)
{
	struct in6_addr via6, net6;
	struct in_addr via;
	const char *ifname;
	int ifindex;

	if (topo_route_to(t, r, path, to, &via, &ifname) <= 0)
		return 0; /* its own, or itself: connected */
	if ((ifindex = kern_ifindex(k, ifname)) == -1 ||
	    (topo_v4(t) && kern_route_add(k, dst, prefixlen, via, ifindex, 0) == -1))
		return -1;
	if (dst6 == NULL || !topo_v6(t))
		return 0;
	topo_route_to6(t, r, path, to, &via6);
	net6 = *dst6; /* the prefix: the host bits off */
	for (int b = prefixlen6; b < 128; b++)
		net6.s6_addr[b / 8] &= (uint8_t) ~(0x80u >> (b % 8));
	return kern_route6_add(k, &net6, prefixlen6, &via6, ifindex);
}

/*
 * routing = static: router r's links to routers, its id on lo, and a route
 * along the shortest path (topology_paths.c) to everything that is not
 * its own: the other routers' ids and node links, the sites' own
 * addresses, the [resolver] blocks, and the router links it is not on
 * (toward their nearer end). The anycast address is routed's.
 */
static int lab_configure_router_links(struct kern *k, const struct topology *t, int r)
{
	static struct topo_path path[TOPO_MAX_NODES];
	struct in_addr local;
	const char *ifname;
	int ifindex;

	if ((topo_v4(t) && kern_addr_add(k, 1, t->nodes[r].router_id, 32) == -1) ||
	    (topo_v6(t) && kern_addr6_add(k, 1, &t->nodes[r].address6, 128) == -1))
		return -1;
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];
		if (rl->a != r && rl->b != r)
			continue;
		topo_rlink_end(t, j, r, &local, NULL, &ifname);
		if ((ifindex = kern_ifindex(k, ifname)) == -1 || kern_link_up(k, ifindex) == -1 ||
		    kern_link_forwarding(k, ifindex) == -1 ||
		    (topo_v4(t) && kern_addr_add(k, ifindex, local, rl->prefixlen) == -1) ||
		    (topo_v6(t) &&
		     kern_addr6_add(k, ifindex, rl->a == r ? &rl->a_addr6 : &rl->b_addr6, 64) ==
			 -1))
			return -1;
	}
	if (t->nrouters < 2)
		return 0;
	topo_paths(t, r, path);
	for (int i = 0; i < t->nnodes; i++) {
		const struct topo_node *node = &t->nodes[i];
		int rc = 0;

		if (node->kind == TOPO_ROUTER) {
			rc = lab_route_via(k, t, r, path, i, node->router_id, 32, &node->address6,
					   128);
		} else if (node->link >= 0) {
			const struct topo_link *l = &t->links[node->link];
			rc = lab_route_via(k, t, r, path, i, lab_net(l->node_addr, l->prefixlen),
					   l->prefixlen, &l->node_addr6, 64);
			if (rc == 0 && node->kind == TOPO_SITE)
				rc = lab_route_via(k, t, r, path, i, node->address, 32,
						   &node->address6, 128);
			if (rc == 0 && node->kind == TOPO_RESOLVER)
				rc = lab_route_via(k, t, r, path, i, node->resolver_net, 24,
						   &node->address6, 64);
			if (rc == 0 && node->kind == TOPO_CLIENT && node->source_block.len > 0)
				rc = lab_route_via(k, t, r, path, i, node->source_block.net,
						   node->source_block.len, NULL, 0);
		}
		if (rc == -1)
			return -1;
	}
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];
		int to = path[rl->b].hops < path[rl->a].hops ? rl->b : rl->a;

		if (rl->a == r || rl->b == r)
			continue;
		if (lab_route_via(k, t, r, path, to, lab_net(rl->a_addr, rl->prefixlen),
				  rl->prefixlen, &rl->a_addr6, 64) == -1)
			return -1;
	}
	return 0;
}

/* lab_router_ecmp: router n's multipath hash, with ecmp (docs/topology.md,
 * "ECMP"): per connection (l4) or per address pair (l3), seeded with the
 * run's seed where the kernel takes one (fib_multipath_hash_seed, Linux
 * 6.11), so that the same seed sends the same flows the same way; a kernel
 * without it seeds the hash at random, said once. 0 or -1 (logged). */
static int lab_router_ecmp(struct lab *lab, int n)
{
	static int unseeded_said;
	const struct topology *t = lab->t;
	char seed[32];
	int rc;

	if (kern_sysctl(lab->nsfd[n], "net/ipv4/fib_multipath_hash_policy",
			t->ecmp_hash == TOPO_ECMP_HASH_L3 ? "0" : "1", 0) == -1)
		return -1;
	if (t->seed < 0)
		return 0;
	if (strfmt(seed, sizeof(seed), "%lld", (long long)t->seed) == -1)
		return -1;
	rc = kern_sysctl(lab->nsfd[n], "net/ipv4/fib_multipath_hash_seed", seed, 1);
	if (rc == 1 && !unseeded_said++)
		log_warnx("ecmp: this kernel has no net.ipv4.fib_multipath_hash_seed (Linux 6.11): "
			  "the routers' multipath hash is seeded at random, and the same seed may "
			  "send flows another way");
	return rc == -1 ? -1 : 0;
}

/* Addresses and routes of one node, through a socket in its namespace;
 * again: a second time (lab_reconfigure_node), what is there is kept. */
static int lab_configure_node(struct lab *lab, int n, int again)
{
	const struct topology *t = lab->t;
	const struct topo_node *node = &t->nodes[n];
	struct in_addr any = {0};
	struct kern *k;
	int rc = -1, ifindex, v4 = topo_v4(t);

	if (node->kind == TOPO_ROUTER && t->ecmp != TOPO_ECMP_NO && lab_router_ecmp(lab, n) == -1)
		return -1;
	if ((k = kern_open(lab->nsfd[n])) == NULL)
		return -1;
	if (again)
		kern_again(k);
	if (kern_link_up(k, 1) == -1) /* lo */
		goto out;
	if (node->kind == TOPO_ROUTER) {
		for (int i = 0; i < t->nlinks; i++) {
			const struct topo_link *l = &t->links[i];
			if (l->router != n)
				continue;
			if ((ifindex = kern_ifindex(k, l->router_ifname)) == -1 ||
			    kern_link_up(k, ifindex) == -1 ||
			    kern_link_forwarding(k, ifindex) == -1 ||
			    (v4 && kern_addr_add(k, ifindex, l->router_addr, l->prefixlen) == -1) ||
			    lab_router_link6(lab, k, l, ifindex) == -1)
				goto out;
			if (!v4) /* ip = 6: the rest is IPv4's */
				continue;
			/* a site's unicast address is routed statically: only the
			 * anycast address is steered by routing */
			if (t->nodes[l->node].kind == TOPO_SITE &&
			    kern_route_add(k, t->nodes[l->node].address, 32, l->node_addr, ifindex,
					   0) == -1)
				goto out;
			/* a resolver node's caches: clients ask them, authd answers them */
			if (t->nodes[l->node].kind == TOPO_RESOLVER &&
			    kern_route_add(k, t->nodes[l->node].resolver_net, 24, l->node_addr,
					   ifindex, 0) == -1)
				goto out;
			/* a population's source_block: its logical clients' addresses */
			if (t->nodes[l->node].kind == TOPO_CLIENT &&
			    t->nodes[l->node].source_block.len > 0 &&
			    kern_route_add(k, t->nodes[l->node].source_block.net,
					   t->nodes[l->node].source_block.len, l->node_addr,
					   ifindex, 0) == -1)
				goto out;
		}
		if (lab_configure_router_links(k, t, n) == -1)
			goto out;
	} else {
		const struct topo_link *l = &t->links[node->link];
		if ((ifindex = kern_ifindex(k, l->node_ifname)) == -1 ||
		    kern_link_up(k, ifindex) == -1)
			goto out;
		/* ip = 6: the node's addresses and routes are lab_configure_node6's */
		if (!v4)
			goto v6;
		if (kern_addr_add(k, ifindex, l->node_addr, l->prefixlen) == -1 ||
		    kern_route_add(k, any, 0, l->router_addr, ifindex, 0) == -1)
			goto out;
		/* a population's source_block, on lo: the whole prefix is local
		 * (the kernel's local route of a loopback address covers its
		 * prefix), so its logical clients send from and receive on any
		 * address of it without one address each */
		if (node->kind == TOPO_CLIENT && node->source_block.len > 0 &&
		    kern_addr_add(k, 1, node->source_block.net, node->source_block.len) == -1)
			goto out;
		/* the anycast address, announced by the prober while healthy, and
		 * the site's own address, which DNS steering hands out. With
		 * routing = bgp the prober adds the anycast address itself
		 * once the service answers, and bgpd announces it; what reaches
		 * the site is delivered to it all the same, by a local route of
		 * its own (AnyIP, metric 1: the address's is metric 0), so that
		 * the requests still on their way while the withdrawal travels
		 * are answered (a drain loses none) */
		if (node->kind == TOPO_SITE && t->routing != TOPO_ROUTING_BGP &&
		    kern_addr_add(k, 1, topo_site_service(t, n), 32) == -1)
			goto out;
		if (node->kind == TOPO_SITE && t->routing == TOPO_ROUTING_BGP &&
		    kern_local_add(k, topo_site_service(t, n), 1) == -1)
			goto out;
		if (node->kind == TOPO_SITE && kern_addr_add(k, 1, node->address, 32) == -1)
			goto out;
		/* an anycast name server's address, which its server listens on
		 * and its prober announces while it answers */
		if (node->kind == TOPO_DNS && node->anycast.s_addr != 0 &&
		    kern_addr_add(k, 1, node->anycast, 32) == -1)
			goto out;
		/* one address per cache of a resolver node, which resolverd
		 * listens on and sends its upstream queries from */
		for (unsigned i = 1; node->kind == TOPO_RESOLVER && i <= node->count; i++)
			if (kern_addr_add(k, 1, topo_resolver_addr(t, n, (int)i), 32) == -1)
				goto out;
	}
v6:
	/* ip = 6 or dual: the same in IPv6 */
	rc = lab_configure_node6(lab, k, n);
out:
	kern_close(k);
	return rc;
}

int lab_reconfigure_node(struct lab *lab, int n)
{
	return lab_configure_node(lab, n, 1);
}

int lab_link_set(struct lab *lab, int n, const char *ifname, int up)
{
	struct kern *k = kern_open(lab->nsfd[n]);
	int ifindex, rc = -1;

	if (k && (ifindex = kern_ifindex(k, ifname)) != -1)
		rc = kern_link_set(k, ifindex, up);
	kern_close(k);
	return rc;
}

/* lab_address: one entry of lab_addresses */
static void lab_address(json_t *o, struct in_addr a, const struct topo_node *node)
{
	char buf[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &a, buf, sizeof(buf));
	json_object_set_new(
	    o, buf,
	    json_pack("{s:s, s:s}", "node", node->name, "kind", topo_kind_name(node->kind)));
}

/* lab_addresses: {ADDR: {node, kind}} for every link end and router id:
 * the clocks follow a FIB's next hop to the node that has it (a site, or
 * the next router), docs/events.md */
static json_t *lab_addresses(const struct topology *t)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	for (int i = 0; i < t->nlinks; i++) {
		const struct topo_link *l = &t->links[i];
		lab_address(o, l->router_addr, &t->nodes[l->router]);
		lab_address(o, l->node_addr, &t->nodes[l->node]);
	}
	for (int i = 0; i < t->nrlinks; i++) {
		const struct topo_rlink *rl = &t->rlinks[i];
		lab_address(o, rl->a_addr, &t->nodes[rl->a]);
		lab_address(o, rl->b_addr, &t->nodes[rl->b]);
	}
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].kind == TOPO_ROUTER && t->nodes[n].router_id.s_addr)
			lab_address(o, t->nodes[n].router_id, &t->nodes[n]);
	return o;
}

/* lab_twin: v6 and v4 into o */
static void lab_twin(json_t *o, const struct in6_addr *a6, struct in_addr a4)
{
	char v6[INET6_ADDRSTRLEN], v4[INET_ADDRSTRLEN];

	inet_ntop(AF_INET6, a6, v6, sizeof(v6));
	json_object_set_new(o, v6, json_string(inet_ntop(AF_INET, &a4, v4, sizeof(v4))));
}

/* lab_twins: a lab of IPv6's {IPV6: IPV4}: the service's and each site's
 * own IPv6 address, each router's, each resolver cache's, every link
 * address (a FIB's next hops, the DNS between the nodes), and its IPv4
 * twin, for the clocks (in a lab of ip = 6 the IPv4 plan's address names
 * the node, on no interface); NULL in an IPv4 lab */
static json_t *lab_twins(const struct topology *t)
{
	json_t *o;

	if (!topo_v6(t) || (o = json_object()) == NULL)
		return NULL;
	lab_twin(o, &t->service6, t->service);
	for (int n = 0; n < t->nnodes; n++) {
		if (t->nodes[n].kind == TOPO_SITE)
			lab_twin(o, &t->nodes[n].address6, t->nodes[n].address);
		if (t->nodes[n].kind == TOPO_ROUTER)
			lab_twin(o, &t->nodes[n].address6, t->nodes[n].router_id);
		for (unsigned i = 1; t->nodes[n].kind == TOPO_RESOLVER && i <= t->nodes[n].count;
		     i++) {
			struct in6_addr cache = topo_resolver_addr6(t, n, (int)i);

			lab_twin(o, &cache, topo_resolver_addr(t, n, (int)i));
		}
	}
	for (int i = 0; i < t->nlinks; i++) {
		lab_twin(o, &t->links[i].router_addr6, t->links[i].router_addr);
		lab_twin(o, &t->links[i].node_addr6, t->links[i].node_addr);
	}
	for (int j = 0; j < t->nrlinks; j++) {
		lab_twin(o, &t->rlinks[j].a_addr6, t->rlinks[j].a_addr);
		lab_twin(o, &t->rlinks[j].b_addr6, t->rlinks[j].b_addr);
	}
	return o;
}

/* lab_node_hosts: a lab over several hosts' {NODE: HOST}, the host each
 * node is on (the clocks put each node's stamps on the reference's clock
 * by it); NULL, absent, in a lab of one host */
static json_t *lab_node_hosts(const struct topology *t)
{
	json_t *o;

	if (t->nhosts == 0 || (o = json_object()) == NULL)
		return NULL;
	for (int n = 0; n < t->nnodes; n++) {
		int h = t->nodes[n].host >= 0 ? t->nodes[n].host : 0;

		json_object_set_new(o, t->nodes[n].name, json_string(t->hosts[h].name));
	}
	return o;
}

int lab_up(struct lab *lab)
{
	const struct topology *t = lab->t;
	struct kern *root = NULL;
	FILE *fp;

	lab->phase = LAB_BRINGUP;
	if (lab_claim(lab) == -1)
		return -1;
	if ((fp = lab_fopen_new(lab->statedir, "topology.ini")) != NULL) {
		topo_print(t, fp);
		fclose(fp);
	}
	if (lab_make_namespaces(lab) == -1 || lab_interrupted(lab))
		goto fail;
	if ((root = kern_open(-1)) == NULL || lab_make_links(lab, root) == -1 ||
	    lab_interrupted(lab))
		goto fail;
	for (int n = 0; n < t->nnodes; n++)
		if (lab_interrupted(lab) || lab_configure_node(lab, n, 0) == -1)
			goto fail;
	if (lab_wait_ipv6(lab) == -1)
		goto fail;
	if (!lab->no_agents && lab_impair_apply(lab) == -1)
		goto fail;
	if (!lab->no_agents && (lab_frr_prepare(lab) == -1 || lab_realres_prepare(lab) == -1 ||
				lab_authority_prepare(lab) == -1 || lab_start_infra(lab) == -1))
		goto fail;
	if (lab_interrupted(lab))
		goto fail;
	kern_close(root);
	lab_state_unlock(lab->lockfd);
	lab->lockfd = -1;
	event_emit(lab->ev, EVENTS_LAB_UP, "{s:s, s:s, s:i, s:i, s:i, s:s, s:o?, s:o*, s:o*}",
		   "lab", t->name, "topology", t->path, "nodes", t->nnodes, "links", t->nlinks,
		   "port", (int)t->port, "ip",
		   t->ip == TOPO_IP_6	   ? "6"
		   : t->ip == TOPO_IP_DUAL ? "dual"
					   : "4",
		   "addresses", lab_addresses(t), "twins", lab_twins(t), "hosts",
		   lab_node_hosts(t));
	return 0;
fail:
	kern_close(root);
	if (lab_interrupted(lab))
		log_warnx("lab %s: interrupted while it came up; taking down what was made",
			  t->name);
	else
		log_warnx("lab %s: bring-up failed; taking down what was made", t->name);
	lab_down(lab);
	return -1;
}
