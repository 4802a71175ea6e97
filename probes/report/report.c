/*
 * The report of a run directory: load it once, compute the clocks, the
 * budget, the decay curves and the upstream series, write every file, print
 * the clocks and a summary. `steerlab run` ends here and `steerlab report`
 * comes here; neither reruns anything. See report.h for the files.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csvmeta.h"
#include "log.h"
#include "report_int.h"
#include "timeutil.h"

int report_parse_slo(const char *s, double *pct)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0)
		return -1;
	if (*end == '%')
		end++;
	if (*end != '\0' || !(v > 0 && v < 100))
		return -1;
	*pct = v;
	return 0;
}

const char *report_fmt_s(char *buf, size_t len, int64_t ns)
{
	size_t n;

	snprintf(buf, len, "%s%lld.%09lld", ns < 0 ? "-" : "", llabs(ns) / NSEC_PER_SEC,
		 llabs(ns) % NSEC_PER_SEC);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

const char *report_fmt_pct(char *buf, size_t len, double fraction)
{
	double v = fraction * 100;

	if (fraction < 0)
		snprintf(buf, len, "-");
	else if (v == 0 || v >= 100)
		snprintf(buf, len, "%.0f %%", v);
	else if (v >= 99.95)
		snprintf(buf, len, ">99.9 %%"); /* not "100.0 %": some did not fail */
	else if (v >= 1)
		snprintf(buf, len, "%.1f %%", v);
	else
		snprintf(buf, len, "%#.2g %%", v);
	return buf;
}

const char *report_fmt_duration(char *buf, size_t len, int64_t ns)
{
	char s[48];

	if (ns >= 60 * NSEC_PER_SEC && ns % (60 * NSEC_PER_SEC) == 0)
		snprintf(buf, len, "%lld min", (long long)(ns / (60 * NSEC_PER_SEC)));
	else if (ns >= NSEC_PER_SEC || ns % NSEC_PER_MSEC != 0)
		snprintf(buf, len, "%s s", report_fmt_s(s, sizeof(s), ns));
	else
		snprintf(buf, len, "%lld ms", (long long)(ns / NSEC_PER_MSEC));
	return buf;
}

const char *report_fmt_budget(char *buf, size_t len, double s)
{
	if (s >= 60)
		snprintf(buf, len, "%.4g min (%.0f s)", s / 60, s);
	else
		snprintf(buf, len, "%.3g s", s);
	return buf;
}

int report_file_open(const struct report *r, struct atomicfile *af, const char *name, char *err,
		     size_t errlen)
{
	return atomicfile_open(af, r->dirfd, r->rundir, name, err, errlen);
}

int report_csv_open(const struct report *r, struct atomicfile *af, const char *name,
		    const char *units, char *err, size_t errlen)
{
	char run[256];

	if (report_file_open(r, af, name, err, errlen) == -1)
		return -1;
	csvmeta_write(af->fp, csvmeta_run_id(r->rundir, run, sizeof(run)), r->in.topology, units);
	return 0;
}

int report_file_close(struct atomicfile *af, char *err, size_t errlen)
{
	return atomicfile_commit(af, err, errlen);
}

/* report_print_outages: the DNS outages' table, if the timeline had one */
static void report_print_outages(const struct report *r, FILE *out)
{
	struct texttable t;

	if (!report_has_outages(r))
		return;
	fprintf(out, "\nDNS outages: the DNS clients' resolutions while each lasted, per "
		     "resolver, by outcome, and those answered slowly (report.md: per second)\n");
	report_outage_table(r, &t);
	texttable_print(&t, out, 0);
	texttable_free(&t);
}

/* report_summary: what the terminal gets after the clocks */
static void report_summary(const struct report *r, FILE *out)
{
	struct texttable t;
	char b[32];

	/* a steady-state run: no failure to budget, decay or explain; its
	 * steering was in the table above, its DNS outages here */
	if (r->in.steady) {
		report_print_outages(r, out);
		goto upstream;
	}
	fprintf(out, "\nerror budget at SLO %g %%: %s in a 30-day month; failed = lost + errors\n",
		r->slo_pct, report_fmt_budget(b, sizeof(b), r->res[0].budget.budget_s));
	if (r->in.traffic_interrupted == 1)
		fprintf(out,
			"(the run was interrupted: rates and budgets use the %.3f s of traffic "
			"actually run)\n",
			(double)clocks_traffic_ns(&r->in) / NSEC_PER_SEC);
	report_budget_table(r, &t);
	texttable_print(&t, out, 0);
	texttable_free(&t);
	if (report_has_timeline(r)) {
		fprintf(out, "\ntimeline: every step as applied (at: from the clients' start, "
			     "fail_jitter included)\n");
		report_timeline_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
	}
	if (report_has_flaps(r)) {
		fprintf(out, "\nflaps: each router's route changes from the flap's first down; "
			     "its route back to the site after each up\n");
		report_flap_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
	}
	report_print_outages(r, out);
	if (report_has_fib(r) && report_present(r, 0)) {
		fprintf(out, "\nFIB: each router's route to the service after t0\n");
		report_fib_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
		report_fib_summary(r, out);
		if (report_has_fib6(r)) {
			fprintf(out, "\nFIB (IPv6): each router's route to the service's IPv6 "
				     "address after t0 (next hops as their IPv4 twins)\n");
			report_fib6_table(r, &t);
			texttable_print(&t, out, 0);
			texttable_free(&t);
			report_fib6_summary(r, out);
		}
		fprintf(out, "\ncatchments: the site that answered each anycast client (a "
			     "population's: N of BASE+, by pair)\n");
		report_catch_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
	}
	fprintf(out,
		"\ndecay: share of each scheme's requests sent to %s%s, in the %s bucket "
		"ending at each time\n",
		r->in.failure.site, report_has_failback_decay(r) ? " while it was out" : "",
		report_fmt_duration(b, sizeof(b), r->bucket_ns));
	report_decay_table(r, &t);
	texttable_print(&t, out, 0);
	texttable_free(&t);
	if (report_has_conn_decay(r)) {
		fprintf(out,
			"\nconnection attempts: SYNs each scheme's clients sent to %s since t0, "
			"of all their SYNs since t0 (retransmissions included)\n",
			r->in.failure.site);
		report_conn_decay_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
	}
	if (report_has_failback_decay(r)) {
		fprintf(out,
			"\nfail-back: share of each scheme's requests sent to %s again after its "
			"recovery at %.3f s, in the %s bucket holding each time\n",
			r->in.failure.site, (double)report_recovered_at(r) / NSEC_PER_SEC,
			report_fmt_duration(b, sizeof(b), r->bucket_ns));
		report_failback_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
	}
upstream:
	if (r->up.known) {
		fprintf(out, "\nupstream: DNS queries that reached authd, per source\n");
		report_upstream_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
	}
	if (report_has_resolvers(r) && !r->in.steady) {
		fprintf(out,
			"\nresolvers: each one's queries upstream after t0 per level, its "
			"clients' queries answered from its cache, its clients' requests to "
			"%s\n",
			r->in.failure.site);
		report_resolver_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
		if (r->decay.nrsv > 0) {
			fprintf(out,
				"\ndecay per resolver: share of its DNS clients' requests "
				"sent to %s\n",
				r->in.failure.site);
			report_resolver_decay_table(r, &t);
			texttable_print(&t, out, 0);
			texttable_free(&t);
		}
	}
	if (report_has_auths(r)) {
		fprintf(out,
			"\nauthorities: each [dns] node's own clocks of %s, its clients' "
			"requests to it, the model's beside them (docs/clocks.md, "
			"\"Authorities\")\n",
			r->in.failure.site);
		report_auths_table(r, &t);
		texttable_print(&t, out, 0);
		texttable_free(&t);
	}
	if (r->ex.nwords > 0 && !r->in.steady) {
		fprintf(out,
			"\nexplain: which scheme left %s first, and what held each "
			"(docs/clocks.md, \"Explain\")\n",
			r->in.failure.site);
		clocks_explain_print(out, &r->in, &r->ex);
	}
	if (r->unsaved) {
		fprintf(out, "\nreport: not saved in %s (below)\n", r->rundir);
		goto verdict;
	}
	fprintf(out, "\nreport: %s/report.md, %s/report.html", r->rundir, r->rundir);
	if (r->drawn)
		fprintf(out, " (plots: %s%s%s%s%s%s)", r->plot_decay ? "decay.png" : "",
			r->plot_causes ? ", decay-causes.png" : "",
			r->plot_decay && r->plot_upstream ? ", " : "",
			r->plot_upstream ? "upstream.png" : "",
			r->plot_shares && (r->plot_decay || r->plot_upstream) ? ", " : "",
			r->plot_shares ? "shares.png" : "");
	fputc('\n', out);
	if (r->plot_note[0])
		fprintf(out, "plots: %s\n", r->plot_note);
verdict:
	/* the verdict again, last: what scrolled by above is easy to miss */
	clocks_print_verdict(out, &r->in, r->res, REPORT_NSCHEMES, &r->verdict);
}

void report_stage_end(struct report *r, enum report_stage s)
{
	int64_t now = now_mono_ns();

	r->stage_ns[s] += now - r->stage_start_ns;
	r->stage_start_ns = now;
}

static void report_print_times(const struct report *r, FILE *fp)
{
	static const char *const name[REPORT_NSTAGES] = {"read", "clocks", "verdict", "writers",
							 "plots"};

	fprintf(fp, "report: stages:");
	for (int s = 0; s < REPORT_NSTAGES; s++)
		fprintf(fp, "%s %s %.3f s", s ? "," : "", name[s],
			(double)r->stage_ns[s] / NSEC_PER_SEC);
	fputc('\n', fp);
}

/* report_compute: everything but the files */
static int report_compute(struct report *r, char *err, size_t errlen)
{
	FILE *mem;

	clocks_anycast(&r->in, &r->res[0]);
	clocks_dns(&r->in, &r->res[1]);
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		clocks_budget(&r->in, &r->res[i], r->slo_pct, &r->res[i].budget);
		r->res[i].has_budget = 1;
	}
	/* once, for the verdict, clocks.json and the table */
	clocks_multi_prepare(&r->in);
	clocks_steering_prepare(&r->in, &r->res[0]);
	clocks_shares_prepare(&r->in);
	clocks_auths_prepare(&r->in);
	clocks_conn_prepare(&r->in);
	clocks_model_prepare(r->rundir, &r->in, r->slo_pct);
	report_stage_end(r, REPORT_STAGE_CLOCKS);
	clocks_verdict(&r->in, r->res, REPORT_NSCHEMES, &r->verdict);
	r->valid = clocks_valid(&r->in, r->res, REPORT_NSCHEMES, &r->verdict);
	report_stage_end(r, REPORT_STAGE_VERDICT);
	if (r->bucket_auto) {
		int64_t end = clocks_observation_end(&r->in);
		r->bucket_ns =
		    clocks_decay_auto_bucket(end == CLOCKS_NONE ? 0 : end - r->in.failure.t0_ns);
	}
	if ((r->flaps = malloc(sizeof(*r->flaps))) == NULL ||
	    (r->outages = malloc(sizeof(*r->outages))) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	clocks_flaps(&r->in, r->flaps);
	clocks_outages(&r->in, r->outages);
	/* the decay's pass also gives each request to the dead site its cause */
	if (clocks_explain_init(&r->in, r->res, REPORT_NSCHEMES, &r->ex) == -1) {
		snprintf(err, errlen, "explain: out of memory");
		return -1;
	}
	if (clocks_decay_explain(&r->in, r->bucket_ns, &r->decay, &r->ex, r->res, REPORT_NSCHEMES,
				 err, errlen) == -1 ||
	    report_upstream_series(&r->in, &r->up, err, errlen) == -1)
		return -1;
	/* the model's curve over the same buckets */
	for (int i = 0; i < REPORT_NSCHEMES && r->decay.n > 0; i++) {
		if (!report_present(r, i) ||
		    (r->model_share[i] = malloc(r->decay.n * sizeof(double))) == NULL)
			continue;
		if (clocks_model_decay(&r->in, i, r->decay.bucket_ns, r->decay.n,
				       r->model_share[i]) == -1) {
			free(r->model_share[i]);
			r->model_share[i] = NULL;
		}
	}
	if (r->in.dnstopo.nrsv > 0 && ((r->rsv = malloc(sizeof(*r->rsv))) == NULL ||
				       clocks_resolvers(&r->in, r->rsv) == -1)) {
		snprintf(err, errlen, "resolvers: out of memory");
		return -1;
	}
	report_stage_end(r, REPORT_STAGE_CLOCKS);
	mem = open_memstream(&r->clocks_text, &r->clocks_len);
	if (mem == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* the terminal's: the warnings after the title; the verdict is the
	 * summary's last line */
	clocks_print_table(mem, &r->in, r->res, REPORT_NSCHEMES, &r->verdict,
			   CLOCKS_PRINT_WARNINGS | CLOCKS_PRINT_MODEL);
	fclose(mem);
	report_stage_end(r, REPORT_STAGE_WRITERS);
	return 0;
}

int report_run(const char *rundir, const struct report_opts *opts, FILE *out)
{
	struct report *r;
	char err[PATH_MAX + 256];
	int rc = -1;

	r = calloc(1, sizeof(*r));
	if (r == NULL) {
		log_warnx("report: out of memory");
		return -1;
	}
	r->rundir = rundir;
	r->dirfd = -1;
	r->bucket_ns = opts ? opts->bucket_ns : 0;
	r->bucket_auto = r->bucket_ns == 0;
	r->slo_pct = opts && opts->slo_pct > 0 ? opts->slo_pct : CLOCKS_SLO_DEFAULT;
	r->slo_default = !(opts && opts->slo_pct > 0);
	r->gnuplot = opts && opts->gnuplot ? opts->gnuplot : "gnuplot";
	r->stage_start_ns = now_mono_ns();
	if (clocks_load(rundir, &r->in, err, sizeof(err)) == -1)
		goto fail;
	report_stage_end(r, REPORT_STAGE_READ);
	if (report_compute(r, err, sizeof(err)) == -1)
		goto fail;
	/* the files, then the terminal; a file that cannot be written (a run
	 * directory of someone else's, a full disk) does not keep the tables
	 * from the terminal: they are printed, then what was not saved */
	if ((r->dirfd = atomicfile_dir(rundir, err, sizeof(err))) == -1 ||
	    clocks_write_json(r->dirfd, rundir, "clocks.json", &r->in, r->res, REPORT_NSCHEMES,
			      &r->verdict, &r->ex, err, sizeof(err)) == -1 ||
	    report_write_decay_csv(r, err, sizeof(err)) == -1 ||
	    report_write_causes_csv(r, err, sizeof(err)) == -1 ||
	    report_write_upstream_csv(r, err, sizeof(err)) == -1 ||
	    report_write_shares_csv(r, err, sizeof(err)) == -1)
		r->unsaved = 1;
	report_stage_end(r, REPORT_STAGE_WRITERS);
	if (!r->unsaved && report_plot(r, err, sizeof(err)) == -1)
		r->unsaved = 1;
	report_stage_end(r, REPORT_STAGE_PLOTS);
	if (!r->unsaved && (report_write_md(r, err, sizeof(err)) == -1 ||
			    report_write_html(r, err, sizeof(err)) == -1))
		r->unsaved = 1;
	if (opts && opts->json) {
		if (clocks_print_json(out, &r->in, r->res, REPORT_NSCHEMES, &r->verdict, &r->ex) ==
		    -1) {
			snprintf(err, sizeof(err), "the clocks as JSON: cannot write them");
			goto fail;
		}
	} else {
		fwrite(r->clocks_text, 1, r->clocks_len, out);
		report_summary(r, out);
	}
	fflush(out);
	report_stage_end(r, REPORT_STAGE_WRITERS);
	if (opts && opts->times)
		report_print_times(r, opts->times);
	rc = r->valid ? 0 : REPORT_INVALID;
	if (r->unsaved) {
		/* the advice fits the error: a full disk is not a matter of
		 * permissions */
		if (strstr(err, "(ENOSPC)") || strstr(err, "(EDQUOT)"))
			log_warnx("report: %s (the tables above are complete; free some space "
				  "on its disk, then steerlab report %s saves them)",
				  err, rundir);
		else
			log_warnx("report: %s (the tables above are complete; run as the "
				  "directory's owner or with sudo to save them)",
				  err);
		rc |= REPORT_UNSAVED;
	}
	goto out;
fail:
	log_warnx("report: %s", err);
out:
	if (r->dirfd != -1)
		close(r->dirfd);
	clocks_input_free(&r->in);
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		clocks_result_free(&r->res[i]);
		free(r->model_share[i]);
	}
	clocks_decay_free(&r->decay);
	clocks_explain_free(&r->ex);
	free(r->flaps);
	free(r->outages);
	free(r->rsv);
	report_upstream_series_free(&r->up);
	free(r->clocks_text);
	free(r);
	return rc;
}
