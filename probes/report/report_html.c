/*
 * report.html: report.md's page for a browser (report_int.h), from the same
 * struct report. The verdict first, then the clocks (an HTML table of
 * clocks.json's, which the page also embeds whole as "clocks-data"), the
 * decay plot (drawn by the page's small script from "decay-data", the
 * numbers decay.csv has), the topology as a graph, the timeline, the
 * routing, the budget, the upstream load and the run's files. One file,
 * nothing fetched: readable offline (lib/html.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "html.h"
#include "report_int.h"
#include "timeutil.h"

/* the plot's colours: each scheme's, then each resolver's */
static const char *const report_html_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
						 "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
#define REPORT_HTML_NCOLORS (sizeof(report_html_colors) / sizeof(report_html_colors[0]))

/* report_html_fill: one of the report's tables, under its heading */
static void report_html_fill(FILE *fp, void (*fill)(const struct report *, struct texttable *),
			     const struct report *r)
{
	struct texttable t;

	fill(r, &t);
	html_table(fp, &t, NULL);
	texttable_free(&t);
}

/* report_html_text: what fn writes for the terminal, as a paragraph */
static void report_html_text(FILE *fp, void (*fn)(const struct report *, FILE *),
			     const struct report *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (mem == NULL)
		return;
	fn(r, mem);
	fclose(mem);
	fputs("<p class=\"note\">", fp);
	html_escape_n(fp, text, len);
	fputs("</p>\n", fp);
	free(text);
}

/* report_html_read: the file name of the run directory, whole (NUL ended),
 * or NULL */
static char *report_html_read(const struct report *r, const char *name, size_t *len)
{
	char *buf = NULL;
	struct stat st;
	ssize_t n;
	int fd = openat(r->dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || st.st_size < 0 ||
	    (buf = malloc((size_t)st.st_size + 1)) == NULL)
		goto fail;
	n = read(fd, buf, (size_t)st.st_size);
	if (n != st.st_size)
		goto fail;
	buf[n] = '\0';
	*len = (size_t)n;
	close(fd);
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}

/* report_html_verdict: clocks.json's verdict, its warnings one per line */
static void report_html_verdict(FILE *fp, json_t *clocks)
{
	json_t *w = json_object_get(clocks, "warnings");
	int valid = json_is_true(json_object_get(clocks, "valid"));
	size_t n = json_array_size(w), k;
	json_t *it;

	fprintf(fp, "<div id=\"verdict\" class=\"verdict %s\" data-valid=\"%s\">%s",
		!valid ? "invalid"
		: n    ? "warned"
		       : "valid",
		valid ? "true" : "false",
		!valid ? "INVALID RUN: the clocks below must not be quoted as measured"
		: n    ? "Valid run, with warnings"
		       : "Valid run: every self-check passed");
	fputs(" <span class=\"note\">(docs/clocks.md, &quot;Verdict&quot;)</span>\n", fp);
	if (n) {
		fputs("<ul>\n", fp);
		json_array_foreach(w, k, it)
		{
			const char *code = json_string_value(json_object_get(it, "code"));
			const char *msg = json_string_value(json_object_get(it, "message"));

			fputs("<li class=\"warning\" data-code=\"", fp);
			html_escape(fp, code ? code : "");
			fprintf(fp, "\">%s<code>",
				json_is_true(json_object_get(it, "invalidates")) ? "<b>invalid</b> "
										 : "");
			html_escape(fp, code ? code : "");
			fputs("</code>: ", fp);
			html_escape(fp, msg ? msg : "");
			fputs("</li>\n", fp);
		}
		fputs("</ul>\n", fp);
	}
	fputs("</div>\n", fp);
}

/* the clocks of the table: clocks.json's key in each scheme's object */
static const struct {
	const char *key, *label;
} report_html_keys[] = {
    {"detect_s", "detect (s)"},
    {"steer_s", "steer (s)"},
    {"window_s", "window (s)"},
    {"sent", "requests sent"},
    {"ok", "answered"},
    {"errors", "errors"},
    {"lost_client", "lost (client)"},
    {"lost_capture", "lost (capture)"},
    {"capture_drops", "capture drops"},
    {"upstream_queries", "upstream queries"},
};

/* report_html_u: a lab over several hosts: the uncertainty of the clock
 * key (detect_s: "detect") of scheme s, its uncertainty_s's, or NULL */
static json_t *report_html_u(json_t *s, const char *key)
{
	char name[32];
	size_t n = strlen(key);

	if (n < 3 || n >= sizeof(name) || strcmp(key + n - 2, "_s") != 0)
		return NULL;
	memcpy(name, key, n - 2);
	name[n - 2] = '\0';
	return json_object_get(json_object_get(s, "uncertainty_s"), name);
}

/* report_html_value: a clock's cell, its JSON text in data-value (what
 * the browser test compares with clocks.json), and in a lab over several
 * hosts its uncertainty u (NULL: none) in data-u and shown "± U ms" after
 * it, as the terminal's table does */
static void report_html_value(FILE *fp, const char *scheme, const char *key, json_t *v, json_t *u)
{
	char *text;

	if (v == NULL) { /* a clock this scheme does not have */
		fputs("<td></td>", fp);
		return;
	}
	text = json_dumps(v, JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
	fprintf(fp, "<td data-scheme=\"%s\" data-key=\"%s\" data-value=\"", scheme, key);
	html_escape(fp, text ? text : "");
	if (json_is_number(u) && json_is_real(v))
		fprintf(fp, "\" data-u=\"%.9g", json_number_value(u));
	fputs("\">", fp);
	if (json_is_null(v))
		fputs("-", fp);
	else if (json_is_real(v))
		fprintf(fp, "%.3f", json_real_value(v));
	else if (json_is_integer(v))
		fprintf(fp, "%lld", (long long)json_integer_value(v));
	else
		html_escape(fp, text ? text : "");
	if (json_is_number(u) && json_is_real(v) && json_number_value(u) > 0)
		fprintf(fp, " \u00b1 %.3f ms", json_number_value(u) * 1e3);
	fputs("</td>", fp);
	free(text);
}

/* report_html_clocks: each scheme's clocks of clocks.json, a column each,
 * then the terminal's table (with the model beside them) */
static void report_html_clocks(const struct report *r, FILE *fp, json_t *clocks)
{
	json_t *schemes = json_object_get(clocks, "schemes");
	const char *name;
	json_t *s;

	fputs("<h2 id=\"clocks\">Clocks</h2>\n", fp);
	if (json_object_size(schemes) == 0) {
		fputs("<p>No failover clocks (a steady-state run, or no scheme had flows).</p>\n",
		      fp);
	} else {
		fputs("<table id=\"clocks-table\"><tr><th class=\"l\">clock</th>", fp);
		json_object_foreach(schemes, name, s)
		{
			fputs("<th>", fp);
			html_escape(fp, name);
			fputs("</th>", fp);
		}
		fputs("</tr>\n", fp);
		for (size_t k = 0; k < sizeof(report_html_keys) / sizeof(report_html_keys[0]);
		     k++) {
			int any = 0;

			json_object_foreach(schemes, name, s) any |=
			    json_object_get(s, report_html_keys[k].key) != NULL;
			if (!any)
				continue;
			fprintf(fp, "<tr><td class=\"l\">%s</td>", report_html_keys[k].label);
			json_object_foreach(schemes, name, s)
			    report_html_value(fp, name, report_html_keys[k].key,
					      json_object_get(s, report_html_keys[k].key),
					      report_html_u(s, report_html_keys[k].key));
			fputs("</tr>\n", fp);
		}
		fputs("</table>\n", fp);
	}
	fputs("<p class=\"note\">Seconds after t0; every clock is defined in docs/clocks.md. As "
	      "<code>steerlab report</code> prints them, with the model beside them:</p>\n<pre>",
	      fp);
	html_escape_n(fp, r->clocks_text ? r->clocks_text : "", r->clocks_len);
	fputs("</pre>\n", fp);
}

/* report_html_series: one curve of decay-data, its shares as decay.csv's */
static void report_html_series(FILE *fp, const struct report *r, int *first, const char *name,
			       const char *kind, int color, int i,
			       const struct clocks_decay_series *s, const int64_t *count)
{
	char v[32];

	fprintf(fp, "%s\n{\"name\":\"%s\",\"kind\":\"%s\",\"color\":\"%s\",\"v\":[",
		*first ? "" : ",", name, kind,
		report_html_colors[(size_t)color % REPORT_HTML_NCOLORS]);
	*first = 0;
	for (size_t k = 0; k < r->decay.n; k++) {
		const char *x = s ? report_decay_share(v, sizeof(v), s, count, k)
				  : report_model_share(v, sizeof(v), r, i, k);

		fprintf(fp, "%s%s", k ? "," : "", x ? x : "null");
	}
	fputs("]}", fp);
}

/* report_html_event: one marker of the plot */
static void report_html_event(FILE *fp, const struct report *r, int *first, int64_t t_ns,
			      const char *kind, const char *label)
{
	json_t *l = json_string(label);
	char *text = l ? json_dumps(l, JSON_ENCODE_ANY) : NULL;

	if (text && t_ns != CLOCKS_NONE)
		fprintf(fp, "%s\n{\"t\":%.6f,\"kind\":\"%s\",\"label\":%s}", *first ? "" : ",",
			(double)(t_ns - r->in.failure.t0_ns) / 1e9, kind, text);
	if (text && t_ns != CLOCKS_NONE)
		*first = 0;
	free(text);
	json_decref(l);
}

/* report_html_events: t0, every step of the timeline, each prober's
 * declaration and each router's FIB changes */
static void report_html_events(FILE *fp, const struct report *r)
{
	const struct clocks_fib *fib = r->res[0].fib;
	char label[6 * CLOCKS_NAME_MAX];
	int first = 1;

	fputs("\"events\":[", fp);
	snprintf(label, sizeof(label), "t0: %s failed", r->in.failure.site);
	report_html_event(fp, r, &first, r->in.failure.t0_ns, "t0", label);
	for (size_t i = 0; i < r->in.nhits; i++) {
		const struct clocks_hit *h = &r->in.hits[i];

		if (h->t_ns == r->in.failure.t0_ns && !h->up)
			continue; /* t0 itself */
		snprintf(label, sizeof(label), "%s: %s%s%s", h->name, h->action,
			 h->target[0] ? " " : "", h->target);
		report_html_event(fp, r, &first, h->t_ns, h->up ? "recovery" : "failure", label);
	}
	for (size_t i = 0; i < r->in.ndead; i++) {
		snprintf(label, sizeof(label), "%s declared %s dead", r->in.dead[i].node,
			 r->in.dead[i].site);
		report_html_event(fp, r, &first, r->in.dead[i].t_ns, "declared", label);
	}
	for (int i = 0; fib && i < fib->nrouters; i++) {
		const struct clocks_router_fib *rf = &fib->routers[i];

		snprintf(label, sizeof(label), "FIB %s", rf->router);
		if (rf->first_at_ns != rf->final_at_ns)
			report_html_event(fp, r, &first, rf->first_at_ns, "fib", label);
		report_html_event(fp, r, &first, rf->final_at_ns, "fib", label);
	}
	fputs("]", fp);
}

/* report_html_decay_data: the decay's buckets and every curve of
 * decay.csv (shares), the markers, as JSON for the page's script */
static void report_html_decay_data(const struct report *r, FILE *fp)
{
	const struct clocks_decay *d = &r->decay;
	char a[48], name[CLOCKS_NAME_MAX + 16];
	int first = 1, color = 0;

	fprintf(fp, "<script type=\"application/json\" id=\"decay-data\">{\"bucket_s\":%s,",
		report_fmt_s(a, sizeof(a), d->bucket_ns));
	fputs("\"site\":", fp);
	{
		json_t *s = json_string(r->in.failure.site);
		char *t = s ? json_dumps(s, JSON_ENCODE_ANY) : NULL;

		fputs(t ? t : "\"\"", fp);
		free(t);
		json_decref(s);
	}
	fputs(",\"t_end_s\":[", fp);
	for (size_t k = 0; k < d->n; k++) {
		int64_t end = (int64_t)(k + 1) * d->bucket_ns;

		fprintf(fp, "%s%s", k ? "," : "",
			report_fmt_s(a, sizeof(a), end < d->end_ns ? end : d->end_ns));
	}
	fputs("],\"series\":[", fp);
	for (int i = 0; i < REPORT_NSCHEMES; i++, color++)
		if (report_present(r, i))
			report_html_series(fp, r, &first, r->res[i].scheme, "scheme", color, i,
					   &d->s[i], d->s[i].dead);
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i) && d->s[i].back) {
			snprintf(name, sizeof(name), "%s_back", r->res[i].scheme);
			report_html_series(fp, r, &first, name, "back", i, i, &d->s[i],
					   d->s[i].back);
		}
	for (int i = 0; i < d->nrsv; i++, color++) {
		snprintf(name, sizeof(name), "resolver_%s", r->in.dnstopo.rsv[i].name);
		report_html_series(fp, r, &first, name, "resolver", color, i, &d->rsv[i],
				   d->rsv[i].dead);
	}
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i) && r->model_share[i]) {
			snprintf(name, sizeof(name), "%s_model", r->res[i].scheme);
			report_html_series(fp, r, &first, name, "model", i, i, NULL, NULL);
		}
	fputs("],\n", fp);
	report_html_events(fp, r);
	fputs("}</script>\n", fp);
}

static void report_html_decay(const struct report *r, FILE *fp)
{
	char b[48];

	if (r->in.steady || r->decay.n == 0)
		return;
	fprintf(fp,
		"<h2 id=\"decay\">Decay</h2>\n<p>Share of each scheme's requests sent to the dead "
		"site %s, in the %s bucket ending at each time (seconds after t0): decay.csv's "
		"numbers. Wheel to zoom, drag to pan; the boxes show or hide each curve and the "
		"markers.</p>\n",
		r->in.failure.site, report_fmt_duration(b, sizeof(b), r->bucket_ns));
	fputs("<div id=\"decay-plot\"><noscript><p>The plot is drawn by the page's script; "
	      "decay.csv and the table below have its numbers.</p></noscript></div>\n"
	      "<pre id=\"plotted\" hidden></pre>\n",
	      fp);
	report_html_decay_data(r, fp);
	fputs("<h3>At readable marks</h3>\n", fp);
	report_html_fill(fp, report_decay_table, r);
	if (report_has_failback_decay(r)) {
		fputs("<h3>Fail-back</h3>\n", fp);
		report_html_fill(fp, report_failback_table, r);
	}
	if (report_has_resolvers(r) && r->decay.nrsv > 0) {
		fputs("<h3>Per resolver</h3>\n", fp);
		report_html_fill(fp, report_resolver_decay_table, r);
	}
}

static void report_html_routing(const struct report *r, FILE *fp)
{
	if (report_has_timeline(r)) {
		fputs("<h2 id=\"timeline\">Timeline</h2>\n<p>Every step as applied (after t0; at: "
		      "from the clients' start, fail_jitter included).</p>\n",
		      fp);
		report_html_fill(fp, report_timeline_table, r);
	}
	if (report_has_flaps(r)) {
		fputs("<h3>Flaps</h3>\n", fp);
		report_html_fill(fp, report_flap_table, r);
	}
	if (!report_has_fib(r) || !report_present(r, 0))
		return;
	fputs("<h2 id=\"routing\">Routing</h2>\n<p>Each router's route to the service after t0 "
	      "(docs/clocks.md, &quot;FIB clocks&quot;).</p>\n",
	      fp);
	report_html_fill(fp, report_fib_table, r);
	report_html_text(fp, report_fib_summary, r);
	if (report_has_fib6(r)) {
		fputs("<h3>IPv6</h3>\n", fp);
		report_html_fill(fp, report_fib6_table, r);
		report_html_text(fp, report_fib6_summary, r);
	}
	fputs("<h3>Catchments</h3>\n", fp);
	report_html_fill(fp, report_catch_table, r);
}

static void report_html_rest(const struct report *r, FILE *fp)
{
	if (!r->in.steady) {
		fprintf(fp, "<h2 id=\"budget\">Error budget</h2>\n<p>SLO %g %%.</p>\n", r->slo_pct);
		report_html_fill(fp, report_budget_table, r);
		report_html_text(fp, report_budget_why, r);
	}
	if (r->up.known) {
		fputs("<h2 id=\"upstream\">Upstream load</h2>\n<p>DNS queries that reached the "
		      "authorities, per source (upstream.csv per second).</p>\n",
		      fp);
		report_html_fill(fp, report_upstream_table, r);
	}
	if (report_has_resolvers(r) && !r->in.steady) {
		fputs("<h3>Resolvers</h3>\n", fp);
		report_html_fill(fp, report_resolver_table, r);
	}
	if (r->ex.nwords > 0 && !r->in.steady) {
		fputs("<h2 id=\"explain\">Who left first, and why</h2>\n<ul>\n", fp);
		for (int k = 0; k < r->ex.nwords; k++) {
			fputs("<li>", fp);
			html_escape(fp, r->ex.words[k]);
			fputs("</li>\n", fp);
		}
		fputs("</ul>\n", fp);
		report_html_fill(fp, report_cause_table, r);
	}
}

static int report_html_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* report_html_files: a link to each file of the run directory, by name */
static void report_html_files(const struct report *r, FILE *fp)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int fd = dup(r->dirfd);
	DIR *dir = fd == -1 ? NULL : fdopendir(fd);

	fputs("<h2 id=\"files\">Files</h2>\n<p>Beside this page in the run directory; "
	      "<code>steerlab report RUN_DIR</code> writes them again from the recorded "
	      "captures and events.</p>\n<ul class=\"files\">\n",
	      fp);
	if (dir == NULL && fd != -1)
		close(fd);
	while (dir && (e = readdir(dir)) != NULL) {
		char **grown;

		if (e->d_name[0] == '.' || strstr(e->d_name, ".tmp-") ||
		    strcmp(e->d_name, "report.html") == 0)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if ((grown = realloc(names, cap * sizeof(*names))) == NULL)
				break;
			names = grown;
		}
		if ((names[n] = strdup(e->d_name)) != NULL)
			n++;
	}
	if (dir)
		closedir(dir);
	if (n)
		qsort(names, n, sizeof(*names), report_html_name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		/* a name with no character to escape in a URL: the run's are so */
		fputs("<li><a href=\"", fp);
		for (const char *c = names[i]; *c; c++)
			if (strchr("%\"<>#? &'", *c))
				fprintf(fp, "%%%02X", (unsigned char)*c);
			else
				fputc(*c, fp);
		fputs("\">", fp);
		html_escape(fp, names[i]);
		fputs("</a>", fp);
		if (fstatat(r->dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
			fprintf(fp, " <span class=\"note\">(%lld bytes)</span>",
				(long long)st.st_size);
		fputs("</li>\n", fp);
		free(names[i]);
	}
	free(names);
	fputs("</ul>\n", fp);
}

int report_write_html(const struct report *r, char *err, size_t errlen)
{
	struct atomicfile af;
	json_error_t jerr;
	json_t *clocks;
	size_t len = 0;
	char title[CLOCKS_NAME_MAX + 64];
	char *text = report_html_read(r, "clocks.json", &len);
	FILE *fp;

	if (text == NULL) {
		snprintf(err, errlen, "%s/clocks.json: cannot read it back: %s", r->rundir,
			 strerror(errno));
		return -1;
	}
	if ((clocks = json_loadb(text, len, 0, &jerr)) == NULL) {
		snprintf(err, errlen, "%s/clocks.json:%d: %s", r->rundir, jerr.line, jerr.text);
		free(text);
		return -1;
	}
	if (report_file_open(r, &af, "report.html", err, errlen) == -1) {
		json_decref(clocks);
		free(text);
		return -1;
	}
	fp = af.fp;
	snprintf(title, sizeof(title), "Run report: lab %s%s", r->in.lab,
		 r->valid ? "" : " (INVALID RUN)");
	html_page_begin(fp, title);
	fputs("<h1>", fp);
	html_escape(fp, title);
	fputs("</h1>\n", fp);
	report_html_verdict(fp, clocks);
	if (r->in.steady)
		fputs("<p>Steady state: no failure, so no t0 and no failover clocks "
		      "(docs/clocks.md, &quot;Steady state&quot;).</p>\n",
		      fp);
	else {
		fputs("<p>Site ", fp);
		html_escape(fp, r->in.failure.site);
		fputs(" failed at t0; times are in seconds after t0. report.md has the same "
		      "run in words.</p>\n",
		      fp);
	}
	report_html_clocks(r, fp, clocks);
	html_json_block(fp, "clocks-data", text, len);
	report_html_decay(r, fp);
	report_html_topology(r, fp);
	report_html_routing(r, fp);
	report_html_rest(r, fp);
	report_html_files(r, fp);
	fprintf(fp, "<script>\n%s</script>\n", report_html_script);
	html_page_end(fp);
	json_decref(clocks);
	free(text);
	return report_file_close(&af, err, errlen);
}
