/*
 * Real authoritative servers on a lab's [dns] node (`impl = pdns`,
 * docs/authorities.md): PowerDNS's configuration, written from the same
 * [zone] and [name] sections authd would serve, and PowerDNS's own check
 * of it.
 *
 * The sections are read by authd's own parser (authd_export.h), so that a
 * zone or a policy means the same whatever serves it: each zone becomes a
 * zone file of the bind backend, each steered name a LUA record whose
 * ifportup() checks the sites itself, every check_interval (PowerDNS's
 * lua-health-checks-interval) with a timeout of check_timeout, from the
 * node, on the sites' request port over TCP (a connection established,
 * no request sent); geolocation by netmask() (authority_geo.c). In a dual
 * lab each name's AAAA by the same policy over the sites' IPv6 addresses,
 * checked over IPv6, and the server listens on its IPv6 address. A policy
 * PowerDNS cannot express is an error at its line ("topology/x.ini:31: [name www.lab.example]
 * policy: pdns cannot express this (...)"). The mapping table is docs/authorities.md's.
 *
 * Nothing here runs a server; authority_check runs `pdnsutil
 * check-all-zones` on what it writes, in a temporary directory, before
 * anything is built.
 */
#ifndef STEERLAB_AUTHORITY_H
#define STEERLAB_AUTHORITY_H

#include <stdio.h>

#include "topology.h"

#define AUTHORITY_DIR "authorities" /* under the state directory: NODE/, its files */
#define AUTHORITY_PDNS_PROG "/usr/sbin/pdns_server"
#define AUTHORITY_PDNS_LABEL "pdns"
#define AUTHORITY_PDNS_USER "pdns"
#define AUTHORITY_GDNSD_PROG "/usr/sbin/gdnsd"
#define AUTHORITY_GDNSD_LABEL "gdnsd"
#define AUTHORITY_GDNSD_USER "gdnsd"
#define AUTHORITY_GDNSDCTL_PROG "/usr/bin/gdnsdctl"
#define AUTHORITY_PDNS_CONTROL_PROG "/usr/bin/pdns_control"

/* authority_node: whether [dns] node n runs a real authoritative server
 * (one that checks the sites itself); authority_any: whether one does */
int authority_node(const struct topology *t, int n);
int authority_any(const struct topology *t);

/* authority_write: node n's files into directory dir (pdns.conf,
 * named.conf, one ZONE.zone per zone; dir as they will name it). 0, or -1
 * with every problem on err ("FILE:LINE: ..."), or if a file fails. */
int authority_write(const struct topology *t, int n, const char *dir, FILE *err);

/* authority_write_changed: authority_write with the timeline's DNS changes
 * ch->c[0..n) applied in order, as authd would hold them (authd_export.h);
 * one refused: -1, ch->ok 0 and its reason, nothing written but
 * directories. The files go to dir; the configurations name named (the
 * directory they will be read from once installed; NULL: dir). */
struct authd_export_changes;
int authority_write_changed(const struct topology *t, int n, const char *dir, const char *named,
			    struct authd_export_changes *ch, FILE *err);

/* authority_check: every [dns] node with impl = pdns written in a
 * temporary directory and checked by pdnsutil: "steerlab: node ns: pdns
 * rejected its configuration (...)". 0 if all pass (or there are none),
 * else -1. Leaves no file. */
int authority_check(const struct topology *t, FILE *err);

#endif
