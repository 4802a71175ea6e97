/* One direction of a link's impairment: parsed, checked, drawn as netem does; see impair.h. */
#include "impair.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strfmt.h"
#include "timeutil.h"

#define IMPAIR_WORDS 3
#define IMPAIR_WORD_LEN 64

#define IMPAIR_WHAT_DELAY "a duration such as 15ms"
#define IMPAIR_WHAT_JITTER                                                                         \
	"a duration such as 2ms and an optional distribution (uniform, normal, pareto or "         \
	"paretonormal)"
#define IMPAIR_WHAT_PCT "a percentage such as 1% and an optional correlation such as 25%"
#define IMPAIR_WHAT_RATE                                                                           \
	"a rate such as 100mbit (bit, kbit, mbit, gbit, tbit; bps, kbps, mbps, gbps, tbps are "    \
	"bytes per second)"
#define IMPAIR_KEYS "delay, jitter, loss, rate, duplicate or reorder"

/* impair_words: value split on blanks into at most IMPAIR_WORDS words; the
 * number of words, or -1 if there are more or one is too long */
static int impair_words(const char *value, char w[IMPAIR_WORDS][IMPAIR_WORD_LEN])
{
	int n = 0;
	const char *p = value;

	for (;;) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			return n;
		len = strcspn(p, " \t");
		if (n == IMPAIR_WORDS || len >= IMPAIR_WORD_LEN)
			return -1;
		memcpy(w[n], p, len);
		w[n][len] = '\0';
		n++;
		p += len;
	}
}

/* impair_number: DIGITS ['.' DIGITS] at the start of s (no sign, no
 * exponent); the length read, 0 if none */
static size_t impair_number(const char *s, double *v)
{
	size_t i = 0, digits = 0;
	char buf[IMPAIR_WORD_LEN];

	while (isdigit((unsigned char)s[i]))
		i++, digits++;
	if (s[i] == '.') {
		i++;
		while (isdigit((unsigned char)s[i]))
			i++, digits++;
	}
	if (digits == 0 || i >= sizeof(buf))
		return 0;
	memcpy(buf, s, i);
	buf[i] = '\0';
	*v = strtod(buf, NULL);
	return i;
}

/* impair_pct: "1%", "0.5%", "100%" */
static int impair_pct(const char *s, double *pct)
{
	size_t n = impair_number(s, pct);

	return n > 0 && strcmp(s + n, "%") == 0 && *pct <= 100.0 ? 0 : -1;
}

/* impair_pct_pair: a percentage and an optional correlation */
static int impair_pct_pair(const char *value, double *pct, double *corr)
{
	char w[IMPAIR_WORDS][IMPAIR_WORD_LEN];
	int n = impair_words(value, w);

	if (n < 1 || n > 2 || impair_pct(w[0], pct) == -1)
		return -1;
	*corr = 0;
	return n == 2 ? impair_pct(w[1], corr) : 0;
}

static const struct {
	const char *unit;
	double bits; /* per unit */
} impair_rate_units[] = {
    {"bit", 1},	     {"kbit", 1e3},	 {"mbit", 1e6},		{"gbit", 1e9}, {"tbit", 1e12},
    {"kibit", 1024}, {"mibit", 1048576}, {"gibit", 1073741824}, {"bps", 8},    {"kbps", 8e3},
    {"mbps", 8e6},   {"gbps", 8e9},	 {"tbps", 8e12},
};

static int impair_rate(const char *value, uint64_t *bps)
{
	char w[IMPAIR_WORDS][IMPAIR_WORD_LEN];
	double v, bits;
	size_t n;

	if (impair_words(value, w) != 1 || (n = impair_number(w[0], &v)) == 0)
		return -1;
	for (size_t i = 0; i < sizeof(impair_rate_units) / sizeof(impair_rate_units[0]); i++) {
		if (strcasecmp(w[0] + n, impair_rate_units[i].unit) != 0)
			continue;
		bits = rint(v * impair_rate_units[i].bits);
		if (bits < 1 || bits > 1e15)
			return -1;
		*bps = (uint64_t)bits;
		return 0;
	}
	return -1;
}

static const char *const impair_dist_names[] = {
    [IMPAIR_DIST_UNIFORM] = "uniform",
    [IMPAIR_DIST_NORMAL] = "normal",
    [IMPAIR_DIST_PARETO] = "pareto",
    [IMPAIR_DIST_PARETONORMAL] = "paretonormal",
};

const char *impair_dist_name(enum impair_dist dist)
{
	return dist <= IMPAIR_DIST_PARETONORMAL ? impair_dist_names[dist] : "?";
}

const char *impair_mech_name(enum impair_mech mech)
{
	return mech == IMPAIR_MECH_NETEM ? "netem" : "delayline";
}

static int impair_jitter(const char *value, int64_t *ns, enum impair_dist *dist)
{
	char w[IMPAIR_WORDS][IMPAIR_WORD_LEN];
	int n = impair_words(value, w);

	if (n < 1 || n > 2 || parse_duration_ns(w[0], ns) == -1 || *ns > IMPAIR_JITTER_MAX_NS)
		return -1;
	*dist = IMPAIR_DIST_UNIFORM;
	if (n == 1)
		return 0;
	for (int d = IMPAIR_DIST_UNIFORM; d <= IMPAIR_DIST_PARETONORMAL; d++) {
		if (strcmp(w[1], impair_dist_names[d]) == 0) {
			*dist = (enum impair_dist)d;
			return 0;
		}
	}
	return -1;
}

int impair_parse(struct impair *im, const char *key, const char *value, const char **what)
{
	char w[IMPAIR_WORDS][IMPAIR_WORD_LEN];
	struct impair t = *im;
	int rc = -1;

	*what = NULL;
	if (strcmp(key, "delay") == 0) {
		*what = IMPAIR_WHAT_DELAY;
		rc = impair_words(value, w) == 1 && parse_duration_ns(w[0], &t.delay_ns) == 0 ? 0
											      : -1;
	} else if (strcmp(key, "jitter") == 0) {
		*what = IMPAIR_WHAT_JITTER;
		rc = impair_jitter(value, &t.jitter_ns, &t.dist);
	} else if (strcmp(key, "loss") == 0) {
		*what = IMPAIR_WHAT_PCT;
		rc = impair_pct_pair(value, &t.loss_pct, &t.loss_corr_pct);
	} else if (strcmp(key, "duplicate") == 0) {
		*what = IMPAIR_WHAT_PCT;
		rc = impair_pct_pair(value, &t.duplicate_pct, &t.duplicate_corr_pct);
	} else if (strcmp(key, "reorder") == 0) {
		*what = IMPAIR_WHAT_PCT;
		rc = impair_pct_pair(value, &t.reorder_pct, &t.reorder_corr_pct);
	} else if (strcmp(key, "rate") == 0) {
		*what = IMPAIR_WHAT_RATE;
		rc = impair_rate(value, &t.rate_bps);
	}
	if (rc == 0)
		*im = t;
	return rc;
}

void impair_error(char *buf, size_t len, const char *key, const char *value, const char *what)
{
	if (what == NULL)
		(void)strfmt(buf, len, "unknown impairment '%s' (expected %s)", key, IMPAIR_KEYS);
	else
		(void)strfmt(buf, len, "%s: expected %s, got '%s'", key, what, value);
}

int impair_check(const struct impair *im, enum impair_mech mech, char *buf, size_t len)
{
	if (mech == IMPAIR_MECH_DELAYLINE && im->duplicate_pct > 0) {
		(void)strfmt(
		    buf, len,
		    "duplicate: the delay line (linkd) cannot duplicate packets; only netem "
		    "can");
		return -1;
	}
	if (im->reorder_pct > 0 && im->delay_ns == 0) {
		(void)strfmt(buf, len,
			     "reorder: needs a delay (packets are reordered by sending "
			     "some at once, ahead of the delayed ones)");
		return -1;
	}
	return 0;
}

/* impair_fmt_ns: a duration in the unit that writes it shortest */
static void impair_fmt_ns(char *buf, size_t len, int64_t ns)
{
	if (ns % NSEC_PER_MSEC == 0)
		(void)strfmt(buf, len, "%lldms", (long long)(ns / NSEC_PER_MSEC));
	else if (ns % NSEC_PER_USEC == 0)
		(void)strfmt(buf, len, "%lldus", (long long)(ns / NSEC_PER_USEC));
	else
		(void)strfmt(buf, len, "%lldns", (long long)ns);
}

void impair_format(const struct impair *im, char *buf, size_t len)
{
	char d[32], part[96];
	size_t n = 0;

	buf[0] = '\0';
#define IMPAIR_ADD(...)                                                                            \
	do {                                                                                       \
		(void)strfmt(part, sizeof(part), __VA_ARGS__);                                     \
		if (n < len)                                                                       \
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " " : "", part);       \
	} while (0)
	if (im->delay_ns) {
		impair_fmt_ns(d, sizeof(d), im->delay_ns);
		IMPAIR_ADD("delay %s", d);
	}
	if (im->jitter_ns) {
		impair_fmt_ns(d, sizeof(d), im->jitter_ns);
		IMPAIR_ADD("jitter %s %s", d, impair_dist_name(im->dist));
	}
	if (im->loss_pct > 0 && im->loss_corr_pct > 0)
		IMPAIR_ADD("loss %g%% %g%%", im->loss_pct, im->loss_corr_pct);
	else if (im->loss_pct > 0)
		IMPAIR_ADD("loss %g%%", im->loss_pct);
	if (im->duplicate_pct > 0 && im->duplicate_corr_pct > 0)
		IMPAIR_ADD("duplicate %g%% %g%%", im->duplicate_pct, im->duplicate_corr_pct);
	else if (im->duplicate_pct > 0)
		IMPAIR_ADD("duplicate %g%%", im->duplicate_pct);
	if (im->reorder_pct > 0 && im->reorder_corr_pct > 0)
		IMPAIR_ADD("reorder %g%% %g%%", im->reorder_pct, im->reorder_corr_pct);
	else if (im->reorder_pct > 0)
		IMPAIR_ADD("reorder %g%%", im->reorder_pct);
	if (im->rate_bps) {
		static const char *const units[] = {"bit", "kbit", "mbit", "gbit"};
		unsigned long long r = im->rate_bps;
		int u = 0;

		while (u < 3 && r % 1000 == 0)
			r /= 1000, u++;
		IMPAIR_ADD("rate %llu%s", r, units[u]);
	}
#undef IMPAIR_ADD
	if (n == 0)
		(void)strfmt(buf, len, "none");
}

/*
 * The distribution tables, by iproute2's netem/normal.c, pareto.c and
 * paretonormal.c (the programs that make the .dist files tc reads): the
 * inverse of the distribution at 4096 points, in units of sigma / 8192.
 */
#define IMPAIR_TABLESIZE 16384
#define IMPAIR_PARETO_A 3.0

static int16_t impair_tables[3][IMPAIR_DIST_LEN];
static int impair_tables_made;

static double impair_normal_cdf(double x)
{
	return .5 + .5 * erf(x / sqrt(2.0));
}

static int16_t impair_clamp16(double v)
{
	if (v < INT16_MIN)
		return INT16_MIN;
	if (v > INT16_MAX)
		return INT16_MAX;
	return (int16_t)v;
}

/* impair_pareto_value: pareto.c's value at i of 65536 (a = 3, shifted to
 * mean 0, scaled by 4/3) */
static double impair_pareto_value(int i)
{
	double v = 1.0 / pow((double)i / 65536.0, 1.0 / IMPAIR_PARETO_A);

	v = (v - 1.5) * (4.0 / 3.0) * IMPAIR_DIST_SCALE;
	return v > 32767 ? 32767 : v;
}

static void impair_make_tables(void)
{
	static double inv[IMPAIR_TABLESIZE + 1];
	int n = 0;

	/* normal.c: the inverse CDF by a walk over x, the step as iproute2's */
	for (double x = -10.0; x < 10.05; x += .00005) {
		long i = lrint(IMPAIR_TABLESIZE * impair_normal_cdf(x));

		inv[i] = x;
	}
	for (int i = 0; i < IMPAIR_TABLESIZE; i += 4, n++) {
		double normal = rint(inv[i] * IMPAIR_DIST_SCALE);
		/* paretonormal.c: a quarter normal, three quarters pareto */
		double pareto = rint(impair_pareto_value(65536 - 4 * i));

		impair_tables[0][n] = impair_clamp16(normal);
		impair_tables[2][n] = impair_clamp16((double)(((int)normal + 3 * (int)pareto) / 4));
	}
	n = 0;
	for (int i = 65536; i > 0; i -= 16, n++)
		impair_tables[1][n] = (int16_t)rint(impair_pareto_value(i));
	impair_tables_made = 1;
}

const int16_t *impair_dist_table(enum impair_dist dist)
{
	if (dist == IMPAIR_DIST_UNIFORM || dist > IMPAIR_DIST_PARETONORMAL)
		return NULL;
	if (!impair_tables_made)
		impair_make_tables();
	return impair_tables[dist - IMPAIR_DIST_NORMAL];
}

uint32_t impair_pct_u32(double pct)
{
	double v = rint(pct / 100.0 * (double)UINT32_MAX);

	return v >= (double)UINT32_MAX ? UINT32_MAX : v <= 0 ? 0 : (uint32_t)v;
}

/* impair_prng: splitmix64's high half (netem uses prandom_u32_state; any
 * good generator with a seed will do, the draws' use is netem's) */
static uint32_t impair_prng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static void impair_crnd_init(struct impair_crnd *c, uint32_t rho, uint64_t *prng)
{
	c->rho = rho;
	c->last = impair_prng(prng);
}

/* impair_crandom: sch_netem.c's get_crandom(): the next number leans on
 * the last by rho */
static uint32_t impair_crandom(struct impair_crnd *c, uint64_t *prng)
{
	uint64_t value, rho;

	if (c->rho == 0)
		return impair_prng(prng);
	value = impair_prng(prng);
	rho = (uint64_t)c->rho + 1;
	c->last = (uint32_t)((value * ((1ULL << 32) - rho) + (uint64_t)c->last * rho) >> 32);
	return c->last;
}

void impair_sampler_init(struct impair_sampler *s, const struct impair *im, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->im = *im;
	s->prng = seed;
	s->table = impair_dist_table(im->dist);
	s->loss = impair_pct_u32(im->loss_pct);
	s->reorder = impair_pct_u32(im->reorder_pct);
	impair_crnd_init(&s->delay_cor, 0, &s->prng);
	impair_crnd_init(&s->loss_cor, impair_pct_u32(im->loss_corr_pct), &s->prng);
	s->loss_cor.last = 0; /* the chain starts with no loss */
	impair_crnd_init(&s->reorder_cor, impair_pct_u32(im->reorder_corr_pct), &s->prng);
}

int64_t impair_sample_delay_ns(struct impair_sampler *s)
{
	int64_t mu = s->im.delay_ns, sigma = s->im.jitter_ns, x, d;
	uint32_t rnd;
	long t;

	if (sigma == 0)
		return mu;
	rnd = impair_crandom(&s->delay_cor, &s->prng);
	/* sch_netem.c's tabledist() */
	if (s->table == NULL) {
		d = (int64_t)(rnd % (2 * (uint32_t)sigma)) + mu - sigma;
	} else {
		t = s->table[rnd % IMPAIR_DIST_LEN];
		x = (sigma % IMPAIR_DIST_SCALE) * t;
		x += x >= 0 ? IMPAIR_DIST_SCALE / 2 : -IMPAIR_DIST_SCALE / 2;
		d = x / IMPAIR_DIST_SCALE + (sigma / IMPAIR_DIST_SCALE) * t + mu;
	}
	return d < 0 ? 0 : d;
}

int impair_sample_loss(struct impair_sampler *s)
{
	uint64_t rho = s->loss_cor.rho, base, threshold;
	int lost;

	if (rho == 0)
		return s->loss && s->loss >= impair_prng(&s->prng);
	/* a two-state chain: after a loss, another with rho + (1 - rho) p;
	 * after none, (1 - rho) p; the rate stays p, where netem's
	 * get_crandom() would pull it down */
	base = (uint64_t)s->loss * ((1ULL << 32) - rho) >> 32;
	threshold = s->loss_cor.last ? rho + base : base;
	lost = s->loss && (uint64_t)impair_prng(&s->prng) < threshold;
	s->loss_cor.last = (uint32_t)lost;
	return lost;
}

int impair_sample_reorder(struct impair_sampler *s)
{
	return s->reorder && s->reorder >= impair_crandom(&s->reorder_cor, &s->prng);
}

int impair_file_read(const char *path, const char *ifname, struct impair *im, int *found, char *err,
		     size_t errlen)
{
	struct impair t = {0};
	char line[256], why[256];
	int lineno = 0, rc = 0;
	FILE *fp;

	*found = 0;
	if ((fp = fopen(path, "re")) == NULL) {
		if (errno == ENOENT)
			return 0;
		(void)strfmt(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		char *save = NULL, *name, *key, *value;
		const char *what;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		name = strtok_r(line, " \t", &save);
		if (name == NULL || strcmp(name, ifname) != 0)
			continue;
		*found = 1;
		key = strtok_r(NULL, " \t", &save);
		value = strtok_r(NULL, "", &save);
		if (key && strcmp(key, "none") == 0 && value == NULL)
			continue;
		if (key == NULL || value == NULL) {
			(void)strfmt(err, errlen, "%s:%d: expected IFNAME KEY VALUE or IFNAME none",
				     path, lineno);
			rc = -1;
		} else if (impair_parse(&t, key, value, &what) == -1) {
			impair_error(why, sizeof(why), key, value, what);
			(void)strfmt(err, errlen, "%s:%d: %s", path, lineno, why);
			rc = -1;
		}
	}
	if (rc == 0 && ferror(fp)) {
		(void)strfmt(err, errlen, "%s: read error", path);
		rc = -1;
	}
	fclose(fp);
	if (rc == 0 && *found)
		*im = t;
	return rc;
}
