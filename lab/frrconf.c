/* FRR's configuration of a lab's routers; see frrconf.h. */
#include "frrconf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int frrconf_write(const struct topology *t, int router, FILE *out)
{
	const struct topo_node *r = &t->nodes[router];
	char id[INET_ADDRSTRLEN], peer[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &r->router_id, id, sizeof(id));
	fprintf(out,
		"! bgpd of router %s, lab %s: written from %s by steerlab\n"
		"! (docs/topology.md, \"Several routers\")\n"
		"frr defaults datacenter\n"
		"hostname %s\n"
		"!\n"
		"router bgp %u\n"
		" bgp router-id %s\n"
		" no bgp ebgp-requires-policy\n"
		" no bgp default ipv4-unicast\n",
		r->name, t->name, t->path, r->name, r->asn, id);
	for (int j = 0; j < t->nrlinks; j++) {
		const struct topo_rlink *rl = &t->rlinks[j];
		struct in_addr addr;
		int other;

		if (rl->a != router && rl->b != router)
			continue;
		other = rl->a == router ? rl->b : rl->a;
		topo_rlink_end(t, j, router, NULL, &addr, NULL);
		inet_ntop(AF_INET, &addr, peer, sizeof(peer));
		fprintf(out, " neighbor %s remote-as %u\n neighbor %s description %s (link %d)\n",
			peer, t->nodes[other].asn, peer, t->nodes[other].name, j);
	}
	fprintf(out, " !\n address-family ipv4 unicast\n  redistribute connected\n");
	for (int j = 0; j < t->nrlinks; j++) {
		struct in_addr addr;

		if (t->rlinks[j].a != router && t->rlinks[j].b != router)
			continue;
		topo_rlink_end(t, j, router, NULL, &addr, NULL);
		inet_ntop(AF_INET, &addr, peer, sizeof(peer));
		fprintf(out, "  neighbor %s activate\n", peer);
	}
	fprintf(out, " exit-address-family\nexit\n!\n");
	return ferror(out) ? -1 : 0;
}

int frrconf_check(const char *bgpd, const char *path, char *why, size_t len)
{
	char buf[4096];
	size_t used = 0;
	ssize_t n;
	int fds[2], status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		snprintf(why, len, "fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null == -1 || dup2(null, 0) == -1 || dup2(fds[1], 1) == -1 ||
		    dup2(fds[1], 2) == -1)
			_exit(126);
		execl(bgpd, bgpd, "-C", "-f", path, (char *)NULL);
		dprintf(2, "cannot run %s: %s\n", bgpd, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + used, sizeof(buf) - 1 - used)) > 0 ||
	       (n == -1 && errno == EINTR))
		if (n > 0)
			used += (size_t)n;
	buf[used] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (used == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	/* its first complaint, on one line: the one naming the config line if
	 * there is one */
	{
		char *line = strstr(buf, "Config Failed on config line");
		char *end;

		if (line == NULL)
			line = buf[0] ? buf : NULL;
		if (line && (end = strchr(line, '\n')) != NULL)
			*end = '\0';
		if (line)
			snprintf(why, len, "%s", line);
		else
			snprintf(why, len, "bgpd -C exited with status %d",
				 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	}
	return -1;
}
