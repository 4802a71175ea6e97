/*
 * FRR in a lab (lab/build/frr.c), in the sandbox of tests/unit/test_sandbox.h:
 * the files a routing = bgp lab prepares under its state directory (each
 * node's configurations, also kept in the run directory; a directory of
 * frr's for each node's sockets), the real zebra, bfdd and bgpd of a router
 * started as the supervisor's agents with their command lines, zebra first
 * and listening, and what `down` removes after them: the state's frr/ by
 * what is in it, never following a link, and FRR's own /var/tmp/frr/
 * DAEMON.PID of a daemon that has ended. The daemons drop to the frr
 * user: those tests need root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <grp.h>
#include <pwd.h>
#include <cmocka.h>

#include "event.h"
#include "lab/build/frrconf.h"
#include "lab/build/lab.h"
#include "lab/topology/topology.h"
#include "test_sandbox.h"
#include "test_topology_util.h"

#define LDATA "tests/unit/data/lab/"
#define BIN "/run/t20/bin"
#define SDIR "/run/steerlab/t20bgp" /* bgp.ini's lab */

static struct topology *topo;
static struct lab lab;
static char run[64];

/* lab_of: a lab of bgp.ini (with sets), its state directory made as up
 * makes it, every node's namespace the test's own */
static void lab_of(char *const sets[], int nsets)
{
	static int seq;

	topo = new_topology();
	load_ok(topo, LDATA "bgp.ini", sets, nsets);
	snprintf(run, sizeof(run), "/run/t20/run%d", ++seq);
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_int_equal(sandbox_bindir(BIN), 0);
	assert_int_equal(lab_init(&lab, topo, run, BIN), 0);
	assert_true(mkdir(LAB_STATE_DIR, 0711) == 0 || errno == EEXIST);
	assert_int_equal(mkdir(lab.statedir, 0700), 0);
	for (int i = 0; i < topo->nnodes; i++)
		lab.nsfd[i] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

static void lab_done(void)
{
	assert_int_equal(lab_down(&lab), 0);
	assert_int_equal(access(lab.statedir, F_OK), -1);
	event_close(lab.ev);
	free(topo);
}

static void assert_owner(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
	assert_int_equal(st.st_mode & 07777, mode);
}

/* the configuration of daemon d of node n, at dir/NAME, is frrconf's */
static void assert_conf(const char *dir, const char *node, enum frrconf_daemon d)
{
	char path[PATH_MAX], *want = NULL, *got;
	size_t len = 0;
	FILE *out = open_memstream(&want, &len);

	assert_int_equal(frrconf_write(topo, topo_find(topo, node), d, out, NULL), 0);
	fclose(out);
	snprintf(path, sizeof(path), "%s/%s.%s.conf", dir, node,
		 d == FRRCONF_BGPD ? "bgpd" : "bfdd");
	got = sandbox_read(path);
	if (got == NULL)
		fail_msg("%s: not there", path);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

static void test_prepare(void **state)
{
	static const char *const nodes[] = {"core", "a", "b"};
	char *sets[] = {"bfd=yes"}, frr[128], path[PATH_MAX];
	struct passwd *pw = getpwnam("frr");
	struct group *gr = getgrnam("frr");

	(void)state;
	SANDBOX_REQUIRE_ROOT();
	assert_non_null(pw);
	assert_non_null(gr);
	lab_of(sets, 1);
	assert_int_equal(lab_frr_prepare(&lab), 0);
	/* frr traverses the state directory to its own, and lists nothing */
	assert_owner(SDIR, 0, 0, 0711);
	snprintf(frr, sizeof(frr), "%s/frr", SDIR);
	assert_owner(frr, 0, 0, 0711);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		assert_conf(frr, nodes[i], FRRCONF_BGPD);
		assert_conf(frr, nodes[i], FRRCONF_BFDD);
		assert_conf(run, nodes[i], FRRCONF_BGPD);
		assert_conf(run, nodes[i], FRRCONF_BFDD);
		snprintf(path, sizeof(path), "%s/%s", frr, nodes[i]);
		assert_owner(path, pw->pw_uid, gr->gr_gid, 0750);
	}
	/* a client runs no FRR */
	snprintf(path, sizeof(path), "%s/c1", frr);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof(path), "%s/c1.bgpd.conf", frr);
	assert_int_equal(access(path, F_OK), -1);
	/* prepared once: a second time is refused (the lab's frr/ is new) */
	capture_begin();
	assert_int_equal(lab_frr_prepare(&lab), -1);
	free(capture_end());
	lab_done();
}

static void test_prepare_static(void **state)
{
	char *sets[] = {"routing=static"}, path[PATH_MAX];

	(void)state;
	SANDBOX_REQUIRE();
	lab_of(sets, 1);
	assert_int_equal(lab_frr_prepare(&lab), 0);
	snprintf(path, sizeof(path), "%s/frr", SDIR);
	assert_int_equal(access(path, F_OK), -1);
	assert_owner(SDIR, 0, 0, 0700);
	assert_int_equal(lab_start_frr(&lab, topo_find(topo, "core")), 0);
	assert_int_equal(lab.nagents, 0);
	lab_done();
}

/* cmdline: /proc/PID/cmdline, its arguments joined by spaces */
static char *cmdline(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	for (ssize_t i = 0; i < n - 1; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	return strdup(buf);
}

static void test_start(void **state)
{
	static const char *const labels[] = {"zebra", "bfdd", "bgpd"};
	char *sets[] = {"bfd=yes"}, want[1024], path[PATH_MAX], *got, *tsv;
	int core;
	struct stat st;
	DIR *d;
	struct dirent *de;

	(void)state;
	SANDBOX_REQUIRE_ROOT();
	lab_of(sets, 1);
	core = topo_find(topo, "core");
	assert_int_equal(lab_frr_prepare(&lab), 0);
	assert_int_equal(lab_start_frr(&lab, core), 0);
	/* zebra first, listening on its zserv.api when bfdd and bgpd start */
	assert_int_equal(lab.nagents, 3);
	snprintf(path, sizeof(path), "%s/frr/core/zserv.api", SDIR);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	for (int i = 0; i < 3; i++) {
		const char *l = labels[i];
		char conf[128], extra[128] = "";

		assert_string_equal(lab.agents[i].name, l);
		if (strcmp(l, "zebra") == 0)
			snprintf(conf, sizeof(conf), "/dev/null");
		else
			snprintf(conf, sizeof(conf), "%s/frr/core.%s.conf", SDIR, l);
		if (strcmp(l, "bfdd") == 0)
			snprintf(extra, sizeof(extra), " --bfdctl %s/frr/core/bfdd.sock", SDIR);
		snprintf(want, sizeof(want),
			 "/usr/lib/frr/%s -z %s/frr/core/zserv.api --vty_socket %s/frr/core -i "
			 "%s/frr/core/%s.pid -u frr -g frr --log stdout -P 0 -f %s%s",
			 l, SDIR, SDIR, SDIR, l, conf, extra);
		got = cmdline(lab.agents[i].pid);
		/* argv[0] is the label: FRR names its files after it */
		assert_true(strncmp(got, l, strlen(l)) == 0);
		assert_string_equal(got + strlen(l), want + strlen("/usr/lib/frr/") + strlen(l));
		free(got);
	}
	/* recorded as FRR's programs, which down accepts for these labels */
	snprintf(path, sizeof(path), "%s/agents.tsv", SDIR);
	tsv = sandbox_read(path);
	assert_non_null(tsv);
	assert_non_null(strstr(tsv, "\tcore\tzebra\n"));
	assert_non_null(strstr(tsv, "\tcore\tbfdd\n"));
	assert_non_null(strstr(tsv, "\tcore\tbgpd\n"));
	free(tsv);
	for (int i = 0; i < 3; i++) {
		struct lab_agent a = {.pid = lab.agents[i].pid,
				      .starttime = lab.agents[i].starttime};

		snprintf(a.name, sizeof(a.name), "%s", labels[i]);
		assert_int_equal(lab_agent_claim(&a, BIN, "agents.tsv", 1), 1);
		lab_agent_release(&a);
		/* under another label, not theirs */
		snprintf(a.name, sizeof(a.name), "%s", labels[(i + 1) % 3]);
		assert_int_equal(lab_agent_claim(&a, BIN, "agents.tsv", 0), -1);
	}
	lab_done();
	/* down left nothing of theirs: no frr/ in the state, no buffers of
	 * the daemons it stopped in /var/tmp/frr */
	if ((d = opendir("/var/tmp/frr")) != NULL) {
		while ((de = readdir(d)) != NULL)
			for (int i = 0; i < 3; i++)
				if (strncmp(de->d_name, labels[i], strlen(labels[i])) == 0)
					fail_msg("/var/tmp/frr/%s left", de->d_name);
		closedir(d);
	}
}

/* mkfile: dir/name holding text */
static void mkfile(const char *dir, const char *name)
{
	test_write_file(dir, name, "x\n");
}

static void test_remove(void **state)
{
	char *err;

	(void)state;
	SANDBOX_REQUIRE();
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_int_equal(mkdir("/run/t20/st", 0700), 0);
	/* nothing to remove */
	assert_int_equal(lab_frr_remove("/run/t20/st"), 0);
	/* what FRR leaves: a node's sockets and pid files, the configurations;
	 * a link planted there; a directory that is no node's */
	assert_int_equal(mkdir("/run/t20/st/frr", 0711), 0);
	assert_int_equal(mkdir("/run/t20/st/frr/core", 0750), 0);
	mkfile("/run/t20/st/frr/core", "zebra.pid");
	mkfile("/run/t20/st/frr/core", "bgpd.vty");
	mkfile("/run/t20/st/frr", "core.bgpd.conf");
	assert_int_equal(mkdir("/run/t20/keep", 0755), 0);
	mkfile("/run/t20/keep", "precious");
	assert_int_equal(symlink("/run/t20/keep", "/run/t20/st/frr/evil"), 0);
	assert_int_equal(mkdir("/run/t20/st/frr/Not_A_Node", 0755), 0);
	capture_begin();
	assert_int_equal(lab_frr_remove("/run/t20/st"), -1);
	err = capture_end();
	assert_string_equal(err, "steerlab: lab_frr_remove: /run/t20/st/frr/Not_A_Node: Is a "
				 "directory\n"
				 "steerlab: lab_frr_remove: rmdir /run/t20/st/frr: Directory not "
				 "empty\n");
	free(err);
	assert_int_equal(access("/run/t20/st/frr/core", F_OK), -1);
	assert_int_equal(access("/run/t20/st/frr/core.bgpd.conf", F_OK), -1);
	assert_int_equal(access("/run/t20/st/frr/evil", F_OK), -1);
	assert_int_equal(access("/run/t20/keep/precious", F_OK), 0);
	/* once that is gone, frr/ goes */
	assert_int_equal(rmdir("/run/t20/st/frr/Not_A_Node"), 0);
	assert_int_equal(lab_frr_remove("/run/t20/st"), 0);
	assert_int_equal(access("/run/t20/st/frr", F_OK), -1);
	/* frr/ itself a link: not followed */
	assert_int_equal(symlink("/run/t20/keep", "/run/t20/st/frr"), 0);
	capture_begin();
	assert_int_equal(lab_frr_remove("/run/t20/st"), -1);
	err = capture_end();
	assert_string_equal(err, "steerlab: lab_frr_remove: /run/t20/st/frr: Not a directory\n");
	free(err);
	assert_int_equal(access("/run/t20/keep/precious", F_OK), 0);
}

static void test_forget(void **state)
{
	char dead[64], alive[64];
	pid_t gone;

	(void)state;
	SANDBOX_REQUIRE();
	assert_true((gone = fork()) != -1);
	if (gone == 0)
		_exit(0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	assert_true(mkdir("/var/tmp/frr", 0755) == 0 || errno == EEXIST);
	snprintf(dead, sizeof(dead), "/var/tmp/frr/bgpd.%d", (int)gone);
	snprintf(alive, sizeof(alive), "/var/tmp/frr/bgpd.%d", (int)getpid());
	assert_int_equal(mkdir(dead, 0755), 0);
	mkfile(dead, "logbuf");
	assert_int_equal(mkdir(alive, 0755), 0);
	mkfile(alive, "logbuf");
	/* not an FRR label; a daemon that still runs: left alone */
	lab_frr_forget("sited", gone);
	assert_int_equal(access(dead, F_OK), 0);
	lab_frr_forget("bgpd", getpid());
	assert_int_equal(access(alive, F_OK), 0);
	/* one that has ended: its buffers removed */
	lab_frr_forget("bgpd", gone);
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(alive, F_OK), 0);
	/* /var/tmp/frr a link: not followed */
	snprintf(dead, sizeof(dead), "/var/tmp/elsewhere/zebra.%d", (int)gone);
	assert_int_equal(mkdir("/var/tmp/elsewhere", 0755), 0);
	assert_int_equal(mkdir(dead, 0755), 0);
	assert_int_equal(rename("/var/tmp/frr", "/var/tmp/frr.real"), 0);
	assert_int_equal(symlink("/var/tmp/elsewhere", "/var/tmp/frr"), 0);
	lab_frr_forget("zebra", gone);
	assert_int_equal(access(dead, F_OK), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prepare), cmocka_unit_test(test_prepare_static),
	    cmocka_unit_test(test_start),   cmocka_unit_test(test_remove),
	    cmocka_unit_test(test_forget),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
