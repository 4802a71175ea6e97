/* The DNS side's events: the clients' and authd's; see clocks_events_int.h. */
#include "clocks_events.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <string.h>

#include "clocks_events_int.h"
#include "clocks_int.h"
#include "events.h"

/* clocks_client_of: the client of id in the list, added if new */
static struct clocks_client *clocks_client_of(struct clocks_input *in, const struct clocks_line *l,
					      uint32_t id)
{
	struct clocks_client *c;

	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == id)
			return &in->clients[i];
	if (clocks_grow((void **)&in->clients, &in->capclients, in->nclients,
			sizeof(*in->clients)) == -1)
		return NULL;
	c = &in->clients[in->nclients++];
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->started_ns = c->summary_ns = CLOCKS_NONE;
	c->sending_ns = 0;
	snprintf(c->node, sizeof(c->node), "%s", l->node);
	snprintf(c->agent, sizeof(c->agent), "%s", l->agent);
	return c;
}

/* clocks_client_event: client_started {client, rate, proto} and client_summary
 * {client, sent, lost, late} */
static int clocks_resolution_event(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *id = json_object_get(l->obj, "client"),
	       *lat = json_object_get(l->obj, "latency_ns");
	const char *o = json_string_value(json_object_get(l->obj, "outcome"));
	struct clocks_resolution *r;
	int k;

	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) > UINT32_MAX)
		return clocks_line_fail(l, "has no client id (integer) in", "client");
	for (k = 0; o && k < CLOCKS_DNS_OUTCOMES; k++)
		if (strcmp(o, clocks_dns_outcome_names[k]) == 0)
			break;
	if (o == NULL || k == CLOCKS_DNS_OUTCOMES)
		return clocks_line_fail(
		    l, "has no outcome (fresh, stale, servfail, rcode, timeout) in", "outcome");
	if (!json_is_integer(lat) || json_integer_value(lat) < 0)
		return clocks_line_fail(l, "has no latency (integer >= 0) in", "latency_ns");
	/* the query was sent at t - latency, after the epoch */
	if (json_integer_value(lat) > l->t)
		return clocks_line_fail(l, "has a latency longer than its time since the epoch in",
					"latency_ns");
	if (clocks_grow((void **)&in->resolutions, &in->capresolutions, in->nresolutions,
			sizeof(*in->resolutions)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	r = &in->resolutions[in->nresolutions++];
	r->sent_ns = l->t - json_integer_value(lat);
	r->client = (uint32_t)json_integer_value(id);
	r->outcome = (enum clocks_dns_outcome)k;
	r->latency_ns = json_integer_value(lat);
	return 0;
}

/* clocks_answer_event: dns_answer {client, address, ttl}; stale when the
 * resolution just before it, the same client's, was (the client writes
 * the two together) */
static int clocks_answer_event(struct clocks_input *in, const struct clocks_line *l)
{
	json_t *id = json_object_get(l->obj, "client"), *ttl = json_object_get(l->obj, "ttl"), *v;
	const struct clocks_resolution *last =
	    in->nresolutions ? &in->resolutions[in->nresolutions - 1] : NULL;
	struct clocks_dns_answer *a;
	struct in_addr addr;
	struct in6_addr addr6;

	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) > UINT32_MAX)
		return clocks_line_fail(l, "has no client id (integer) in", "client");
	v = json_object_get(l->obj, "address");
	if (!json_is_string(v))
		return clocks_line_fail(l, "has no string", "address");
	/* an IPv6 answer is followed as its IPv4 twin's (lab_up's twins);
	 * one without a twin is not one the clocks follow */
	if (inet_pton(AF_INET, json_string_value(v), &addr) != 1 &&
	    (inet_pton(AF_INET6, json_string_value(v), &addr6) != 1 ||
	     clocks_twin_of(in, &addr6, &addr) == -1))
		return 0;
	if (!json_is_integer(ttl) || json_integer_value(ttl) < 0)
		return clocks_line_fail(l, "has no ttl (integer >= 0) in", "ttl");
	if (clocks_grow((void **)&in->danswers, &in->capdanswers, in->ndanswers,
			sizeof(*in->danswers)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	a = &in->danswers[in->ndanswers++];
	a->t_ns = l->t;
	a->client = (uint32_t)json_integer_value(id);
	a->addr = addr;
	a->ttl_s = json_integer_value(ttl);
	a->stale = last && last->client == a->client && last->outcome == CLOCKS_DNS_STALE;
	return 0;
}

/* clocks_client_http: client_summary's http {library, server}, each kept
 * when it is a string that fits (what names a program, no more) */
static void clocks_client_http(struct clocks_client *c, const json_t *http)
{
	const char *lib = json_string_value(json_object_get(http, "library")),
		   *server = json_string_value(json_object_get(http, "server"));

	if (lib && strlen(lib) < sizeof(c->http_library))
		snprintf(c->http_library, sizeof(c->http_library), "%s", lib);
	if (server && strlen(server) < sizeof(c->http_server))
		snprintf(c->http_server, sizeof(c->http_server), "%s", server);
}

int clocks_client_event(struct clocks_input *in, const struct clocks_line *l)
{
	int started = strcmp(l->event, EVENTS_CLIENT_STARTED) == 0, known = 1;
	struct clocks_client *c;
	json_t *id, *rate;

	if (strcmp(l->event, EVENTS_DNS_RESOLUTION) == 0)
		return clocks_resolution_event(in, l);
	if (strcmp(l->event, EVENTS_DNS_ANSWER) == 0)
		return clocks_answer_event(in, l);
	if (!started && strcmp(l->event, EVENTS_CLIENT_SUMMARY) != 0)
		return 0;
	id = json_object_get(l->obj, "client");
	if (!json_is_integer(id) || json_integer_value(id) < 0 ||
	    json_integer_value(id) > UINT32_MAX)
		return clocks_line_fail(l, "has no client id (integer) in", "client");
	c = clocks_client_of(in, l, (uint32_t)json_integer_value(id));
	if (c == NULL)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	if (started) {
		rate = json_object_get(l->obj, "rate");
		if (!json_is_number(rate) || json_number_value(rate) < 0)
			return clocks_line_fail(l, "has no rate (number >= 0) in", "rate");
		c->rate = json_number_value(rate);
		c->started_ns = l->t;
		const char *rs = json_string_value(json_object_get(l->obj, "resolver"));
		if (rs && strlen(rs) < sizeof(c->resolver))
			snprintf(c->resolver, sizeof(c->resolver), "%s", rs);
		const char *fam = json_string_value(json_object_get(l->obj, "family"));
		if (fam && strlen(fam) < sizeof(c->family))
			snprintf(c->family, sizeof(c->family), "%s", fam);
		const char *proto = json_string_value(json_object_get(l->obj, "proto"));
		c->tcp = proto && (strcmp(proto, "tcp") == 0 || strcmp(proto, "http") == 0);
		if (json_object_get(l->obj, "population") &&
		    clocks_get_count(l, "population", &c->population, &known) == -1)
			return -1;
		if (json_object_get(l->obj, "sticky_ns") &&
		    clocks_get_count(l, "sticky_ns", &c->sticky_ns, &known) == -1)
			return -1;
		if (json_is_number(json_object_get(l->obj, "sticky_share")))
			c->sticky_share =
			    json_number_value(json_object_get(l->obj, "sticky_share"));
		return 0;
	}
	c->summary_ns = l->t;
	if (clocks_get_count(l, "sent", &c->sent, &known) == -1)
		return -1;
	if (json_object_get(l->obj, "lost") && clocks_get_count(l, "lost", &c->lost, &known) == -1)
		return -1;
	if (json_object_get(l->obj, "late") && clocks_get_count(l, "late", &c->late, &known) == -1)
		return -1;
	if (json_object_get(l->obj, "sending_ns") &&
	    clocks_get_count(l, "sending_ns", &c->sending_ns, &known) == -1)
		return -1;
	clocks_client_http(c, json_object_get(l->obj, "http"));
	if (json_is_object(json_object_get(l->obj, "family"))) {
		json_t *f = json_object_get(l->obj, "family");

		c->ok6 = json_integer_value(json_object_get(f, "ok6"));
		c->ok4 = json_integer_value(json_object_get(f, "ok4"));
		c->fell_back = json_integer_value(json_object_get(f, "fell_back"));
	}
	return 0;
}

/* clocks_zone_change_event: zone_changed {name, what, site, after, serial} */
int clocks_zone_change_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_zone_change *z;
	json_t *after = json_object_get(l->obj, "after"),
	       *serial = json_object_get(l->obj, "serial");
	const char *site = json_string_value(json_object_get(l->obj, "site"));

	if (clocks_grow((void **)&in->zchanges, &in->capzchanges, in->nzchanges,
			sizeof(*in->zchanges)) == -1)
		return clocks_line_fail(l, "cannot be stored:", "out of memory");
	z = &in->zchanges[in->nzchanges];
	memset(z, 0, sizeof(*z));
	z->t_ns = l->t;
	if (clocks_get_string(l, "name", z->name, sizeof(z->name)) == -1 ||
	    clocks_get_string(l, "what", z->what, sizeof(z->what)) == -1)
		return -1;
	if (site && strlen(site) < sizeof(z->site))
		snprintf(z->site, sizeof(z->site), "%s", site);
	z->after = json_is_integer(after) ? json_integer_value(after) : CLOCKS_NONE;
	z->serial = json_is_integer(serial) ? json_integer_value(serial) : CLOCKS_NONE;
	if (strcmp(z->what, "set-weight") == 0 && (z->site[0] == '\0' || z->after < 0))
		return clocks_line_fail(l, "has no site and weight (integer >= 0) in",
					"set-weight");
	in->nzchanges++;
	return 0;
}

int clocks_authd_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_health *h;
	struct clocks_answer *a;
	json_t *v;

	if (strcmp(l->event, EVENTS_HEALTH_CHANGED) == 0) {
		if (clocks_grow((void **)&in->health, &in->caphealth, in->nhealth,
				sizeof(*in->health)) == -1)
			return clocks_line_fail(l, "cannot be stored:", "out of memory");
		h = &in->health[in->nhealth];
		memset(h, 0, sizeof(*h));
		h->t_ns = l->t;
		snprintf(h->node, sizeof(h->node), "%s", l->node ? l->node : "");
		if (clocks_get_name(l, "site", h->site) == -1)
			return -1;
		v = json_object_get(l->obj, "healthy");
		if (!json_is_boolean(v))
			return clocks_line_fail(l, "has no boolean", "healthy");
		h->healthy = json_is_true(v);
		in->nhealth++;
	} else if (strcmp(l->event, EVENTS_CONTROL_REJECTED) == 0) {
		return clocks_rejected_event(in, l, "authd");
	} else if (strcmp(l->event, EVENTS_ZONE_CHANGED) == 0) {
		return clocks_zone_change_event(in, l);
	} else if (strcmp(l->event, EVENTS_ANSWER_CHANGED) == 0) {
		if (clocks_grow((void **)&in->answers, &in->capanswers, in->nanswers,
				sizeof(*in->answers)) == -1)
			return clocks_line_fail(l, "cannot be stored:", "out of memory");
		a = &in->answers[in->nanswers];
		memset(a, 0, sizeof(*a));
		a->t_ns = l->t;
		snprintf(a->node, sizeof(a->node), "%s", l->node ? l->node : "");
		if (clocks_get_string(l, "name", a->name, sizeof(a->name)) == -1 ||
		    clocks_get_addrs(in, l, "before", a->before, &a->nbefore) == -1 ||
		    clocks_get_addrs(in, l, "after", a->after, &a->nafter) == -1)
			return -1;
		in->nanswers++;
	}
	return 0;
}
