/* The live status line of a run; see progress.h. */
#include "progress.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "events.h"
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

/* a collector's event file and its latest samples, oldest first */
struct progress_capture {
	char path[PATH_MAX];
	FILE *fp;
	struct progress_capsample s[PROGRESS_RING];
	int n;
};

static const char *const progress_scheme_keys[PROGRESS_NSCHEMES][2] = {
    {"anycast", "anycast_last_ns"}, {"dns", "dns_last_ns"}};

int progress_parse_capture(const char *line, const char *dead, struct progress_capsample *s)
{
	json_t *o = json_loads(line, 0, NULL), *t, *links, *l;
	const char *ev = json_string_value(json_object_get(o, "event")), *label;
	int rc = -1;

	t = json_object_get(o, "t");
	links = json_object_get(o, "links");
	if (ev == NULL || strcmp(ev, EVENTS_CAPTURE_PROGRESS) != 0 || !json_is_integer(t) ||
	    !json_is_object(links))
		goto out;
	memset(s, 0, sizeof(*s));
	s->t_ns = json_integer_value(t);
	json_object_foreach(links, label, l)
	{
		int is_dead = dead && strcmp(label, dead) == 0;
		for (int k = 0; k < PROGRESS_NSCHEMES; k++) {
			int64_t n =
			    json_integer_value(json_object_get(l, progress_scheme_keys[k][0]));
			int64_t last =
			    json_integer_value(json_object_get(l, progress_scheme_keys[k][1]));
			s->all[k] += n;
			if (last > s->all_last_ns[k])
				s->all_last_ns[k] = last;
			if (is_dead) {
				s->dead[k] = n;
				s->dead_last_ns[k] = last;
			}
		}
	}
	rc = 0;
out:
	json_decref(o);
	return rc;
}

void progress_capshare(const struct progress_capsample *s, int n, int scheme, int64_t window_ns,
		       int64_t *to_dead, int64_t *resolved)
{
	int k = n - 1, j = 0;
	int64_t d, a;

	if (n < 2)
		return;
	/* the sample from which the scheme's count has not changed */
	while (k > 0 && s[k - 1].all[scheme] == s[n - 1].all[scheme])
		k--;
	for (int i = k; i >= 0; i--) {
		if (s[i].t_ns <= s[k].t_ns - window_ns) {
			j = i;
			break;
		}
	}
	if (j == k)
		return;
	d = s[k].dead[scheme] - s[j].dead[scheme];
	a = s[k].all[scheme] - s[j].all[scheme];
	if (d < 0 || a < d)
		return;
	*to_dead += d;
	*resolved += a;
}

int progress_capcut(const struct progress_capsample *s, int scheme, int64_t t0_ns)
{
	return t0_ns != 0 && s->dead_last_ns[scheme] > t0_ns &&
	       s->dead_last_ns[scheme] >= s->all_last_ns[scheme] - PROGRESS_CUT_NS;
}

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
	/* the timeline's first failure of a site */
	int n = topo_first_failure(t, &p->fail_at_ns);
	if (n >= 0)
		strfmt(p->dead, sizeof(p->dead), "%s", t->nodes[n].name);
	else
		p->fail_at_ns = -1; /* a steady-state run: no failure to show */
}

int progress_parse(const char *line, const char *dead, struct progress_sample *s)
{
	json_t *o = json_loads(line, 0, NULL);
	const char *ev = json_string_value(json_object_get(o, "event"));
	json_t *t = json_object_get(o, "t"), *sites = json_object_get(o, "sites");
	int rc = -1;

	if (ev == NULL || strcmp(ev, EVENTS_CLIENT_PROGRESS) != 0 || !json_is_integer(t))
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
	if ((p->caps = calloc((size_t)lab->nagents, sizeof(*p->caps))) == NULL)
		log_warn("%s: progress: no capture counts", __func__);
	for (int i = 0; i < lab->nagents; i++) {
		const struct lab_agent *a = &lab->agents[i];
		struct progress_flow *f = &p->flows[p->nflows];
		if (p->caps && strcmp(a->name, "collector") == 0 && a->node >= 0 &&
		    strfmt(p->caps[p->ncaps].path, sizeof(p->caps[0].path),
			   "%s/%s.collector.events.jsonl", lab->rundir,
			   lab->t->nodes[a->node].name) == 0)
			p->ncaps++;
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

/* progress_lines: the new complete lines of the file path (opened into
 * *fp once it exists), each given to fn; a line still being written is
 * read again at the next tick. */
static void progress_lines(const char *path, FILE **fp,
			   void (*fn)(struct progress *, void *, const char *), struct progress *p,
			   void *arg)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (*fp == NULL && (*fp = fopen(path, "r")) == NULL)
		return;
	clearerr(*fp);
	for (;;) {
		long at = ftell(*fp);
		if ((n = getline(&line, &cap, *fp)) <= 0)
			break;
		if (line[n - 1] != '\n') {
			fseek(*fp, at, SEEK_SET);
			break;
		}
		fn(p, arg, line);
	}
	free(line);
}

static void progress_flow_line(struct progress *p, void *arg, const char *line)
{
	struct progress_flow *f = arg;
	struct progress_sample s;

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

static void progress_capture_line(struct progress *p, void *arg, const char *line)
{
	struct progress_capture *c = arg;
	struct progress_capsample s;

	if (progress_parse_capture(line, p->dead, &s) == -1)
		return;
	if (c->n == PROGRESS_RING) {
		memmove(&c->s[0], &c->s[1], sizeof(c->s[0]) * (PROGRESS_RING - 1));
		c->n--;
	}
	c->s[c->n++] = s;
}

/* progress_view: what the line shows now. */
static void progress_view(const struct progress *p, int64_t now, struct progress_view *v)
{
	int64_t real = now_real_ns();
	int captured = 0;

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
	for (int i = 0; i < p->ncaps; i++)
		captured |= p->caps[i].n >= 2;
	v->window_ns = captured ? PROGRESS_WINDOW_NS : NSEC_PER_SEC;
	for (int i = 0; i < p->nflows; i++) {
		const struct progress_flow *f = &p->flows[i];
		v->scheme[f->scheme].present = 1;
		if (f->cur.t_ns == 0)
			continue;
		v->sent = (v->sent < 0 ? 0 : v->sent) + f->cur.sent;
		/* a flow that has stopped has no "last second" */
		if (!captured && real - f->cur.t_ns <= PROGRESS_STALE_NS)
			progress_share(&f->prev, &f->cur, p->t0_ns, &v->scheme[f->scheme].to_dead,
				       &v->scheme[f->scheme].resolved);
	}
	for (int i = 0; captured && i < p->ncaps; i++) {
		const struct progress_capture *c = &p->caps[i];
		for (int s = 0; s < PROGRESS_NSCHEMES && c->n > 0; s++) {
			progress_capshare(c->s, c->n, s, PROGRESS_WINDOW_NS, &v->scheme[s].to_dead,
					  &v->scheme[s].resolved);
			if (v->phase == PROGRESS_DRAINING &&
			    progress_capcut(&c->s[c->n - 1], s, p->t0_ns))
				v->scheme[s].cut = 1;
		}
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

	progress_view(p, now, &v);
	if (p->mode == PROGRESS_TTY) {
		cols = progress_columns(p->out);
		/* leave the last column free: a full line wraps on some terminals */
		progress_format(line, sizeof(line), &v, (int)cols - 1);
		fprintf(p->out, "\r\033[K%s", line);
		p->shown = 1;
	} else {
		/* a log has no width, but people read it in 80 columns */
		progress_format(line, sizeof(line), &v, 80 - (int)strlen("steerlab: "));
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
		progress_lines(p->flows[i].path, &p->flows[i].fp, progress_flow_line, p,
			       &p->flows[i]);
	for (int i = 0; i < p->ncaps; i++)
		progress_lines(p->caps[i].path, &p->caps[i].fp, progress_capture_line, p,
			       &p->caps[i]);
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
	for (int i = 0; i < p->ncaps; i++)
		if (p->caps[i].fp)
			fclose(p->caps[i].fp);
	free(p->caps);
	p->caps = NULL;
	p->ncaps = 0;
}
