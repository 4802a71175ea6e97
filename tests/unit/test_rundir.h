/*
 * The run-directory fixture of the unit tests: a fresh directory under /tmp
 * (rundir_new), filled from a recorded run of tests/unit/data if the test
 * wants one (rundir_copy), and removed with every file in it (rundir_free).
 * The tests of the clocks, the verdict, the report and atomic writes build
 * their cmocka setup and teardown from these.
 */
#ifndef STEERLAB_TEST_RUNDIR_H
#define STEERLAB_TEST_RUNDIR_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* rundir_new: a new empty directory /tmp/NAME.XXXXXX, malloc'ed; NULL on
 * failure */
static inline char *rundir_new(const char *name)
{
	char *dir;

	if (asprintf(&dir, "/tmp/%s.XXXXXX", name) == -1)
		return NULL;
	if (mkdtemp(dir) == NULL) {
		free(dir);
		return NULL;
	}
	return dir;
}

/* rundir_copy: copy every file of the directory from (relative to the
 * repository root, where the tests run) into dir. 0 or -1. */
static inline int rundir_copy(const char *dir, const char *from)
{
	char src[512], dst[512], buf[65536];
	struct dirent *de;
	DIR *d = opendir(from);
	FILE *in, *out;
	size_t n;
	int rc = 0;

	if (d == NULL)
		return -1;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, de->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", dir, de->d_name);
		in = fopen(src, "rb");
		out = fopen(dst, "wb");
		if (in == NULL || out == NULL)
			rc = -1;
		while (rc == 0 && (n = fread(buf, 1, sizeof(buf), in)) > 0)
			if (fwrite(buf, 1, n, out) != n)
				rc = -1;
		if (in != NULL)
			fclose(in);
		if (out != NULL && fclose(out) != 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* rundir_free: remove dir's files (not subdirectories), dir, and free it */
static inline void rundir_free(char *dir)
{
	char path[512];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(dir);
	free(dir);
}

#endif
