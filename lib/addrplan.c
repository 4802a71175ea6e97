/* The lab's address plan, computed in one place; see addrplan.h. */
#include "addrplan.h"

#include <arpa/inet.h>

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
