/*
 * libFuzzer target: loading a topology as `steerlab check` does
 * (lab/build/overrides.c: the topology parser, the --set overrides, then
 * authd's and resolverd's parsers on their sections), and the property its
 * golden tests rest on: what topo_print writes of a topology loads again
 * (without the overrides, which it records) and prints the same. Leading
 * "--set KEY=VALUE" lines of the input are taken as --set options.
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

#include "lab.h"
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

/* take_sets: the input's leading "--set KEY=VALUE" lines, as steerlab's
 * command line gives them, into sets (copied to buf); the rest is the
 * file. Returns how many. */
static int take_sets(const uint8_t **data, size_t *size, char *sets[], char *buf)
{
	const size_t plen = strlen("--set ");
	int n = 0;

	while (n < 8 && *size > plen && memcmp(*data, "--set ", plen) == 0) {
		const uint8_t *nl = memchr(*data, '\n', *size);
		size_t len;

		if (nl == NULL)
			break;
		len = (size_t)(nl - *data) - plen;
		memcpy(buf, *data + plen, len);
		buf[len] = '\0';
		sets[n++] = buf;
		buf += len + 1;
		*size -= (size_t)(nl + 1 - *data);
		*data = nl + 1;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *sets[8], *buf = malloc(size + 1), *p1, *p2;
	size_t n1, n2;
	int nsets;

	if (buf == NULL)
		abort();
	nsets = take_sets(&data, &size, sets, buf);
	put(fd_in, data, size);
	if (overrides_load(&t1, path_in, nsets ? sets : no_sets, nsets, quiet) == -1) {
		free(buf);
		return 0;
	}
	free(buf);
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
