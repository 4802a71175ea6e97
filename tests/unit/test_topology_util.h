/*
 * Helpers shared by the topology unit tests (test_topology*.c): loading a
 * fixture with its errors captured, comparing them with what is expected,
 * topo_print to a string, temporary files and node look-ups. Each test
 * binary includes its own copy, as the Makefile builds every
 * tests/unit/test_*.c alone; static inline keeps the unused ones quiet.
 * Run the tests from the repository root: the fixtures are under DATA.
 */
#ifndef STEERLAB_TEST_TOPOLOGY_UTIL_H
#define STEERLAB_TEST_TOPOLOGY_UTIL_H

#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "lab/topology/topology.h"
#include "test_file.h"

#define DATA "tests/unit/data/topology/"

static inline struct topology *new_topology(void)
{
	struct topology *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	return t;
}

/* load: topo_load with its error output in *errs (malloc'd). */
static inline int load(struct topology *t, const char *path, char *const sets[], int nsets,
		       char **errs)
{
	size_t len;
	FILE *err = open_memstream(errs, &len);
	int rc;

	assert_non_null(err);
	rc = topo_load(t, path, sets, nsets, err);
	fclose(err);
	return rc;
}

/* load_ok: loading succeeds without a message. */
static inline void load_ok(struct topology *t, const char *path, char *const sets[], int nsets)
{
	char *errs;

	int rc = load(t, path, sets, nsets, &errs);
	if (rc != 0)
		fail_msg("%s: unexpected errors:\n%s", path, errs);
	assert_string_equal(errs, "");
	free(errs);
}

/* expect_errors: loading fails with exactly these messages. */
static inline void expect_errors(const char *path, char *const sets[], int nsets,
				 const char *expected)
{
	struct topology *t = new_topology();
	char *errs;

	assert_int_equal(load(t, path, sets, nsets, &errs), -1);
	assert_string_equal(errs, expected);
	free(errs);
	free(t);
}

/* print_to_string: what topo_print writes (caller frees). */
static inline char *print_to_string(const struct topology *t)
{
	char *buf;
	size_t len;
	FILE *out = open_memstream(&buf, &len);

	assert_non_null(out);
	topo_print(t, out);
	fclose(out);
	return buf;
}

/* write_temp: a temporary file holding text; its path in path[64]. */
static inline void write_temp(char *path, const char *text, size_t len)
{
	int fd;

	snprintf(path, 64, "/tmp/test_topology.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

static inline void assert_addr(struct in_addr a, const char *expected)
{
	char buf[INET_ADDRSTRLEN];

	assert_non_null(inet_ntop(AF_INET, &a, buf, sizeof(buf)));
	assert_string_equal(buf, expected);
}

/* node_index: the index of node name; the test fails if there is none. */
static inline int node_index(const struct topology *t, const char *name)
{
	int i = topo_find(t, name);

	if (i < 0)
		fail_msg("no node '%s'", name);
	return i;
}

static inline const struct topo_node *node(const struct topology *t, const char *name)
{
	return &t->nodes[node_index(t, name)];
}

#endif
