/* authd's configuration read as data; see authd_export.h. */
#include "authd_export.h"

#include <stdlib.h>
#include <string.h>

#include "change.h"
#include "conf.h"
#include "db.h"

/* export_dump: rr as master-file text at the end of *out */
static int export_dump(FILE *out, const knot_rrset_t *rr)
{
	size_t len = 1024;
	char *buf = malloc(len);
	int n;

	if (buf == NULL)
		return -1;
	/* buf grows as the records need */
	if ((n = knot_rrset_txt_dump(rr, &buf, &len, &KNOT_DUMP_STYLE_DEFAULT)) < 0) {
		free(buf);
		return -1;
	}
	fputs(buf, out);
	free(buf);
	return 0;
}

/* export_node: every RRset of node n but its SOA (the zone's, first) */
static int export_node(FILE *out, const struct authd_node *n)
{
	for (int i = 0; i < n->nrrsets; i++)
		if (n->rrsets[i].rr.type != KNOT_RRTYPE_SOA &&
		    export_dump(out, &n->rrsets[i].rr) == -1)
			return -1;
	return 0;
}

/* export_below: whether zone c lies directly below z: its apex under z's,
 * and no other zone of db between them */
static int export_below(const struct authd_db *db, const struct authd_zone *z,
			const struct authd_zone *c)
{
	const knot_dname_t *parent;

	if (c == z || !knot_dname_in_bailiwick(c->apex, z->apex) ||
	    knot_dname_is_equal(c->apex, z->apex))
		return 0;
	parent = knot_wire_next_label(c->apex, NULL);
	return parent != NULL && authd_db_zone_of(db, parent) == z;
}

/* export_cut: zone c's delegation in its parent's file: its NS and the
 * addresses of their targets within c (glue) */
static int export_cut(FILE *out, const struct authd_zone *c)
{
	const struct authd_rrset *ns = authd_node_rrset(c->apex_node, KNOT_RRTYPE_NS);

	if (ns == NULL)
		return 0;
	if (export_dump(out, &ns->rr) == -1)
		return -1;
	for (int i = 0; i < ns->nextra; i++)
		if (export_dump(out, ns->extra[i]) == -1)
			return -1;
	return 0;
}

static void export_name(const struct authd_db *db, const struct authd_name *nm,
			struct authd_export_name *x)
{
	memset(x, 0, sizeof(*x));
	if (knot_dname_to_str(x->owner, nm->owner, sizeof(x->owner)) == NULL)
		x->owner[0] = '\0';
	x->line = nm->line;
	x->policy = (enum authd_export_policy)nm->policy;
	x->policy_name = authd_policy_name(nm->policy);
	x->ttl = nm->ttl;
	x->fail_closed = (nm->all_dead == AUTHD_FAIL_DEFAULT ? db->server.all_dead
							     : nm->all_dead) == AUTHD_FAIL_CLOSED;
	x->weighted_random = nm->weighted_random;
	x->pattern = nm->npattern;
	x->default_site = nm->default_site;
	for (int i = 0; i < nm->ngeo && x->ngeo < AUTHD_EXPORT_GEO; i++) {
		struct authd_export_geo *g = &x->geo[x->ngeo++];

		g->family = nm->geo[i].net.family;
		memcpy(g->net, nm->geo[i].net.addr, g->family == AF_INET6 ? 16 : 4);
		g->len = nm->geo[i].net.len;
		g->site = nm->geo[i].site;
	}
	x->nsites = nm->nsites;
	for (int i = 0; i < nm->nsites && i < AUTHD_EXPORT_SITES; i++) {
		const struct authd_site *s = &db->sites[nm->sites[i]];
		struct authd_export_site *e = &x->sites[i];

		x->fallback[i] = nm->fallback[i];
		snprintf(e->name, sizeof(e->name), "%s", s->name);
		e->weight = nm->weight[i];
		e->naddr = s->naddr[AUTHD_V4];
		e->naddr6 = s->naddr[AUTHD_V6];
		for (int k = 0; k < e->naddr; k++)
			memcpy(&e->addr[k], s->addr[AUTHD_V4][k], 4);
		for (int k = 0; k < e->naddr6; k++)
			memcpy(&e->addr6[k], s->addr[AUTHD_V6][k], 16);
	}
}

/* export_zone: zone z's text and names to fn */
static int export_zone(const struct authd_db *db, const struct authd_zone *z, authd_export_fn fn,
		       void *arg)
{
	char *text = NULL, apex[KNOT_DNAME_TXT_MAXLEN + 1];
	size_t len = 0;
	struct authd_export_name *names = NULL;
	int n = 0, rc = -1;
	FILE *out = open_memstream(&text, &len);

	if (out == NULL)
		return -1;
	if (export_dump(out, &z->soa) == -1)
		goto out;
	for (size_t i = 0; i < db->nnodes; i++)
		if (db->nodes[i]->zone == z && export_node(out, db->nodes[i]) == -1)
			goto out;
	for (int i = 0; i < db->nzones; i++)
		if (export_below(db, z, db->zones[i]) && export_cut(out, db->zones[i]) == -1)
			goto out;
	if ((names = calloc(db->nnames ? (size_t)db->nnames : 1, sizeof(*names))) == NULL)
		goto out;
	for (int i = 0; i < db->nnames; i++)
		if (authd_db_zone_of(db, db->names[i]->owner) == z)
			export_name(db, db->names[i], &names[n++]);
	if (fclose(out) == EOF) {
		out = NULL;
		goto out;
	}
	out = NULL;
	if (knot_dname_to_str(apex, z->apex, sizeof(apex)) == NULL)
		goto out;
	rc = fn(arg, apex, text, names, n);
out:
	if (out)
		fclose(out);
	free(text);
	free(names);
	return rc;
}

int authd_export_stream_changed(FILE *f, const char *path, FILE *err,
				struct authd_export_changes *ch, authd_export_fn fn, void *arg)
{
	struct authd_db *db = authd_conf_load_stream(f, path, err);
	int rc = 0;

	if (db == NULL)
		return -1;
	if (ch != NULL) {
		ch->ok = 1;
		ch->serial = 0;
		ch->reason[0] = '\0';
	}
	for (int i = 0; ch != NULL && i < ch->n; i++) {
		struct authd_change_result r;

		memset(&r, 0, sizeof(r));
		if (authd_change_apply(db, &ch->c[i], &r, ch->reason, sizeof(ch->reason)) == -1) {
			ch->ok = 0;
			ch->failed = i;
			authd_db_free(db);
			return -1;
		}
		ch->serial = r.serial;
		json_decref(r.before);
		json_decref(r.after);
	}
	for (int i = 0; i < db->nzones && rc == 0; i++)
		rc = export_zone(db, db->zones[i], fn, arg);
	authd_db_free(db);
	return rc;
}

int authd_export_stream(FILE *f, const char *path, FILE *err, authd_export_fn fn, void *arg)
{
	return authd_export_stream_changed(f, path, err, NULL, fn, arg);
}
