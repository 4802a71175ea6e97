/* The client's per-request CSV lines and per-site tally; see record.h. */
#include "record.h"

#include <inttypes.h>
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
