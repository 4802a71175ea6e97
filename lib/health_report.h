/*
 * Health reports from remote probers to authd: one UDP datagram of one
 * text line per report, to authd's control socket (HEALTH_PORT):
 *
 *   HEALTH <prober-id> <site> up|down <rtt_us>
 *
 * and, from a prober standing at a site (prober -Y; docs/authd.md,
 * "Proximity"), the round trip from that site to a querier of authd's:
 *
 *   PROXIMITY <prober-id> <site> <IPv4 address> <rtt_us>
 *
 * rtt_us 0: the querier did not answer the site's probes. Ids are 1 to HEALTH_ID_LEN (prober) and 1
 * to HEALTH_SITE_LEN (site) characters of [A-Za-z0-9._-]. rtt_us is the smoothed RTT of an up site,
 * 0 for a down one. The prober writes them (agents/prober/authds.c) and
 * authd reads them (agents/authd/health.c): this is the one definition.
 */
#ifndef STEERLAB_HEALTH_REPORT_H
#define STEERLAB_HEALTH_REPORT_H

#include <stddef.h>
#include <netinet/in.h>
#include <stdint.h>

#define HEALTH_PORT 5353
#define HEALTH_ID_LEN 32
#define HEALTH_SITE_LEN 16
#define HEALTH_REPORT_MAX 128 /* the longest report line */

struct health_report {
	char prober[HEALTH_ID_LEN + 1];
	char site[HEALTH_SITE_LEN + 1];
	int up;		 /* HEALTH: the verdict; PROXIMITY: rtt_us > 0 */
	uint32_t rtt_us; /* < UINT32_MAX */
	int proximity;	 /* a PROXIMITY line: the RTT from site to querier */
	struct in_addr querier;
};

/* health_id_ok: 1 if s is 1 to max characters of [A-Za-z0-9._-]. */
int health_id_ok(const char *s, size_t max);

/* health_next_word: the next space- or tab-separated word of [*p, end)
 * into out (at most max characters), *p moved past it. 0, or -1 if missing
 * or too long. The control lines' reader: HEALTH here, CHANGE in
 * lib/zone_change.c. */
int health_next_word(const char **p, const char *end, char *out, size_t max);

/* health_report_format: the line for r (HEALTH, or PROXIMITY if
 * r->proximity), with '\n'. Its length, or -1 if it
 * does not fit or an id is not valid. */
int health_report_format(const struct health_report *r, char *buf, size_t len);

/* health_report_parse: one HEALTH or PROXIMITY line, without or with its '\n'. 0, or -1
 * if malformed. */
int health_report_parse(const char *line, size_t len, struct health_report *r);

#endif
