/*
 * Geolocation on PowerDNS and gdnsd (docs/authorities.md, "Geolocation"):
 * authd's order for a querier (agents/authd/policy.c, authd_geo_order) is
 * the same for every querier whose longest matching `geo` network is the
 * same, so each network is a class with one order of sites, best first:
 * its site, the sites of the shorter networks holding it, the default,
 * then every site of the name in its fallback order, each dead site
 * followed by its `fallback` chain; and one class for every other querier
 * when there is a default (none: authd answers them NODATA).
 *
 * PowerDNS: a LUA record testing netmask() on each class, longest first
 * (netmask() asks the ECS subnet, else the resolver's address, as authd
 * does), then the first site of the class's order with an address up.
 * gdnsd: its geoip plugin with a nets map, each class's order its
 * datacenter list (gdnsd answers the first one up, as metafo), the other
 * queriers' the map's datacenters in order.
 */
#include <arpa/inet.h>
#include <string.h>

#include "authority.h"
#include "authority_int.h"

/* a class of queriers and its order of slots (indices in x->sites) */
struct geo_class {
	struct in_addr net;
	int len; /* -1: every other querier */
	int n;
	int order[AUTHD_EXPORT_SITES];
};

static uint32_t geo_mask(int len)
{
	return len <= 0 ? 0 : len >= 32 ? 0xffffffffu : ~((1u << (32 - len)) - 1);
}

/* geo_holds: network g holds network (net, len) */
static int geo_holds(const struct authd_export_geo *g, struct in_addr net, int len)
{
	return g->len <= len &&
	       (ntohl(net.s_addr) & geo_mask(g->len)) == (ntohl(g->net.s_addr) & geo_mask(g->len));
}

/* geo_add: slot s to c's order, and the chain of its fallbacks, each once */
static void geo_add(const struct authd_export_name *x, struct geo_class *c, int s)
{
	for (; s >= 0 && s < x->nsites; s = x->fallback[s] - 1) {
		for (int i = 0; i < c->n; i++)
			if (c->order[i] == s)
				return;
		c->order[c->n++] = s;
	}
}

/* geo_rest: the default, then every slot in order, after c's own */
static void geo_rest(const struct authd_export_name *x, struct geo_class *c)
{
	if (x->default_site >= 0)
		geo_add(x, c, x->default_site);
	for (int i = 0; i < x->nsites; i++)
		geo_add(x, c, i);
}

/* geo_classes: x's classes into cls (at most AUTHD_EXPORT_GEO + 1), the
 * networks longest first (configuration order among equals), the other
 * queriers' last; how many */
static int geo_classes(const struct authd_export_name *x, struct geo_class *cls)
{
	int n = 0;

	for (int len = 32; len >= 0; len--)
		for (int i = 0; i < x->ngeo4; i++) {
			const struct authd_export_geo *e = &x->geo4[i];
			struct geo_class *c = &cls[n];
			int dup = 0;

			if (e->len != len)
				continue;
			for (int k = 0; k < n; k++)
				dup |= cls[k].len == len && cls[k].net.s_addr == e->net.s_addr;
			if (dup)
				continue;
			memset(c, 0, sizeof(*c));
			c->net = e->net;
			c->len = len;
			/* the networks that hold it, most specific first */
			for (int l = len; l >= 0; l--)
				for (int k = 0; k < x->ngeo4; k++)
					if (x->geo4[k].len == l &&
					    geo_holds(&x->geo4[k], e->net, len))
						geo_add(x, c, x->geo4[k].site);
			geo_rest(x, c);
			n++;
		}
	if (x->default_site >= 0) {
		memset(&cls[n], 0, sizeof(cls[n]));
		cls[n].len = -1;
		geo_rest(x, &cls[n]);
		n++;
	}
	return n;
}

/* geo_lua_sites: Lua's list of the order's sites, each its addresses */
static void geo_lua_sites(FILE *out, const struct authd_export_name *x, const struct geo_class *c)
{
	char buf[INET_ADDRSTRLEN];

	fputc('{', out);
	for (int i = 0; i < c->n; i++) {
		const struct authd_export_site *s = &x->sites[c->order[i]];

		fputs(i ? ", {" : "{", out);
		for (int k = 0; k < s->naddr; k++)
			fprintf(out, "%s'%s'", k ? ", " : "",
				inet_ntop(AF_INET, &s->addr[k], buf, sizeof(buf)));
		fputc('}', out);
	}
	fputc('}', out);
}

void authority_geo_lua(const struct authd_export_name *x, FILE *out)
{
	static struct geo_class cls[AUTHD_EXPORT_GEO + 1];
	int n = geo_classes(x, cls);
	char buf[INET_ADDRSTRLEN];

	/* after ifportup()'s `has`: the class's order, its first site up */
	fputs("local o = {} ", out);
	for (int i = 0; i < n; i++) {
		if (cls[i].len < 0) {
			fputs(i ? "else o = " : "o = ", out);
		} else {
			fprintf(out, "%sif netmask({'%s/%d'}) then o = ", i ? "else" : "",
				inet_ntop(AF_INET, &cls[i].net, buf, sizeof(buf)), cls[i].len);
		}
		geo_lua_sites(out, x, &cls[i]);
		fputc(' ', out);
	}
	if (n > 0 && cls[0].len >= 0)
		fputs("end ", out);
	fputs("for _, s in ipairs(o) do local r = {} for _, a in ipairs(s) do if has[a] then "
	      "table.insert(r, a) end end if #r > 0 then return r end end return {}",
	      out);
}

int authority_geo_gdnsd(struct authority_ctx *c, const struct authd_export_name *x, const char *res)
{
	static struct geo_class cls[AUTHD_EXPORT_GEO + 1];
	int n = geo_classes(x, cls);
	char buf[INET_ADDRSTRLEN];

	if (x->default_site < 0) {
		authority_refuse(c, x,
				 "geolocation without a default: authd answers a querier no geo "
				 "network holds with nothing, gdnsd's geoip every querier");
		return -1;
	}
	fprintf(c->geoip_maps, "      m_%s => {\n        datacenters => [", res);
	for (int i = 0; i < cls[n - 1].n; i++)
		fprintf(c->geoip_maps, "%s %s", i ? "," : "", x->sites[cls[n - 1].order[i]].name);
	fputs(" ]\n        nets => {\n", c->geoip_maps);
	for (int i = 0; i < n - 1; i++) {
		fprintf(c->geoip_maps, "          %s/%d => [",
			inet_ntop(AF_INET, &cls[i].net, buf, sizeof(buf)), cls[i].len);
		for (int k = 0; k < cls[i].n; k++)
			fprintf(c->geoip_maps, "%s %s", k ? "," : "",
				x->sites[cls[i].order[k]].name);
		fputs(" ]\n", c->geoip_maps);
	}
	fputs("        }\n      }\n", c->geoip_maps);
	fprintf(c->geoip_res,
		"      %s => {\n        map => m_%s\n        service_types => steerlab\n"
		"        dcmap => {\n",
		res, res);
	for (int i = 0; i < x->nsites; i++) {
		fprintf(c->geoip_res, "          %s => [", x->sites[i].name);
		for (int k = 0; k < x->sites[i].naddr; k++)
			fprintf(c->geoip_res, "%s %s", k ? "," : "",
				inet_ntop(AF_INET, &x->sites[i].addr[k], buf, sizeof(buf)));
		fputs(" ]\n", c->geoip_res);
	}
	fputs("        }\n      }\n", c->geoip_res);
	return 0;
}
