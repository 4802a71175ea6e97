/*
 * The lab's netlink calls (lab/build/kernel.c) on the kernel, as `ip` then shows
 * them: veth ends made in the namespaces asked, down; links set up and
 * down, forwarding on; addresses, routes (via a gateway, or on the link)
 * and local routes with their metrics and protocol; what is already there
 * refused, or taken as done once a node is configured again (kern_again);
 * each failure said with libnl's words. It runs in the network namespace
 * of tests/unit/test_sandbox.h and namespaces it makes beside it, never
 * in the machine's: nothing here can touch its links, addresses or routes.
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

#include <arpa/inet.h>
#include <cmocka.h>

#include "lab/build/kernel.h"
#include "test_sandbox.h"

/* new_ns: a new network namespace, held by the descriptor returned; the
 * test comes back to its own */
static int new_ns(void)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), fd;

	assert_true(self >= 0);
	assert_int_equal(unshare(CLONE_NEWNET), 0);
	fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_int_equal(setns(self, CLONE_NEWNET), 0);
	close(self);
	assert_true(fd >= 0);
	return fd;
}

/* ip_json: what `ip -j ARGS` prints in the namespace nsfd (-1: the test's) */
static json_t *ip_json(int nsfd, const char *args)
{
	char cmd[256], *text = NULL, *argv[16];
	int n_argv = 0;
	size_t len = 0, cap = 0;
	json_error_t jerr;
	json_t *doc;
	int p[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(cmd, sizeof(cmd), "ip -j %s", args);
	for (char *w = strtok(cmd, " "); w && n_argv < 15; w = strtok(NULL, " "))
		argv[n_argv++] = w;
	argv[n_argv] = NULL;
	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		if (nsfd >= 0 && setns(nsfd, CLONE_NEWNET) == -1)
			_exit(126);
		dup2(p[1], STDOUT_FILENO);
		execvp("ip", argv);
		_exit(127);
	}
	close(p[1]);
	do {
		if (len + 4096 + 1 > cap)
			assert_non_null(text = realloc(text, cap = cap * 2 + 8192));
		n = read(p[0], text + len, 4096);
		if (n > 0)
			len += (size_t)n;
	} while (n > 0);
	text[len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("ip -j %s: failed (status %d)", args, status);
	doc = json_loads(text, 0, &jerr);
	if (doc == NULL)
		fail_msg("ip -j %s: not JSON: %s", args, text);
	free(text);
	return doc;
}

/* find: the element of the array whose key is value */
static json_t *find(json_t *array, const char *key, const char *value)
{
	for (size_t i = 0; i < json_array_size(array); i++) {
		json_t *o = json_array_get(array, i);
		const char *v = json_string_value(json_object_get(o, key));

		if (v && strcmp(v, value) == 0)
			return o;
	}
	return NULL;
}

/* has_flag: the link's flags include flag */
static int has_flag(json_t *link, const char *flag)
{
	json_t *flags = json_object_get(link, "flags");

	for (size_t i = 0; i < json_array_size(flags); i++)
		if (strcmp(json_string_value(json_array_get(flags, i)), flag) == 0)
			return 1;
	return 0;
}

static json_t *link_of(int nsfd, const char *name)
{
	json_t *links = ip_json(nsfd, "link show"), *l = find(links, "ifname", name);

	l = json_incref(l);
	json_decref(links);
	return l;
}

static struct in_addr addr(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a;
}

static int nsa = -1, nsb = -1, ifa;
static struct kern *root, *ka;

/* a veth between two new namespaces, its end a up with 198.18.0.1/30 */
static int setup(void **state)
{
	(void)state;
	if (!sandbox_ok)
		return 0;
	nsa = new_ns();
	nsb = new_ns();
	if ((root = kern_open(-1)) == NULL || (ka = kern_open(nsa)) == NULL)
		return -1;
	if (kern_veth(root, "t20a", nsa, "t20b", nsb) == -1)
		return -1;
	return (ifa = kern_ifindex(ka, "t20a")) > 1 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	kern_close(ka);
	kern_close(root);
	ka = root = NULL;
	/* the namespaces, and their links, go with their last descriptor */
	if (nsa >= 0)
		close(nsa);
	if (nsb >= 0)
		close(nsb);
	nsa = nsb = -1;
	return 0;
}

static void test_veth(void **state)
{
	json_t *a, *b, *mine;
	char *err;

	(void)state;
	SANDBOX_REQUIRE();
	/* each end in its namespace, down; nothing in the test's */
	a = link_of(nsa, "t20a");
	b = link_of(nsb, "t20b");
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(json_integer_value(json_object_get(a, "ifindex")), ifa);
	assert_string_equal(json_string_value(json_object_get(a, "link_type")), "ether");
	assert_false(has_flag(a, "UP"));
	assert_false(has_flag(b, "UP"));
	mine = ip_json(-1, "link show");
	assert_null(find(mine, "ifname", "t20a"));
	assert_null(find(mine, "ifname", "t20b"));
	json_decref(a);
	json_decref(b);
	json_decref(mine);
	/* a name in use, a link of another namespace, a namespace that is none */
	capture_begin();
	assert_int_equal(kern_veth(root, "t20a", nsa, "t20c", nsb), -1);
	assert_int_equal(kern_ifindex(ka, "t20b"), -1);
	{
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
		assert_null(kern_open(null));
		close(null);
	}
	err = capture_end();
	assert_string_equal(err, "steerlab: kern_veth: veth t20a/t20c: Object exists\n"
				 "steerlab: kern_ifindex: link t20b: No such device\n"
				 "steerlab: kern_open: setns: Invalid argument\n");
	free(err);
	/* kern_open came back to the test's namespace */
	mine = ip_json(-1, "link show");
	assert_null(find(mine, "ifname", "t20a"));
	json_decref(mine);
}

static void test_link_flags(void **state)
{
	char path[64], *fwd, *err;
	json_t *a;
	int self;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(kern_link_up(ka, ifa), 0);
	assert_true(has_flag(a = link_of(nsa, "t20a"), "UP"));
	json_decref(a);
	assert_int_equal(kern_link_set(ka, ifa, 0), 0);
	assert_false(has_flag(a = link_of(nsa, "t20a"), "UP"));
	json_decref(a);
	assert_int_equal(kern_link_set(ka, ifa, 1), 0);
	assert_true(has_flag(a = link_of(nsa, "t20a"), "UP"));
	json_decref(a);
	/* forwarding on that link, in that namespace: its /proc/sys */
	assert_int_equal(kern_link_forwarding(ka, ifa), 0);
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	assert_int_equal(setns(nsa, CLONE_NEWNET), 0);
	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/t20a/forwarding");
	fwd = sandbox_read(path);
	assert_int_equal(setns(self, CLONE_NEWNET), 0);
	close(self);
	assert_non_null(fwd);
	assert_string_equal(fwd, "1\n");
	free(fwd);
	/* no such link */
	capture_begin();
	assert_int_equal(kern_link_up(ka, 999), -1);
	assert_int_equal(kern_link_set(ka, 999, 0), -1);
	assert_int_equal(kern_link_forwarding(ka, 999), -1);
	err = capture_end();
	assert_string_equal(err, "steerlab: kern_link_up: link 999 up: No such device\n"
				 "steerlab: kern_link_set: link 999 down: No such device\n"
				 "steerlab: kern_link_forwarding: link 999 forwarding: No such "
				 "device\n");
	free(err);
}

static void test_addresses(void **state)
{
	json_t *addrs, *a, *info;
	char *err;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(kern_addr_add(ka, ifa, addr("198.18.0.1"), 30), 0);
	assert_int_equal(kern_addr_add(ka, 1, addr("198.19.1.1"), 32), 0);
	addrs = ip_json(nsa, "-4 addr show");
	a = find(addrs, "ifname", "t20a");
	assert_non_null(a);
	info = json_array_get(json_object_get(a, "addr_info"), 0);
	assert_string_equal(json_string_value(json_object_get(info, "local")), "198.18.0.1");
	assert_int_equal(json_integer_value(json_object_get(info, "prefixlen")), 30);
	a = find(addrs, "ifname", "lo");
	assert_non_null(a);
	info = json_array_get(json_object_get(a, "addr_info"), 0);
	assert_string_equal(json_string_value(json_object_get(info, "local")), "198.19.1.1");
	assert_int_equal(json_integer_value(json_object_get(info, "prefixlen")), 32);
	json_decref(addrs);
	/* there already: an error the first time round, done the second */
	capture_begin();
	assert_int_equal(kern_addr_add(ka, ifa, addr("198.18.0.1"), 30), -1);
	err = capture_end();
	{
		char want[128];
		snprintf(want, sizeof(want),
			 "steerlab: kern_addr_add: address 198.18.0.1/30 on link %d: Object "
			 "exists\n",
			 ifa);
		assert_string_equal(err, want);
	}
	free(err);
	kern_again(ka);
	assert_int_equal(kern_addr_add(ka, ifa, addr("198.18.0.1"), 30), 0);
}

static void test_routes(void **state)
{
	json_t *routes, *r;
	char *err, want[512];

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(kern_link_up(ka, 1), 0);
	assert_int_equal(kern_link_up(ka, ifa), 0);
	assert_int_equal(kern_addr_add(ka, ifa, addr("198.18.0.1"), 30), 0);
	assert_int_equal(kern_route_add(ka, addr("198.19.1.0"), 24, addr("198.18.0.2"), ifa, 5), 0);
	assert_int_equal(kern_route_add(ka, addr("198.19.2.0"), 24, addr("0.0.0.0"), ifa, 0), 0);
	assert_int_equal(kern_local_add(ka, addr("198.19.0.1"), 1), 0);

	routes = ip_json(nsa, "-4 route show");
	r = find(routes, "dst", "198.19.1.0/24");
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "gateway")), "198.18.0.2");
	assert_string_equal(json_string_value(json_object_get(r, "dev")), "t20a");
	assert_int_equal(json_integer_value(json_object_get(r, "metric")), 5);
	assert_string_equal(json_string_value(json_object_get(r, "protocol")), "static");
	r = find(routes, "dst", "198.19.2.0/24");
	assert_non_null(r);
	assert_null(json_object_get(r, "gateway"));
	assert_string_equal(json_string_value(json_object_get(r, "dev")), "t20a");
	assert_string_equal(json_string_value(json_object_get(r, "scope")), "link");
	assert_null(json_object_get(r, "metric"));
	json_decref(routes);
	/* the service delivered here without an address: AnyIP, metric 1 */
	routes = ip_json(nsa, "-4 route show table local");
	r = find(routes, "dst", "198.19.0.1");
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "type")), "local");
	assert_string_equal(json_string_value(json_object_get(r, "dev")), "lo");
	assert_int_equal(json_integer_value(json_object_get(r, "metric")), 1);
	assert_string_equal(json_string_value(json_object_get(r, "protocol")), "static");
	assert_string_equal(json_string_value(json_object_get(r, "scope")), "host");
	json_decref(routes);
	/* nothing of it in the test's own namespace */
	routes = ip_json(-1, "-4 route show table all");
	assert_null(find(routes, "dst", "198.19.1.0/24"));
	assert_null(find(routes, "dst", "198.19.0.1"));
	json_decref(routes);

	/* there already: refused, then done once configured again */
	capture_begin();
	assert_int_equal(kern_route_add(ka, addr("198.19.1.0"), 24, addr("198.18.0.2"), ifa, 5),
			 -1);
	assert_int_equal(kern_local_add(ka, addr("198.19.0.1"), 1), -1);
	/* a gateway on no link of it */
	assert_int_equal(kern_route_add(ka, addr("198.19.3.0"), 24, addr("198.18.9.9"), ifa, 0),
			 -1);
	err = capture_end();
	snprintf(want, sizeof(want),
		 "steerlab: kern_route_add: route 198.19.1.0/24: Object exists\n"
		 "steerlab: kern_local_add: local route 198.19.0.1/32: Object exists\n"
		 "steerlab: kern_route_add: route 198.19.3.0/24: Unspecific failure\n");
	assert_string_equal(err, want);
	free(err);
	kern_again(ka);
	assert_int_equal(kern_route_add(ka, addr("198.19.1.0"), 24, addr("198.18.0.2"), ifa, 5), 0);
	assert_int_equal(kern_local_add(ka, addr("198.19.0.1"), 1), 0);
}

static struct in6_addr addr6(const char *s)
{
	struct in6_addr a;

	assert_int_equal(inet_pton(AF_INET6, s, &a), 1);
	return a;
}

/* ip = dual (lab/build/addr6.c): an IPv6 address usable at once (no
 * duplicate address detection), a route via a gateway on its /64 and one
 * straight on the link */
static void test_ipv6(void **state)
{
	struct in6_addr local = addr6("2001:2::1"), net = addr6("2001:2:0:ff01::"),
			gw = addr6("2001:2::2"), any = addr6("::");
	json_t *addrs, *routes, *a, *info, *r;

	(void)state;
	SANDBOX_REQUIRE();
	assert_int_equal(kern_link_up(ka, ifa), 0);
	assert_int_equal(kern_addr6_add(ka, ifa, &local, 64), 0);
	assert_int_equal(kern_route6_add(ka, &net, 64, &gw, ifa), 0);
	assert_int_equal(kern_route6_add(ka, &any, 0, NULL, ifa), 0);
	addrs = ip_json(nsa, "-6 addr show scope global");
	a = find(addrs, "ifname", "t20a");
	assert_non_null(a);
	info = json_array_get(json_object_get(a, "addr_info"), 0);
	assert_string_equal(json_string_value(json_object_get(info, "local")), "2001:2::1");
	assert_int_equal(json_integer_value(json_object_get(info, "prefixlen")), 64);
	assert_null(json_object_get(info, "tentative"));
	json_decref(addrs);
	routes = ip_json(nsa, "-6 route show");
	r = find(routes, "dst", "2001:2:0:ff01::/64");
	assert_non_null(r);
	assert_string_equal(json_string_value(json_object_get(r, "gateway")), "2001:2::2");
	assert_string_equal(json_string_value(json_object_get(r, "dev")), "t20a");
	assert_string_equal(json_string_value(json_object_get(r, "protocol")), "static");
	r = find(routes, "dst", "default");
	assert_non_null(r);
	assert_null(json_object_get(r, "gateway"));
	json_decref(routes);
	/* there already: refused, then done once configured again */
	capture_begin();
	assert_int_equal(kern_addr6_add(ka, ifa, &local, 64), -1);
	free(capture_end());
	kern_again(ka);
	assert_int_equal(kern_addr6_add(ka, ifa, &local, 64), 0);
	assert_int_equal(kern_route6_add(ka, &net, 64, &gw, ifa), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_veth, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_link_flags, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_addresses, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_routes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ipv6, setup, teardown),
	};

	SANDBOX_MAIN(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
