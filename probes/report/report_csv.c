/*
 * decay.csv and upstream.csv: the series behind the plots, one line per
 * bucket, for gnuplot and for anyone's own tools (docs/clocks.md). Times
 * are seconds after t0; a bucket runs from t_s (excluded) to t_end_s
 * (included). A share is a fraction from 0 to 1, empty when the bucket has
 * no request of the scheme; every field of a scheme that cannot be told is
 * empty. A scheme absent from the run has no columns. When the clients
 * spoke TCP, each scheme's connection attempts (SYNs) to the dead site and
 * to every site follow; last, each scheme's share as the model predicts it
 * (SCHEME_model_share: clocks_model_decay), when it has a model curve.
 */
#include <arpa/inet.h>
#include <string.h>

#include "report_int.h"
#include "timeutil.h"

const char *report_decay_share(char *buf, size_t len, const struct clocks_decay_series *s,
			       const int64_t *count, size_t k)
{
	if (!s->known || count == NULL || s->all[k] == 0)
		return NULL;
	snprintf(buf, len, "%.6g", (double)count[k] / (double)s->all[k]);
	return buf;
}

const char *report_model_share(char *buf, size_t len, const struct report *r, int i, size_t k)
{
	if (r->model_share[i] == NULL || r->model_share[i][k] < 0)
		return NULL;
	snprintf(buf, len, "%.6g", r->model_share[i][k]);
	return buf;
}

/* report_decay_csv_cells: a curve's share, dead and all of bucket k */
static void report_decay_csv_cells(FILE *fp, const struct clocks_decay_series *s, size_t k)
{
	char v[32];

	if (!s->known)
		fprintf(fp, ",,,");
	else if (s->all[k] == 0)
		fprintf(fp, ",,0,0");
	else
		fprintf(fp, ",%s,%lld,%lld", report_decay_share(v, sizeof(v), s, s->dead, k),
			(long long)s->dead[k], (long long)s->all[k]);
}

int report_write_decay_csv(const struct report *r, char *err, size_t errlen)
{
	const struct clocks_decay *d = &r->decay;
	struct atomicfile af;
	char a[48], b[48], v[32];
	FILE *fp;

	if (report_csv_open(r, &af, "decay.csv",
			    "t_s=s after t0, t_end_s=s after t0, *_share=fraction (0 to 1), "
			    "*_dead=requests, *_all=requests, *_syn_dead=SYNs, *_syn_all=SYNs",
			    err, errlen) == -1)
		return -1;
	fp = af.fp;
	fprintf(fp, "t_s,t_end_s");
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i))
			fprintf(fp, ",%s_share,%s_dead,%s_all", r->res[i].scheme, r->res[i].scheme,
				r->res[i].scheme);
	/* the fail-back curves, after the columns the plot's k-th scheme reads */
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i) && d->s[i].back)
			fprintf(fp, ",%s_back_share,%s_back", r->res[i].scheme, r->res[i].scheme);
	/* then each [resolver] node's clients' curve */
	for (int i = 0; i < d->nrsv; i++) {
		const char *n = r->in.dnstopo.rsv[i].name;

		fprintf(fp, ",resolver_%s_share,resolver_%s_dead,resolver_%s_all", n, n, n);
	}
	/* then the connection attempts, when the clients spoke TCP */
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i) && d->s[i].syn_all)
			fprintf(fp, ",%s_syn_dead,%s_syn_all", r->res[i].scheme, r->res[i].scheme);
	/* and the model's curves, last */
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		if (report_present(r, i) && r->model_share[i])
			fprintf(fp, ",%s_model_share", r->res[i].scheme);
	fputc('\n', fp);
	for (size_t k = 0; k < d->n; k++) {
		int64_t end = (int64_t)(k + 1) * d->bucket_ns;

		fprintf(fp, "%s,%s", report_fmt_s(a, sizeof(a), (int64_t)k * d->bucket_ns),
			report_fmt_s(b, sizeof(b), end < d->end_ns ? end : d->end_ns));
		for (int i = 0; i < REPORT_NSCHEMES; i++)
			if (report_present(r, i))
				report_decay_csv_cells(fp, &d->s[i], k);
		for (int i = 0; i < REPORT_NSCHEMES; i++) {
			const struct clocks_decay_series *s = &d->s[i];

			if (!report_present(r, i) || s->back == NULL)
				continue;
			if (!s->known)
				fprintf(fp, ",,");
			else if (s->all[k] == 0)
				fprintf(fp, ",,%lld", (long long)s->back[k]);
			else
				fprintf(fp, ",%s,%lld",
					report_decay_share(v, sizeof(v), s, s->back, k),
					(long long)s->back[k]);
		}
		for (int i = 0; i < d->nrsv; i++)
			report_decay_csv_cells(fp, &d->rsv[i], k);
		for (int i = 0; i < REPORT_NSCHEMES; i++) {
			const struct clocks_decay_series *s = &d->s[i];

			if (!report_present(r, i) || s->syn_all == NULL)
				continue;
			if (s->known)
				fprintf(fp, ",%lld,%lld", (long long)s->syn_dead[k],
					(long long)s->syn_all[k]);
			else
				fprintf(fp, ",,");
		}
		for (int i = 0; i < REPORT_NSCHEMES; i++) {
			if (!report_present(r, i) || r->model_share[i] == NULL)
				continue;
			const char *m = report_model_share(v, sizeof(v), r, i, k);

			fprintf(fp, ",%s", m ? m : "");
		}
		fputc('\n', fp);
	}
	return report_file_close(&af, err, errlen);
}

int report_write_upstream_csv(const struct report *r, char *err, size_t errlen)
{
	const struct report_upstream_series *u = &r->up;
	char addr[INET6_ADDRSTRLEN];
	struct atomicfile af;
	FILE *fp;

	if (!u->known)
		return 0; /* no query capture: report.md says so */
	if (report_csv_open(r, &af, "upstream.csv",
			    "t_s=s after t0, t_end_s=s after t0, other columns=queries", err,
			    errlen) == -1)
		return -1;
	fp = af.fp;
	fprintf(fp, "t_s,t_end_s,queries");
	for (size_t j = 0; j < u->nsrc; j++)
		fprintf(fp, ",%s", clocks_addr_name(&r->in, u->src[j], addr, sizeof(addr)));
	/* then per [resolver] node, its queries to each level the lab has */
	for (int k = 0; k < u->nrsv; k++)
		for (int l = 0; l < CLOCKS_LEVELS; l++)
			if (report_rsv_level_present(r, l))
				fprintf(fp, ",%s_%s", r->in.dnstopo.rsv[k].name,
					clocks_level_names[l]);
	fputc('\n', fp);
	for (size_t i = 0; i < u->n; i++) {
		long long t = (long long)(u->first + (int64_t)i);

		fprintf(fp, "%lld,%lld,%lld", t, t + 1, (long long)u->total[i]);
		for (size_t j = 0; j < u->nsrc; j++)
			fprintf(fp, ",%lld", (long long)u->count[i * u->nsrc + j]);
		for (int k = 0; k < u->nrsv; k++)
			for (int l = 0; l < CLOCKS_LEVELS; l++)
				if (report_rsv_level_present(r, l))
					fprintf(
					    fp, ",%lld",
					    (long long)u->level[(i * (size_t)u->nrsv + (size_t)k) *
								    CLOCKS_LEVELS +
								(size_t)l]);
		fputc('\n', fp);
	}
	return report_file_close(&af, err, errlen);
}

/* report_cause_used: scheme i has requests of cause x in some bucket */
static int report_cause_used(const struct report *r, int i, int x)
{
	const struct clocks_decay_series *s = &r->decay.s[i];

	if (!report_present(r, i) || !s->known || s->cause[x] == NULL)
		return 0;
	for (size_t k = 0; k < r->decay.n; k++)
		if (s->cause[x][k])
			return 1;
	return 0;
}

int report_has_causes(const struct report *r)
{
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		for (int x = 0; x < CLOCKS_CAUSES; x++)
			if (report_cause_used(r, i, x))
				return 1;
	return 0;
}

int report_write_causes_csv(const struct report *r, char *err, size_t errlen)
{
	const struct clocks_decay *d = &r->decay;
	struct atomicfile af;
	char a[48], b[48];
	FILE *fp;

	int used[REPORT_NSCHEMES][CLOCKS_CAUSES];

	if (!report_has_causes(r))
		return 0;
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		for (int x = 0; x < CLOCKS_CAUSES; x++)
			used[i][x] = report_cause_used(r, i, x);
	if (report_csv_open(r, &af, "decay-causes.csv",
			    "t_s=s after t0, t_end_s=s after t0, *_share=fraction (0 to 1), "
			    "other columns=requests",
			    err, errlen) == -1)
		return -1;
	fp = af.fp;
	/* per scheme, each cause it has: its share of the scheme's requests,
	 * and their count (the same buckets as decay.csv) */
	fprintf(fp, "t_s,t_end_s");
	for (int i = 0; i < REPORT_NSCHEMES; i++)
		for (int x = 0; x < CLOCKS_CAUSES; x++)
			if (used[i][x])
				fprintf(fp, ",%s_%s_share,%s_%s", r->res[i].scheme,
					clocks_cause_names[x], r->res[i].scheme,
					clocks_cause_names[x]);
	fputc('\n', fp);
	for (size_t k = 0; k < d->n; k++) {
		int64_t end = (int64_t)(k + 1) * d->bucket_ns;

		fprintf(fp, "%s,%s", report_fmt_s(a, sizeof(a), (int64_t)k * d->bucket_ns),
			report_fmt_s(b, sizeof(b), end < d->end_ns ? end : d->end_ns));
		for (int i = 0; i < REPORT_NSCHEMES; i++) {
			const struct clocks_decay_series *s = &d->s[i];

			for (int x = 0; x < CLOCKS_CAUSES; x++) {
				if (!used[i][x])
					continue;
				if (s->all[k] == 0)
					fprintf(fp, ",,%lld", (long long)s->cause[x][k]);
				else
					fprintf(fp, ",%.6g,%lld",
						(double)s->cause[x][k] / (double)s->all[k],
						(long long)s->cause[x][k]);
			}
		}
		fputc('\n', fp);
	}
	return report_file_close(&af, err, errlen);
}
