/*
 * gdnsd's configuration for a [dns] node (impl = gdnsd, docs/authorities.md;
 * see authority.h): each steered name a DYNA record of one of gdnsd's
 * plugins, whose tcp_connect monitors (the service type "steerlab")
 * check the sites: failover as metafo's datacenters in order, multivalue as
 * multifo, weighted as weighted, geolocation as geoip with a nets map. A DYNA TTL is MAX/MIN and
 * gdnsd moves it with its monitors' state; the lab writes the name's TTL as both, fixed as authd's.
 * In a dual lab a DYNA record answers AAAA too: each datacenter and resource has its sites' IPv6
 * addresses beside the IPv4 ones (addrs_v4, addrs_v6), each monitored.
 */
#include <arpa/inet.h>
#include <string.h>

#include "authority.h"
#include "authority_int.h"
#include "lab.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"

/* gdnsd_resource: the resource name of owner: its labels joined by '_'
 * (www.lab.example. as www_lab_example) */
static void gdnsd_resource(const char *owner, char *buf, size_t len)
{
	size_t i = 0;

	for (; owner[i] && i + 1 < len; i++)
		buf[i] = owner[i] == '.' ? '_' : owner[i];
	while (i > 0 && buf[i - 1] == '_')
		i--;
	buf[i] = '\0';
}

/* gdnsd_addrs: a vscf list of site s's addresses of family: [ a1, a2 ] */
static void gdnsd_addrs(FILE *out, const struct authd_export_site *s, int family)
{
	char buf[INET6_ADDRSTRLEN];

	fputs("[ ", out);
	for (int k = 0; k < authority_naddr(s, family); k++)
		fprintf(out, "%s%s", k ? ", " : "", authority_addr(s, family, k, buf));
	fputs(" ]", out);
}

void authority_gdnsd_dc(FILE *out, const struct authd_export_site *s, int v6)
{
	/* a list holds one family: both as multifo's addrs_v4 and addrs_v6,
	 * whose states gdnsd joins (either down: the datacenter down) */
	if (!v6) {
		gdnsd_addrs(out, s, AF_INET);
		return;
	}
	/* ip = 6: IPv6 alone */
	if (authority_naddr(s, AF_INET) == 0) {
		fputs("{ addrs_v6 => ", out);
		gdnsd_addrs(out, s, AF_INET6);
		fputs(" }", out);
		return;
	}
	fputs("{ addrs_v4 => ", out);
	gdnsd_addrs(out, s, AF_INET);
	fputs(", addrs_v6 => ", out);
	gdnsd_addrs(out, s, AF_INET6);
	fputs(" }", out);
}

/* gdnsd_family: a resource's addresses of one family as labelled entries
 * (multifo's; weighted's with each site's weight, those above 0), in a
 * stanza of its own (addrs_v4, addrs_v6) when v6; how many weighted */
static int gdnsd_family(FILE *out, const struct authd_export_name *x, int family, int v6,
			int weighted)
{
	const char *pad = v6 ? "        " : "      ";
	char buf[INET6_ADDRSTRLEN];
	int n = 0, any = 0;

	/* a family no site has (IPv4 in a lab of ip = 6): no stanza */
	for (int i = 0; i < x->nsites; i++)
		any += authority_naddr(&x->sites[i], family);
	if (any == 0)
		return 0;
	if (v6)
		fprintf(out, "      %s => {\n", family == AF_INET6 ? "addrs_v6" : "addrs_v4");
	for (int i = 0; i < x->nsites; i++)
		for (int k = 0; k < authority_naddr(&x->sites[i], family); k++) {
			if (!weighted) {
				fprintf(out, "%s%s_%d => %s\n", pad, x->sites[i].name, k + 1,
					authority_addr(&x->sites[i], family, k, buf));
			} else if (x->sites[i].weight > 0) {
				fprintf(out, "%s%s_%d => [ %s, %u ]\n", pad, x->sites[i].name,
					k + 1, authority_addr(&x->sites[i], family, k, buf),
					x->sites[i].weight);
				n++;
			}
		}
	if (v6)
		fputs("      }\n", out);
	return n;
}

int authority_gdnsd_name(struct authority_ctx *c, const struct authd_export_name *x, FILE *zone)
{
	char res[256];
	const char *plugin;
	int weighted = 0, v6 = authority_has6(x);

	if (x->fail_closed) {
		authority_refuse(c, x,
				 "all_dead = fail-closed: with every site down its plugins answer "
				 "every address, as fail-open does");
		return 0;
	}
	gdnsd_resource(x->owner, res, sizeof(res));
	switch (x->policy) {
	case AUTHD_EXPORT_FAILOVER:
		/* the first datacenter in order with an address up */
		plugin = "metafo";
		fprintf(c->metafo, "      %s => {\n        datacenters => [", res);
		for (int i = 0; i < x->nsites; i++)
			fprintf(c->metafo, "%s %s", i ? "," : "", x->sites[i].name);
		fputs(" ]\n        dcmap => {\n", c->metafo);
		for (int i = 0; i < x->nsites; i++) {
			fprintf(c->metafo, "          %s => ", x->sites[i].name);
			authority_gdnsd_dc(c->metafo, &x->sites[i], v6);
			fputc('\n', c->metafo);
		}
		fputs("        }\n      }\n", c->metafo);
		break;
	case AUTHD_EXPORT_MULTIVALUE:
		/* every address up; none: all (up_thresh as low as it goes) */
		plugin = "multifo";
		fprintf(c->multifo, "    %s => {\n      up_thresh => 0.01\n", res);
		gdnsd_family(c->multifo, x, AF_INET, v6, 0);
		if (v6)
			gdnsd_family(c->multifo, x, AF_INET6, v6, 0);
		fputs("    }\n", c->multifo);
		break;
	case AUTHD_EXPORT_WEIGHTED:
		if (x->pattern) {
			authority_refuse(
			    c, x,
			    "pattern: its weighted plugin draws each answer at random, "
			    "it keeps no rotation");
			return 0;
		}
		plugin = "weighted";
		/* each family drawn apart, by the same weights */
		fprintf(c->weighted, "    %s => {\n      up_thresh => 0.01\n", res);
		weighted = gdnsd_family(c->weighted, x, AF_INET, v6, 1);
		if (v6) {
			int w6 = gdnsd_family(c->weighted, x, AF_INET6, v6, 1);

			weighted = weighted ? weighted : w6; /* ip = 6: IPv6's alone */
		}
		fputs("    }\n", c->weighted);
		if (weighted == 0) {
			authority_refuse(c, x, "every weight 0: its weighted plugin needs one");
			return 0;
		}
		break;
	case AUTHD_EXPORT_GEOLOCATION:
		/* its classes of queriers as a nets map (authority_geo.c) */
		plugin = "geoip";
		if (authority_geo_gdnsd(c, x, res) == -1)
			return 0;
		break;
	default:
		authority_refuse(c, x,
				 x->policy == AUTHD_EXPORT_LATENCY
				     ? "latency: its plugins choose by health, weights or the "
				       "querier's network, not by measured round trips"
				     : "proximity: its plugins choose by health, weights or the "
				       "querier's network, not by round trips measured from the "
				       "sites");
		return 0;
	}
	/* the name's TTL as both MAX and MIN: fixed, as authd's */
	fprintf(zone, "%s %u/%u DYNA %s!%s\n", x->owner, x->ttl, x->ttl, plugin, res);
	return 0;
}

int authority_gdnsd_conf(struct authority_ctx *c)
{
	const struct topology *t = c->t;
	const struct topo_node *node = &t->nodes[c->node];
	char addr[AUTHORITY_LISTEN_LEN];
	FILE *fp = authority_conf_open(c, "config", addr);

	if (fp == NULL)
		return -1;
	fprintf(fp,
		"# [dns %s] of %s, impl = gdnsd: written by steerlab (docs/authorities.md)\n"
		"options => {\n"
		"  listen => [ %s ]\n"
		"  run_dir => %s/run\n"
		"  state_dir => %s/state\n"
		"  # the names' TTLs as the topology says them (its default clamps below 5 s)\n"
		"  min_ttl => 0\n"
		"}\n"
		"# every site's request port, connected to and closed (no request)\n"
		"service_types => {\n"
		"  steerlab => {\n"
		"    plugin => tcp_connect\n"
		"    port => %u\n"
		"    interval => %lld\n"
		"    timeout => %lld\n"
		"    down_thresh => %u\n"
		"    up_thresh => %u\n"
		"  }\n"
		"}\n"
		"plugins => {\n",
		node->name, t->path, addr, c->namedir, c->namedir, (unsigned)t->port,
		(long long)(node->check_interval_ns / NSEC_PER_SEC),
		(long long)(node->check_timeout_ns / NSEC_PER_SEC), node->check_down,
		node->check_up);
	if (c->metafo_len)
		fprintf(fp,
			"  metafo => {\n    service_types => steerlab\n    resources => {\n%s    "
			"}\n  }\n",
			c->metafo_buf);
	if (c->multifo_len)
		fprintf(fp, "  multifo => {\n    service_types => steerlab\n%s  }\n",
			c->multifo_buf);
	if (c->weighted_len)
		fprintf(fp, "  weighted => {\n    service_types => steerlab\n%s  }\n",
			c->weighted_buf);
	if (c->geoip_res_len)
		fprintf(fp,
			"  geoip => {\n    maps => {\n%s    }\n    resources => {\n%s    }\n  "
			"}\n",
			c->geoip_maps_buf, c->geoip_res_buf);
	fputs("}\n", fp);
	if (fclose(fp) == EOF) {
		log_warn("%s: %s/config", __func__, c->dir);
		return -1;
	}
	return 0;
}
