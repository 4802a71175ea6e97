/*
 * The timeline's DNS changes on PowerDNS and gdnsd (docs/authorities.md,
 * "DNS changes"): set-ttl, set-weight (PowerDNS), add-record and
 * remove-record, as their operators make them: the zone file rewritten,
 * then the server told to read it again (`pdns_control bind-reload-now
 * ZONE...`, `gdnsdctl reload-zones`).
 *
 * The zones are written as authd would hold them after every change the
 * node took so far and this one (authd_export.h: authd's own code applies
 * them, and refuses what authd would, with its reason), each change
 * bumping its zone's SOA serial as authd's do. They are written beside the
 * node's directory (NODE.next/) and renamed into it one file at a time, so
 * that the server never reads half a file (gdnsd also watches its zones/
 * directory). The lab's events record each as authd's zone_changed would
 * (authority_changed, with the serial).
 */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agents/authd/authd_export.h"
#include "authority.h"
#include "event.h"
#include "events.h"
#include "log.h"
#include "rmtree.h"
#include "strfmt.h"
#include "subproc.h"

/* change_install: every zone file of next (pdns: NAME.zone; gdnsd: zones/NAME,
 * and its config) renamed over its namesake in live; 0, or -1 (said in said) */
static int change_install(const char *next, const char *live, int gdnsd, char *said, size_t len)
{
	char from[PATH_MAX], to[PATH_MAX], dir[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	strfmt(dir, sizeof(dir), "%s%s", next, gdnsd ? "/zones" : "");
	if ((d = opendir(dir)) == NULL) {
		strfmt(said, len, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL && rc == 0) {
		size_t k = strlen(de->d_name);

		if (de->d_name[0] == '.' ||
		    (!gdnsd && (k < 5 || strcmp(de->d_name + k - 5, ".zone") != 0)))
			continue;
		strfmt(from, sizeof(from), "%s/%s", dir, de->d_name);
		strfmt(to, sizeof(to), "%s%s/%s", live, gdnsd ? "/zones" : "", de->d_name);
		if (rename(from, to) == -1) {
			strfmt(said, len, "%s: %s", to, strerror(errno));
			rc = -1;
		}
	}
	/* gdnsd's configuration, a weighted name's weights in it: read by the
	 * instance that replaces the running one (change_reload) */
	strfmt(from, sizeof(from), "%s/config", next);
	strfmt(to, sizeof(to), "%s/config", live);
	if (gdnsd && rc == 0 && rename(from, to) == -1) {
		strfmt(said, len, "%s: %s", to, strerror(errno));
		rc = -1;
	}
	closedir(d);
	return rc;
}

/* change_reload: node n's server told to read its zones again; 0, or -1
 * with its output in said */
static int change_reload(struct lab *lab, int n, const char *live, const struct zone_change *c,
			 char *said, size_t len)
{
	const struct topology *t = lab->t;
	char arg[PATH_MAX + 16], *out = NULL;
	char *argv[64 + 4];
	int gdnsd = t->nodes[n].dns_impl == TOPO_DNS_GDNSD, k = 0, status;

	/* gdnsd reads a weighted name's weights from its configuration,
	 * which a new instance reads: gdnsd -R takes over from the old */
	if (gdnsd && c->op == ZONE_SET_WEIGHT)
		return lab_authority_replace(lab, n, said, len);
	if (gdnsd) {
		argv[k++] = AUTHORITY_GDNSDCTL_PROG;
		argv[k++] = "-c";
		argv[k++] = (char *)live;
		argv[k++] = "reload-zones";
	} else {
		strfmt(arg, sizeof(arg), "--config-dir=%s", live);
		argv[k++] = AUTHORITY_PDNS_CONTROL_PROG;
		argv[k++] = arg;
		argv[k++] = "bind-reload-now";
		for (int i = 0; i < t->nraw_sections && k < 64 + 3; i++)
			if (t->nodes[n].zone_set >> i & 1)
				argv[k++] = (char *)t->raw_sections[i].apex;
	}
	argv[k] = NULL;
	status = subproc_capture(argv, -1, &out, NULL);
	/* pdns_control answers each zone's reload on its line: a failed one
	 * says so, with status 0 */
	if (status != 0 || out == NULL || strstr(out, "rror") != NULL) {
		if (out != NULL)
			out[strcspn(out, "\n")] = '\0';
		strfmt(said, len, "%s of %s did not reload its zones (status %d): %s", argv[0],
		       t->nodes[n].name, status, out && out[0] ? out : "no output");
		free(out);
		return -1;
	}
	free(out);
	return 0;
}

int lab_authority_change(struct lab *lab, int n, const struct zone_change *c,
			 struct zone_change_reply *r, char *said, size_t len)
{
	static struct zone_change list[TOPO_MAX_EVENTS];
	const struct topology *t = lab->t;
	struct authd_export_changes ch = {.c = list};
	char live[PATH_MAX], next[PATH_MAX], dir[PATH_MAX], name[TOPO_NAME_MAX + 8];
	int gdnsd = t->nodes[n].dns_impl == TOPO_DNS_GDNSD, rc, fd;

	memset(r, 0, sizeof(*r));
	snprintf(r->id, sizeof(r->id), "%s", c->id);
	for (int i = 0; i < lab->nauthority_changes && ch.n < TOPO_MAX_EVENTS - 1; i++)
		if (lab->authority_change_node[i] == n)
			list[ch.n++] = lab->authority_changes[i];
	if (lab->nauthority_changes == TOPO_MAX_EVENTS) {
		strfmt(said, len, "more than %d DNS changes", TOPO_MAX_EVENTS);
		return -1;
	}
	list[ch.n++] = *c;
	strfmt(live, sizeof(live), "%s/%s/%s", lab->statedir, AUTHORITY_DIR, t->nodes[n].name);
	strfmt(name, sizeof(name), "%s.next", t->nodes[n].name);
	strfmt(next, sizeof(next), "%s/%s/%s", lab->statedir, AUTHORITY_DIR, name);
	strfmt(said, len, "writing %s's zones: %s", t->nodes[n].name, next);
	strfmt(dir, sizeof(dir), "%s/%s", lab->statedir, AUTHORITY_DIR);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	/* what a change before this one left, if it failed half-way */
	if (rmtree_at(fd, name, 1) == -1 || mkdir(next, 0755) == -1) {
		close(fd);
		return -1;
	}
	rc = authority_write_changed(t, n, next, live, &ch, stderr);
	if (rc == -1 && !ch.ok) {
		/* refused as authd refuses it: nothing changes */
		snprintf(r->reason, sizeof(r->reason), "%s", ch.reason);
	} else if (rc == 0 && change_install(next, live, gdnsd, said, len) == 0 &&
		   change_reload(lab, n, live, c, said, len) == 0) {
		r->ok = 1;
		r->serial = ch.serial;
		lab->authority_change_node[lab->nauthority_changes] = n;
		lab->authority_changes[lab->nauthority_changes++] = *c;
		event_emit(
		    lab->ev, EVENTS_AUTHORITY_CHANGED, "{s:s, s:s, s:s, s:s, s:s?, s:o, s:I, s:s}",
		    "server", t->nodes[n].name, "impl", topo_dns_impl_name(t->nodes[n].dns_impl),
		    "name", c->name, "what", zone_change_op_name(c->op), "site",
		    c->op == ZONE_SET_WEIGHT ? c->site : NULL, "after",
		    c->op == ZONE_SET_TTL || c->op == ZONE_SET_WEIGHT ? json_integer(c->value)
								      : json_null(),
		    "serial", (json_int_t)r->serial, "id", c->id);
	} else {
		rc = -1;
	}
	rmtree_at(fd, name, 1);
	close(fd);
	return rc == -1 && ch.ok ? -1 : 0;
}
