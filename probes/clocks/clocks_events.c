/*
 * Reading the events the clocks need from the JSON Lines files of a run
 * directory: the lab's lab_up and site_failed, the probers' declared_dead,
 * the collectors' route_added / route_deleted and capture_stats. Other
 * events are skipped. Every line must be a JSON object with an integer "t"
 * and a string "event"; an event the clocks use must carry its fields, or
 * the read fails naming the file and line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "clocks_int.h"

/* where a line came from, for error messages */
struct clocks_line {
	const char *path;
	int line;
	const char *event;
	json_t *obj;
	int64_t t;
	char *err;
	size_t errlen;
};

typedef int (*clocks_event_fn)(struct clocks_input *in, const struct clocks_line *l);

static int clocks_fail(const struct clocks_line *l, const char *what, const char *key)
{
	snprintf(l->err, l->errlen, "%s:%d: %s %s \"%s\"", l->path, l->line, l->event, what, key);
	return -1;
}

/* clocks_get_name: a string field that fits CLOCKS_NAME_MAX. */
static int clocks_get_name(const struct clocks_line *l, const char *key, char *out)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_fail(l, "has no string", key);
	if (json_string_length(v) == 0 || json_string_length(v) >= CLOCKS_NAME_MAX)
		return clocks_fail(l, "has an empty or too long", key);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int clocks_get_addr(const struct clocks_line *l, const char *key, struct in_addr *addr)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_fail(l, "has no string", key);
	if (inet_pton(AF_INET, json_string_value(v), addr) != 1)
		return clocks_fail(l, "has no IPv4 address in", key);
	return 0;
}

static int clocks_get_prefix(const struct clocks_line *l, const char *key, struct in_addr *addr,
			     int *len)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_fail(l, "has no string", key);
	if (parse_prefix(json_string_value(v), addr, len) == -1)
		return clocks_fail(l, "has no IPv4 prefix in", key);
	return 0;
}

/* clocks_get_count: a non-negative integer, or null (*known = 0). */
static int clocks_get_count(const struct clocks_line *l, const char *key, int64_t *out, int *known)
{
	json_t *v = json_object_get(l->obj, key);

	if (json_is_null(v)) {
		*known = 0;
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return clocks_fail(l, "has no count (integer or null) in", key);
	*out = json_integer_value(v);
	return 0;
}

static int clocks_lab_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_failure f;
	json_t *port;

	if (strcmp(l->event, "lab_up") == 0) {
		if (in->lab[0] != '\0')
			return 0;
		if (clocks_get_name(l, "lab", in->lab) == -1)
			return -1;
		port = json_object_get(l->obj, "port");
		if (port == NULL)
			return 0;
		if (!json_is_integer(port) || json_integer_value(port) < 1 ||
		    json_integer_value(port) > 65535)
			return clocks_fail(l, "has no port number in", "port");
		in->port = (uint16_t)json_integer_value(port);
	} else if (strcmp(l->event, "site_failed") == 0) {
		memset(&f, 0, sizeof(f));
		f.t0_ns = l->t;
		if (clocks_get_name(l, "site", f.site) == -1 ||
		    clocks_get_addr(l, "via", &f.via) == -1 ||
		    clocks_get_prefix(l, "prefix", &f.prefix, &f.prefixlen) == -1)
			return -1;
		if (in->failure.site[0] != '\0') {
			clocks_warn(&in->notes,
				    "%s:%d: another site_failed (%s); only the first "
				    "(%s) is analysed",
				    l->path, l->line, f.site, in->failure.site);
			return 0;
		}
		in->failure = f;
	}
	return 0;
}

static int clocks_prober_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_dead *d;

	if (strcmp(l->event, "declared_dead") != 0)
		return 0;
	if (clocks_grow((void **)&in->dead, &in->capdead, in->ndead, sizeof(*in->dead)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	d = &in->dead[in->ndead];
	d->t_ns = l->t;
	if (clocks_get_name(l, "site", d->site) == -1)
		return -1;
	in->ndead++;
	return 0;
}

static int clocks_route_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_route *r;
	json_t *via;

	if (clocks_grow((void **)&in->routes, &in->caproutes, in->nroutes, sizeof(*in->routes)) ==
	    -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	r = &in->routes[in->nroutes];
	memset(r, 0, sizeof(*r));
	r->t_ns = l->t;
	r->deleted = strcmp(l->event, "route_deleted") == 0;
	if (clocks_get_prefix(l, "prefix", &r->prefix, &r->prefixlen) == -1)
		return -1;
	/* a route without a gateway has "via": null */
	via = json_object_get(l->obj, "via");
	if (via != NULL && !json_is_null(via)) {
		if (clocks_get_addr(l, "via", &r->via) == -1)
			return -1;
		r->has_via = 1;
	}
	in->nroutes++;
	return 0;
}

static int clocks_stats_event(struct clocks_input *in, const struct clocks_line *l)
{
	struct clocks_link_stats *s;
	int dummy = 1;

	if (clocks_grow((void **)&in->stats, &in->capstats, in->nstats, sizeof(*in->stats)) == -1)
		return clocks_fail(l, "cannot be stored:", "out of memory");
	s = &in->stats[in->nstats];
	memset(s, 0, sizeof(*s));
	s->known = 1;
	if (clocks_get_name(l, "label", s->label) == -1 ||
	    clocks_get_count(l, "packets", &s->packets, &dummy) == -1 ||
	    clocks_get_count(l, "received", &s->received, &dummy) == -1 ||
	    clocks_get_count(l, "dropped", &s->dropped, &s->known) == -1 ||
	    clocks_get_count(l, "if_dropped", &s->if_dropped, &s->known) == -1)
		return -1;
	in->nstats++;
	return 0;
}

static int clocks_collector_event(struct clocks_input *in, const struct clocks_line *l)
{
	if (strcmp(l->event, "route_deleted") == 0 || strcmp(l->event, "route_added") == 0)
		return clocks_route_event(in, l);
	if (strcmp(l->event, "capture_stats") == 0)
		return clocks_stats_event(in, l);
	return 0;
}

/* clocks_read_jsonl: call fn for every event of the file. */
static int clocks_read_jsonl(const char *path, clocks_event_fn fn, struct clocks_input *in,
			     char *err, size_t errlen)
{
	struct clocks_line l = {.path = path, .err = err, .errlen = errlen};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int complete, rc = -1;
	FILE *fp;

	fp = fopen(path, "r");
	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((len = clocks_read_line(fp, &line, &cap, &complete)) != -1) {
		json_error_t jerr;
		json_t *t, *ev;

		l.line++;
		if (strspn(line, " \t") == (size_t)len)
			continue;
		l.obj = json_loadb(line, (size_t)len, 0, &jerr);
		if (!json_is_object(l.obj)) {
			if (!complete) {
				/* a writer killed mid-line: what it wrote before stands */
				clocks_warn(&in->notes, "%s:%d: last line cut short, ignored", path,
					    l.line);
				break;
			}
			snprintf(err, errlen, "%s:%d: %s", path, l.line,
				 l.obj ? "not a JSON object" : jerr.text);
			goto out;
		}
		t = json_object_get(l.obj, "t");
		ev = json_object_get(l.obj, "event");
		if (!json_is_integer(t) || !json_is_string(ev)) {
			snprintf(err, errlen,
				 "%s:%d: an event needs an integer \"t\" and a string "
				 "\"event\"",
				 path, l.line);
			goto out;
		}
		l.t = json_integer_value(t);
		l.event = json_string_value(ev);
		if (fn(in, &l) == -1)
			goto out;
		json_decref(l.obj);
		l.obj = NULL;
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	json_decref(l.obj);
	free(line);
	fclose(fp);
	return rc;
}

/* clocks_read_each: every file of the run directory ending in suffix. */
static int clocks_read_each(const char *rundir, const char *suffix, clocks_event_fn fn,
			    struct clocks_input *in, char *err, size_t errlen)
{
	char path[PATH_MAX], **names;
	size_t n;
	int rc = 0;

	if (clocks_list_dir(rundir, "", suffix, &names, &n, err, errlen) == -1)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s", rundir, names[i]);
		rc = clocks_read_jsonl(path, fn, in, err, errlen);
	}
	clocks_free_names(names, n);
	return rc;
}

int clocks_read_events(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	if (clocks_read_jsonl(path, clocks_lab_event, in, err, errlen) == -1)
		return -1;
	if (in->lab[0] == '\0') {
		snprintf(err, errlen, "%s: no lab_up event", path);
		return -1;
	}
	if (in->failure.site[0] == '\0') {
		snprintf(err, errlen, "%s: no site_failed event: the run has no t0", path);
		return -1;
	}
	if (clocks_read_each(rundir, ".prober.events.jsonl", clocks_prober_event, in, err,
			     errlen) == -1 ||
	    clocks_read_each(rundir, ".collector.events.jsonl", clocks_collector_event, in, err,
			     errlen) == -1)
		return -1;
	return 0;
}
