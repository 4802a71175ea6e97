/*
 * Writing the clocks: clocks.json (jansson) and the table for a person, one
 * column per scheme. Clocks are seconds relative to t0; a missing one is
 * null in JSON and "-" in the table, and the warnings say why; a measure
 * one scheme does not have (upstream queries for anycast) has no JSON key
 * and is "n/a" in the table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clocks.h"

#define CLOCKS_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))

static json_t *clocks_json_s(int64_t ns)
{
	return ns == CLOCKS_NONE ? json_null() : json_real((double)ns / 1e9);
}

static json_t *clocks_json_n(int64_t v)
{
	return v == CLOCKS_NONE ? json_null() : json_integer(v);
}

static json_t *clocks_json_counts(const struct clocks_count *c, int n)
{
	json_t *o = json_object();

	for (int i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, json_integer(c[i].n));
	return o;
}

static json_t *clocks_json_str(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

/* clocks_per_s: n per second of traffic, or a negative number if unknown */
static double clocks_per_s(const struct clocks_result *r)
{
	if (r->upstream_queries < 0 || r->traffic_ns == CLOCKS_NONE || r->traffic_ns <= 0)
		return -1;
	return (double)r->upstream_queries / ((double)r->traffic_ns / 1e9);
}

static json_t *clocks_json_dist(const struct clocks_dist *d, const char *clients, int64_t sent)
{
	json_t *o = json_object();

	json_object_set_new(o, clients, json_integer(d->n));
	if (sent != CLOCKS_NA)
		json_object_set_new(o, "sent_after_t0", json_integer(sent));
	json_object_set_new(o, "p50", clocks_json_s(d->p50_ns));
	json_object_set_new(o, "p99", clocks_json_s(d->p99_ns));
	json_object_set_new(o, "max", clocks_json_s(d->max_ns));
	return o;
}

/* clocks_json_dns: the fields only the DNS scheme has */
static void clocks_json_dns(json_t *o, const struct clocks_result *r)
{
	json_t *res = json_object();
	char addr[INET_ADDRSTRLEN];
	double per_s = clocks_per_s(r);

	json_object_set_new(o, "remote_dead_s", clocks_json_s(r->remote_dead_ns));
	json_object_set_new(o, "remote_dead_at_ns", clocks_json_n(r->remote_dead_at_ns));
	json_object_set_new(o, "remote_dead_prober", clocks_json_str(r->remote_prober));
	json_object_set_new(o, "steer_name", clocks_json_str(r->steer_name));
	json_object_set_new(o, "upstream_queries_per_s",
			    per_s < 0 ? json_null() : json_real(per_s));
	for (size_t i = 0; i < r->nresolvers; i++) {
		inet_ntop(AF_INET, &r->resolvers[i].addr, addr, sizeof(addr));
		json_object_set_new(res, addr, json_integer(r->resolvers[i].n));
	}
	json_object_set_new(o, "upstream_resolvers",
			    r->upstream_queries == CLOCKS_NONE ? (json_decref(res), json_null())
							       : res);
}

/* clocks_json_ratio: a ratio, null when unknown (negative) */
static json_t *clocks_json_ratio(double v)
{
	return v < 0 ? json_null() : json_real(v);
}

/* clocks_json_budget: the error budget, when the report computed it */
static json_t *clocks_json_budget(const struct clocks_budget *b)
{
	json_t *o = json_object();

	json_object_set_new(o, "slo_pct", json_real(b->slo_pct));
	json_object_set_new(o, "budget_s", json_real(b->budget_s));
	json_object_set_new(o, "failed", clocks_json_n(b->failed));
	json_object_set_new(o, "rate_per_s", clocks_json_ratio(b->rate_per_s));
	json_object_set_new(o, "equivalent_downtime_s", clocks_json_ratio(b->downtime_s));
	json_object_set_new(o, "window_sent", clocks_json_n(b->window_sent));
	json_object_set_new(o, "window_failed", clocks_json_n(b->window_failed));
	json_object_set_new(o, "window_lost_share", clocks_json_ratio(b->window_lost));
	json_object_set_new(o, "budget_share_downtime", clocks_json_ratio(b->share_downtime));
	json_object_set_new(o, "budget_share_window", clocks_json_ratio(b->share_window));
	return o;
}

static json_t *clocks_json_scheme(const struct clocks_result *r)
{
	json_t *o = json_object();
	int dns = r->upstream_queries != CLOCKS_NA;

	/* the shape docs/clocks.md promises first, then the details */
	json_object_set_new(o, "detect_s", clocks_json_s(r->detect_ns));
	json_object_set_new(o, "steer_s", clocks_json_s(r->steer_ns));
	json_object_set_new(o, "window_s", clocks_json_s(r->window_ns));
	json_object_set_new(o, "last_per_client_s",
			    clocks_json_dist(&r->last_per_client, "clients", r->last_packet.n));
	json_object_set_new(o, "sent", clocks_json_n(r->sent));
	json_object_set_new(o, "lost_client", clocks_json_n(r->lost_client));
	json_object_set_new(o, "lost_capture", clocks_json_n(r->lost_capture));
	json_object_set_new(o, "capture_drops", clocks_json_n(r->capture_drops));
	if (dns)
		json_object_set_new(o, "upstream_queries", clocks_json_n(r->upstream_queries));
	json_object_set_new(o, "ok", clocks_json_n(r->ok));
	json_object_set_new(o, "errors", clocks_json_n(r->errors));
	json_object_set_new(o, "detect_at_ns", clocks_json_n(r->detect_at_ns));
	json_object_set_new(o, "steer_at_ns", clocks_json_n(r->steer_at_ns));
	if (dns)
		clocks_json_dns(o, r);
	json_object_set_new(o, "last_packet_s",
			    clocks_json_dist(&r->last_packet, "clients", CLOCKS_NA));
	json_t *by = json_object();
	for (int i = 0; i < r->nby_client; i++) {
		char id[16];
		snprintf(id, sizeof(id), "%u", r->by_client[i].client);
		json_object_set_new(by, id, clocks_json_s(r->by_client[i].last_ns));
	}
	json_object_set_new(o, "last_by_client_s", by);
	json_object_set_new(o, "replies", clocks_json_counts(r->replies, r->nreplies));
	json_object_set_new(o, "captured_after_t0", clocks_json_counts(r->after_t0, r->nafter_t0));
	if (r->has_budget)
		json_object_set_new(o, "budget", clocks_json_budget(&r->budget));
	return o;
}

/* clocks_note_repeated: is note k of notes (result i, -1 for the input's)
 * a repeat of an earlier one? The schemes share some warnings (the capture
 * drops); each is written once. */
static int clocks_note_repeated(const struct clocks_input *in, const struct clocks_result *res,
				int i, int k)
{
	const struct clocks_notes *notes = i < 0 ? &in->notes : &res[i].notes;

	for (int j = -1; j <= i; j++) {
		const struct clocks_notes *prev = j < 0 ? &in->notes : &res[j].notes;
		for (int m = 0; m < (j == i ? k : prev->n); m++)
			if (strcmp(prev->msg[m], notes->msg[k]) == 0)
				return 1;
	}
	return 0;
}

static void clocks_json_notes(json_t *arr, const struct clocks_input *in,
			      const struct clocks_result *res, int i)
{
	const struct clocks_notes *notes = i < 0 ? &in->notes : &res[i].notes;

	for (int k = 0; k < notes->n; k++)
		if (!clocks_note_repeated(in, res, i, k))
			json_array_append_new(arr, json_string(notes->msg[k]));
	if (notes->lost)
		json_array_append_new(arr, json_sprintf("%d more warnings not kept", notes->lost));
}

static json_t *clocks_json(const struct clocks_input *in, const struct clocks_result *res, int nres)
{
	const struct clocks_failure *f = &in->failure;
	json_t *root = json_object(), *failed = json_object(), *schemes = json_object();
	json_t *warnings = json_array();
	char via[INET_ADDRSTRLEN], prefix[INET_ADDRSTRLEN + 4], addr[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &f->via, via, sizeof(via));
	inet_ntop(AF_INET, &f->prefix, prefix, INET_ADDRSTRLEN);
	snprintf(prefix + strlen(prefix), 4, "/%d", f->prefixlen);
	inet_ntop(AF_INET, &f->address, addr, sizeof(addr));
	json_object_set_new(root, "lab", json_string(in->lab));
	json_object_set_new(root, "t0_ns", json_integer(f->t0_ns));
	json_object_set_new(root, "schemes", schemes);
	json_object_set_new(failed, "site", json_string(f->site));
	json_object_set_new(failed, "via", json_string(via));
	json_object_set_new(failed, "prefix", json_string(prefix));
	json_object_set_new(failed, "address", f->has_address ? json_string(addr) : json_null());
	json_object_set_new(root, "failed", failed);
	json_object_set_new(root, "port", json_integer(in->port));
	clocks_json_notes(warnings, in, res, -1);
	for (int i = 0; i < nres; i++) {
		json_object_set_new(schemes, res[i].scheme, clocks_json_scheme(&res[i]));
		clocks_json_notes(warnings, in, res, i);
	}
	json_object_set_new(root, "warnings", warnings);
	return root;
}

int clocks_write_json(const char *path, const struct clocks_input *in,
		      const struct clocks_result *res, int nres, char *err, size_t errlen)
{
	char tmp[PATH_MAX];
	json_t *root;
	int rc = -1;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	root = clocks_json(in, res, nres);
	if (root == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	errno = 0;
	if (json_dump_file(root, tmp, CLOCKS_JSON_FLAGS) == -1) {
		snprintf(err, errlen, "%s: cannot write: %s", tmp, errno ? strerror(errno) : "?");
		remove(tmp);
		goto out;
	}
	if (rename(tmp, path) == -1) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		remove(tmp);
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

#define CLOCKS_LABEL_W 26
#define CLOCKS_CELL_W 14

enum clocks_cell_kind {
	CLOCKS_CELL_SECONDS,
	CLOCKS_CELL_COUNT,
};

/* clocks_cell: one table cell: seconds, a count, "-" (missing) or "n/a"
 * (not a measure of the scheme). */
static const char *clocks_cell(char *buf, size_t len, int64_t v, enum clocks_cell_kind kind)
{
	if (v == CLOCKS_NONE)
		return "-";
	if (v == CLOCKS_NA)
		return "n/a";
	if (kind == CLOCKS_CELL_SECONDS)
		snprintf(buf, len, "%.6f", (double)v / 1e9);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

static void clocks_row(FILE *out, const char *name, const struct clocks_result *res, int nres,
		       size_t field, enum clocks_cell_kind kind)
{
	char buf[32];

	fprintf(out, "%-*s", CLOCKS_LABEL_W, name);
	for (int i = 0; i < nres; i++) {
		int64_t v = *(const int64_t *)((const char *)&res[i] + field);
		fprintf(out, " %*s", CLOCKS_CELL_W, clocks_cell(buf, sizeof(buf), v, kind));
	}
	fputc('\n', out);
}

static void clocks_rate_row(FILE *out, const char *name, const struct clocks_result *res, int nres)
{
	char buf[32];

	fprintf(out, "%-*s", CLOCKS_LABEL_W, name);
	for (int i = 0; i < nres; i++) {
		double v = clocks_per_s(&res[i]);
		const char *cell = res[i].upstream_queries == CLOCKS_NA ? "n/a" : "-";

		if (v >= 0) {
			snprintf(buf, sizeof(buf), "%.2f", v);
			cell = buf;
		}
		fprintf(out, " %*s", CLOCKS_CELL_W, cell);
	}
	fputc('\n', out);
}

static int64_t clocks_count_of(const struct clocks_result *r, int after, const char *name)
{
	const struct clocks_count *list = after ? r->after_t0 : r->replies;
	int n = after ? r->nafter_t0 : r->nreplies;

	for (int i = 0; i < n; i++)
		if (strcmp(list[i].name, name) == 0)
			return list[i].n;
	return CLOCKS_NONE;
}

/* clocks_count_rows: one row per name in any scheme's list, in the order
 * first seen. */
static void clocks_count_rows(FILE *out, const char *what, const struct clocks_result *res,
			      int nres, int after)
{
	char label[CLOCKS_NAME_MAX + 32], buf[32];

	for (int i = 0; i < nres; i++) {
		const struct clocks_count *list = after ? res[i].after_t0 : res[i].replies;
		int n = after ? res[i].nafter_t0 : res[i].nreplies;

		for (int k = 0; k < n; k++) {
			int seen = 0;

			for (int j = 0; j < i; j++)
				seen |=
				    clocks_count_of(&res[j], after, list[k].name) != CLOCKS_NONE;
			if (seen)
				continue;
			snprintf(label, sizeof(label), "%s %s", what, list[k].name);
			fprintf(out, "%-*s", CLOCKS_LABEL_W, label);
			for (int j = 0; j < nres; j++) {
				int64_t v = clocks_count_of(&res[j], after, list[k].name);
				/* a scheme that never saw the name: none of its requests */
				fprintf(out, " %*s", CLOCKS_CELL_W,
					clocks_cell(buf, sizeof(buf), v == CLOCKS_NONE ? 0 : v,
						    CLOCKS_CELL_COUNT));
			}
			fputc('\n', out);
		}
	}
}

/* clocks_legend: what detect and steer are in each scheme of the table */
static void clocks_legend(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			  int nres)
{
	const struct clocks_failure *f = &in->failure;
	char via[INET_ADDRSTRLEN], addr[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &f->via, via, sizeof(via));
	if (f->has_address)
		inet_ntop(AF_INET, &f->address, addr, sizeof(addr));
	else
		snprintf(addr, sizeof(addr), "its address");
	fputc('\n', out);
	for (int i = 0; i < nres; i++) {
		if (strcmp(res[i].scheme, "anycast") == 0)
			fprintf(out,
				"anycast: detect = %s's prober declares it dead; steer = the route "
				"via %s leaves the FIB\n",
				f->site, via);
		else if (strcmp(res[i].scheme, "dns") == 0)
			fprintf(out,
				"dns: detect = authd's health verdict on %s; steer = authd stops "
				"handing out %s\n",
				f->site, addr);
	}
	fprintf(out,
		"last packet: per client, its last request to %s after t0 (0 if none); "
		"window = the max\n",
		f->site);
}

void clocks_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		  int nres)
{
	const struct clocks_failure *f = &in->failure;
	char via[INET_ADDRSTRLEN], prefix[INET_ADDRSTRLEN], addr[INET_ADDRSTRLEN], when[32];
	time_t sec = (time_t)(f->t0_ns / 1000000000);
	struct tm tm;

	inet_ntop(AF_INET, &f->via, via, sizeof(via));
	inet_ntop(AF_INET, &f->prefix, prefix, sizeof(prefix));
	if (f->has_address)
		inet_ntop(AF_INET, &f->address, addr, sizeof(addr));
	else
		snprintf(addr, sizeof(addr), "unknown");
	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(out, "lab %s: site %s failed at t0 = %s.%09lld UTC\n", in->lab, f->site, when,
		(long long)(f->t0_ns % 1000000000));
	fprintf(out,
		"(site link %s, site address %s, service %s/%d, request port %u; clocks in "
		"seconds after t0)\n\n",
		via, addr, prefix, f->prefixlen, in->port);
	fprintf(out, "%-*s", CLOCKS_LABEL_W, "");
	for (int i = 0; i < nres; i++)
		fprintf(out, " %*s", CLOCKS_CELL_W, res[i].scheme);
	fputc('\n', out);
#define ROW(name, member, kind)                                                                    \
	clocks_row(out, name, res, nres, offsetof(struct clocks_result, member), kind)
#define S CLOCKS_CELL_SECONDS
#define N CLOCKS_CELL_COUNT
	ROW("detect (s)", detect_ns, S);
	ROW("remote prober dead (s)", remote_dead_ns, S);
	ROW("steer (s)", steer_ns, S);
	ROW("window (s)", window_ns, S);
	ROW("last packet p50 (s)", last_per_client.p50_ns, S);
	ROW("last packet p99 (s)", last_per_client.p99_ns, S);
	ROW("last packet max (s)", last_per_client.max_ns, S);
	ROW("clients", last_per_client.n, N);
	ROW("clients sending after t0", last_packet.n, N);
	ROW("requests sent", sent, N);
	ROW("ok", ok, N);
	ROW("lost (client)", lost_client, N);
	ROW("lost (capture)", lost_capture, N);
	ROW("errors", errors, N);
	ROW("capture drops", capture_drops, N);
	ROW("upstream DNS queries", upstream_queries, N);
#undef S
#undef N
#undef ROW
	clocks_rate_row(out, "upstream queries per s", res, nres);
	clocks_count_rows(out, "replies from", res, nres, 0);
	clocks_count_rows(out, "captured after t0 at", res, nres, 1);
	clocks_legend(out, in, res, nres);
	for (int i = -1; i < nres; i++) {
		const struct clocks_notes *notes = i < 0 ? &in->notes : &res[i].notes;
		for (int k = 0; k < notes->n; k++)
			if (!clocks_note_repeated(in, res, i, k))
				fprintf(out, "warning: %s\n", notes->msg[k]);
		if (notes->lost)
			fprintf(out, "warning: %d more warnings not kept\n", notes->lost);
	}
}
