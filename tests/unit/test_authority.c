/*
 * PowerDNS's and gdnsd's files for a [dns] node (lab/build/authority*.c,
 * docs/authorities.md): in a dual-stack lab each steered name's AAAA by
 * the same policy as its A over the sites' IPv6 addresses (golden files in
 * tests/unit/data/authority/), the node listening on its IPv6 address, the
 * timeline's changes reaching both records, an IPv4 lab's files without
 * IPv6, and each product's own check of what is written.
 * Run from the repository root.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agents/authd/authd_export.h"
#include "lab/build/authority.h"
#include "lab/topology/topology.h"
#include "rmtree.h"
#include "zone_change.h"
#include "test_topology_util.h"

#define DUAL "tests/unit/data/authority/dual.ini"
#define GOLDEN "tests/unit/data/authority/"

/* written: node ns of t written (with changes ch, NULL: none) into a new
 * temporary directory, its name into dir; the configurations name /NODE */
static void written(const struct topology *t, struct authd_export_changes *ch, char *dir,
		    size_t len)
{
	assert_int_equal(rmtree_mkdtemp(dir, len, "steerlab-test-authority"), 0);
	assert_int_equal(authority_write_changed(t, topo_find(t, "ns"), dir, "/NODE", ch, stderr),
			 0);
}

/* file: DIR/NAME's text (caller frees) */
static char *file(const char *dir, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return test_read_file(path);
}

/* tool_ok: the product's own check (pdnsutil check-all-zones, gdnsd
 * checkconf) takes every [dns] node of t (make deps installs them) */
static void tool_ok(const struct topology *t, const char *prog)
{
	char *errs = NULL;
	size_t len = 0;
	FILE *err;

	if (access(prog, X_OK) != 0)
		fail_msg("%s is not installed: make deps installs it", prog);
	err = open_memstream(&errs, &len);
	assert_non_null(err);
	assert_int_equal(authority_check(t, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	free(errs);
}

/* PowerDNS: each policy's LUA AAAA beside its LUA A, checking and handing
 * out the sites' IPv6 addresses by the same code; geolocation's networks
 * of both families; a simple name's AAAA records; listening on both */
static void test_pdns_dual(void **state)
{
	struct topology *t = new_topology();
	char dir[PATH_MAX], *zone, *conf;

	(void)state;
	load_ok(t, DUAL, NULL, 0);
	written(t, NULL, dir, sizeof(dir));
	zone = file(dir, "lab.example.zone");
	test_assert_golden(GOLDEN "pdns.lab.example.zone", zone);
	conf = file(dir, "pdns.conf");
	assert_non_null(strstr(conf, "local-address=198.18.0.14, 2001:2:0:3::2\n"));
	free(conf);
	free(zone);
	rmtree_at(AT_FDCWD, dir, 1);
	tool_ok(t, "/usr/bin/pdnsutil");
	free(t);
}

/* gdnsd: each datacenter and resource with addrs_v4 and addrs_v6, one
 * DYNA record answering both; geoip's nets of both families */
static void test_gdnsd_dual(void **state)
{
	struct topology *t = new_topology();
	char *sets[] = {"ns.impl=gdnsd"};
	char dir[PATH_MAX], *zone, *conf;

	(void)state;
	load_ok(t, DUAL, sets, 1);
	written(t, NULL, dir, sizeof(dir));
	conf = file(dir, "config");
	test_assert_golden(GOLDEN "gdnsd.config", conf);
	zone = file(dir, "zones/lab.example");
	test_assert_golden(GOLDEN "gdnsd.lab.example", zone);
	free(conf);
	free(zone);
	rmtree_at(AT_FDCWD, dir, 1);
	tool_ok(t, AUTHORITY_GDNSD_PROG);
	free(t);
}

/* the timeline's changes reach the AAAA as the A: a TTL, a drained weight */
static void test_changes_dual(void **state)
{
	static const char *const impls[] = {"ns.impl=pdns", "ns.impl=gdnsd"};
	struct zone_change c[2];
	struct authd_export_changes ch = {.c = c, .n = 2};
	char dir[PATH_MAX], err[ZONE_CHANGE_REASON_LEN + 1];

	(void)state;
	static const char *const lines[] = {"CHANGE ttl set-ttl www.lab.example 1",
					    "CHANGE drain set-weight w.lab.example a 0"};

	for (int i = 0; i < 2; i++)
		assert_int_equal(
		    zone_change_parse(lines[i], strlen(lines[i]), &c[i], err, sizeof(err)), 0);
	for (size_t i = 0; i < 2; i++) {
		struct topology *t = new_topology();
		char *sets[] = {(char *)impls[i]};
		char *zone, *conf;

		load_ok(t, DUAL, sets, 1);
		written(t, &ch, dir, sizeof(dir));
		assert_int_equal(ch.ok, 1);
		if (i == 0) {
			zone = file(dir, "lab.example.zone");
			assert_non_null(strstr(zone, "www.lab.example. 1 IN LUA A ("));
			assert_non_null(strstr(zone, "www.lab.example. 1 IN LUA AAAA ("));
			/* a's weight 0 in both draws */
			assert_non_null(strstr(zone, "{0, '198.19.1.1'}, {1, '198.19.1.2'}"));
			assert_non_null(
			    strstr(zone, "{0, '2001:2:0:ff01::1'}, {1, '2001:2:0:ff01::2'}"));
		} else {
			zone = file(dir, "zones/lab.example");
			assert_non_null(
			    strstr(zone, "www.lab.example. 1/1 DYNA metafo!www_lab_example"));
			conf = file(dir, "config");
			/* a drained: in neither family's draw */
			assert_null(strstr(conf, "a_1 => [ 198.19.1.1"));
			assert_null(strstr(conf, "a_1 => [ 2001:2:0:ff01::1"));
			assert_non_null(strstr(conf, "b_1 => [ 2001:2:0:ff01::2, 1 ]"));
			free(conf);
		}
		free(zone);
		rmtree_at(AT_FDCWD, dir, 1);
		free(t);
	}
}

/* an IPv4 lab: A alone, and the files as before IPv6 */
static void test_ipv4_only(void **state)
{
	static const char *const impls[] = {"ns.impl=pdns", "ns.impl=gdnsd"};
	char dir[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct topology *t = new_topology();
		char *sets[] = {"ip=4", "c6.family=4", (char *)impls[i]};
		char *zone, *conf;

		load_ok(t, DUAL, sets, 3);
		written(t, NULL, dir, sizeof(dir));
		zone = file(dir, i == 0 ? "lab.example.zone" : "zones/lab.example");
		conf = file(dir, i == 0 ? "pdns.conf" : "config");
		assert_null(strstr(zone, "AAAA"));
		assert_null(strstr(zone, "2001:2:0:ff01"));
		assert_null(strstr(conf, "2001:2:0:ff01"));
		assert_null(strstr(conf, "addrs_v6"));
		free(zone);
		free(conf);
		rmtree_at(AT_FDCWD, dir, 1);
		free(t);
	}
}

/* ip = 6: AAAA alone (no LUA A, no IPv4 site address), listening on the
 * link's IPv6 address alone; each product's own check takes it */
static void test_ip6(void **state)
{
	static const char *const impls[] = {"ns.impl=pdns", "ns.impl=gdnsd"};
	char dir[PATH_MAX];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		struct topology *t = new_topology();
		char *sets[] = {"ip=6", "routing=bgp", (char *)impls[i]};
		char *zone, *conf;

		load_ok(t, DUAL, sets, 3);
		written(t, NULL, dir, sizeof(dir));
		zone = file(dir, i == 0 ? "lab.example.zone" : "zones/lab.example");
		conf = file(dir, i == 0 ? "pdns.conf" : "config");
		assert_null(strstr(zone, "198.19."));
		assert_null(strstr(conf, "198.19."));
		assert_non_null(strstr(zone, "2001:2:0:ff01::"));
		if (i == 0) {
			assert_null(strstr(zone, "LUA A "));
			assert_non_null(strstr(zone, "LUA AAAA"));
			assert_non_null(strstr(conf, "local-address=2001:2:0:3::2\n"));
		} else {
			assert_null(strstr(conf, "addrs_v4"));
			assert_non_null(strstr(conf, "listen => [ 2001:2:0:3::2 ]"));
		}
		free(zone);
		free(conf);
		rmtree_at(AT_FDCWD, dir, 1);
		tool_ok(t, i == 0 ? "/usr/bin/pdnsutil" : AUTHORITY_GDNSD_PROG);
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pdns_dual),	 cmocka_unit_test(test_gdnsd_dual),
	    cmocka_unit_test(test_changes_dual), cmocka_unit_test(test_ipv4_only),
	    cmocka_unit_test(test_ip6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
