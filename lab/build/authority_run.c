/*
 * Real authoritative servers in a lab (impl = pdns on a [dns] node,
 * docs/authorities.md): their files, starting them, asking them whether
 * they answer, and removing what they leave.
 *
 * PowerDNS starts as root (port 53) and drops to its user, pdns, which
 * must read its files. Under the state directory:
 *
 *   STATEDIR/authorities/        root's, 0711: traversed, not listed
 *   STATEDIR/authorities/NODE/   pdns's, 0750: pdns.conf, named.conf, the
 *                                zone files (root's, 0644) and its control
 *                                socket
 *
 * The configuration is also kept in the run directory, NODE.pdns/ (the
 * same files, naming that directory). `down` removes them by what is in
 * them, never following a link.
 *
 * pdns_server runs in the foreground (daemon=no, guardian=no), forked by
 * the supervisor like the agents (lab_start_agent_as), its log (standard
 * error) in RUNDIR/NODE.pdns.log; agents.tsv records it as pdns.
 */
#include "lab.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <sys/wait.h>
#include <libknot/libknot.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "authority.h"
#include "kernel.h"
#include "log.h"
#include "rmtree.h"
#include "strfmt.h"
#include "timeutil.h"

const char *lab_authority_prog(const char *label)
{
	if (strcmp(label, AUTHORITY_PDNS_LABEL) == 0)
		return AUTHORITY_PDNS_PROG;
	return strcmp(label, AUTHORITY_GDNSD_LABEL) == 0 ? AUTHORITY_GDNSD_PROG : NULL;
}

/* authority_label, authority_user: node n's agent label and user */
static const char *authority_label(const struct topology *t, int n)
{
	return t->nodes[n].dns_impl == TOPO_DNS_GDNSD ? AUTHORITY_GDNSD_LABEL
						      : AUTHORITY_PDNS_LABEL;
}

static const char *authority_user(const struct topology *t, int n)
{
	return t->nodes[n].dns_impl == TOPO_DNS_GDNSD ? AUTHORITY_GDNSD_USER : AUTHORITY_PDNS_USER;
}

int lab_authority_prepare(struct lab *lab)
{
	const struct topology *t = lab->t;
	char dir[PATH_MAX], node[PATH_MAX], copy[PATH_MAX];
	struct passwd *pw;

	if (!authority_any(t))
		return 0;
	/* each, as its user, traverses the state directory */
	if (chmod(lab->statedir, 0711) == -1) {
		log_warn("%s: chmod %s", __func__, lab->statedir);
		return -1;
	}
	strfmt(dir, sizeof(dir), "%s/%s", lab->statedir, AUTHORITY_DIR);
	if (mkdir(dir, 0711) == -1 || chmod(dir, 0711) == -1) {
		log_warn("%s: mkdir %s", __func__, dir);
		return -1;
	}
	for (int n = 0; n < t->nnodes; n++) {
		if (!authority_node(t, n))
			continue;
		if ((pw = getpwnam(authority_user(t, n))) == NULL) {
			log_warnx("node %s: no user '%s': %s is not installed (sudo make deps)",
				  t->nodes[n].name, authority_user(t, n), authority_label(t, n));
			return -1;
		}
		strfmt(node, sizeof(node), "%s/%s", dir, t->nodes[n].name);
		strfmt(copy, sizeof(copy), "%s/%s.%s", lab->rundir, t->nodes[n].name,
		       authority_label(t, n));
		if (mkdir(node, 0750) == -1 || chown(node, pw->pw_uid, pw->pw_gid) == -1) {
			log_warn("%s: %s", __func__, node);
			return -1;
		}
		if (mkdir(copy, 0755) == -1) {
			log_warn("%s: %s", __func__, copy);
			return -1;
		}
		/* checked when the topology was loaded */
		if (authority_write(t, n, node, stderr) == -1 ||
		    authority_write(t, n, copy, stderr) == -1)
			return -1;
	}
	return 0;
}

/* authority_gdnsd_spawn: node n's gdnsd started (replace: `-R`, taking
 * the running one's sockets over): its index in lab->agents, or -1 */
static int authority_gdnsd_spawn(struct lab *lab, int n, int replace)
{
	char dir[PATH_MAX];
	char *gargv[] = {"gdnsd", "-c", dir, replace ? "-R" : "start", replace ? "start" : NULL,
			 NULL};
	struct passwd *pw;

	strfmt(dir, sizeof(dir), "%s/%s/%s", lab->statedir, AUTHORITY_DIR, lab->t->nodes[n].name);
	/* gdnsd drops no privilege itself: it runs as gdnsd, and its node's
	 * namespace lets anyone bind port 53 (the namespace is the lab's,
	 * nothing else listens there) */
	if ((pw = getpwnam(AUTHORITY_GDNSD_USER)) == NULL) {
		log_warnx("node %s: no user '%s' (sudo make deps)", lab->t->nodes[n].name,
			  AUTHORITY_GDNSD_USER);
		return -1;
	}
	if (kern_sysctl(lab->nsfd[n], "net/ipv4/ip_unprivileged_port_start", "53", 0) == -1)
		return -1;
	return lab_start_agent_user(lab, n, AUTHORITY_GDNSD_PROG, AUTHORITY_GDNSD_LABEL, gargv,
				    pw->pw_uid, pw->pw_gid);
}

int lab_authority_start(struct lab *lab, int n)
{
	char dir[PATH_MAX], arg[PATH_MAX + 16];
	char *argv[] = {"pdns_server", arg, NULL};

	strfmt(dir, sizeof(dir), "%s/%s/%s", lab->statedir, AUTHORITY_DIR, lab->t->nodes[n].name);
	/* an anycast name server on BGP: its prober keeps the address on lo
	 * only while the server answers, so the server may start while it is
	 * not there; it binds it all the same (docs/topology.md, "Anycast name
	 * servers") */
	if (lab->t->nodes[n].anycast.s_addr != 0 && lab->t->routing == TOPO_ROUTING_BGP &&
	    kern_sysctl(lab->nsfd[n], "net/ipv4/ip_nonlocal_bind", "1", 0) == -1)
		return -1;
	if (lab->t->nodes[n].dns_impl == TOPO_DNS_GDNSD)
		return authority_gdnsd_spawn(lab, n, 0) == -1 ? -1 : 0;
	strfmt(arg, sizeof(arg), "--config-dir=%s", dir);
	return lab_start_agent_as(lab, n, AUTHORITY_PDNS_PROG, AUTHORITY_PDNS_LABEL, argv) == -1
		   ? -1
		   : 0;
}

/* how long a gdnsd replacement may take to hand over */
#define AUTHORITY_REPLACE_NS (10 * NSEC_PER_SEC)

int lab_authority_replace(struct lab *lab, int n, char *said, size_t len)
{
	const char *node = lab->t->nodes[n].name;
	int old = lab_agent_find(lab, n, AUTHORITY_GDNSD_LABEL), new;
	int64_t until = now_mono_ns() + AUTHORITY_REPLACE_NS;

	if (old < 0) {
		strfmt(said, len, "node %s: its gdnsd is not running", node);
		return -1;
	}
	lab->agents[old].replaced = 1;
	if ((new = authority_gdnsd_spawn(lab, n, 1)) < 0) {
		lab->agents[old].replaced = 0;
		strfmt(said, len, "node %s: the replacing gdnsd did not start", node);
		return -1;
	}
	/* the old instance exits once the new one has its sockets */
	while (!lab->agents[old].reaped && !lab->agents[new].reaped && now_mono_ns() < until)
		if (lab_watch(lab, 20 * NSEC_PER_MSEC) == -1 && errno != EINTR)
			break;
	if (lab->agents[old].reaped && !lab->agents[new].reaped)
		return 0;
	strfmt(said, len, "node %s: gdnsd -R did not take over from pid %d within %.0f s (%s)",
	       node, (int)lab->agents[old].pid, (double)AUTHORITY_REPLACE_NS / NSEC_PER_SEC,
	       lab->agents[new].reaped ? "the new instance ended: NODE.gdnsd.log"
				       : "the old one still runs");
	return -1;
}

/* authority_answers: 1 if node n's server answers every [name] in the
 * zones it serves (A, and in a dual lab AAAA), or without any the SOA of
 * its first zone: each name asked once so that its checks have begun
 * before the traffic (ifportup() starts checking an address when an answer
 * first needs it, the IPv6 ones when an AAAA does) */
static int authority_answers(struct lab *lab, int n)
{
	const struct topology *t = lab->t;
	struct in_addr addr = t->links[t->nodes[n].link].node_addr;
	struct sockaddr_in6 to6 = {.sin6_family = AF_INET6,
				   .sin6_port = htons(53),
				   .sin6_addr = t->links[t->nodes[n].link].node_addr6};
	int asked = 0;

	/* ip = 6: at its IPv6 address, its names' AAAA */
	if (!topo_v4(t)) {
		for (int i = 0; i < t->nraw_sections; i++) {
			const struct topo_raw_section *r = &t->raw_sections[i];
			int z;

			if (strcmp(r->kind, "name") != 0 || (z = topo_name_zone(t, r->name)) < 0 ||
			    !(t->nodes[n].zone_set >> z & 1))
				continue;
			if (!lab_dns_ask(lab, n, (const struct sockaddr *)&to6, sizeof(to6),
					 r->name, KNOT_RRTYPE_AAAA, 0))
				return 0;
		}
		return 1;
	}

	for (int i = 0; i < t->nraw_sections; i++) {
		const struct topo_raw_section *r = &t->raw_sections[i];
		int z;

		if (strcmp(r->kind, "name") != 0 || (z = topo_name_zone(t, r->name)) < 0 ||
		    !(t->nodes[n].zone_set >> z & 1))
			continue;
		if (!lab_dns_answers(lab, n, addr, r->name, KNOT_RRTYPE_A, 0) ||
		    (topo_v6(t) && !lab_dns_answers(lab, n, addr, r->name, KNOT_RRTYPE_AAAA, 0)))
			return 0;
		asked = 1;
	}
	for (int i = 0; i < t->nraw_sections && !asked; i++)
		if (t->nodes[n].zone_set >> i & 1)
			return lab_dns_answers(lab, n, addr, t->raw_sections[i].name,
					       KNOT_RRTYPE_SOA, 0);
	return 1;
}

/* authority_gdnsd_up: 1 if every one of node n's gdnsd monitors says UP
 * (`gdnsdctl states`): gdnsd starts them DOWN when its first round fails,
 * and the traffic must find the sites as the topology has them */
static int authority_gdnsd_up(struct lab *lab, int n)
{
	char dir[PATH_MAX], buf[8192];
	size_t len = 0;
	int pipefd[2], up = 1, status;
	json_t *o, *v;
	const char *key;
	ssize_t r;
	pid_t pid;

	strfmt(dir, sizeof(dir), "%s/%s/%s", lab->statedir, AUTHORITY_DIR, lab->t->nodes[n].name);
	if (pipe(pipefd) == -1)
		return 0;
	if ((pid = fork()) == -1) {
		close(pipefd[0]);
		close(pipefd[1]);
		return 0;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(pipefd[1], STDOUT_FILENO);
		if (null >= 0)
			dup2(null, STDERR_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(AUTHORITY_GDNSDCTL_PROG, "gdnsdctl", "-c", dir, "states", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while ((r = read(pipefd[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)r;
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	buf[len] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    (o = json_loads(buf, 0, NULL)) == NULL)
		return 0;
	json_object_foreach(o, key, v)
	{
		const char *state = json_string_value(json_object_get(v, "state"));
		size_t k = strlen(key);

		/* the monitors of the lab's service type, not the plugins' own */
		if (k > 9 && strcmp(key + k - 9, "/steerlab") == 0 &&
		    (state == NULL || strcmp(state, "UP") != 0))
			up = 0;
	}
	json_decref(o);
	return up;
}

int lab_authority_ready(struct lab *lab, char *why, size_t len)
{
	for (int n = 0; n < lab->t->nnodes; n++) {
		const struct topo_node *d = &lab->t->nodes[n];
		const char *not_yet = NULL;

		if (!authority_node(lab->t, n))
			continue;
		if (!authority_answers(lab, n))
			not_yet = "does not answer yet";
		else if (d->dns_impl == TOPO_DNS_GDNSD && !authority_gdnsd_up(lab, n))
			not_yet = "has a site's monitor not UP yet (gdnsdctl states)";
		if (not_yet != NULL) {
			if (why != NULL && len > 0)
				snprintf(why, len, "%s on %s %s", topo_dns_impl_name(d->dns_impl),
					 d->name, not_yet);
			return 0;
		}
	}
	return 1;
}

int lab_authority_remove(const char *statedir)
{
	int fd = open(statedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	/* authorities/NODE/ and gdnsd's NODE/zones/, run/, state/ */
	rc = rmtree_at(fd, AUTHORITY_DIR, 2);
	close(fd);
	if (rc == -1)
		log_warn("%s: %s/%s", __func__, statedir, AUTHORITY_DIR);
	return rc;
}
