/* A design's targets on the model's clocks: parsed, and checked against a
 * result; see model_design.h. */
#include "model_design.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

/* the clocks a target may name: the model's JSON key, then the other names
 * it goes by (the table's row, its JSON key under last_per_client_s or
 * budget), spaces and hyphens read as '_' */
static const struct target_clock {
	const char *name;
	const char *aliases; /* space-separated */
	size_t off;	     /* of its model_iv in struct model_scheme_result */
	int unit;	     /* enum design_unit */
} target_clocks[] = {
    {"detect", "detect_s", offsetof(struct model_scheme_result, detect), DESIGN_SECONDS},
    {"steer", "steer_s", offsetof(struct model_scheme_result, steer), DESIGN_SECONDS},
    {"window", "window_s", offsetof(struct model_scheme_result, window), DESIGN_SECONDS},
    {"last_p50", "last_packet_p50 last_per_client_s.p50",
     offsetof(struct model_scheme_result, last_p50), DESIGN_SECONDS},
    {"last_p99", "last_packet_p99 last_per_client_s.p99",
     offsetof(struct model_scheme_result, last_p99), DESIGN_SECONDS},
    {"last_max", "last_packet_max last_per_client_s.max",
     offsetof(struct model_scheme_result, last_max), DESIGN_SECONDS},
    {"lost", "lost_client lost_capture lost_requests", offsetof(struct model_scheme_result, lost),
     DESIGN_COUNT},
    {"equivalent_downtime", "equivalent_downtime_s downtime",
     offsetof(struct model_scheme_result, equivalent_downtime), DESIGN_SECONDS},
    {"budget_share", "budget_share_downtime budget_used budget_used_downtime",
     offsetof(struct model_scheme_result, budget_share), DESIGN_FRACTION},
    {"upstream_queries", "upstream_dns_queries",
     offsetof(struct model_scheme_result, upstream_queries), DESIGN_COUNT},
    {"upstream_per_s", "upstream_queries_per_s",
     offsetof(struct model_scheme_result, upstream_per_s), DESIGN_RATE},
};

#define TARGET_NCLOCKS ((int)(sizeof(target_clocks) / sizeof(target_clocks[0])))

static const char *const target_stats[] = {"p5", "p50", "p95", "min", "max"};
static const char *const target_schemes[MODEL_SCHEMES] = {"anycast", "dns"};
static const char *const target_ops[] = {"<=", "<", ">=", ">"};

int design_clock_count(void)
{
	return TARGET_NCLOCKS;
}

const char *design_clock_name(int i)
{
	return target_clocks[i].name;
}

int design_clock_unit(int i)
{
	return target_clocks[i].unit;
}

const struct model_iv *design_clock_iv(int i, const struct model_scheme_result *sr)
{
	return (const struct model_iv *)((const char *)sr + target_clocks[i].off);
}

const char *design_op_name(int op)
{
	return target_ops[op];
}

const char *design_stat_name(int stat)
{
	return target_stats[stat];
}

/* target_clock_find: the clock named s (normalised), or -1 */
static int target_clock_find(const char *s)
{
	size_t n = strlen(s);

	for (int i = 0; i < TARGET_NCLOCKS; i++) {
		const char *a = target_clocks[i].aliases;

		if (strcmp(s, target_clocks[i].name) == 0)
			return i;
		while (*a) {
			size_t m = strcspn(a, " ");

			if (m == n && strncmp(a, s, n) == 0)
				return i;
			a += m;
			a += *a == ' ';
		}
	}
	return -1;
}

/* target_clock_list: the clocks' names, "detect, steer, ..." */
static const char *target_clock_list(void)
{
	static char buf[256];
	size_t n = 0;

	if (buf[0])
		return buf;
	for (int i = 0; i < TARGET_NCLOCKS && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? ", " : "",
				      target_clocks[i].name);
	return buf;
}

/* target_value: VALUE read in unit; 0, or -1 with what was expected */
static int target_value(const char *v, int unit, double *x, const char **expected)
{
	char *end;
	int64_t ns;

	switch (unit) {
	case DESIGN_SECONDS:
		*expected = "a duration such as 30s, 500ms or 2m (a bare number is seconds)";
		if (parse_duration_ns(v, &ns) == -1)
			return -1;
		*x = (double)ns / 1e9;
		return 0;
	case DESIGN_FRACTION:
		*expected = "a share of the error budget such as 0.05 or 5%";
		break;
	case DESIGN_RATE:
		*expected = "a number a second such as 2.5 or 2.5/s";
		break;
	default:
		*expected = "a number such as 1000";
		break;
	}
	if (!isdigit((unsigned char)v[0]) && v[0] != '.')
		return -1;
	*x = strtod(v, &end);
	if (unit == DESIGN_FRACTION && strcmp(end, "%") == 0) {
		*x /= 100;
		end++;
	} else if (unit == DESIGN_RATE && strcmp(end, "/s") == 0) {
		end += 2;
	}
	return *end || !isfinite(*x) ? -1 : 0;
}

/* target_text: t as "dns.window p95 <= 30 s" */
static void target_text(struct design_target *t)
{
	char num[48];

	switch (target_clocks[t->clock].unit) {
	case DESIGN_SECONDS:
		snprintf(num, sizeof(num), "%g s", t->value);
		break;
	case DESIGN_FRACTION:
		snprintf(num, sizeof(num), "%g %%", t->value * 100);
		break;
	case DESIGN_RATE:
		snprintf(num, sizeof(num), "%g /s", t->value);
		break;
	default:
		snprintf(num, sizeof(num), "%g", t->value);
		break;
	}
	snprintf(t->text, sizeof(t->text), "%s.%s %s %s %s", target_schemes[t->scheme],
		 target_clocks[t->clock].name, target_stats[t->stat], target_ops[t->op], num);
}

/* target_trim: s without its blanks at either end, in place */
static char *target_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* target_parse_one: one target, spec (a copy, changed) */
static int target_parse_one(const char *given, char *spec, struct design_target *t, char *err,
			    size_t errlen)
{
	char *op = strpbrk(spec, "<>="), *name, *dot, *value, *stat;
	const char *expected;
	int len;

	memset(t, 0, sizeof(*t));
	t->stat = DESIGN_P95;
	if (op == NULL || *op == '=') {
		snprintf(err, errlen,
			 "--target '%s': expected SCHEME.CLOCK[.STAT] OP VALUE with OP <=, <, >= "
			 "or > (e.g. 'dns.window<=30s')",
			 given);
		return -1;
	}
	t->op = op[0] == '<' ? (op[1] == '=' ? DESIGN_LE : DESIGN_LT)
			     : (op[1] == '=' ? DESIGN_GE : DESIGN_GT);
	len = t->op == DESIGN_LE || t->op == DESIGN_GE ? 2 : 1;
	value = target_trim(op + len);
	*op = '\0';
	name = target_trim(spec);
	for (char *c = name; *c; c++)
		*c = *c == ' ' || *c == '-' ? '_' : (char)tolower((unsigned char)*c);
	if ((dot = strchr(name, '.')) == NULL) {
		snprintf(err, errlen,
			 "--target '%s': expected SCHEME.CLOCK before %s (SCHEME anycast or dns, "
			 "e.g. 'dns.window%s30s')",
			 given, target_ops[t->op], target_ops[t->op]);
		return -1;
	}
	*dot = '\0';
	for (t->scheme = 0; t->scheme < MODEL_SCHEMES; t->scheme++)
		if (strcmp(name, target_schemes[t->scheme]) == 0)
			break;
	if (t->scheme == MODEL_SCHEMES) {
		snprintf(err, errlen,
			 "--target '%s': unknown scheme '%s' (expected anycast or dns)", given,
			 name);
		return -1;
	}
	name = dot + 1;
	if ((t->clock = target_clock_find(name)) < 0 && (stat = strrchr(name, '.')) != NULL) {
		/* CLOCK.STAT */
		for (t->stat = 0; t->stat < 5; t->stat++)
			if (strcmp(stat + 1, target_stats[t->stat]) == 0)
				break;
		if (t->stat == 5) {
			snprintf(
			    err, errlen,
			    "--target '%s': unknown statistic '%s' (expected p5, p50, p95, min "
			    "or max; p95 if none)",
			    given, stat + 1);
			return -1;
		}
		*stat = '\0';
		t->clock = target_clock_find(name);
	}
	if (t->clock < 0) {
		snprintf(err, errlen, "--target '%s': unknown clock '%s' (expected %s)", given,
			 name, target_clock_list());
		return -1;
	}
	if (target_value(value, target_clocks[t->clock].unit, &t->value, &expected) == -1) {
		snprintf(err, errlen, "--target '%s': value '%s': expected %s", given, value,
			 expected);
		return -1;
	}
	target_text(t);
	return 0;
}

int design_targets_parse(const char *spec, struct design_target *t, int *n, int max, char *err,
			 size_t errlen)
{
	char copy[512], *item, *save = NULL;

	if (strlen(spec) >= sizeof(copy)) {
		snprintf(err, errlen, "--target '%.40s...': too long (at most %zu characters)",
			 spec, sizeof(copy) - 1);
		return -1;
	}
	strcpy(copy, spec);
	if (strspn(spec, " \t,") == strlen(spec)) {
		snprintf(err, errlen,
			 "--target '%s': expected SCHEME.CLOCK[.STAT] OP VALUE (e.g. "
			 "'dns.window<=30s')",
			 spec);
		return -1;
	}
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char given[512];

		snprintf(given, sizeof(given), "%s", target_trim(item));
		if (*n == max) {
			snprintf(err, errlen, "--target '%s': at most %d targets", given, max);
			return -1;
		}
		if (target_parse_one(given, item, &t[*n], err, errlen) == -1)
			return -1;
		(*n)++;
	}
	return 0;
}

/* target_stat: statistic stat of v */
static double target_stat(const struct model_iv *v, int stat)
{
	const double x[] = {v->p5, v->p50, v->p95, v->min, v->max};

	return x[stat];
}

int design_target_check(const struct design_target *t, const struct model_result *r, double *got,
			const char **why)
{
	const struct model_scheme_result *sr = &r->s[t->scheme];
	const struct model_iv *v;

	*got = NAN;
	if (!sr->present) {
		*why = t->scheme == MODEL_DNS ? "the lab has no DNS clients (mode = dns or both)"
					      : "the lab has no anycast clients (mode = anycast or "
						"both)";
		return -1;
	}
	if (t->scheme == MODEL_ANYCAST &&
	    (target_clocks[t->clock].off ==
		 offsetof(struct model_scheme_result, upstream_queries) ||
	     target_clocks[t->clock].off == offsetof(struct model_scheme_result, upstream_per_s))) {
		*why = "upstream DNS queries are not a measure of anycast";
		return -1;
	}
	v = design_clock_iv(t->clock, sr);
	if (!v->known) {
		*why = v->why[0] ? v->why : "not modelled";
		return -1;
	}
	*got = target_stat(v, t->stat);
	return design_target_meets(t, *got);
}

int design_target_meets(const struct design_target *t, double x)
{
	double tol = 1e-9 * (fabs(t->value) > 1 ? fabs(t->value) : 1);

	switch (t->op) {
	case DESIGN_LE:
		return x <= t->value + tol;
	case DESIGN_LT:
		return x < t->value - tol;
	case DESIGN_GE:
		return x >= t->value - tol;
	default:
		return x > t->value + tol;
	}
}
