/*
 * Addresses and prefixes of both families, as the lab's files and command
 * lines write them.
 *
 *   parse_addr_port      IPv4 "ADDR" or "ADDR:PORT" (the agents' options)
 *   addr_parse_sockaddr  "ADDR", "ADDR:PORT", "IPV6" or "[IPV6]:PORT"
 *   addr_parse_prefix    "198.18.0.0/24", "2001:db8::/32", or an address
 *   addr_sockaddr_str    "ADDR:PORT" or "[IPV6]:PORT"
 *   addr_ip_parse        an address of either family in one struct in6_addr
 *
 * One struct in6_addr holds an address of either family where a table
 * keeps both (routed's): an IPv4 address as its IPv4-mapped form
 * ::ffff:A.B.C.D (RFC 4291 2.5.5.2), which no IPv6 node uses on the wire.
 *
 * IPv4 prefixes of the announcements (struct in_addr and a length) are
 * lib/announce.h's parse_prefix.
 */
#ifndef STEERLAB_ADDR_H
#define STEERLAB_ADDR_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* A prefix of either family; bits past len are zero. */
struct addr_prefix {
	int family; /* AF_INET or AF_INET6 */
	uint8_t len;
	uint8_t addr[16];
};

/* parse_addr_port: fills *sin (AF_INET); a missing port is default_port.
 * 0, or -1 on a malformed address or a port outside 1..65535. */
int parse_addr_port(const char *s, uint16_t default_port, struct sockaddr_in *sin);

/* addr_parse_sockaddr: "ADDR", "ADDR:PORT", "IPV6" or "[IPV6]:PORT" into
 * *ss; a missing port is default_port. 0, or -1. */
int addr_parse_sockaddr(const char *s, uint16_t default_port, struct sockaddr_storage *ss);

/* addr_parse_prefix: "198.18.0.0/24", "2001:db8::/32", or an address (a
 * host prefix). -1 if malformed or if bits are set past the length
 * ("198.18.0.1/24" is probably a mistake). */
int addr_parse_prefix(const char *s, struct addr_prefix *p);

/* addr_sockaddr_str: "ADDR:PORT" or "[IPV6]:PORT" in buf; returns buf.
 * addr_sa_str: the same of a sockaddr_in or sockaddr_in6 (sa_family says
 * which) */
const char *addr_sockaddr_str(const struct sockaddr_storage *ss, char *buf, size_t len);
const char *addr_sa_str(const struct sockaddr *sa, char *buf, size_t len);

/* addr_sa_len: the length of a sockaddr_in or sockaddr_in6, by its family */
socklen_t addr_sa_len(const struct sockaddr *sa);

/* addr_ip_parse: "198.18.0.2" (as ::ffff:198.18.0.2) or "2001:2::1" into
 * *a. 0, or -1 if malformed or an IPv4-mapped IPv6 address (written so, it
 * would pass for IPv4). */
int addr_ip_parse(const char *s, struct in6_addr *a);

/* addr_map4: a's IPv4-mapped form. addr_is4: whether a is one.
 * addr_unmap4: the IPv4 address of a mapped one. */
struct in6_addr addr_map4(struct in_addr a);
int addr_is4(const struct in6_addr *a);
struct in_addr addr_unmap4(const struct in6_addr *a);

/* addr_ip_str: a as "198.18.0.2" (a mapped one) or "2001:2::1" in buf (at
 * least INET6_ADDRSTRLEN); returns buf. */
const char *addr_ip_str(const struct in6_addr *a, char *buf, size_t len);

#endif
