/* The lab's address plan, computed in one place; see addrplan.h. */
#include "addrplan.h"

#include <arpa/inet.h>
#include <string.h>

static struct in_addr addrplan_addr(uint32_t host)
{
	struct in_addr a = {htonl(host)};

	return a;
}

struct in_addr addrplan_link(unsigned i, int node_end)
{
	return addrplan_addr(ADDRPLAN_LINKS + 4u * i + (node_end ? 2u : 1u));
}

struct in_addr addrplan_rlink(unsigned j, int second)
{
	return addrplan_addr(ADDRPLAN_ROUTERS + 4u * j + (second ? 2u : 1u));
}

struct in_addr addrplan_router_id(unsigned k)
{
	return addrplan_addr(ADDRPLAN_ROUTER_IDS + k + 1u);
}

struct in_addr addrplan_host(unsigned k)
{
	return addrplan_addr(ADDRPLAN_HOSTS + k + 1u);
}

struct in_addr addrplan_resolver_block(unsigned k)
{
	return addrplan_addr(ADDRPLAN_RESOLVERS + 256u * k);
}

struct in_addr addrplan_resolver_cache(unsigned k, unsigned i)
{
	return addrplan_addr(ADDRPLAN_RESOLVERS + 256u * k + i);
}

int addrplan_resolver_of(struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);

	if ((h & ADDRPLAN_RESOLVERS_MASK) != ADDRPLAN_RESOLVERS)
		return -1;
	return (int)((h - ADDRPLAN_RESOLVERS) >> 8);
}

struct in_addr addrplan_site(unsigned n)
{
	return addrplan_addr(ADDRPLAN_SITES + n);
}

struct in_addr addrplan_service(void)
{
	return addrplan_addr(ADDRPLAN_SERVICE);
}

int addrplan_in_lab(struct in_addr a)
{
	return (ntohl(a.s_addr) & ADDRPLAN_NET_MASK) == ADDRPLAN_NET;
}

/* one range holds the other's start */
static int addrplan_meets(uint32_t net, uint32_t last, uint32_t base, uint32_t mask)
{
	return net <= (base | ~mask) && last >= base;
}

int addrplan_reserved(uint32_t net, uint32_t last)
{
	return addrplan_meets(net, last, ADDRPLAN_LINKS, ADDRPLAN_LINKS_MASK) ||
	       addrplan_meets(net, last, ADDRPLAN_ROUTERS, ADDRPLAN_ROUTERS_MASK) ||
	       addrplan_meets(net, last, ADDRPLAN_RESOLVERS, ADDRPLAN_RESOLVERS_MASK);
}

struct in6_addr addrplan6(unsigned subnet, unsigned host)
{
	struct in6_addr a = {0};

	a.s6_addr[0] = 0x20;
	a.s6_addr[1] = 0x01;
	a.s6_addr[3] = 0x02; /* 2001:2:0: */
	a.s6_addr[6] = (uint8_t)(subnet >> 8);
	a.s6_addr[7] = (uint8_t)subnet;
	a.s6_addr[12] = (uint8_t)(host >> 24);
	a.s6_addr[13] = (uint8_t)(host >> 16);
	a.s6_addr[14] = (uint8_t)(host >> 8);
	a.s6_addr[15] = (uint8_t)host;
	return a;
}

struct in6_addr addrplan6_link(unsigned i, int node_end)
{
	return addrplan6(ADDRPLAN6_LINKS + i, node_end ? 2u : 1u);
}

struct in6_addr addrplan6_rlink(unsigned j, int second)
{
	return addrplan6(ADDRPLAN6_RLINKS + j, second ? 2u : 1u);
}

struct in6_addr addrplan6_router_id(unsigned k)
{
	return addrplan6(ADDRPLAN6_ROUTER_IDS, k + 1u);
}

struct in6_addr addrplan6_resolver_cache(unsigned k, unsigned i)
{
	return addrplan6(ADDRPLAN6_RESOLVERS + k, i);
}

struct in6_addr addrplan6_site(unsigned n)
{
	return addrplan6(ADDRPLAN6_SITES, n);
}

struct in6_addr addrplan6_service(void)
{
	return addrplan6(ADDRPLAN6_SERVICE, 1u);
}

int addrplan6_in_lab(const struct in6_addr *a)
{
	static const uint8_t net[6] = {0x20, 0x01, 0x00, 0x02, 0x00, 0x00};

	return memcmp(a->s6_addr, net, sizeof(net)) == 0;
}
