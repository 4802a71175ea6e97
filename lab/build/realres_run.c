/*
 * Real resolvers in a lab (impl = unbound | knot-resolver | bind9 on a
 * [resolver] node, docs/resolvers.md): their files, starting them, asking
 * them whether they answer, and removing what they leave.
 *
 * Each drops to its own user (unbound, knot-resolver, bind) and must reach
 * its files. Under the state directory:
 *
 *   STATEDIR/resolvers/           root's, 0711: traversed, not listed
 *   STATEDIR/resolvers/NODE/      the resolver user's, 0750: its
 *                                 configuration NODE.LABEL.conf and root
 *                                 hints (root's, 0644), its pid file,
 *                                 unbound's control socket, kresd's cache
 *                                 and control/ directory, named's keys
 *
 * STATEDIR is 0711 for that, as for FRR (lab/build/frr.c). `down` removes them
 * by what is in them, two levels deep, never following a link. The
 * configuration is also kept in the run directory (NODE.LABEL.conf).
 *
 * The resolvers run in the foreground, forked by the supervisor like the
 * agents (lab_start_agent_as), their log (standard error) in
 * RUNDIR/NODE.LABEL.log; agents.tsv records them as unbound, kresd, named,
 * the programs of /usr/sbin (realres_prog_of_label).
 */
#include "lab.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libknot/libknot.h>
#include <poll.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "realres.h"
#include "rmtree.h"
#include "strfmt.h"

#define REALRES_READY_WAIT_MS 100 /* one readiness query's wait */

static int realres_node(const struct topology *t, int n)
{
	return t->nodes[n].kind == TOPO_RESOLVER && t->nodes[n].impl != TOPO_IMPL_RESOLVERD;
}

const char *lab_realres_prog(const char *label)
{
	return realres_prog_of_label(label);
}

/* realres_put: what write makes for in into dir/file, new (not through a
 * link). 0 or -1 (said). */
static int realres_put(const char *dir, const char *file, const struct topology *t, int n,
		       const struct realres_in *in, int hints)
{
	FILE *fp;
	int rc;

	if ((fp = lab_fopen_write(dir, file)) == NULL) {
		log_warn("%s: %s/%s", __func__, dir, file);
		return -1;
	}
	/* the knobs were checked when the topology was loaded */
	rc = hints ? realres_write_hints(in, fp) : realres_write(t, n, in, fp, stderr);
	if (fclose(fp) == EOF || rc == -1) {
		log_warn("%s: %s/%s", __func__, dir, file);
		return -1;
	}
	return 0;
}

int lab_realres_prepare(struct lab *lab)
{
	const struct topology *t = lab->t;
	char dir[PATH_MAX], node[PATH_MAX], conf[TOPO_NAME_MAX + 16];
	struct realres_in in;
	struct passwd *pw;
	int any = 0;

	for (int n = 0; n < t->nnodes; n++)
		any |= realres_node(t, n);
	if (!any)
		return 0;
	/* the resolvers, as their users, traverse the state directory */
	if (chmod(lab->statedir, 0711) == -1) {
		log_warn("%s: chmod %s", __func__, lab->statedir);
		return -1;
	}
	strfmt(dir, sizeof(dir), "%s/%s", lab->statedir, REALRES_DIR);
	if (mkdir(dir, 0711) == -1 || chmod(dir, 0711) == -1) {
		log_warn("%s: mkdir %s", __func__, dir);
		return -1;
	}
	for (int n = 0; n < t->nnodes; n++) {
		const char *user = realres_user(t->nodes[n].impl);

		if (!realres_node(t, n))
			continue;
		if ((pw = getpwnam(user)) == NULL) {
			log_warnx("node %s: no user '%s': %s is not installed (sudo make deps)",
				  t->nodes[n].name, user, topo_impl_name(t->nodes[n].impl));
			return -1;
		}
		strfmt(node, sizeof(node), "%s/%s", dir, t->nodes[n].name);
		if (mkdir(node, 0750) == -1 || chown(node, pw->pw_uid, pw->pw_gid) == -1) {
			log_warn("%s: %s", __func__, node);
			return -1;
		}
		strfmt(conf, sizeof(conf), "%s.%s.conf", t->nodes[n].name,
		       realres_label(t->nodes[n].impl));
		if (realres_inputs(t, n, node, &in) == -1) {
			log_warnx("node %s: no [dns] node to ask", t->nodes[n].name);
			return -1;
		}
		if (realres_put(node, "root.hints", t, n, &in, 1) == -1 ||
		    realres_put(node, conf, t, n, &in, 0) == -1 ||
		    realres_put(lab->rundir, conf, t, n, &in, 0) == -1)
			return -1;
	}
	return 0;
}

int lab_realres_start(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	const int impl = t->nodes[n].impl;
	char dir[PATH_MAX], conf[PATH_MAX];
	char *argv[12];
	int k = 0;

	strfmt(dir, sizeof(dir), "%s/%s/%s", lab->statedir, REALRES_DIR, t->nodes[n].name);
	strfmt(conf, sizeof(conf), "%s/%s.%s.conf", dir, t->nodes[n].name, realres_label(impl));
	argv[k++] = (char *)realres_label(impl);
	if (impl == TOPO_IMPL_UNBOUND) {
		argv[k++] = "-d"; /* in the foreground, its log on standard error */
		argv[k++] = "-c";
		argv[k++] = conf;
	} else if (impl == TOPO_IMPL_KRESD) {
		argv[k++] = "-n"; /* no interactive console */
		argv[k++] = "-c";
		argv[k++] = conf;
		argv[k++] = dir;
	} else {
		argv[k++] = "-g"; /* in the foreground, every log line on standard error */
		/* IPv4 alone, but in a dual lab: its IPv6 clients' listener
		 * (its upstream stays IPv4: the lab's servers and glue are) */
		if (t->ip == TOPO_IP_4)
			argv[k++] = "-4";
		else if (t->ip == TOPO_IP_6) /* IPv6 alone */
			argv[k++] = "-6";
		argv[k++] = "-n";
		argv[k++] = "1";
		argv[k++] = "-u";
		argv[k++] = "bind";
		argv[k++] = "-c";
		argv[k++] = conf;
	}
	argv[k] = NULL;
	return lab_start_agent_as(lab, n, realres_prog(impl), realres_label(impl), argv) == -1 ? -1
											       : 0;
}

int lab_dns_ask(struct lab *lab, int n, const struct sockaddr *to, socklen_t tolen,
		const char *name, uint16_t type, int rd)
{
	uint8_t buf[1232], qname[KNOT_DNAME_MAXLEN];
	knot_pkt_t *q = NULL;
	uint16_t id = (uint16_t)(random() & 0xFFFF);
	struct pollfd p;
	ssize_t len;
	int fd, ok = 0;

	if (netns_enter(lab->nsfd[n]) == -1)
		return 0;
	fd = socket(to->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (netns_enter_root() == -1)
		fatal("%s: back to the root namespace", __func__);
	if (fd == -1)
		return 0;
	if (knot_dname_from_str(qname, name, sizeof(qname)) == NULL ||
	    (q = knot_pkt_new(NULL, KNOT_WIRE_MIN_PKTSIZE, NULL)) == NULL ||
	    knot_pkt_put_question(q, qname, KNOT_CLASS_IN, type) != KNOT_EOK)
		goto out;
	knot_wire_set_id(q->wire, id);
	if (rd)
		knot_wire_set_rd(q->wire);
	if (sendto(fd, q->wire, q->size, 0, to, tolen) == -1)
		goto out;
	p = (struct pollfd){.fd = fd, .events = POLLIN};
	while (poll(&p, 1, REALRES_READY_WAIT_MS) == 1 &&
	       (len = recv(fd, buf, sizeof(buf), 0)) > 0) {
		if (len < KNOT_WIRE_HEADER_SIZE || knot_wire_get_id(buf) != id ||
		    !knot_wire_get_qr(buf))
			continue;
		ok = knot_wire_get_rcode(buf) == KNOT_RCODE_NOERROR &&
		     knot_wire_get_ancount(buf) > 0;
		break;
	}
out:
	knot_pkt_free(q);
	close(fd);
	return ok;
}

int lab_dns_answers(struct lab *lab, int n, struct in_addr addr, const char *name, uint16_t type,
		    int rd)
{
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(53), .sin_addr = addr};

	return lab_dns_ask(lab, n, (const struct sockaddr *)&to, sizeof(to), name, type, rd);
}

/* realres_answers: 1 if node n's resolver answers the SOA of the lab's
 * name's zone (NOERROR, an answer) within REALRES_READY_WAIT_MS, asked from
 * its own namespace: the tree walked down to the zone's server, the name
 * itself left uncached, so that its first fill is its clients' first query
 * at the start of the traffic, the phase the topology states (a fill here
 * expired at a phase of its own: unbound's and kresd's clients left a dead
 * site 3.0 s after t0 with a 2 s TTL, bind9's 1.0 s) */
static int realres_answers(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	int z = topo_name_zone(t, t->dns_name);
	const char *name = z >= 0 ? t->raw_sections[z].name : t->dns_name;
	uint16_t type = z >= 0 ? KNOT_RRTYPE_SOA : topo_v4(t) ? KNOT_RRTYPE_A : KNOT_RRTYPE_AAAA;
	struct sockaddr_in6 to6 = {.sin6_family = AF_INET6,
				   .sin6_port = htons(53),
				   .sin6_addr = topo_resolver_addr6(t, n, 1)};

	/* ip = 6: at its IPv6 address, the one it has */
	if (!topo_v4(t))
		return lab_dns_ask(lab, n, (const struct sockaddr *)&to6, sizeof(to6), name, type,
				   1);
	return lab_dns_answers(lab, n, topo_resolver_addr(t, n, 1), name, type, 1);
}

int lab_realres_ready(struct lab *lab, char *why, size_t len)
{
	for (int n = 0; n < lab->t->nnodes; n++)
		if (realres_node(lab->t, n) && !realres_answers(lab, n)) {
			if (why != NULL && len > 0)
				snprintf(why, len, "%s on %s does not answer yet",
					 topo_impl_name(lab->t->nodes[n].impl),
					 lab->t->nodes[n].name);
			return 0;
		}
	return 1;
}

int lab_realres_remove(const char *statedir)
{
	int fd = open(statedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	/* resolvers/NODE/ and, for kresd, NODE/control/ */
	rc = rmtree_at(fd, REALRES_DIR, 2);
	close(fd);
	if (rc == -1)
		log_warn("%s: %s/%s", __func__, statedir, REALRES_DIR);
	return rc;
}
