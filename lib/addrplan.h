/*
 * The lab's address plan (docs/man/steerlab.ini.5, ADDRESSES), defined
 * once: every address the lab gives is computed here, and the analysis
 * finds a [resolver] node's block here; nothing else spells an address of
 * 198.18.0.0/15. Within it:
 *
 *   198.18.0.0/22     node links: link i (a node's `link`, in file order)
 *                     is the /30 198.18.0.0 + 4 i, the router end .1, the
 *                     node end .2
 *   198.18.32.0/20    the routers': router link j ([link] sections in file
 *                     order) is the /30 198.18.32.0 + 4 j (.1 the first
 *                     router written, .2 the second), the k-th router's id
 *                     198.18.40.(k + 1); the k-th host's underlay
 *                     address ([host] sections) 198.18.44.(k + 1)
 *   198.18.128.0/17   the k-th [resolver] node's block 198.18.(128 + k).0/24,
 *                     cache i on .i
 *   198.19.0.1        the default service address; the N-th site's own
 *                     address is 198.19.1.N by default
 *
 * The rest of the /15 is free for sites', services' and networks' own
 * addresses. Indexes count from 0, addresses are in network order
 * (struct in_addr), the blocks' constants in host order for arithmetic.
 * The _TEXT strings say the same for messages and configurations; the unit
 * tests check that they agree with the numbers.
 */
#ifndef STEERLAB_ADDRPLAN_H
#define STEERLAB_ADDRPLAN_H

#include <netinet/in.h>
#include <stdint.h>

#define ADDRPLAN_NET 0xC6120000u /* 198.18.0.0/15 */
#define ADDRPLAN_NET_MASK 0xFFFE0000u
#define ADDRPLAN_NET_TEXT "198.18.0.0/15"
#define ADDRPLAN_LINKS 0xC6120000u /* node links, /30 each */
#define ADDRPLAN_LINKS_MASK 0xFFFFFC00u
#define ADDRPLAN_LINKS_TEXT "198.18.0.0/22"
#define ADDRPLAN_ROUTERS 0xC6122000u /* router links and router ids */
#define ADDRPLAN_ROUTERS_MASK 0xFFFFF000u
#define ADDRPLAN_ROUTERS_TEXT "198.18.32.0/20"
#define ADDRPLAN_RLINKS_TEXT "198.18.32.0/21" /* the router links' half of it */
#define ADDRPLAN_ROUTER_IDS 0xC6122800u	      /* 198.18.40.0: router k has + k + 1 */
#define ADDRPLAN_HOSTS 0xC6122C00u	      /* 198.18.44.0: host k's underlay + k + 1 */
#define ADDRPLAN_RESOLVERS 0xC6128000u	      /* [resolver] blocks, /24 each */
#define ADDRPLAN_RESOLVERS_MASK 0xFFFF8000u
#define ADDRPLAN_RESOLVERS_TEXT "198.18.128.0/17"
#define ADDRPLAN_RESOLVERS_MAX 128
#define ADDRPLAN_SERVICE 0xC6130001u /* the default service address */
#define ADDRPLAN_SERVICE_TEXT "198.19.0.1"
#define ADDRPLAN_SITES 0xC6130100u /* site N's default address is + N */

/* the plan in words, for the printed topology's header and messages */
#define ADDRPLAN_LINK_RULE_TEXT "198.18.0.0/30 + 4 i"
#define ADDRPLAN_RLINK_RULE_TEXT "198.18.32.0/30 + 4 j"
#define ADDRPLAN_ROUTER_ID_RULE_TEXT "198.18.40.(k + 1)"
#define ADDRPLAN_HOST_RULE_TEXT "198.18.44.(k + 1)"
#define ADDRPLAN_RESOLVER_RULE_TEXT "198.18.(128 + k).0/24"
#define ADDRPLAN_RESOLVER_RANGE_TEXT "198.18.128.0/24 to 198.18.255.0/24"
#define ADDRPLAN_FREE_EXAMPLE_TEXT "198.18.64.0/18" /* a block outside the plan's */

/* addrplan_link: link i's router end (node_end 0, .1) or node end (.2) */
struct in_addr addrplan_link(unsigned i, int node_end);
/* addrplan_rlink: router link j's end at its first router (second 0, .1)
 * or at its second (.2) */
struct in_addr addrplan_rlink(unsigned j, int second);
/* addrplan_router_id: the k-th router's id */
struct in_addr addrplan_router_id(unsigned k);
/* addrplan_host: the k-th host's underlay address ([host] sections) */
struct in_addr addrplan_host(unsigned k);
/* addrplan_resolver_block: the k-th [resolver] node's /24 (cache i is
 * its .i: addrplan_resolver_cache) */
struct in_addr addrplan_resolver_block(unsigned k);
struct in_addr addrplan_resolver_cache(unsigned k, unsigned i);
/* addrplan_resolver_of: the k of the [resolver] block that holds a, or -1 */
int addrplan_resolver_of(struct in_addr a);
/* addrplan_site: the n-th site's default address (n from 1) */
struct in_addr addrplan_site(unsigned n);
/* addrplan_service: the default service address */
struct in_addr addrplan_service(void);
/* addrplan_in_lab: whether a is in 198.18.0.0/15 */
int addrplan_in_lab(struct in_addr a);
/* addrplan_reserved: whether the host-order range [net, last] meets one of
 * the plan's blocks (links, routers, resolvers) */
int addrplan_reserved(uint32_t net, uint32_t last);

/*
 * IPv6 ([lab] ip = dual), in 2001:2::/48, the range reserved for network
 * benchmarking (RFC 5180), the same plan a /64 for each of the IPv4 plan's
 * /30s and /24s, the 16 bits of the subnet saying which:
 *
 *   2001:2:0:i::/64        node link i, the router end ::1, the node end ::2
 *   2001:2:0:1000+j::/64   router link j (hex), ::1 the first router, ::2
 *   2001:2:0:2000::k+1     the k-th router's loopback address
 *   2001:2:0:8000+k::/64   the k-th [resolver] node's block, cache i on ::i
 *   2001:2:0:ff00::1       the service address
 *   2001:2:0:ff01::N       the N-th site's own address
 */
#define ADDRPLAN6_NET_TEXT "2001:2::/48"
#define ADDRPLAN6_LINKS 0x0000u	     /* subnet of node link i: + i */
#define ADDRPLAN6_RLINKS 0x1000u     /* router link j: + j */
#define ADDRPLAN6_ROUTER_IDS 0x2000u /* the routers' loopbacks */
#define ADDRPLAN6_RESOLVERS 0x8000u  /* [resolver] k: + k */
#define ADDRPLAN6_SERVICE 0xff00u    /* the service, ::1 */
#define ADDRPLAN6_SITES 0xff01u	     /* site N: ::N */
#define ADDRPLAN6_SERVICE_TEXT "2001:2:0:ff00::1"
#define ADDRPLAN6_LINK_RULE_TEXT "2001:2:0:i::/64"

/* addrplan6: 2001:2:0:SUBNET::HOST */
struct in6_addr addrplan6(unsigned subnet, unsigned host);
struct in6_addr addrplan6_link(unsigned i, int node_end);
struct in6_addr addrplan6_rlink(unsigned j, int second);
struct in6_addr addrplan6_router_id(unsigned k);
struct in6_addr addrplan6_resolver_cache(unsigned k, unsigned i);
struct in6_addr addrplan6_site(unsigned n);
struct in6_addr addrplan6_service(void);
/* addrplan6_in_lab: whether a is in 2001:2::/48 */
int addrplan6_in_lab(const struct in6_addr *a);

#endif
