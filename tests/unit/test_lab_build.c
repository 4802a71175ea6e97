/*
 * Bringing a lab up (lab/build/build.c) against a fake kernel: this file defines
 * every function of lab/build/kernel.h and of netns.c (lab/build/lab.h), so the linker takes
 * these instead of kernel.c's and netns.c's (the seam both headers state),
 * and each call the lab makes is written down: which namespace, which link,
 * which address or route. The calls for a topology are compared with a
 * golden file (tests/unit/data/lab/NAME.kernel.golden; UPDATE_GOLDEN=1
 * writes FILE.new): what `ip -n LAB-NODE addr` and `ip route` would show,
 * in the order it is made, and what `down` deletes.
 *
 * The state directory is real (in the sandbox of tests/unit/test_sandbox.h,
 * a /run of the test's own): every namespace is in it before it is made,
 * its lock is held while the lab comes up, what it holds is what `status`
 * and `down` read. A bring-up that fails or is interrupted takes down all
 * it made; a name in use is refused before anything is made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <cmocka.h>

#include "event.h"
#include "lab/build/kernel.h"
#include "lab/build/lab.h"
#include "lab/topology/topology.h"
#include "test_sandbox.h"
#include "test_topology_util.h"

#define LDATA "tests/unit/data/lab/"
#define BIN "/run/t20/bin"

/* The fake kernel: named namespaces, each with its links (lo is 1), and
 * the log of every call. */
struct fake_ns {
	char name[64];
	int fd;
	int alive;
	char links[32][16];
	int nlinks;
};

struct kern {
	int ns; /* index in fns, -1: the namespace steerlab runs in */
};

static struct fake_ns fns[TOPO_MAX_NODES];
static int nfns;
static char *klog;
static size_t kloglen;
static FILE *kf;
static int fail_call, ncalls; /* the fail_call-th change fails (0: none) */
static const char *squat;     /* a namespace netns_exists finds, not made here */
static volatile sig_atomic_t interrupted;
static int interrupt_at, ncreates; /* the interrupt_at-th netns_create sets it */
static int unrecorded, unlocked;   /* what netns_create found wrong */
static char statedir[128];

static void fake_reset(void)
{
	for (int i = 0; i < nfns; i++)
		if (fns[i].fd >= 0)
			close(fns[i].fd);
	memset(fns, 0, sizeof(fns));
	nfns = 0;
	if (kf)
		fclose(kf);
	free(klog);
	klog = NULL;
	kf = open_memstream(&klog, &kloglen);
	fail_call = ncalls = ncreates = interrupt_at = 0;
	unrecorded = unlocked = 0;
	interrupted = 0;
	squat = NULL;
}

/* the log so far (kept), and a new one begun */
static char *fake_log(void)
{
	char *text;

	fflush(kf);
	text = strdup(klog ? klog : "");
	fclose(kf);
	free(klog);
	klog = NULL;
	kf = open_memstream(&klog, &kloglen);
	return text;
}

static const char *ns_name(int ns)
{
	return ns < 0 ? "(steerlab's)" : fns[ns].name;
}

static int ns_of_fd(int fd)
{
	for (int i = 0; i < nfns; i++)
		if (fns[i].fd == fd && fd >= 0)
			return i;
	return -2;
}

static const char *ifname(const struct kern *k, int ifindex)
{
	if (ifindex == 1)
		return "lo";
	if (k->ns < 0 || ifindex < 2 || ifindex - 2 >= fns[k->ns].nlinks)
		return "(none)";
	return fns[k->ns].links[ifindex - 2];
}

/* fake_change: one change to the kernel, which may be the one to fail */
static int fake_change(const struct kern *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int fake_change(const struct kern *k, const char *fmt, ...)
{
	va_list ap;

	fprintf(kf, "%s: ", ns_name(k->ns));
	va_start(ap, fmt);
	vfprintf(kf, fmt, ap);
	va_end(ap);
	if (++ncalls == fail_call) {
		fprintf(kf, " (fails)\n");
		return -1;
	}
	fprintf(kf, "\n");
	return 0;
}

static const char *ip(struct in_addr a, char *buf)
{
	return inet_ntop(AF_INET, &a, buf, INET_ADDRSTRLEN);
}

struct kern *kern_open(int nsfd)
{
	struct kern *k = calloc(1, sizeof(*k));

	assert_non_null(k);
	k->ns = nsfd == -1 ? -1 : ns_of_fd(nsfd);
	if (k->ns == -2)
		fail_msg("kern_open: fd %d is no namespace the lab opened", nsfd);
	return k;
}

void kern_close(struct kern *k)
{
	free(k);
}

int kern_veth(struct kern *k, const char *name_a, int nsfd_a, const char *name_b, int nsfd_b)
{
	int a = ns_of_fd(nsfd_a), b = ns_of_fd(nsfd_b);

	if (a < 0 || b < 0)
		fail_msg("kern_veth %s/%s: an end in no namespace of the lab", name_a, name_b);
	if (fake_change(k, "veth %s in %s, %s in %s", name_a, fns[a].name, name_b, fns[b].name))
		return -1;
	snprintf(fns[a].links[fns[a].nlinks++], sizeof(fns[a].links[0]), "%s", name_a);
	snprintf(fns[b].links[fns[b].nlinks++], sizeof(fns[b].links[0]), "%s", name_b);
	return 0;
}

int kern_vxlan(struct kern *k, const char *name, int nsfd, unsigned vni, struct in_addr local,
	       struct in_addr remote, int mtu)
{
	char l[INET_ADDRSTRLEN], r[INET_ADDRSTRLEN];
	int n = ns_of_fd(nsfd);

	if (n < 0 || k->ns < 0)
		fail_msg("kern_vxlan %s: in no namespace of the lab", name);
	if (fake_change(k, "vxlan %s id %u local %s remote %s mtu %d, in %s", name, vni,
			ip(local, l), ip(remote, r), mtu, fns[n].name))
		return -1;
	snprintf(fns[n].links[fns[n].nlinks++], sizeof(fns[n].links[0]), "%s", name);
	return 0;
}

int kern_bridge(struct kern *k, const char *name)
{
	if (fake_change(k, "bridge %s", name))
		return -1;
	snprintf(fns[k->ns].links[fns[k->ns].nlinks++], sizeof(fns[k->ns].links[0]), "%s", name);
	return 0;
}

int kern_enslave(struct kern *k, int master, int ifindex)
{
	return fake_change(k, "%s into bridge %s", ifname(k, ifindex), ifname(k, master));
}

int kern_ifindex(struct kern *k, const char *name)
{
	for (int i = 0; k->ns >= 0 && i < fns[k->ns].nlinks; i++)
		if (strcmp(fns[k->ns].links[i], name) == 0)
			return i + 2;
	fprintf(kf, "%s: no link %s\n", ns_name(k->ns), name);
	return -1;
}

int kern_link_up(struct kern *k, int ifindex)
{
	return fake_change(k, "up %s", ifname(k, ifindex));
}

int kern_link_set(struct kern *k, int ifindex, int up)
{
	return fake_change(k, "%s %s", up ? "up" : "down", ifname(k, ifindex));
}

void kern_again(struct kern *k)
{
	fprintf(kf, "%s: again (what is there is kept)\n", ns_name(k->ns));
}

int kern_sysctl(int nsfd, const char *name, const char *value, int optional)
{
	struct kern k = {.ns = ns_of_fd(nsfd)};

	(void)optional;
	return fake_change(&k, "sysctl %s = %s", name, value);
}

int kern_link_forwarding(struct kern *k, int ifindex)
{
	return fake_change(k, "forwarding on %s", ifname(k, ifindex));
}

int kern_addr_add(struct kern *k, int ifindex, struct in_addr addr, int prefixlen)
{
	char a[INET_ADDRSTRLEN];

	return fake_change(k, "address %s/%d on %s", ip(addr, a), prefixlen, ifname(k, ifindex));
}

int kern_addr6_add(struct kern *k, int ifindex, const struct in6_addr *addr, int prefixlen)
{
	char a[INET6_ADDRSTRLEN];

	return fake_change(k, "address %s/%d on %s", inet_ntop(AF_INET6, addr, a, sizeof(a)),
			   prefixlen, ifname(k, ifindex));
}

/* the fake's links have their link-local addresses at once */
int kern_linklocal_missing(struct kern *k)
{
	(void)k;
	return 0;
}

int kern_route6_add(struct kern *k, const struct in6_addr *dst, int prefixlen,
		    const struct in6_addr *gw, int ifindex)
{
	char d[INET6_ADDRSTRLEN], g[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, dst, d, sizeof(d));
	if (gw == NULL)
		return fake_change(k, "route %s/%d on %s", d, prefixlen, ifname(k, ifindex));
	return fake_change(k, "route %s/%d via %s on %s", d, prefixlen,
			   inet_ntop(AF_INET6, gw, g, sizeof(g)), ifname(k, ifindex));
}

int kern_local_add(struct kern *k, struct in_addr dst, unsigned metric)
{
	char a[INET_ADDRSTRLEN];

	return fake_change(k, "local %s/32 on lo metric %u", ip(dst, a), metric);
}

int kern_local6_add(struct kern *k, const struct in6_addr *dst, unsigned metric)
{
	char a[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, dst, a, sizeof(a));
	return fake_change(k, "local %s/128 on lo metric %u", a, metric);
}

int kern_route_add(struct kern *k, struct in_addr dst, int prefixlen, struct in_addr gw,
		   int ifindex, unsigned metric)
{
	char d[INET_ADDRSTRLEN], g[INET_ADDRSTRLEN];

	if (gw.s_addr == 0)
		return fake_change(k, "route %s/%d on %s metric %u", ip(dst, d), prefixlen,
				   ifname(k, ifindex), metric);
	return fake_change(k, "route %s/%d via %s on %s metric %u", ip(dst, d), prefixlen,
			   ip(gw, g), ifname(k, ifindex), metric);
}

static int fake_find(const char *name)
{
	for (int i = 0; i < nfns; i++)
		if (strcmp(fns[i].name, name) == 0)
			return i;
	return -1;
}

int netns_create(const char *name)
{
	char path[PATH_MAX], *text;
	int i = fake_find(name), fd;

	fprintf(kf, "netns create %s\n", name);
	/* recorded before it is made, under the lock */
	snprintf(path, sizeof(path), "%s/namespaces", statedir);
	text = sandbox_read(path);
	if (text == NULL || !strstr(text, name))
		unrecorded++;
	free(text);
	if ((fd = open(statedir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			unlocked++;
		close(fd);
	}
	if (++ncreates == interrupt_at)
		interrupted = 1;
	if ((i >= 0 && fns[i].alive) || (squat && strcmp(squat, name) == 0)) {
		errno = EEXIST;
		return -1;
	}
	if (i < 0) {
		i = nfns++;
		snprintf(fns[i].name, sizeof(fns[i].name), "%s", name);
		fns[i].fd = -1;
	}
	fns[i].alive = 1;
	return 0;
}

int netns_delete(const char *name)
{
	int i = fake_find(name);

	fprintf(kf, "netns delete %s\n", name);
	if (i < 0 || !fns[i].alive) {
		errno = ENOENT;
		return -1;
	}
	fns[i].alive = 0;
	fns[i].nlinks = 0;
	return 0;
}

int netns_exists(const char *name)
{
	int i = fake_find(name);

	return (i >= 0 && fns[i].alive) || (squat && strcmp(squat, name) == 0);
}

int netns_open(const char *name)
{
	int i = fake_find(name);

	if (i < 0 || !fns[i].alive) {
		errno = ENOENT;
		return -1;
	}
	/* a descriptor of its own, which the lab closes */
	if ((fns[i].fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	return fns[i].fd;
}

/* agents run in the test's own namespace */
int netns_enter(int fd)
{
	(void)fd;
	return 0;
}

int netns_enter_root(void)
{
	return 0;
}

int netns_enter_exec(int fd)
{
	(void)fd;
	return 0;
}

int netns_members(const char *const names[], int n, struct netns_member *m, int max)
{
	(void)names;
	(void)n;
	(void)m;
	(void)max;
	return 0;
}

static struct topology *topo;
static struct lab lab;
static char run[64];

/* lab_of: a lab of the topology in ini, not up yet (no agents) */
static void lab_of(const char *ini)
{
	static int seq;

	fake_reset();
	topo = new_topology();
	load_ok(topo, ini, NULL, 0);
	snprintf(run, sizeof(run), "/run/t20/run%d-%s", ++seq, topo->name);
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_int_equal(sandbox_bindir(BIN), 0);
	assert_int_equal(lab_init(&lab, topo, run, BIN), 0);
	lab.no_agents = 1;
	lab_statedir(statedir, sizeof(statedir), topo->name);
	setenv(SANDBOX_STATEDIR_ENV, statedir, 1);
}

static void lab_done(void)
{
	event_close(lab.ev);
	free(topo);
	topo = NULL;
}

static char *file_at(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return sandbox_read(path);
}

static void assert_file(const char *dir, const char *name, const char *want)
{
	char *text = file_at(dir, name);

	if (text == NULL)
		fail_msg("%s/%s: not there", dir, name);
	assert_string_equal(text, want);
	free(text);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

/* up_and_down: the calls of lab_up and lab_down, against the golden file */
static void up_and_down(const char *ini, const char *golden)
{
	char *up, *text, *ns = NULL;
	size_t nslen = 0;
	FILE *nsf;

	lab_of(ini);
	assert_int_equal(lab_up(&lab), 0);
	up = fake_log();
	assert_int_equal(unrecorded, 0);
	assert_int_equal(unlocked, 0);
	assert_int_equal(lab.lockfd, -1);
	/* the state: what down and status read */
	nsf = open_memstream(&ns, &nslen);
	for (int i = 0; i < topo->nnodes; i++)
		fprintf(nsf, "%s-%s\n", topo->name, topo->nodes[i].name);
	for (int h = 0; h < topo->nhosts; h++)
		fprintf(nsf, "%s-%s\n", topo->name, topo->hosts[h].name);
	fclose(nsf);
	assert_file(statedir, "namespaces", ns);
	free(ns);
	text = NULL;
	assert_true(asprintf(&text, "%s\n", run) > 0);
	assert_file(statedir, "rundir", text);
	free(text);
	assert_file(statedir, "bindir", BIN "\n");
	text = print_to_string(topo);
	assert_file(statedir, "topology.ini", text);
	free(text);
	assert_int_equal(mode_of(LAB_STATE_DIR), 0711);
	assert_int_equal(mode_of(statedir), 0700);

	assert_int_equal(lab_down(&lab), 0);
	text = fake_log();
	assert_int_equal(access(statedir, F_OK), -1);
	{
		char *all;
		assert_true(asprintf(&all, "%s-- down --\n%s", up, text) > 0);
		test_assert_golden(golden, all);
		free(all);
	}
	free(up);
	free(text);
	lab_done();
}

static void test_static_lab(void **state)
{
	char path[PATH_MAX];
	json_t *evs, *ev, *addrs;

	(void)state;
	SANDBOX_REQUIRE();
	up_and_down(LDATA "agents.ini", LDATA "agents.kernel.golden");
	/* lab_up says what it made, and which node each address is */
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
	evs = sandbox_events(path, "lab_up");
	assert_int_equal(json_array_size(evs), 1);
	ev = json_array_get(evs, 0);
	assert_string_equal(json_string_value(json_object_get(ev, "lab")), "t20agents");
	assert_int_equal(json_integer_value(json_object_get(ev, "nodes")), 11);
	assert_int_equal(json_integer_value(json_object_get(ev, "links")), 8);
	assert_int_equal(json_integer_value(json_object_get(ev, "port")), 7000);
	addrs = json_object_get(ev, "addresses");
	/* 8 links and 2 router links, both ends; 3 router ids */
	assert_int_equal(json_object_size(addrs), 23);
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(addrs, "198.18.40.2"), "node")),
	    "r2");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(addrs, "198.18.40.2"), "kind")),
	    "router");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(addrs, "198.18.0.6"), "node")), "b");
	assert_string_equal(
	    json_string_value(json_object_get(json_object_get(addrs, "198.18.0.6"), "kind")),
	    "site");
	/* a lab of one host: no hosts */
	assert_null(json_object_get(ev, "hosts"));
	json_decref(evs);
	evs = sandbox_events(path, "lab_down");
	assert_int_equal(json_array_size(evs), 1);
	json_decref(evs);
}

static void test_bgp_lab(void **state)
{
	(void)state;
	SANDBOX_REQUIRE();
	up_and_down(LDATA "bgp.ini", LDATA "bgp.kernel.golden");
}

/* ip = dual: every address and route again in 2001:2::/48, by the same
 * paths (lab/build/addr6.c) */
static void test_dual_lab(void **state)
{
	(void)state;
	SANDBOX_REQUIRE();
	up_and_down(LDATA "dual.ini", LDATA "dual.kernel.golden");
}

/* lines_of: the lines of log that begin with prefix, in order */
static char *lines_of(const char *log, const char *prefix)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	for (const char *line = log; *line;) {
		size_t n = strcspn(line, "\n");
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			fprintf(out, "%.*s\n", (int)n, line);
		line += n + (line[n] == '\n');
	}
	fclose(out);
	return text;
}

/* a node configured again (a link back up) is asked for what up asked */
static void test_reconfigure(void **state)
{
	char *up, *again, *want, prefix[64], first[128];

	(void)state;
	SANDBOX_REQUIRE();
	lab_of(LDATA "agents.ini");
	assert_int_equal(lab_up(&lab), 0);
	up = fake_log();
	for (int n = 0; n < topo->nnodes; n++) {
		snprintf(prefix, sizeof(prefix), "%s-%s: ", topo->name, topo->nodes[n].name);
		snprintf(first, sizeof(first), "%sagain (what is there is kept)\n", prefix);
		assert_int_equal(lab_reconfigure_node(&lab, n), 0);
		again = fake_log();
		want = lines_of(up, prefix);
		assert_true(strncmp(again, first, strlen(first)) == 0);
		assert_string_equal(again + strlen(first), want);
		free(again);
		free(want);
	}
	free(up);
	assert_int_equal(lab_down(&lab), 0);
	lab_done();
}

/* every namespace made was deleted */
static void assert_all_deleted(int made)
{
	assert_int_equal(nfns, made);
	for (int i = 0; i < nfns; i++)
		assert_int_equal(fns[i].alive, 0);
}

/* two hosts: their namespaces and underlay, the links between them VXLAN
 * tunnels made in the hosts' namespaces and placed in the nodes' */
static void test_hosts_lab(void **state)
{
	char path[PATH_MAX];
	json_t *evs, *hosts;

	(void)state;
	SANDBOX_REQUIRE();
	up_and_down(LDATA "hosts.ini", LDATA "hosts.kernel.golden");
	/* the hosts' capture directories went with the state */
	snprintf(path, sizeof(path), "%s/hosts", statedir);
	assert_int_equal(access(path, F_OK), -1);
	/* lab_up says which host each node is on (the clocks' offsets) */
	snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
	evs = sandbox_events(path, "lab_up");
	assert_int_equal(json_array_size(evs), 1);
	hosts = json_object_get(json_array_get(evs, 0), "hosts");
	assert_int_equal(json_object_size(hosts), 5);
	assert_string_equal(json_string_value(json_object_get(hosts, "core")), "local");
	assert_string_equal(json_string_value(json_object_get(hosts, "a")), "local");
	assert_string_equal(json_string_value(json_object_get(hosts, "c1")), "local");
	assert_string_equal(json_string_value(json_object_get(hosts, "b")), "h2");
	assert_string_equal(json_string_value(json_object_get(hosts, "c2")), "h2");
	json_decref(evs);
}

/* every namespace made was deleted */
static void assert_all_deleted(int made);

/* a bring-up that fails at a host's tunnel takes down the hosts too, and
 * the host's captures written meanwhile are fetched into the run */
static void test_hosts_failure(void **state)
{
	char *log, *err, path[PATH_MAX];
	FILE *fp;

	(void)state;
	SANDBOX_REQUIRE();
	lab_of(LDATA "hosts.ini");
	fail_call = 11; /* the second end of the first tunnel */
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	err = capture_end();
	assert_string_equal(err,
			    "steerlab: lab t20hosts: bring-up failed; taking down what was made\n");
	free(err);
	log = fake_log();
	assert_non_null(strstr(log, "t20hosts-h2: vxlan eth0 id 4097 local 198.18.44.2 remote "
				    "198.18.44.1 mtu 1450, in t20hosts-b (fails)\n"));
	assert_non_null(strstr(log, "netns delete t20hosts-h2\n"));
	assert_non_null(strstr(log, "netns delete t20hosts-local\n"));
	free(log);
	assert_all_deleted(topo->nnodes + topo->nhosts);
	assert_int_equal(access(statedir, F_OK), -1);
	lab_done();

	/* a lab whose collectors wrote into its hosts' directories: down
	 * moves each file into the run directory */
	lab_of(LDATA "hosts.ini");
	assert_int_equal(lab_up(&lab), 0);
	snprintf(path, sizeof(path), "%s/hosts/h2/capture-b.pcap", statedir);
	assert_non_null(fp = fopen(path, "w"));
	fputs("not really a pcap\n", fp);
	fclose(fp);
	assert_int_equal(lab_down(&lab), 0);
	free(fake_log());
	assert_file(run, "capture-b.pcap", "not really a pcap\n");
	assert_int_equal(access(statedir, F_OK), -1);
	lab_done();
}

static void test_failure_takes_down(void **state)
{
	char *log, *err, want[256];
	json_t *evs;

	(void)state;
	SANDBOX_REQUIRE();
	lab_of(LDATA "agents.ini");
	fail_call = 20; /* an address or route of a router, midway */
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	err = capture_end();
	snprintf(want, sizeof(want),
		 "steerlab: lab t20agents: bring-up failed; taking down what was made\n");
	assert_string_equal(err, want);
	free(err);
	log = fake_log();
	assert_non_null(strstr(log, " (fails)\n"));
	/* everything made is gone, the state too */
	assert_all_deleted(topo->nnodes);
	assert_int_equal(access(statedir, F_OK), -1);
	assert_int_equal(lab.lockfd, -1);
	free(log);
	{
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/lab.events.jsonl", run);
		evs = sandbox_events(path, "lab_up");
		assert_int_equal(json_array_size(evs), 0);
		json_decref(evs);
		evs = sandbox_events(path, "lab_down");
		assert_int_equal(json_array_size(evs), 1);
		json_decref(evs);
	}
	lab_done();
}

static void test_interrupted(void **state)
{
	char *log, *err;

	(void)state;
	SANDBOX_REQUIRE();
	lab_of(LDATA "agents-small.ini");
	lab.interrupt = &interrupted;
	interrupt_at = 2;
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	err = capture_end();
	assert_string_equal(err, "steerlab: lab t20small: interrupted while it came up; taking "
				 "down what was made\n");
	free(err);
	/* two namespaces made, no third, no link; both deleted */
	log = fake_log();
	assert_string_equal(log, "netns create t20small-core\n"
				 "netns create t20small-a\n"
				 "netns delete t20small-core\n"
				 "netns delete t20small-a\n");
	free(log);
	assert_int_equal(access(statedir, F_OK), -1);
	lab_done();
}

static void test_name_in_use(void **state)
{
	static const char rundir_ctl[] = "/run/t20/run\tx";
	char *err, *log;

	(void)state;
	SANDBOX_REQUIRE();
	/* a lab of that name is up: nothing is touched */
	lab_of(LDATA "agents-small.ini");
	assert_true(mkdir(LAB_STATE_DIR, 0711) == 0 || errno == EEXIST);
	assert_int_equal(mkdir(statedir, 0700), 0);
	test_write_file(statedir, "agents.tsv", "1234\t1\ta\tsited\n");
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	assert_string_equal(
	    err = capture_end(),
	    "steerlab: lab 't20small' already exists (/run/steerlab/t20small); take "
	    "it down first with: steerlab down t20small\n");
	free(err);
	assert_file(statedir, "agents.tsv", "1234\t1\ta\tsited\n");
	unlink("/run/steerlab/t20small/agents.tsv");
	assert_int_equal(rmdir(statedir), 0);

	/* a namespace of that name that is not the lab's */
	squat = "t20small-b";
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	assert_string_equal(err = capture_end(),
			    "steerlab: namespace t20small-b already exists and is not this lab's; "
			    "remove it or rename the lab\n");
	free(err);
	squat = NULL;
	assert_int_equal(access(statedir, F_OK), -1);

	/* the agents' directory is not there */
	snprintf(lab.bindir, sizeof(lab.bindir), "/run/t20/nobin");
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	assert_string_equal(err = capture_end(),
			    "steerlab: lab_claim: /run/t20/nobin: No such file or directory\n");
	free(err);
	assert_int_equal(access(statedir, F_OK), -1);
	snprintf(lab.bindir, sizeof(lab.bindir), BIN);

	/* /run/steerlab that others may write */
	assert_int_equal(chmod(LAB_STATE_DIR, 0777), 0);
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	assert_string_equal(err = capture_end(),
			    "steerlab: /run/steerlab: refused: expected a directory owned by root "
			    "and writable only by it, got a directory owned by uid 0, mode 0777\n");
	free(err);
	assert_int_equal(chmod(LAB_STATE_DIR, 0711), 0);
	log = fake_log();
	assert_string_equal(log, "");
	free(log);
	lab_done();

	/* a run directory whose name cannot be one line of the state */
	fake_reset();
	topo = new_topology();
	load_ok(topo, LDATA "agents-small.ini", NULL, 0);
	assert_int_equal(lab_init(&lab, topo, rundir_ctl, BIN), 0);
	capture_begin();
	assert_int_equal(lab_up(&lab), -1);
	assert_string_equal(err = capture_end(), "steerlab: the run directory: a control character "
						 "in the path: refused\n");
	free(err);
	assert_int_equal(access(statedir, F_OK), -1);
	lab_done();
}

/* the whole of up with its agents (fake ones, in the test's namespace) */
static void test_up_with_agents(void **state)
{
	char *tsv, *log;
	int lines = 0;

	(void)state;
	SANDBOX_REQUIRE();
	lab_of(LDATA "agents-small.ini");
	lab.no_agents = 0;
	assert_int_equal(lab_up(&lab), 0);
	/* every agent but the clients, each recorded */
	assert_int_equal(lab.nagents, 8);
	tsv = file_at(statedir, "agents.tsv");
	assert_non_null(tsv);
	for (char *p = tsv; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	assert_int_equal(lines, 8);
	free(tsv);
	for (int i = 0; i < lab.nagents; i++) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s.%s.log", run,
			 topo->nodes[lab.agents[i].node].name, lab.agents[i].name);
		assert_int_equal(sandbox_wait_file(path, "argv:"), 0);
	}
	assert_int_equal(lab_down(&lab), 0);
	for (int i = 0; i < lab.nagents; i++)
		assert_int_equal(lab.agents[i].pidfd, -1);
	log = fake_log();
	assert_non_null(strstr(log, "netns delete t20small-c1\n"));
	free(log);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	lab_done();
}

static void test_files(void **state)
{
	char *err;
	FILE *fp;

	(void)state;
	SANDBOX_REQUIRE();
	assert_true(mkdir("/run/t20", 0755) == 0 || errno == EEXIST);
	assert_true(mkdir("/run/t20/files", 0755) == 0);
	assert_int_equal(symlink("/run/t20/target", "/run/t20/files/link"), 0);
	capture_begin();
	assert_null(lab_fopen_new("/run/t20/files", "link"));
	assert_null(lab_fopen_write("/run/t20/files", "link"));
	assert_int_equal(lab_append("/run/t20/files", "link", "x"), -1);
	assert_int_equal(lab_append("/run/t20/files", "new", "one"), 0);
	assert_int_equal(lab_append("/run/t20/files", "new", "two"), 0);
	assert_null(lab_fopen_new("/run/t20/files", "new"));
	assert_null(lab_fopen_read("/run/t20/files/link"));
	assert_null(lab_fopen_write("/run/t20/nodir", "x"));
	err = capture_end();
	/* a new file is not made where a link is (O_EXCL), nor through one */
	assert_string_equal(err, "steerlab: /run/t20/files/link already exists: not overwritten\n"
				 "steerlab: /run/t20/files/link is a symbolic link: not followed\n"
				 "steerlab: /run/t20/files/link is a symbolic link: not followed\n"
				 "steerlab: /run/t20/files/new already exists: not overwritten\n"
				 "steerlab: lab_fopen_flags: /run/t20/nodir/x: No such file or "
				 "directory\n");
	free(err);
	assert_int_equal(access("/run/t20/target", F_OK), -1);
	assert_file("/run/t20/files", "new", "one\ntwo\n");
	assert_non_null(fp = lab_fopen_write("/run/t20/files", "new"));
	fputs("three\n", fp);
	fclose(fp);
	assert_file("/run/t20/files", "new", "three\n");
	assert_non_null(fp = lab_fopen_read("/run/t20/files/new"));
	fclose(fp);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_static_lab),
	    cmocka_unit_test(test_bgp_lab),
	    cmocka_unit_test(test_dual_lab),
	    cmocka_unit_test(test_reconfigure),
	    cmocka_unit_test(test_hosts_lab),
	    cmocka_unit_test(test_hosts_failure),
	    cmocka_unit_test(test_failure_takes_down),
	    cmocka_unit_test(test_interrupted),
	    cmocka_unit_test(test_name_in_use),
	    cmocka_unit_test(test_up_with_agents),
	    cmocka_unit_test(test_files),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
