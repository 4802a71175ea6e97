/* A real authoritative server's configuration for a [dns] node: the zones,
 * PowerDNS's files, the checks (gdnsd's own: authority_gdnsd.c); see
 * authority.h. */
#include "authority.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "authority_int.h"
#include "dnsconf.h"
#include "lab.h"
#include "log.h"
#include "rmtree.h"
#include "zone_change.h"
#include "strfmt.h"
#include "subproc.h"
#include "timeutil.h"

/* a master file's quoted string holds at most 255 bytes: the LUA code is
 * written in segments, which PowerDNS joins */
#define AUTHORITY_SEGMENT 200

int authority_node(const struct topology *t, int n)
{
	return t->nodes[n].kind == TOPO_DNS && t->nodes[n].dns_impl != TOPO_DNS_AUTHD;
}

int authority_any(const struct topology *t)
{
	for (int n = 0; n < t->nnodes; n++)
		if (authority_node(t, n))
			return 1;
	return 0;
}

void authority_refuse(struct authority_ctx *c, const struct authd_export_name *x, const char *why)
{
	fprintf(c->err, "%s:%d: [name %.*s] policy = %s: %s cannot express this (%s)\n", c->t->path,
		x->line, (int)strlen(x->owner) - 1, x->owner, x->policy_name,
		topo_dns_impl_name(c->t->nodes[c->node].dns_impl), why);
	c->bad = 1;
}

int authority_has4(const struct authd_export_name *x)
{
	/* ip = 6: the sites have IPv6 addresses alone */
	for (int i = 0; i < x->nsites; i++)
		if (x->sites[i].naddr == 0)
			return 0;
	return x->nsites > 0;
}

int authority_has6(const struct authd_export_name *x)
{
	/* a site without one (a front door: refused with pdns and gdnsd) and
	 * a name of none are answered in A alone */
	for (int i = 0; i < x->nsites; i++)
		if (x->sites[i].naddr6 == 0)
			return 0;
	return x->nsites > 0;
}

int authority_naddr(const struct authd_export_site *s, int family)
{
	return family == AF_INET6 ? s->naddr6 : s->naddr;
}

const char *authority_addr(const struct authd_export_site *s, int family, int k,
			   char buf[INET6_ADDRSTRLEN])
{
	if (family == AF_INET6)
		return inet_ntop(AF_INET6, &s->addr6[k], buf, INET6_ADDRSTRLEN);
	return inet_ntop(AF_INET, &s->addr[k], buf, INET6_ADDRSTRLEN);
}

/* authority_addrs: Lua's list of the addresses of family of sites [from,
 * to) of x: {'a1', 'a2'} */
static void authority_addrs(FILE *out, const struct authd_export_name *x, int family, int from,
			    int to)
{
	char buf[INET6_ADDRSTRLEN];
	int first = 1;

	fputc('{', out);
	for (int i = from; i < to; i++)
		for (int k = 0; k < authority_naddr(&x->sites[i], family); k++) {
			fprintf(out, "%s'%s'", first ? "" : ", ",
				authority_addr(&x->sites[i], family, k, buf));
			first = 0;
		}
	fputc('}', out);
}

/* authority_lua: the LUA code of x's policy over its addresses of family
 * (the A record's or the AAAA's) into out; -1 if pdns cannot express it
 * (said) */
static int authority_lua(struct authority_ctx *c, const struct authd_export_name *x, int family,
			 FILE *out)
{
	const struct topo_node *node = &c->t->nodes[c->node];

	if (x->fail_closed) {
		authority_refuse(c, x,
				 "all_dead = fail-closed: an ifportup() with no site up answers "
				 "every address, as fail-open does");
		return -1;
	}
	switch (x->policy) {
	case AUTHD_EXPORT_LATENCY:
		authority_refuse(c, x,
				 "latency: pickclosest() ranks addresses by a GeoIP database's "
				 "coordinates, not by measured round trips");
		return -1;
	case AUTHD_EXPORT_PROXIMITY:
		authority_refuse(c, x,
				 "proximity: no Lua function of PowerDNS's hears the round "
				 "trips the sites measure to its queriers");
		return -1;
	case AUTHD_EXPORT_WEIGHTED:
		if (x->pattern) {
			authority_refuse(c, x,
					 "pattern: pickwrandom() draws each answer at random, it "
					 "keeps no rotation");
			return -1;
		}
		break;
	default:
		break;
	}
	/* the sites' addresses that answer: ifportup() with every one, all
	 * when none does (backupSelector), as authd's fail-open */
	fprintf(out, ";local up = ifportup(%u, ", (unsigned)c->t->port);
	authority_addrs(out, x, family, 0, x->nsites);
	fprintf(out,
		", {selector='all', backupSelector='all', timeout='%lld'}) local has = {} for _, a "
		"in ipairs(up) do has[a] = true end ",
		(long long)(node->check_timeout_ns / NSEC_PER_SEC));
	switch (x->policy) {
	case AUTHD_EXPORT_FAILOVER:
		/* the first site in order with an address up */
		fputs("for _, s in ipairs({", out);
		for (int i = 0; i < x->nsites; i++) {
			fputs(i ? ", " : "", out);
			authority_addrs(out, x, family, i, i + 1);
		}
		fputs("}) do local r = {} for _, a in ipairs(s) do if has[a] then table.insert(r, "
		      "a) end end if #r > 0 then return r end end return up",
		      out);
		break;
	case AUTHD_EXPORT_WEIGHTED: {
		char buf[INET6_ADDRSTRLEN];
		int first = 1;

		fputs("local w = {} for _, e in ipairs({", out);
		for (int i = 0; i < x->nsites; i++)
			for (int k = 0; k < authority_naddr(&x->sites[i], family); k++) {
				fprintf(out, "%s{%u, '%s'}", first ? "" : ", ", x->sites[i].weight,
					authority_addr(&x->sites[i], family, k, buf));
				first = 0;
			}
		fputs("}) do if has[e[2]] and e[1] > 0 then table.insert(w, e) end end if #w == 0 "
		      "then return up end return pickwrandom(w)",
		      out);
		break;
	}
	case AUTHD_EXPORT_GEOLOCATION:
		authority_geo_lua(x, family, out);
		break;
	default: /* multivalue: every site up */
		fputs("return up", out);
		break;
	}
	return 0;
}

/* authority_lua_record: x's LUA record of type (A, AAAA) over its
 * addresses of family into zone; 0, or -1 if memory fails or pdns cannot
 * express x (said, counted in c->bad) */
static int authority_lua_record(struct authority_ctx *c, const struct authd_export_name *x,
				int family, FILE *zone)
{
	char *code = NULL;
	size_t len = 0, at = 0;
	FILE *out;
	int rc;

	if ((out = open_memstream(&code, &len)) == NULL)
		return -1;
	rc = authority_lua(c, x, family, out);
	if (fclose(out) == EOF || rc == -1) {
		free(code);
		return -1;
	}
	fprintf(zone, "%s %u IN LUA %s (", x->owner, x->ttl, family == AF_INET6 ? "AAAA" : "A");
	while (at < len) {
		size_t n = len - at;

		/* cut after a space, which the segments keep */
		if (n > AUTHORITY_SEGMENT) {
			n = AUTHORITY_SEGMENT;
			while (n > 1 && code[at + n - 1] != ' ')
				n--;
		}
		fprintf(zone, "\n\t\"%.*s\"", (int)n, code + at);
		at += n;
	}
	fputs(" )\n", zone);
	free(code);
	return 0;
}

/* authority_name: x as the record lines of its zone file: A, and AAAA
 * when its sites have IPv6 addresses, by the same policy */
static int authority_name(struct authority_ctx *c, const struct authd_export_name *x, FILE *zone)
{
	char buf[INET6_ADDRSTRLEN];
	int v6 = authority_has6(x), bad = c->bad;

	if (x->policy != AUTHD_EXPORT_SIMPLE && c->t->nodes[c->node].dns_impl == TOPO_DNS_GDNSD)
		return authority_gdnsd_name(c, x, zone);
	if (x->policy == AUTHD_EXPORT_SIMPLE) {
		/* its sites, unchecked, as authd hands them out */
		for (int f = authority_has4(x) ? 0 : 1; f < (v6 ? 2 : 1); f++) {
			int family = f ? AF_INET6 : AF_INET;

			for (int i = 0; i < x->nsites; i++)
				for (int k = 0; k < authority_naddr(&x->sites[i], family); k++)
					fprintf(zone, "%s %u IN %s %s\n", x->owner, x->ttl,
						f ? "AAAA" : "A",
						authority_addr(&x->sites[i], family, k, buf));
		}
		return 0;
	}
	/* ip = 6: AAAA alone */
	if ((authority_has4(x) && authority_lua_record(c, x, AF_INET, zone) == -1) ||
	    (v6 && authority_lua_record(c, x, AF_INET6, zone) == -1))
		return c->bad > bad ? 0 : -1; /* a refusal is counted in c->bad */
	return 0;
}

/* authority_zone: authd_export_fn: the zone's file and its named.conf entry */
static int authority_zone(void *arg, const char *apex, const char *records,
			  const struct authd_export_name *names, int n)
{
	struct authority_ctx *c = arg;
	char file[300];
	FILE *zone;
	int rc = 0;

	int gdnsd = c->t->nodes[c->node].dns_impl == TOPO_DNS_GDNSD, root = strcmp(apex, ".") == 0;

	/* pdns: lab.example. as lab.example.zone, the root as root.zone;
	 * gdnsd: zones/lab.example, zones/ROOT_ZONE, as it names them */
	if (gdnsd)
		strfmt(file, sizeof(file), "zones/%.*s", root ? 9 : (int)strlen(apex) - 1,
		       root ? "ROOT_ZONE" : apex);
	else
		strfmt(file, sizeof(file), "%.*szone", root ? 5 : (int)strlen(apex),
		       root ? "root." : apex);
	if ((zone = lab_fopen_write(c->dir, file)) == NULL) {
		log_warn("%s: %s/%s", __func__, c->dir, file);
		return -1;
	}
	/* every owner absolute (gdnsd takes no $ORIGIN outside the zone) */
	fprintf(zone, "; zone %s of [dns %s], written by steerlab from %s\n%s%s", apex,
		c->t->nodes[c->node].name, c->t->path, gdnsd ? "" : "$ORIGIN .\n", records);
	for (int i = 0; i < n && rc == 0; i++)
		rc = authority_name(c, &names[i], zone);
	if (fclose(zone) == EOF || rc == -1) {
		log_warn("%s: %s/%s", __func__, c->dir, file);
		return -1;
	}
	if (c->named)
		fprintf(c->named, "zone \"%s\" { type master; file \"%s/%s\"; };\n", apex,
			c->namedir, file);
	return 0;
}

FILE *authority_conf_open(const struct authority_ctx *c, const char *file,
			  char addr[AUTHORITY_LISTEN_LEN])
{
	const struct topo_node *node = &c->t->nodes[c->node];
	FILE *fp = lab_fopen_write(c->dir, file);
	char any[INET_ADDRSTRLEN], any6[INET6_ADDRSTRLEN];

	if (fp == NULL) {
		log_warn("%s: %s/%s", __func__, c->dir, file);
		return NULL;
	}
	addr[0] = '\0';
	if (topo_v4(c->t))
		inet_ntop(AF_INET, &c->t->links[node->link].node_addr, addr, INET_ADDRSTRLEN);
	/* an anycast name server listens on its anycast address too */
	if (node->anycast.s_addr != 0)
		snprintf(addr + strlen(addr), AUTHORITY_LISTEN_LEN - strlen(addr), ", %s",
			 inet_ntop(AF_INET, &node->anycast, any, sizeof(any)));
	/* ip = dual: on its link's IPv6 address too, as authd (ip = 6: that
	 * alone) */
	if (topo_v6(c->t))
		snprintf(
		    addr + strlen(addr), AUTHORITY_LISTEN_LEN - strlen(addr), "%s%s",
		    addr[0] ? ", " : "",
		    inet_ntop(AF_INET6, &c->t->links[node->link].node_addr6, any6, sizeof(any6)));
	return fp;
}

/* authority_pdns_conf: pdns.conf into c's directory */
static int authority_pdns_conf(const struct authority_ctx *c)
{
	const struct topology *t = c->t;
	const struct topo_node *node = &t->nodes[c->node];
	const char *dir = c->dir;
	char addr[AUTHORITY_LISTEN_LEN];
	FILE *fp = authority_conf_open(c, "pdns.conf", addr);

	if (fp == NULL)
		return -1;
	fprintf(fp,
		"# [dns %s] of %s, impl = pdns: written by steerlab (docs/authorities.md)\n"
		"launch=bind\n"
		"bind-config=%s/named.conf\n"
		"enable-lua-records=yes\n"
		"lua-health-checks-interval=%lld\n"
		"local-address=%s\n"
		"local-port=53\n"
		"socket-dir=%s\n"
		"setuid=%s\n"
		"setgid=%s\n"
		"daemon=no\n"
		"guardian=no\n"
		"disable-syslog=yes\n"
		"loglevel=6\n"
		"disable-axfr=yes\n"
		"webserver=no\n"
		"security-poll-suffix=\n",
		node->name, t->path, dir, (long long)(node->check_interval_ns / NSEC_PER_SEC), addr,
		dir, AUTHORITY_PDNS_USER, AUTHORITY_PDNS_USER);
	if (fclose(fp) == EOF) {
		log_warn("%s: %s/pdns.conf", __func__, dir);
		return -1;
	}
	return 0;
}

/* authority_node_changes: the timeline's DNS changes to node n, their
 * [event]s' indices into events[0..max) in time order; how many */
static int authority_node_changes(const struct topology *t, int n, int *events, int max)
{
	int k = 0;

	for (int e = 0; e < t->nevents; e++) {
		const struct topo_event *ev = &t->events[e];
		int at;

		if (ev->action < TOPO_A_SET_TTL || ev->action > TOPO_A_REMOVE_RECORD ||
		    ev->node != n || k == max)
			continue;
		/* in time order, file order among equals */
		for (at = k; at > 0 && t->events[events[at - 1]].at_ns > ev->at_ns; at--)
			events[at] = events[at - 1];
		events[at] = e;
		k++;
	}
	return k;
}

/* authority_check_changes: node n's files as its DNS changes leave them,
 * applied in time order as the run will, into dir (for the product's own
 * check); one refused said at its [event]'s line. 0, or -1. */
static int authority_check_changes(const struct topology *t, int n, const char *dir, FILE *err)
{
	static struct zone_change list[TOPO_MAX_EVENTS];
	int events[TOPO_MAX_EVENTS];
	struct authd_export_changes ch = {.c = list};
	const struct topo_event *ev;

	ch.n = authority_node_changes(t, n, events, TOPO_MAX_EVENTS);
	if (ch.n == 0)
		return 0;
	for (int i = 0; i < ch.n; i++)
		topo_event_change(&t->events[events[i]], &list[i]);
	if (authority_write_changed(t, n, dir, NULL, &ch, err) == 0)
		return 0;
	if (!ch.ok) {
		ev = &t->events[events[ch.failed]];
		fprintf(err, "%s:%d: [event %s] action = %s: [dns %s] would refuse it: %s\n",
			t->path, ev->line, ev->name, topo_action_name(ev->action), t->nodes[n].name,
			ch.reason);
	}
	return -1;
}

/* authority_check_node: the node's checks as its implementation counts
 * them: whole seconds; PowerDNS 4.7 one failure and one success, gdnsd a
 * timeout below its interval (said) */
static int authority_check_node(const struct topology *t, int n, FILE *err)
{
	const struct topo_node *node = &t->nodes[n];
	const char *impl = topo_dns_impl_name(node->dns_impl);
	int bad = 0, gdnsd = node->dns_impl == TOPO_DNS_GDNSD;

	if (node->check_interval_ns % NSEC_PER_SEC || node->check_interval_ns < NSEC_PER_SEC ||
	    (gdnsd && node->check_interval_ns > 255 * NSEC_PER_SEC)) {
		fprintf(err,
			"%s:%d: [dns %s] check_interval = %.3f s: %s checks every whole "
			"second (%s): expected 1s, 2s, ...%s\n",
			t->path, node->line, node->name, (double)node->check_interval_ns / 1e9,
			impl, gdnsd ? "service_types interval" : "lua-health-checks-interval",
			gdnsd ? " up to 255s" : "");
		bad = 1;
	}
	if (node->check_timeout_ns % NSEC_PER_SEC || node->check_timeout_ns < NSEC_PER_SEC ||
	    (gdnsd && node->check_timeout_ns >= node->check_interval_ns)) {
		fprintf(err,
			"%s:%d: [dns %s] check_timeout = %.3f s: %s takes whole seconds%s: "
			"expected 1s, 2s, ...%s\n",
			t->path, node->line, node->name, (double)node->check_timeout_ns / 1e9, impl,
			gdnsd ? ", below the interval" : " (ifportup's timeout)",
			gdnsd ? " less than check_interval" : "");
		bad = 1;
	}
	if (!gdnsd && (node->check_down != 1 || node->check_up != 1)) {
		fprintf(err,
			"%s:%d: [dns %s] check_down = %u, check_up = %u: pdns 4.7 takes one "
			"failed check for down and one passed for up: expected 1 and 1\n",
			t->path, node->line, node->name, node->check_down, node->check_up);
		bad = 1;
	}
	return bad ? -1 : 0;
}

/* authority_streams: gdnsd's plugin streams open (1) or closed (0: what
 * they hold kept in c's buffers). 0, or -1. */
static int authority_streams(struct authority_ctx *c, int open)
{
	FILE **f[] = {&c->metafo, &c->multifo, &c->weighted, &c->geoip_maps, &c->geoip_res};
	char **b[] = {&c->metafo_buf, &c->multifo_buf, &c->weighted_buf, &c->geoip_maps_buf,
		      &c->geoip_res_buf};
	size_t *l[] = {&c->metafo_len, &c->multifo_len, &c->weighted_len, &c->geoip_maps_len,
		       &c->geoip_res_len};
	int rc = 0;

	for (int i = 0; i < 5; i++) {
		if (open && (*f[i] = open_memstream(b[i], l[i])) == NULL)
			rc = -1;
		if (!open && *f[i] && fclose(*f[i]) == EOF)
			rc = -1;
		if (!open)
			*f[i] = NULL;
	}
	return rc;
}

int authority_write(const struct topology *t, int n, const char *dir, FILE *err)
{
	return authority_write_changed(t, n, dir, NULL, NULL, err);
}

int authority_write_changed(const struct topology *t, int n, const char *dir, const char *named,
			    struct authd_export_changes *ch, FILE *err)
{
	struct authority_ctx c = {
	    .t = t, .node = n, .dir = dir, .namedir = named ? named : dir, .err = err};
	int gdnsd = t->nodes[n].dns_impl == TOPO_DNS_GDNSD;
	char *text = NULL, zones[PATH_MAX];
	size_t len = 0;
	FILE *mem, *in;
	int rc = -1;

	if (authority_check_node(t, n, err) == -1)
		return -1;
	if ((mem = open_memstream(&text, &len)) == NULL)
		return -1;
	if (dnsconf_write(t, n, mem) == -1) {
		fclose(mem);
		free(text);
		return -1;
	}
	if (fclose(mem) == EOF || (in = fmemopen(text, len, "r")) == NULL) {
		free(text);
		return -1;
	}
	if (gdnsd) {
		strfmt(zones, sizeof(zones), "%s/zones", dir);
		if ((mkdir(zones, 0755) == -1 && errno != EEXIST) ||
		    authority_streams(&c, 1) == -1) {
			log_warn("%s: %s", __func__, zones);
			goto out;
		}
	} else if ((c.named = lab_fopen_write(dir, "named.conf")) == NULL) {
		log_warn("%s: %s/named.conf", __func__, dir);
		goto out;
	}
	rc = authd_export_stream_changed(in, t->path, err, ch, authority_zone, &c);
	if (c.named && fclose(c.named) == EOF)
		rc = -1;
	if (gdnsd && authority_streams(&c, 0) == -1)
		rc = -1;
	if (rc == 0 && !c.bad)
		rc = gdnsd ? authority_gdnsd_conf(&c) : authority_pdns_conf(&c);
	else
		rc = -1;
out:
	if (gdnsd)
		authority_streams(&c, 0);
	free(c.metafo_buf);
	free(c.multifo_buf);
	free(c.weighted_buf);
	free(c.geoip_maps_buf);
	free(c.geoip_res_buf);
	fclose(in);
	free(text);
	return rc;
}

/* authority_tool: the implementation's own check of dir's configuration
 * (pdnsutil check-all-zones, gdnsd checkconf), its output on out. 0 if it
 * passed. */
static int authority_tool(int impl, const char *dir, FILE *out)
{
	char arg[PATH_MAX + 16], *text = NULL;
	char *pdns[] = {"/usr/bin/pdnsutil", arg, "check-all-zones", NULL};
	char *gdnsd[] = {AUTHORITY_GDNSD_PROG, "-c", (char *)dir, "checkconf", NULL};
	int status;

	strfmt(arg, sizeof(arg), "--config-dir=%s", dir);
	status = subproc_capture(impl == TOPO_DNS_GDNSD ? gdnsd : pdns, -1, &text, NULL);
	if (status == 127 || status == -1)
		fprintf(out, "cannot run %s (sudo make deps)\n",
			impl == TOPO_DNS_GDNSD ? gdnsd[0] : pdns[0]);
	else if (text != NULL)
		fputs(text, out);
	free(text);
	return status == 0 ? 0 : -1;
}

/* authority_probers: a [prober] node reports to authd; with PowerDNS or
 * gdnsd alone there is none to report to (said) */
static int authority_probers(const struct topology *t, FILE *err)
{
	int authd = 0;

	for (int n = 0; n < t->nnodes; n++)
		authd |= t->nodes[n].kind == TOPO_DNS && t->nodes[n].dns_impl == TOPO_DNS_AUTHD;
	if (authd || !authority_any(t))
		return 0;
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].kind == TOPO_PROBER) {
			fprintf(
			    err,
			    "%s:%d: [prober %s] reports to authd, and every [dns] node runs "
			    "pdns or gdnsd, which check the sites themselves: expected no [prober] "
			    "node, or "
			    "a [dns] node with impl = authd\n",
			    t->path, t->nodes[n].line, t->nodes[n].name);
			return -1;
		}
	return 0;
}

int authority_check(const struct topology *t, FILE *err)
{
	int rc = authority_probers(t, err);

	for (int n = 0; n < t->nnodes; n++) {
		char dir[PATH_MAX], *out = NULL;
		size_t len = 0;
		FILE *mem;

		if (!authority_node(t, n))
			continue;
		if (rmtree_mkdtemp(dir, sizeof(dir), "steerlab-authority") == -1) {
			fprintf(err, "steerlab: node %s: a temporary directory: %s\n",
				t->nodes[n].name, strerror(errno));
			return -1;
		}
		/* the configuration it starts with, then (the tool checks the
		 * last) as the timeline's changes leave it */
		if (authority_write(t, n, dir, err) == -1 ||
		    authority_check_changes(t, n, dir, err) == -1) {
			rc = -1;
		} else if ((mem = open_memstream(&out, &len)) != NULL) {
			int impl = t->nodes[n].dns_impl, ok = authority_tool(impl, dir, mem);

			fclose(mem);
			if (ok == -1) {
				fprintf(
				    err,
				    "steerlab: node %s: %s rejected its configuration (%s):\n%s",
				    t->nodes[n].name, topo_dns_impl_name(impl),
				    impl == TOPO_DNS_GDNSD ? "gdnsd checkconf"
							   : "pdnsutil check-all-zones",
				    out ? out : "");
				rc = -1;
			}
			free(out);
		}
		rmtree_at(AT_FDCWD, dir, 1); /* gdnsd's zones/ */
	}
	return rc;
}
