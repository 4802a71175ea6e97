/*
 * Real resolvers in a lab, in the sandbox of tests/unit/test_sandbox.h.
 *
 * lab/build/realres_check.c: each implementation's own tool checks the
 * configuration in a temporary directory that is gone afterwards; a
 * rejection is said in one line, the tool's words without kresd's start-up
 * noise and tracebacks; a tool that is not there is named. (Where a tool's
 * verdict is needed, a script of the test's is bind-mounted over it, in the
 * test's own mount namespace.) realres_print is what `check` shows.
 *
 * lab/build/realres_run.c: the files prepared under the state directory (the
 * node's directory its daemon's user owns, its configuration and root
 * hints, the configuration kept in the run directory), unbound, kresd and
 * named started by the supervisor with their command lines, asked the
 * lab's name from their node's namespace until they answer it (from a
 * fake authoritative server of the test's), then taken down with all they
 * left. The daemons drop to their own users: those tests need root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <pwd.h>
#include <cmocka.h>

#include "event.h"
#include "lab/build/kernel.h"
#include "lab/build/lab.h"
#include "lab/build/realres.h"
#include "lab/topology/topology.h"
#include "test_sandbox.h"
#include "test_topology_util.h"
#include "timeutil.h"

#define LDATA "tests/unit/data/lab/"
#define BIN "/run/t20/bin"
#define SDIR "/run/steerlab/t20rr" /* realres.ini's lab */

static struct topology *topo;

/* the checks' TMPDIR: this test's own, where nothing else runs */
static char tmpdir[] = "/tmp/test_lab_realres.XXXXXX";

static int group_setup(void **state)
{
	(void)state;
	topo = new_topology();
	load_ok(topo, LDATA "realres.ini", NULL, 0);
	if (mkdtemp(tmpdir) == NULL || setenv("TMPDIR", tmpdir, 1) == -1)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	free(topo);
	unsetenv("TMPDIR");
	return rmdir(tmpdir);
}

/* leftovers: the names in the checks' TMPDIR that begin with prefix,
 * space-separated */
static char *leftovers(const char *prefix)
{
	static char names[1024];
	struct dirent *de;
	DIR *d = opendir(tmpdir);

	names[0] = '\0';
	while (d && (de = readdir(d)) != NULL)
		if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s ",
				 de->d_name);
	if (d)
		closedir(d);
	return names;
}

static void test_check_passes(void **state)
{
	char *errs = NULL;
	size_t len = 0;
	FILE *err;

	(void)state;
	SANDBOX_REQUIRE();
	err = open_memstream(&errs, &len);
	assert_int_equal(realres_check(topo, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
	/* the tools' directories are gone, with what the tools made there */
	assert_string_equal(leftovers("steerlab-realres."), "");
}

/* cover: over the program at path, for the test alone, a script printing
 * said (on its standard error) and exiting with status; or, script NULL, a
 * file nobody may run */
static void cover(const char *path, const char *said, int status)
{
	static int seq;
	char fake[64], text[1024];

	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	snprintf(fake, sizeof(fake), "/run/t20/fake%d", ++seq);
	if (said) {
		snprintf(text, sizeof(text), "#!/bin/sh\nprintf '%s' >&2\nexit %d\n", said, status);
		test_write_file("/", fake + 1, text);
		assert_int_equal(chmod(fake, 0755), 0);
	} else {
		test_write_file("/", fake + 1, "");
		assert_int_equal(chmod(fake, 0644), 0);
	}
	assert_int_equal(mount(fake, path, NULL, MS_BIND, NULL), 0);
}

static void uncover(const char *path)
{
	assert_int_equal(umount2(path, 0), 0);
}

static void test_check_rejects(void **state)
{
	char *errs = NULL;
	size_t len = 0;
	FILE *err;

	(void)state;
	SANDBOX_REQUIRE();
	cover("/usr/sbin/unbound-checkconf", "bad line 3\\nsyntax error\\n", 1);
	cover("/usr/sbin/kresd",
	      "[system] warning: hard limit for number of file-descriptors is only 1024\\n"
	      "error: check.lua:2: no such thing\\nstack traceback:\\n\\t[C]: in ?\\n"
	      "[C]: error occurred here\\n",
	      1);
	cover("/usr/bin/named-checkconf", "", 1);
	err = open_memstream(&errs, &len);
	assert_int_equal(realres_check(topo, err), -1);
	fclose(err);
	uncover("/usr/sbin/unbound-checkconf");
	uncover("/usr/sbin/kresd");
	uncover("/usr/bin/named-checkconf");
	assert_string_equal(errs,
			    "steerlab: node ru: unbound rejected its configuration (bad line "
			    "3; syntax error)\n"
			    "steerlab: node rk: knot-resolver rejected its configuration "
			    "(error: check.lua:2: no such thing)\n"
			    "steerlab: node rb: bind9 rejected its configuration (no message)\n");
	free(errs);
	assert_string_equal(leftovers("steerlab-realres."), "");
}

static void test_check_missing(void **state)
{
	char *errs = NULL;
	size_t len = 0;
	FILE *err;

	(void)state;
	SANDBOX_REQUIRE();
	/* a resolver that is not installed: its tool cannot run */
	cover("/usr/sbin/named", NULL, 0);
	cover("/usr/bin/named-checkconf", NULL, 0);
	err = open_memstream(&errs, &len);
	assert_int_equal(realres_check(topo, err), -1);
	fclose(err);
	uncover("/usr/bin/named-checkconf");
	uncover("/usr/sbin/named");
	assert_string_equal(errs, "steerlab: node rb: impl = bind9 needs /usr/sbin/named and "
				  "/usr/bin/named-checkconf: not installed (sudo make deps)\n");
	free(errs);
	/* nowhere to write the configuration */
	assert_int_equal(mount("none", tmpdir, "tmpfs", MS_RDONLY, NULL), 0);
	errs = NULL;
	err = open_memstream(&errs, &len);
	assert_int_equal(realres_check(topo, err), -1);
	fclose(err);
	assert_int_equal(umount2(tmpdir, 0), 0);
	assert_string_equal(errs, "steerlab: node ru: mkdtemp: Read-only file system\n");
	free(errs);
}

/* conf_of_t: what realres_write makes for node n of t with its files in
 * dir (caller frees) */
static char *conf_of_t(const struct topology *t, int n, const char *dir)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct realres_in in;

	assert_int_equal(realres_inputs(t, n, dir, &in), 0);
	assert_int_equal(realres_write(t, n, &in, out, stderr), 0);
	fclose(out);
	return text;
}

/* conf_of: what realres_write makes for node n with its files in dir */
static char *conf_of(int n, const char *dir)
{
	return conf_of_t(topo, n, dir);
}

static char *hints_of(int n, const char *dir)
{
	struct realres_in in;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(realres_inputs(topo, n, dir, &in), 0);
	assert_int_equal(realres_write_hints(&in, out), 0);
	fclose(out);
	return text;
}

static void test_print(void **state)
{
	char *text = NULL, *conf, *want = NULL, dir[128];
	size_t len = 0, wlen = 0;
	FILE *out = open_memstream(&text, &len), *w = open_memstream(&want, &wlen);
	static const char *const nodes[] = {"ru", "rk", "rb"};
	static const char *const impls[] = {"unbound", "knot-resolver", "bind9"};
	static const char *const labels[] = {"unbound", "kresd", "named"};

	(void)state;
	realres_print(topo, out);
	fclose(out);
	for (int i = 0; i < 3; i++) {
		snprintf(dir, sizeof(dir), SDIR "/resolvers/%s", nodes[i]);
		fprintf(w, "\n# %s of [resolver %s] (%s/%s.%s.conf while it is up):\n", impls[i],
			nodes[i], dir, nodes[i], labels[i]);
		conf = conf_of(topo_find(topo, nodes[i]), dir);
		for (char *line = strtok(conf, "\n"); line; line = strtok(NULL, "\n"))
			fprintf(w, "#   %s\n", line);
		free(conf);
	}
	fclose(w);
	assert_string_equal(text, want);
	free(text);
	free(want);
}

static struct lab lab;
static char run[64];

static void lab_up_state(void)
{
	static int seq;

	snprintf(run, sizeof(run), "/run/t20/run%d", ++seq);
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_int_equal(sandbox_bindir(BIN), 0);
	assert_int_equal(lab_init(&lab, topo, run, BIN), 0);
	assert_true(mkdir(LAB_STATE_DIR, 0711) == 0 || errno == EEXIST);
	assert_int_equal(mkdir(SDIR, 0700), 0);
	for (int i = 0; i < topo->nnodes; i++)
		lab.nsfd[i] = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
}

static void lab_done(void)
{
	assert_int_equal(lab_down(&lab), 0);
	assert_int_equal(access(SDIR, F_OK), -1);
	event_close(lab.ev);
}

static void assert_owner(const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_uid, uid);
	assert_int_equal(st.st_gid, gid);
	assert_int_equal(st.st_mode & 07777, mode);
}

/* assert_text: dir/name holds want (which it frees) */
static void assert_text(const char *dir, const char *name, char *want)
{
	char path[PATH_MAX], *got;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	got = sandbox_read(path);
	if (got == NULL)
		fail_msg("%s: not there", path);
	assert_string_equal(got, want);
	free(got);
	free(want);
}

static void test_prepare(void **state)
{
	static const char *const nodes[] = {"ru", "rk", "rb"};
	static const char *const users[] = {"unbound", "knot-resolver", "bind"};
	static const char *const labels[] = {"unbound", "kresd", "named"};

	(void)state;
	SANDBOX_REQUIRE_ROOT();
	lab_up_state();
	assert_int_equal(lab_realres_prepare(&lab), 0);
	assert_owner(SDIR, 0, 0, 0711);
	assert_owner(SDIR "/resolvers", 0, 0, 0711);
	for (int i = 0; i < 3; i++) {
		struct passwd *pw = getpwnam(users[i]);
		int n = topo_find(topo, nodes[i]);
		char dir[128], conf[64];

		assert_non_null(pw);
		snprintf(dir, sizeof(dir), SDIR "/resolvers/%s", nodes[i]);
		assert_owner(dir, pw->pw_uid, pw->pw_gid, 0750);
		snprintf(conf, sizeof(conf), "%s.%s.conf", nodes[i], labels[i]);
		assert_text(dir, conf, conf_of(n, dir));
		assert_text(run, conf, conf_of(n, dir));
		assert_text(dir, "root.hints", hints_of(n, dir));
	}
	lab_done();
}

/* a lab without a real resolver prepares nothing for one */
static void test_prepare_none(void **state)
{
	struct topology *saved = topo, *t = new_topology();

	(void)state;
	SANDBOX_REQUIRE();
	load_ok(t, LDATA "agents-small.ini", NULL, 0);
	assert_int_equal(lab_init(&lab, t, "/run/t20/none", BIN), 0);
	assert_int_equal(mkdir(LAB_STATE_DIR, 0711) == 0 || errno == EEXIST, 1);
	assert_int_equal(mkdir("/run/steerlab/t20small", 0700), 0);
	assert_int_equal(lab_realres_prepare(&lab), 0);
	assert_int_equal(access("/run/steerlab/t20small/resolvers", F_OK), -1);
	assert_int_equal(lab_realres_ready(&lab, NULL, 0), 1);
	assert_owner("/run/steerlab/t20small", 0, 0, 0700);
	assert_int_equal(lab_realres_remove("/run/steerlab/t20small"), 0);
	assert_int_equal(lab_realres_remove("/run/steerlab/none"), 0);
	assert_int_equal(rmdir("/run/steerlab/t20small"), 0);
	event_close(lab.ev);
	free(t);
	topo = saved;
}

/* The lab's authoritative server, as far as the resolvers ask: every A
 * query answered with 198.19.1.1, anything else with no record. */
static pid_t fake_authd(struct in_addr addr)
{
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(53), .sin_addr = addr};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	pid_t pid;

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_true((pid = fork()) != -1);
	if (pid != 0) {
		close(fd);
		return pid;
	}
	for (;;) {
		uint8_t q[512], r[600];
		struct sockaddr_in from;
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&from, &flen);
		size_t end = 12;
		int a, soa;

		if (n < 17)
			continue;
		while (end < (size_t)n && q[end] != 0)
			end += q[end] + 1u;
		end += 5; /* the root label, type, class */
		if (end > (size_t)n)
			continue;
		a = q[end - 4] == 0 && q[end - 3] == 1;	  /* type A */
		soa = q[end - 4] == 0 && q[end - 3] == 6; /* the readiness query's */
		memcpy(r, q, end);
		r[2] = 0x84 | (q[2] & 0x01);	     /* QR, AA, RD as asked */
		r[3] = 0x80;			     /* RA, NOERROR */
		r[6] = 0, r[7] = (uint8_t)(a | soa); /* answers */
		r[8] = r[9] = r[10] = r[11] = 0;
		if (a) {
			const uint8_t rr[] = {0xc0, 12, 0, 1, 0,   1,  0, 0,
					      0,    60, 0, 4, 198, 19, 1, 1};
			memcpy(r + end, rr, sizeof(rr));
			end += sizeof(rr);
		}
		if (soa) {
			/* ". . 1 3600 600 86400 5" */
			const uint8_t rr[] = {0xc0, 12, 0, 6, 0,  1,   0, 0, 0,	 60, 0, 22,
					      0,    0,	0, 0, 0,  1,   0, 0, 14, 16, 0, 0,
					      2,    88, 0, 1, 81, 128, 0, 0, 0,	 5};
			memcpy(r + end, rr, sizeof(rr));
			end += sizeof(rr);
		}
		sendto(fd, r, end, 0, (struct sockaddr *)&from, flen);
	}
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

static void test_start_ready_down(void **state)
{
	static const char *const want[] = {
	    "unbound -d -c " SDIR "/resolvers/ru/ru.unbound.conf",
	    "kresd -n -c " SDIR "/resolvers/rk/rk.kresd.conf " SDIR "/resolvers/rk",
	    "named -g -4 -n 1 -u bind -c " SDIR "/resolvers/rb/rb.named.conf",
	};
	int ns = topo_find(topo, "ns"), ready = 0, status;
	struct in_addr dns = topo->links[topo->nodes[ns].link].node_addr;
	struct kern *k;
	pid_t authd;
	char *got;

	(void)state;
	SANDBOX_REQUIRE_ROOT();
	lab_up_state();
	/* the node's addresses, as lab_up puts them; all nodes are the test's
	 * namespace here */
	assert_non_null(k = kern_open(-1));
	assert_int_equal(kern_link_up(k, 1), 0);
	assert_int_equal(kern_addr_add(k, 1, dns, 32), 0);
	for (int n = 0; n < topo->nnodes; n++)
		if (topo->nodes[n].kind == TOPO_RESOLVER)
			assert_int_equal(kern_addr_add(k, 1, topo_resolver_addr(topo, n, 1), 32),
					 0);
	kern_close(k);
	authd = fake_authd(dns);

	assert_int_equal(lab_realres_prepare(&lab), 0);
	/* nothing answers yet */
	assert_int_equal(lab_realres_ready(&lab, NULL, 0), 0);
	assert_int_equal(lab_realres_start(&lab, topo_find(topo, "ru")), 0);
	assert_int_equal(lab_realres_start(&lab, topo_find(topo, "rk")), 0);
	assert_int_equal(lab_realres_start(&lab, topo_find(topo, "rb")), 0);
	assert_int_equal(lab.nagents, 3);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(lab.agents[i].name, i == 0	 ? "unbound"
							: i == 1 ? "kresd"
								 : "named");
		got = cmdline(lab.agents[i].pid);
		assert_string_equal(got, want[i]);
		free(got);
	}
	/* until every one answers the SOA of the lab's zone: each try waits for an
	 * answer, at most 100 ms a node; a daemon that ends fails it */
	for (int i = 0; i < 200 && !ready; i++) {
		ready = lab_realres_ready(&lab, NULL, 0);
		if (!ready && lab_watch(&lab, 10 * 1000000LL) > 0)
			fail_msg("a resolver ended before it answered (see %s)", run);
	}
	assert_int_equal(ready, 1);
	assert_int_equal(lab.unexpected, 0);

	/* down stops them and removes their directories, with what they left */
	lab_done();
	assert_int_equal(kill(authd, SIGKILL), 0);
	assert_int_equal(waitpid(authd, &status, 0), authd);
}

static void test_remove(void **state)
{
	char *err;

	(void)state;
	SANDBOX_REQUIRE();
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_int_equal(mkdir("/run/t20/rs", 0700), 0);
	assert_int_equal(lab_realres_remove("/run/t20/rs"), 0);
	/* two levels: a node's files, kresd's control/ */
	assert_int_equal(mkdir("/run/t20/rs/resolvers", 0711), 0);
	assert_int_equal(mkdir("/run/t20/rs/resolvers/rk", 0750), 0);
	assert_int_equal(mkdir("/run/t20/rs/resolvers/rk/control", 0750), 0);
	test_write_file("/run/t20/rs/resolvers/rk/control", "1", "");
	test_write_file("/run/t20/rs/resolvers/rk", "data.mdb", "");
	assert_int_equal(mkdir("/run/t20/keep", 0755), 0);
	test_write_file("/run/t20/keep", "precious", "");
	assert_int_equal(symlink("/run/t20/keep", "/run/t20/rs/resolvers/rk/link"), 0);
	assert_int_equal(lab_realres_remove("/run/t20/rs"), 0);
	assert_int_equal(access("/run/t20/rs/resolvers", F_OK), -1);
	assert_int_equal(access("/run/t20/keep/precious", F_OK), 0);
	/* deeper than that is not the lab's: left, and said */
	assert_int_equal(mkdir("/run/t20/rs/resolvers", 0711), 0);
	assert_int_equal(mkdir("/run/t20/rs/resolvers/ru", 0750), 0);
	assert_int_equal(mkdir("/run/t20/rs/resolvers/ru/a", 0750), 0);
	assert_int_equal(mkdir("/run/t20/rs/resolvers/ru/a/b", 0750), 0);
	capture_begin();
	assert_int_equal(lab_realres_remove("/run/t20/rs"), -1);
	err = capture_end();
	assert_true(strncmp(err, "steerlab: lab_realres_remove: /run/t20/rs/resolvers: ", 53) == 0);
	free(err);
	assert_int_equal(access("/run/t20/rs/resolvers/ru/a/b", F_OK), 0);
}

/* ip = dual: each listens on its cache's IPv6 address too and answers
 * 2001:2::/48 there, asking upstream over IPv4 alone; each tool takes it */
static void test_dual(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"ip=dual"}, *c, *errs = NULL;
	size_t len = 0;
	FILE *err;

	(void)state;
	SANDBOX_REQUIRE();
	load_ok(t, LDATA "realres.ini", sets, 1);
	c = conf_of_t(t, topo_find(t, "ru"), "/run/x");
	assert_non_null(strstr(c, "\tinterface: 2001:2:0:8000::1@53\n\tdo-ip6: yes\n"
				  "\tprefer-ip4: yes\n\taccess-control: ::/0 refuse\n"
				  "\taccess-control: 2001:2::/48 allow\n"));
	free(c);
	c = conf_of_t(t, topo_find(t, "rk"), "/run/x");
	assert_non_null(strstr(c, "net.ipv6 = false\n"));
	assert_non_null(strstr(c, "net.listen('2001:2:0:8001::1', 53, { kind = 'dns', freebind = "
				  "true })\n"));
	assert_non_null(strstr(c, "view:addr('2001:2::/48', policy.all(policy.PASS))\n"));
	free(c);
	c = conf_of_t(t, topo_find(t, "rb"), "/run/x");
	assert_non_null(strstr(c, "\tlisten-on-v6 port 53 { 2001:2:0:8002::1; };\n"));
	assert_non_null(strstr(c, "\tallow-query { 198.18.0.0/15; 2001:2::/48; };\n"));
	free(c);
	err = open_memstream(&errs, &len);
	assert_int_equal(realres_check(t, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
	free(t);
}

/* ip = 6: each on its IPv6 address alone, asking over IPv6 (AAAA root
 * hints, IPv6 forwarders); each one's own tool takes it */
static void test_ip6(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"ip=6", "routing=bgp"}, *c, *errs = NULL;
	struct realres_in in;
	size_t len = 0;
	FILE *err;

	(void)state;
	SANDBOX_REQUIRE();
	load_ok(t, LDATA "realres.ini", sets, 2);
	c = conf_of_t(t, topo_find(t, "ru"), "/run/x");
	assert_non_null(strstr(c, "\tinterface: 2001:2:0:8000::1@53\n"
				  "\toutgoing-interface: 2001:2:0:8000::1\n"
				  "\tip-freebind: yes\n\tdo-ip4: no\n\tdo-ip6: yes\n"));
	assert_null(strstr(c, "198.18."));
	free(c);
	c = conf_of_t(t, topo_find(t, "rk"), "/run/x");
	assert_non_null(strstr(c, "net.ipv4 = false\nnet.listen('2001:2:0:8001::1', 53"));
	assert_non_null(strstr(c, "net.outgoing_v6('2001:2:0:8001::1')\n"));
	assert_null(strstr(c, "198.18."));
	free(c);
	c = conf_of_t(t, topo_find(t, "rb"), "/run/x");
	assert_non_null(strstr(c, "\tlisten-on { none; };\n"
				  "\tlisten-on-v6 port 53 { 2001:2:0:8002::1; };\n"
				  "\tquery-source-v6 address 2001:2:0:8002::1;\n"));
	assert_null(strstr(c, "198.18."));
	free(c);
	/* the servers it asks, by their IPv6 link addresses */
	assert_int_equal(realres_inputs(t, topo_find(t, "ru"), "/run/x", &in), 0);
	assert_true(in.v6only);
	{
		char *h = NULL;
		size_t hl = 0;
		FILE *fp = open_memstream(&h, &hl);

		assert_int_equal(realres_write_hints(&in, fp), 0);
		fclose(fp);
		if (in.iterate)
			assert_non_null(strstr(h, "\tAAAA\t2001:2:"));
		free(h);
	}
	err = open_memstream(&errs, &len);
	assert_int_equal(realres_check(t, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
	free(t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_check_passes),
	    cmocka_unit_test(test_check_rejects),
	    cmocka_unit_test(test_check_missing),
	    cmocka_unit_test(test_print),
	    cmocka_unit_test(test_prepare),
	    cmocka_unit_test(test_prepare_none),
	    cmocka_unit_test(test_start_ready_down),
	    cmocka_unit_test(test_remove),
	    cmocka_unit_test(test_dual),
	    cmocka_unit_test(test_ip6),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
