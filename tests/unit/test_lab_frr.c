/*
 * FRR in a lab (lab/build/frr.c), in the sandbox of tests/unit/test_sandbox.h:
 * the files a routing = bgp lab prepares under its state directory (each
 * node's configurations, also kept in the run directory; a directory of
 * frr's for each node's sockets), the real zebra, bfdd and bgpd of a router
 * started as the supervisor's agents with their command lines, zebra first
 * and listening, and what `down` removes after them: the state's frr/ by
 * what is in it, never following a link, and FRR's own /var/tmp/frr/
 * DAEMON.PID of a daemon that has ended; and FRR's dry runs of every node
 * at once, one bgpd for the nodes of one shape (lab/build/frrconf.c). The daemons drop to the frr
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

/* FRR's dry runs of every node at once (lab/build/frrconf.c): vtysh, here a
 * script of the test's bind-mounted over it that rejects b's hostname line
 * and logs each run, checks what steerlab wrote alone in one run; having
 * rejected a line there, it checks each of those configurations alone, so
 * that b's message names b's line; a's configuration, with an `frr =` line,
 * is checked alone from the start, and the real bgpd's rejection of it is
 * said first, in node order */
static void test_dry_runs(void **state)
{
	static const char fake[] =
	    "#!/bin/sh\n"
	    "awk '/^hostname b$/ { print \"line \" NR \": % Unknown command[4]: \" $0; bad = 1 }\n"
	    "     END { print NR >>\"/run/t20/vtysh.runs\"; exit bad ? 2 : 0 }' /dev/stdin\n";
	char *sets[] = {"bfd=yes", "a.frr=bogus"}, *errs = NULL, *runs;
	size_t len = 0;
	int n = 0, total = 0, sum = 0;
	FILE *err;

	(void)state;
	SANDBOX_REQUIRE_ROOT();
	topo = new_topology();
	load_ok(topo, LDATA "bgp.ini", sets, 2);
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	test_write_file("/run/t20", "vtysh", fake);
	assert_int_equal(chmod("/run/t20/vtysh", 0755), 0);
	assert_int_equal(mount("/run/t20/vtysh", FRR_VTYSH, NULL, MS_BIND, NULL), 0);
	err = open_memstream(&errs, &len);
	assert_int_equal(frrconf_check(topo, err), -1);
	fclose(err);
	assert_int_equal(umount2(FRR_VTYSH, 0), 0);
	assert_string_equal(errs, "steerlab: node a: FRR rejected its configuration (bgpd line 28: "
				  "bogus; from --set a.frr=bogus)\n"
				  "steerlab: node b: FRR rejected its configuration (vtysh line 3: "
				  "% Unknown command[4]: hostname b)\n");
	free(errs);
	/* a's bgpd alone; the five others together, then each alone */
	runs = sandbox_read("/run/t20/vtysh.runs");
	assert_non_null(runs);
	for (char *line = strtok(runs, "\n"); line; line = strtok(NULL, "\n"), n++)
		total += atoi(line);
	free(runs);
	assert_int_equal(n, 7);
	for (int k = 0; k < topo->nnodes; k++) {
		for (int d = FRRCONF_BGPD; d <= FRRCONF_BFDD; d++) {
			char *c = NULL;
			size_t clen = 0;
			FILE *fp;

			if (!frrconf_node(topo, k) ||
			    (d == FRRCONF_BGPD && k == topo_find(topo, "a")))
				continue;
			fp = open_memstream(&c, &clen);
			frrconf_write(topo, k, (enum frrconf_daemon)d, fp, NULL);
			fclose(fp);
			for (char *p = c; (p = strchr(p, '\n')) != NULL; p++)
				sum++;
			free(c);
		}
	}
	/* what the one run held and each alone again, and a's */
	assert_int_equal(total, 2 * sum + 28);
	unlink("/run/t20/vtysh.runs");
	free(topo);
}

/* the line of node's bgpd configuration that begins with text, 1 first */
static int conf_line(const char *node, const char *text)
{
	char *c = NULL, *line;
	size_t clen = 0;
	int n = 0, found = 0;
	FILE *fp = open_memstream(&c, &clen);

	frrconf_write(topo, topo_find(topo, node), FRRCONF_BGPD, fp, NULL);
	fclose(fp);
	for (line = strtok(c, "\n"); line && !found; line = strtok(NULL, "\n"))
		if (++n && strncmp(line + strspn(line, " "), text, strlen(text)) == 0)
			found = n;
	free(c);
	return found;
}

/* bgpd_runs: the hostnames the fake bgpd checked, sorted, as one line */
static void bgpd_runs(char *buf, size_t len)
{
	char *runs = sandbox_read("/run/t20/bgpd.runs"), *names[8];
	int n = 0;

	assert_non_null(runs);
	for (char *l = strtok(runs, "\n"); l && n < 8; l = strtok(NULL, "\n"))
		names[n++] = l;
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *x = names[j];
			names[j] = names[j - 1];
			names[j - 1] = x;
		}
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "", names[i]);
	free(runs);
	unlink("/run/t20/bgpd.runs");
}

/* One bgpd a shape (lab/build/frrconf.c): bgpd, here a script of the test's
 * bind-mounted over it that logs each run's hostname, checks sites a and
 * b, whose configurations differ only in their numbers and names, in one
 * run (a's); when it rejects a's `set metric` line (with
 * /run/t20/bgpd.reject), b is checked by a bgpd of its own, and each
 * node's message names its own line */
static void test_dry_run_shapes(void **state)
{
	static const char fake[] =
	    "#!/bin/sh\n"
	    "r=0; [ -e /run/t20/bgpd.reject ] && r=1\n"
	    "awk -v reject=$r '/^hostname / { print $2 >>\"/run/t20/bgpd.runs\" }\n"
	    "     /^ *set metric/ && reject { l = $0; sub(/^ */, \"\", l)\n"
	    "         print \"No such command on config line \" NR \": \" l; bad = 1 }\n"
	    "     END { exit bad ? 1 : 0 }' /dev/stdin\n";
	char *errs = NULL, want[512], runs[64];
	size_t len = 0;
	int line;
	FILE *err;

	(void)state;
	SANDBOX_REQUIRE_ROOT();
	topo = new_topology();
	load_ok(topo, LDATA "bgp.ini", NULL, 0);
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	test_write_file("/run/t20", "bgpd", fake);
	assert_int_equal(chmod("/run/t20/bgpd", 0755), 0);
	assert_int_equal(mount("/run/t20/bgpd", FRR_BGPD, NULL, MS_BIND, NULL), 0);
	unlink("/run/t20/bgpd.runs");
	err = open_memstream(&errs, &len);
	assert_int_equal(frrconf_check(topo, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
	bgpd_runs(runs, sizeof(runs));
	assert_string_equal(runs, "a core");

	test_write_file("/run/t20", "bgpd.reject", "");
	errs = NULL;
	err = open_memstream(&errs, &len);
	assert_int_equal(frrconf_check(topo, err), -1);
	fclose(err);
	unlink("/run/t20/bgpd.reject");
	assert_int_equal(umount2(FRR_BGPD, 0), 0);
	line = conf_line("a", "set metric");
	assert_int_equal(conf_line("b", "set metric"), line);
	snprintf(want, sizeof(want),
		 "steerlab: node a: FRR rejected its configuration (bgpd line %d: set metric 10)\n"
		 "steerlab: node b: FRR rejected its configuration (bgpd line %d: set metric 20)\n",
		 line, line);
	assert_string_equal(errs, want);
	free(errs);
	bgpd_runs(runs, sizeof(runs));
	assert_string_equal(runs, "a b core");
	free(topo);
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
	    cmocka_unit_test(test_prepare),	   cmocka_unit_test(test_prepare_static),
	    cmocka_unit_test(test_start),	   cmocka_unit_test(test_dry_runs),
	    cmocka_unit_test(test_dry_run_shapes), cmocka_unit_test(test_remove),
	    cmocka_unit_test(test_forget),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
