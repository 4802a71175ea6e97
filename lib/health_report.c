/* The HEALTH report line; see health_report.h. */
#include "health_report.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strtonum.h"

static const char health_id_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789._-";

int health_id_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n > 0 && n <= max && strspn(s, health_id_chars) == n;
}

int health_next_word(const char **p, const char *end, char *out, size_t max)
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

int health_report_format(const struct health_report *r, char *buf, size_t len)
{
	char addr[INET_ADDRSTRLEN];
	int n;

	if (!health_id_ok(r->prober, HEALTH_ID_LEN) || !health_id_ok(r->site, HEALTH_SITE_LEN))
		return -1;
	if (r->proximity)
		n = snprintf(buf, len, "PROXIMITY %s %s %s %u\n", r->prober, r->site,
			     inet_ntop(AF_INET, &r->querier, addr, sizeof(addr)), r->rtt_us);
	else
		n = snprintf(buf, len, "HEALTH %s %s %s %u\n", r->prober, r->site,
			     r->up ? "up" : "down", r->up ? r->rtt_us : 0);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int health_report_parse(const char *line, size_t len, struct health_report *r)
{
	const char *p = line, *end = line + len;
	char word[16], rtt[16], addr[INET_ADDRSTRLEN];
	const char *errstr;

	if (len > 0 && end[-1] == '\n')
		end--;
	if (end > line && end[-1] == '\r')
		end--;
	if (memchr(line, '\0', (size_t)(end - line)) || memchr(line, '\n', (size_t)(end - line)))
		return -1;
	memset(r, 0, sizeof(*r));
	if (health_next_word(&p, end, word, sizeof(word) - 1) == -1)
		return -1;
	if (strcmp(word, "PROXIMITY") == 0)
		r->proximity = 1;
	else if (strcmp(word, "HEALTH") != 0)
		return -1;
	if (health_next_word(&p, end, r->prober, HEALTH_ID_LEN) == -1 ||
	    !health_id_ok(r->prober, HEALTH_ID_LEN))
		return -1;
	if (health_next_word(&p, end, r->site, HEALTH_SITE_LEN) == -1 ||
	    !health_id_ok(r->site, HEALTH_SITE_LEN))
		return -1;
	if (r->proximity) {
		if (health_next_word(&p, end, addr, sizeof(addr) - 1) == -1 ||
		    inet_pton(AF_INET, addr, &r->querier) != 1)
			return -1;
	} else if (health_next_word(&p, end, word, sizeof(word) - 1) == -1) {
		return -1;
	} else if (strcmp(word, "up") == 0) {
		r->up = 1;
	} else if (strcmp(word, "down") != 0) {
		return -1;
	}
	if (health_next_word(&p, end, rtt, sizeof(rtt) - 1) == -1 || rtt[0] < '0' || rtt[0] > '9')
		return -1;
	r->rtt_us = (uint32_t)strtonum(rtt, 0, UINT32_MAX - 1, &errstr); /* UINT32_MAX: "none" */
	if (errstr != NULL)
		return -1;
	if (r->proximity)
		r->up = r->rtt_us > 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p == end ? 0 : -1;
}
