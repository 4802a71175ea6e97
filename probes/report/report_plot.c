/*
 * The plots: a gnuplot script per chart, kept in the run directory so that
 * anyone can change it and plot again (`gnuplot decay.gp` there), and
 * gnuplot run once on them all as a child process in that directory:
 *
 *   decay.gp     -> decay.png     the decay curve of each scheme present
 *                                 (decay.csv)
 *   upstream.gp  -> upstream.png  the queries that reached authd per second
 *                                 (upstream.csv), when there is a capture
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
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_int.h"
#include "subproc.h"
#include "timeutil.h"

#define PLOT_LOG "gnuplot.log"

/* the terminal: pngcairo's antialiased text where gnuplot has it; the
 * output to png (a name, or /proc/self/fd/N) */
static void plot_terminal(FILE *fp, const char *png)
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

static const char *const plot_colour[REPORT_NSCHEMES] = {"#1f77b4", "#d62728"};
static const char *const plot_title[REPORT_NSCHEMES] = {"anycast", "DNS steering"};
/* the curves of the [resolver] nodes' clients */
#define PLOT_RSV_COLOURS 6
static const char *const plot_rsv_colour[PLOT_RSV_COLOURS] = {"#ff7f0e", "#2ca02c", "#9467bd",
							      "#8c564b", "#e377c2", "#17becf"};

/* plot_markers: every step of the timeline as a vertical line with its
 * name, action and target, at its time after t0 */
static void plot_markers(const struct report *r, FILE *fp)
{
	const struct clocks_decay *d = &r->decay;

	for (size_t i = 0; i < r->in.nhits; i++) {
		const struct clocks_hit *h = &r->in.hits[i];
		int64_t rel = h->t_ns - r->in.failure.t0_ns;
		char x[48], cyc[32] = "";

		if (rel < 0 || rel > d->end_ns)
			continue;
		if (h->cycle > 0)
			snprintf(cyc, sizeof(cyc), " %s %d", h->up ? "up" : "down", h->cycle);
		report_fmt_s(x, sizeof(x), rel);
		fprintf(fp,
			"set arrow from %s, graph 0 to %s, graph 1 nohead dt 3 lc rgb \"%s\"\n"
			"set label \" %s: %s %s%s\" at %s, graph 0.98 rotate by -90 left "
			"font \",9\" tc rgb \"%s\"\n",
			x, x, h->up ? "#2ca02c" : "#555555", h->name, h->action, h->target, cyc, x,
			h->up ? "#2ca02c" : "#555555");
	}
}

static void plot_decay_text(const struct report *r, FILE *fp, const char *png)
{
	const struct clocks_decay *d = &r->decay;
	char bucket[48], end[48];

	fprintf(fp,
		"# The decay curves of lab %s (decay.csv), written by steerlab report.\n"
		"# Plot again in this directory with: gnuplot decay.gp\n",
		r->in.lab);
	plot_terminal(fp, png);
	fprintf(fp,
		"set title \"lab %s: share of each scheme's requests still sent to the dead site "
		"%s (buckets of %s)\"\n"
		"set xlabel \"time after the failure (s)\"\n"
		"set ylabel \"share of requests to the dead site (%%)\"\n"
		"set xrange [0:%s]\n"
		"# a little below 0, so that a curve at 0 is not hidden by the axis\n"
		"set yrange [-3:103]\n"
		"set ytics 0,20,100\n"
		"set key below\n"
		"# a bucket's share is drawn from its start to its end (columns t_s, t_end_s)\n",
		r->in.lab, r->in.failure.site,
		report_fmt_duration(bucket, sizeof(bucket), d->bucket_ns),
		report_fmt_s(end, sizeof(end), d->end_ns));
	plot_markers(r, fp);
	/* a curve per scheme that has one: the k-th present scheme's share in
	 * column 3 + 3 k (decay.csv has columns for the present ones only);
	 * after them, the j-th fail-back curve's share in 3 + 3 P + 2 j */
	int n = 0, k = 0, j = 0;
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		if (!report_present(r, i))
			continue;
		if (d->s[i].known)
			fprintf(fp,
				"%s\"decay.csv\" using 1:($%d * 100) with steps lw 2 lc rgb \"%s\" "
				"title \"%s\"",
				n++ ? ", \\\n     " : "plot ", 3 + 3 * k, plot_colour[i],
				plot_title[i]);
		k++;
	}
	for (int i = 0; i < REPORT_NSCHEMES; i++) {
		if (!report_present(r, i) || d->s[i].back == NULL)
			continue;
		if (d->s[i].known)
			fprintf(fp,
				"%s\"decay.csv\" using 1:($%d * 100) with steps lw 2 dt 2 lc rgb "
				"\"%s\" title \"%s: back at %s after its recovery\"",
				n++ ? ", \\\n     " : "plot ", 3 + 3 * k + 2 * j, plot_colour[i],
				plot_title[i], r->in.failure.site);
		j++;
	}
	/* then each [resolver] node's clients, after the fail-back columns */
	for (int m = 0; m < d->nrsv; m++) {
		char name[2 * CLOCKS_NAME_MAX + 4];

		if (d->rsv[m].known)
			fprintf(fp,
				"%s\"decay.csv\" using 1:($%d * 100) with steps lw 1.5 lc rgb "
				"\"%s\" title \"DNS via %s\"",
				n++ ? ", \\\n     " : "plot ", 3 + 3 * k + 2 * j + 3 * m,
				plot_rsv_colour[m % PLOT_RSV_COLOURS],
				report_rsv_name(name, sizeof(name), &r->in.dnstopo.rsv[m]));
	}
	fputc('\n', fp);
}

static void plot_upstream_text(const struct report *r, FILE *fp, const char *png)
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
	plot_terminal(fp, png);
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

typedef void (*plot_text_fn)(const struct report *r, FILE *fp, const char *png);

/* the plots there are: a script kept, a PNG drawn */
struct plot_chart {
	const char *script, *png;
	plot_text_fn text;
};

#define PLOT_MAX 2
#define PLOT_VERSION_LEN sizeof(((struct report *)0)->gnuplot_version)

/* plot_script: the script name, for a person to plot again with */
static int plot_script(const struct report *r, const struct plot_chart *c, char *err, size_t errlen)
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
struct plot_fill_arg {
	const struct report *r;
	const struct plot_chart *c;
	int n;
};

static void plot_fill(FILE *fp, const void *arg)
{
	const struct plot_fill_arg *a = arg;
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

/* plot_version_read: the first line gnuplot printed on out (the memory
 * file of its standard output) into r->gnuplot_version, if it is its
 * version (any first line when any is) */
static void plot_version_read(struct report *r, int out, int any)
{
	char buf[PLOT_VERSION_LEN];
	ssize_t n = pread(out, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strncmp(buf, "gnuplot ", 8) == 0 || (any && buf[0]))
		snprintf(r->gnuplot_version, PLOT_VERSION_LEN, "%s", buf);
	else
		snprintf(r->gnuplot_version, PLOT_VERSION_LEN, "unknown (%s printed no version)",
			 r->gnuplot);
}

/* plot_version_alone: `gnuplot --version`, when there is nothing to plot */
static void plot_version_alone(struct report *r)
{
	char *argv[] = {(char *)r->gnuplot, "--version", NULL};
	int out = memfd_create("steerlab-gnuplot-out", MFD_CLOEXEC);

	snprintf(r->gnuplot_version, PLOT_VERSION_LEN, "not found (%s)", r->gnuplot);
	if (out == -1)
		return;
	if (subproc_run(NULL, argv, -1, out, out) == 0)
		plot_version_read(r, out, 1);
	close(out);
}

/* plot_note_failed: why no PNG was drawn, after gnuplot returned rc */
static void plot_note_failed(struct report *r, const struct plot_chart *c, int n, int rc)
{
	char scripts[64];

	snprintf(scripts, sizeof(scripts), "%s%s%s", c[0].script, n > 1 ? " and " : "",
		 n > 1 ? c[1].script : "");
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
			 r->gnuplot, scripts, rc, PLOT_LOG);
}

/* plot_run: one gnuplot on every chart of c, the k-th PNG to c[k].png
 * through a temporary file, its messages to the log's, its version into
 * r->gnuplot_version; 0 drawn, 1 not (r->plot_note says why), -1 on an
 * error of the report's own files (err set) */
static int plot_run(struct report *r, const struct plot_chart *c, int n, struct atomicfile *log,
		    char *err, size_t errlen)
{
	char *argv[] = {(char *)r->gnuplot, NULL};
	struct plot_fill_arg a = {r, c, n};
	struct atomicfile png[PLOT_MAX];
	int fds[3 + PLOT_MAX], rc, opened = 0;

	snprintf(r->gnuplot_version, PLOT_VERSION_LEN, "not found (%s)", r->gnuplot);
	fds[1] = memfd_create("steerlab-gnuplot-out", MFD_CLOEXEC);
	if (fds[1] == -1 || (fds[0] = subproc_memfd("steerlab-plot", plot_fill, &a)) == -1) {
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
		plot_version_read(r, fds[1], 0);
	if (rc != 0) {
		plot_note_failed(r, c, n, rc);
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
	struct plot_chart c[PLOT_MAX];
	struct atomicfile log;
	int n = 0, rc;

	r->plot_decay = 0;
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		r->plot_decay |= r->decay.n > 0 && r->decay.s[i].known && report_present(r, i);
	r->plot_upstream = r->up.known && r->up.n > 0;
	if (!r->plot_decay && !r->plot_upstream) {
		snprintf(r->plot_note, sizeof(r->plot_note),
			 "nothing to plot: no scheme's requests after t0, no query capture");
		plot_version_alone(r);
		return 0;
	}
	if (r->plot_decay)
		c[n++] = (struct plot_chart){"decay.gp", "decay.png", plot_decay_text};
	if (r->plot_upstream)
		c[n++] = (struct plot_chart){"upstream.gp", "upstream.png", plot_upstream_text};
	for (int k = 0; k < n; k++)
		if (plot_script(r, &c[k], err, errlen) == -1)
			return -1;
	if (report_file_open(r, &log, PLOT_LOG, err, errlen) == -1)
		return -1;
	rc = plot_run(r, c, n, &log, err, errlen);
	r->drawn = rc == 0;
	if (rc == -1) {
		atomicfile_abort(&log);
		return -1;
	}
	/* the log of this run, or none: an old one would mislead */
	if (atomicfile_size(&log) == 0) {
		atomicfile_abort(&log);
		if (unlinkat(r->dirfd, PLOT_LOG, 0) == -1 && errno != ENOENT) {
			snprintf(err, errlen, "%s/%s: %s", r->rundir, PLOT_LOG, strerror(errno));
			return -1;
		}
		return 0;
	}
	return report_file_close(&log, err, errlen);
}
