/* The lab's events of a run that `steerlab merge` writes as packet comments; see merge_int.h. */
#include "merge_int.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strfmt.h"
#include "wire.h"

static const char merge_nopacket[] = " [no packet of its own: on the next packet]";

/* merge_add: a new event of plan, its text from fmt; NULL if full */
static struct merge_event *merge_add(struct merge_plan *plan, int64_t t_ns, enum merge_kind kind,
				     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static struct merge_event *merge_add(struct merge_plan *plan, int64_t t_ns, enum merge_kind kind,
				     const char *fmt, ...)
{
	struct merge_event *e;
	va_list ap;

	if (plan->nev == MERGE_MAX_EVENTS)
		return NULL;
	e = &plan->ev[plan->nev++];
	memset(e, 0, sizeof(*e));
	e->t_ns = t_ns;
	e->kind = kind;
	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	return e;
}

/* merge_rel: "t0 + 0.249875 s" of t_ns into buf */
static const char *merge_rel(const struct merge_plan *plan, int64_t t_ns, char *buf, size_t len)
{
	double s = (double)(t_ns - plan->t0_ns) / 1e9;

	snprintf(buf, len, "t0 %s %.6f s", s < 0 ? "-" : "+", fabs(s));
	return buf;
}

static int64_t merge_at_s(const struct merge_plan *plan, json_t *v)
{
	return plan->t0_ns + (int64_t)llround(json_number_value(v) * 1e9);
}

static const char *merge_str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "?";
}

/* merge_plan_nodes: the sites and the clients of plan.json */
static int merge_plan_nodes(const char *rundir, struct merge_plan *plan, char *err, size_t errlen)
{
	char path[4096];
	json_error_t je;
	json_t *root, *nodes, *n;
	size_t i;

	strfmt(path, sizeof(path), "%s/plan.json", rundir);
	if ((root = json_load_file(path, 0, &je)) == NULL) {
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return -1;
	}
	nodes = json_object_get(root, "nodes");
	json_array_foreach(nodes, i, n)
	{
		const char *kind = merge_str(n, "kind"), *name = merge_str(n, "name");

		if (strcmp(kind, "site") == 0 && plan->nsites < MERGE_MAX_SITES)
			strfmt(plan->sites[plan->nsites++], MERGE_LABEL, "%s", name);
		if (strcmp(kind, "client") == 0 && plan->nclients < MERGE_MAX_CLIENTS * 2) {
			struct merge_client *c = &plan->clients[plan->nclients++];

			strfmt(c->node, sizeof(c->node), "%s", name);
			c->id = (uint32_t)json_integer_value(json_object_get(n, "client_id"));
			c->dns_id =
			    (uint32_t)json_integer_value(json_object_get(n, "dns_client_id"));
		}
	}
	json_decref(root);
	return 0;
}

/* merge_probers: each prober's first declared_dead of S from t0 on */
static void merge_probers(const char *rundir, struct merge_plan *plan)
{
	static const char suffix[] = ".prober.events.jsonl";
	struct dirent **ents = NULL;
	char path[4096], line[4096], rel[48];
	int n = scandir(rundir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		size_t len = strlen(ents[i]->d_name);
		FILE *fp;

		if (len <= sizeof(suffix) - 1 ||
		    strcmp(ents[i]->d_name + len - (sizeof(suffix) - 1), suffix) != 0)
			continue;
		strfmt(path, sizeof(path), "%s/%s", rundir, ents[i]->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), fp)) {
			json_t *o = json_loads(line, 0, NULL);
			json_int_t t = json_integer_value(json_object_get(o, "t"));

			if (o && strcmp(merge_str(o, "event"), "declared_dead") == 0 &&
			    strcmp(merge_str(o, "site"), plan->failed) == 0 && t >= plan->t0_ns) {
				const char *node = merge_str(o, "node");

				merge_add(
				    plan, t, MERGE_AT,
				    "%s: %s's prober declares %s dead (%lld failed probes)%s",
				    merge_rel(plan, t, rel, sizeof(rel)), node, plan->failed,
				    (long long)json_integer_value(json_object_get(o, "failures")),
				    merge_nopacket);
				json_decref(o);
				break;
			}
			json_decref(o);
		}
		fclose(fp);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
}

/* merge_fib_one: router r's first and final FIB change of fib (v6: the
 * IPv6 routes') */
static void merge_fib(struct merge_plan *plan, json_t *fib, const char *family)
{
	json_t *routers = json_object_get(fib, "routers"), *r;
	const char *name;
	char rel[48];

	json_object_foreach(routers, name, r)
	{
		json_t *first = json_object_get(r, "first_s"),
		       *final = json_object_get(r, "final_s");
		json_t *before = json_object_get(r, "before"), *after = json_object_get(r, "after");
		long long changes = json_integer_value(json_object_get(r, "changes"));
		const char *bs = json_is_object(before)
				     ? json_string_value(json_object_get(before, "site"))
				     : NULL;
		const char *as = json_is_object(after)
				     ? json_string_value(json_object_get(after, "site"))
				     : NULL;
		int64_t t;

		if (!json_is_number(first))
			continue;
		t = merge_at_s(plan, first);
		merge_add(plan, t, MERGE_AT,
			  "%s: %s's FIB%s: first change of its route to the service (%lld in all; "
			  "it led to %s before t0, to %s at the end)%s",
			  merge_rel(plan, t, rel, sizeof(rel)), name, family, changes,
			  bs ? bs : "nowhere", as ? as : "nowhere", merge_nopacket);
		if (json_is_number(final) && json_number_value(final) != json_number_value(first)) {
			t = merge_at_s(plan, final);
			merge_add(
			    plan, t, MERGE_AT,
			    "%s: %s's FIB%s: final change of its route to the service: to %s%s",
			    merge_rel(plan, t, rel, sizeof(rel)), name, family, as ? as : "nowhere",
			    merge_nopacket);
		}
	}
}

/* merge_scheme: a scheme's last request to S, and authd's first answer
 * without S */
static void merge_scheme(struct merge_plan *plan, json_t *sc, const char *scheme)
{
	json_t *w = json_object_get(sc, "window_s"), *steer = json_object_get(sc, "steer_at_ns");
	struct merge_event *e;
	char rel[48];
	int64_t t;

	if (json_is_number(w) && json_number_value(w) > 0) {
		t = merge_at_s(plan, w);
		e = merge_add(
		    plan, t, MERGE_REQUEST,
		    "%s: the last %s request to the dead site %s (the %s window: %.6f s%s)",
		    merge_rel(plan, t, rel, sizeof(rel)), scheme, plan->failed, scheme,
		    json_number_value(w),
		    json_is_true(json_object_get(sc, "window_lower_bound"))
			? ", a lower bound: the observation ended"
			: "");
		if (e)
			strfmt(e->label, sizeof(e->label), "%s", plan->failed);
	}
	if (strcmp(scheme, "dns") == 0 && json_is_integer(steer) && plan->steer_name[0]) {
		t = json_integer_value(steer);
		merge_add(plan, t, MERGE_DNS_ANSWER,
			  "authd's first answer for %s without the dead site %s (authd "
			  "changed its answer at %s)",
			  plan->steer_name, plan->failed, merge_rel(plan, t, rel, sizeof(rel)));
	}
}

static int merge_cmp(const void *a, const void *b)
{
	const struct merge_event *x = a, *y = b;

	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

int merge_plan_load(const char *rundir, struct merge_plan *plan, char *err, size_t errlen)
{
	json_t *root, *schemes, *failed, *v, *tl;
	const char *s;
	char path[4096], rel[48];
	json_error_t je;
	size_t i;

	memset(plan, 0, sizeof(*plan));
	plan->t0_ns = -1;
	if (merge_plan_nodes(rundir, plan, err, errlen) == -1)
		return -1;
	strfmt(path, sizeof(path), "%s/clocks.json", rundir);
	if ((root = json_load_file(path, 0, &je)) == NULL) {
		snprintf(err, errlen, "%s:%d: %s (steerlab report %s writes it again)", path,
			 je.line, je.text, rundir);
		return -1;
	}
	plan->port = (uint16_t)json_integer_value(json_object_get(root, "port"));
	if (!json_is_integer(json_object_get(root, "t0_ns"))) {
		json_decref(root);
		return 0; /* a steady-state run: no failure, no events */
	}
	plan->t0_ns = json_integer_value(json_object_get(root, "t0_ns"));
	failed = json_object_get(root, "failed");
	strfmt(plan->failed, sizeof(plan->failed), "%s", merge_str(failed, "site"));
	if ((s = json_string_value(json_object_get(failed, "address"))) != NULL)
		inet_pton(AF_INET, s, &plan->failed_addr);
	schemes = json_object_get(root, "schemes");
	if ((s = json_string_value(
		 json_object_get(json_object_get(schemes, "dns"), "steer_name"))) != NULL)
		strfmt(plan->steer_name, sizeof(plan->steer_name), "%s", s);
	tl = json_object_get(root, "timeline");
	json_array_foreach(tl, i, v)
	{
		int64_t t = merge_at_s(plan, json_object_get(v, "t_s"));

		merge_add(plan, t, MERGE_AT, "%s: %stimeline: %s %s (event %s)%s",
			  merge_rel(plan, t, rel, sizeof(rel)), i == 0 ? "t0, " : "",
			  merge_str(v, "action"), merge_str(v, "target"), merge_str(v, "name"),
			  merge_nopacket);
	}
	if (json_array_size(tl) == 0)
		merge_add(plan, plan->t0_ns, MERGE_AT, "%s: t0, %s fails%s",
			  merge_rel(plan, plan->t0_ns, rel, sizeof(rel)), plan->failed,
			  merge_nopacket);
	merge_probers(rundir, plan);
	v = json_object_get(schemes, "anycast");
	if (json_is_object(v)) {
		merge_fib(plan, json_object_get(v, "fib"), "");
		merge_fib(plan, json_object_get(v, "fib6"), " (IPv6)");
		merge_scheme(plan, v, "anycast");
	}
	if (json_is_object(v = json_object_get(schemes, "dns")))
		merge_scheme(plan, v, "dns");
	json_decref(root);
	/* stable: the timeline's t0 first among equal times */
	for (int a = 1; a < plan->nev; a++)
		for (int b = a; b > 0 && merge_cmp(&plan->ev[b - 1], &plan->ev[b]) > 0; b--) {
			struct merge_event tmp = plan->ev[b];

			plan->ev[b] = plan->ev[b - 1];
			plan->ev[b - 1] = tmp;
		}
	return 0;
}

const char *merge_client_name(const struct merge_plan *plan, uint32_t id, char *buf, size_t len)
{
	uint32_t agent = wire_agent_of(id);

	for (int i = 0; i < plan->nclients; i++) {
		const struct merge_client *c = &plan->clients[i];

		if (c->id == agent || c->dns_id == agent) {
			snprintf(buf, len, "%s%s (%s, client %u)", c->node,
				 agent != id ? "'s population" : "",
				 c->dns_id == agent ? "dns" : "anycast", id);
			return buf;
		}
	}
	snprintf(buf, len, "client %u", id);
	return buf;
}

int merge_is_site(const struct merge_plan *plan, const char *label)
{
	for (int i = 0; i < plan->nsites; i++)
		if (strcmp(plan->sites[i], label) == 0)
			return 1;
	return 0;
}

int merge_dns_qname(const uint8_t *p, size_t len, char *buf, size_t buflen)
{
	size_t off = 12, n = 0;

	if (len < 12 || (p[4] << 8 | p[5]) == 0)
		return -1;
	while (off < len && p[off] != 0) {
		size_t l = p[off++];

		if (l > 63 || off + l > len || n + l + 2 > buflen)
			return -1;
		for (size_t k = 0; k < l; k++)
			buf[n++] = (char)tolower(p[off + k]);
		buf[n++] = '.';
		off += l;
	}
	if (off >= len)
		return -1;
	if (n == 0)
		buf[n++] = '.';
	buf[n] = '\0';
	return 0;
}
