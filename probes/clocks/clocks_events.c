/*
 * Reading the events the clocks need from the JSON Lines files of a run
 * directory, NODE.AGENT.events.jsonl: the lab's lab_up, site_failed,
 * traffic_started and traffic_stopped; the probers' declared_dead (with the
 * NODE of the file, which tells a site's own prober from a remote one); the
 * collectors' (NODE.collector and NODE.collector-dns) route_added /
 * route_deleted, capture_ready, capture_stats and capture_error; authd's health_changed,
 * answer_changed and control_rejected; routed's control_rejected and
 * route_expired; the
 * clients' client_started and client_summary; the lab's lab_stopping and
 * agent_exited, for the verdict. Other events are skipped. Every line must be a JSON object
 * with an integer "t" and a string "event"; an event the clocks use must
 * carry its fields, or the read fails naming the file and line. This file
 * reads the lines and their fields; each family of events is read in its
 * own (clocks_events_lab.c, clocks_events_route.c, clocks_events_dns.c).
 */
#include "clocks_events.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "announce.h"
#include "clocks_events_int.h"
#include "clocks_int.h"
#include "events.h"

int clocks_line_fail(const struct clocks_line *l, const char *what, const char *key)
{
	snprintf(l->err, l->errlen, "%s:%d: %s %s \"%s\"", l->path, l->line, l->event, what, key);
	return -1;
}

/* clocks_get_string: a non-empty string field that fits out[size]. */
int clocks_get_string(const struct clocks_line *l, const char *key, char *out, size_t size)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_line_fail(l, "has no string", key);
	if (json_string_length(v) == 0 || json_string_length(v) >= size)
		return clocks_line_fail(l, "has an empty or too long", key);
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

/* clocks_get_name: a string field that fits CLOCKS_NAME_MAX. */
int clocks_get_name(const struct clocks_line *l, const char *key, char *out)
{
	return clocks_get_string(l, key, out, CLOCKS_NAME_MAX);
}

int clocks_get_addr(const struct clocks_line *l, const char *key, struct in_addr *addr)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_line_fail(l, "has no string", key);
	if (inet_pton(AF_INET, json_string_value(v), addr) != 1)
		return clocks_line_fail(l, "has no IPv4 address in", key);
	return 0;
}

int clocks_get_prefix(const struct clocks_line *l, const char *key, struct in_addr *addr, int *len)
{
	json_t *v = json_object_get(l->obj, key);

	if (!json_is_string(v))
		return clocks_line_fail(l, "has no string", key);
	if (parse_prefix(json_string_value(v), addr, len) == -1)
		return clocks_line_fail(l, "has no IPv4 prefix in", key);
	return 0;
}

/* clocks_get_addrs: a list of address strings; the IPv4 ones go to addrs
 * (at most CLOCKS_MAX_ADDRS), the IPv6 ones are skipped, but in a list of
 * IPv6 addresses alone (a lab of ip = 6) each with a twin goes there as
 * its IPv4 twin (lab_up's twins, read first: in may be NULL). */
int clocks_get_addrs(const struct clocks_input *in, const struct clocks_line *l, const char *key,
		     struct in_addr *addrs, int *n)
{
	json_t *v = json_object_get(l->obj, key), *a;
	struct in6_addr a6;
	size_t i;
	int nv6 = 0;

	if (!json_is_array(v))
		return clocks_line_fail(l, "has no address list in", key);
	*n = 0;
	json_array_foreach(v, i, a)
	{
		const char *s = json_string_value(a);

		if (s == NULL)
			return clocks_line_fail(l, "has a non-string address in", key);
		if (inet_pton(AF_INET6, s, &a6) == 1) {
			nv6++;
			continue;
		}
		if (*n == CLOCKS_MAX_ADDRS)
			return clocks_line_fail(l, "has too many IPv4 addresses in", key);
		if (inet_pton(AF_INET, s, &addrs[*n]) != 1)
			return clocks_line_fail(l, "has a bad address in", key);
		(*n)++;
	}
	if (*n > 0 || nv6 == 0 || in == NULL)
		return 0;
	json_array_foreach(v, i, a)
	{
		if (*n == CLOCKS_MAX_ADDRS)
			return clocks_line_fail(l, "has too many addresses in", key);
		if (inet_pton(AF_INET6, json_string_value(a), &a6) == 1 &&
		    clocks_twin_of(in, &a6, &addrs[*n]) == 0)
			(*n)++;
	}
	return 0;
}

/* clocks_get_count: a non-negative integer, or null (*known = 0). */
int clocks_get_count(const struct clocks_line *l, const char *key, int64_t *out, int *known)
{
	json_t *v = json_object_get(l->obj, key);

	if (json_is_null(v)) {
		*known = 0;
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return clocks_line_fail(l, "has no count (integer or null) in", key);
	*out = json_integer_value(v);
	return 0;
}

/* clocks_get_opt_int: an integer field that may be absent or null (*has =
 * 0); anything else there is an error */
int clocks_get_opt_int(const struct clocks_line *l, const char *key, int64_t *out, int *has)
{
	json_t *v = json_object_get(l->obj, key);

	*has = 0;
	*out = 0;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_integer(v))
		return clocks_line_fail(l, "has no integer (or null) in", key);
	*out = json_integer_value(v);
	*has = 1;
	return 0;
}

/* clocks_get_opt_string: a string field that may be absent or null ("") */
int clocks_get_opt_string(const struct clocks_line *l, const char *key, char *out, size_t size)
{
	json_t *v = json_object_get(l->obj, key);

	out[0] = '\0';
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return clocks_line_fail(l, "has no string (or null) in", key);
	snprintf(out, size, "%s", json_string_value(v));
	return 0;
}

/* clocks_read_jsonl_fp: call fn for every event of fp, read as path; in a
 * lab over several hosts each "t" less the offset of node's host, on the
 * reference's clock (clocks_hosts.h: the lab's own file, read first, is
 * the reference's) */
static int clocks_read_jsonl_fp(FILE *fp, const char *path, const char *node, const char *agent,
				clocks_event_fn fn, struct clocks_input *in, char *err,
				size_t errlen)
{
	struct clocks_line l = {
	    .path = path, .node = node, .agent = agent, .err = err, .errlen = errlen};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int complete, rc = -1;
	int64_t offset = strcmp(agent, "steerlab") == 0 ? 0 : clocks_node_offset(in, node);

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
				clocks_warn(&in->notes, "file_cut",
					    "%s:%d: last line cut short, ignored", path, l.line);
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
		l.t = json_integer_value(t) - offset;
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
	return rc;
}

/* clocks_read_jsonl: call fn for every event of the file. */
static int clocks_read_jsonl(const char *path, const char *node, const char *agent,
			     clocks_event_fn fn, struct clocks_input *in, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	int rc;

	if (fp == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rc = clocks_read_jsonl_fp(fp, path, node, agent, fn, in, err, errlen);
	fclose(fp);
	return rc;
}

#define CLOCKS_EVENTS_SUFFIX ".events.jsonl"

/* clocks_read_each: every NODE.AGENT.events.jsonl of the run directory
 * whose AGENT is agent, or (prefix set) begins with agent. *nfiles counts
 * the files read. */
static int clocks_read_each(const char *rundir, const char *agent, int prefix, clocks_event_fn fn,
			    struct clocks_input *in, size_t *nfiles, char *err, size_t errlen)
{
	char path[PATH_MAX], node[CLOCKS_NAME_MAX], label[CLOCKS_NAME_MAX], **names;
	size_t n, alen = strlen(agent);
	int rc = 0;

	if (clocks_list_dir(rundir, "", CLOCKS_EVENTS_SUFFIX, &names, &n, err, errlen) == -1)
		return -1;
	for (size_t i = 0; i < n && rc == 0; i++) {
		const char *dot = strchr(names[i], '.'), *label_of = dot ? dot + 1 : "";
		size_t llen = strlen(names[i]) - (size_t)(label_of - names[i]);

		/* node names have no dot (lab/topology/topology.c); the label is what
		 * lies between the node and CLOCKS_EVENTS_SUFFIX */
		if (dot == NULL || (size_t)(dot - names[i]) >= sizeof(node) ||
		    llen < strlen(CLOCKS_EVENTS_SUFFIX))
			continue;
		llen -= strlen(CLOCKS_EVENTS_SUFFIX);
		if (llen >= sizeof(label))
			continue;
		if (llen < alen || strncmp(label_of, agent, alen) != 0 || (!prefix && llen != alen))
			continue;
		memcpy(node, names[i], (size_t)(dot - names[i]));
		node[dot - names[i]] = '\0';
		memcpy(label, label_of, llen);
		label[llen] = '\0';
		snprintf(path, sizeof(path), "%s/%s", rundir, names[i]);
		rc = clocks_read_jsonl(path, node, label, fn, in, err, errlen);
		if (nfiles)
			(*nfiles)++;
	}
	clocks_free_names(names, n);
	return rc;
}

int clocks_read_events(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	if (clocks_read_jsonl(path, "lab", "steerlab", clocks_lab_event, in, err, errlen) == -1)
		return -1;
	if (in->lab[0] == '\0') {
		snprintf(err, errlen, "%s: no lab_up event", path);
		return -1;
	}
	if (in->failure.site[0] == '\0') {
		/* a steady-state run: the whole traffic comes before its "t0" */
		in->steady = 1;
		in->failure.t0_ns = clocks_traffic_end(in);
		if (in->failure.t0_ns == CLOCKS_NONE) {
			snprintf(err, errlen,
				 "%s: no site_failed event and no traffic_started: the run has "
				 "neither a t0 nor a traffic to measure",
				 path);
			return -1;
		}
	}
	if (clocks_read_each(rundir, "prober", 0, clocks_prober_event, in, NULL, err, errlen) ==
		-1 ||
	    clocks_read_each(rundir, "collector", 1, clocks_collector_event, in, NULL, err,
			     errlen) == -1 ||
	    clocks_read_each(rundir, "authd", 0, clocks_authd_event, in, &in->nauthd_files, err,
			     errlen) == -1 ||
	    clocks_read_each(rundir, "routed", 0, clocks_routed_event, in, NULL, err, errlen) ==
		-1 ||
	    clocks_read_each(rundir, "client", 1, clocks_client_event, in, &in->nclient_files, err,
			     errlen) == -1)
		return -1;
	return 0;
}

int clocks_read_events_stream(FILE *fp, const char *path, const char *node, const char *agent,
			      struct clocks_input *in, char *err, size_t errlen)
{
	clocks_event_fn fn;

	if (strcmp(agent, "steerlab") == 0)
		fn = clocks_lab_event;
	else if (strcmp(agent, "prober") == 0)
		fn = clocks_prober_event;
	else if (strncmp(agent, "collector", strlen("collector")) == 0)
		fn = clocks_collector_event;
	else if (strcmp(agent, "authd") == 0)
		fn = clocks_authd_event;
	else if (strcmp(agent, "routed") == 0)
		fn = clocks_routed_event;
	else if (strncmp(agent, "client", strlen("client")) == 0)
		fn = clocks_client_event;
	else
		return 0; /* an agent whose events the clocks do not read */
	return clocks_read_jsonl_fp(fp, path, node, agent, fn, in, err, errlen);
}
