/*
 * What held each scheme at the dead site, in words, and which scheme left it
 * first (clocks_explain.h; docs/clocks.md, "Explain"), from the causes
 * clocks_explain.c counted in the decay's pass. Pure computation, but for
 * clocks_explain_print.
 */
#include "clocks_explain.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"

/* clocks_explain_sticky_s: the sticky time of the client node node, in s; 0 */
static double clocks_explain_sticky_s(const struct clocks_input *in, const char *node)
{
	for (size_t i = 0; i < in->nclients; i++)
		if (strcmp(in->clients[i].node, node) == 0 && in->clients[i].sticky_ns > 0)
			return (double)in->clients[i].sticky_ns / NSEC_PER_SEC;
	return 0;
}

/* clocks_explain_bgp: router's route to the site was BGP's (zebra, protocol 186) */
static int clocks_explain_bgp(const struct clocks_result *r, const char *router)
{
	for (int i = 0; r->fib && i < r->fib->nrouters; i++)
		if (strcmp(r->fib->routers[i].router, router) == 0)
			return r->fib->routers[i].before.protocol == 186;
	return 0;
}

/* clocks_explain_population: the client node node is a population's */
static int clocks_explain_population(const struct clocks_input *in, const char *node)
{
	for (size_t i = 0; i < in->nclients; i++)
		if (strcmp(in->clients[i].node, node) == 0 && in->clients[i].population > 0)
			return 1;
	return 0;
}

/* clocks_explain_why: what held a scheme, in words: "the sticky client c3 (it
 * keeps an address 8 s whatever the TTL)" */
static void clocks_explain_why(const struct clocks_input *in, const struct clocks_result *r,
			       const struct clocks_explain_scheme *xs,
			       const struct clocks_cause_entry *e, int dns, char *buf, size_t len)
{
	const char *site = in->failure.site;

	switch (e->cause) {
	case CLOCKS_CAUSE_DETECT:
		if (dns)
			snprintf(buf, len,
				 "detection: authd still handed out %s's address, its probers (the "
				 "first %s) still counting failed probes to their threshold",
				 site, e->who);
		else
			snprintf(buf, len,
				 "detection: %s's prober still counting failed probes to its "
				 "threshold",
				 e->who);
		break;
	case CLOCKS_CAUSE_HOLD:
		snprintf(buf, len,
			 "%s's hold timer: nothing withdrew %s's route until it expired "
			 "(static_hold)",
			 e->who, site);
		break;
	case CLOCKS_CAUSE_ROUTING:
		if (xs->detect_ns != CLOCKS_NONE && e->last_ns > xs->detect_ns)
			snprintf(buf, len,
				 "router %s, whose route still led to %s %.3f s after the site was "
				 "declared dead (%s)",
				 e->who, site, (double)(e->last_ns - xs->detect_ns) / NSEC_PER_SEC,
				 clocks_explain_bgp(r, e->who) ? "BGP propagation"
							       : "the withdrawal");
		else
			snprintf(buf, len, "router %s, whose route still led to %s", e->who, site);
		break;
	case CLOCKS_CAUSE_RESOLVER:
		snprintf(buf, len, "resolver cache %s, still inside its TTL", e->who);
		break;
	case CLOCKS_CAUSE_STALE:
		snprintf(buf, len, "serve-stale answers of %s", e->who);
		break;
	case CLOCKS_CAUSE_CLIENT:
		snprintf(buf, len, "client %s's own cache, inside the answer's TTL", e->who);
		break;
	case CLOCKS_CAUSE_STICKY:
		if (clocks_explain_population(in, e->who))
			snprintf(buf, len,
				 "the sticky share of population %s (they keep an address %g s "
				 "whatever the TTL)",
				 e->who, clocks_explain_sticky_s(in, e->who));
		else if (clocks_explain_sticky_s(in, e->who) > 0)
			snprintf(buf, len,
				 "the sticky client %s (it keeps an address %g s whatever the TTL)",
				 e->who, clocks_explain_sticky_s(in, e->who));
		else
			snprintf(buf, len, "the sticky client %s", e->who);
		break;
	case CLOCKS_CAUSE_NOANSWER:
		snprintf(buf, len, "%s, whose clients' queries went unanswered", e->who);
		break;
	default:
		if (e->untold)
			snprintf(buf, len,
				 "%s, for a cause the run cannot tell (its client events have no "
				 "dns_answer)",
				 e->who);
		else
			snprintf(buf, len, "%s, in flight when what held it ended", e->who);
		break;
	}
}

static void clocks_explain_say(struct clocks_explain *ex, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void clocks_explain_say(struct clocks_explain *ex, const char *fmt, ...)
{
	va_list ap;

	if (ex->nwords == CLOCKS_EXPLAIN_WORDS)
		return;
	va_start(ap, fmt);
	vsnprintf(ex->words[ex->nwords++], CLOCKS_EXPLAIN_LINE, fmt, ap);
	va_end(ap);
}

/* clocks_explain_held: the entry of the window's request, and the latest of the
 * others: the window without it */
static void clocks_explain_held(struct clocks_explain_scheme *xs)
{
	xs->held = -1;
	xs->without_ns = CLOCKS_NONE;
	for (int k = 0; k < xs->n; k++)
		if (xs->e[k].requests &&
		    (xs->held < 0 || xs->e[k].last_ns > xs->e[xs->held].last_ns))
			xs->held = k;
	for (int k = 0; k < xs->n; k++)
		if (k != xs->held && xs->e[k].requests &&
		    (xs->without_ns == CLOCKS_NONE || xs->e[k].last_ns > xs->without_ns))
			xs->without_ns = xs->e[k].last_ns;
}

/* clocks_explain_scheme_words: what held one scheme; then, on a line of its own,
 * what would have held it without that */
static void clocks_explain_scheme_words(const struct clocks_input *in,
					const struct clocks_result *r, struct clocks_explain *ex,
					int i)
{
	const struct clocks_explain_scheme *xs = &ex->s[i];
	char why[CLOCKS_EXPLAIN_LINE / 2];
	int nexti = -1;

	if (xs->held < 0) {
		clocks_explain_say(ex, "%s: no request reached %s after t0.", r->scheme,
				   in->failure.site);
		return;
	}
	clocks_explain_why(in, r, xs, &xs->e[xs->held], i == 1, why, sizeof(why));
	clocks_explain_say(ex, "%s: its window, %s%.3f s, was held by %s%s.", r->scheme,
			   r->window_lb ? "at least " : "",
			   (double)xs->e[xs->held].last_ns / NSEC_PER_SEC, why,
			   r->window_lb ? " (still so when the observation ended)" : "");
	for (int k = 0; k < xs->n; k++)
		if (k != xs->held && xs->e[k].requests && xs->e[k].last_ns == xs->without_ns)
			nexti = k;
	if (nexti < 0)
		return;
	clocks_explain_why(in, r, xs, &xs->e[nexti], i == 1, why, sizeof(why));
	clocks_explain_say(ex, "%s without %s: %.3f s, held by %s.", r->scheme, xs->e[xs->held].who,
			   (double)xs->without_ns / NSEC_PER_SEC, why);
}

void clocks_explain_finish(const struct clocks_input *in, const struct clocks_result *res, int nres,
			   const struct clocks_decay *d, struct clocks_explain *ex)
{
	const char *site = in->failure.site;
	int n = 0, a = -1, b = -1;

	ex->decay = d;
	ex->nwords = 0;
	for (int i = 0; i < nres && i < CLOCKS_NSCHEMES; i++) {
		if (!ex->s[i].present)
			continue;
		clocks_explain_held(&ex->s[i]);
		if (n++ == 0)
			a = i;
		else
			b = i;
	}
	if (n == 0)
		return;
	if (n == 2 && ex->s[a].window_ns != CLOCKS_NONE && ex->s[b].window_ns != CLOCKS_NONE) {
		int64_t wa = ex->s[a].window_ns, wb = ex->s[b].window_ns;
		int f = wa <= wb ? a : b, s = f == a ? b : a;
		char lost[96] = "";

		ex->first = f;
		ex->by_ns = llabs(wa - wb);
		ex->tie = ex->by_ns < NSEC_PER_MSEC;
		if (res[f].lost_client != CLOCKS_NONE && res[s].lost_client != CLOCKS_NONE)
			snprintf(lost, sizeof(lost), "; %s lost %lld requests, %s %lld",
				 res[s].scheme, (long long)res[s].lost_client, res[f].scheme,
				 (long long)res[f].lost_client);
		if (ex->tie)
			clocks_explain_say(
			    ex,
			    "%s and %s left %s together: the last request of each reached "
			    "it %.3f s after t0%s.",
			    res[a].scheme, res[b].scheme, site, (double)wa / NSEC_PER_SEC, lost);
		else
			clocks_explain_say(
			    ex,
			    "%s left %s first: its last request reached it %.3f s after "
			    "t0, %s's %s%.3f s, %s%.3f s later%s.",
			    res[f].scheme, site, (double)ex->s[f].window_ns / NSEC_PER_SEC,
			    res[s].scheme, res[s].window_lb ? "at least " : "",
			    (double)ex->s[s].window_ns / NSEC_PER_SEC,
			    res[s].window_lb ? "at least " : "", (double)ex->by_ns / NSEC_PER_SEC,
			    lost);
		/* the slower one first: what held it back is the question */
		clocks_explain_scheme_words(in, &res[s], ex, s);
		clocks_explain_scheme_words(in, &res[f], ex, f);
	} else {
		for (int i = 0; i < nres && i < CLOCKS_NSCHEMES; i++)
			if (ex->s[i].present)
				clocks_explain_scheme_words(in, &res[i], ex, i);
	}
	/* the fail-back: which came back first, when every client had */
	if (n == 2 && res[a].has_failback && res[b].has_failback &&
	    res[a].failback.last_ns != CLOCKS_NONE && res[b].failback.last_ns != CLOCKS_NONE) {
		int64_t la = res[a].failback.last_ns, lb = res[b].failback.last_ns;
		int f = la <= lb ? a : b, s = f == a ? b : a;

		ex->back_first = f;
		ex->back_by_ns = llabs(la - lb);
		clocks_explain_say(
		    ex,
		    "After %s's recovery %s came back first: all its clients sent to %s "
		    "again %.3f s after it, %s's %.3f s after it.",
		    site, res[f].scheme, site, (double)res[f].failback.last_ns / NSEC_PER_SEC,
		    res[s].scheme, (double)res[s].failback.last_ns / NSEC_PER_SEC);
	}
}

void clocks_explain_print(FILE *out, const struct clocks_input *in, const struct clocks_explain *ex)
{
	const char *const scheme[CLOCKS_NSCHEMES] = {"anycast", "dns"};
	size_t wc = strlen("cause"), ww = strlen("who");

	for (int k = 0; k < ex->nwords; k++)
		fprintf(out, "%s\n", ex->words[k]);
	for (int i = 0; i < CLOCKS_NSCHEMES; i++)
		for (int k = 0; ex->s[i].present && k < ex->s[i].n; k++) {
			const struct clocks_cause_entry *e = &ex->s[i].e[k];

			if (e->requests == 0)
				continue;
			if (strlen(clocks_cause_labels[e->cause]) > wc)
				wc = strlen(clocks_cause_labels[e->cause]);
			if (strlen(e->who) > ww)
				ww = strlen(e->who);
		}
	fprintf(out, "\nwhat held each scheme at %s: its requests to %s after t0, by cause\n",
		in->failure.site, in->failure.site);
	fprintf(out, "%-8s  %-*s  %-*s  %9s  %9s  %9s\n", "scheme", (int)wc, "cause", (int)ww,
		"who", "requests", "first (s)", "last (s)");
	for (int i = 0; i < CLOCKS_NSCHEMES; i++) {
		const struct clocks_explain_scheme *xs = &ex->s[i];
		int order[CLOCKS_EXPLAIN_MAX], n = 0;

		if (!xs->present)
			continue;
		/* by when each let go, the window's last */
		for (int k = 0; k < xs->n; k++)
			if (xs->e[k].requests)
				order[n++] = k;
		for (int x = 1; x < n; x++)
			for (int y = x;
			     y > 0 && xs->e[order[y]].last_ns < xs->e[order[y - 1]].last_ns; y--) {
				int t = order[y];

				order[y] = order[y - 1];
				order[y - 1] = t;
			}
		if (n == 0)
			fprintf(out, "%-8s  %-*s  %-*s  %9d  %9s  %9s\n", scheme[i], (int)wc, "-",
				(int)ww, "-", 0, "-", "-");
		for (int x = 0; x < n; x++) {
			const struct clocks_cause_entry *e = &xs->e[order[x]];

			fprintf(out, "%-8s  %-*s  %-*s  %9lld  %9.3f  %9.3f\n", scheme[i], (int)wc,
				clocks_cause_labels[e->cause], (int)ww, e->who,
				(long long)e->requests, (double)e->first_ns / NSEC_PER_SEC,
				(double)e->last_ns / NSEC_PER_SEC);
		}
	}
}
