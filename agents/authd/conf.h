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

#endif
