/* authd's [name] sections: the policies and their keys; see conf_int.h. */
#include "conf_int.h"

#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "rdata.h"
#include "timeutil.h"
#include "zone_change.h"

static int conf_site_index(const struct authd_db *db, const char *name)
{
	for (int i = 0; i < db->nsites; i++)
		if (strcmp(db->sites[i].name, name) == 0)
			return i;
	return -1;
}

/* conf_slot: the slot of site (by db index) in nm, added if add. */
static int conf_slot(struct authd_name *nm, int site, int add)
{
	for (int i = 0; i < nm->nsites; i++)
		if (nm->sites[i] == site)
			return i;
	if (!add || nm->nsites == AUTHD_MAX_SITES)
		return -1;
	nm->sites[nm->nsites] = site;
	return nm->nsites++;
}

/* conf_site_ref: a site named in [name] key; -1 (reported) if unknown. */
static int conf_site_ref(struct conf_parse *p, const char *label, const struct conf_entry *e,
			 const char *name)
{
	char list[256] = "";
	size_t used = 0;
	int i = conf_site_index(p->db, name);

	if (i != -1)
		return i;
	for (int k = 0; k < p->db->nsites && used < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k ? ", " : "",
					 p->db->sites[k].name);
	conf_error(p, e->line, "%s %s: unknown site '%s' (sites: %s)", label, e->key, name,
		   p->db->nsites ? list : "none defined");
	return -1;
}

/* conf_site_list: "a b c" into nm's slots, in order. */
static void conf_site_list(struct conf_parse *p, const char *label, const struct conf_entry *e,
			   struct authd_name *nm)
{
	char *copy = strdup(e->value), *save = NULL;

	if (copy == NULL)
		return;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int s = conf_site_ref(p, label, e, w);

		if (s == -1)
			continue;
		if (conf_slot(nm, s, 0) != -1)
			conf_error(p, e->line, "%s %s: site '%s' listed twice", label, e->key, w);
		else
			conf_slot(nm, s, 1);
	}
	free(copy);
}

static int conf_prober_index(struct authd_db *db, const char *id)
{
	char **v;

	for (int i = 0; i < db->nprobers; i++)
		if (strcmp(db->probers[i], id) == 0)
			return i;
	v = realloc(db->probers, (size_t)(db->nprobers + 1) * sizeof(*v));
	if (v == NULL)
		return -1;
	db->probers = v;
	if ((v[db->nprobers] = strdup(id)) == NULL)
		return -1;
	return db->nprobers++;
}

/* conf_two: "A B" into two words; 0 or -1. */
static int conf_two(const char *v, char *a, size_t alen, char *b, size_t blen)
{
	size_t n = strcspn(v, " \t");

	if (n == 0 || n >= alen)
		return -1;
	memcpy(a, v, n);
	a[n] = '\0';
	v += n;
	v += strspn(v, " \t");
	n = strcspn(v, " \t");
	if (n == 0 || n >= blen || v[n + strspn(v + n, " \t")] != '\0')
		return -1;
	memcpy(b, v, n);
	b[n] = '\0';
	return 0;
}

/* conf_name_tier: "TARGET SITE ...": a tier of proximity name nm, a CNAME
 * to TARGET standing for its sites (which no other tier of nm has) */
static void conf_name_tier(struct conf_parse *p, const char *label, const struct conf_entry *e,
			   struct authd_name *nm)
{
	char *copy = strdup(e->value), *save = NULL, *w;
	uint8_t target[KNOT_DNAME_MAXLEN];
	struct authd_tier *t, *v;
	size_t len;
	int words = 0;

	if (copy == NULL)
		return;
	w = strtok_r(copy, " \t,", &save);
	if (w == NULL || authd_name_parse(w, NULL, target) == -1) {
		conf_error(p, e->line,
			   "%s tier: expected 'TARGET SITE ...', TARGET a domain name, "
			   "got '%s'",
			   label, e->value);
		free(copy);
		return;
	}
	if (nm->ntiers == AUTHD_MAX_SITES ||
	    (v = realloc(nm->tiers, (size_t)(nm->ntiers + 1) * sizeof(*v))) == NULL) {
		free(copy);
		return;
	}
	nm->tiers = v;
	t = &nm->tiers[nm->ntiers];
	memset(t, 0, sizeof(*t));
	len = knot_dname_size(target);
	if ((t->cname = malloc(knot_rdata_size((uint16_t)len))) == NULL) {
		free(copy);
		return;
	}
	knot_rdata_init(t->cname, (uint16_t)len, target);
	knot_dname_to_str(t->text, target, sizeof(t->text));
	t->line = e->line;
	for (w = strtok_r(NULL, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int s = conf_site_ref(p, label, e, w), slot;

		words++;
		if (s == -1)
			continue;
		if ((slot = conf_slot(nm, s, 0)) != -1) {
			conf_error(p, e->line, "%s tier: site '%s' is already in tier %s", label, w,
				   nm->tiers[nm->tier_of[slot]].text);
			continue;
		}
		if ((slot = conf_slot(nm, s, 1)) != -1)
			nm->tier_of[slot] = (int8_t)nm->ntiers;
	}
	if (words == 0)
		conf_error(p, e->line, "%s tier %s: expected the sites it stands for after it",
			   label, t->text);
	nm->ntiers++;
	free(copy);
}

static const char *conf_policy_keys[] = {
    [AUTHD_SIMPLE] = "sites",
    [AUTHD_MULTIVALUE] = "sites",
    [AUTHD_FAILOVER] = "primary secondary",
    [AUTHD_WEIGHTED] = "weight weighted_mode pattern",
    [AUTHD_GEOLOCATION] = "geo default sites fallback",
    [AUTHD_LATENCY] = "sites vantage",
    [AUTHD_PROXIMITY] = "sites tier",
};

/* conf_key_allowed: does the policy take this key? */
static int conf_key_allowed(enum authd_policy_kind k, const char *key)
{
	const char *list = conf_policy_keys[k];
	size_t n = strlen(key);

	if (strcmp(key, "policy") == 0 || strcmp(key, "ttl") == 0 || strcmp(key, "all_dead") == 0)
		return 1;
	for (const char *w = list; (w = strstr(w, key)) != NULL; w += n)
		if ((w == list || w[-1] == ' ') && (w[n] == '\0' || w[n] == ' '))
			return 1;
	return 0;
}

static void conf_name_geo(struct conf_parse *p, const char *label, const struct conf_entry *e,
			  struct authd_name *nm)
{
	char net[64], site[64];
	struct addr_prefix pf;
	struct authd_geo *v;
	int s;

	if (conf_two(e->value, net, sizeof(net), site, sizeof(site)) == -1 ||
	    addr_parse_prefix(net, &pf) == -1) {
		conf_error(p, e->line,
			   "%s geo: expected NETWORK/LEN SITE (no bits set past LEN), got '%s'",
			   label, e->value);
		return;
	}
	if ((s = conf_site_ref(p, label, e, site)) == -1)
		return;
	v = realloc(nm->geo, (size_t)(nm->ngeo + 1) * sizeof(*v));
	if (v == NULL)
		return;
	nm->geo = v;
	v[nm->ngeo].net = pf;
	v[nm->ngeo].site = s; /* a db index until conf_name_slots */
	v[nm->ngeo].line = e->line;
	nm->ngeo++;
}

static void conf_name_vantage(struct conf_parse *p, const char *label, const struct conf_entry *e,
			      struct authd_name *nm)
{
	char net[64], id[64];
	struct addr_prefix pf;
	struct authd_vantage *v;
	int idx;

	if (conf_two(e->value, net, sizeof(net), id, sizeof(id)) == -1 ||
	    addr_parse_prefix(net, &pf) == -1 || !conf_id_ok(id, 32)) {
		conf_error(p, e->line,
			   "%s vantage: expected NETWORK/LEN PROBER_ID (an id of 1 to 32 letters, "
			   "digits, '.', '_' or '-'), got '%s'",
			   label, e->value);
		return;
	}
	idx = conf_prober_index(p->db, id);
	v = realloc(nm->vantage, (size_t)(nm->nvantage + 1) * sizeof(*v));
	if (v == NULL || idx == -1)
		return;
	nm->vantage = v;
	v[nm->nvantage].net = pf;
	v[nm->nvantage].prober = idx;
	v[nm->nvantage].line = e->line;
	nm->nvantage++;
}

static void conf_name_weight(struct conf_parse *p, const char *label, const struct conf_entry *e,
			     struct authd_name *nm)
{
	char site[64], w[32];
	unsigned long v;
	int s, slot;

	if (conf_two(e->value, site, sizeof(site), w, sizeof(w)) == -1 ||
	    conf_ulong(w, 0, ZONE_CHANGE_WEIGHT_MAX, &v) == -1) {
		conf_error(p, e->line, "%s weight: expected SITE WEIGHT (0-%d), got '%s'", label,
			   ZONE_CHANGE_WEIGHT_MAX, e->value);
		return;
	}
	if ((s = conf_site_ref(p, label, e, site)) == -1)
		return;
	if (conf_slot(nm, s, 0) != -1) {
		conf_error(p, e->line, "%s weight: site '%s' weighted twice", label, site);
		return;
	}
	slot = conf_slot(nm, s, 1);
	if (slot != -1)
		nm->weight[slot] = (uint32_t)v;
}

/* conf_candidate: the slot of the site named w in key e, or -1 with the
 * error said: unknown, or not one of nm's candidates. */
static int conf_candidate(struct conf_parse *p, const char *label, const struct conf_entry *e,
			  struct authd_name *nm, const char *w)
{
	char list[256] = "";
	size_t used = 0;
	int s = conf_site_ref(p, label, e, w), slot;

	if (s == -1)
		return -1;
	if ((slot = conf_slot(nm, s, 0)) != -1)
		return slot;
	for (int k = 0; k < nm->nsites && used < sizeof(list); k++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", k ? ", " : "",
					 p->db->sites[nm->sites[k]].name);
	conf_error(p, e->line, "%s %s: site '%s' is not a candidate of this name (candidates: %s)",
		   label, e->key, w, nm->nsites ? list : "none");
	return -1;
}

/* conf_name_fallback: "A:B C:D ...": B takes A's users when A is dead */
static void conf_name_fallback(struct conf_parse *p, const char *label, const struct conf_entry *e,
			       struct authd_name *nm)
{
	char *copy = strdup(e->value), *save = NULL;
	int n = 0;

	if (copy == NULL)
		return;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save), n++) {
		char *colon = strchr(w, ':');
		int a, b;

		if (colon == NULL || colon == w || colon[1] == '\0' || strchr(colon + 1, ':')) {
			conf_error(p, e->line,
				   "%s fallback: expected SITE:FALLBACK pairs such as 'a:b b:a', "
				   "got '%s'",
				   label, w);
			continue;
		}
		*colon = '\0';
		if ((a = conf_candidate(p, label, e, nm, w)) == -1 ||
		    (b = conf_candidate(p, label, e, nm, colon + 1)) == -1)
			continue;
		if (a == b)
			conf_error(p, e->line, "%s fallback: site '%s' falls back to itself", label,
				   w);
		else if (nm->fallback[a])
			conf_error(p, e->line, "%s fallback: site '%s' given two fallbacks", label,
				   w);
		else
			nm->fallback[a] = b + 1;
	}
	if (n == 0)
		conf_error(p, e->line,
			   "%s fallback: expected SITE:FALLBACK pairs such as 'a:b b:a', got ''",
			   label);
	free(copy);
}

/* conf_name_pattern: "A B A C ...", the weighted rotation */
static void conf_name_pattern(struct conf_parse *p, const char *label, const struct conf_entry *e,
			      struct authd_name *nm)
{
	char *copy = strdup(e->value), *save = NULL;
	int n = 0;

	if (copy == NULL)
		return;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		int s = conf_candidate(p, label, e, nm, w);

		n++;
		if (s == -1)
			continue;
		if (nm->npattern == AUTHD_PATTERN_MAX) {
			conf_error(p, e->line, "%s pattern: expected at most %d sites", label,
				   AUTHD_PATTERN_MAX);
			break;
		}
		nm->pattern[nm->npattern++] = s;
	}
	if (n == 0)
		conf_error(p, e->line,
			   "%s pattern: expected SITE ... (a rotation of sites), got ''", label);
	free(copy);
}

/* conf_name_policy: the keys of one policy into nm. */
static void conf_name_policy(struct conf_parse *p, const struct conf_sect *s, const char *label,
			     struct authd_name *nm)
{
	const struct conf_entry *e;
	int site;

	for (int i = 0; i < s->n; i++) {
		e = &s->e[i];
		if (!conf_key_allowed(nm->policy, e->key))
			conf_error(p, e->line, "%s %s: not a key of policy %s (its keys: %s)",
				   label, e->key, authd_policy_name(nm->policy),
				   conf_policy_keys[nm->policy]);
	}
	switch (nm->policy) {
	case AUTHD_PROXIMITY:
		if (conf_get(s, "tier") && conf_get(s, "sites")) {
			conf_error(p, conf_get(s, "sites")->line,
				   "%s sites: a tiered name's sites are its tiers' (tier = TARGET "
				   "SITE ...): expected one or the other",
				   label);
			break;
		}
		if (conf_get(s, "tier")) {
			for (int i = 0; i < s->n; i++)
				if (strcmp(s->e[i].key, "tier") == 0)
					conf_name_tier(p, label, &s->e[i], nm);
			break;
		}
		/* its sites, as simple's */
		/* fall through */
	case AUTHD_SIMPLE:
	case AUTHD_MULTIVALUE:
	case AUTHD_LATENCY:
		if ((e = conf_get(s, "sites")) == NULL)
			conf_error(p, s->line, "%s: policy %s needs 'sites = SITE ...'", label,
				   authd_policy_name(nm->policy));
		else
			conf_site_list(p, label, e, nm);
		if (nm->policy != AUTHD_LATENCY)
			break;
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->e[i].key, "vantage") == 0)
				conf_name_vantage(p, label, &s->e[i], nm);
		if (conf_get(s, "vantage") == NULL)
			conf_error(
			    p, s->line,
			    "%s: policy latency needs 'vantage = NETWORK/LEN PROBER_ID' lines",
			    label);
		break;
	case AUTHD_FAILOVER:
		if ((e = conf_get(s, "primary")) == NULL) {
			conf_error(p, s->line, "%s: policy failover needs 'primary = SITE'", label);
		} else if (strpbrk(e->value, " \t,")) {
			conf_error(p, e->line, "%s primary: expected one site, got '%s'", label,
				   e->value);
		} else if ((site = conf_site_ref(p, label, e, e->value)) != -1) {
			conf_slot(nm, site, 1);
		}
		if ((e = conf_get(s, "secondary")) == NULL)
			conf_error(
			    p, s->line,
			    "%s: policy failover needs 'secondary = SITE ...' (tried in order)",
			    label);
		else
			conf_site_list(p, label, e, nm);
		break;
	case AUTHD_WEIGHTED:
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->e[i].key, "weight") == 0)
				conf_name_weight(p, label, &s->e[i], nm);
		if (conf_get(s, "weight") == NULL)
			conf_error(p, s->line,
				   "%s: policy weighted needs 'weight = SITE WEIGHT' lines", label);
		else if (nm->nsites > 0 && !authd_name_weighted(nm))
			conf_error(p, s->line,
				   "%s: expected a weight above 0 for at least one site (a site of "
				   "weight 0 is handed out to no one)",
				   label);
		if ((e = conf_get(s, "weighted_mode"))) {
			if (strcmp(e->value, "random") == 0)
				nm->weighted_random = 1;
			else if (strcmp(e->value, "swrr") != 0)
				conf_error(p, e->line,
					   "%s weighted_mode: expected swrr or random, got '%s'",
					   label, e->value);
		}
		if ((e = conf_get(s, "pattern")) && nm->weighted_random)
			conf_error(p, e->line,
				   "%s pattern: a rotation is not random; expected no "
				   "weighted_mode = random with it",
				   label);
		else if (e)
			conf_name_pattern(p, label, e, nm);
		break;
	case AUTHD_GEOLOCATION:
		if ((e = conf_get(s, "sites")))
			conf_site_list(p, label, e, nm);
		for (int i = 0; i < s->n; i++)
			if (strcmp(s->e[i].key, "geo") == 0)
				conf_name_geo(p, label, &s->e[i], nm);
		/* geo and default sites are candidates too (fallback order after sites) */
		for (int i = 0; i < nm->ngeo; i++)
			nm->geo[i].site = conf_slot(nm, nm->geo[i].site, 1);
		if ((e = conf_get(s, "default")) &&
		    (site = conf_site_ref(p, label, e, e->value)) != -1)
			nm->default_site = conf_slot(nm, site, 1);
		if (conf_get(s, "geo") == NULL && conf_get(s, "default") == NULL)
			conf_error(
			    p, s->line,
			    "%s: policy geolocation needs 'geo = NETWORK/LEN SITE' lines or a "
			    "'default = SITE'",
			    label);
		if ((e = conf_get(s, "fallback")))
			conf_name_fallback(p, label, e, nm);
		break;
	}
}

void conf_name(struct conf_parse *p, const struct conf_sect *s)
{
	static const char *policies = "simple, multivalue, failover, weighted, geolocation, "
				      "latency or proximity";
	uint8_t owner[KNOT_DNAME_MAXLEN];
	char label[KNOT_DNAME_TXT_MAXLEN + 16];
	const struct conf_entry *e;
	struct authd_name *nm, **v;
	struct authd_zone *z;
	struct authd_node *node;
	int k;

	snprintf(label, sizeof(label), "[name %s]", s->name);
	if (authd_name_parse(s->name, NULL, owner) == -1) {
		conf_error(p, s->line, "%s: expected a domain name", label);
		return;
	}
	if ((z = authd_db_zone_of(p->db, owner)) == NULL) {
		conf_error(p, s->line, "%s: not in any [zone]", label);
		return;
	}
	for (int i = 0; i < p->db->nnames; i++)
		if (knot_dname_is_equal(p->db->names[i]->owner, owner)) {
			conf_error(p, s->line, "%s: the same name as [name %s] at line %d", label,
				   p->db->names[i]->text, p->db->names[i]->line);
			return;
		}
	if ((e = conf_get(s, "policy")) == NULL) {
		conf_error(p, s->line, "%s: expected 'policy = %s'", label, policies);
		return;
	}
	for (k = AUTHD_SIMPLE; k <= AUTHD_PROXIMITY; k++)
		if (strcmp(e->value, authd_policy_name((enum authd_policy_kind)k)) == 0)
			break;
	if (k > AUTHD_PROXIMITY) {
		conf_error(p, e->line, "%s policy: expected %s, got '%s'", label, policies,
			   e->value);
		return;
	}
	v = realloc(p->db->names, (size_t)(p->db->nnames + 1) * sizeof(*v));
	if (v == NULL)
		return;
	p->db->names = v;
	nm = calloc(1, sizeof(*nm));
	if (nm == NULL || (nm->owner = knot_dname_copy(owner, NULL)) == NULL) {
		free(nm);
		return;
	}
	v[p->db->nnames++] = nm;
	knot_dname_to_str(nm->text, owner, sizeof(nm->text));
	nm->line = s->line;
	nm->policy = (enum authd_policy_kind)k;
	nm->ttl = z->ttl;
	nm->all_dead = AUTHD_FAIL_DEFAULT;
	nm->default_site = -1;
	if ((e = conf_get(s, "ttl")) && parse_ttl(e->value, &nm->ttl) == -1)
		conf_error(p, e->line, "%s ttl: expected a TTL such as 30 or 5m, got '%s'", label,
			   e->value);
	if ((e = conf_get(s, "all_dead")) && conf_all_dead(e->value, &nm->all_dead) == -1)
		conf_error(p, e->line, "%s all_dead: expected fail-open or fail-closed, got '%s'",
			   label, e->value);
	conf_name_policy(p, s, label, nm);
	node = authd_db_node(p->db, owner, 1);
	if (node == NULL) {
		conf_error(p, s->line, "out of memory");
		return;
	}
	node->name = nm;
	if (node->line == 0)
		node->line = s->line;
}
