/* Remote-mode targets and their RTT; see target.h. */
#include "target.h"

#include <string.h>

#include "addr.h"

int prober_target_parse(const char *spec, char site[WIRE_SITE_LEN + 1],
			struct sockaddr_storage *addr)
{
	const char *eq = strchr(spec, '=');
	size_t n;

	if (eq == NULL)
		return -1;
	n = (size_t)(eq - spec);
	if (n == 0 || n > WIRE_SITE_LEN ||
	    strspn(spec, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return -1;
	if (addr_parse_sockaddr(eq + 1, WIRE_PORT_DEFAULT, addr) == -1)
		return -1;
	memcpy(site, spec, n);
	site[n] = '\0';
	return 0;
}

uint32_t prober_srtt_feed(uint32_t *srtt_us, int64_t sample_ns)
{
	int64_t us = sample_ns < 0 ? 0 : sample_ns / 1000;

	if (us == 0)
		us = 1; /* 0 means "no sample yet" */
	if (us > UINT32_MAX - 1)
		us = UINT32_MAX - 1;
	if (*srtt_us == 0)
		*srtt_us = (uint32_t)us;
	else
		*srtt_us = (uint32_t)(((int64_t)*srtt_us * 7 + us) / 8);
	if (*srtt_us == 0)
		*srtt_us = 1;
	return *srtt_us;
}
