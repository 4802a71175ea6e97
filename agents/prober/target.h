/*
 * Remote-mode targets: the sites a prober probes from afar (-T SITE=ADDR)
 * and the round-trip time it measures to each.
 *
 * A remote prober stands in a client network and probes every site's
 * unicast service address, so its RTTs are what clients there would see;
 * authd's latency policy reads them from the health reports.
 */
#ifndef STEERLAB_PROBER_TARGET_H
#define STEERLAB_PROBER_TARGET_H

#include <netinet/in.h>
#include <sys/socket.h>
#include <stdint.h>

#include "wire.h"

/* prober_target_parse: "SITE=ADDR[:PORT]" or "SITE=[IPV6]:PORT" (port
 * default WIRE_PORT_DEFAULT); site is 1 to WIRE_SITE_LEN of
 * [A-Za-z0-9._-]. 0 or -1. */
int prober_target_parse(const char *spec, char site[WIRE_SITE_LEN + 1],
			struct sockaddr_storage *addr);

/* prober_srtt_feed: folds one RTT sample (ns) into a smoothed RTT in µs,
 * as TCP's SRTT (RFC 6298: 7/8 old + 1/8 new); the first sample is taken
 * as is (*srtt_us 0 means none yet). Returns the new value. */
uint32_t prober_srtt_feed(uint32_t *srtt_us, int64_t sample_ns);

#endif
