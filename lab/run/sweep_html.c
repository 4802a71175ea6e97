/*
 * report.html of a sweep or a repeat (sweep_output_write; run.h): the table
 * the terminal shows, and a plot drawn as SVG by steerlab itself from the
 * CSV it has just written (the first of its files): each clock in seconds
 * (a column SCHEME_NAME_s, the model's aside) against the points, in order.
 * One file, nothing fetched (lib/html.h).
 */
#include "run.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "html.h"
#include "log.h"
#include "strfmt.h"

#define SWEEP_HTML_COLS 8
#define SWEEP_HTML_W 900
#define SWEEP_HTML_H 380

static const char *const sweep_html_colors[SWEEP_HTML_COLS] = {
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

/* sweep_html_field: the n-th comma-separated field of line (no quotes in
 * the columns plotted) into buf */
static void sweep_html_field(const char *line, int n, char *buf, size_t len)
{
	const char *s = line, *e;

	for (int i = 0; i < n && s; i++)
		s = (s = strchr(s, ',')) ? s + 1 : NULL;
	buf[0] = '\0';
	if (s == NULL)
		return;
	e = s + strcspn(s, ",\n");
	if ((size_t)(e - s) < len) {
		memcpy(buf, s, (size_t)(e - s));
		buf[e - s] = '\0';
	}
}

/* sweep_html_plot: the CSV's clocks against its points, as SVG */
static void sweep_html_plot(FILE *out, char *csv)
{
	char *lines[SWEEP_MAX_POINTS + 1], *save = NULL, name[128], v[64];
	int cols[SWEEP_HTML_COLS], ncols = 0, nlines = 0, nf = 0;
	double ymax = 0;

	for (char *l = strtok_r(csv, "\n", &save); l && nlines <= SWEEP_MAX_POINTS;
	     l = strtok_r(NULL, "\n", &save))
		if (l[0] != '#')
			lines[nlines++] = l;
	if (nlines < 2)
		return;
	for (const char *c = lines[0]; c; c = strchr(c + 1, ','))
		nf++;
	for (int f = 1; f < nf && ncols < SWEEP_HTML_COLS; f++) {
		size_t n;

		sweep_html_field(lines[0], f, name, sizeof(name));
		n = strlen(name);
		if (n > 2 && strcmp(name + n - 2, "_s") == 0 && !strstr(name, "model") &&
		    !strstr(name, "_last_"))
			cols[ncols++] = f;
	}
	for (int i = 1; i < nlines; i++)
		for (int c = 0; c < ncols; c++) {
			sweep_html_field(lines[i], cols[c], v, sizeof(v));
			if (v[0] && strtod(v, NULL) > ymax)
				ymax = strtod(v, NULL);
		}
	if (ncols == 0 || ymax <= 0)
		return;
	fprintf(
	    out,
	    "<h2>Plot</h2>\n<svg id=\"sweep-svg\" xmlns=\"http://www.w3.org/2000/svg\" "
	    "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
	    "font-size=\"12\">\n<rect x=\"60\" y=\"20\" width=\"%d\" height=\"%d\" fill=\"none\" "
	    "stroke=\"#999\"/>\n",
	    SWEEP_HTML_W, SWEEP_HTML_H, SWEEP_HTML_W, SWEEP_HTML_H, SWEEP_HTML_W - 80,
	    SWEEP_HTML_H - 80);
	for (int k = 0; k <= 4; k++)
		fprintf(out, "<text x=\"55\" y=\"%.1f\" text-anchor=\"end\">%.3g s</text>\n",
			20 + (SWEEP_HTML_H - 80) * (1 - k / 4.0) + 4, ymax * k / 4);
	for (int i = 1; i < nlines; i++) {
		double x = 60 + (SWEEP_HTML_W - 80) * (nlines > 2 ? (i - 1.0) / (nlines - 2) : 0.5);

		sweep_html_field(lines[i], 0, v, sizeof(v));
		fprintf(out, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x,
			SWEEP_HTML_H - 42);
		html_escape(out, v);
		fputs("</text>\n", out);
	}
	for (int c = 0; c < ncols; c++) {
		sweep_html_field(lines[0], cols[c], name, sizeof(name));
		fprintf(out, "<g data-column=\"%s\" fill=\"%s\" stroke=\"%s\">", name,
			sweep_html_colors[c], sweep_html_colors[c]);
		fprintf(out, "<text x=\"%d\" y=\"%d\" stroke=\"none\">%s</text>", 70 + c * 105,
			SWEEP_HTML_H - 12, name);
		for (int i = 1; i < nlines; i++) {
			double x = 60 + (SWEEP_HTML_W - 80) *
					    (nlines > 2 ? (i - 1.0) / (nlines - 2) : 0.5);

			sweep_html_field(lines[i], cols[c], v, sizeof(v));
			if (v[0])
				fprintf(out,
					"<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>%s</title>"
					"</circle>",
					x, 20 + (SWEEP_HTML_H - 80) * (1 - strtod(v, NULL) / ymax),
					v);
		}
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
}

int sweep_write_html(const struct sweep *sw, const struct sweep_table *tb, int dirfd,
		     const char *dir, const struct sweep_output *o)
{
	char err[PATH_MAX + 128], title[128], *text = NULL, *csv = NULL;
	size_t len = 0;
	struct atomicfile af;
	FILE *mem = open_memstream(&text, &len);
	int fd;

	if (mem == NULL) {
		log_warnx("%s: out of memory", __func__);
		return -1;
	}
	o->shown(sw, tb, mem);
	fclose(mem);
	/* the CSV just written, read back: the plot is its numbers */
	if ((fd = openat(dirfd, o->files[0], O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) != -1) {
		FILE *fp = fdopen(fd, "r");
		size_t n = 0;

		if (fp == NULL || getdelim(&csv, &n, '\0', fp) == -1) {
			free(csv);
			csv = NULL;
		}
		if (fp)
			fclose(fp);
		else
			close(fd);
	}
	if (atomicfile_open(&af, dirfd, dir, "report.html", err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		free(text);
		free(csv);
		return -1;
	}
	strfmt(title, sizeof(title), "steerlab %s: lab %s", o->what, tb->lab);
	html_page_begin(af.fp, title);
	fputs("<h1>", af.fp);
	html_escape(af.fp, title);
	fprintf(af.fp,
		"</h1>\n<p>Each point's own report.html is in its run directory; %s "
		"has these numbers.</p>\n<pre>",
		o->files[0]);
	html_escape_n(af.fp, text, len);
	fputs("</pre>\n", af.fp);
	if (csv)
		sweep_html_plot(af.fp, csv);
	html_page_end(af.fp);
	free(text);
	free(csv);
	if (atomicfile_commit(&af, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	return 0;
}
