/* The live status line of a run; see progress.h. */
#include "progress.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lab.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"

struct progress_flow {
	char path[PATH_MAX];
	FILE *fp; /* opened once the client has made the file */
	int scheme;
	struct progress_sample prev, cur;
};

static const char *const progress_scheme_names[PROGRESS_NSCHEMES] = {"anycast", "dns"};

enum progress_mode progress_mode_for(FILE *out, int quiet)
{
	if (quiet)
		return PROGRESS_QUIET;
	return isatty(fileno(out)) ? PROGRESS_TTY : PROGRESS_PLAIN;
}

void progress_init(struct progress *p, const struct topology *t, enum progress_mode mode, FILE *out,
		   const char *label)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->out = out;
	p->label = label;
	p->total_ns = t->duration_ns;
	p->fail_at_ns = t->fail_at_ns;
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].kind == TOPO_SITE && t->nodes[n].fail)
			strfmt(p->dead, sizeof(p->dead), "%s", t->nodes[n].name);
}

/* progress_s: ns as seconds */
static double progress_s(int64_t ns)
{
	return (double)ns / NSEC_PER_SEC;
}

int progress_format(char *buf, size_t len, const struct progress_view *v)
{
	static const char *const names[] = {
	    [PROGRESS_IDLE] = "starting",	  [PROGRESS_WARMUP] = "warm-up",
	    [PROGRESS_TRAFFIC] = "traffic",	  [PROGRESS_OBSERVING] = "observing",
	    [PROGRESS_DRAINING] = "last replies", [PROGRESS_DONE] = "done",
	};
	size_t off = 0;
	int any = 0;

#define PROGRESS_ADD(...)                                                                          \
	do {                                                                                       \
		if (off < len) {                                                                   \
			int n_ = snprintf(buf + off, len - off, __VA_ARGS__);                      \
			off += n_ > 0 ? (size_t)n_ : 0;                                            \
		}                                                                                  \
	} while (0)

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (v->label)
		PROGRESS_ADD("%s ", v->label);
	PROGRESS_ADD("[%s]", names[v->phase]);
	if (v->phase == PROGRESS_IDLE || v->phase == PROGRESS_WARMUP) {
		PROGRESS_ADD(" %.1f s: waiting for captures, routes and DNS servers",
			     progress_s(v->elapsed_ns));
		return (int)(off < len ? off : len - 1);
	}
	PROGRESS_ADD(" %.1f/%.1f s", progress_s(v->elapsed_ns), progress_s(v->total_ns));
	if (v->phase == PROGRESS_TRAFFIC)
		PROGRESS_ADD(", failure at %.1f s", progress_s(v->fail_at_ns));
	if (v->sent < 0) {
		PROGRESS_ADD("  no counts yet");
		return (int)(off < len ? off : len - 1);
	}
	PROGRESS_ADD("  sent %lld", (long long)v->sent);
	if (v->dead == NULL || v->dead[0] == '\0')
		return (int)(off < len ? off : len - 1);
	PROGRESS_ADD("  to %s (last 1 s):", v->dead);
	for (int s = 0; s < PROGRESS_NSCHEMES; s++) {
		if (!v->scheme[s].present)
			continue;
		any = 1;
		if (v->scheme[s].resolved > 0)
			PROGRESS_ADD(" %s %.0f%%", progress_scheme_names[s],
				     100.0 * (double)v->scheme[s].to_dead /
					 (double)v->scheme[s].resolved);
		else
			PROGRESS_ADD(" %s -", progress_scheme_names[s]);
	}
	if (!any)
		PROGRESS_ADD(" -");
#undef PROGRESS_ADD
	return (int)(off < len ? off : len - 1);
}

int progress_parse(const char *line, const char *dead, struct progress_sample *s)
{
	json_t *o = json_loads(line, 0, NULL);
	const char *ev = json_string_value(json_object_get(o, "event"));
	json_t *t = json_object_get(o, "t"), *sites = json_object_get(o, "sites");
	int rc = -1;

	if (ev == NULL || strcmp(ev, "client_progress") != 0 || !json_is_integer(t))
		goto out;
	memset(s, 0, sizeof(*s));
	s->t_ns = json_integer_value(t);
	s->sent = json_integer_value(json_object_get(o, "sent"));
	s->ok = json_integer_value(json_object_get(o, "ok"));
	s->lost = json_integer_value(json_object_get(o, "lost"));
	s->errors = json_integer_value(json_object_get(o, "errors"));
	if (dead && json_is_object(sites))
		s->dead = json_integer_value(json_object_get(sites, dead));
	rc = 0;
out:
	json_decref(o);
	return rc;
}

void progress_share(const struct progress_sample *prev, const struct progress_sample *cur,
		    int64_t t0_ns, int64_t *to_dead, int64_t *resolved)
{
	int64_t ok, lost, errors, dead;

	if (prev->t_ns == 0 || cur->t_ns <= prev->t_ns)
		return;
	ok = cur->ok - prev->ok;
	lost = cur->lost - prev->lost;
	errors = cur->errors - prev->errors;
	dead = cur->dead - prev->dead;
	if (ok < 0 || lost < 0 || errors < 0 || dead < 0)
		return;
	*resolved += ok + lost + errors;
	*to_dead += dead;
	if (t0_ns != 0 && cur->t_ns >= t0_ns)
		*to_dead += lost;
}

void progress_traffic(struct progress *p, int64_t start_ns, const struct lab *lab)
{
	p->traffic_start_ns = start_ns;
	p->phase = PROGRESS_TRAFFIC;
	p->phase_start_ns = start_ns;
	if (p->mode == PROGRESS_QUIET || lab->nagents == 0)
		return;
	if ((p->flows = calloc((size_t)lab->nagents, sizeof(*p->flows))) == NULL) {
		log_warn("%s: progress: no counts", __func__);
		return;
	}
	for (int i = 0; i < lab->nagents; i++) {
		const struct lab_agent *a = &lab->agents[i];
		struct progress_flow *f = &p->flows[p->nflows];
		if (strncmp(a->name, "client", 6) != 0 || a->node < 0 ||
		    strfmt(f->path, sizeof(f->path), "%s/%s.%s.events.jsonl", lab->rundir,
			   lab->t->nodes[a->node].name, a->name) == -1)
			continue;
		f->scheme = strcmp(a->name, "client-dns") == 0 ? PROGRESS_DNS : PROGRESS_ANYCAST;
		p->nflows++;
	}
}

void progress_failed(struct progress *p, int64_t t0_ns)
{
	p->t0_ns = t0_ns;
	p->phase = PROGRESS_OBSERVING;
}

/* progress_read: the flow's new complete lines; a line still being
 * written is read again at the next tick. */
static void progress_read(struct progress *p, struct progress_flow *f)
{
	struct progress_sample s;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (f->fp == NULL && (f->fp = fopen(f->path, "r")) == NULL)
		return;
	clearerr(f->fp);
	for (;;) {
		long at = ftell(f->fp);
		if ((n = getline(&line, &cap, f->fp)) <= 0)
			break;
		if (line[n - 1] != '\n') {
			fseek(f->fp, at, SEEK_SET);
			break;
		}
		if (progress_parse(line, p->dead, &s) == 0) {
			f->prev = f->cur;
			/* the counts start from 0 one interval before the first */
			if (f->prev.t_ns == 0) {
				memset(&f->prev, 0, sizeof(f->prev));
				f->prev.t_ns = s.t_ns - NSEC_PER_SEC;
			}
			f->cur = s;
		}
	}
	free(line);
}

/* progress_view: what the line shows now. */
static void progress_view(const struct progress *p, int64_t now, struct progress_view *v)
{
	int64_t real = now_real_ns();

	memset(v, 0, sizeof(*v));
	v->label = p->label;
	v->phase = p->phase;
	v->total_ns = p->total_ns;
	v->fail_at_ns = p->fail_at_ns;
	v->dead = p->dead;
	v->sent = -1;
	if (p->phase == PROGRESS_WARMUP || p->phase == PROGRESS_IDLE) {
		v->elapsed_ns = now - p->phase_start_ns;
		return;
	}
	v->elapsed_ns = now - p->traffic_start_ns;
	if (v->phase != PROGRESS_DONE && v->elapsed_ns >= p->total_ns)
		v->phase = PROGRESS_DRAINING;
	for (int i = 0; i < p->nflows; i++) {
		const struct progress_flow *f = &p->flows[i];
		v->scheme[f->scheme].present = 1;
		if (f->cur.t_ns == 0)
			continue;
		v->sent = (v->sent < 0 ? 0 : v->sent) + f->cur.sent;
		/* a flow that has stopped has no "last second" */
		if (real - f->cur.t_ns <= PROGRESS_STALE_NS)
			progress_share(&f->prev, &f->cur, p->t0_ns, &v->scheme[f->scheme].to_dead,
				       &v->scheme[f->scheme].resolved);
	}
}

/* progress_columns: the terminal's width, so the line never wraps (a
 * wrapped line cannot be rewritten with \r) */
static size_t progress_columns(FILE *out)
{
	struct winsize ws;

	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col < 512 ? ws.ws_col : 512;
	return 80;
}

static void progress_draw(struct progress *p, int64_t now)
{
	struct progress_view v;
	char line[512];
	size_t cols;
	int n;

	progress_view(p, now, &v);
	n = progress_format(line, sizeof(line), &v);
	if (p->mode == PROGRESS_TTY) {
		cols = progress_columns(p->out);
		/* leave the last column free: a full line wraps on some terminals */
		if ((size_t)n > cols - 1)
			line[cols - 1] = '\0';
		fprintf(p->out, "\r\033[K%s", line);
		p->shown = 1;
	} else {
		fprintf(p->out, "steerlab: %s\n", line);
	}
	fflush(p->out);
}

void progress_tick(struct progress *p)
{
	int64_t now = now_mono_ns();

	if (p->mode == PROGRESS_QUIET || p->phase == PROGRESS_DONE)
		return;
	for (int i = 0; i < p->nflows; i++)
		progress_read(p, &p->flows[i]);
	if (now < p->next_draw_ns)
		return;
	if (p->mode == PROGRESS_TTY) {
		p->next_draw_ns = now + PROGRESS_TTY_NS;
		progress_draw(p, now);
	} else if (p->traffic_start_ns != 0) {
		/* the run's own lines say when the warm-up starts and ends */
		if (p->next_draw_ns == 0) {
			p->next_draw_ns = p->traffic_start_ns + PROGRESS_PLAIN_NS;
			if (now < p->next_draw_ns)
				return;
		}
		p->next_draw_ns += PROGRESS_PLAIN_NS;
		if (p->next_draw_ns <= now)
			p->next_draw_ns = now + PROGRESS_PLAIN_NS;
		progress_draw(p, now);
	}
}

void progress_phase(struct progress *p, enum progress_phase phase)
{
	if (phase == PROGRESS_DONE)
		progress_clear(p);
	p->phase = phase;
	p->phase_start_ns = now_mono_ns();
	p->next_draw_ns = p->mode == PROGRESS_TTY ? 0 : p->next_draw_ns;
}

void progress_clear(struct progress *p)
{
	if (p->mode != PROGRESS_TTY || !p->shown)
		return;
	fputs("\r\033[K", p->out);
	fflush(p->out);
	p->shown = 0;
	/* redraw at the next tick, under whatever was printed */
	p->next_draw_ns = 0;
}

void progress_free(struct progress *p)
{
	progress_clear(p);
	for (int i = 0; i < p->nflows; i++)
		if (p->flows[i].fp)
			fclose(p->flows[i].fp);
	free(p->flows);
	p->flows = NULL;
	p->nflows = 0;
}
