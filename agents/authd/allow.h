/*
 * Who may send authd health reports (docs/authd.md, "Health"; docs/agents.md,
 * "Control channels").
 *
 * Any node of a lab can send a datagram to the control socket, and a forged
 * `HEALTH p1 a down 0` would steer the answers; 70 invented prober ids
 * would fill the prober table (AUTHD_MAX_PROBERS) so that a real prober
 * could no longer report. So the lab gives authd the address of each of its
 * probers, with the prober's id (-a ID=ADDR), and authd takes a report only
 * from such an address, under that id. An entry without an id (-a ADDR)
 * lets ADDR report under one id: the first it uses. Each entry thus brings
 * at most one prober id, and authd refuses at start more entries than the
 * table has room for beside the config's vantage ids: only entitled
 * sources create entries in the prober table, and they always fit.
 *
 * Without -a every source and every id is accepted, as far as the table
 * goes (an authd started by hand; it says so in its log). `-a none` accepts
 * no report at all (a lab without probers).
 *
 * Zone changes (zone_change.h) are another right: only the addresses -A
 * lists may send them, and without -A nobody. The lab gives -A 127.0.0.1
 * and sends its changes from inside the [dns] node's own namespace, the
 * one place a datagram from 127.0.0.1 can come from (the kernel drops a
 * loopback source arriving on any other interface).
 */
#ifndef STEERLAB_AUTHD_ALLOW_H
#define STEERLAB_AUTHD_ALLOW_H

#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include "health.h"

struct authd_sender {
	int family; /* AF_INET or AF_INET6 */
	unsigned char addr[16];
	char id[AUTHD_PROBER_LEN + 1]; /* "": not bound yet */
	int id_given;		       /* -a ID=ADDR: the id is fixed */
};

#define AUTHD_MAX_CHANGERS 8

struct authd_allow {
	int set; /* -a was given: only these senders */
	int n;
	struct authd_sender senders[AUTHD_MAX_PROBERS];
	/* -A: who may change the zones (CHANGE lines; nobody without -A) */
	int nchangers;
	struct authd_sender changers[AUTHD_MAX_CHANGERS];
};

/* authd_allow_add: one -a argument, "ADDR", "ID=ADDR" or "none" (ADDR IPv4
 * or IPv6). 0, or -1 if malformed or AUTHD_MAX_PROBERS are already given. */
int authd_allow_add(struct authd_allow *a, const char *arg);

/* authd_allow_fits: 0 if every prober the entries may bring fits in the
 * table beside the nvantage ids of the configuration's vantage lines, -1
 * if not (then says how many in err). */
int authd_allow_fits(const struct authd_allow *a, char *const *vantage, int nvantage, char *err,
		     size_t len);

/* authd_allow_check: 0 if a report from `from` under prober id `id` is
 * entitled (an entry without an id is then bound to it); -1 if not, with
 * the reason ("sender not allowed", "prober id p9 not allowed from this
 * sender"). An IPv4-mapped IPv6 source is taken as the IPv4 address. */
int authd_allow_check(struct authd_allow *a, const struct sockaddr_storage *from, const char *id,
		      char *reason, size_t len);

/* authd_allow_changer: one -A argument, an IPv4 or IPv6 address. 0, or
 * -1 if malformed or AUTHD_MAX_CHANGERS are already given. */
int authd_allow_changer(struct authd_allow *a, const char *arg);

/* authd_allow_change: 0 if `from` may change the zones (an -A address),
 * -1 if not, with the reason. Health reports and changes are entitled
 * apart: a prober's address may not change a zone, nor -A's report. */
int authd_allow_change(const struct authd_allow *a, const struct sockaddr_storage *from,
		       char *reason, size_t len);

/* authd_allow_addr_str: from's address alone, without the port. */
const char *authd_allow_addr_str(const struct sockaddr_storage *from, char *buf, size_t len);

#endif
