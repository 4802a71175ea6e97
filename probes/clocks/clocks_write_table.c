/*
 * The clocks as a table for a person, one column per scheme (clocks.json is
 * written by clocks_write.c). A missing clock is "-" and the warnings say
 * why; a measure one scheme does not have (upstream queries for anycast) is
 * "n/a". A scheme the run has no flows of has no column. A clock the end of
 * the observation cut short is a lower bound: "≥ 4.003000". The verdict
 * (verdict.c) is the first and last lines of the table when the run is
 * invalid or warned.
 */
#include "clocks_write.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clocks_conn.h"
#include "clocks_family.h"
#include "clocks_int.h"

#define CLOCKS_LABEL_W 26
#define CLOCKS_CELL_W 14
#define CLOCKS_GE "\u2265 "  /* a lower bound: ≥, then a space */
#define CLOCKS_PM " \u00b1 " /* a clock's uncertainty (several hosts): ±, two bytes */
#define CLOCKS_CELL_W_U 26   /* a cell "≥ 0.450000 ± 0.005 ms" */

/* the width of the schemes' cells: CLOCKS_CELL_W_U in a table of a lab over
 * several hosts with a clock of some uncertainty (clocks_print_table) */
static int clocks_cell_w = CLOCKS_CELL_W;

enum clocks_cell_kind {
	CLOCKS_CELL_SECONDS,
	CLOCKS_CELL_COUNT,
};

/* clocks_cell: one table cell: seconds, a count, "-" (missing) or "n/a"
 * (not a measure of the scheme); lb: seconds that are a lower bound. */
static const char *clocks_cell(char *buf, size_t len, int64_t v, enum clocks_cell_kind kind, int lb)
{
	if (v == CLOCKS_NONE)
		return "-";
	if (v == CLOCKS_NA)
		return "n/a";
	if (kind == CLOCKS_CELL_SECONDS)
		snprintf(buf, len, "%s%.6f", lb ? CLOCKS_GE : "", (double)v / 1e9);
	else
		snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

/* clocks_cell_u: cell (seconds) with its uncertainty u_ns (several
 * hosts: "0.450000 ± 0.005 ms"), into buf; cell as it is if u_ns is none
 * or 0 (the reference's stamp) */
static const char *clocks_cell_u(char *buf, size_t len, const char *cell, int64_t u_ns)
{
	if (u_ns == CLOCKS_NONE || u_ns <= 0 || cell[0] == '-' || cell[0] == 'n')
		return cell;
	snprintf(buf, len, "%s" CLOCKS_PM "%.3f ms", cell, (double)u_ns / 1e6);
	return buf;
}

/* clocks_put_cell: a right-aligned cell; "≥" is one column of three bytes,
 * "±" one of two */
static void clocks_put_cell(FILE *out, const char *cell)
{
	int extra = strncmp(cell, CLOCKS_GE, strlen(CLOCKS_GE)) == 0 ? 2 : 0;

	extra += strstr(cell, CLOCKS_PM) ? 1 : 0;
	fprintf(out, " %*s", clocks_cell_w + extra, cell);
}

/* clocks_any_u: a present scheme has a clock of some uncertainty */
static int clocks_any_u(const struct clocks_result *res, int nres)
{
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows && clocks_hosts_any_u(&res[i]))
			return 1;
	return 0;
}

/* clocks_any_failback: a present scheme has fail-back clocks */
static int clocks_any_failback(const struct clocks_result *res, int nres)
{
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows && res[i].has_failback)
			return 1;
	return 0;
}

/* clocks_any_rescued: a present scheme has Happy Eyeballs clients */
static int clocks_any_rescued(const struct clocks_result *res, int nres)
{
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows && res[i].rescued != CLOCKS_NONE)
			return 1;
	return 0;
}

/* clocks_row: a row of the int64_t at field of each present scheme; the
 * int at lbfield (if not -1) says it is a lower bound, the int64_t at
 * ufield (if not -1) its uncertainty */
static void clocks_row(FILE *out, const char *name, const struct clocks_result *res, int nres,
		       size_t field, long lbfield, long ufield, enum clocks_cell_kind kind)
{
	char buf[48], ubuf[80];

	fprintf(out, "%-*s", CLOCKS_LABEL_W, name);
	for (int i = 0; i < nres; i++) {
		int64_t v = *(const int64_t *)((const char *)&res[i] + field);
		int lb = lbfield < 0 ? 0 : *(const int *)((const char *)&res[i] + lbfield);
		int64_t u =
		    ufield < 0 ? CLOCKS_NONE : *(const int64_t *)((const char *)&res[i] + ufield);

		/* a clock of 0 is 0 by absence (a client that sent nothing to
		 * the dead site after t0), of no stamp: no ± */
		if (v == 0)
			u = CLOCKS_NONE;

		if (!res[i].noflows)
			clocks_put_cell(
			    out, clocks_cell_u(ubuf, sizeof(ubuf),
					       clocks_cell(buf, sizeof(buf), v, kind, lb), u));
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

		if (res[i].noflows)
			continue;
		if (v >= 0) {
			snprintf(buf, sizeof(buf), "%.2f", v);
			cell = buf;
		}
		clocks_put_cell(out, cell);
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

/* clocks_count_rows: one row per name in any present scheme's list, in the
 * order first seen. */
static void clocks_count_rows(FILE *out, const char *what, const struct clocks_result *res,
			      int nres, int after)
{
	char label[CLOCKS_NAME_MAX + 32], buf[32];

	for (int i = 0; i < nres; i++) {
		const struct clocks_count *list = after ? res[i].after_t0 : res[i].replies;
		int n = after ? res[i].nafter_t0 : res[i].nreplies;

		if (res[i].noflows)
			continue;
		for (int k = 0; k < n; k++) {
			int seen = 0;

			for (int j = 0; j < i; j++)
				seen |=
				    !res[j].noflows &&
				    clocks_count_of(&res[j], after, list[k].name) != CLOCKS_NONE;
			if (seen)
				continue;
			snprintf(label, sizeof(label), "%s %s", what, list[k].name);
			fprintf(out, "%-*s", CLOCKS_LABEL_W, label);
			for (int j = 0; j < nres; j++) {
				int64_t v = clocks_count_of(&res[j], after, list[k].name);

				if (res[j].noflows)
					continue;
				/* a scheme that never saw the name: none of its requests */
				clocks_put_cell(out, clocks_cell(buf, sizeof(buf),
								 v == CLOCKS_NONE ? 0 : v,
								 CLOCKS_CELL_COUNT, 0));
			}
			fputc('\n', out);
		}
	}
}

/* clocks_legend: what detect and steer are in each scheme of the table,
 * which schemes are absent, what "≥" means */
static void clocks_legend(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			  int nres)
{
	const struct clocks_failure *f = &in->failure;
	char via[INET6_ADDRSTRLEN], addr[INET6_ADDRSTRLEN];
	int lb = 0;

	clocks_addr_name(in, f->via, via, sizeof(via));
	if (f->has_address)
		clocks_addr_name(in, f->address, addr, sizeof(addr));
	else
		snprintf(addr, sizeof(addr), "its address");
	fputc('\n', out);
	for (int i = 0; i < nres; i++) {
		if (res[i].noflows)
			fprintf(
			    out,
			    "%s: absent: the run has no %s in the records or the "
			    "captures\n",
			    res[i].scheme,
			    strcmp(res[i].scheme, "dns") == 0
				? "DNS-steered flows (client ids from " WIRE_DNS_CLIENT_BASE_TEXT
				  ")"
				: "anycast flows (client ids 1-99999)");
		else if (strcmp(res[i].scheme, "anycast") == 0 && res[i].detect_by_hold)
			fprintf(out,
				"anycast: detect = a router's hold timer expires %s's route (no "
				"announcement for static_hold); steer = the route via %s leaves "
				"the FIB\n",
				f->site, via);
		else if (strcmp(res[i].scheme, "anycast") == 0)
			fprintf(out,
				"anycast: detect = %s's prober declares it dead; steer = the route "
				"via %s leaves the FIB\n",
				f->site, via);
		else if (strcmp(res[i].scheme, "dns") == 0)
			fprintf(out,
				"dns: detect = authd's health verdict on %s; steer = authd stops "
				"handing out %s\n",
				f->site, addr);
		lb |= !res[i].noflows && res[i].window_lb;
	}
	fprintf(out,
		"last packet: per client, its last request to %s after t0 (0 if none); "
		"window = the max\n",
		f->site);
	if (lb)
		fprintf(out,
			CLOCKS_GE "a lower bound: the observation ended while a client still "
				  "sent to %s (window_cut)\n",
			f->site);
}

/* clocks_codes: the codes of the notes list[0..n) that invalidate (or do
 * not), each once, comma-separated into buf */
static const char *clocks_codes(char *buf, size_t len, const struct clocks_warning **list, int n,
				int invalidates)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int k = 0; k < n && off < len; k++) {
		int seen = 0;

		if (list[k]->invalidates != invalidates)
			continue;
		for (int m = 0; m < k && !seen; m++)
			seen = list[m]->invalidates == invalidates &&
			       strcmp(list[m]->code, list[k]->code) == 0;
		if (!seen)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
						list[k]->code);
	}
	return buf;
}

/* clocks_count_invalid: how many of list[0..n) invalidate the run */
static int clocks_count_invalid(const struct clocks_warning **list, int n)
{
	int bad = 0;

	for (int k = 0; k < n; k++)
		bad += list[k]->invalidates;
	return bad;
}

void clocks_print_warnings(FILE *out, const struct clocks_input *in,
			   const struct clocks_result *res, int nres, const struct clocks_notes *v)
{
	const struct clocks_warning *list[CLOCKS_MAX_LIST];
	int lost, n = clocks_warnings(in, res, nres, v, list, CLOCKS_MAX_LIST, &lost);
	int bad = clocks_count_invalid(list, n), more = n - bad + lost;

	if (!clocks_valid(in, res, nres, v))
		fprintf(out,
			"*** INVALID RUN: %d self-check%s failed%s; these clocks must not be "
			"quoted as measured (docs/clocks.md, \"Verdict\") ***\n",
			bad, bad == 1 ? "" : "s",
			more == 0   ? ""
			: more == 1 ? ", and 1 warning"
				    : ", and more warnings");
	else if (n + lost > 0)
		fprintf(out, "%d warning%s (the run is valid; docs/clocks.md, \"Verdict\"):\n",
			n + lost, n + lost == 1 ? "" : "s");
	else
		return;
	/* each once, one line, the invalidating ones first */
	for (int k = 0; k < n; k++)
		fprintf(out, "%s (%s): %s\n", list[k]->invalidates ? "INVALID" : "warning",
			list[k]->code, list[k]->msg);
	if (lost)
		fprintf(out, "warning: %d more warnings not kept\n", lost);
}

void clocks_print_verdict(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			  int nres, const struct clocks_notes *v)
{
	const struct clocks_warning *list[CLOCKS_MAX_LIST];
	int lost, n = clocks_warnings(in, res, nres, v, list, CLOCKS_MAX_LIST, &lost);
	char codes[512];

	/* the reasons were said above, once: here the verdict, and for an
	 * invalid run the codes a script looks for */
	if (!clocks_valid(in, res, nres, v))
		fprintf(out, "*** INVALID RUN (%s): see docs/clocks.md, \"Verdict\" ***\n",
			clocks_codes(codes, sizeof(codes), list, n, 1));
	else if (n + lost > 0)
		fprintf(out, "valid run, with %d warning%s (above; docs/clocks.md, \"Verdict\")\n",
			n + lost, n + lost == 1 ? "" : "s");
	else
		fprintf(out, "valid run: every self-check passed (docs/clocks.md, \"Verdict\")\n");
}

/* clocks_print_steady: a run without a failure: what was sent and answered,
 * and no clock (docs/clocks.md, "Steady state") */
static void clocks_print_steady(FILE *out, const struct clocks_input *in,
				const struct clocks_result *res, int nres,
				const struct clocks_notes *v, int flags)
{
	fprintf(out,
		"lab %s: steady state: no failure (request port %u; no t0, no failover "
		"clocks)\n",
		in->lab, in->port);
	if (flags & CLOCKS_PRINT_WARNINGS)
		clocks_print_warnings(out, in, res, nres, v);
	fputc('\n', out);
	fprintf(out, "%-*s", CLOCKS_LABEL_W, "");
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows)
			fprintf(out, " %*s", clocks_cell_w, res[i].scheme);
	fputc('\n', out);
#define ROW(name, member, kind)                                                                    \
	clocks_row(out, name, res, nres, offsetof(struct clocks_result, member), -1, -1, kind)
	ROW("requests sent", sent, CLOCKS_CELL_COUNT);
	ROW("ok", ok, CLOCKS_CELL_COUNT);
	ROW("lost (client)", lost_client, CLOCKS_CELL_COUNT);
	ROW("errors", errors, CLOCKS_CELL_COUNT);
	ROW("capture drops", capture_drops, CLOCKS_CELL_COUNT);
	ROW("upstream DNS queries", upstream_queries, CLOCKS_CELL_COUNT);
#undef ROW
	clocks_rate_row(out, "upstream queries per s", res, nres);
	clocks_count_rows(out, "replies from", res, nres, 0);
	clocks_steering_print(out, in);
	clocks_shares_print(out, in);
	clocks_conn_print(out, in);
	if (flags & CLOCKS_PRINT_VERDICT)
		clocks_print_verdict(out, in, res, nres, v);
}

void clocks_print_table(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			int nres, const struct clocks_notes *v, int flags)
{
	const struct clocks_failure *f = &in->failure;
	char via[INET6_ADDRSTRLEN], prefix[INET6_ADDRSTRLEN], addr[INET6_ADDRSTRLEN], when[32];
	time_t sec = (time_t)(f->t0_ns / 1000000000);
	struct tm tm;

	clocks_addr_name(in, f->via, via, sizeof(via));
	clocks_addr_name(in, f->prefix, prefix, sizeof(prefix));
	if (f->has_address)
		clocks_addr_name(in, f->address, addr, sizeof(addr));
	else
		snprintf(addr, sizeof(addr), "unknown");
	clocks_cell_w = CLOCKS_CELL_W;
	if (in->steady) {
		clocks_print_steady(out, in, res, nres, v, flags);
		return;
	}
	if (clocks_any_u(res, nres))
		clocks_cell_w = CLOCKS_CELL_W_U;
	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(out, "lab %s: site %s failed at t0 = %s.%09lld UTC\n", in->lab, f->site, when,
		(long long)(f->t0_ns % 1000000000));
	fprintf(out,
		"(site link %s, site address %s, service %s/%d, request port %u; clocks in "
		"seconds after t0)\n",
		via, addr, prefix, in->ip6 ? 128 : f->prefixlen, in->port);
	if (f->family) {
		int n = 0;

		fprintf(out, "failure of IPv%d alone: site %s answered IPv%d all along", f->family,
			f->site, f->family == 6 ? 4 : 6);
		for (int i = 0; i < nres; i++)
			if (!res[i].noflows && res[i].undetected)
				fprintf(out, "%s%s", n++ ? ", " : "; not detected within the run: ",
					res[i].scheme);
		fputc('\n', out);
	} else if (strcmp(f->how, "impair") == 0) {
		int n = 0;

		fprintf(out, "gray failure: site %s's link was impaired (slow or lossy, not out)",
			f->site);
		for (int i = 0; i < nres; i++)
			if (!res[i].noflows && res[i].undetected)
				fprintf(out, "%s%s", n++ ? ", " : "; not detected within the run: ",
					res[i].scheme);
		fputc('\n', out);
	}
	if (flags & CLOCKS_PRINT_WARNINGS)
		clocks_print_warnings(out, in, res, nres, v);
	fputc('\n', out);
	fprintf(out, "%-*s", CLOCKS_LABEL_W, "");
	for (int i = 0; i < nres; i++)
		if (!res[i].noflows)
			fprintf(out, " %*s", clocks_cell_w, res[i].scheme);
	fputc('\n', out);
#define ROW(name, member, kind)                                                                    \
	clocks_row(out, name, res, nres, offsetof(struct clocks_result, member), -1, -1, kind)
#define UROW(name, member, u)                                                                      \
	clocks_row(out, name, res, nres, offsetof(struct clocks_result, member), -1,               \
		   (long)offsetof(struct clocks_result, u), CLOCKS_CELL_SECONDS)
#define LBROW(name, member, lb, u)                                                                 \
	clocks_row(out, name, res, nres, offsetof(struct clocks_result, member),                   \
		   (long)offsetof(struct clocks_result, lb),                                       \
		   (long)offsetof(struct clocks_result, u), CLOCKS_CELL_SECONDS)
#define S CLOCKS_CELL_SECONDS
#define N CLOCKS_CELL_COUNT
	UROW("detect (s)", detect_ns, u_detect_ns);
	UROW("remote prober dead (s)", remote_dead_ns, u_remote_dead_ns);
	UROW("steer (s)", steer_ns, u_steer_ns);
	LBROW("window (s)", window_ns, window_lb, u_window_ns);
	LBROW("last packet p50 (s)", last_per_client.p50_ns, last_per_client.lb_p50,
	      u_last_packet_ns);
	LBROW("last packet p99 (s)", last_per_client.p99_ns, last_per_client.lb_p99,
	      u_last_packet_ns);
	LBROW("last packet max (s)", last_per_client.max_ns, last_per_client.lb_max,
	      u_last_packet_ns);
	ROW("clients", last_per_client.n, N);
	ROW("clients sending after t0", last_packet.n, N);
	ROW("requests sent", sent, N);
	ROW("ok", ok, N);
	ROW("lost (client)", lost_client, N);
	ROW("lost (capture)", lost_capture, N);
	if (clocks_any_rescued(res, nres))
		ROW("rescued over IPv4", rescued, N);
	ROW("errors", errors, N);
	ROW("capture drops", capture_drops, N);
	ROW("upstream DNS queries", upstream_queries, N);
	if (clocks_any_failback(res, nres)) {
		ROW("recovered (s)", failback.recovered_ns, S);
		UROW("fail-back healthy (s)", failback.healthy_ns, failback.u_healthy_ns);
		UROW("fail-back steer (s)", failback.steer_ns, failback.u_steer_ns);
		UROW("fail-back first (s)", failback.first_ns, failback.u_first_ns);
		UROW("fail-back last (s)", failback.last_ns, failback.u_last_ns);
		ROW("clients back", failback.back, N);
	}
#undef S
#undef N
#undef LBROW
#undef ROW
#undef UROW
	clocks_rate_row(out, "upstream queries per s", res, nres);
	clocks_count_rows(out, "replies from", res, nres, 0);
	clocks_count_rows(out, "captured after t0 at", res, nres, 1);
	clocks_legend(out, in, res, nres);
	if (flags & CLOCKS_PRINT_MODEL)
		clocks_model_print(out, in, res, nres);
	clocks_shares_print(out, in);
	clocks_family_print(out, in);
	clocks_conn_print(out, in);
	clocks_multi_print_all(out, in);
	if (flags & CLOCKS_PRINT_VERDICT)
		clocks_print_verdict(out, in, res, nres, v);
}

void clocks_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		  int nres, const struct clocks_notes *v)
{
	clocks_print_table(out, in, res, nres, v,
			   CLOCKS_PRINT_WARNINGS | CLOCKS_PRINT_VERDICT | CLOCKS_PRINT_MODEL);
}
