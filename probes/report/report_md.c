/*
 * report.md: one page a person reads after a run, in Markdown that also
 * reads as plain text. Its title, then the verdict when the run is invalid
 * or warned (each warning once, in a banner no reader can miss; an invalid
 * run's title says so too), then the clocks as the terminal shows them,
 * the error budget, the routing, the impairments (configured against
 * measured), the decay at readable marks, the upstream load, the plots, every
 * parameter (the topology as used, the analysis options), the files, and
 * last the machine it was written on (versions, kernel, sch_netem): the
 * only lines that change when the same run is reported elsewhere.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report_int.h"
#include "timeutil.h"

static void report_md_table(FILE *fp, void (*fill)(const struct report *, struct texttable *),
			    const struct report *r)
{
	struct texttable t;

	fill(r, &t);
	fputc('\n', fp);
	texttable_print(&t, fp, 1);
	fputc('\n', fp);
	texttable_free(&t);
}

/* report_md_banner: an invalid run's reasons, or a valid run's warnings, with
 * their count, one line each, after the title */
static void report_md_banner(const struct report *r, FILE *fp)
{
	const struct clocks_warning *list[CLOCKS_MAX_LIST];
	int lost, bad = 0;
	int n = clocks_warnings(&r->in, r->res, REPORT_NSCHEMES, &r->verdict, list, CLOCKS_MAX_LIST,
				&lost);

	if (n + lost == 0 && r->valid)
		return;
	for (int k = 0; k < n; k++)
		bad += list[k]->invalidates;
	if (!r->valid)
		fprintf(fp,
			"**INVALID RUN**: %d self-check%s failed%s; the clocks below must not be "
			"quoted as measured (docs/clocks.md, \"Verdict\"; `steerlab report` exits "
			"with status 3):\n\n",
			bad, bad == 1 ? "" : "s",
			n + lost - bad == 0   ? ""
			: n + lost - bad == 1 ? ", and 1 warning"
					      : ", and more warnings");
	else
		fprintf(fp, "**%d warning%s** (the run is valid; docs/clocks.md, \"Verdict\"):\n\n",
			n + lost, n + lost == 1 ? "" : "s");
	for (int k = 0; k < n; k++)
		fprintf(fp, "- %s`%s`: %s\n", list[k]->invalidates ? "**invalid** " : "",
			list[k]->code, list[k]->msg);
	if (lost)
		fprintf(fp, "- and %d more, not kept\n", lost);
	fputc('\n', fp);
}

static void report_md_head(const struct report *r, FILE *fp)
{
	const struct clocks_failure *f = &r->in.failure;
	time_t sec = (time_t)(f->t0_ns / NSEC_PER_SEC);
	char when[32];
	struct tm tm;

	gmtime_r(&sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	/* an invalid run says so in its title: the first line anyone reads */
	fprintf(fp, "# Run report: lab %s%s\n\n", r->in.lab, r->valid ? "" : " (INVALID RUN)");
	report_md_banner(r, fp);
	if (r->in.steady) {
		/* no t0, no failover clocks: the counts, and the steering */
		fprintf(fp,
			"Steady state: no failure. No event took a site out, so the run has no "
			"t0 and no failover clocks (docs/clocks.md, \"Steady state\"); it measures "
			"the steering: each site's share of the requests, per scheme and client, "
			"below. `steerlab report RUN_DIR` writes this page and every file it names "
			"again from the recorded captures and events, without running "
			"anything.\n\n");
		fprintf(fp, "## Counts\n\nAs `steerlab report` prints them (docs/clocks.md).\n\n"
			    "```text\n");
		clocks_print_table(fp, &r->in, r->res, REPORT_NSCHEMES, &r->verdict, 0);
		fprintf(fp, "```\n\n");
		return;
	}
	fprintf(fp,
		"Site %s failed at t0 = %s.%09lld UTC (`site_failed` in lab.events.jsonl). Times "
		"are in seconds after t0. `steerlab report RUN_DIR` writes this page and every "
		"file it names again from the recorded captures and events, without running "
		"anything.\n\n",
		f->site, when, (long long)(f->t0_ns % NSEC_PER_SEC));
	/* where fail_jitter put t0, and the seed that makes it again */
	if (r->in.seed != CLOCKS_NONE && f->nominal_at_ns != CLOCKS_NONE &&
	    f->jitter_offset_ns != CLOCKS_NONE && r->in.fail_jitter_ns > 0)
		fprintf(fp,
			"The failure came %.3f s after the clients started: `fail_at` %.3f s plus "
			"%.3f s of `fail_jitter` (%.3f s), drawn from seed %lld; `--set seed=%lld` "
			"fails at the same offset again (docs/repeat.md).\n\n",
			(double)(f->nominal_at_ns + f->jitter_offset_ns) / NSEC_PER_SEC,
			(double)f->nominal_at_ns / NSEC_PER_SEC,
			(double)f->jitter_offset_ns / NSEC_PER_SEC,
			(double)r->in.fail_jitter_ns / NSEC_PER_SEC, (long long)r->in.seed,
			(long long)r->in.seed);
	else if (r->in.seed != CLOCKS_NONE)
		fprintf(fp, "Seed %lld, no `fail_jitter`: the failure came at `fail_at`.\n\n",
			(long long)r->in.seed);
	fprintf(fp, "## Clocks\n\nAs `steerlab report` prints them; every clock is defined in "
		    "docs/clocks.md.\n\n```text\n");
	/* the warnings are above, the verdict too: the table and the model */
	clocks_print_table(fp, &r->in, r->res, REPORT_NSCHEMES, &r->verdict, CLOCKS_PRINT_MODEL);
	fprintf(fp, "```\n\n");
}

/* report_md_model: what the model beside the clocks is, what it assumes
 * and what it leaves out (its table is in the clocks' block) */
static void report_md_model(const struct report *r, FILE *fp)
{
	const struct clocks_model *m = r->in.model;
	int any = 0;

	if (m == NULL)
		return;
	fprintf(fp, "## The model beside the measurement\n\n");
	if (!m->known) {
		fprintf(fp, "No model of this run: %s (docs/model.md).\n\n", m->why);
		return;
	}
	fprintf(fp,
		"The model under the clocks above is what `steerlab model` predicts for this run "
		"from its own topology.ini (the topology as it ran, every `--set` applied), the "
		"failure at the run's own instant, %.3f s into the traffic (docs/model.md). A "
		"clock that depends on a random phase (the failure's in each prober's cycle) is "
		"given as p50 (p5-p95) over %u draws; it *agrees* when the measured clock is "
		"within the draws' bounds widened by %g s (a count by what that much changes: "
		"docs/clocks.md, \"The model beside the measurement\"), and one that does not "
		"raises the warning `model_disagrees` (docs/clocks.md, \"The verdict\"). "
		"clocks.json has each scheme's `model`, with "
		"the keys of its measured clocks; decay.csv the model's share per bucket "
		"(`SCHEME_model_share`), drawn dashed on decay.png.\n\nThe model assumes:\n\n",
		m->t0_s, m->samples, (double)CLOCKS_MODEL_TOL_NS / NSEC_PER_SEC);
	for (int k = 0; k < m->nnotes; k++)
		if (!m->not_modelled[k])
			fprintf(fp, "- %s\n", m->note[k]);
	for (int k = 0; k < m->nnotes; k++)
		if (m->not_modelled[k])
			fprintf(fp, "%s- %s\n", any++ ? "" : "\nNot modelled:\n\n", m->note[k]);
	fputc('\n', fp);
}

/* report_md_explain: which scheme left first, and what held each, in words, then
 * the causes */
static void report_md_explain(const struct report *r, FILE *fp)
{
	if (r->ex.nwords == 0)
		return;
	fprintf(fp, "## Who left first, and why\n\n");
	for (int k = 0; k < r->ex.nwords; k++)
		fprintf(fp, "- %s\n", r->ex.words[k]);
	fprintf(fp,
		"\nEach request that reached the dead site %s after t0 (those the window and the "
		"decay count) is given the cause that held its client there when it was sent, "
		"and who, by name (docs/clocks.md, \"Explain\"); clocks.json's `explain` has "
		"them%s.\n",
		r->in.failure.site,
		report_has_causes(r) ? ", decay-causes.csv each scheme's decay by cause" : "");
	report_md_table(fp, report_cause_table, r);
	if (r->plot_causes && r->drawn)
		fprintf(fp, "![The decay by cause](decay-causes.png)\n\n");
}

static void report_md_budget(const struct report *r, FILE *fp)
{
	const struct clocks_budget *b = &r->res[0].budget;
	char dur[48];

	fprintf(fp,
		"## Error budget\n\n"
		"SLO %g %%%s: a monthly error budget of %s in a 30-day month. Failed "
		"requests are the clients' timeouts and errors (`lost_client` + `errors`); a "
		"scheme's mean request rate is its requests sent over the time the clients sent.\n",
		r->slo_pct, r->slo_default ? " (the default; `--slo` sets another)" : "",
		report_fmt_budget(dur, sizeof(dur), b->budget_s));
	report_md_table(fp, report_budget_table, r);
	report_budget_why(r, fp);
	fputc('\n', fp);
}

static void report_md_routing(const struct report *r, FILE *fp)
{
	if (!report_has_fib(r) || !report_present(r, 0))
		return;
	fprintf(fp, "## Routing\n\n"
		    "Each router's route to the service after t0, from its collector's route "
		    "events (`*.collector.events.jsonl`): its changes (path changes: those that "
		    "changed the route used), the first and the final one in seconds after t0, "
		    "and the route used before t0 and after, with the site its next hop leads "
		    "to (docs/clocks.md, \"FIB clocks\").\n");
	report_md_table(fp, report_fib_table, r);
	report_fib_summary(r, fp);
	if (report_has_fib6(r)) {
		fprintf(fp, "\n### IPv6\n\n"
			    "The same of the service's IPv6 address (a dual-stack lab), each next "
			    "hop as its IPv4 twin.\n");
		report_md_table(fp, report_fib6_table, r);
		report_fib6_summary(r, fp);
	}
	fprintf(fp,
		"\n### Catchments\n\n"
		"The site that answered most of each anycast client's last %d requests sent "
		"before t0, and of those sent after the last FIB change (docs/clocks.md, "
		"\"Catchments\").\n",
		CLOCKS_CATCH_LAST);
	report_md_table(fp, report_catch_table, r);
}

/* report_md_impairments: each client's path as configured and as measured, when
 * the lab impaired links (docs/clocks.md, "Impairments") */
static void report_md_impairments(const struct report *r, FILE *fp)
{
	const struct clocks_input *in = &r->in;
	struct clocks_impair_path *ip;
	struct texttable t;

	if (in->nimpair == 0)
		return;
	if ((ip = calloc(in->nimpair, sizeof(*ip))) == NULL ||
	    clocks_impair_measure(in, ip) == -1) {
		free(ip);
		fprintf(fp, "## Impairments\n\nNot measured: out of memory.\n\n");
		return;
	}
	fprintf(fp,
		"## Impairments\n\n"
		"Each client's path to each site, as its links were configured (applied by %s) "
		"and as measured: the p50 of the RTT of its requests the site answered before "
		"t0; more than max(0.5 ms, 5 %%) apart is `impairment_mismatch` (docs/clocks.md, "
		"\"Impairments\").\n",
		in->impair_mech);
	texttable_init(&t, 6);
	texttable_row(&t);
	texttable_cell(&t, "client");
	texttable_cell(&t, "site");
	texttable_cell(&t, "configured RTT (ms)");
	texttable_cell(&t, "configured loss");
	texttable_cell(&t, "requests");
	texttable_cell(&t, "measured RTT p50 (ms)");
	texttable_align(&t, 0, 1);
	texttable_align(&t, 1, 1);
	for (size_t p = 0; p < in->nimpair; p++) {
		texttable_row(&t);
		texttable_cell(&t, "%s", ip[p].client);
		texttable_cell(&t, "%s", ip[p].site);
		texttable_cell(&t, "%.3f", (double)ip[p].rtt_ns / 1e6);
		texttable_cell(&t, "%g %%", ip[p].loss_pct);
		texttable_cell(&t, "%lld", (long long)ip[p].n);
		if (ip[p].p50_ns == CLOCKS_NONE)
			texttable_cell(&t, "-");
		else
			texttable_cell(&t, "%.3f%s", (double)ip[p].p50_ns / 1e6,
				       ip[p].mismatch ? " (mismatch)" : "");
	}
	fputc('\n', fp);
	texttable_print(&t, fp, 1);
	fputc('\n', fp);
	texttable_free(&t);
	free(ip);
}

static void report_md_timeline(const struct report *r, FILE *fp)
{
	fprintf(fp, "## Timeline\n\n");
	if (!report_has_timeline(r) && r->in.steady) {
		fprintf(fp, "No event was applied: a steady-state run.\n\n");
		return;
	}
	if (!report_has_timeline(r)) {
		fprintf(fp,
			"No `event_applied` in lab.events.jsonl (a run from before the "
			"timeline): the one failure is `site_failed` of %s at t0.\n\n",
			r->in.failure.site);
		return;
	}
	fprintf(fp, "Every step of the timeline as applied (lab.events.jsonl's `event_applied`): "
		    "its time after t0, and `at`, from the clients' start with `fail_jitter` "
		    "included (docs/topology.md, \"The timeline\"). Each is a marker on the "
		    "decay plot.\n");
	report_md_table(fp, report_timeline_table, r);
	if (report_has_outages(r)) {
		fprintf(fp,
			"### DNS outages\n\n"
			"Per `dns-down` and `resolver-down` and per resolver, the DNS clients' "
			"resolutions (their `dns_resolution` events, at the instant each query "
			"left) by outcome: fresh, stale (the resolver flagged it, EDE 3), "
			"SERVFAIL, another response without an address (rcode), no response "
			"(timeout); while the outage lasted, then per second from it to the end "
			"(docs/clocks.md, \"DNS outage clocks\").\n");
		report_md_table(fp, report_outage_table, r);
		report_md_table(fp, report_outage_buckets_table, r);
	}
	if (!report_has_flaps(r))
		return;
	fprintf(fp,
		"### Flaps\n\n"
		"Per flap and router: its route changes of the service prefix from the "
		"flap's first down, and, for a router whose route led to the flapping site, "
		"how long after each up its route led there again; *suppressed* when the "
		"site stayed up %.0f s and the route did not come back within them, as "
		"route-flap damping withholds it (docs/clocks.md, \"Flap clocks\").\n",
		CLOCKS_FLAP_NORMAL_NS / 1e9);
	report_md_table(fp, report_flap_table, r);
}

static void report_md_decay(const struct report *r, FILE *fp)
{
	const struct clocks_decay *d = &r->decay;
	char bucket[48];

	fprintf(fp, "## Decay\n\n");
	if (r->in.traffic_interrupted == 1)
		fprintf(fp, "The run was interrupted: the observation ends when the traffic "
			    "stopped.\n\n");
	if (d->n == 0) {
		fprintf(fp, "Nothing was observed after t0: no decay curve.\n\n");
		return;
	}
	fprintf(fp,
		"The share of each scheme's requests still sent to the dead site %s, per bucket "
		"of %s%s over the %.3f s observed after t0: the scheme's requests captured on %s's "
		"link (those the window counts) over its requests captured on every site link. "
		"Below, at each time, the bucket that ends there; decay.csv has every bucket.\n",
		r->in.failure.site, report_fmt_duration(bucket, sizeof(bucket), d->bucket_ns),
		r->bucket_auto
		    ? " (the default: the largest of 1 s, 100 ms and 10 ms that makes at "
		      "least 50 buckets; `--bucket` sets another)"
		    : "",
		(double)d->end_ns / NSEC_PER_SEC, r->in.failure.site);
	report_md_table(fp, report_decay_table, r);
	if (report_has_failback_decay(r)) {
		fprintf(fp,
			"The timeline brought %s back %.3f s after t0: the table above stops "
			"there, and the fail-back is an episode of its own. The share of each "
			"scheme's requests sent to %s again, in the bucket that holds each time "
			"after the recovery (decay.csv: `SCHEME_back_share`; dashed on the plot; "
			"docs/clocks.md, \"Fail-back\"):\n",
			r->in.failure.site, (double)report_recovered_at(r) / NSEC_PER_SEC,
			r->in.failure.site);
		report_md_table(fp, report_failback_table, r);
	}
	if (report_has_conn_decay(r)) {
		fprintf(
		    fp,
		    "The clients spoke TCP. Their connection attempts decay too: at each time, the "
		    "SYNs each scheme's clients sent to %s since t0 (captured on its link; "
		    "retransmitted SYNs count, as a client still connecting to a dead address "
		    "keeps sending them), of all their SYNs since t0 (decay.csv: "
		    "`SCHEME_syn_dead`, "
		    "`SCHEME_syn_all` per bucket; docs/clocks.md, \"Connections\"):\n",
		    r->in.failure.site);
		report_md_table(fp, report_conn_decay_table, r);
	}
	if (r->plot_decay && r->drawn)
		fprintf(fp, "![The decay curves of both schemes](decay.png)\n\n");
}

static void report_md_upstream(const struct report *r, FILE *fp)
{
	const struct clocks_result *dns = &r->res[1];
	int64_t traffic = clocks_traffic_ns(&r->in);

	fprintf(fp, "## Upstream load\n\n");
	if (!r->up.known) {
		fprintf(fp, "No capture-dns-*.pcap: the run had no authd link to capture.\n\n");
		return;
	}
	fprintf(fp,
		"%lld DNS queries reached authd (UDP, captured on its link: capture-dns-*.pcap)",
		(long long)dns->upstream_queries);
	if (traffic != CLOCKS_NONE)
		fprintf(fp, ", %.2f per second over the %.3f s the clients sent",
			(double)dns->upstream_queries / ((double)traffic / NSEC_PER_SEC),
			(double)traffic / NSEC_PER_SEC);
	fprintf(fp, ". Each source is a resolver, or a client that asks authd itself; "
		    "upstream.csv has them per second, a column per source.\n");
	report_md_table(fp, report_upstream_table, r);
	if (r->plot_upstream && r->drawn)
		fprintf(fp, "![The queries that reached authd per second](upstream.png)\n\n");
}

static void report_md_resolvers(const struct report *r, FILE *fp)
{
	if (!report_has_resolvers(r))
		return;
	fprintf(fp,
		"## Resolvers\n\n"
		"Per [resolver] node (its implementation beside its name): its queries that "
		"reached the [dns] nodes after t0, per level of the DNS tree the node asked "
		"(root, TLD, zone), with their rate over the %.3f s from t0 to the end of the "
		"traffic; the share of its clients' queries it answered from its cache (no "
		"answer from upstream reached the cache asked between the query's arrival and its "
		"answer, "
		"on its link's capture capture-resolver-NODE.pcap), over the run and after t0; "
		"its DNS clients' requests after t0 that went to the dead site %s, and the last "
		"of them (its window). clocks.json's `resolvers` has every count, upstream.csv "
		"the queries per second per node and level (docs/clocks.md, \"Resolvers\").\n",
		r->rsv->after_ns == CLOCKS_NONE ? 0.0 : (double)r->rsv->after_ns / NSEC_PER_SEC,
		r->in.failure.site);
	report_md_table(fp, report_resolver_table, r);
	if (r->decay.nrsv == 0)
		return;
	fprintf(fp,
		"The decay of each node's clients: the share of its DNS clients' requests still "
		"sent to %s, in the bucket that ends at each time (decay.csv: the "
		"`resolver_NODE_*` columns; one curve each on the plot).\n",
		r->in.failure.site);
	report_md_table(fp, report_resolver_decay_table, r);
}

static void report_md_topology(const struct report *r, FILE *fp)
{
	char path[PATH_MAX], buf[4096];
	size_t n;
	FILE *in;

	snprintf(path, sizeof(path), "%s/topology.ini", r->rundir);
	in = fopen(path, "r");
	if (in == NULL) {
		fprintf(fp, "- the topology: no topology.ini in the run directory\n\n");
		return;
	}
	fprintf(fp, "- the topology as used, every value explicit (topology.ini):\n\n```ini\n");
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, fp);
	fclose(in);
	fprintf(fp, "```\n\n");
}

static void report_md_params(const struct report *r, FILE *fp)
{
	char bucket[48];

	fprintf(fp, "## Parameters\n\n");
	fprintf(fp, "- the report: decay bucket %s%s, SLO %g %%%s\n",
		report_fmt_duration(bucket, sizeof(bucket), r->bucket_ns),
		r->bucket_auto ? " (default)" : " (--bucket)", r->slo_pct,
		r->slo_default ? " (default)" : " (--slo)");
	if (r->in.ncaptures_ready > 0 && r->in.capture_ring_bytes != CLOCKS_NONE)
		fprintf(fp,
			"- the captures: %d link%s, %.4g MiB of kernel memory in their rings "
			"(the collectors' capture_ready)\n",
			r->in.ncaptures_ready, r->in.ncaptures_ready == 1 ? "" : "s",
			(double)r->in.capture_ring_bytes / (1 << 20));
	report_md_topology(r, fp);
}

static void report_md_files(const struct report *r, FILE *fp)
{
	fprintf(fp,
		"## Files\n\n"
		"| file | what |\n"
		"|:---|:---|\n"
		"| clocks.json | the clocks of both schemes, with each one's budget, decay and "
		"what held it (`explain`; docs/clocks.md) |\n"
		"| decay.csv | the decay curves: `t_s,t_end_s`, then per scheme its share (0 "
		"to 1), its requests to the dead site and all its requests, per bucket%s |\n",
		report_has_resolvers(r) ? "; then the same for the DNS clients of each "
					  "[resolver] node (`resolver_NODE_share`, ...)"
					: "");
	if (r->up.known)
		fprintf(fp,
			"| upstream.csv | the queries that reached authd: `t_s,t_end_s,queries`, "
			"then one column per source, per second%s |\n",
			report_has_resolvers(r) ? "; then per [resolver] node and level "
						  "(`NODE_zone`, ...)"
						: "");
	if (report_has_causes(r))
		fprintf(fp,
			"| decay-causes.csv | the decay by cause: `t_s,t_end_s`, then per scheme "
			"and cause its share and its requests to the dead site "
			"(`dns_sticky_share,dns_sticky`, ...) |\n");
	if (r->plot_decay)
		fprintf(fp, "| decay.gp%s | the decay plot%s |\n", r->drawn ? ", decay.png" : "",
			r->drawn ? "" : "'s script: gnuplot draws decay.png from it");
	if (r->plot_causes)
		fprintf(fp, "| decay-causes.gp%s | the decay plot by cause%s |\n",
			r->drawn ? ", decay-causes.png" : "",
			r->drawn ? "" : "'s script: gnuplot draws decay-causes.png from it");
	if (r->plot_upstream)
		fprintf(fp, "| upstream.gp%s | the upstream plot%s |\n",
			r->drawn ? ", upstream.png" : "",
			r->drawn ? "" : "'s script: gnuplot draws upstream.png from it");
	if (report_has_shares(r))
		fprintf(fp, "| shares.csv | per second from the traffic's start: `t_s,t_end_s`, "
			    "then per weighted name whose weights changed its clients' requests "
			    "(`NAME_all`) and per site its share, its weights' share and its "
			    "requests (`NAME_SITE_share,NAME_SITE_weight,NAME_SITE`) |\n");
	if (r->plot_shares)
		fprintf(fp, "| shares.gp%s | the shares against the weights%s |\n",
			r->drawn ? ", shares.png" : "",
			r->drawn ? "" : ": gnuplot draws shares.png from it");
	fprintf(fp, "| report.md | this page |\n\n");
	if (r->plot_note[0])
		fprintf(fp, "Plots: %s.\n\n", r->plot_note);
}

/* report_md_steering: seed 000's table, measured (docs/clocks.md, "Steering") */
static void report_md_steering(const struct report *r, FILE *fp)
{
	if (r->in.steering == NULL || r->in.steering->nrows == 0)
		return;
	fprintf(fp,
		"## Steering\n\n%s, per scheme and client node: each site's share of "
		"the requests its link captured, the deviation from the target shares (half "
		"the L1 distance; the target's source below each table), the RTT per request "
		"and the DNS resolution time from the clients' records (docs/clocks.md, "
		"\"Steering\").\n\n",
		r->in.steady ? "Over the whole traffic" : "Before t0");
	clocks_steering_md(fp, &r->in);
	fputc('\n', fp);
}

/* report_md_connections: the connection clocks, when a client spoke TCP */
static void report_md_connections(const struct report *r, FILE *fp)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (mem == NULL)
		return;
	clocks_conn_print(mem, &r->in);
	fclose(mem);
	if (len > 0)
		fprintf(fp,
			"## Connections\n\nThe clients' TCP connections as the site links' "
			"captures saw them open, close and reset, and the request segments "
			"they sent again (docs/clocks.md, \"Connections\"):\n\n```\n%s```\n\n",
			text);
	free(text);
}

int report_write_md(const struct report *r, char *err, size_t errlen)
{
	struct atomicfile af;
	FILE *fp;

	if (report_file_open(r, &af, "report.md", err, errlen) == -1)
		return -1;
	fp = af.fp;
	report_md_head(r, fp);
	if (!r->in.steady)
		report_md_model(r, fp);
	/* a steady-state run has no failure to explain, budget, route
	 * around or decay from */
	if (!r->in.steady) {
		report_md_explain(r, fp);
		report_md_budget(r, fp);
	}
	report_md_steering(r, fp);
	report_md_shares(r, fp);
	report_md_connections(r, fp);
	report_md_timeline(r, fp);
	if (!r->in.steady)
		report_md_routing(r, fp);
	report_md_impairments(r, fp);
	if (!r->in.steady)
		report_md_decay(r, fp);
	report_md_upstream(r, fp);
	if (!r->in.steady)
		report_md_resolvers(r, fp);
	report_auths_md(r, fp);
	report_md_params(r, fp);
	report_md_files(r, fp);
	fprintf(fp, "## Machine\n\nWhere this report was written:\n\n");
	report_env(r, fp);
	return report_file_close(&af, err, errlen);
}
