/*
 * FRR in a lab (routing = bgp): each router's and site's daemons, their
 * files, starting them and removing what they leave.
 *
 * FRR's daemons refuse to run as root, so they run as frr:frr and must
 * reach their files. Under the state directory:
 *
 *   STATEDIR/frr/              root's, 0711: traversed, not listed
 *   STATEDIR/frr/NODE.bgpd.conf root's, 0644: bgpd's configuration (and
 *                              NODE.bfdd.conf with bfd = yes)
 *   STATEDIR/frr/NODE/         frr:frr, 0750: the daemons' sockets (zebra's
 *                              zserv.api, each daemon's DAEMON.vty) and pid
 *                              files, and nothing of steerlab's
 *
 * /run/steerlab and STATEDIR are 0711 for that (lab_state_check still
 * holds: root's, writable by no one else, no symbolic link). `down`
 * removes the per-node directories by what is in them, never following a
 * link (unlinkat), then the configurations and frr/. The configurations
 * are also kept in the run directory (NODE.bgpd.conf).
 *
 * The daemons run in the foreground, forked by the supervisor like the
 * agents (lab_start_agent_as), their log (--log stdout) in
 * RUNDIR/NODE.DAEMON.log; agents.tsv records them as zebra, bgpd, bfdd, the
 * programs of FRR_DIR (lab_agent_path).
 */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <grp.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "rmtree.h"
#include "strfmt.h"
#include "subproc.h"
#include "timeutil.h"

/* frr_write_conf: daemon d's configuration of node n into dir/NAME, new. */
static int frr_write_conf(const struct lab *lab, const char *dir, int n, enum frrconf_daemon d)
{
	char file[TOPO_NAME_MAX + 16];
	FILE *fp;
	int rc;

	strfmt(file, sizeof(file), "%s.%s.conf", lab->t->nodes[n].name,
	       d == FRRCONF_BGPD ? "bgpd" : "bfdd");
	if ((fp = lab_fopen_write(dir, file)) == NULL)
		return -1;
	rc = frrconf_write(lab->t, n, d, fp, NULL);
	if (fclose(fp) == EOF || rc == -1) {
		log_warn("%s: %s/%s", __func__, dir, file);
		return -1;
	}
	return 0;
}

int lab_frr_prepare(struct lab *lab)
{
	const struct topology *t = lab->t;
	char dir[PATH_MAX], node[PATH_MAX];
	struct passwd *pw;
	struct group *gr;

	if (t->routing != TOPO_ROUTING_BGP)
		return 0;
	if ((pw = getpwnam(FRR_USER)) == NULL || (gr = getgrnam(FRR_USER)) == NULL) {
		log_warnx("no user or group '%s': FRR is not installed (sudo make deps)", FRR_USER);
		return -1;
	}
	/* FRR's daemons, as frr, traverse the state directory to their own */
	if (chmod(lab->statedir, 0711) == -1) {
		log_warn("%s: chmod %s", __func__, lab->statedir);
		return -1;
	}
	strfmt(dir, sizeof(dir), "%s/frr", lab->statedir);
	if (mkdir(dir, 0711) == -1 || chmod(dir, 0711) == -1) {
		log_warn("%s: mkdir %s", __func__, dir);
		return -1;
	}
	for (int n = 0; n < t->nnodes; n++) {
		if (!frrconf_node(t, n))
			continue;
		if (frr_write_conf(lab, dir, n, FRRCONF_BGPD) == -1 ||
		    frr_write_conf(lab, lab->rundir, n, FRRCONF_BGPD) == -1 ||
		    (frrconf_bfd(t, n) &&
		     (frr_write_conf(lab, dir, n, FRRCONF_BFDD) == -1 ||
		      frr_write_conf(lab, lab->rundir, n, FRRCONF_BFDD) == -1)))
			return -1;
		strfmt(node, sizeof(node), "%s/%s", dir, t->nodes[n].name);
		if (mkdir(node, 0750) == -1 || chown(node, pw->pw_uid, gr->gr_gid) == -1) {
			log_warn("%s: %s", __func__, node);
			return -1;
		}
	}
	return 0;
}

/* frr_start: one FRR daemon of node n, in the foreground, as frr:frr, with
 * its files in its node's directory. */
static int frr_start(struct lab *lab, int n, const char *label)
{
	const char *name = lab->t->nodes[n].name;
	char dir[PATH_MAX], zserv[PATH_MAX], pid[PATH_MAX], conf[PATH_MAX], ctl[PATH_MAX];
	char *argv[24];
	int k = 0;

	strfmt(dir, sizeof(dir), "%s/frr/%s", lab->statedir, name);
	strfmt(zserv, sizeof(zserv), "%s/zserv.api", dir);
	strfmt(pid, sizeof(pid), "%s/%s.pid", dir, label);
	if (strcmp(label, "zebra") == 0)
		strfmt(conf, sizeof(conf), "/dev/null");
	else
		strfmt(conf, sizeof(conf), "%s/frr/%s.%s.conf", lab->statedir, name, label);
	argv[k++] = (char *)label;
	argv[k++] = "-z";
	argv[k++] = zserv;
	argv[k++] = "--vty_socket";
	argv[k++] = dir;
	argv[k++] = "-i";
	argv[k++] = pid;
	argv[k++] = "-u";
	argv[k++] = FRR_USER;
	argv[k++] = "-g";
	argv[k++] = FRR_USER;
	argv[k++] = "--log";
	argv[k++] = "stdout";
	argv[k++] = "-P"; /* no vty on TCP: vtysh reaches the vty sockets in dir */
	argv[k++] = "0";
	argv[k++] = "-f";
	argv[k++] = conf;
	if (strcmp(label, "bfdd") == 0) {
		strfmt(ctl, sizeof(ctl), "%s/bfdd.sock", dir);
		argv[k++] = "--bfdctl";
		argv[k++] = ctl;
	}
	argv[k] = NULL;
	return lab_start_agent_rt(lab, n, lab_frr_prog(label), label, argv,
				  strcmp(label, "bfdd") == 0 ? LAB_BFDD_PRIO : 0) == -1
		   ? -1
		   : 0;
}

int lab_frr_start_zebra(struct lab *lab, int n)
{
	char zserv[PATH_MAX];

	if (!frrconf_node(lab->t, n))
		return 0;
	/* a zebra killed (a crash, then a recover) leaves its zserv.api: gone
	 * before the new one starts, lab_frr_wait_zebra waits for the new
	 * zebra's socket, not the dead one's (bgpd that found the dead one
	 * retries zebra only after FRR's back-off of seconds, and announces
	 * nothing until then: its log says zclient_send_message() failed) */
	strfmt(zserv, sizeof(zserv), "%s/frr/%s/zserv.api", lab->statedir, lab->t->nodes[n].name);
	if (unlink(zserv) == -1 && errno != ENOENT) {
		log_warn("zebra of node %s: %s", lab->t->nodes[n].name, zserv);
		return -1;
	}
	return frr_start(lab, n, "zebra");
}

/* how long a zebra may take to listen, counted from the last one that
 * did (or from the start of the wait): with every node's zebra starting
 * at once on two CPUs, the last is a few seconds behind the first */
#define FRR_ZSERV_WAIT_NS (5 * NSEC_PER_SEC)

int lab_frr_wait_zebra(struct lab *lab, int from, int to)
{
	static char listening[TOPO_MAX_NODES];
	int64_t deadline = now_mono_ns() + FRR_ZSERV_WAIT_NS;
	char path[PATH_MAX];
	struct stat st;

	memset(listening, 0, sizeof(listening));
	for (;;) {
		int late = -1;

		for (int n = from; n < to; n++) {
			if (!frrconf_node(lab->t, n) || listening[n])
				continue;
			strfmt(path, sizeof(path), "%s/frr/%s/zserv.api", lab->statedir,
			       lab->t->nodes[n].name);
			if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode)) {
				listening[n] = 1;
				deadline = now_mono_ns() + FRR_ZSERV_WAIT_NS;
			} else if (late < 0) {
				late = n;
			}
		}
		if (late < 0)
			return 0;
		if (now_mono_ns() >= deadline) {
			strfmt(path, sizeof(path), "%s/frr/%s/zserv.api", lab->statedir,
			       lab->t->nodes[late].name);
			log_warnx("zebra of node %s: no %s after %.0f s (see %s/%s.zebra.log)",
				  lab->t->nodes[late].name, path,
				  (double)FRR_ZSERV_WAIT_NS / NSEC_PER_SEC, lab->rundir,
				  lab->t->nodes[late].name);
			return -1;
		}
		if (lab_watch(lab, 5 * 1000000LL) > 0 && lab->unexpected)
			return -1; /* a zebra ended: said */
		if (lab->interrupt && *lab->interrupt)
			return -1;
	}
}

int lab_frr_start_bgp(struct lab *lab, int n)
{
	if (!frrconf_node(lab->t, n))
		return 0;
	/* bfdd before bgpd: bgpd registers its BFD sessions with it through
	 * zebra */
	if (frrconf_bfd(lab->t, n) && frr_start(lab, n, "bfdd") == -1)
		return -1;
	return frr_start(lab, n, "bgpd");
}

int lab_start_frr(struct lab *lab, int n)
{
	/* zebra first, listening (bfdd that finds no zebra there may never
	 * register, and its BFD sessions never come up), then bfdd and bgpd */
	if (lab_frr_start_zebra(lab, n) == -1 || lab_frr_wait_zebra(lab, n, n + 1) == -1)
		return -1;
	return lab_frr_start_bgp(lab, n);
}

int lab_frr_bfd_up(const struct lab *lab, int n, char *why, size_t len)
{
	static struct frrconf_neighbor nb[FRRCONF_MAX_NEIGHBORS];
	char dir[PATH_MAX], *text = NULL;
	char *argv[] = {FRR_VTYSH, "--vty_socket", dir, "-c", "show bfd peers json", NULL};
	json_error_t jerr;
	json_t *peers = NULL;
	int nn, rc = 1, status;

	if (!frrconf_bfd(lab->t, n))
		return 1;
	strfmt(dir, sizeof(dir), "%s/frr/%s", lab->statedir, lab->t->nodes[n].name);
	status = subproc_capture(argv, -1, &text, NULL);
	if (status != 0 || (peers = json_loads(text, 0, &jerr)) == NULL || !json_is_array(peers)) {
		strfmt(why, len, "vtysh -c 'show bfd peers json' %s: %.200s",
		       status == -1  ? strerror(errno)
		       : status != 0 ? "failed"
				     : "said no list",
		       text ? text : "");
		free(text);
		json_decref(peers);
		return -1;
	}
	free(text);
	nn = frrconf_neighbors(lab->t, n, nb, FRRCONF_MAX_NEIGHBORS);
	for (int i = 0; i < nn && rc == 1; i++) {
		const char *state = "absent";
		char addr[INET_ADDRSTRLEN];
		size_t k;
		json_t *p;

		if (!frrconf_session_bfd(lab->t, n, &nb[i]))
			continue;
		inet_ntop(AF_INET, &nb[i].addr, addr, sizeof(addr));
		json_array_foreach(peers, k, p)
		{
			const char *peer = json_string_value(json_object_get(p, "peer"));

			if (peer && strcmp(peer, addr) == 0 &&
			    json_is_string(json_object_get(p, "status")))
				state = json_string_value(json_object_get(p, "status"));
		}
		if (strcmp(state, "up") != 0) {
			strfmt(why, len, "BFD session of %s with %s (%s): %s",
			       lab->t->nodes[n].name, lab->t->nodes[nb[i].node].name, addr, state);
			rc = 0;
		}
	}
	json_decref(peers);
	return rc;
}

int lab_frr_remove(const char *statedir)
{
	char dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int rc = 0;
	DIR *d;

	strfmt(dir, sizeof(dir), "%s/frr", statedir);
	if ((d = rmtree_opendir(AT_FDCWD, dir)) == NULL) {
		if (errno == ENOENT)
			return 0;
		log_warn("%s: %s", __func__, dir);
		return -1;
	}
	/* only nodes' directories, each holding files only */
	while ((de = rmtree_next(d, &st)) != NULL) {
		if (S_ISDIR(st.st_mode) && topo_check_name(de->d_name) == 0) {
			if (rmtree_at(dirfd(d), de->d_name, 0) == -1) {
				log_warn("%s: %s/%s", __func__, dir, de->d_name);
				rc = -1;
			}
		} else if (unlinkat(dirfd(d), de->d_name, 0) == -1 && errno != ENOENT) {
			log_warn("%s: %s/%s", __func__, dir, de->d_name);
			rc = -1;
		}
	}
	closedir(d);
	if (rmdir(dir) == -1 && errno != ENOENT) {
		log_warn("%s: rmdir %s", __func__, dir);
		rc = -1;
	}
	return rc;
}
