/*
 * One lab over several hosts (lab.h, docs/topology.md, "Hosts"): each
 * simulated host a namespace LAB-NAME, recorded in the state's namespaces
 * file before it is made, as the nodes' are; the underlay between them
 * (the first host's namespace holds a bridge `ul` with its address, each
 * other host a veth `ul` to a port `ul-NAME` of it); a link between two
 * hosts a VXLAN device at each end, made in the end's host namespace (its
 * tunnel's socket stays there, on the underlay) and placed in the node's;
 * each host's capture directory STATEDIR/hosts/NAME, where the collectors
 * of its routers write, fetched into the run directory when the lab is
 * taken down. Deleting the namespaces deletes the underlay and the
 * tunnels with them: `down` has nothing more to remove.
 */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "log.h"
#include "strfmt.h"

#define LAB_HOSTS_DIR "hosts"
#define LAB_UNDERLAY_PLEN 15 /* every host's address is in 198.18.0.0/15 */

int lab_host_nsname(char *buf, size_t len, const struct topology *t, int h)
{
	return strfmt(buf, len, "%s-%s", t->name, t->hosts[h].name);
}

int lab_host_capdir(const struct lab *lab, int node, char *buf, size_t len)
{
	const struct topology *t = lab->t;

	if (t->nhosts == 0)
		return strfmt(buf, len, "%s", lab->rundir);
	return strfmt(buf, len, "%s/" LAB_HOSTS_DIR "/%s", lab->statedir,
		      t->hosts[t->nodes[node].host].name);
}

/* lab_hosts_dirs: STATEDIR/hosts and a capture directory per host */
static int lab_hosts_dirs(struct lab *lab)
{
	const struct topology *t = lab->t;
	char path[PATH_MAX];

	if (strfmt(path, sizeof(path), "%s/" LAB_HOSTS_DIR, lab->statedir) == -1 ||
	    mkdir(path, 0700) == -1) {
		log_warn("%s: mkdir %s", __func__, path);
		return -1;
	}
	for (int h = 0; h < t->nhosts; h++) {
		if (strfmt(path, sizeof(path), "%s/" LAB_HOSTS_DIR "/%s", lab->statedir,
			   t->hosts[h].name) == -1 ||
		    mkdir(path, 0700) == -1) {
			log_warn("%s: mkdir %s", __func__, path);
			return -1;
		}
	}
	return 0;
}

/* lab_underlay_end: ifname in host h's namespace up, with the host's
 * underlay address (addr) or none; a bridge port of master (0: none) */
static int lab_underlay_end(struct lab *lab, int h, const char *ifname, int addr,
			    const char *master)
{
	struct kern *k = kern_open(lab->hostfd[h]);
	int ifindex, bridge, rc = -1;

	if (k == NULL)
		return -1;
	if ((ifindex = kern_ifindex(k, ifname)) == -1)
		goto out;
	if (master &&
	    ((bridge = kern_ifindex(k, master)) == -1 || kern_enslave(k, bridge, ifindex) == -1))
		goto out;
	if (kern_link_up(k, ifindex) == -1 ||
	    (addr && kern_addr_add(k, ifindex, lab->t->hosts[h].address, LAB_UNDERLAY_PLEN) == -1))
		goto out;
	rc = 0;
out:
	kern_close(k);
	return rc;
}

int lab_hosts_up(struct lab *lab, struct kern *root)
{
	const struct topology *t = lab->t;
	char ns[64], port[16];
	struct kern *k;
	int rc;

	if (t->nhosts == 0)
		return 0;
	for (int h = 0; h < t->nhosts; h++) {
		if (lab_host_nsname(ns, sizeof(ns), t, h) == -1 ||
		    lab_append(lab->statedir, "namespaces", ns) == -1)
			return -1;
		if (netns_create(ns) == -1) {
			log_warn("%s: namespace %s", __func__, ns);
			return -1;
		}
		if ((lab->hostfd[h] = netns_open(ns)) == -1) {
			log_warn("%s: open namespace %s", __func__, ns);
			return -1;
		}
	}
	if (lab_hosts_dirs(lab) == -1 || (k = kern_open(lab->hostfd[0])) == NULL)
		return -1;
	rc = kern_bridge(k, "ul");
	kern_close(k);
	if (rc == -1 || lab_underlay_end(lab, 0, "ul", 1, NULL) == -1)
		return -1;
	for (int h = 1; h < t->nhosts; h++) {
		if (strfmt(port, sizeof(port), "ul-%s", t->hosts[h].name) == -1 ||
		    kern_veth(root, port, lab->hostfd[0], "ul", lab->hostfd[h]) == -1 ||
		    lab_underlay_end(lab, 0, port, 0, "ul") == -1 ||
		    lab_underlay_end(lab, h, "ul", 1, NULL) == -1)
			return -1;
	}
	return 0;
}

/* lab_hosts_vxlan_end: node's end of the tunnel vni, made in its host's
 * namespace toward the host of peer */
static int lab_hosts_vxlan_end(struct lab *lab, int node, const char *ifname, int peer,
			       unsigned vni)
{
	const struct topology *t = lab->t;
	int h = t->nodes[node].host, o = t->nodes[peer].host, rc;
	struct kern *k = kern_open(lab->hostfd[h]);

	if (k == NULL)
		return -1;
	rc = kern_vxlan(k, ifname, lab->nsfd[node], vni, t->hosts[h].address, t->hosts[o].address,
			TOPO_VXLAN_MTU);
	kern_close(k);
	return rc;
}

int lab_hosts_link(struct lab *lab, unsigned vni, int a, const char *a_ifname, int b,
		   const char *b_ifname)
{
	return lab_hosts_vxlan_end(lab, a, a_ifname, b, vni) == -1 ||
		       lab_hosts_vxlan_end(lab, b, b_ifname, a, vni) == -1
		   ? -1
		   : 0;
}

/* lab_hosts_copy: dir/name into rundir/name, new; the copy's size checked
 * against the original's, which is then removed. Its size, or -1 (said). */
static long long lab_hosts_copy(int dirfd, const char *dir, const char *name, int runfd,
				const char *rundir)
{
	struct stat src, dst;
	char buf[65536];
	int in, out = -1;
	ssize_t n = 0;

	if ((in = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    fstat(in, &src) == -1 || !S_ISREG(src.st_mode)) {
		log_warnx("%s/%s: not fetched: %s", dir, name,
			  in == -1 ? strerror(errno) : "not a regular file");
		goto fail;
	}
	out = openat(runfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (out == -1) {
		log_warn("%s/%s: not fetched into %s", dir, name, rundir);
		goto fail;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n == -1 || fsync(out) == -1 || fstat(out, &dst) == -1) {
		log_warn("%s/%s: copying into %s", dir, name, rundir);
		goto fail;
	}
	if (dst.st_size != src.st_size) {
		log_warnx("%s/%s: its copy in %s has %lld bytes, not %lld: kept", dir, name, rundir,
			  (long long)dst.st_size, (long long)src.st_size);
		goto fail;
	}
	close(in);
	close(out);
	if (unlinkat(dirfd, name, 0) == -1)
		log_warn("%s: unlink %s/%s", __func__, dir, name);
	return (long long)src.st_size;
fail:
	if (in != -1)
		close(in);
	if (out != -1)
		close(out);
	return -1;
}

/* lab_hosts_fetch_one: every file of host directory dir into rundir; how
 * many, or -1 if one could not be (the rest are fetched) */
static int lab_hosts_fetch_one(const char *dir, int runfd, const char *rundir, long long *bytes)
{
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), n = 0, rc = 0;
	struct dirent *e;
	DIR *d;

	if (dirfd == -1 || (d = fdopendir(dirfd)) == NULL) {
		log_warn("%s: %s", __func__, dir);
		if (dirfd != -1)
			close(dirfd);
		return -1;
	}
	while ((e = readdir(d)) != NULL) {
		long long size;

		if (e->d_name[0] == '.')
			continue;
		if ((size = lab_hosts_copy(dirfd, dir, e->d_name, runfd, rundir)) == -1) {
			rc = -1;
			continue;
		}
		*bytes += size;
		n++;
	}
	closedir(d);
	if (rc == 0 && rmdir(dir) == -1)
		log_warn("%s: rmdir %s", __func__, dir);
	return rc == -1 ? -1 : n;
}

int lab_hosts_fetch(const char *statedir, const char *rundir, int *files, int *hosts)
{
	char path[PATH_MAX], dir[PATH_MAX];
	long long bytes = 0;
	int runfd, rc = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;

	*files = *hosts = 0;
	if (strfmt(path, sizeof(path), "%s/" LAB_HOSTS_DIR, statedir) == -1)
		return -1;
	if (lstat(path, &st) == -1 && errno == ENOENT)
		return 0; /* a lab on one host */
	if ((d = opendir(path)) == NULL) {
		log_warn("%s: %s", __func__, path);
		return -1;
	}
	runfd = open(rundir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (runfd == -1)
		log_warn("%s: %s: the hosts' captures stay in %s", __func__, rundir, path);
	while (runfd != -1 && (e = readdir(d)) != NULL) {
		int n;

		if (e->d_name[0] == '.')
			continue;
		if (topo_check_name(e->d_name) == -1 ||
		    strfmt(dir, sizeof(dir), "%s/%s", path, e->d_name) == -1) {
			log_warnx("%s/%s: refused: not a host's directory", path, e->d_name);
			rc = -1;
			continue;
		}
		if ((n = lab_hosts_fetch_one(dir, runfd, rundir, &bytes)) == -1)
			rc = -1;
		else
			*files += n;
		(*hosts)++;
	}
	closedir(d);
	if (runfd == -1)
		return -1;
	close(runfd);
	if (rc == 0 && rmdir(path) == -1)
		log_warn("%s: rmdir %s", __func__, path);
	return rc;
}
