/* authd's zone data: nodes, the name hash, delegations and glue; see db.h. */
#include "db.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct authd_db *authd_db_new(void)
{
	struct authd_db *db = calloc(1, sizeof(*db));

	if (db == NULL)
		return NULL;
	db->server.quorum = 0.5;
	db->server.all_dead = AUTHD_FAIL_OPEN;
	db->server.udp_max = 1232;
	db->server.tcp_idle_ns = 10LL * 1000000000LL;
	db->server.proximity_stale_ns = 3LL * 1000000000LL;
	db->server.tcp_max = 128;
	return db;
}

static void authd_node_free(struct authd_node *n)
{
	for (int i = 0; i < n->nrrsets; i++) {
		knot_rdataset_clear(&n->rrsets[i].rr.rrs, NULL); /* the owner is n->owner */
		free(n->rrsets[i].extra);
	}
	free(n->rrsets);
	free(n->owner);
	free(n);
}

void authd_db_free(struct authd_db *db)
{
	if (db == NULL)
		return;
	for (size_t i = 0; i < db->nnodes; i++)
		authd_node_free(db->nodes[i]);
	free(db->nodes);
	free(db->hash);
	for (int i = 0; i < db->nzones; i++) { /* soa shares the apex node's rdata */
		free(db->zones[i]->apex);
		free(db->zones[i]);
	}
	free(db->zones);
	for (int i = 0; i < db->nsites; i++)
		for (int f = 0; f < 2; f++)
			knot_rdataset_clear(&db->sites[i].rrs[f], NULL);
	for (int i = 0; i < db->nnames; i++) {
		free(db->names[i]->owner);
		free(db->names[i]->geo);
		free(db->names[i]->vantage);
		for (int k = 0; k < db->names[i]->ntiers; k++)
			free(db->names[i]->tiers[k].cname);
		free(db->names[i]->tiers);
		free(db->names[i]);
	}
	free(db->names);
	for (int i = 0; i < db->nprobers; i++)
		free(db->probers[i]);
	free(db->probers);
	free(db);
}

uint32_t authd_db_hash(const uint8_t *name, size_t len)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < len; i++) {
		h ^= name[i];
		h *= 16777619u;
	}
	return h;
}

static struct authd_node **authd_db_slot(struct authd_node **hash, size_t mask, uint32_t h,
					 const uint8_t *name, size_t len)
{
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct authd_node *n = hash[i];

		if (n == NULL ||
		    (n->hash == h && n->owner_len == len && memcmp(n->owner, name, len) == 0))
			return &hash[i];
	}
}

const struct authd_node *authd_db_find(const struct authd_db *db, const knot_dname_t *name)
{
	size_t len = knot_dname_size(name);

	if (db->hash == NULL || len == 0)
		return NULL;
	return *authd_db_slot(db->hash, db->hash_mask, authd_db_hash(name, len), name, len);
}

/* authd_db_hash_build: a table of cap slots for the nodes */
static int authd_db_hash_build(struct authd_db *db, size_t cap)
{
	struct authd_node **hash = calloc(cap, sizeof(*hash));

	if (hash == NULL)
		return -1;
	for (size_t i = 0; i < db->nnodes; i++) {
		struct authd_node *n = db->nodes[i];

		*authd_db_slot(hash, cap - 1, n->hash, n->owner, n->owner_len) = n;
	}
	free(db->hash);
	db->hash = hash;
	db->hash_mask = cap - 1;
	return 0;
}

/* authd_db_grow: keeps the table at most half full. */
static int authd_db_grow(struct authd_db *db)
{
	size_t cap = db->hash ? (db->hash_mask + 1) * 2 : 64;

	if (db->hash && db->nnodes + 1 <= (db->hash_mask + 1) / 2)
		return 0;
	return authd_db_hash_build(db, cap);
}

int authd_db_remove_node(struct authd_db *db, struct authd_node *n)
{
	size_t i;

	for (i = 0; i < db->nnodes && db->nodes[i] != n; i++)
		;
	if (i == db->nnodes)
		return -1;
	memmove(&db->nodes[i], &db->nodes[i + 1], (db->nnodes - i - 1) * sizeof(db->nodes[0]));
	db->nnodes--;
	/* open addressing: the table is built again rather than holed; out
	 * of memory, the old one (with n) stays */
	if (authd_db_hash_build(db, db->hash_mask + 1) == -1) {
		db->nodes[db->nnodes++] = n;
		return -1;
	}
	authd_node_free(n);
	return 0;
}

struct authd_node *authd_db_node(struct authd_db *db, const knot_dname_t *name, int create)
{
	size_t len = knot_dname_size(name);
	uint32_t h = authd_db_hash(name, len);
	struct authd_node **slot, *n;

	if (db->hash) {
		slot = authd_db_slot(db->hash, db->hash_mask, h, name, len);
		if (*slot || !create)
			return *slot;
	} else if (!create) {
		return NULL;
	}
	if (authd_db_grow(db) == -1)
		return NULL;
	if (db->nnodes == db->nodes_cap) {
		size_t cap = db->nodes_cap ? db->nodes_cap * 2 : 64;
		struct authd_node **nodes = realloc(db->nodes, cap * sizeof(*nodes));

		if (nodes == NULL)
			return NULL;
		db->nodes = nodes;
		db->nodes_cap = cap;
	}
	n = calloc(1, sizeof(*n));
	if (n == NULL || (n->owner = knot_dname_copy(name, NULL)) == NULL) {
		free(n);
		return NULL;
	}
	n->owner_len = len;
	n->hash = h;
	db->nodes[db->nnodes++] = n;
	*authd_db_slot(db->hash, db->hash_mask, h, name, len) = n;
	return n;
}

const struct authd_node *authd_db_encloser(const struct authd_db *db, const knot_dname_t *name,
					   int *exact)
{
	*exact = 1;
	for (;;) {
		const struct authd_node *n = authd_db_find(db, name);

		if (n)
			return n;
		if (*name == 0)
			return NULL;
		name += *name + 1;
		*exact = 0;
	}
}

struct authd_zone *authd_db_zone_of(const struct authd_db *db, const knot_dname_t *name)
{
	struct authd_zone *best = NULL;
	size_t best_labels = 0;

	for (int i = 0; i < db->nzones; i++) {
		size_t labels = knot_dname_labels(db->zones[i]->apex, NULL);

		if (knot_dname_in_bailiwick(name, db->zones[i]->apex) >= 0 &&
		    (best == NULL || labels > best_labels)) {
			best = db->zones[i];
			best_labels = labels;
		}
	}
	return best;
}

const struct authd_rrset *authd_node_rrset(const struct authd_node *n, uint16_t type)
{
	for (int i = 0; i < n->nrrsets; i++)
		if (n->rrsets[i].rr.type == type)
			return &n->rrsets[i];
	return NULL;
}

int authd_db_add_rdata(struct authd_node *n, uint16_t type, uint32_t ttl, const uint8_t *rdata,
		       uint16_t len, int line, int *first_line)
{
	struct authd_rrset *rs = (struct authd_rrset *)authd_node_rrset(n, type);

	if (rs == NULL) {
		struct authd_rrset *v = realloc(n->rrsets, (n->nrrsets + 1) * sizeof(*v));

		if (v == NULL)
			return -1;
		n->rrsets = v;
		rs = &v[n->nrrsets++];
		memset(rs, 0, sizeof(*rs));
		knot_rrset_init(&rs->rr, n->owner, type, KNOT_CLASS_IN, ttl);
		rs->line = line;
	} else if (rs->rr.ttl != ttl) {
		*first_line = rs->line;
		return -2;
	}
	return knot_rrset_add_rdata(&rs->rr, rdata, len, NULL) == KNOT_EOK ? 0 : -1;
}

int authd_prefix_match(const struct addr_prefix *p, int family, const uint8_t *addr)
{
	unsigned full = p->len / 8, rest = p->len % 8;

	if (p->family != family)
		return 0;
	if (memcmp(p->addr, addr, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((p->addr[full] ^ addr[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

const char *authd_policy_name(enum authd_policy_kind k)
{
	static const char *names[] = {"simple",	     "multivalue", "failover", "weighted",
				      "geolocation", "latency",	   "proximity"};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

/*
 * Finalizing.
 */

static void authd_db_error(int *nerr, const char *path, FILE *err, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void authd_db_error(int *nerr, const char *path, FILE *err, int line, const char *fmt, ...)
{
	va_list ap;

	(*nerr)++;
	if (line > 0)
		fprintf(err, "%s:%d: ", path, line);
	else
		fprintf(err, "%s: ", path);
	va_start(ap, fmt);
	vfprintf(err, fmt, ap);
	va_end(ap);
	fputc('\n', err);
}

/* authd_db_ents: every ancestor of every node, up to its zone's apex, is a
 * node; each node knows its zone. */
static int authd_db_ents(struct authd_db *db)
{
	size_t n = db->nnodes; /* ancestors added now need no further walk */

	for (size_t i = 0; i < n; i++) {
		struct authd_node *node = db->nodes[i];
		struct authd_zone *z = authd_db_zone_of(db, node->owner);
		const knot_dname_t *name = node->owner;

		node->zone = z;
		if (z == NULL)
			continue;
		while (!knot_dname_is_equal(name, z->apex)) {
			struct authd_node *up;

			name += *name + 1;
			up = authd_db_node(db, name, 1);
			if (up == NULL)
				return -1;
			if (up->zone)
				break; /* it and its ancestors are done */
			up->zone = z;
			if (up->line == 0)
				up->line = node->line;
		}
	}
	for (size_t i = n; i < db->nnodes; i++)
		if (db->nodes[i]->zone == NULL)
			db->nodes[i]->zone = authd_db_zone_of(db, db->nodes[i]->owner);
	return 0;
}

/* authd_db_cuts: a node with NS below its apex is a delegation; every node
 * at or below it refers to the highest one. */
static void authd_db_cuts(struct authd_db *db)
{
	for (size_t i = 0; i < db->nnodes; i++) {
		struct authd_node *node = db->nodes[i];
		const knot_dname_t *name = node->owner;

		node->cut = NULL;
		if (node->zone == NULL)
			continue;
		while (!knot_dname_is_equal(name, node->zone->apex)) {
			const struct authd_node *up = authd_db_find(db, name);

			if (up && authd_node_rrset(up, KNOT_RRTYPE_NS))
				node->cut = (struct authd_node *)up;
			name += *name + 1;
		}
	}
}

static int authd_db_add_extra(struct authd_rrset *rs, const knot_rrset_t *rr)
{
	const knot_rrset_t **v = realloc(rs->extra, (rs->nextra + 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	v[rs->nextra++] = rr;
	rs->extra = v;
	return 0;
}

/* authd_rdata_target: the name in an NS, MX or SRV rdata. */
static const knot_dname_t *authd_rdata_target(uint16_t type, const knot_rdata_t *rd)
{
	switch (type) {
	case KNOT_RRTYPE_NS:
		return rd->data;
	case KNOT_RRTYPE_MX:
		return rd->len > 2 ? rd->data + 2 : NULL;
	case KNOT_RRTYPE_SRV:
		return rd->len > 6 ? rd->data + 6 : NULL;
	default:
		return NULL;
	}
}

/* authd_db_glue: each NS, MX or SRV RRset gets the A and AAAA RRsets of
 * its targets that are in the same zone (for a delegation: glue); what it
 * had before is dropped (a change may have moved them). */
static int authd_db_glue(struct authd_db *db)
{
	for (size_t i = 0; i < db->nnodes; i++)
		for (int j = 0; j < db->nodes[i]->nrrsets; j++) {
			free(db->nodes[i]->rrsets[j].extra);
			db->nodes[i]->rrsets[j].extra = NULL;
			db->nodes[i]->rrsets[j].nextra = 0;
		}
	for (size_t i = 0; i < db->nnodes; i++) {
		struct authd_node *node = db->nodes[i];

		for (int j = 0; j < node->nrrsets; j++) {
			struct authd_rrset *rs = &node->rrsets[j];
			knot_rdata_t *rd = rs->rr.rrs.rdata;

			for (uint16_t k = 0; k < rs->rr.rrs.count;
			     k++, rd = knot_rdataset_next(rd)) {
				const knot_dname_t *target = authd_rdata_target(rs->rr.type, rd);
				const struct authd_node *t;
				const struct authd_rrset *a;

				if (target == NULL || (t = authd_db_find(db, target)) == NULL ||
				    t->zone != node->zone)
					continue;
				/* glue for a delegation must come from at or below it, or
				 * from above all delegations: not from another cut */
				if (t->cut && t->cut != node->cut && t->cut != node)
					continue;
				if ((a = authd_node_rrset(t, KNOT_RRTYPE_A)) &&
				    authd_db_add_extra(rs, &a->rr) == -1)
					return -1;
				if ((a = authd_node_rrset(t, KNOT_RRTYPE_AAAA)) &&
				    authd_db_add_extra(rs, &a->rr) == -1)
					return -1;
			}
		}
	}
	return 0;
}

static void authd_db_check_node(const struct authd_node *node, int *nerr, const char *path,
				FILE *err)
{
	char owner[KNOT_DNAME_TXT_MAXLEN + 1];
	const struct authd_rrset *cname = authd_node_rrset(node, KNOT_RRTYPE_CNAME);

	knot_dname_to_str(owner, node->owner, sizeof(owner));
	if (cname && node->nrrsets > 1)
		authd_db_error(nerr, path, err, cname->line,
			       "%s has a CNAME and other records: a CNAME must be alone", owner);
	if (cname && node->name)
		authd_db_error(nerr, path, err, node->name->line,
			       "[name %s] also has a CNAME record (line %d)", owner, cname->line);
	if (node->name) {
		const struct authd_rrset *a = authd_node_rrset(node, KNOT_RRTYPE_A);
		const struct authd_rrset *aaaa = authd_node_rrset(node, KNOT_RRTYPE_AAAA);

		if (a || aaaa)
			authd_db_error(nerr, path, err, (a ? a : aaaa)->line,
				       "%s is a [name] with a policy: its A and AAAA records come "
				       "from its sites, not from 'record'",
				       owner);
		if (node->cut)
			authd_db_error(
			    nerr, path, err, node->name->line,
			    "[name %s] is at or below a delegation (NS records at a name "
			    "below the zone apex)",
			    owner);
	}
	if (node->cut && node->cut != node) {
		for (int i = 0; i < node->nrrsets; i++) {
			uint16_t t = node->rrsets[i].rr.type;

			if (t != KNOT_RRTYPE_A && t != KNOT_RRTYPE_AAAA)
				authd_db_error(
				    nerr, path, err, node->rrsets[i].line,
				    "%s is below a delegation: only A and AAAA glue may be "
				    "there",
				    owner);
		}
	}
	if (node->cut == node) {
		for (int i = 0; i < node->nrrsets; i++) {
			uint16_t t = node->rrsets[i].rr.type;

			if (t != KNOT_RRTYPE_NS && t != KNOT_RRTYPE_A && t != KNOT_RRTYPE_AAAA &&
			    t != KNOT_RRTYPE_DS)
				authd_db_error(
				    nerr, path, err, node->rrsets[i].line,
				    "%s is a delegation (it has NS records): only NS, DS "
				    "and glue may be there",
				    owner);
		}
	}
}

/* authd_db_site_rrs: each site's addresses as one rdataset per family. */
static int authd_db_site_rrs(struct authd_db *db)
{
	for (int i = 0; i < db->nsites; i++) {
		struct authd_site *s = &db->sites[i];

		for (int f = 0; f < 2; f++) {
			knot_rdataset_t *rrs = &s->rrs[f];
			size_t alen = f == AUTHD_V4 ? 4 : 16, each = knot_rdata_size(alen);
			uint8_t *p;

			knot_rdataset_clear(rrs, NULL);
			if (s->naddr[f] == 0)
				continue;
			/* in configuration order, not sorted: knot_rdataset_add
			 * would sort them */
			rrs->rdata = malloc(each * s->naddr[f]);
			if (rrs->rdata == NULL)
				return -1;
			p = (uint8_t *)rrs->rdata;
			for (int k = 0; k < s->naddr[f]; k++, p += each)
				knot_rdata_init((knot_rdata_t *)p, alen, s->addr[f][k]);
			rrs->count = s->naddr[f];
			rrs->size = each * s->naddr[f];
		}
	}
	return 0;
}

int authd_db_finalize(struct authd_db *db, const char *path, FILE *err)
{
	int nerr = 0;

	for (int i = 0; i < db->nzones; i++) {
		struct authd_zone *z = db->zones[i];

		z->apex_node = authd_db_node(db, z->apex, 1);
		if (z->apex_node == NULL)
			return -1;
		if (z->apex_node->line == 0)
			z->apex_node->line = z->line;
	}
	if (authd_db_refresh(db) == -1)
		return -1;
	for (size_t i = 0; i < db->nnodes; i++)
		authd_db_check_node(db->nodes[i], &nerr, path, err);
	if (authd_db_site_rrs(db) == -1)
		return -1;
	return nerr;
}

int authd_db_refresh(struct authd_db *db)
{
	if (authd_db_ents(db) == -1)
		return -1;
	authd_db_cuts(db);
	return authd_db_glue(db);
}
