/*
 * The plots: a gnuplot script per chart, kept in the run directory so that
 * anyone can change it and plot again (`gnuplot decay.gp` there), and
 * gnuplot run once on them all as a child process in that directory:
 *
 *   decay.gp     -> decay.png     the decay curve of each scheme present
 *                                 (decay.csv), its clocks and the timeline
 *   decay-causes.gp -> decay-causes.png  the same stacked by what held the
 *                                 requests (decay-causes.csv)
 *   upstream.gp  -> upstream.png  the queries that reached authd per second
 *                                 (upstream.csv), when there is a capture
 *   shares.gp    -> shares.png    a weighted name's shares per second against
 *                                 its weights (shares.csv), when the
 *                                 timeline moved them (report_shares.c)
 *
 * gnuplot does not open a file of the run directory by its name: it reads
 * the scripts from a memory file on its standard input (the same scripts,
 * but for their output: the k-th PNG to its descriptor 3 + k, as
 * /proc/self/fd/N) and each PNG goes to a temporary file the report made,
 * renamed into place like every other file of the report
 * (lib/atomicfile.h); so nothing planted in the run directory, not even a
 * swapped script, decides what it writes. It prints its version first, on
 * its standard output, for report.md's machine section. Its messages go to
 * gnuplot.log, kept only when not empty. One gnuplot for every plot and the
 * version: starting it costs more CPU here (about 50 ms) than a plot. A
 * gnuplot that is missing or fails is no error: the report says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_int.h"
#include "subproc.h"
#include "timeutil.h"

#define REPORT_PLOT_LOG "gnuplot.log"

/* the terminal: pngcairo's antialiased text where gnuplot has it; the
 * output to png (a name, or /proc/self/fd/N) */
static void report_plot_terminal(FILE *fp, const char *png)
{
	fprintf(fp, "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		    "\tset terminal pngcairo size 1000,600 font \"Sans,11\" noenhanced\n"
		    "} else {\n"
		    "\tset terminal png size 1000,600 noenhanced\n"
		    "}\n");
	fprintf(fp, "set output \"%s\"\n", png);
	fprintf(fp, "set datafile separator \",\"\n"
		    "set datafile columnheaders\n"
		    "set grid\n");
}

static const char *const report_plot_colour[REPORT_NSCHEMES] = {"#1f77b4", "#d62728"};
static const char *const report_plot_title[REPORT_NSCHEMES] = {"anycast", "DNS steering"};
/* the model's curves: the schemes' colours, darker */
static const char *const report_plot_model_colour[REPORT_NSCHEMES] = {"#08306b", "#67000d"};
/* the curves of the [resolver] nodes' clients */
#define REPORT_PLOT_RSV_COLOURS 6
static const char *const report_plot_rsv_colour[REPORT_PLOT_RSV_COLOURS] = {
    "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf"};

/* a line of the decay plot marking an instant (a step of the timeline, a
 * scheme's clock), labelled above the plot */
struct report_plot_mark {
	int64_t at;
	char text[3 * CLOCKS_NAME_MAX + 48];
	const char *colour;
	int clock; /* a scheme's clock: a solid tick from the top; else a dotted line */
	int scheme;
};

static int report_plot_mark_cmp(const void *a, const void *b)
{
	const struct report_plot_mark *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

#define REPORT_PLOT_MARKS 64
#define REPORT_PLOT_ROWS 5
#define REPORT_PLOT_CHARS 150 /* characters of 9 points across the plot, about */

/* report_plot_marks_timeline: every step of the timeline with its name, action
 * and target, grey for one that takes something out, green for one that
 * brings it back */
static int report_plot_marks_timeline(const struct report *r, struct report_plot_mark *m, int n)
{
	for (size_t i = 0; i < r->in.nhits && n < REPORT_PLOT_MARKS; i++) {
		const struct clocks_hit *h = &r->in.hits[i];
		int64_t rel = h->t_ns - r->in.failure.t0_ns;
		char cyc[32] = "";

		if (rel < 0 || rel > r->decay.end_ns)
			continue;
		if (h->cycle > 0)
			snprintf(cyc, sizeof(cyc), " %s %d", h->up ? "up" : "down", h->cycle);
		m[n] =
		    (struct report_plot_mark){.at = rel, .colour = h->up ? "#2ca02c" : "#555555"};
		snprintf(m[n++].text, sizeof(m[0].text), "%.*s: %.*s %.*s%s", CLOCKS_NAME_MAX - 1,
			 h->name, CLOCKS_NAME_MAX - 1, h->action, CLOCKS_NAME_MAX - 1, h->target,
			 cyc);
	}
	return n;
}

/* report_plot_marks_clocks: each scheme's detect, steer, and for DNS steer + the
 * steered name's TTL (when every cache that had the dead site's address
 * before authd stopped handing it out has let it go, but the sticky and
 * the stale), in the scheme's colour; clocks of a scheme too close to tell
 * apart share one ("dns detect, steer") */
static int report_plot_marks_clocks(const struct report *r, struct report_plot_mark *m, int n)
{
	int64_t near = r->decay.end_ns / 50;

	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		const struct clocks_result *res = &r->res[i];
		int64_t at[3], ttl = i == 1 ? clocks_steer_ttl_s(&r->in, res) : -1;
		const char *what[3];
		int k = 0;

		if (!report_present(r, i) || !r->decay.s[i].known)
			continue;
		if (res->detect_ns != CLOCKS_NONE) {
			at[k] = res->detect_ns;
			what[k++] = "detect";
		}
		if (res->steer_ns != CLOCKS_NONE) {
			at[k] = res->steer_ns;
			what[k++] = "steer";
		}
		if (res->steer_ns != CLOCKS_NONE && ttl >= 0) {
			at[k] = res->steer_ns + ttl * NSEC_PER_SEC;
			what[k++] = "steer + TTL";
		}
		for (int a = 0, named = -1; a < k && n < REPORT_PLOT_MARKS; a++) {
			if (at[a] < 0 || at[a] > r->decay.end_ns)
				continue;
			m[n] = (struct report_plot_mark){
			    .at = at[a], .colour = report_plot_colour[i], .clock = 1, .scheme = i};
			/* a line each; one label for those close together */
			if (named >= 0 && llabs(at[a] - m[named].at) < near) {
				size_t len = strlen(m[named].text);

				snprintf(m[named].text + len, sizeof(m[named].text) - len, ", %s",
					 what[a]);
			} else {
				snprintf(m[n].text, sizeof(m[n].text), "%s %s",
					 i ? "dns" : "anycast", what[a]);
				named = n;
			}
			n++;
		}
	}
	return n;
}

/* report_plot_marks: the timeline's steps and the schemes' clocks as lines, each
 * labelled above the plot, in the lowest row where it does not run into
 * the label before it (so that none sits on the axis, a curve or another
 * label); the rows used, for the top margin */
static int report_plot_marks(const struct report *r, FILE *fp)
{
	struct report_plot_mark m[REPORT_PLOT_MARKS];
	double right[REPORT_PLOT_ROWS], span = (double)r->decay.end_ns * 1.025;
	int n = 0, rows = 0;

	n = report_plot_marks_timeline(r, m, n);
	n = report_plot_marks_clocks(r, m, n);
	qsort(m, (size_t)n, sizeof(m[0]), report_plot_mark_cmp);
	for (int k = 0; k < REPORT_PLOT_ROWS; k++)
		right[k] = -1e300;
	for (int k = 0; k < n; k++) {
		double x0 = (double)m[k].at,
		       width = span * (double)(strlen(m[k].text) + 2) / REPORT_PLOT_CHARS;
		char x[48];
		int row = 0;

		report_fmt_s(x, sizeof(x), m[k].at);
		if (m[k].text[0]) {
			while (row < REPORT_PLOT_ROWS - 1 && right[row] > x0)
				row++;
			right[row] = x0 + width;
			if (row + 1 > rows)
				rows = row + 1;
		}
		if (m[k].clock)
			fprintf(fp,
				"set arrow from %s, graph 1 to %s, graph 0 nohead lw 1.5 dt %d lc "
				"rgb \"%s\" back\n",
				x, x, m[k].scheme ? 4 : 5, m[k].colour);
		else
			fprintf(fp,
				"set arrow from %s, graph 0 to %s, graph 1 nohead dt 3 lc rgb "
				"\"%s\"\n",
				x, x, m[k].colour);
		if (m[k].text[0])
			fprintf(fp,
				"set label \"%s\" at %s, graph 1 left offset -0.2,%.1f font \",9\" "
				"tc rgb \"%s\"\n",
				m[k].text, x, 0.8 + 1.1 * row, m[k].colour);
	}
	return rows;
}

/* report_plot_rsv_same: the clients of [resolver] node m are all the DNS clients:
 * its curve is the DNS curve, drawn once */
static int report_plot_rsv_same(const struct report *r, int m)
{
	const struct clocks_decay *d = &r->decay;

	for (size_t k = 0; k < d->n; k++)
		if (d->rsv[m].dead[k] != d->s[1].dead[k] || d->rsv[m].all[k] != d->s[1].all[k])
			return 0;
	return 1;
}

static void report_plot_decay_text(const struct report *r, FILE *fp, const char *png)
{
	const struct clocks_decay *d = &r->decay;
	char bucket[48], end[48], from[48], rsv[2 * CLOCKS_NAME_MAX + 4] = "";
	char via[sizeof(rsv) + 16] = "";
	const char *site = r->in.failure.site;
	int back = 0, same = -1, rows;

	for (int i = 0; i < REPORT_NSCHEMES; i++)
		back |= report_present(r, i) && d->s[i].back && d->s[i].known;
	for (int m = 0; m < d->nrsv && same < 0; m++)
		if (d->rsv[m].known && report_plot_rsv_same(r, m)) {
			same = m;
			snprintf(via, sizeof(via), " (all via %s)",
				 report_rsv_name(rsv, sizeof(rsv), &r->in.dnstopo.rsv[m]));
		}
	fprintf(fp,
		"# The decay curves of lab %s (decay.csv), written by steerlab report.\n"
		"# Plot again in this directory with: gnuplot decay.gp\n",
		r->in.lab);
	report_plot_terminal(fp, png);
	/* the plot starts a little before t0: the failure's line is not the
	 * axis */
	report_fmt_s(from, sizeof(from), -(d->end_ns / 40 > 0 ? d->end_ns / 40 : 1));
	/* the title at the top, above the marks' labels */
	if (back)
		fprintf(fp,
			"set label \"lab %s: share of each scheme's requests sent to site %s\\n"
			"while it was out (solid), again after its recovery (dashed); buckets "
			"of %s\" at screen 0.5, screen 0.97 center\n"
			"set ylabel \"share of the scheme's requests sent to %s (%%)\"\n",
			r->in.lab, site, report_fmt_duration(bucket, sizeof(bucket), d->bucket_ns),
			site);
	else
		fprintf(fp,
			"set label \"lab %s: share of each scheme's requests still sent to the "
			"dead site %s (buckets of %s)\" at screen 0.5, screen 0.97 center\n"
			"set ylabel \"share of requests to the dead site (%%)\"\n",
			r->in.lab, site, report_fmt_duration(bucket, sizeof(bucket), d->bucket_ns));
	fprintf(fp,
		"set xlabel \"time after the failure (s)\"\n"
		"set xrange [%s:%s]\n"
		"# a little below 0, so that a curve at 0 is not hidden by the axis\n"
		"set yrange [-3:103]\n"
		"set ytics 0,20,100\n"
		"set key below\n"
		"# a bucket's share is drawn from its start to its end (columns t_s, t_end_s)\n",
		from, report_fmt_s(end, sizeof(end), d->end_ns));
	rows = report_plot_marks(r, fp);
	/* room above the plot for the marks' labels, under the title */
	fprintf(fp, "set tmargin %d\n", 3 + back + (rows * 11 + 9) / 10);
	/* each [resolver] node's clients first, thin, under the schemes' own:
	 * a node whose clients are all the DNS clients has the DNS curve, and
	 * is named in its title instead */
	int n = 0, k = 0, j = 0, npresent = 0, nback = 0;
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		npresent += report_present(r, i);
		nback += report_present(r, i) && d->s[i].back != NULL;
	}
	for (int m = 0; m < d->nrsv; m++) {
		char name[2 * CLOCKS_NAME_MAX + 4];

		if (d->rsv[m].known && m != same)
			fprintf(fp,
				"%s\"decay.csv\" using 1:($%d * 100) with steps lw 1.5 lc rgb "
				"\"%s\" title \"DNS via %s\"",
				n++ ? ", \\\n     " : "plot ", 3 + 3 * npresent + 2 * nback + 3 * m,
				report_plot_rsv_colour[m % REPORT_PLOT_RSV_COLOURS],
				report_rsv_name(name, sizeof(name), &r->in.dnstopo.rsv[m]));
	}
	/* a curve per scheme that has one: the k-th present scheme's share in
	 * column 3 + 3 k (decay.csv has columns for the present ones only);
	 * after them, the j-th fail-back curve's share in 3 + 3 P + 2 j */
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		if (!report_present(r, i))
			continue;
		if (d->s[i].known)
			fprintf(fp,
				"%s\"decay.csv\" using 1:($%d * 100) with steps lw 2 lc rgb \"%s\" "
				"title \"%s%s%s%s%s\"",
				n++ ? ", \\\n     " : "plot ", 3 + 3 * k, report_plot_colour[i],
				report_plot_title[i], back ? ": to " : "", back ? site : "",
				back ? " while it was out" : "", i == 1 && same >= 0 ? via : "");
		k++;
	}
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		if (!report_present(r, i) || d->s[i].back == NULL)
			continue;
		if (d->s[i].known)
			fprintf(fp,
				"%s\"decay.csv\" using 1:($%d * 100) with steps lw 2 dt 2 lc rgb "
				"\"%s\" title \"%s: to %s again after its recovery\"",
				n++ ? ", \\\n     " : "plot ", 3 + 3 * k + 2 * j,
				report_plot_colour[i], report_plot_title[i], site);
		j++;
	}
	/* the model's curves last, over the measured ones: dashed and darker,
	 * from the last columns (after the resolvers' and the SYNs') */
	int col = 3 + 3 * npresent + 2 * nback + 3 * d->nrsv;
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		col += 2 * (report_present(r, i) && d->s[i].syn_all != NULL);
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		if (!report_present(r, i) || r->model_share[i] == NULL)
			continue;
		fprintf(fp,
			"%s\"decay.csv\" using 1:($%d * 100) with steps lw 2 dt 2 lc rgb \"%s\" "
			"title \"%s: the model (steerlab model)\"",
			n++ ? ", \\\n     " : "plot ", col++, report_plot_model_colour[i],
			report_plot_title[i]);
	}
	fputc('\n', fp);
}

/* the causes' colours (clocks.h, enum clocks_cause) */
static const char *const report_plot_cause_colour[CLOCKS_CAUSES] = {
    "#9467bd", "#8c564b", "#1f77b4", "#ff7f0e", "#e377c2",
    "#bcbd22", "#d62728", "#7f7f7f", "#c7c7c7",
};

/* report_plot_cause_who: " (c3)", " (r1, r2)": who held scheme i's requests by
 * cause x, the first three */
static void report_plot_cause_who(const struct report *r, FILE *fp, int i, int x)
{
	const struct clocks_explain_scheme *xs = &r->ex.s[i];
	int n = 0;

	for (int k = 0; k < xs->n; k++) {
		if (xs->e[k].cause != (enum clocks_cause)x || xs->e[k].requests == 0)
			continue;
		if (n < 3)
			fprintf(fp, "%s%s", n ? ", " : " (", xs->e[k].who);
		n++;
	}
	if (n > 3)
		fprintf(fp, ", ...");
	if (n)
		fputc(')', fp);
}

/* report_plot_causes_text: decay-causes.png, the decay stacked by cause: a panel
 * per scheme, each cause's share of the scheme's requests a band, stacked
 * (decay-causes.csv, its columns in clocks_cause order per scheme) */
static void report_plot_causes_text(const struct report *r, FILE *fp, const char *png)
{
	const struct clocks_decay *d = &r->decay;
	char bucket[48], end[48], from[48], w[48];
	int panels = 0, col = 3;

	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		int any = 0;

		for (int x = 0; x < CLOCKS_CAUSES; x++)
			any |= d->s[i].cause[x] && report_present(r, i) && d->s[i].known;
		panels += any;
	}
	fprintf(fp,
		"# The decay of lab %s by cause (decay-causes.csv), written by steerlab report.\n"
		"# Plot again in this directory with: gnuplot decay-causes.gp\n",
		r->in.lab);
	report_plot_terminal(fp, png);
	report_fmt_s(from, sizeof(from), -(d->end_ns / 40 > 0 ? d->end_ns / 40 : 1));
	fprintf(fp,
		"set xrange [%s:%s]\n"
		"set yrange [0:103]\n"
		"set ytics 0,20,100\n"
		"set key outside right top\n"
		"# the panels aligned, the keys to their right\n"
		"set lmargin at screen 0.08\n"
		"set rmargin at screen 0.58\n"
		"set style fill solid 0.85 noborder\n"
		"# a bucket is a box from t_s to t_end_s, a little wider: no seam between two\n"
		"set boxwidth %s absolute\n"
		"set multiplot layout %d,1 title \"lab %s: each scheme's requests still sent "
		"to the dead site %s, by what held them (buckets of %s)\"\n",
		from, report_fmt_s(end, sizeof(end), d->end_ns),
		report_fmt_s(w, sizeof(w),
			     d->bucket_ns + (d->bucket_ns * 15 / 100 > d->end_ns / 400
						 ? d->bucket_ns * 15 / 100
						 : d->end_ns / 400)),
		panels > 0 ? panels : 1, r->in.lab, r->in.failure.site,
		report_fmt_duration(bucket, sizeof(bucket), d->bucket_ns));
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		int cols[CLOCKS_CAUSES], causes[CLOCKS_CAUSES], nc = 0;

		for (int x = 0; x < CLOCKS_CAUSES; x++) {
			int used = 0;

			for (size_t k = 0; d->s[i].cause[x] && k < d->n && !used; k++)
				used = d->s[i].cause[x][k] != 0;
			if (!used || !report_present(r, i) || !d->s[i].known)
				continue;
			causes[nc] = x;
			cols[nc++] = col;
			col += 2;
		}
		if (nc == 0)
			continue;
		fprintf(fp,
			"set title \"%s\"\n"
			"set ylabel \"share of its requests (%%)\"\n"
			"set xlabel \"time after the failure (s)\"\n",
			report_plot_title[i]);
		/* the tallest stack first: each cause's band is the sum of it
		 * and those below it, drawn over the one above */
		for (int c = nc - 1; c >= 0; c--) {
			fprintf(fp, "%s\"decay-causes.csv\" using (($1 + $2) / 2):((0",
				c == nc - 1 ? "plot " : ", \\\n     ");
			for (int b = 0; b <= c; b++)
				fprintf(fp, " + column(%d)", cols[b]);
			fprintf(fp, ") * 100) with boxes lc rgb \"%s\" title \"%s",
				report_plot_cause_colour[causes[c]],
				clocks_cause_labels[causes[c]]);
			report_plot_cause_who(r, fp, i, causes[c]);
			fputc('"', fp);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "unset multiplot\n");
}

static void report_plot_upstream_text(const struct report *r, FILE *fp, const char *png)
{
	int64_t max = 0, step;

	for (size_t i = 0; i < r->up.n; i++)
		if (r->up.total[i] > max)
			max = r->up.total[i];
	/* whole queries on the axis, and room above the highest box */
	step = max <= 8 ? 1 : (max + 7) / 8;

	fprintf(fp,
		"# The queries that reached authd in lab %s (upstream.csv), written by steerlab "
		"report.\n# Plot again in this directory with: gnuplot upstream.gp\n",
		r->in.lab);
	report_plot_terminal(fp, png);
	fprintf(fp,
		"set title \"lab %s: DNS queries reaching authd, per second (all resolvers)\"\n"
		"set xlabel \"time after the failure (s)\"\n"
		"set ylabel \"queries per second\"\n"
		"set xrange [%lld:%lld]\n"
		"set yrange [0:%lld]\n"
		"set ytics 0,%lld\n"
		"set style fill solid 0.6 border -1\n"
		"set boxwidth 0.9 relative\n"
		"unset key\n"
		"set arrow from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb \"#555555\"\n"
		"set label \" failure of %s\" at 0, graph 0.95 left\n"
		"# second k runs from t_s to t_end_s: its box is drawn in between\n"
		"plot \"upstream.csv\" using (($1 + $2) / 2):3 with boxes lc rgb \"#2ca02c\" "
		"notitle\n",
		r->in.lab, (long long)r->up.first, (long long)(r->up.first + (int64_t)r->up.n),
		(long long)(max + step), (long long)step, r->in.failure.site);
}

typedef void (*report_plot_text_fn)(const struct report *r, FILE *fp, const char *png);

/* the plots there are: a script kept, a PNG drawn */
struct report_plot_chart {
	const char *script, *png;
	report_plot_text_fn text;
};

#define REPORT_PLOT_MAX 4
#define REPORT_PLOT_VERSION_LEN sizeof(((struct report *)0)->gnuplot_version)

/* report_plot_script: the script name, for a person to plot again with */
static int report_plot_script(const struct report *r, const struct report_plot_chart *c, char *err,
			      size_t errlen)
{
	struct atomicfile af;

	if (report_file_open(r, &af, c->script, err, errlen) == -1)
		return -1;
	c->text(r, af.fp, c->png);
	return report_file_close(&af, err, errlen);
}

/* what gnuplot reads on its standard input: its version on its standard
 * output, then each chart to its descriptor, reset in between (the marks of
 * one are not the next one's) */
struct report_plot_fill_arg {
	const struct report *r;
	const struct report_plot_chart *c;
	int n;
};

static void report_plot_fill(FILE *fp, const void *arg)
{
	const struct report_plot_fill_arg *a = arg;
	char png[32];

	fprintf(fp, "set print \"-\"\n"
		    "print sprintf(\"gnuplot %%.1f patchlevel %%s\", GPVAL_VERSION, "
		    "GPVAL_PATCHLEVEL)\n"
		    "set print\n");
	for (int k = 0; k < a->n; k++) {
		snprintf(png, sizeof(png), "/proc/self/fd/%d", 3 + k);
		if (k)
			fprintf(fp, "reset\n");
		a->c[k].text(a->r, fp, png);
	}
}

/* report_plot_version_read: the first line gnuplot printed on out (the memory
 * file of its standard output) into r->gnuplot_version, if it is its
 * version (any first line when any is) */
static void report_plot_version_read(struct report *r, int out, int any)
{
	char buf[REPORT_PLOT_VERSION_LEN];
	ssize_t n = pread(out, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strncmp(buf, "gnuplot ", 8) == 0 || (any && buf[0]))
		snprintf(r->gnuplot_version, REPORT_PLOT_VERSION_LEN, "%s", buf);
	else
		snprintf(r->gnuplot_version, REPORT_PLOT_VERSION_LEN,
			 "unknown (%s printed no version)", r->gnuplot);
}

/* report_plot_version_alone: `gnuplot --version`, when there is nothing to plot */
static void report_plot_version_alone(struct report *r)
{
	char *argv[] = {(char *)r->gnuplot, "--version", NULL};
	int out = memfd_create("steerlab-gnuplot-out", MFD_CLOEXEC);

	snprintf(r->gnuplot_version, REPORT_PLOT_VERSION_LEN, "not found (%s)", r->gnuplot);
	if (out == -1)
		return;
	if (subproc_run(NULL, argv, -1, out, out) == 0)
		report_plot_version_read(r, out, 1);
	close(out);
}

/* report_plot_note_failed: why no PNG was drawn, after gnuplot returned rc */
static void report_plot_note_failed(struct report *r, const struct report_plot_chart *c, int n,
				    int rc)
{
	char scripts[128];
	size_t at = 0;

	/* "decay.gp, decay-causes.gp and upstream.gp" */
	scripts[0] = '\0';
	for (int k = 0; k < n && at < sizeof(scripts); k++)
		at += (size_t)snprintf(scripts + at, sizeof(scripts) - at, "%s%s",
				       k == 0	    ? ""
				       : k == n - 1 ? " and "
						    : ", ",
				       c[k].script);
	if (rc == 127)
		snprintf(r->plot_note, sizeof(r->plot_note),
			 "%s was not found (Debian: apt-get install gnuplot-nox, or make deps): "
			 "no PNG; the scripts are there to plot later (gnuplot %s)",
			 r->gnuplot, c[0].script);
	else if (rc == -1)
		snprintf(r->plot_note, sizeof(r->plot_note), "%s could not be started: %s",
			 r->gnuplot, strerror(errno));
	else
		snprintf(r->plot_note, sizeof(r->plot_note), "%s %s failed (status %d): see %s",
			 r->gnuplot, scripts, rc, REPORT_PLOT_LOG);
}

/* report_plot_run: one gnuplot on every chart of c, the k-th PNG to c[k].png
 * through a temporary file, its messages to the log's, its version into
 * r->gnuplot_version; 0 drawn, 1 not (r->plot_note says why), -1 on an
 * error of the report's own files (err set) */
static int report_plot_run(struct report *r, const struct report_plot_chart *c, int n,
			   struct atomicfile *log, char *err, size_t errlen)
{
	char *argv[] = {(char *)r->gnuplot, NULL};
	struct report_plot_fill_arg a = {r, c, n};
	struct atomicfile png[REPORT_PLOT_MAX];
	int fds[3 + REPORT_PLOT_MAX], rc, opened = 0;

	snprintf(r->gnuplot_version, REPORT_PLOT_VERSION_LEN, "not found (%s)", r->gnuplot);
	fds[1] = memfd_create("steerlab-gnuplot-out", MFD_CLOEXEC);
	if (fds[1] == -1 || (fds[0] = subproc_memfd("steerlab-plot", report_plot_fill, &a)) == -1) {
		snprintf(r->plot_note, sizeof(r->plot_note), "%s: no memory file for gnuplot: %s",
			 c[0].script, strerror(errno));
		if (fds[1] != -1)
			close(fds[1]);
		return 1;
	}
	for (; opened < n; opened++) {
		if (report_file_open(r, &png[opened], c[opened].png, err, errlen) == -1) {
			rc = -1;
			goto out;
		}
		fds[3 + opened] = atomicfile_fd(&png[opened]);
	}
	fflush(log->fp);
	fds[2] = atomicfile_fd(log);
	rc = subproc_run_fds(r->rundir, argv, fds, 3 + n);
	if (rc != 127 && rc != -1)
		report_plot_version_read(r, fds[1], 0);
	if (rc != 0) {
		report_plot_note_failed(r, c, n, rc);
		rc = 1;
		goto out;
	}
	/* drawn: each PNG into place; one that cannot be (a full disk) is an
	 * error of the report's files, and the rest are dropped */
	for (int k = 0; k < n; k++) {
		if (rc == 0)
			rc = report_file_close(&png[k], err, errlen);
		else
			atomicfile_abort(&png[k]);
	}
	opened = 0;
out:
	for (int k = 0; k < opened; k++)
		atomicfile_abort(&png[k]);
	close(fds[0]);
	close(fds[1]);
	return rc;
}

int report_plot(struct report *r, char *err, size_t errlen)
{
	struct report_plot_chart c[REPORT_PLOT_MAX];
	struct atomicfile log;
	int n = 0, rc;

	r->plot_decay = 0;
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		r->plot_decay |= r->decay.n > 0 && r->decay.s[i].known && report_present(r, i);
	r->plot_upstream = r->up.known && r->up.n > 0;
	r->plot_causes = r->plot_decay && report_has_causes(r);
	r->plot_shares = report_has_shares(r);
	if (!r->plot_decay && !r->plot_upstream && !r->plot_shares) {
		snprintf(r->plot_note, sizeof(r->plot_note),
			 "nothing to plot: no scheme's requests after t0, no query capture");
		report_plot_version_alone(r);
		return 0;
	}
	if (r->plot_decay)
		c[n++] =
		    (struct report_plot_chart){"decay.gp", "decay.png", report_plot_decay_text};
	if (r->plot_causes)
		c[n++] = (struct report_plot_chart){"decay-causes.gp", "decay-causes.png",
						    report_plot_causes_text};
	if (r->plot_upstream)
		c[n++] = (struct report_plot_chart){"upstream.gp", "upstream.png",
						    report_plot_upstream_text};
	if (r->plot_shares)
		c[n++] =
		    (struct report_plot_chart){"shares.gp", "shares.png", report_plot_shares_text};
	for (int k = 0; k < n; k++)
		if (report_plot_script(r, &c[k], err, errlen) == -1)
			return -1;
	if (report_file_open(r, &log, REPORT_PLOT_LOG, err, errlen) == -1)
		return -1;
	rc = report_plot_run(r, c, n, &log, err, errlen);
	r->drawn = rc == 0;
	if (rc == -1) {
		atomicfile_abort(&log);
		return -1;
	}
	/* the log of this run, or none: an old one would mislead */
	if (atomicfile_size(&log) == 0) {
		atomicfile_abort(&log);
		if (unlinkat(r->dirfd, REPORT_PLOT_LOG, 0) == -1 && errno != ENOENT) {
			snprintf(err, errlen, "%s/%s: %s", r->rundir, REPORT_PLOT_LOG,
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	return report_file_close(&log, err, errlen);
}
