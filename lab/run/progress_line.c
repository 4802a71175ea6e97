/* The status line of a run, built from fields that fit the terminal; see progress.h. */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "timeutil.h"

/* a field: its variants, longest first; "" drops it */
#define PROGRESS_VARIANTS 4
#define PROGRESS_FIELD_MAX 200

enum { PF_LABEL, PF_PHASE, PF_TIME, PF_FAIL, PF_SENT, PF_TO, PF_SCHEMES, PF_N };

struct progress_field {
	char v[PROGRESS_VARIANTS][PROGRESS_FIELD_MAX];
	int nv, cur;
};

/* the steps that make the line shorter, in order: a field and the variant
 * it takes (the line is measured after each). The label (a sweep's point)
 * keeps its form while anything else can give: a line that said
 * "ttl=1 1/2" says it on every tick, not "1 1/2" only while the failure's
 * instant is shown. */
static const struct {
	int field, variant;
} progress_steps[] = {
    {PF_TO, 1},	   {PF_SCHEMES, 1}, {PF_FAIL, 1}, {PF_SENT, 1},	 {PF_FAIL, 2},
    {PF_LABEL, 1}, {PF_PHASE, 1},   {PF_TIME, 1}, {PF_LABEL, 2}, {PF_TIME, 2},
    {PF_LABEL, 3}, {PF_SENT, 2},    {PF_TO, 2},
};

static double progress_s(int64_t ns)
{
	return (double)ns / NSEC_PER_SEC;
}

static void progress_set(struct progress_field *f, int i, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void progress_set(struct progress_field *f, int i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(f->v[i], sizeof(f->v[i]), fmt, ap);
	va_end(ap);
	if (i + 1 > f->nv)
		f->nv = i + 1;
}

/* progress_label_values: "ttl=30 probe_interval=250ms 3/12" as
 * "30 250ms 3/12": every KEY=VALUE word by its value */
static void progress_label_values(char *buf, size_t len, const char *label)
{
	size_t off = 0;

	buf[0] = '\0';
	for (const char *w = label; *w;) {
		size_t n = strcspn(w, " ");
		const char *eq = memchr(w, '=', n);
		const char *from = eq ? eq + 1 : w;
		size_t k = (size_t)(w + n - from);

		if (k > 0 && off + k + 2 < len) {
			if (off > 0)
				buf[off++] = ' ';
			memcpy(buf + off, from, k);
			off += k;
			buf[off] = '\0';
		}
		w += n;
		w += strspn(w, " ");
	}
}

/* progress_schemes: " anycast 0% dns 34% cut" (names long or short) */
static void progress_schemes(char *buf, size_t len, const struct progress_view *v, int shortnames)
{
	static const char *const names[2][PROGRESS_NSCHEMES] = {{"anycast", "dns"}, {"any", "dns"}};
	size_t off = 0;
	int any = 0;

	buf[0] = '\0';
	for (int s = 0; s < PROGRESS_NSCHEMES && off < len; s++) {
		int n;
		if (!v->scheme[s].present)
			continue;
		any = 1;
		if (v->scheme[s].resolved > 0)
			n = snprintf(buf + off, len - off, " %s %.0f%%", names[shortnames][s],
				     100.0 * (double)v->scheme[s].to_dead /
					 (double)v->scheme[s].resolved);
		else
			n = snprintf(buf + off, len - off, " %s -", names[shortnames][s]);
		off += n > 0 ? (size_t)n : 0;
		if (v->scheme[s].cut && off < len) {
			n = snprintf(buf + off, len - off, " cut");
			off += n > 0 ? (size_t)n : 0;
		}
	}
	if (!any)
		snprintf(buf, len, " -");
}

/* progress_fields: every field of v's line, in its every variant */
static void progress_fields(struct progress_field *f, const struct progress_view *v)
{
	static const char *const names[][2] = {
	    [PROGRESS_IDLE] = {"starting", "start"},
	    [PROGRESS_WARMUP] = {"warm-up", "warm"},
	    [PROGRESS_TRAFFIC] = {"traffic", "traf"},
	    [PROGRESS_OBSERVING] = {"observing", "obs"},
	    [PROGRESS_DRAINING] = {"last replies", "end"},
	    [PROGRESS_DONE] = {"done", "done"},
	};
	char values[PROGRESS_FIELD_MAX], win[32];
	const char *sp;

	memset(f, 0, sizeof(*f) * PF_N);
	for (int i = 0; i < PF_N; i++)
		f[i].nv = 1;
	if (v->label && v->label[0]) {
		progress_set(&f[PF_LABEL], 0, "%s ", v->label);
		progress_label_values(values, sizeof(values), v->label);
		progress_set(&f[PF_LABEL], 1, "%s ", values);
		sp = strrchr(v->label, ' ');
		progress_set(&f[PF_LABEL], 2, "%s ", sp ? sp + 1 : v->label);
		progress_set(&f[PF_LABEL], 3, "%s", "");
	}
	progress_set(&f[PF_PHASE], 0, "[%s]", names[v->phase][0]);
	progress_set(&f[PF_PHASE], 1, "[%s]", names[v->phase][1]);
	if (v->phase == PROGRESS_IDLE || v->phase == PROGRESS_WARMUP) {
		progress_set(&f[PF_TIME], 0,
			     " %.1f s: waiting for captures, routes and DNS servers",
			     progress_s(v->elapsed_ns));
		progress_set(&f[PF_TIME], 1, " %.1f s: waiting for the lab",
			     progress_s(v->elapsed_ns));
		progress_set(&f[PF_TIME], 2, " %.1fs", progress_s(v->elapsed_ns));
		return;
	}
	progress_set(&f[PF_TIME], 0, " %.1f/%.1f s", progress_s(v->elapsed_ns),
		     progress_s(v->total_ns));
	progress_set(&f[PF_TIME], 1, " %.1f/%.0fs", progress_s(v->elapsed_ns),
		     progress_s(v->total_ns));
	progress_set(&f[PF_TIME], 2, " %.1fs", progress_s(v->elapsed_ns));
	if (v->phase == PROGRESS_TRAFFIC && v->fail_at_ns < 0) { /* steady state */
		progress_set(&f[PF_FAIL], 0, "%s", ", steady state");
		progress_set(&f[PF_FAIL], 1, "%s", " steady");
		progress_set(&f[PF_FAIL], 2, "%s", "");
	} else if (v->phase == PROGRESS_TRAFFIC) {
		progress_set(&f[PF_FAIL], 0, ", failure at %.1f s", progress_s(v->fail_at_ns));
		progress_set(&f[PF_FAIL], 1, " fail@%.1fs", progress_s(v->fail_at_ns));
		progress_set(&f[PF_FAIL], 2, "%s", "");
	}
	if (v->sent < 0) {
		/* the captures count before the clients' first second does */
		int seen = 0;
		for (int s = 0; s < PROGRESS_NSCHEMES; s++)
			seen |= v->scheme[s].resolved > 0;
		if (!seen || v->dead == NULL || v->dead[0] == '\0') {
			progress_set(&f[PF_SENT], 0, "  no counts yet");
			progress_set(&f[PF_SENT], 1, " no counts yet");
			progress_set(&f[PF_SENT], 2, "%s", "");
			return;
		}
	} else {
		progress_set(&f[PF_SENT], 0, "  sent %lld", (long long)v->sent);
		progress_set(&f[PF_SENT], 1, " sent %lld", (long long)v->sent);
		progress_set(&f[PF_SENT], 2, "%s", "");
	}
	if (v->dead == NULL || v->dead[0] == '\0')
		return;
	if (v->window_ns % NSEC_PER_SEC == 0)
		snprintf(win, sizeof(win), "%lld s", (long long)(v->window_ns / NSEC_PER_SEC));
	else
		snprintf(win, sizeof(win), "%.1f s", progress_s(v->window_ns));
	progress_set(&f[PF_TO], 0, "  to %s (last %s):", v->dead, win);
	progress_set(&f[PF_TO], 1, "  to %s:", v->dead);
	progress_set(&f[PF_TO], 2, " %s:", v->dead);
	progress_schemes(f[PF_SCHEMES].v[0], sizeof(f[PF_SCHEMES].v[0]), v, 0);
	progress_schemes(f[PF_SCHEMES].v[1], sizeof(f[PF_SCHEMES].v[1]), v, 1);
	f[PF_SCHEMES].nv = 2;
}

static size_t progress_width(const struct progress_field *f)
{
	size_t n = 0;

	for (int i = 0; i < PF_N; i++)
		n += strlen(f[i].v[f[i].cur]);
	return n;
}

int progress_format(char *buf, size_t len, const struct progress_view *v, int width)
{
	struct progress_field f[PF_N];
	size_t max, off = 0;

	if (len == 0)
		return 0;
	max = width > 0 && (size_t)width < len ? (size_t)width : len - 1;
	progress_fields(f, v);
	for (size_t s = 0; s < sizeof(progress_steps) / sizeof(progress_steps[0]); s++) {
		if (progress_width(f) <= max)
			break;
		struct progress_field *pf = &f[progress_steps[s].field];
		if (progress_steps[s].variant < pf->nv)
			pf->cur = progress_steps[s].variant;
	}
	/* whole fields, as many as fit; then, of one that does not, whole
	 * words: never a number cut in two */
	buf[0] = '\0';
	for (int i = 0; i < PF_N; i++) {
		const char *t = f[i].v[f[i].cur];
		size_t n = strlen(t);

		if (off + n <= max) {
			memcpy(buf + off, t, n + 1);
			off += n;
			continue;
		}
		for (size_t k = max - off; k > 0; k--) {
			if (t[k] == ' ' || t[k] == '\0') {
				memcpy(buf + off, t, k);
				off += k;
				buf[off] = '\0';
				break;
			}
		}
		break;
	}
	while (off > 0 && buf[off - 1] == ' ')
		buf[--off] = '\0';
	return (int)off;
}
