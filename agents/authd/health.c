/* Site health from prober reports; see health.h. */
#include "health.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char authd_id_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789._-";

/* authd_report_word: copies the next space-separated word of [*p, end)
 * into out (at most max characters). 0, or -1 if missing or too long. */
static int authd_report_word(const char **p, const char *end, char *out, size_t max)
{
	const char *s = *p;
	size_t n;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	for (n = 0; s + n < end && s[n] != ' ' && s[n] != '\t'; n++)
		;
	if (n == 0 || n > max)
		return -1;
	memcpy(out, s, n);
	out[n] = '\0';
	*p = s + n;
	return 0;
}

static int authd_id_ok(const char *s)
{
	return strspn(s, authd_id_chars) == strlen(s);
}

int authd_report_parse(const char *line, size_t len, struct authd_report *r)
{
	const char *p = line, *end = line + len;
	char word[16], rtt[16], *e;
	unsigned long long v;

	if (len > 0 && end[-1] == '\n')
		end--;
	if (end > line && end[-1] == '\r')
		end--;
	if (memchr(line, '\0', (size_t)(end - line)) || memchr(line, '\n', (size_t)(end - line)))
		return -1;
	memset(r, 0, sizeof(*r));
	if (authd_report_word(&p, end, word, sizeof(word) - 1) == -1 || strcmp(word, "HEALTH") != 0)
		return -1;
	if (authd_report_word(&p, end, r->prober, AUTHD_PROBER_LEN) == -1 ||
	    !authd_id_ok(r->prober))
		return -1;
	if (authd_report_word(&p, end, r->site, AUTHD_SITE_LEN) == -1 || !authd_id_ok(r->site))
		return -1;
	if (authd_report_word(&p, end, word, sizeof(word) - 1) == -1)
		return -1;
	if (strcmp(word, "up") == 0)
		r->up = 1;
	else if (strcmp(word, "down") != 0)
		return -1;
	if (authd_report_word(&p, end, rtt, sizeof(rtt) - 1) == -1 || rtt[0] < '0' || rtt[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(rtt, &e, 10);
	if (errno || *e || v > UINT32_MAX - 1) /* UINT32_MAX means "none" */
		return -1;
	r->rtt_us = (uint32_t)v;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p == end ? 0 : -1;
}

int authd_report_format(const struct authd_report *r, char *buf, size_t len)
{
	int n = snprintf(buf, len, "HEALTH %s %s %s %u\n", r->prober, r->site,
			 r->up ? "up" : "down", r->rtt_us);

	return n < 0 || (size_t)n >= len ? -1 : n;
}

void authd_health_init(struct authd_health *h, const struct authd_db *db)
{
	memset(h, 0, sizeof(*h));
	h->quorum = db->server.quorum;
	h->nsites = db->nsites;
	h->sites = db->sites;
	memset(h->state, -1, sizeof(h->state));
	memset(h->rtt, 0xff, sizeof(h->rtt)); /* AUTHD_RTT_NONE */
	for (int s = 0; s < AUTHD_MAX_SITES; s++)
		h->healthy[s] = 1;
	for (int i = 0; i < db->nprobers && i < AUTHD_MAX_PROBERS; i++)
		authd_health_prober(h, db->probers[i], 1);
}

int authd_health_prober(struct authd_health *h, const char *id, int create)
{
	for (int i = 0; i < h->nprobers; i++)
		if (strcmp(h->prober[i], id) == 0)
			return i;
	if (!create || h->nprobers == AUTHD_MAX_PROBERS || strlen(id) > AUTHD_PROBER_LEN)
		return -1;
	strcpy(h->prober[h->nprobers], id);
	return h->nprobers++;
}

int authd_health_site(const struct authd_health *h, const char *site)
{
	for (int i = 0; i < h->nsites; i++)
		if (strcmp(h->sites[i].name, site) == 0)
			return i;
	return -1;
}

int authd_health_apply(struct authd_health *h, const struct authd_report *r,
		       struct authd_health_change *c)
{
	int s = authd_health_site(h, r->site), p, was, healthy;
	uint32_t rtt;

	if (s == -1 || (p = authd_health_prober(h, r->prober, 1)) == -1)
		return -1;
	memset(c, 0, sizeof(*c));
	c->site = s;
	c->prober = p;
	was = h->state[p][s];
	if (was == -1)
		h->reports[s]++;
	if (was == 1)
		h->up[s]--;
	if (r->up)
		h->up[s]++;
	h->state[p][s] = (int8_t)(r->up ? 1 : 0);
	c->state_changed = was != h->state[p][s];
	rtt = r->up ? r->rtt_us : AUTHD_RTT_NONE;
	c->rtt_changed = h->rtt[p][s] != rtt;
	h->rtt[p][s] = rtt;
	healthy = h->reports[s] == 0 || (double)h->up[s] > h->quorum * h->reports[s];
	c->health_changed = healthy != h->healthy[s];
	h->healthy[s] = (uint8_t)healthy;
	return 0;
}

uint32_t authd_health_rtt(const struct authd_health *h, int prober, int site)
{
	if (prober < 0 || prober >= h->nprobers || site < 0 || site >= h->nsites ||
	    h->state[prober][site] != 1)
		return AUTHD_RTT_NONE;
	return h->rtt[prober][site];
}
