/*
 * Weights that change in the report (clocks_shares.h; docs/clocks.md,
 * "Weights that change"): shares.csv, each second of the traffic a line
 * with each weighted site's share of its name's requests beside the share
 * its weights meant; shares.gp, the plot of it (a panel per name: the
 * measured shares as steps, the weights' dashed, the timeline's steps as
 * dotted lines);
 * and report.md's section. Only when the timeline moved a name's weights.
 */
#include <string.h>

#include "report_int.h"

static const char *const report_shares_colour[] = {"#1f77b4", "#d62728", "#2ca02c",
						   "#9467bd", "#ff7f0e", "#8c564b"};
#define REPORT_SHARES_COLOURS (sizeof(report_shares_colour) / sizeof(report_shares_colour[0]))

int report_has_shares(const struct report *r)
{
	return r->in.shares != NULL && r->in.shares->nnames > 0;
}

/* report_shares_prefix: a name as a column prefix: no final dot */
static const char *report_shares_prefix(const char *name, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", name);
	n = strlen(buf);
	if (n > 1 && buf[n - 1] == '.')
		buf[n - 1] = '\0';
	return buf;
}

/* report_shares_column: the 1-based column of name i's site k's field f
 * (0 share, 1 weight, 2 requests), after t_s,t_end_s and, per name before
 * it, its all and 3 a site */
static int report_shares_column(const struct clocks_shares *s, int i, int k, int f)
{
	int col = 3;

	for (int j = 0; j < i; j++)
		col += 1 + 3 * s->names[j].nsites;
	return col + 1 + 3 * k + f;
}

int report_write_shares_csv(const struct report *r, char *err, size_t errlen)
{
	const struct clocks_shares *s = r->in.shares;
	struct atomicfile af;
	char p[CLOCKS_DNS_NAME_MAX];
	FILE *fp;

	if (!report_has_shares(r))
		return 0;
	if (report_csv_open(r, &af, "shares.csv",
			    "t_s=s after the traffic started, t_end_s=s after the traffic "
			    "started, *_share=fraction (0 to 1), *_weight=fraction (0 to 1), "
			    "other columns=requests",
			    err, errlen) == -1)
		return -1;
	fp = af.fp;
	fprintf(fp, "t_s,t_end_s");
	for (int i = 0; i < s->nnames; i++) {
		const struct clocks_shares_name *sn = &s->names[i];

		report_shares_prefix(sn->name, p, sizeof(p));
		fprintf(fp, ",%s_all", p);
		for (int k = 0; k < sn->nsites; k++)
			fprintf(fp, ",%s_%s_share,%s_%s_weight,%s_%s", p, sn->sites[k], p,
				sn->sites[k], p, sn->sites[k]);
	}
	fputc('\n', fp);
	for (size_t b = 0; b < s->nbuckets; b++) {
		fprintf(fp, "%zu,%zu", b, b + 1);
		for (int i = 0; i < s->nnames; i++) {
			const struct clocks_shares_name *sn = &s->names[i];
			int64_t all = sn->total[b];

			fprintf(fp, ",%lld", (long long)all);
			for (int k = 0; k < sn->nsites; k++) {
				size_t at = b * (size_t)sn->nsites + (size_t)k;

				/* no request that second: no share, an empty cell */
				if (all > 0)
					fprintf(fp, ",%.6g", (double)sn->count[at] / (double)all);
				else
					fprintf(fp, ",");
				fprintf(fp, ",%.6g,%lld", sn->weight[at], (long long)sn->count[at]);
			}
		}
		fputc('\n', fp);
	}
	return report_file_close(&af, err, errlen);
}

void report_plot_shares_text(const struct report *r, FILE *fp, const char *png)
{
	const struct clocks_shares *s = r->in.shares;

	fprintf(fp,
		"# Each weighted site's share of its name's requests per second, against its "
		"weights,\n# in lab %s (shares.csv), written by steerlab report.\n# Plot again "
		"in this directory with: gnuplot shares.gp\n",
		r->in.lab);
	fprintf(fp,
		"if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		"\tset terminal pngcairo size 1000,%d font \"Sans,11\" noenhanced\n"
		"} else {\n"
		"\tset terminal png size 1000,%d noenhanced\n"
		"}\n",
		300 + 300 * s->nnames, 300 + 300 * s->nnames);
	fprintf(fp, "set output \"%s\"\n", png);
	fprintf(fp,
		"set datafile separator \",\"\n"
		"set datafile columnheaders\n"
		"set grid\n"
		"set key outside right top\n"
		"set multiplot layout %d,1\n",
		s->nnames);
	for (int i = 0; i < s->nnames; i++) {
		const struct clocks_shares_name *sn = &s->names[i];

		fprintf(fp,
			"unset arrow\n"
			"set title \"lab %s: %s, each site's share of its clients' requests per "
			"second (solid) and its weights' (dashed)\" offset 0,1\n"
			"set xlabel \"time from the traffic's start (s)\"\n"
			"set ylabel \"share of the requests\"\n"
			"set xrange [0:%zu]\n"
			"set yrange [0:1.05]\n",
			r->in.lab, sn->name, s->nbuckets);
		/* each step of the timeline: a dotted line, named above the plot
		 * (steps of one instant named together) */
		fprintf(fp, "unset label\n");
		for (size_t j = 0; j < r->in.nhits; j++) {
			const struct clocks_hit *h = &r->in.hits[j];
			double x = (double)(h->t_ns - s->start_ns) / 1e9;
			char names[128];
			size_t used = 0;

			if (j > 0 && h->t_ns - r->in.hits[j - 1].t_ns < 50000000)
				continue;
			for (size_t k = j; k < r->in.nhits && used < sizeof(names) &&
					   r->in.hits[k].t_ns - h->t_ns < 50000000;
			     k++)
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
							 k > j ? ", " : "", r->in.hits[k].name);
			fprintf(fp,
				"set arrow from %.3f, graph 0 to %.3f, graph 1 nohead dt 3 lc rgb "
				"\"#555555\"\n"
				"set label \"%s\" at %.3f, graph 1.03 center font \",9\"\n",
				x, x, names, x);
		}
		fprintf(fp, "plot ");
		for (int k = 0; k < sn->nsites; k++) {
			const char *c = report_shares_colour[(size_t)k % REPORT_SHARES_COLOURS];

			/* second k runs from t_s to t_end_s: a step over it */
			fprintf(
			    fp,
			    "%s\"shares.csv\" using 1:%d with steps lw 2 lc rgb \"%s\" title "
			    "\"%s measured\", \\\n"
			    "\t\"shares.csv\" using 1:%d with steps dt 2 lw 2 lc rgb \"%s\" title "
			    "\"%s weights\"",
			    k ? ", \\\n\t" : "", report_shares_column(s, i, k, 0), c, sn->sites[k],
			    report_shares_column(s, i, k, 1), c, sn->sites[k]);
		}
		fputc('\n', fp);
	}
	fprintf(fp, "unset multiplot\n");
}

void report_md_shares(const struct report *r, FILE *fp)
{
	if (!report_has_shares(r))
		return;
	fprintf(fp,
		"## Weights\n\nThe timeline moved the weights of a weighted name "
		"(`set-weight`). For each period between two changes, its clients' requests "
		"on the site links' captures: each site's share against the weights' share, "
		"over the whole period and from one TTL after its change on (what the caches "
		"had caught up with by then); deviation: half the L1 distance (docs/clocks.md, "
		"\"Weights that change\"). shares.csv has each second%s.\n\n",
		r->drawn && r->plot_shares ? ", drawn in shares.png" : "");
	clocks_shares_md(fp, &r->in);
	fputc('\n', fp);
	if (r->drawn && r->plot_shares)
		fprintf(fp, "![the shares per second against the weights](shares.png)\n\n");
}
