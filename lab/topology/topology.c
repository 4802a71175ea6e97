/*
 * Topology files: the parser's driver (topology.h, docs/topology.md):
 * topo_load reads the file, makes a node of each section header, hands
 * each pair to topo_set (topology_set.c), then the checks
 * (topology_check.c). The helpers every file of the room shares are
 * topology_util.c's.
 *
 * lib/inifile.h reads the file: it hands us the section headers (a
 * [router core] may have no keys) and the pairs; p->in.lineno is the line
 * of the one handled.
 *
 * [zone NAME] and [name NAME] sections are authd's: their pairs are kept
 * as written, with their lines, and not interpreted here. So are the keys
 * of a [resolver] node that are resolverd's (t->rsv_pairs).
 */
#include "topology.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"
#include "topology_int.h"

static const char *topo_section_kinds =
    "expected [lab], [router NAME], [site NAME], [client NAME], [dns NAME], [prober NAME], "
    "[resolver NAME], [link ROUTER ROUTER], [event NAME], [host NAME], [zone NAME] or [name NAME]";

static void topo_node_header(struct topo_parse *p, enum topo_kind kind, const char *name)
{
	struct topology *t = p->t;
	struct topo_node *node;
	int other;

	p->headers[kind]++;
	if (topo_check_name(name) < 0) {
		topo_error(p, p->in.lineno, "[%s %s]: %s, got '%s'", topo_kind_name(kind), name,
			   TOPO_NAME_RULE, name);
		return;
	}
	if (strcmp(name, "lo") == 0) {
		topo_error(p, p->in.lineno, "[%s lo]: 'lo' is reserved for the loopback interface",
			   topo_kind_name(kind));
		return;
	}
	other = topo_find(t, name);
	if (other >= 0) {
		topo_error(p, p->in.lineno, "duplicate node name '%s' (first defined at line %d)",
			   name, t->nodes[other].line);
		return;
	}
	if (t->nnodes == TOPO_MAX_NODES) {
		topo_error(p, p->in.lineno, "too many nodes (at most %d)", TOPO_MAX_NODES);
		return;
	}
	node = &t->nodes[t->nnodes];
	memset(node, 0, sizeof(*node));
	node->kind = kind;
	snprintf(node->name, sizeof(node->name), "%s", name);
	node->line = p->in.lineno;
	node->link = -1;
	node->host = -1;
	node->resolver = -1;
	node->zipf_exponent = 1;
	node->quorum = 0.5;
	node->count = 1;
	node->dns_cache_ns = 60 * NSEC_PER_SEC; /* libcurl's own default */
	/* check_*: 0 until the implementation's defaults (topology_check.c) */
	p->sect = t->nnodes++;
}

/* topo_raw_header: [zone NAME] or [name NAME], kept for authd. */
static void topo_raw_header(struct topo_parse *p, const char *kind, const char *name)
{
	struct topology *t = p->t;
	struct topo_raw_section *r;
	const int max = (int)(sizeof(t->raw_sections) / sizeof(t->raw_sections[0]));

	if (p->raw_line == 0) {
		p->raw_line = p->in.lineno;
		snprintf(p->raw_label, sizeof(p->raw_label), "[%s %s]", kind, name);
	}
	if (strlen(name) >= sizeof(r->name)) {
		topo_error(p, p->in.lineno,
			   "[%s %.20s...]: expected a DNS name of at most %d characters", kind,
			   name, (int)sizeof(r->name) - 1);
		return;
	}
	if (t->nraw_sections == max) {
		if (!(p->raw_full & 1))
			topo_error(p, p->in.lineno, "too many [zone]/[name] sections (at most %d)",
				   max);
		p->raw_full |= 1;
		return;
	}
	r = &t->raw_sections[t->nraw_sections];
	snprintf(r->kind, sizeof(r->kind), "%s", kind);
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->line = p->in.lineno;
	p->raw = t->nraw_sections++;
	p->sect = TOPO_SECT_RAW;
}

/* topo_raw_pair: a pair of a [zone] or [name] section, as written. */
static void topo_raw_pair(struct topo_parse *p, const char *name, const char *value)
{
	struct topology *t = p->t;
	const struct topo_raw_section *r = &t->raw_sections[p->raw];
	struct topo_raw_pair *pair;

	if (strlen(name) >= sizeof(pair->key)) {
		topo_error(p, p->in.lineno,
			   "[%s %s]: expected a key of at most %d characters, got '%s'", r->kind,
			   r->name, (int)sizeof(pair->key) - 1, name);
		return;
	}
	if (strlen(value) >= sizeof(pair->value)) {
		topo_error(p, p->in.lineno, "[%s %s] %s: value too long (at most %d characters)",
			   r->kind, r->name, name, (int)sizeof(pair->value) - 1);
		return;
	}
	if (t->nraw_pairs == TOPO_MAX_RAW) {
		if (!(p->raw_full & 2))
			topo_error(p, p->in.lineno,
				   "too many keys in [zone]/[name] sections (at most %d)",
				   TOPO_MAX_RAW);
		p->raw_full |= 2;
		return;
	}
	pair = &t->raw_pairs[t->nraw_pairs++];
	pair->section = p->raw;
	snprintf(pair->key, sizeof(pair->key), "%s", name);
	snprintf(pair->value, sizeof(pair->value), "%s", value);
	pair->line = p->in.lineno;
}

/* topo_link_header: [link A B], kept by name: A and B may come later. */
static void topo_link_header(struct topo_parse *p, const char *a, const char *b)
{
	if (a == NULL || b == NULL || p->in.header_words != 3) {
		topo_error(p, p->in.lineno,
			   "expected two names: [link ROUTER ROUTER] or [link NODE ROUTER]");
		return;
	}
	if (topo_check_name(a) < 0 || topo_check_name(b) < 0) {
		topo_error(p, p->in.lineno, "[link %s %s]: %s, got '%s'", a, b, TOPO_NAME_RULE,
			   topo_check_name(a) < 0 ? a : b);
		return;
	}
	if (p->nrl == TOPO_MAX_RLINKS) {
		topo_error(p, p->in.lineno,
			   "too many [link] sections (at most %d: " ADDRPLAN_RLINKS_TEXT
			   " in /30s)",
			   TOPO_MAX_RLINKS);
		return;
	}
	snprintf(p->rl[p->nrl].a, sizeof(p->rl[p->nrl].a), "%s", a);
	snprintf(p->rl[p->nrl].b, sizeof(p->rl[p->nrl].b), "%s", b);
	p->rl[p->nrl].line = p->in.lineno;
	p->rl[p->nrl].rlink = -1;
	p->nrl++;
	p->sect = TOPO_SECT_LINK;
}

/* topo_header: a header's words. Sets p->sect. */
static void topo_header(struct topo_parse *p, const char *kind, const char *name, const char *extra)
{
	static const char *const kinds[TOPO_NKINDS] = {"router", "site",   "client",
						       "dns",	 "prober", "resolver"};

	p->sect = TOPO_SECT_SKIP;
	if (strcmp(kind, "lab") == 0) {
		if (name)
			topo_error(p, p->in.lineno, "[lab] takes no name (expected [lab])");
		else if (p->lab_line)
			topo_error(p, p->in.lineno, "duplicate [lab] section (first at line %d)",
				   p->lab_line);
		else
			p->sect = TOPO_SECT_LAB;
		if (p->sect == TOPO_SECT_LAB)
			p->lab_line = p->in.lineno;
		return;
	}
	for (int k = 0; k < TOPO_NKINDS; k++) {
		if (strcmp(kind, kinds[k]) != 0)
			continue;
		if (name == NULL || extra)
			topo_error(p, p->in.lineno, "expected one name: [%s NAME]", kind);
		else
			topo_node_header(p, (enum topo_kind)k, name);
		return;
	}
	if (strcmp(kind, "link") == 0) {
		topo_link_header(p, name, extra);
		return;
	}
	if (strcmp(kind, "event") == 0) {
		topo_event_header(p, name, extra);
		return;
	}
	if (strcmp(kind, "host") == 0) {
		topo_host_header(p, name, extra);
		return;
	}
	if (strcmp(kind, "zone") == 0 || strcmp(kind, "name") == 0) {
		if (strcmp(kind, "zone") == 0)
			p->zone_headers++;
		if (name == NULL || extra)
			topo_error(p, p->in.lineno, "expected one name: [%s NAME]", kind);
		else
			topo_raw_header(p, kind, name);
		return;
	}
	topo_error(p, p->in.lineno, "unknown section kind '%s' (%s)", kind, topo_section_kinds);
}

static int topo_section(void *arg, const char *kind, const char *name, const char *extra)
{
	struct topo_parse *p = arg;

	topo_header(p, kind, name, extra);
	return p->sect == TOPO_SECT_SKIP ? -1 : 0;
}

static void topo_pair(void *arg, const char *name, const char *value)
{
	struct topo_parse *p = arg;

	if (p->sect == TOPO_SECT_RAW)
		topo_raw_pair(p, name, value);
	else if (p->sect == TOPO_SECT_EVENT)
		topo_event_set(p, p->event, name, value, p->in.lineno);
	else if (p->sect == TOPO_SECT_LINK)
		topo_rlink_key(p, name, value);
	else if (p->sect == TOPO_SECT_HOST)
		topo_host_key(p, name, value);
	else
		topo_set(p, p->sect, name, value, p->in.lineno);
}

static void topo_defaults(struct topology *t)
{
	t->service = addrplan_service();
	t->service6 = addrplan6_service();
	t->port = 7000;
	t->fail_at_ns = 3 * NSEC_PER_SEC;
	t->duration_ns = 10 * NSEC_PER_SEC;
	t->settle_ns = 5 * NSEC_PER_SEC;
	t->seed = -1;	       /* random: drawn by the run, and recorded */
	t->capture_buffer = 0; /* auto: each link's by what it carries */
	t->rate = 1000;
	t->timeout_ns = 500 * NSEC_PER_MSEC;
	t->http_status = 200;
	t->probe_interval_ns = 100 * NSEC_PER_MSEC;
	t->probe_timeout_ns = 50 * NSEC_PER_MSEC;
	t->probe_down = 3;
	t->probe_up = 3;
	snprintf(t->dns_name, sizeof(t->dns_name), "www.lab.example");
	t->sticky_ns = 60 * NSEC_PER_SEC;
	t->static_refresh_ns = NSEC_PER_SEC;
	t->static_hold_ns = 3 * NSEC_PER_SEC; /* three refreshes, unless refresh is set */
	t->hop_delay_ns = TOPO_HOP_DELAY_NS;
	topo_bgp_defaults(t);
}

int topo_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err)
{
	struct topo_parse *p;
	char why[128];
	int nerrors;
	FILE *f;

	memset(t, 0, sizeof(*t));
	topo_defaults(t);
	if (strlen(path) >= sizeof(t->path)) {
		fprintf(err, "%.64s...: path too long\n", path);
		return -1;
	}
	snprintf(t->path, sizeof(t->path), "%s", path);
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		fprintf(err, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	p->t = t;
	p->sets = sets;
	p->sect = TOPO_SECT_NONE;
	p->in = (struct inifile){.path = path,
				 .err = err,
				 .max_errors = TOPO_MAX_ERRORS,
				 .flags = INI_INDENT,
				 .kinds = topo_section_kinds,
				 .section = topo_section,
				 .pair = topo_pair,
				 .arg = p};
	f = inifile_open(path, why, sizeof(why));
	if (f == NULL) {
		fprintf(err, "%s: %s\n", path, why);
		free(p);
		return -1;
	}
	inifile_read(&p->in, f);
	fclose(f);
	if (p->in.nerrors <= TOPO_MAX_ERRORS) {
		for (int i = 0; i < nsets; i++)
			topo_apply_set(p, i);
		topo_check(p);
	}
	nerrors = p->in.nerrors;
	free(p);
	return nerrors ? -1 : 0;
}
