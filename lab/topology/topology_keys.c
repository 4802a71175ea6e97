/*
 * The keys of topology files and their value types: what each key accepts,
 * the message when it does not, and how topo_print writes it back.
 */
#include "topology.h"

#include <arpa/inet.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strtonum.h"
#include "timeutil.h"
#include "topology_int.h"

#define LAB(f) offsetof(struct topology, f)
#define NODE(f) offsetof(struct topo_node, f)
#define DAY_NS (24 * 3600 * NSEC_PER_SEC)

static const char *const topo_all_dead_words[] = {"fail-open", "fail-closed", NULL};
static const char *const topo_mode_words[] = {"anycast", "dns", "both", NULL};	  /* topo_mode */
static const char *const topo_routing_words[] = {"static", "bgp", NULL};	  /* topo_routing */
static const char *const topo_skew_words[] = {"equal", "harmonic", "zipf", NULL}; /* topo_skew */
static const char *const topo_records_words[] = {"csv", "binary", "both", NULL};  /* topo_records */
static const char *const topo_arrivals_words[] = {"paced", "poisson", NULL}; /* topo_arrivals */
static const char *const topo_impl_words[] = {"resolverd", "unbound", "knot-resolver", "bind9",
					      NULL};			       /* topo_impl */
static const char *const topo_rsv_mode_words[] = {"forward", "iterate", NULL}; /* topo_rsv_mode */
static const char *const topo_proto_words[] = {"udp", "tcp", "http", NULL};    /* topo_proto */
static const char *const topo_check_words[] = {"udp", "tcp", "http", "icmp", NULL}; /* topo_check */
static const char *const topo_probe_phase_words[] = {"start", "random",
						     NULL}; /* topo_probe_phase */
static const char *const topo_ecmp_words[] = {"no", "yes", "hash", "resilient",
					      NULL};			    /* topo_ecmp */
static const char *const topo_ecmp_hash_words[] = {"l4", "l3", NULL};	    /* topo_ecmp_hash */
static const char *const topo_ip_words[] = {"4", "6", "dual", NULL};	    /* topo_ip */
static const char *const topo_family_words[] = {"4", "6", "dual", NULL};    /* topo_family */
static const char *const topo_site_impl_words[] = {"sited", "nginx", NULL}; /* topo_site_impl */
static const char *const topo_dns_impl_words[] = {"authd", "pdns", "gdnsd",
						  NULL}; /* topo_dns_impl */
static const char *const topo_reconnect_words[] = {"backoff", "immediate",
						   NULL};		     /* topo_reconnect */
static const char *const topo_resolve_words[] = {"client", "libcurl", NULL}; /* topo_resolve */
static const char *const topo_addresses_words[] = {"first", "random", "sorted", "next",
						   NULL}; /* topo_addresses */

/* The order of each table is the order of docs/man/steerlab.ini.5, of the
 * "expected: ..." lists and of topo_print; TOPO_K_* index into them. */
static const struct topo_key topo_lab_keys[] = {
    {"name", TOPO_T_NAME, LAB(name), 0, 0, -1, NULL},
    {"service", TOPO_T_SERVICE, LAB(service), 0, 0, -1, NULL},
    {"port", TOPO_T_PORT, LAB(port), 1, 65535, -1, NULL},
    {"fail_at", TOPO_T_DURATION, LAB(fail_at_ns), 0, 0, -1, NULL},
    {"duration", TOPO_T_DURATION, LAB(duration_ns), 1, 0, -1, NULL},
    {"settle", TOPO_T_DURATION, LAB(settle_ns), 1, 0, -1, NULL},
    {"capture_buffer", TOPO_T_SIZE, LAB(capture_buffer), 0, 0, -1, NULL},
    {"rate", TOPO_T_RATE, LAB(rate), 0, 0, -1, NULL},
    {"timeout", TOPO_T_DURATION, LAB(timeout_ns), 1, 0, -1, NULL},
    {"probe_interval", TOPO_T_DURATION, LAB(probe_interval_ns), 1, 0, -1, NULL},
    {"probe_timeout", TOPO_T_DURATION, LAB(probe_timeout_ns), 1, 0, -1, NULL},
    {"probe_down", TOPO_T_UINT, LAB(probe_down), 1, 1000, -1, NULL},
    {"probe_up", TOPO_T_UINT, LAB(probe_up), 1, 1000, -1, NULL},
    {"dns_name", TOPO_T_DNAME, LAB(dns_name), 0, 0, -1, NULL},
    {"sticky_share", TOPO_T_FRACTION, LAB(sticky_share), 0, 0, -1, NULL},
    {"sticky", TOPO_T_DURATION, LAB(sticky_ns), 1, 0, -1, NULL},
    /* the analysis's target shares (topology_check.c resolves the sites);
     * printed when set */
    {"target_share", TOPO_T_SITE_SHARES, LAB(target_share), 0, 0, -1, NULL},
    /* routing, and FRR's knobs (topology_bgp.c checks their units) */
    {"routing", TOPO_T_CHOICE, LAB(routing), 0, 0, -1, topo_routing_words},
    /* routing = static: the probers' refresh and routed's hold time */
    {"static_refresh", TOPO_T_DURATION, LAB(static_refresh_ns), 1, 0, -1, NULL},
    {"static_hold", TOPO_T_DURATION, LAB(static_hold_ns), 0, 0, -1, NULL},
    {"fail_jitter", TOPO_T_DURATION, LAB(fail_jitter_ns), 0, 0, -1, NULL},
    {"seed", TOPO_T_SEED, LAB(seed), 0, 0, -1, NULL},
    {"bgp_keepalive", TOPO_T_DURATION, LAB(bgp_keepalive_ns), 1, 0, -1, NULL},
    {"bgp_hold", TOPO_T_DURATION, LAB(bgp_hold_ns), 0, 0, -1, NULL},
    {"bgp_connect_retry", TOPO_T_DURATION, LAB(bgp_connect_retry_ns), 1, 0, -1, NULL},
    {"bgp_mrai", TOPO_T_DURATION, LAB(bgp_mrai_ns), 0, 0, -1, NULL},
    {"bfd", TOPO_T_BOOL, LAB(bfd), 0, 0, -1, NULL},
    {"bfd_interval", TOPO_T_DURATION, LAB(bfd_interval_ns), 1, 0, -1, NULL},
    {"bfd_multiplier", TOPO_T_UINT, LAB(bfd_multiplier), 2, 255, -1, NULL},
    {"damping", TOPO_T_BOOL, LAB(damping), 0, 0, -1, NULL},
    {"damping_half_life", TOPO_T_DURATION, LAB(damping_half_life_ns), 1, 0, -1, NULL},
    {"damping_reuse", TOPO_T_UINT, LAB(damping_reuse), 1, 20000, -1, NULL},
    {"damping_suppress", TOPO_T_UINT, LAB(damping_suppress), 1, 20000, -1, NULL},
    {"damping_max_suppress", TOPO_T_DURATION, LAB(damping_max_suppress_ns), 1, 0, -1, NULL},
    {"ecmp", TOPO_T_CHOICE, LAB(ecmp), 0, 0, -1, topo_ecmp_words},
    /* the clients' records (docs/agents.md); printed when not csv */
    {"records", TOPO_T_CHOICE, LAB(records), 0, 0, -1, topo_records_words},
    /* the lab's DNS tree (topology_tree.c); printed when yes */
    {"dns_tree", TOPO_T_BOOL, LAB(dns_tree), 0, 0, -1, NULL},
    /* added to each delay = auto link (topology_impair.c) */
    {"hop_delay", TOPO_T_DURATION, LAB(hop_delay_ns), 0, 0, -1, NULL},
    /* the clients' transport; printed when not udp */
    {"proto", TOPO_T_CHOICE, LAB(proto), 0, 0, -1, topo_proto_words},
    /* the probers' check; printed when not udp */
    {"check", TOPO_T_CHOICE, LAB(check), 0, 0, -1, topo_check_words},
    /* the clients' choice among several addresses; printed when not first */
    {"addresses", TOPO_T_CHOICE, LAB(addresses), 0, 0, -1, topo_addresses_words},
    /* the TCP clients' connect timeout (0: their timeout); printed when set */
    {"connect_timeout", TOPO_T_DURATION, LAB(connect_timeout_ns), 1, 0, -1, NULL},
    /* the routers' multipath hash; printed when ecmp is not no */
    {"ecmp_hash", TOPO_T_CHOICE, LAB(ecmp_hash), 0, 0, -1, topo_ecmp_hash_words},
    /* an http check's GET and what passes it; printed when set */
    {"http_path", TOPO_T_TEXT, LAB(http_path), 0, 0, -1, NULL},
    {"http_status", TOPO_T_UINT, LAB(http_status), 100, 599, -1, NULL},
    {"http_body", TOPO_T_TEXT, LAB(http_body), 0, 0, -1, NULL},
    /* tcp and http checks: the connection's own timeout; printed when set */
    {"probe_connect_timeout", TOPO_T_DURATION, LAB(probe_connect_timeout_ns), 1, 0, -1, NULL},
    /* the TCP clients' reconnections; printed when immediate */
    {"reconnect", TOPO_T_CHOICE, LAB(reconnect), 0, 0, -1, topo_reconnect_words},
    /* (last: the TOPO_K_ indices before it stay) the probers' cycles: set at the traffic's start,
     * or each at a phase of its own drawn from the seed; printed when random */
    {"probe_phase", TOPO_T_CHOICE, LAB(probe_phase), 0, 0, -1, topo_probe_phase_words},
    /* the address families of the lab's network (docs/topology.md,
     * "Addresses"); printed when not 4 */
    {"ip", TOPO_T_CHOICE, LAB(ip), 0, 0, -1, topo_ip_words},
    /* the clients' address family; printed when not 4 */
    {"family", TOPO_T_CHOICE, LAB(family), 0, 0, -1, topo_family_words},
};

static const struct topo_key topo_router_keys[] = {
    {"asn", TOPO_T_UINT, NODE(asn), 1, 4294967294LL, -1, NULL},
    /* its own BGP timers and BFD, the [lab]'s unless set (routing = bgp;
     * topology_policy.c checks their units) */
    {"bgp_keepalive", TOPO_T_DURATION, NODE(bgp_keepalive_ns), 1, 0, LAB(bgp_keepalive_ns), NULL},
    {"bgp_hold", TOPO_T_DURATION, NODE(bgp_hold_ns), 0, 0, LAB(bgp_hold_ns), NULL},
    {"bgp_mrai", TOPO_T_DURATION, NODE(bgp_mrai_ns), 0, 0, LAB(bgp_mrai_ns), NULL},
    {"bfd", TOPO_T_BOOL, NODE(bfd), 0, 0, LAB(bfd), NULL},
    /* where it is: [link] delay = auto (topology_impair.c); printed when set */
    {"location", TOPO_T_LOCATION, NODE(location), 0, 0, -1, NULL},
    /* the host it runs on ([host] sections, topology_hosts.c); printed when set */
    {"host", TOPO_T_NAME, NODE(host_name), 0, 0, -1, NULL},
};

static const struct topo_key topo_site_keys[] = {
    {"link", TOPO_T_LINK, 0, 0, 0, -1, NULL},
    {"address", TOPO_T_SERVICE, NODE(address), 0, 0, -1, NULL},
    {"metric", TOPO_T_UINT, NODE(metric), 0, UINT32_MAX, -1, NULL},
    {"fail", TOPO_T_BOOL, NODE(fail), 0, 0, -1, NULL},
    {"probe_interval", TOPO_T_DURATION, NODE(probe_interval_ns), 1, 0, LAB(probe_interval_ns),
     NULL},
    {"probe_timeout", TOPO_T_DURATION, NODE(probe_timeout_ns), 1, 0, LAB(probe_timeout_ns), NULL},
    {"probe_down", TOPO_T_UINT, NODE(probe_down), 1, 1000, LAB(probe_down), NULL},
    {"probe_up", TOPO_T_UINT, NODE(probe_up), 1, 1000, LAB(probe_up), NULL},
    /* its own prober's check, the [lab]'s unless set; printed when not udp */
    {"check", TOPO_T_CHOICE, NODE(check), 0, 0, LAB(check), topo_check_words},
    {"asn", TOPO_T_UINT, NODE(asn), 1, 4294967294LL, -1, NULL}, /* routing = bgp */
    {"prepend", TOPO_T_UINT, NODE(prepend), 0, TOPO_PREPEND_MAX, -1, NULL},
    /* its own BGP timers and BFD, the [lab]'s unless set (routing = bgp;
     * topology_policy.c checks their units) */
    {"bgp_keepalive", TOPO_T_DURATION, NODE(bgp_keepalive_ns), 1, 0, LAB(bgp_keepalive_ns), NULL},
    {"bgp_hold", TOPO_T_DURATION, NODE(bgp_hold_ns), 0, 0, LAB(bgp_hold_ns), NULL},
    {"bgp_mrai", TOPO_T_DURATION, NODE(bgp_mrai_ns), 0, 0, LAB(bgp_mrai_ns), NULL},
    {"bfd", TOPO_T_BOOL, NODE(bfd), 0, 0, LAB(bfd), NULL},
    /* where it is: [link] delay = auto (topology_impair.c); printed when set */
    {"location", TOPO_T_LOCATION, NODE(location), 0, 0, -1, NULL},
    /* what answers at the site: sited, or Debian's nginx; printed when nginx */
    {"impl", TOPO_T_CHOICE, NODE(site_impl), 0, 0, -1, topo_site_impl_words},
    /* its own prober's cycle, the [lab]'s unless set; printed when random */
    {"probe_phase", TOPO_T_CHOICE, NODE(probe_phase), 0, 0, LAB(probe_phase),
     topo_probe_phase_words},
    /* its region's anycast front door (topology_anycast.c); printed when set */
    {"front_door", TOPO_T_SERVICE, NODE(front_door), 0, 0, -1, NULL},
    /* the host it runs on ([host] sections, topology_hosts.c); printed when set */
    {"host", TOPO_T_NAME, NODE(host_name), 0, 0, -1, NULL},
};

static const struct topo_key topo_client_keys[] = {
    {"link", TOPO_T_LINK, 0, 0, 0, -1, NULL},
    {"rate", TOPO_T_RATE, NODE(rate), 0, 0, LAB(rate), NULL},
    {"timeout", TOPO_T_DURATION, NODE(timeout_ns), 1, 0, LAB(timeout_ns), NULL},
    {"mode", TOPO_T_CHOICE, NODE(mode), 0, 0, -1, topo_mode_words},
    {"resolver", TOPO_T_RESOLVER, 0, 0, 0, -1, NULL},
    {"name", TOPO_T_DNAME, NODE(dns_name), 0, 0, LAB(dns_name), NULL},
    {"sticky", TOPO_T_DURATION, NODE(sticky_ns), 0, 0, -1, NULL},
    /* populations (topo_population_only) */
    {"population", TOPO_T_UINT, NODE(population), 1, TOPO_POPULATION_MAX, -1, NULL},
    {"skew", TOPO_T_CHOICE, NODE(skew), 0, 0, -1, topo_skew_words},
    {"zipf_exponent", TOPO_T_RATE, NODE(zipf_exponent), 0, 0, -1, NULL},
    {"arrivals", TOPO_T_CHOICE, NODE(arrivals), 0, 0, -1, topo_arrivals_words},
    {"source_block", TOPO_T_BLOCK, NODE(source_block), 0, 0, -1, NULL},
    {"resolver_weights", TOPO_T_WEIGHTS, NODE(resolver_weights), 0, 0, -1, NULL},
    /* its transport, the [lab]'s unless set; printed when not udp */
    {"proto", TOPO_T_CHOICE, NODE(proto), 0, 0, LAB(proto), topo_proto_words},
    /* where it is: [link] delay = auto (topology_impair.c); printed when set */
    {"location", TOPO_T_LOCATION, NODE(location), 0, 0, -1, NULL},
    /* what it does with several addresses, the [lab]'s unless set; printed when not first */
    {"addresses", TOPO_T_CHOICE, NODE(addresses), 0, 0, LAB(addresses), topo_addresses_words},
    /* over TCP, the [lab]'s unless set; printed when set */
    {"connect_timeout", TOPO_T_DURATION, NODE(connect_timeout_ns), 1, 0, LAB(connect_timeout_ns),
     NULL},
    /* over HTTP, who resolves its name; printed when libcurl */
    {"resolve", TOPO_T_CHOICE, NODE(resolve), 0, 0, -1, topo_resolve_words},
    /* libcurl's DNS cache; printed with resolve = libcurl */
    {"dns_cache", TOPO_T_DURATION, NODE(dns_cache_ns), 0, 0, -1, NULL},
    /* proto = tcp, one client: its connections' lifetime and pipelining
     * depth (none unless set); printed when set */
    {"requests_per_connection", TOPO_T_UINT, NODE(requests_per_conn), 1, 4294967295LL, -1, NULL},
    {"idle_timeout", TOPO_T_DURATION, NODE(idle_timeout_ns), 1, 0, -1, NULL},
    {"pipeline", TOPO_T_UINT, NODE(pipeline), 1, 65536, -1, NULL},
    /* its requests' address family, the [lab]'s unless set; printed when not 4 */
    {"family", TOPO_T_CHOICE, NODE(family), 0, 0, LAB(family), topo_family_words},
    /* the host it runs on ([host] sections, topology_hosts.c); printed when set */
    {"host", TOPO_T_NAME, NODE(host_name), 0, 0, -1, NULL},
};

static const struct topo_key topo_dns_keys[] = {
    {"link", TOPO_T_LINK, 0, 0, 0, -1, NULL},
    {"quorum", TOPO_T_SHARE, NODE(quorum), 0, 0, -1, NULL},
    {"all_dead", TOPO_T_CHOICE, NODE(fail_closed), 0, 0, -1, topo_all_dead_words},
    {"zones", TOPO_T_ZONES, NODE(zones), 0, 0, -1, NULL},
    /* what answers: authd, or PowerDNS with its own checks; printed when
     * not authd, the checks' keys with it */
    {"impl", TOPO_T_CHOICE, NODE(dns_impl), 0, 0, -1, topo_dns_impl_words},
    {"check_interval", TOPO_T_DURATION, NODE(check_interval_ns), 1, 0, -1, NULL},
    {"check_timeout", TOPO_T_DURATION, NODE(check_timeout_ns), 1, 0, -1, NULL},
    {"check_down", TOPO_T_UINT, NODE(check_down), 1, 65535, -1, NULL},
    {"check_up", TOPO_T_UINT, NODE(check_up), 1, 65535, -1, NULL},
    /* where it is: [link] delay = auto (topology_impair.c); printed when set */
    {"location", TOPO_T_LOCATION, NODE(location), 0, 0, -1, NULL},
    /* an anycast address it serves on too (topology_anycast.c) */
    {"anycast", TOPO_T_SERVICE, NODE(anycast), 0, 0, -1, NULL},
    /* the host it runs on ([host] sections, topology_hosts.c); printed when set */
    {"host", TOPO_T_NAME, NODE(host_name), 0, 0, -1, NULL},
};

static const struct topo_key topo_prober_keys[] = {
    {"link", TOPO_T_LINK, 0, 0, 0, -1, NULL},
    {"probe_interval", TOPO_T_DURATION, NODE(probe_interval_ns), 1, 0, LAB(probe_interval_ns),
     NULL},
    {"probe_timeout", TOPO_T_DURATION, NODE(probe_timeout_ns), 1, 0, LAB(probe_timeout_ns), NULL},
    {"probe_down", TOPO_T_UINT, NODE(probe_down), 1, 1000, LAB(probe_down), NULL},
    {"probe_up", TOPO_T_UINT, NODE(probe_up), 1, 1000, LAB(probe_up), NULL},
    /* its check, the [lab]'s unless set; printed when not udp */
    {"check", TOPO_T_CHOICE, NODE(check), 0, 0, LAB(check), topo_check_words},
    /* where it is: [link] delay = auto (topology_impair.c); printed when set */
    {"location", TOPO_T_LOCATION, NODE(location), 0, 0, -1, NULL},
    /* its cycle, the [lab]'s unless set; printed when random */
    {"probe_phase", TOPO_T_CHOICE, NODE(probe_phase), 0, 0, LAB(probe_phase),
     topo_probe_phase_words},
    /* the family it probes the sites and reports over (not the [lab]'s:
     * that is the clients'); printed when 6 */
    {"family", TOPO_T_CHOICE, NODE(family), 0, 0, -1, topo_family_words},
    /* the host it runs on ([host] sections, topology_hosts.c); printed when set */
    {"host", TOPO_T_NAME, NODE(host_name), 0, 0, -1, NULL},
};

static const struct topo_key topo_resolver_keys[] = {
    {"link", TOPO_T_LINK, 0, 0, 0, -1, NULL},
    {"count", TOPO_T_UINT, NODE(count), 1, TOPO_RESOLVER_COUNT_MAX, -1, NULL},
    {"impl", TOPO_T_CHOICE, NODE(impl), 0, 0, -1, topo_impl_words},
    /* forward or iterate: its default from the zones (topology_tree.c) */
    {"mode", TOPO_T_CHOICE, NODE(rsv_mode), 0, 0, -1, topo_rsv_mode_words},
    /* where it is: [link] delay = auto (topology_impair.c); printed when set */
    {"location", TOPO_T_LOCATION, NODE(location), 0, 0, -1, NULL},
    /* the host it runs on ([host] sections, topology_hosts.c); printed when set */
    {"host", TOPO_T_NAME, NODE(host_name), 0, 0, -1, NULL},
};

/* resolverd's keys (docs/resolverd.md) a [resolver] node passes on as
 * written, and those the lab writes itself. */
static const char *const topo_resolverd_passed[] = {
    "min_ttl",
    "max_ttl",
    "neg_max_ttl",
    "serve_stale",
    "stale_ttl",
    "max_stale",
    "stale_recheck",
    "prefetch",
    "phase",
    "max_entries",
    "timeout",
    "retries",
    "stats_interval",
    "max_pending",
    "qname_minimisation",
    "ecs",
    NULL,
};
static const char *const topo_resolverd_lab[] = {
    "upstream", "root", "port", "tcp", "address", "first_address", NULL,
};

const char *topo_impl_name(int impl)
{
	return impl >= 0 && impl <= TOPO_IMPL_BIND ? topo_impl_words[impl] : "?";
}

const char *topo_dns_impl_name(int impl)
{
	return impl >= 0 && impl <= TOPO_DNS_GDNSD ? topo_dns_impl_words[impl] : "?";
}

int topo_resolverd_key(const char *name)
{
	for (int i = 0; topo_resolverd_passed[i]; i++)
		if (strcmp(name, topo_resolverd_passed[i]) == 0)
			return 1;
	for (int i = 0; topo_resolverd_lab[i]; i++)
		if (strcmp(name, topo_resolverd_lab[i]) == 0)
			return -1;
	return 0;
}

const char *topo_resolverd_keys(void)
{
	static char list[256];

	if (list[0] == '\0')
		for (int i = 0; topo_resolverd_passed[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", topo_resolverd_passed[i]);
	return list;
}

/* TOPO_T_CHOICE values are stored as int, enum topo_mode included */
_Static_assert(sizeof(enum topo_mode) == sizeof(int), "enum topo_mode is not an int");
_Static_assert(sizeof(enum topo_routing) == sizeof(int), "enum topo_routing is not an int");

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* where[] and bad[] in struct topo_parse hold TOPO_KEYS_MAX keys */
_Static_assert(COUNT(topo_lab_keys) <= TOPO_KEYS_MAX, "TOPO_KEYS_MAX: too many [lab] keys");
_Static_assert(COUNT(topo_site_keys) <= TOPO_KEYS_MAX, "TOPO_KEYS_MAX: too many [site] keys");
_Static_assert(COUNT(topo_client_keys) <= TOPO_KEYS_MAX, "TOPO_KEYS_MAX: too many [client] keys");
_Static_assert(COUNT(topo_dns_keys) <= TOPO_KEYS_MAX, "TOPO_KEYS_MAX: too many [dns] keys");
_Static_assert(COUNT(topo_prober_keys) <= TOPO_KEYS_MAX, "TOPO_KEYS_MAX: too many [prober] keys");
_Static_assert(COUNT(topo_router_keys) <= TOPO_KEYS_MAX, "TOPO_KEYS_MAX: too many [router] keys");
_Static_assert(COUNT(topo_resolver_keys) <= TOPO_KEYS_MAX,
	       "TOPO_KEYS_MAX: too many [resolver] keys");

const struct topo_key *topo_keys(int kind, int *n)
{
	switch (kind) {
	case TOPO_SITE:
		*n = COUNT(topo_site_keys);
		return topo_site_keys;
	case TOPO_CLIENT:
		*n = COUNT(topo_client_keys);
		return topo_client_keys;
	case TOPO_DNS:
		*n = COUNT(topo_dns_keys);
		return topo_dns_keys;
	case TOPO_PROBER:
		*n = COUNT(topo_prober_keys);
		return topo_prober_keys;
	case TOPO_RESOLVER:
		*n = COUNT(topo_resolver_keys);
		return topo_resolver_keys;
	case TOPO_ROUTER:
		*n = COUNT(topo_router_keys);
		return topo_router_keys;
	default:
		*n = COUNT(topo_lab_keys);
		return topo_lab_keys;
	}
}

int topo_check_name(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > TOPO_NAME_MAX || *s == '-')
		return -1;
	if (strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-") != len)
		return -1;
	return 0;
}

/* topo_whole: a whole decimal number from min to max, digits only (no
 * sign, no space). */
static int topo_whole(const char *s, long long min, long long max, long long *v)
{
	const char *errstr;

	if (*s < '0' || *s > '9')
		return -1;
	*v = strtonum(s, min, max, &errstr);
	return errstr ? -1 : 0;
}

static int topo_size(const char *s, uint64_t *bytes)
{
	static const struct {
		const char *suffix;
		int shift;
	} units[] = {
	    {"", 0},   {"K", 10},   {"k", 10}, {"KiB", 10},
	    {"M", 20}, {"MiB", 20}, {"G", 30}, {"GiB", 30},
	};
	long long v;
	char digits[24];
	size_t n = strspn(s, "0123456789");

	if (n == 0 || n >= sizeof(digits))
		return -1;
	memcpy(digits, s, n);
	digits[n] = '\0';
	if (topo_whole(digits, 1, INT_MAX, &v) < 0)
		return -1;
	for (int i = 0; i < COUNT(units); i++) {
		if (strcmp(s + n, units[i].suffix) != 0)
			continue;
		if (v > INT_MAX >> units[i].shift)
			return -1;
		*bytes = (uint64_t)v << units[i].shift;
		return 0;
	}
	return -1;
}

/* topo_decimal: "1000", "0.5": digits, at most one '.', no sign, no
 * exponent, into *v. */
static int topo_decimal(const char *s, double *v)
{
	size_t n = strspn(s, "0123456789");

	if (n == 0)
		return -1;
	if (s[n] == '.') {
		size_t m = strspn(s + n + 1, "0123456789");

		if (m == 0)
			return -1;
		n += 1 + m;
	}
	if (s[n] != '\0')
		return -1;
	*v = strtod(s, NULL);
	return 0;
}

/* topo_rate: a decimal from 0.001 to 1e6. */
static int topo_rate(const char *s, double *rate)
{
	if (topo_decimal(s, rate) == -1 || *rate < 0.001 || *rate > 1e6)
		return -1;
	return 0;
}

/* topo_share: a decimal with 0 <= q < 1, or 0 <= q <= 1 if one. */
static int topo_share(const char *s, double *q, int one)
{
	if (topo_decimal(s, q) == -1 || (one ? *q > 1 : *q >= 1))
		return -1;
	return 0;
}

/* topo_format_share: q to TOPO_SHARE_PLACES decimal places, without the
 * trailing zeros: "0.25", "1", "0.00001" (no exponent: topo_share reads it). */
static const char *topo_format_share(double q, char *buf, size_t len)
{
	char *e;

	snprintf(buf, len, "%.*f", TOPO_SHARE_PLACES, q);
	if (strchr(buf, '.') == NULL)
		return buf;
	for (e = buf + strlen(buf); e[-1] == '0'; e--)
		;
	if (e[-1] == '.')
		e--;
	*e = '\0';
	return buf;
}

int topo_check_dname(const char *s)
{
	size_t len = strlen(s), label = 0;

	if (len > 0 && s[len - 1] == '.')
		len--; /* the root's empty label, written or not */
	if (len == 0 || len > TOPO_DNS_NAME_MAX)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (label == 0)
				return -1;
			label = 0;
			continue;
		}
		if (strchr(TOPO_DNAME_CHARS, s[i]) == NULL || ++label > 63)
			return -1;
	}
	return label == 0 ? -1 : 0;
}

/* topo_weights: "W1, W2, ..." (spaces allowed around the commas), each a
 * decimal > 0; kept without the spaces. NULL, or what was expected. */
static const char *topo_weights(const char *s, char *dst)
{
	static const char *const rule = "expected weights W1, W2, ..., each a number above 0 "
					"such as 2 or 0.5, one per cache of the [resolver] node";
	char buf[TOPO_WEIGHTS_LEN], out[TOPO_WEIGHTS_LEN] = "", *save = NULL, *tok;
	size_t len = 0;

	if (strlen(s) >= sizeof(buf))
		return rule;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		double w;

		while (*tok == ' ' || *tok == '\t')
			tok++;
		for (char *e = tok + strlen(tok); e > tok && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = '\0';
		if (topo_decimal(tok, &w) == -1 || w <= 0)
			return rule;
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", len ? "," : "", tok);
	}
	if (len == 0 || s[strlen(s) - 1] == ',')
		return rule;
	strcpy(dst, out);
	return NULL;
}

/* topo_site_shares: "SITE:W SITE:W ..." separated by blanks, each SITE a
 * node name, each W a decimal > 0; kept with single spaces. Whether each
 * names a [site], and only once, is topology_check.c's. NULL, or what was
 * expected. */
static const char *topo_site_shares(const char *s, char *dst)
{
	static const char *const rule =
	    "expected SITE:W pairs such as b34:5 b35:3, each W a number above 0";
	char buf[TOPO_TARGET_SHARE_LEN], out[TOPO_TARGET_SHARE_LEN] = "", *save = NULL, *tok;
	size_t len = 0;

	if (strlen(s) >= sizeof(buf))
		return rule;
	strcpy(buf, s);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *colon = strchr(tok, ':');
		double w;

		if (colon == NULL)
			return rule;
		*colon = '\0';
		if (topo_check_name(tok) < 0 || topo_decimal(colon + 1, &w) == -1 || w <= 0 ||
		    !isfinite(w))
			return rule;
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s:%s", len ? " " : "",
					tok, colon + 1);
	}
	if (len == 0)
		return rule;
	strcpy(dst, out);
	return NULL;
}

/* topo_zones: "Z1 Z2 ..." separated by blanks, kept with single spaces;
 * whether each names a [zone] is topology_tree.c's (authd judges the names
 * themselves). NULL, or what was expected. */
static const char *topo_zones(const char *s, char *dst)
{
	static const char *const rule =
	    "expected the names of [zone] sections separated by spaces, such as '. example' or "
	    "lab.example ('.' is the root zone)";
	char buf[TOPO_ZONES_LEN], out[TOPO_ZONES_LEN] = "", *save = NULL, *tok;
	size_t len = 0;

	if (strlen(s) >= sizeof(buf))
		return rule;
	strcpy(buf, s);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save))
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", len ? " " : "", tok);
	if (len == 0)
		return rule;
	strcpy(dst, out);
	return NULL;
}

/* topo_block: "A.B.C.D/LEN", 16 <= LEN <= 32, the host bits zero, in
 * the lab's /15 outside the plan's blocks (lib/addrplan.h). NULL, or what
 * was expected. */
static const char *topo_block(const char *s, struct topo_block *b)
{
	static const char *const rule =
	    "expected NET/LEN (16 <= LEN <= 32, host bits zero) in " ADDRPLAN_NET_TEXT
	    " outside the links' " ADDRPLAN_LINKS_TEXT ", the routers' " ADDRPLAN_ROUTERS_TEXT
	    " and the resolvers' " ADDRPLAN_RESOLVERS_TEXT ", such as " ADDRPLAN_FREE_EXAMPLE_TEXT;
	char host[INET_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	long long len;
	uint32_t net, mask, last;
	struct in_addr a;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(host) ||
	    topo_whole(slash + 1, 16, 32, &len) < 0)
		return rule;
	memcpy(host, s, (size_t)(slash - s));
	host[slash - s] = '\0';
	if (inet_pton(AF_INET, host, &a) != 1)
		return rule;
	net = ntohl(a.s_addr);
	mask = len == 32 ? 0xFFFFFFFFu : ~(0xFFFFFFFFu >> len);
	last = net | ~mask;
	if ((net & ~mask) != 0 || !addrplan_in_lab(a) || addrplan_reserved(net, last))
		return rule;
	b->net = a;
	b->len = (int)len;
	return NULL;
}

/* topo_degrees: a decimal with an optional '-', blanks around it, from
 * -max to max, into *v. */
static int topo_degrees(const char *s, double max, double *v)
{
	char buf[32];
	size_t len;
	int neg;

	s += strspn(s, " \t");
	len = strlen(s);
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	neg = buf[0] == '-';
	if (topo_decimal(buf + neg, v) == -1 || *v > max)
		return -1;
	if (neg)
		*v = -*v;
	return 0;
}

/* topo_location: "LAT,LON" in degrees. NULL, or what was expected. */
static const char *topo_location(const char *s, struct topo_location *l)
{
	static const char *const rule =
	    "expected LAT,LON in decimal degrees, latitude from -90 to 90 and longitude from "
	    "-180 to 180, such as 48.8566,2.3522";
	const char *comma = strchr(s, ',');
	char lat[32];
	double a, o;

	if (comma == NULL || (size_t)(comma - s) >= sizeof(lat))
		return rule;
	memcpy(lat, s, (size_t)(comma - s));
	lat[comma - s] = '\0';
	if (topo_degrees(lat, 90, &a) == -1 || topo_degrees(comma + 1, 180, &o) == -1)
		return rule;
	*l = (struct topo_location){a, o, 1};
	return NULL;
}

/* topo_resolver_ref: "NAME" or "NAME.N" (cache N of a [resolver] node). */
static int topo_resolver_ref(const char *s, struct topo_resolver_ref *ref)
{
	char name[TOPO_NAME_MAX + 8];
	long long n = 0;
	char *dot;

	if (strlen(s) >= sizeof(name))
		return -1;
	snprintf(name, sizeof(name), "%s", s);
	dot = strrchr(name, '.');
	if (dot) {
		*dot = '\0';
		if (dot[1] == '0' || topo_whole(dot + 1, 1, TOPO_RESOLVER_COUNT_MAX, &n) < 0)
			return -1;
	}
	if (topo_check_name(name) < 0) /* also: at most TOPO_NAME_MAX characters */
		return -1;
	memcpy(ref->name, name, strlen(name) + 1);
	ref->instance = (unsigned)n;
	return 0;
}

/* topo_choice: the index of s in words, or -1. */
static int topo_choice(const char *s, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (strcmp(s, words[i]) == 0)
			return i;
	return -1;
}

/* topo_choices_expected: "expected a, b or c" into why. */
static const char *topo_choices_expected(const char *const *words, char *why, size_t whylen)
{
	size_t used = (size_t)snprintf(why, whylen, "expected");

	for (int i = 0; words[i] && used < whylen; i++)
		used += (size_t)snprintf(why + used, whylen - used, "%s%s",
					 i == 0		? " "
					 : words[i + 1] ? ", "
							: " or ",
					 words[i]);
	return why;
}

const char *topo_parse_value(const struct topo_key *k, const char *s, void *dst, char *why,
			     size_t whylen)
{
	long long u;
	struct in_addr a;
	uint32_t h;
	uint64_t size;
	int64_t ns;
	double rate;

	switch (k->type) {
	case TOPO_T_NAME:
	case TOPO_T_LINK:
		if (topo_check_name(s) < 0)
			return k->type == TOPO_T_NAME ? TOPO_NAME_RULE
						      : "expected the name of a router";
		snprintf(dst, TOPO_NAME_MAX + 1, "%s", s);
		return NULL;
	case TOPO_T_RESOLVER:
		snprintf(why, whylen,
			 "expected the name of a [dns] or [resolver] node, or NAME.N for cache N "
			 "(1 to %d) of a [resolver] node",
			 TOPO_RESOLVER_COUNT_MAX);
		return topo_resolver_ref(s, dst) < 0 ? why : NULL;
	case TOPO_T_SERVICE:
		if (inet_pton(AF_INET, s, &a) != 1 || !addrplan_in_lab(a) ||
		    addrplan_reserved(ntohl(a.s_addr), ntohl(a.s_addr)))
			return "expected an IPv4 address in " ADDRPLAN_NET_TEXT
			       " outside the links' " ADDRPLAN_LINKS_TEXT
			       ", the routers' " ADDRPLAN_ROUTERS_TEXT
			       " and the resolvers' " ADDRPLAN_RESOLVERS_TEXT
			       ", such as " ADDRPLAN_SERVICE_TEXT;
		memcpy(dst, &a, sizeof(a));
		return NULL;
	case TOPO_T_BLOCK:
		return topo_block(s, dst);
	case TOPO_T_WEIGHTS:
		return topo_weights(s, dst);
	case TOPO_T_ZONES:
		return topo_zones(s, dst);
	case TOPO_T_SITE_SHARES:
		return topo_site_shares(s, dst);
	case TOPO_T_LOCATION:
		return topo_location(s, dst);
	case TOPO_T_TEXT:
		if (strlen(s) >= TOPO_TEXT_LEN)
			return "expected at most 127 characters";
		for (const char *c = s; *c; c++)
			if (*c < 0x20 || *c > 0x7e)
				return "expected printable ASCII";
		snprintf(dst, TOPO_TEXT_LEN, "%s", s);
		return NULL;
	case TOPO_T_PORT:
		if (topo_whole(s, 1, 65535, &u) < 0)
			return "expected a port number from 1 to 65535";
		*(uint16_t *)dst = (uint16_t)u;
		return NULL;
	case TOPO_T_UINT:
		if (topo_whole(s, k->min, k->max, &u) < 0) {
			snprintf(why, whylen, "expected a whole number from %lld to %lld", k->min,
				 k->max);
			return why;
		}
		*(unsigned *)dst = (unsigned)u;
		return NULL;
	case TOPO_T_DURATION:
		if (parse_duration_ns(s, &ns) < 0)
			return "expected a duration such as 100ms or 2s";
		if (ns < k->min)
			return "expected a duration greater than zero";
		if (ns > DAY_NS)
			return "expected a duration of at most 24h";
		*(int64_t *)dst = ns;
		return NULL;
	case TOPO_T_SIZE:
		if (strcmp(s, "auto") == 0)
			size = 0;
		else if (topo_size(s, &size) < 0)
			return "expected auto or a size from 1 byte to 2047M, such as 65536, 512K, "
			       "64M or 64MiB";
		*(uint64_t *)dst = size;
		return NULL;
	case TOPO_T_RATE:
		if (topo_rate(s, &rate) < 0)
			return "expected requests per second from 0.001 to 1000000, such as 1000 "
			       "or 0.5";
		*(double *)dst = rate;
		return NULL;
	case TOPO_T_BOOL:
		if (!strcasecmp(s, "yes") || !strcasecmp(s, "true") || !strcmp(s, "1"))
			h = 1;
		else if (!strcasecmp(s, "no") || !strcasecmp(s, "false") || !strcmp(s, "0"))
			h = 0;
		else
			return "expected yes or no (or true/false, 1/0)";
		*(int *)dst = (int)h;
		return NULL;
	case TOPO_T_SHARE:
		if (topo_share(s, &rate, 0) < 0)
			return "expected a share from 0 up to (not including) 1, such as 0.5";
		*(double *)dst = rate;
		return NULL;
	case TOPO_T_FRACTION:
		if (topo_share(s, &rate, 1) < 0)
			return "expected a share from 0 to 1, such as 0.25";
		*(double *)dst = rate;
		return NULL;
	case TOPO_T_CHOICE:
		if (topo_choice(s, k->choices) < 0)
			return topo_choices_expected(k->choices, why, whylen);
		*(int *)dst = topo_choice(s, k->choices);
		return NULL;
	case TOPO_T_DNAME:
		if (topo_check_dname(s) < 0)
			return TOPO_DNAME_RULE;
		snprintf(dst, TOPO_DNS_NAME_MAX + 2, "%s", s);
		return NULL;
	case TOPO_T_SEED:
		if (strcmp(s, "random") == 0)
			u = -1;
		else if (topo_whole(s, 0, JITTER_SEED_MAX, &u) < 0)
			return "expected random or a whole number from 0 to 4294967295";
		*(int64_t *)dst = u;
		return NULL;
	}
	return "expected nothing: unknown key type";
}

size_t topo_value_size(enum topo_type type)
{
	switch (type) {
	case TOPO_T_NAME:
	case TOPO_T_LINK:
		return TOPO_NAME_MAX + 1;
	case TOPO_T_RESOLVER:
		return sizeof(struct topo_resolver_ref);
	case TOPO_T_DNAME:
		return TOPO_DNS_NAME_MAX + 2;
	case TOPO_T_CHOICE:
		return sizeof(int);
	case TOPO_T_SHARE:
	case TOPO_T_FRACTION:
		return sizeof(double);
	case TOPO_T_SERVICE:
		return sizeof(struct in_addr);
	case TOPO_T_PORT:
		return sizeof(uint16_t);
	case TOPO_T_UINT:
		return sizeof(unsigned);
	case TOPO_T_DURATION:
	case TOPO_T_SEED:
		return sizeof(int64_t);
	case TOPO_T_SIZE:
		return sizeof(uint64_t);
	case TOPO_T_RATE:
		return sizeof(double);
	case TOPO_T_BOOL:
		return sizeof(int);
	case TOPO_T_BLOCK:
		return sizeof(struct topo_block);
	case TOPO_T_WEIGHTS:
		return TOPO_WEIGHTS_LEN;
	case TOPO_T_ZONES:
		return TOPO_ZONES_LEN;
	case TOPO_T_SITE_SHARES:
		return TOPO_TARGET_SHARE_LEN;
	case TOPO_T_LOCATION:
		return sizeof(struct topo_location);
	case TOPO_T_TEXT:
		return TOPO_TEXT_LEN;
	}
	return 0;
}

const char *topo_format_duration(int64_t ns, char *buf, size_t len)
{
	if (ns % NSEC_PER_SEC == 0)
		snprintf(buf, len, "%llds", (long long)(ns / NSEC_PER_SEC));
	else if (ns % NSEC_PER_MSEC == 0)
		snprintf(buf, len, "%lldms", (long long)(ns / NSEC_PER_MSEC));
	else if (ns % NSEC_PER_USEC == 0)
		snprintf(buf, len, "%lldus", (long long)(ns / NSEC_PER_USEC));
	else
		snprintf(buf, len, "%lldns", (long long)ns);
	return buf;
}

const char *topo_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "GMK";

	for (int i = 0; i < 3; i++) {
		int shift = 30 - 10 * i;

		if (bytes != 0 && bytes % (1ull << shift) == 0) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(bytes >> shift),
				 units[i]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)bytes);
	return buf;
}

const char *topo_format_value(const struct topo_key *k, const void *src, char *buf, size_t len)
{
	const struct topo_resolver_ref *ref = src;

	switch (k->type) {
	case TOPO_T_NAME:
	case TOPO_T_LINK:
	case TOPO_T_DNAME:
		snprintf(buf, len, "%s", (const char *)src);
		break;
	case TOPO_T_RESOLVER:
		if (ref->instance)
			snprintf(buf, len, "%s.%u", ref->name, ref->instance);
		else
			snprintf(buf, len, "%s", ref->name);
		break;
	case TOPO_T_CHOICE:
		snprintf(buf, len, "%s", k->choices[*(const int *)src]);
		break;
	case TOPO_T_SERVICE:
		if (inet_ntop(AF_INET, src, buf, (socklen_t)len) == NULL)
			snprintf(buf, len, "?");
		break;
	case TOPO_T_PORT:
		snprintf(buf, len, "%u", *(const uint16_t *)src);
		break;
	case TOPO_T_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)src);
		break;
	case TOPO_T_DURATION:
		topo_format_duration(*(const int64_t *)src, buf, len);
		break;
	case TOPO_T_SIZE:
		if (*(const uint64_t *)src == 0)
			snprintf(buf, len, "auto");
		else
			topo_format_size(*(const uint64_t *)src, buf, len);
		break;
	case TOPO_T_RATE:
		snprintf(buf, len, "%.15g", *(const double *)src);
		break;
	case TOPO_T_SHARE:
	case TOPO_T_FRACTION:
		topo_format_share(*(const double *)src, buf, len);
		break;
	case TOPO_T_BOOL:
		snprintf(buf, len, "%s", *(const int *)src ? "yes" : "no");
		break;
	case TOPO_T_SEED:
		if (*(const int64_t *)src < 0)
			snprintf(buf, len, "random");
		else
			snprintf(buf, len, "%lld", (long long)*(const int64_t *)src);
		break;
	case TOPO_T_WEIGHTS:
	case TOPO_T_ZONES:
	case TOPO_T_SITE_SHARES:
	case TOPO_T_TEXT:
		snprintf(buf, len, "%s", (const char *)src);
		break;
	case TOPO_T_LOCATION: {
		const struct topo_location *l = src;

		snprintf(buf, len, "%.15g,%.15g", l->lat, l->lon);
		break;
	}
	case TOPO_T_BLOCK: {
		const struct topo_block *b = src;
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &b->net, a, sizeof(a));
		snprintf(buf, len, "%s/%d", a, b->len);
		break;
	}
	}
	return buf;
}

int topo_key_type(int kind, const char *name, size_t namelen)
{
	const struct topo_key *k;
	int n;

	k = topo_keys(kind, &n);
	for (int i = 0; i < n; i++)
		if (strlen(k[i].name) == namelen && strncmp(k[i].name, name, namelen) == 0)
			return (int)k[i].type;
	return -1;
}
