/*
 * Inside lab/build/authority.c and authority_gdnsd.c: what writing one
 * [dns] node's configuration carries from zone to zone.
 */
#ifndef STEERLAB_AUTHORITY_INT_H
#define STEERLAB_AUTHORITY_INT_H

#include <netinet/in.h>
#include <stdio.h>

#include "agents/authd/authd_export.h"
#include "topology.h"

struct authority_ctx {
	const struct topology *t;
	int node;
	const char *dir;
	const char *namedir; /* the directory the configurations name (installed) */
	FILE *err;
	int bad; /* a refusal was said */
	/* pdns: named.conf's zone statements */
	FILE *named;
	/* gdnsd: each plugin's resources, written into config at the end */
	FILE *metafo, *multifo, *weighted, *geoip_maps, *geoip_res;
	char *metafo_buf, *multifo_buf, *weighted_buf, *geoip_maps_buf, *geoip_res_buf;
	size_t metafo_len, multifo_len, weighted_len, geoip_maps_len, geoip_res_len;
};

/* authority_has6: whether x is answered in AAAA too (the lab's ip =
 * dual): every site of it has an IPv6 address. authority_naddr: site s's
 * addresses of family (AF_INET, AF_INET6); authority_addr: its k-th as
 * text in buf */
int authority_has6(const struct authd_export_name *x);
/* authority_has4: every site of x has an IPv4 address (not so in a lab of
 * ip = 6: its names are AAAA alone) */
int authority_has4(const struct authd_export_name *x);
int authority_naddr(const struct authd_export_site *s, int family);
const char *authority_addr(const struct authd_export_site *s, int family, int k,
			   char buf[INET6_ADDRSTRLEN]);

/* authority_refuse: name x's policy, which the node's implementation
 * cannot express, said with why: "FILE:LINE: [name N] policy = P: IMPL
 * cannot express this (why)" */
void authority_refuse(struct authority_ctx *c, const struct authd_export_name *x, const char *why);

/* authority_conf_open: the server's configuration file `file` in c's
 * directory, new (said if it fails), and the addresses it listens on into
 * addr: the node's, its anycast one, its IPv6 one (ip = dual), each after
 * ", " */
#define AUTHORITY_LISTEN_LEN (2 * INET_ADDRSTRLEN + INET6_ADDRSTRLEN + 4)
FILE *authority_conf_open(const struct authority_ctx *c, const char *file,
			  char addr[AUTHORITY_LISTEN_LEN]);

/* authority_gdnsd_name: x as a DYNA record line of zone, its resource
 * into c's plugin streams. 0, or -1 if a file fails (a refusal is c->bad). */
int authority_gdnsd_name(struct authority_ctx *c, const struct authd_export_name *x, FILE *zone);

/* authority_gdnsd_dc: site s as a datacenter of gdnsd's metafo or geoip:
 * its addresses' list, or with IPv6 ones (v6) the list of each family */
void authority_gdnsd_dc(FILE *out, const struct authd_export_site *s, int v6);

/* authority_geo_lua: geolocation name x's choice of site as LUA code of
 * its addresses of family, after the code that sets `has` (every address
 * up); authority_geo_gdnsd: x as gdnsd's geoip resource res and its map,
 * into c's streams (-1: a refusal said). lab/build/authority_geo.c. */
void authority_geo_lua(const struct authd_export_name *x, int family, FILE *out);
int authority_geo_gdnsd(struct authority_ctx *c, const struct authd_export_name *x,
			const char *res);

/* authority_gdnsd_conf: gdnsd's config into dir (its plugins' resources
 * from c). 0 or -1. */
int authority_gdnsd_conf(struct authority_ctx *c);

#endif
