/* A design's varied keys and the grid of their values; see model_design.h. */
#include "model_design.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "timeutil.h"

/* the series between a range's bounds: these x 10^k */
static const double vary_series[] = {1, 1.5, 2, 3, 5, 7};
/* a range of whole numbers at most this many wide: every one of them */
#define VARY_EVERY_MAX 12

/* vary_trim: s without its blanks at either end, in place */
static char *vary_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* vary_bare: s is a plain number (digits, a point, an exponent): its value
 * into *x */
static int vary_bare(const char *s, double *x)
{
	char *end;

	if (!isdigit((unsigned char)s[0]) && s[0] != '.')
		return 0;
	*x = strtod(s, &end);
	return *end == '\0' && isfinite(*x);
}

/* vary_number: s as a number, a duration in seconds; NAN if neither */
static double vary_number(const char *s, int *duration)
{
	double x;
	int64_t ns;

	*duration = 0;
	if (vary_bare(s, &x))
		return x;
	if (parse_duration_ns(s, &ns) == 0) {
		*duration = 1;
		return (double)ns / 1e9;
	}
	return NAN;
}

/* vary_round: x to two significant digits */
static double vary_round(double x)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.2g", x);
	return strtod(buf, NULL);
}

/* vary_format: value x of a range as --set takes it: whole, a number, or
 * a duration (ms below a second) */
static void vary_format(double x, int whole, int duration, char *buf, size_t len)
{
	if (whole)
		snprintf(buf, len, "%.0f", x);
	else if (duration && x < 1)
		snprintf(buf, len, "%.6gms", x * 1000);
	else
		snprintf(buf, len, duration ? "%.6gs" : "%.6g", x);
}

/* vary_add: x to v's values unless it is the last one already */
static int vary_add(struct design_vary *v, double x)
{
	if (v->n && v->x[v->n - 1] == x)
		return 0;
	if (v->n == DESIGN_MAX_VALUES)
		return -1;
	v->x[v->n++] = x;
	return 0;
}

/* vary_range: KEY=LO..HI[:N], range the text after '=' */
static int vary_range(const char *opt, struct design_vary *v, char *range, char *err, size_t errlen)
{
	char *dots = strstr(range, ".."), *colon, *lo_s, *hi_s;
	int dlo, dhi, whole, duration, steps = 0;
	double lo, hi;

	*dots = '\0';
	lo_s = vary_trim(range);
	hi_s = dots + 2;
	if ((colon = strchr(hi_s, ':')) != NULL) {
		char *end;
		long n = strtol(colon + 1, &end, 10);

		if (!isdigit((unsigned char)colon[1]) || *vary_trim(end) || n < 2 ||
		    n > DESIGN_MAX_VALUES) {
			snprintf(err, errlen,
				 "--vary '%s': ':%s': expected :N, N the number of values, 2 to %d",
				 opt, vary_trim(colon + 1), DESIGN_MAX_VALUES);
			return -1;
		}
		steps = (int)n;
		*colon = '\0';
	}
	hi_s = vary_trim(hi_s);
	lo = vary_number(lo_s, &dlo);
	hi = vary_number(hi_s, &dhi);
	if (isnan(lo) || isnan(hi) || !(lo > 0) || !(hi > lo)) {
		snprintf(err, errlen,
			 "--vary '%s': expected KEY=LO..HI[:N] with numbers or durations 0 < LO < "
			 "HI (e.g. ttl=5..300, probe_interval=1s..30s:10), or KEY=V1,V2,...",
			 opt);
		return -1;
	}
	duration = dlo || dhi;
	whole = !duration && strspn(lo_s, "0123456789") == strlen(lo_s) &&
		strspn(hi_s, "0123456789") == strlen(hi_s);
	vary_add(v, lo);
	if (steps) {
		v->series = DESIGN_STEPS;
		for (int i = 1; i < steps - 1; i++) {
			double x = vary_round(lo * pow(hi / lo, (double)i / (steps - 1)));

			if (whole)
				x = round(x);
			if (x > v->x[v->n - 1] && x < hi)
				vary_add(v, x);
		}
	} else if (whole && hi - lo < VARY_EVERY_MAX) {
		v->series = DESIGN_EVERY;
		for (double x = lo + 1; x < hi; x++)
			vary_add(v, x);
	} else {
		v->series = DESIGN_SERIES;
		for (int k = (int)floor(log10(lo)) - 1; k <= (int)ceil(log10(hi)); k++)
			for (size_t m = 0; m < sizeof(vary_series) / sizeof(vary_series[0]); m++) {
				double x = vary_round(vary_series[m] * pow(10, k));

				if (whole)
					x = round(x);
				if (x > v->x[v->n - 1] && x < hi && vary_add(v, x) == -1) {
					snprintf(err, errlen,
						 "--vary '%s': more than %d values (fewer with "
						 ":N)",
						 opt, DESIGN_MAX_VALUES);
					return -1;
				}
			}
	}
	if (vary_add(v, hi) == -1) {
		snprintf(err, errlen, "--vary '%s': more than %d values (fewer with :N)", opt,
			 DESIGN_MAX_VALUES);
		return -1;
	}
	for (int i = 0; i < v->n; i++)
		vary_format(v->x[i], whole, duration, v->value[i], sizeof(v->value[i]));
	return 0;
}

/* vary_list_add: value s of a list to v */
static int vary_list_add(const char *opt, struct design_vary *v, char *s, char *err, size_t errlen)
{
	int duration;

	s = vary_trim(s);
	if (*s == '\0') {
		snprintf(err, errlen, "--vary '%s': value %d is empty", opt, v->n + 1);
		return -1;
	}
	if (strstr(s, "..")) {
		snprintf(err, errlen,
			 "--vary '%s': a range LO..HI is the key's only value (a list is "
			 "KEY=V1,V2,...)",
			 opt);
		return -1;
	}
	if (v->n == DESIGN_MAX_VALUES || strlen(s) >= DESIGN_VALUE_MAX) {
		snprintf(err, errlen, "--vary '%s': at most %d values of %d characters", opt,
			 DESIGN_MAX_VALUES, DESIGN_VALUE_MAX - 1);
		return -1;
	}
	for (int i = 0; i < v->n; i++)
		if (strcmp(v->value[i], s) == 0) {
			snprintf(err, errlen, "--vary '%s': %s twice", opt, s);
			return -1;
		}
	v->series = DESIGN_LIST;
	strcpy(v->value[v->n], s);
	v->x[v->n++] = vary_number(s, &duration);
	return 0;
}

/* vary_key: a new key from item "KEY=VALUE" into v[*n] */
static int vary_key(const char *opt, char *item, struct design_vary *v, int *n, int max, char *err,
		    size_t errlen)
{
	char *eq = strchr(item, '='), *key, *rest;
	struct design_vary *k;

	*eq = '\0';
	key = vary_trim(item);
	rest = eq + 1;
	if (*key == '\0' || strlen(key) >= DESIGN_KEY_MAX || strpbrk(key, " \t=")) {
		snprintf(err, errlen,
			 "--vary '%s': expected KEY=LO..HI[:N] or KEY=V1,V2,... with a key as "
			 "--set takes it (ttl, probe_interval, NODE.probe_interval)",
			 opt);
		return -1;
	}
	for (int i = 0; i < *n; i++)
		if (strcmp(v[i].key, key) == 0) {
			snprintf(err, errlen, "--vary '%s': %s is varied twice", opt, key);
			return -1;
		}
	if (*n == max) {
		snprintf(err, errlen, "--vary '%s': at most %d keys varied", opt, max);
		return -1;
	}
	k = &v[(*n)++];
	memset(k, 0, sizeof(*k));
	strcpy(k->key, key);
	snprintf(k->spec, sizeof(k->spec), "%s=%s", key, vary_trim(rest));
	if (strstr(rest, ".."))
		return vary_range(opt, k, rest, err, errlen);
	return vary_list_add(opt, k, rest, err, errlen);
}

int design_vary_parse(const char *opt, struct design_vary *v, int *n, int max, char *err,
		      size_t errlen)
{
	char copy[512], *item;
	int first = *n;

	if (strlen(opt) >= sizeof(copy)) {
		snprintf(err, errlen, "--vary '%.40s...': too long (at most %zu characters)", opt,
			 sizeof(copy) - 1);
		return -1;
	}
	strcpy(copy, opt);
	/* strsep, not strtok: an empty item is an error, not skipped */
	for (char *p = copy; (item = strsep(&p, ",")) != NULL;) {
		if (*vary_trim(item) == '\0') {
			snprintf(err, errlen,
				 "--vary '%s': an empty item (two commas in a row, or one at an "
				 "end)",
				 opt);
			return -1;
		}
		if (strchr(item, '=')) {
			if (vary_key(opt, item, v, n, max, err, errlen) == -1)
				return -1;
			continue;
		}
		if (*n == first) {
			snprintf(err, errlen,
				 "--vary '%s': expected KEY=LO..HI[:N] or KEY=V1,V2,... (e.g. "
				 "ttl=5..300, probe_interval=1s..30s)",
				 opt);
			return -1;
		}
		if (v[*n - 1].series != DESIGN_LIST) {
			snprintf(err, errlen,
				 "--vary '%s': a range LO..HI is the key's only value (a list is "
				 "KEY=V1,V2,...)",
				 opt);
			return -1;
		}
		if (vary_list_add(opt, &v[*n - 1], item, err, errlen) == -1)
			return -1;
	}
	/* a list's spec: every value, as trimmed */
	for (int k = first; k < *n; k++) {
		size_t off;

		if (v[k].series != DESIGN_LIST)
			continue;
		off = (size_t)snprintf(v[k].spec, sizeof(v[k].spec), "%s=", v[k].key);
		for (int i = 0; i < v[k].n && off < sizeof(v[k].spec); i++)
			off += (size_t)snprintf(v[k].spec + off, sizeof(v[k].spec) - off, "%s%s",
						i ? "," : "", v[k].value[i]);
	}
	return 0;
}

const char *design_series_text(const struct design_vary *v, char *buf, size_t len)
{
	const char *lo = v->value[0], *hi = v->value[v->n - 1];

	switch (v->series) {
	case DESIGN_EVERY:
		snprintf(buf, len, "every whole number from %s to %s", lo, hi);
		break;
	case DESIGN_SERIES:
		snprintf(buf, len, "%s, %s and the series 1, 1.5, 2, 3, 5, 7 x 10^k between", lo,
			 hi);
		break;
	case DESIGN_STEPS:
		snprintf(buf, len, "%d log-spaced from %s to %s, to 2 significant digits", v->n, lo,
			 hi);
		break;
	default:
		snprintf(buf, len, "as listed");
		break;
	}
	return buf;
}

long design_grid_size(const struct design_vary *v, int n)
{
	long size = 1;

	for (int i = 0; i < n; i++) {
		size *= v[i].n;
		if (size > DESIGN_MAX_POINTS)
			return -1;
	}
	return size;
}

void design_grid_point(const struct design_vary *v, int n, long i, int vi[])
{
	for (int k = n - 1; k >= 0; k--) {
		vi[k] = (int)(i % v[k].n);
		i /= v[k].n;
	}
}
