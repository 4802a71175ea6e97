/*
 * Writing the clocks: clocks.json (jansson) and the table for a person, one
 * column per scheme. Clocks are seconds relative to t0; a missing one is
 * null in JSON and "-" in the table, and the warnings say why.
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

static json_t *clocks_json_scheme(const struct clocks_result *r)
{
	json_t *o = json_object(), *last = json_object();

	/* the required shape first, then the details */
	json_object_set_new(o, "detect_s", clocks_json_s(r->detect_ns));
	json_object_set_new(o, "steer_s", clocks_json_s(r->steer_ns));
	json_object_set_new(o, "window_s", clocks_json_s(r->window_ns));
	json_object_set_new(o, "sent", clocks_json_n(r->sent));
	json_object_set_new(o, "lost_client", clocks_json_n(r->lost_client));
	json_object_set_new(o, "lost_capture", clocks_json_n(r->lost_capture));
	json_object_set_new(o, "capture_drops", clocks_json_n(r->capture_drops));
	json_object_set_new(o, "ok", clocks_json_n(r->ok));
	json_object_set_new(o, "errors", clocks_json_n(r->errors));
	json_object_set_new(o, "detect_at_ns", clocks_json_n(r->detect_at_ns));
	json_object_set_new(o, "steer_at_ns", clocks_json_n(r->steer_at_ns));
	json_object_set_new(last, "clients", json_integer(r->last_packet.n));
	json_object_set_new(last, "p50", clocks_json_s(r->last_packet.p50_ns));
	json_object_set_new(last, "p99", clocks_json_s(r->last_packet.p99_ns));
	json_object_set_new(last, "max", clocks_json_s(r->last_packet.max_ns));
	json_object_set_new(o, "last_packet_s", last);
	json_object_set_new(o, "replies", clocks_json_counts(r->replies, r->nreplies));
	json_object_set_new(o, "captured_after_t0", clocks_json_counts(r->after_t0, r->nafter_t0));
	return o;
}

static void clocks_json_notes(json_t *arr, const struct clocks_notes *notes)
{
	for (int i = 0; i < notes->n; i++)
		json_array_append_new(arr, json_string(notes->msg[i]));
	if (notes->lost)
		json_array_append_new(arr, json_sprintf("%d more warnings not kept", notes->lost));
}

static json_t *clocks_json(const struct clocks_input *in, const struct clocks_result *res, int nres)
{
	const struct clocks_failure *f = &in->failure;
	json_t *root = json_object(), *failed = json_object(), *schemes = json_object();
	json_t *warnings = json_array();
	char via[INET_ADDRSTRLEN], prefix[INET_ADDRSTRLEN + 4];

	inet_ntop(AF_INET, &f->via, via, sizeof(via));
	inet_ntop(AF_INET, &f->prefix, prefix, INET_ADDRSTRLEN);
	snprintf(prefix + strlen(prefix), 4, "/%d", f->prefixlen);
	json_object_set_new(root, "lab", json_string(in->lab));
	json_object_set_new(root, "t0_ns", json_integer(f->t0_ns));
	json_object_set_new(root, "schemes", schemes);
	json_object_set_new(failed, "site", json_string(f->site));
	json_object_set_new(failed, "via", json_string(via));
	json_object_set_new(failed, "prefix", json_string(prefix));
	json_object_set_new(root, "failed", failed);
	json_object_set_new(root, "port", json_integer(in->port));
	clocks_json_notes(warnings, &in->notes);
	for (int i = 0; i < nres; i++) {
		json_object_set_new(schemes, res[i].scheme, clocks_json_scheme(&res[i]));
		clocks_json_notes(warnings, &res[i].notes);
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

/* clocks_cell: one table cell: seconds, a count or "-". */
static const char *clocks_cell(char *buf, size_t len, int64_t v, int seconds)
{
	if (v == CLOCKS_NONE)
		return "-";
	if (seconds)
		snprintf(buf, len, "%.6f", (double)v / 1e9);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

static void clocks_row(FILE *out, const char *name, const struct clocks_result *res, int nres,
		       size_t field, int seconds)
{
	char buf[32];

	fprintf(out, "%-26s", name);
	for (int i = 0; i < nres; i++) {
		int64_t v = *(const int64_t *)((const char *)&res[i] + field);
		fprintf(out, " %14s", clocks_cell(buf, sizeof(buf), v, seconds));
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
			fprintf(out, "%-26s", label);
			for (int j = 0; j < nres; j++)
				fprintf(out, " %14s",
					clocks_cell(buf, sizeof(buf),
						    clocks_count_of(&res[j], after, list[k].name),
						    0));
			fputc('\n', out);
		}
	}
}

void clocks_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		  int nres)
{
	const struct clocks_failure *f = &in->failure;
	char via[INET_ADDRSTRLEN], prefix[INET_ADDRSTRLEN], when[32];
	time_t sec = (time_t)(f->t0_ns / 1000000000);
	struct tm tm;

	inet_ntop(AF_INET, &f->via, via, sizeof(via));
	inet_ntop(AF_INET, &f->prefix, prefix, sizeof(prefix));
	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(out, "lab %s: site %s failed at t0 = %s.%09lld UTC\n", in->lab, f->site, when,
		(long long)(f->t0_ns % 1000000000));
	fprintf(out,
		"(site link %s, service %s/%d, request port %u; clocks in seconds after t0)\n\n",
		via, prefix, f->prefixlen, in->port);
	fprintf(out, "%-26s", "clock");
	for (int i = 0; i < nres; i++)
		fprintf(out, " %14s", res[i].scheme);
	fputc('\n', out);
#define ROW(name, member, s)                                                                       \
	clocks_row(out, name, res, nres, offsetof(struct clocks_result, member), s)
	ROW("detect_s", detect_ns, 1);
	ROW("steer_s", steer_ns, 1);
	ROW("window_s", window_ns, 1);
	ROW("last packet p50_s", last_packet.p50_ns, 1);
	ROW("last packet p99_s", last_packet.p99_ns, 1);
	ROW("last packet max_s", last_packet.max_ns, 1);
	ROW("clients after t0", last_packet.n, 0);
	ROW("sent", sent, 0);
	ROW("ok", ok, 0);
	ROW("lost_client", lost_client, 0);
	ROW("errors", errors, 0);
	ROW("lost_capture", lost_capture, 0);
	ROW("capture_drops", capture_drops, 0);
#undef ROW
	clocks_count_rows(out, "replies from", res, nres, 0);
	clocks_count_rows(out, "captured after t0 at", res, nres, 1);
	for (int i = -1; i < nres; i++) {
		const struct clocks_notes *notes = i < 0 ? &in->notes : &res[i].notes;
		for (int k = 0; k < notes->n; k++)
			fprintf(out, "warning: %s\n", notes->msg[k]);
		if (notes->lost)
			fprintf(out, "warning: %d more warnings not kept\n", notes->lost);
	}
}
