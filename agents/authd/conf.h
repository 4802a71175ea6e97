/*
 * authd's configuration file (docs/authd.md, "Configuration").
 *
 * An INI file of [server], [zone NAME], [site NAME] and [name NAME]
 * sections, read with the lab's INI front-end (lib/inifile.h), so every
 * error says file:line: what was expected. The file is read whole first
 * and interpreted after, so sections and keys may come in any order.
 */
#ifndef STEERLAB_AUTHD_CONF_H
#define STEERLAB_AUTHD_CONF_H

#include <stdint.h>
#include <stdio.h>

#include "db.h"

#define AUTHD_PORT 53
#define AUTHD_CONTROL_PORT 5353
#define AUTHD_MAX_ERRORS 20

/* authd_conf_load: the database path describes. NULL if the file cannot
 * be read or is wrong: every problem is written to err as
 * "path:line: what was expected" (at most AUTHD_MAX_ERRORS). */
struct authd_db *authd_conf_load(const char *path, FILE *err);

/* authd_conf_load_stream: the same from an open stream named path. */
struct authd_db *authd_conf_load_stream(FILE *f, const char *path, FILE *err);

/* authd_parse_sockaddr: "ADDR", "ADDR:PORT", "IPV6" or "[IPV6]:PORT". 0 or
 * -1. */
int authd_parse_sockaddr(const char *s, uint16_t default_port, struct sockaddr_storage *ss);

/* authd_parse_prefix: "198.18.0.0/24", "2001:db8::/32", or an address (a
 * host prefix). -1 if malformed or if bits are set past the length. */
int authd_parse_prefix(const char *s, struct authd_prefix *p);

/* authd_sockaddr_str: "ADDR:PORT" or "[IPV6]:PORT". */
const char *authd_sockaddr_str(const struct sockaddr_storage *ss, char *buf, size_t len);

#endif
