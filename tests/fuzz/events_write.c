/* The clocks' records written back as events; see events_write.h. */
#include "events_write.h"

#include <arpa/inet.h>
#include <jansson.h>

static json_t *evw_int(int64_t v)
{
	return v == CLOCKS_NONE ? json_null() : json_integer(v);
}

static json_t *evw_str(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static json_t *evw_addr(struct in_addr a)
{
	char b[INET_ADDRSTRLEN];

	return json_string(inet_ntop(AF_INET, &a, b, sizeof(b)));
}

static json_t *evw_addrs(const struct in_addr *a, int n)
{
	json_t *l = json_array();

	for (int i = 0; l && i < n; i++)
		json_array_append_new(l, evw_addr(a[i]));
	return l;
}

static json_t *evw_prefix(struct in_addr a, int len)
{
	char b[INET_ADDRSTRLEN];

	return json_sprintf("%s/%d", inet_ntop(AF_INET, &a, b, sizeof(b)), len);
}

/* evw_emit: one line, {"t": t, "event": event} and fields (taken) */
static int evw_emit(FILE *out, int64_t t, const char *event, json_t *fields)
{
	json_t *o = json_pack("{s:I, s:s}", "t", (json_int_t)t, "event", event);
	int rc = -1;

	if (o != NULL && fields != NULL && json_object_update(o, fields) == 0 &&
	    json_dumpf(o, out, JSON_COMPACT | JSON_PRESERVE_ORDER) == 0 && fputc('\n', out) != EOF)
		rc = 0;
	json_decref(o);
	json_decref(fields);
	return rc;
}

static int evw_lab(const struct clocks_input *in, FILE *out)
{
	json_t *addrs = json_object();
	int rc = 0;

	for (size_t i = 0; addrs && i < in->naddrs; i++) {
		const struct clocks_addr_node *a = &in->addrs[i];
		char b[INET_ADDRSTRLEN];

		json_object_set_new(addrs, inet_ntop(AF_INET, &a->addr, b, sizeof(b)),
				    json_pack("{s:s, s:s}", "node", a->node, "kind",
					      a->is_site     ? "site"
					      : a->is_router ? "router"
							     : "client"));
	}
	if (in->lab[0]) {
		json_t *o = json_pack("{s:s, s:o}", "lab", in->lab, "addresses", addrs);

		if (o && in->port)
			json_object_set_new(o, "port", json_integer(in->port));
		rc |= evw_emit(out, 0, "lab_up", o);
	} else {
		json_decref(addrs);
	}
	if (in->traffic_start_ns != CLOCKS_NONE)
		rc |= evw_emit(out, in->traffic_start_ns, "traffic_started",
			       json_pack("{s:I, s:o, s:o, s:o}", "duration_ns",
					 (json_int_t)in->traffic_duration_ns, "fail_at_ns",
					 evw_int(in->fail_at_ns), "seed", evw_int(in->seed),
					 "fail_jitter_ns", evw_int(in->fail_jitter_ns)));
	if (in->traffic_stop_ns != CLOCKS_NONE)
		rc |= evw_emit(out, in->traffic_stop_ns, "traffic_stopped",
			       in->traffic_interrupted == -1
				   ? json_object()
				   : json_pack("{s:b}", "interrupted", in->traffic_interrupted));
	if (in->lab_stopping_ns != CLOCKS_NONE)
		rc |= evw_emit(out, in->lab_stopping_ns, "lab_stopping", json_object());
	for (size_t i = 0; i < in->nfailures; i++) {
		const struct clocks_failure *f = &in->failures[i];
		json_t *routes = json_array(), *o;

		for (int j = 0; routes && j < f->nroutes; j++)
			json_array_append_new(
			    routes, json_pack("{s:s, s:o, s:I}", "router", f->routes[j].router,
					      "via", evw_addr(f->routes[j].via), "metric",
					      (json_int_t)f->routes[j].metric));
		o = json_pack(
		    "{s:s, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o}", "site", f->site, "via",
		    evw_addr(f->via), "prefix", evw_prefix(f->prefix, f->prefixlen), "how", f->how,
		    "killed_ns", evw_int(f->killed_ns), "jitter_offset_ns",
		    evw_int(f->jitter_offset_ns), "nominal_at_ns", evw_int(f->nominal_at_ns),
		    "routes", routes, "cause", evw_str(f->name));
		if (o && f->has_address)
			json_object_set_new(o, "address", evw_addr(f->address));
		rc |= evw_emit(out, f->t0_ns, "site_failed", o);
	}
	for (size_t i = 0; i < in->nexits; i++) {
		const struct clocks_exit *x = &in->exits[i];

		rc |=
		    evw_emit(out, x->t_ns, "agent_exited",
			     json_pack("{s:s, s:s, s:I, s:o, s:o, s:b}", "node", x->node, "agent",
				       x->agent, "pid", (json_int_t)x->pid, "exit_code",
				       x->has_code ? json_integer(x->code) : json_null(), "signal",
				       x->has_signal ? json_integer(x->sig) : json_null(),
				       "expected", x->expected));
	}
	for (size_t i = 0; i < in->nhits; i++) {
		const struct clocks_hit *h = &in->hits[i];

		rc |=
		    evw_emit(out, h->t_ns, "event_applied",
			     json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o}", "name",
				       h->name, "action", h->action, "target", evw_str(h->target),
				       "kind", evw_str(h->kind), "site", evw_str(h->site), "step",
				       h->up ? json_string("up") : json_null(), "cycle", h->cycle,
				       "vias", evw_addrs(h->vias, h->nvias), "nominal_at_ns",
				       evw_int(h->nominal_at_ns), "at_ns", evw_int(h->at_ns)));
	}
	return rc;
}

static int evw_dead(const struct clocks_dead *d, size_t n, const char *event, FILE *out)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		rc |= evw_emit(out, d[i].t_ns, event,
			       json_pack("{s:s, s:b}", "site", d[i].site, "deleted", 1));
	return rc;
}

static json_t *evw_nexthop(const struct clocks_nexthop *nh)
{
	return json_pack("{s:o, s:o}", "via", nh->has_via ? evw_addr(nh->via) : json_null(), "dev",
			 evw_str(nh->dev));
}

static int evw_collector(const struct clocks_input *in, FILE *out)
{
	static const char *const ops[] = {
	    [CLOCKS_OP_ADD] = "add", [CLOCKS_OP_REPLACE] = "replace", [CLOCKS_OP_APPEND] = "append",
	    [CLOCKS_OP_DEL] = "del", [CLOCKS_OP_PRESENT] = "present",
	};
	int rc = 0;

	for (size_t i = 0; i < in->nroutes; i++) {
		const struct clocks_route *r = &in->routes[i];
		json_t *o = json_pack("{s:o, s:s, s:o, s:o}", "prefix",
				      evw_prefix(r->prefix, r->prefixlen), "op", ops[r->op], "via",
				      r->nh[0].has_via ? evw_addr(r->nh[0].via) : json_null(),
				      "dev", evw_str(r->nh[0].dev));

		if (o && r->has_metric)
			json_object_set_new(o, "metric", json_integer(r->metric));
		if (o && r->protocol != -1)
			json_object_set_new(o, "protocol", json_integer(r->protocol));
		if (o && r->nnh > 1) {
			json_t *l = json_array();

			for (int j = 0; l && j < r->nnh; j++)
				json_array_append_new(l, evw_nexthop(&r->nh[j]));
			json_object_set_new(o, "nexthops", l);
		}
		rc |= evw_emit(out, r->t_ns, r->deleted ? "route_deleted" : "route_added", o);
	}
	for (size_t i = 0; i < in->nstats; i++) {
		const struct clocks_link_stats *s = &in->stats[i];

		rc |= evw_emit(
		    out, 0, "capture_stats",
		    json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "label", s->label, "packets",
			      (json_int_t)s->packets, "received", (json_int_t)s->received,
			      "dropped", s->known ? json_integer(s->dropped) : json_null(),
			      "if_dropped", s->known ? json_integer(s->if_dropped) : json_null(),
			      "written", evw_int(s->written)));
	}
	for (size_t i = 0; i < in->ncerrors; i++) {
		const struct clocks_capture_error *e = &in->cerrors[i];

		rc |= evw_emit(out, e->t_ns, "capture_error",
			       json_pack("{s:s, s:o, s:o, s:o}", "label", e->label, "file",
					 evw_str(e->file), "error", evw_str(e->error), "errno",
					 e->err ? json_integer(e->err) : json_null()));
	}
	return rc;
}

static int evw_authd(const struct clocks_input *in, FILE *out)
{
	int rc = 0;

	for (size_t i = 0; i < in->nrejected; i++) {
		const struct clocks_rejected *r = &in->rejected[i];

		rc |= evw_emit(out, r->t_ns, "control_rejected",
			       json_pack("{s:s, s:o, s:I}", "from", r->from, "reason",
					 evw_str(r->reason), "count", (json_int_t)r->count));
	}
	for (size_t i = 0; i < in->nhealth; i++)
		rc |= evw_emit(out, in->health[i].t_ns, "health_changed",
			       json_pack("{s:s, s:b}", "site", in->health[i].site, "healthy",
					 in->health[i].healthy));
	for (size_t i = 0; i < in->nanswers; i++) {
		const struct clocks_answer *a = &in->answers[i];

		rc |= evw_emit(out, a->t_ns, "answer_changed",
			       json_pack("{s:s, s:o, s:o}", "name", a->name, "before",
					 evw_addrs(a->before, a->nbefore), "after",
					 evw_addrs(a->after, a->nafter)));
	}
	return rc;
}

static int evw_clients(const struct clocks_input *in, FILE *out)
{
	int rc = 0;

	for (size_t i = 0; i < in->nclients; i++) {
		const struct clocks_client *c = &in->clients[i];

		if (c->started_ns != CLOCKS_NONE)
			rc |=
			    evw_emit(out, c->started_ns, "client_started",
				     json_pack("{s:I, s:f, s:o, s:I}", "client", (json_int_t)c->id,
					       "rate", c->rate, "resolver", evw_str(c->resolver),
					       "population", (json_int_t)c->population));
		if (c->summary_ns != CLOCKS_NONE)
			rc |= evw_emit(
			    out, c->summary_ns, "client_summary",
			    json_pack("{s:I, s:I, s:I, s:I, s:I, s:{s:o, s:o}}", "client",
				      (json_int_t)c->id, "sent", (json_int_t)c->sent, "lost",
				      (json_int_t)c->lost, "late", (json_int_t)c->late,
				      "sending_ns", (json_int_t)c->sending_ns, "http", "library",
				      evw_str(c->http_library), "server", evw_str(c->http_server)));
	}
	for (size_t i = 0; i < in->nresolutions; i++) {
		const struct clocks_resolution *r = &in->resolutions[i];

		rc |= evw_emit(out, r->sent_ns, "dns_resolution",
			       json_pack("{s:I, s:s, s:I}", "client", (json_int_t)r->client,
					 "outcome", clocks_dns_outcome_names[r->outcome],
					 "latency_ns", (json_int_t)0));
	}
	return rc;
}

int evw_write(const struct clocks_input *in, FILE *out)
{
	int rc = evw_lab(in, out);

	rc |= evw_dead(in->dead, in->ndead, "declared_dead", out);
	rc |= evw_dead(in->alive, in->nalive, "declared_alive", out);
	rc |= evw_dead(in->expired, in->nexpired, "route_expired", out);
	rc |= evw_collector(in, out);
	rc |= evw_authd(in, out);
	rc |= evw_clients(in, out);
	return rc ? -1 : 0;
}
