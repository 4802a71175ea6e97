/* The client's per-request CSV lines and per-site tally; see record.h. */
#include "record.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const client_status_names[] = {
    [CLIENT_OK] = "ok",
    [CLIENT_TIMEOUT] = "timeout",
    [CLIENT_ERROR] = "error",
};

void client_site_clean(const char *in, char *out)
{
	size_t i;

	for (i = 0; i < WIRE_SITE_LEN && in[i]; i++) {
		char c = in[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[i] = ok ? c : '_';
	}
	out[i] = '\0';
}

int client_record_format(char *buf, size_t len, uint32_t client, uint64_t seq, int64_t sent_ns,
			 enum client_status status, const char *site, int64_t rtt_ns)
{
	int n;

	if ((unsigned)status > CLIENT_ERROR)
		return -1;
	n = snprintf(buf, len, "%" PRIu32 ",%" PRIu64 ",%" PRId64 ",%s,%s,%" PRId64 "\n", client,
		     seq, sent_ns, client_status_names[status], site ? site : "",
		     status == CLIENT_OK ? rtt_ns : 0);
	if (n < 0 || (size_t)n >= len)
		return -1;
	return n;
}

void client_tally_add(struct client_tally *t, const char *site)
{
	for (int i = 0; i < t->n; i++) {
		if (strcmp(t->sites[i].site, site) == 0) {
			t->sites[i].replies++;
			return;
		}
	}
	if (t->n == CLIENT_MAX_SITES) {
		t->other++;
		return;
	}
	strncpy(t->sites[t->n].site, site, WIRE_SITE_LEN);
	t->sites[t->n].site[WIRE_SITE_LEN] = '\0';
	t->sites[t->n].replies = 1;
	t->n++;
}

int client_recbin_start(struct client_recbin *w, FILE *fp)
{
	uint8_t hdr[RECBIN_HDR_LEN];

	memset(w, 0, sizeof(*w));
	w->fp = fp;
	recbin_header(hdr);
	return fwrite(hdr, 1, sizeof(hdr), fp) == sizeof(hdr) ? 0 : -1;
}

/* client_recbin_site: the index of site, named in the file if new; -1 */
static int client_recbin_site(struct client_recbin *w, const char *site)
{
	struct recbin_rec r = {.kind = RECBIN_SITE};
	uint8_t buf[RECBIN_LEN];

	if (w->nsites > 0 && strcmp(w->sites[w->last], site) == 0)
		return w->last;
	for (int i = 0; i < w->nsites; i++)
		if (strcmp(w->sites[i], site) == 0)
			return w->last = i;
	if (w->nsites == RECBIN_MAX_SITES)
		return -1;
	snprintf(w->sites[w->nsites], sizeof(w->sites[0]), "%s", site);
	r.site = (uint8_t)w->nsites;
	snprintf(r.name, sizeof(r.name), "%s", site);
	recbin_encode(&r, buf);
	if (fwrite(buf, 1, sizeof(buf), w->fp) != sizeof(buf))
		return -1;
	return w->last = w->nsites++;
}

int client_recbin_write(struct client_recbin *w, uint32_t client, uint64_t seq, int64_t sent_ns,
			enum client_status status, const char *site, int64_t rtt_ns)
{
	struct recbin_rec r = {.client = client, .seq = seq, .sent_ns = sent_ns};
	uint8_t buf[RECBIN_LEN];
	int k = 0;

	if (status == CLIENT_OK && (k = client_recbin_site(w, site ? site : "")) < 0)
		return -1;
	r.kind = status == CLIENT_OK	    ? RECBIN_OK
		 : status == CLIENT_TIMEOUT ? RECBIN_TIMEOUT
					    : RECBIN_ERROR;
	r.site = (uint8_t)k;
	r.rtt_ns = status == CLIENT_OK ? rtt_ns : 0;
	recbin_encode(&r, buf);
	return fwrite(buf, 1, sizeof(buf), w->fp) == sizeof(buf) ? 0 : -1;
}
