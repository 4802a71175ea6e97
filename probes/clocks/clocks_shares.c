/*
 * Weights that change (clocks_shares.h; docs/clocks.md, "Weights that
 * change"): a canary's shares per second against its weights, from the
 * site links' captures and authd's zone_changed events.
 */
#include "clocks_shares.h"

#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"

/* clocks_shares_changed: whether a set-weight changed name */
static int clocks_shares_changed(const struct clocks_input *in, const char *name)
{
	for (size_t i = 0; i < in->nzchanges; i++)
		if (strcmp(in->zchanges[i].what, "set-weight") == 0 &&
		    clocks_steer_dname_eq(in->zchanges[i].name, name))
			return 1;
	return 0;
}

/* clocks_shares_weights: the weights of n at t as shares (the topology's,
 * then each set-weight of it up to t); the name's TTL then into *ttl_s */
static void clocks_shares_weights(const struct clocks_input *in, const struct clocks_topo_name *n,
				  const struct clocks_shares_name *sn, int64_t t, double *w,
				  int64_t *ttl_s)
{
	double sum = 0;

	for (int k = 0; k < sn->nsites; k++)
		w[k] = (double)n->weight[k];
	*ttl_s = n->ttl_s;
	for (size_t i = 0; i < in->nzchanges; i++) {
		const struct clocks_zone_change *z = &in->zchanges[i];

		if (z->t_ns > t || !clocks_steer_dname_eq(z->name, n->name) || z->after < 0)
			continue;
		if (strcmp(z->what, "set-ttl") == 0)
			*ttl_s = z->after;
		for (int k = 0; k < sn->nsites && strcmp(z->what, "set-weight") == 0; k++)
			if (strcmp(sn->sites[k], z->site) == 0)
				w[k] = (double)z->after;
	}
	for (int k = 0; k < sn->nsites; k++)
		sum += w[k];
	for (int k = 0; k < sn->nsites; k++)
		w[k] = sum > 0 ? w[k] / sum : 0;
}

/* clocks_shares_periods: sn's periods, from start to end, split at each
 * change of its weights (a burst of changes is one) */
static void clocks_shares_periods(const struct clocks_input *in, const struct clocks_topo_name *n,
				  struct clocks_shares_name *sn, int64_t start, int64_t end)
{
	int64_t from = start;

	sn->nperiods = 0;
	for (size_t i = 0; i <= in->nzchanges; i++) {
		const struct clocks_zone_change *z = i < in->nzchanges ? &in->zchanges[i] : NULL;
		struct clocks_shares_period *p;
		int64_t until = z ? z->t_ns : end;

		if (z && (strcmp(z->what, "set-weight") != 0 ||
			  !clocks_steer_dname_eq(z->name, n->name) || z->t_ns <= start ||
			  z->t_ns >= end))
			continue;
		/* one change, or the last of a burst */
		if (z && until - from < CLOCKS_SHARES_BURST_NS && sn->nperiods > 0)
			continue;
		if (sn->nperiods == CLOCKS_SHARES_PERIODS)
			break;
		p = &sn->periods[sn->nperiods++];
		memset(p, 0, sizeof(*p));
		p->from_ns = from;
		p->until_ns = until;
		p->deviation = p->settled_deviation = -1;
		from = until;
	}
	/* the weights (and TTL) each period had: those after its burst */
	for (int j = 0; j < sn->nperiods; j++) {
		struct clocks_shares_period *p = &sn->periods[j];
		int64_t at = p->from_ns + CLOCKS_SHARES_BURST_NS < p->until_ns
				 ? p->from_ns + CLOCKS_SHARES_BURST_NS
				 : p->from_ns;

		clocks_shares_weights(in, n, sn, at, p->weight, &p->ttl_s);
	}
}

/* clocks_shares_name_add: sn for weighted name n */
static int clocks_shares_name_add(const struct clocks_input *in, const struct clocks_topo_name *n,
				  struct clocks_shares *s)
{
	struct clocks_shares_name *sn = &s->names[s->nnames];
	int64_t ttl;

	memset(sn, 0, sizeof(*sn));
	snprintf(sn->name, sizeof(sn->name), "%s", n->name);
	for (int k = 0; k < n->nweights && k < CLOCKS_STEER_SITES; k++)
		snprintf(sn->sites[sn->nsites++], CLOCKS_NAME_MAX, "%s", n->wsite[k]);
	sn->count = calloc(s->nbuckets * (size_t)sn->nsites, sizeof(*sn->count));
	sn->total = calloc(s->nbuckets, sizeof(*sn->total));
	sn->weight = calloc(s->nbuckets * (size_t)sn->nsites, sizeof(*sn->weight));
	s->nnames++;
	if (sn->count == NULL || sn->total == NULL || sn->weight == NULL)
		return -1;
	for (size_t b = 0; b < s->nbuckets; b++)
		clocks_shares_weights(in, n, sn,
				      s->start_ns + (int64_t)b * s->bucket_ns + s->bucket_ns / 2,
				      &sn->weight[b * (size_t)sn->nsites], &ttl);
	clocks_shares_periods(in, n, sn, s->start_ns,
			      s->start_ns + (int64_t)s->nbuckets * s->bucket_ns);
	return 0;
}

/* clocks_shares_of: the name index (in s) client id's node asks, or -1 */
static int clocks_shares_of(const struct clocks_input *in, const struct clocks_shares *s,
			    uint32_t client)
{
	char name[CLOCKS_DNS_NAME_MAX];

	if (clocks_scheme_of(client) != CLOCKS_SCHEME_DNS ||
	    clocks_steer_name_of(in, clocks_steer_node(in, client), name, sizeof(name)) == NULL)
		return -1;
	for (int i = 0; i < s->nnames; i++)
		if (clocks_steer_dname_eq(s->names[i].name, name))
			return i;
	return -1;
}

/* clocks_shares_count: one request of name sn, captured at site k (-1: not
 * one of its weighted sites) at t */
static void clocks_shares_count(struct clocks_shares *s, struct clocks_shares_name *sn, int k,
				int64_t t)
{
	size_t b = (size_t)((t - s->start_ns) / s->bucket_ns);

	sn->total[b]++;
	if (k >= 0)
		sn->count[b * (size_t)sn->nsites + (size_t)k]++;
	for (int j = 0; j < sn->nperiods; j++) {
		struct clocks_shares_period *p = &sn->periods[j];

		if (t < p->from_ns || t >= p->until_ns)
			continue;
		p->n++;
		if (k >= 0)
			p->share[k]++;
		if (p->ttl_s >= 0 && t >= p->from_ns + p->ttl_s * 1000000000LL) {
			p->settled_n++;
			if (k >= 0)
				p->settled[k]++;
		}
	}
}

/* clocks_shares_finish: counts into shares, and their deviations */
static void clocks_shares_finish(struct clocks_shares_name *sn)
{
	for (int j = 0; j < sn->nperiods; j++) {
		struct clocks_shares_period *p = &sn->periods[j];

		for (int k = 0; k < sn->nsites; k++) {
			p->share[k] = p->n ? p->share[k] / (double)p->n : 0;
			p->settled[k] = p->settled_n ? p->settled[k] / (double)p->settled_n : 0;
		}
		if (p->n)
			p->deviation = clocks_steer_deviation(p->share, p->weight, sn->nsites);
		if (p->settled_n)
			p->settled_deviation =
			    clocks_steer_deviation(p->settled, p->weight, sn->nsites);
	}
}

int clocks_shares(const struct clocks_input *in, struct clocks_shares *s)
{
	int64_t end = clocks_observation_end(in);

	memset(s, 0, sizeof(*s));
	s->bucket_ns = 1000000000LL;
	s->start_ns = in->traffic_start_ns;
	if (s->start_ns == CLOCKS_NONE || end == CLOCKS_NONE || end <= s->start_ns)
		return 0;
	s->nbuckets = (size_t)((end - s->start_ns + s->bucket_ns - 1) / s->bucket_ns);
	if (s->nbuckets > CLOCKS_MAX_BUCKETS)
		return 0;
	for (int i = 0; i < in->dnstopo.nnames && s->nnames < CLOCKS_SHARES_NAMES; i++) {
		const struct clocks_topo_name *n = &in->dnstopo.names[i];

		if (strcmp(n->policy, "weighted") != 0 || n->nweights == 0 ||
		    !clocks_shares_changed(in, n->name))
			continue;
		if (clocks_shares_name_add(in, n, s) == -1) {
			clocks_shares_free(s);
			return -1;
		}
	}
	if (s->nnames == 0)
		return 0;
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];
		uint32_t last = 0;
		int ni = -1, k = -1;

		for (size_t j = 0; j < c->n; j++) {
			const struct clocks_packet *p = &c->packets[j];

			if (p->t_ns < s->start_ns ||
			    p->t_ns >= s->start_ns + (int64_t)s->nbuckets * s->bucket_ns)
				continue;
			/* a capture is mostly runs of one client's requests */
			if (j == 0 || p->client != last) {
				last = p->client;
				ni = clocks_shares_of(in, s, p->client);
				k = -1;
				for (int q = 0; ni >= 0 && q < s->names[ni].nsites; q++)
					if (strcmp(s->names[ni].sites[q], c->label) == 0)
						k = q;
			}
			if (ni >= 0)
				clocks_shares_count(s, &s->names[ni], k, p->t_ns);
		}
	}
	for (int i = 0; i < s->nnames; i++)
		clocks_shares_finish(&s->names[i]);
	return 1;
}

void clocks_shares_free(struct clocks_shares *s)
{
	if (s == NULL)
		return;
	for (int i = 0; i < s->nnames; i++) {
		free(s->names[i].count);
		free(s->names[i].total);
		free(s->names[i].weight);
	}
	s->nnames = 0;
}

void clocks_shares_prepare(struct clocks_input *in)
{
	struct clocks_shares *s = malloc(sizeof(*s));
	int rc;

	if (in->shares) {
		clocks_shares_free(in->shares);
		free(in->shares);
	}
	in->shares = NULL;
	if (s == NULL || (rc = clocks_shares(in, s)) == -1) {
		free(s);
		clocks_warn(&in->notes, "limit", "weights: out of memory, not measured");
		return;
	}
	if (rc == 0) {
		free(s);
		return;
	}
	in->shares = s;
}

/* clocks_shares_list: the shares v of sn's sites as "90.0/10.0" */
static const char *clocks_shares_list(const struct clocks_shares_name *sn, const double *v,
				      char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int k = 0; k < sn->nsites && used < len; k++)
		used +=
		    (size_t)snprintf(buf + used, len - used, "%s%.1f", k ? "/" : "", v[k] * 100);
	return buf;
}

/* clocks_shares_rows: a line per name and period, cells separated by sep
 * (md: a Markdown row) */
static void clocks_shares_rows(FILE *out, const struct clocks_input *in, int md)
{
	const struct clocks_shares *s = in->shares;
	char w[128], sh[128], st[128], dev[16], sdev[16], from[24], ttl[24];

	for (int i = 0; i < s->nnames; i++) {
		const struct clocks_shares_name *sn = &s->names[i];
		char sites[128] = "";
		size_t used = 0;

		for (int k = 0; k < sn->nsites && used < sizeof(sites); k++)
			used += (size_t)snprintf(sites + used, sizeof(sites) - used, "%s%s",
						 k ? "/" : "", sn->sites[k]);
		for (int j = 0; j < sn->nperiods; j++) {
			const struct clocks_shares_period *p = &sn->periods[j];
			double a = (double)(p->from_ns - s->start_ns) / 1e9,
			       b = (double)(p->until_ns - s->start_ns) / 1e9;

			snprintf(dev, sizeof(dev), p->n ? "%.3f" : "-", p->deviation);
			snprintf(sdev, sizeof(sdev), p->settled_n ? "%.3f" : "-",
				 p->settled_deviation);
			snprintf(ttl, sizeof(ttl), p->ttl_s >= 0 ? "%lld" : "-",
				 (long long)p->ttl_s);
			snprintf(from, sizeof(from), "%.3f", a + (p->ttl_s > 0 ? p->ttl_s : 0));
			clocks_shares_list(sn, p->weight, w, sizeof(w));
			if (p->n)
				clocks_shares_list(sn, p->share, sh, sizeof(sh));
			else
				snprintf(sh, sizeof(sh), "-");
			if (p->settled_n)
				clocks_shares_list(sn, p->settled, st, sizeof(st));
			else
				snprintf(st, sizeof(st), "-");
			if (md)
				fprintf(
				    out,
				    "| %s | %s | %.3f | %.3f | %s | %lld | %s | %s | %s | %s | %s "
				    "|\n",
				    sn->name, sites, a, b, w, (long long)p->n, sh, dev, ttl, st,
				    sdev);
			else
				fprintf(out,
					"%-20s %-9s %8.3f %8.3f  %-12s %9lld  %-12s %9s  %4s %9s  "
					"%-12s %9s\n",
					sn->name, sites, a, b, w, (long long)p->n, sh, dev, ttl,
					from, st, sdev);
		}
	}
}

void clocks_shares_print(FILE *out, const struct clocks_input *in)
{
	if (in->shares == NULL)
		return;
	fprintf(out, "\nweights: each period between changes of a name's weights, its clients' "
		     "shares on the site captures\n(%%; docs/clocks.md, \"Weights that change\"; "
		     "per second: shares.csv)\n");
	fprintf(out, "%-20s %-9s %8s %8s  %-12s %9s  %-12s %9s  %4s %9s  %-12s %9s\n", "name",
		"sites", "from (s)", "to (s)", "weights", "requests", "shares", "deviation", "ttl",
		"after ttl", "shares then", "deviation");
	clocks_shares_rows(out, in, 0);
}

void clocks_shares_md(FILE *out, const struct clocks_input *in)
{
	if (in->shares == NULL)
		return;
	fprintf(out, "| name | sites | from (s) | to (s) | weights (%%) | requests | shares (%%) "
		     "| deviation | ttl (s) | shares one TTL on (%%) | deviation then |\n"
		     "|---|---|---:|---:|---|---:|---|---:|---:|---|---:|\n");
	clocks_shares_rows(out, in, 1);
}

/* clocks_shares_site_object: {site: v[k] ...} */
static json_t *clocks_shares_site_object(const struct clocks_shares_name *sn, const double *v)
{
	json_t *o = json_object();

	for (int k = 0; o && k < sn->nsites; k++)
		json_object_set_new(o, sn->sites[k], json_real(v[k]));
	return o;
}

json_t *clocks_shares_json(const struct clocks_input *in)
{
	const struct clocks_shares *s = in->shares;
	json_t *root, *names;

	if (s == NULL)
		return NULL;
	root = json_pack("{s:f, s:o}", "bucket_s", (double)s->bucket_ns / 1e9, "names",
			 names = json_object());
	for (int i = 0; root && i < s->nnames; i++) {
		const struct clocks_shares_name *sn = &s->names[i];
		json_t *periods = json_array(), *count = json_object(), *weight = json_object(),
		       *total = json_array();

		for (int j = 0; j < sn->nperiods; j++) {
			const struct clocks_shares_period *p = &sn->periods[j];

			json_array_append_new(
			    periods,
			    json_pack(
				"{s:f, s:f, s:o, s:o, s:I, s:o, s:o, s:I, s:o, s:o}", "from_s",
				(double)(p->from_ns - s->start_ns) / 1e9, "until_s",
				(double)(p->until_ns - s->start_ns) / 1e9, "weights",
				clocks_shares_site_object(sn, p->weight), "ttl_s",
				p->ttl_s >= 0 ? json_integer(p->ttl_s) : json_null(), "requests",
				(json_int_t)p->n, "shares",
				p->n ? clocks_shares_site_object(sn, p->share) : json_null(),
				"deviation", p->n ? json_real(p->deviation) : json_null(),
				"settled_requests", (json_int_t)p->settled_n, "settled_shares",
				p->settled_n ? clocks_shares_site_object(sn, p->settled)
					     : json_null(),
				"settled_deviation",
				p->settled_n ? json_real(p->settled_deviation) : json_null()));
		}
		for (int k = 0; k < sn->nsites; k++) {
			json_t *c = json_array(), *w = json_array();

			for (size_t b = 0; b < s->nbuckets; b++) {
				json_array_append_new(
				    c, json_integer(sn->count[b * (size_t)sn->nsites + (size_t)k]));
				json_array_append_new(
				    w, json_real(sn->weight[b * (size_t)sn->nsites + (size_t)k]));
			}
			json_object_set_new(count, sn->sites[k], c);
			json_object_set_new(weight, sn->sites[k], w);
		}
		for (size_t b = 0; b < s->nbuckets; b++)
			json_array_append_new(total, json_integer(sn->total[b]));
		json_object_set_new(names, sn->name,
				    json_pack("{s:o, s:o, s:o, s:o}", "periods", periods,
					      "requests", count, "all", total, "weights", weight));
	}
	return root;
}
