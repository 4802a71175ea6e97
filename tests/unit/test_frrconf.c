/*
 * FRR's configuration of a lab's routers (lab/frrconf.h): what each
 * router's bgpd is told (AS, router id, one neighbour per [link] in the
 * other router's AS), and FRR's own dry run taking it or naming the line
 * it rejects. Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/frrconf.h"
#include "lab/topology.h"
#include "test_topology_util.h"

static char *conf_of(const struct topology *t, const char *router)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	assert_non_null(fp);
	assert_int_equal(frrconf_write(t, node_index(t, router), fp), 0);
	fclose(fp);
	return text;
}

static void test_two_routers(void **state)
{
	struct topology *t = new_topology();
	char *c;

	(void)state;
	load_ok(t, "topology/two-routers.ini", NULL, 0);
	c = conf_of(t, "r1");
	assert_non_null(strstr(c, "\nhostname r1\n"));
	assert_non_null(strstr(c, "\nrouter bgp 65001\n bgp router-id 198.18.40.1\n"));
	assert_non_null(strstr(c, "\n neighbor 198.18.32.2 remote-as 65002\n"));
	assert_non_null(strstr(c, "\n  neighbor 198.18.32.2 activate\n"));
	assert_null(strstr(c, "198.18.32.1 ")); /* not itself */
	free(c);
	c = conf_of(t, "r2");
	assert_non_null(strstr(c, "\nrouter bgp 65002\n bgp router-id 198.18.40.2\n"));
	assert_non_null(strstr(c, "\n neighbor 198.18.32.1 remote-as 65001\n"));
	free(c);
	free(t);
}

/* one neighbour per [link], in the peer's own AS (asn set or default) */
static void test_square(void **state)
{
	struct topology *t = new_topology();
	char *c;

	(void)state;
	load_ok(t, DATA "routers.ini", NULL, 0);
	c = conf_of(t, "r4");
	assert_non_null(strstr(c, "\nrouter bgp 65004\n"));
	assert_non_null(strstr(c, " neighbor 198.18.32.5 remote-as 64512\n")); /* r2's asn */
	assert_non_null(strstr(c, " neighbor 198.18.32.14 remote-as 65003\n"));
	assert_non_null(strstr(c, " neighbor 198.18.32.17 remote-as 65005\n"));
	assert_int_equal(strstr(c, " neighbor 198.18.32.17 activate") != NULL, 1);
	free(c);
	c = conf_of(t, "r5"); /* one link */
	assert_non_null(strstr(c, " neighbor 198.18.32.18 remote-as 65004\n"));
	assert_null(strstr(c, "198.18.32.5"));
	free(c);
	free(t);
}

/* bgpd's dry run: the lab's configuration passes, a bad line is named */
static void test_bgpd_check(void **state)
{
	struct topology *t = new_topology();
	char path[] = "/tmp/test_frrconf.XXXXXX", why[512];
	char *c;
	int fd;

	(void)state;
	if (access(FRRCONF_BGPD, X_OK) != 0) {
		fprintf(stderr, "no %s (sudo make deps): the dry run is not tested\n",
			FRRCONF_BGPD);
		skip();
	}
	load_ok(t, DATA "routers.ini", NULL, 0);
	c = conf_of(t, "r4");
	fd = mkstemp(path);
	assert_true(fd != -1);
	assert_int_equal(fchmod(fd, 0644), 0); /* bgpd reads it as user frr */
	assert_int_equal(write(fd, c, strlen(c)), (ssize_t)strlen(c));
	if (frrconf_check(FRRCONF_BGPD, path, why, sizeof(why)) != 0)
		fail_msg("bgpd -C: %s", why);
	/* the same with one word wrong */
	*strstr(c, "remote-as") = 'R';
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(write(fd, c, strlen(c)), (ssize_t)strlen(c));
	assert_int_equal(frrconf_check(FRRCONF_BGPD, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "Config Failed on config line 10:"));
	assert_non_null(strstr(why, "Remote-as"));
	close(fd);
	unlink(path);
	free(c);
	free(t);
}

static void test_bgpd_missing(void **state)
{
	char why[512];

	(void)state;
	assert_int_equal(frrconf_check("/nonexistent/bgpd", "/dev/null", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot run /nonexistent/bgpd"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_routers),
	    cmocka_unit_test(test_square),
	    cmocka_unit_test(test_bgpd_check),
	    cmocka_unit_test(test_bgpd_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
