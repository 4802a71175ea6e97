/*
 * libFuzzer target: loading a topology as `steerlab check` does
 * (lab/overrides.h: the topology parser, then authd's and resolverd's
 * parsers on their sections), and the property its golden tests rest on:
 * what topo_print writes of a topology loads again and prints the same.
 *
 * topo_load reads a path: the input is written to a memfd and read as
 * /proc/self/fd/N.
 *
 *   make fuzz-run-topology   # from tests/fuzz/corpus/topology/
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "overrides.h"
#include "topology.h"

static struct topology t1, t2;
static char *no_sets[1]; /* steerlab passes its array, empty without --set */
static int fd_in, fd_out;
static char path_in[64], path_out[64];
static FILE *quiet;

static int memfd(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, MFD_CLOEXEC);

	if (fd == -1) {
		perror("memfd_create");
		abort();
	}
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void put(int fd, const void *data, size_t size)
{
	if (ftruncate(fd, 0) == -1 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
}

/* print: t printed, malloc'd */
static char *print(const struct topology *t, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		abort();
	topo_print(t, f);
	fclose(f);
	return buf;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd_in = memfd("topology", path_in, sizeof(path_in));
	fd_out = memfd("printed", path_out, sizeof(path_out));
	quiet = fopen("/dev/null", "w");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p1, *p2;
	size_t n1, n2;

	put(fd_in, data, size);
	if (overrides_load(&t1, path_in, no_sets, 0, quiet) == -1)
		return 0;
	p1 = print(&t1, &n1);
	put(fd_out, p1, n1);
	if (overrides_load(&t2, path_out, no_sets, 0, stderr) == -1) {
		fprintf(stderr, "the printed topology does not load:\n%s", p1);
		abort();
	}
	p2 = print(&t2, &n2);
	if (n1 != n2 || memcmp(p1, p2, n1) != 0) {
		fprintf(stderr, "printed, loaded and printed again, it differs:\n%s\n---\n%s", p1,
			p2);
		abort();
	}
	free(p1);
	free(p2);
	return 0;
}
