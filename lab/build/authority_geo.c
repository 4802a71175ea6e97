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
#include <stdio.h>
#include <string.h>

#include "authority.h"
#include "authority_int.h"

/* a class of queriers and its order of slots (indices in x->sites) */
struct geo_class {
	int family;
	uint8_t net[16];
	int len; /* -1: every other querier */
	int n;
	int order[AUTHD_EXPORT_SITES];
};

/* geo_holds: network g holds network (family, net, len) */
static int geo_holds(const struct authd_export_geo *g, int family, const uint8_t *net, int len)
{
	int bytes = g->len / 8, bits = g->len % 8;

	if (g->family != family || g->len > len || memcmp(g->net, net, (size_t)bytes) != 0)
		return 0;
	return bits == 0 || ((g->net[bytes] ^ net[bytes]) & (0xff00 >> bits)) == 0;
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
 * IPv4 networks longest first (configuration order among equals), then
 * the IPv6 ones so, the other queriers' last; how many. A querier's
 * network is of its own family only, as authd matches it. */
static int geo_classes(const struct authd_export_name *x, struct geo_class *cls)
{
	static const int families[] = {AF_INET, AF_INET6};
	int n = 0;

	for (int f = 0; f < 2; f++)
		for (int len = families[f] == AF_INET ? 32 : 128; len >= 0; len--)
			for (int i = 0; i < x->ngeo; i++) {
				const struct authd_export_geo *e = &x->geo[i];
				struct geo_class *c = &cls[n];
				int dup = 0;

				if (e->family != families[f] || e->len != len)
					continue;
				for (int k = 0; k < n; k++)
					dup |= cls[k].family == e->family && cls[k].len == len &&
					       memcmp(cls[k].net, e->net, 16) == 0;
				if (dup)
					continue;
				memset(c, 0, sizeof(*c));
				c->family = e->family;
				memcpy(c->net, e->net, 16);
				c->len = len;
				/* the networks that hold it, most specific first */
				for (int l = len; l >= 0; l--)
					for (int k = 0; k < x->ngeo; k++)
						if (x->geo[k].len == l &&
						    geo_holds(&x->geo[k], e->family, e->net, len))
							geo_add(x, c, x->geo[k].site);
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

/* geo_net: class c's network as text, "NET/LEN" */
static const char *geo_net(const struct geo_class *c, char *buf, size_t len)
{
	char addr[INET6_ADDRSTRLEN];

	inet_ntop(c->family, c->net, addr, sizeof(addr));
	snprintf(buf, len, "%s/%d", addr, c->len);
	return buf;
}

/* geo_lua_sites: Lua's list of the order's sites, each its addresses of
 * family */
static void geo_lua_sites(FILE *out, const struct authd_export_name *x, const struct geo_class *c,
			  int family)
{
	char buf[INET6_ADDRSTRLEN];

	fputc('{', out);
	for (int i = 0; i < c->n; i++) {
		const struct authd_export_site *s = &x->sites[c->order[i]];

		fputs(i ? ", {" : "{", out);
		for (int k = 0; k < authority_naddr(s, family); k++)
			fprintf(out, "%s'%s'", k ? ", " : "", authority_addr(s, family, k, buf));
		fputc('}', out);
	}
	fputc('}', out);
}

void authority_geo_lua(const struct authd_export_name *x, int family, FILE *out)
{
	static struct geo_class cls[AUTHD_EXPORT_GEO + 1];
	int n = geo_classes(x, cls);
	char buf[INET6_ADDRSTRLEN + 4];

	/* after ifportup()'s `has`: the class's order, its first site up */
	fputs("local o = {} ", out);
	for (int i = 0; i < n; i++) {
		if (cls[i].len < 0)
			fputs(i ? "else o = " : "o = ", out);
		else
			fprintf(out, "%sif netmask({'%s'}) then o = ", i ? "else" : "",
				geo_net(&cls[i], buf, sizeof(buf)));
		geo_lua_sites(out, x, &cls[i], family);
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
	int n = geo_classes(x, cls), v6 = authority_has6(x);
	char buf[INET6_ADDRSTRLEN + 4];

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
		fprintf(c->geoip_maps, "          %s => [", geo_net(&cls[i], buf, sizeof(buf)));
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
		fprintf(c->geoip_res, "          %s => ", x->sites[i].name);
		authority_gdnsd_dc(c->geoip_res, &x->sites[i], v6);
		fputc('\n', c->geoip_res);
	}
	fputs("        }\n      }\n", c->geoip_res);
	return 0;
}
