/* Running a helper program and waiting for it; see subproc.h. */
#include "subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* subproc_spawn: argv with the child's descriptor i from fds[i] (nfds of
 * them; fds[0] -1: /dev/null), in dir, with the environment envp; the
 * child's pid in *pidp once it has been waited for (0 if it never ran).
 * Returns as subproc_run. */
static int subproc_spawn(const char *dir, char *const argv[], const int *fds, int nfds,
			 char *const envp[], pid_t *pidp)
{
	posix_spawn_file_actions_t fa;
	int high[SUBPROC_MAX_FDS], status, rc = 0;
	pid_t pid = 0;

	*pidp = 0;
	if (nfds < 3 || nfds > SUBPROC_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	/* a descriptor given for a place below nfds other than its own would
	 * be replaced before it is copied: copied above them all first */
	for (int i = 0; i < nfds; i++) {
		high[i] = -1;
		if (fds[i] >= 0 && fds[i] < nfds && fds[i] != i &&
		    (high[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, nfds)) == -1)
			rc = errno;
	}
	fflush(NULL); /* what we wrote goes out before what the child writes */
	if (rc == 0)
		rc = posix_spawn_file_actions_init(&fa);
	if (rc != 0)
		goto out;
	for (int i = 0; i < nfds && rc == 0; i++) {
		if (i == 0 && fds[0] == -1)
			rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
							      O_RDONLY, 0);
		else
			rc = posix_spawn_file_actions_adddup2(&fa, high[i] != -1 ? high[i] : fds[i],
							      i);
	}
	if (rc == 0 && dir)
		rc = posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (rc == 0)
		rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
out:
	for (int i = 0; i < nfds; i++)
		if (high[i] != -1)
			close(high[i]);
	if (rc == ENOENT || rc == EACCES || rc == ENOEXEC || rc == ENOTDIR)
		return 127; /* not there, or not runnable */
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	*pidp = pid;
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int subproc_run(const char *dir, char *const argv[], int in, int out, int err)
{
	int fds[] = {in, out, err};
	pid_t pid;

	return subproc_spawn(dir, argv, fds, 3, environ, &pid);
}

int subproc_run_fds(const char *dir, char *const argv[], const int *fds, int nfds)
{
	pid_t pid;

	return subproc_spawn(dir, argv, fds, nfds, environ, &pid);
}

int subproc_capture(char *const argv[], int in, char **text, pid_t *pidp)
{
	static char *const envp[] = {"PATH=/usr/bin:/bin", NULL};
	int out = memfd_create("subproc-output", MFD_CLOEXEC), fds[3], rc, saved;
	pid_t pid;
	off_t len;

	*text = NULL;
	if (out == -1)
		return -1;
	fds[0] = in;
	fds[1] = fds[2] = out;
	rc = subproc_spawn(NULL, argv, fds, 3, envp, &pid);
	if (pidp)
		*pidp = pid;
	if (rc == -1)
		goto fail;
	if ((len = lseek(out, 0, SEEK_END)) == -1 || (*text = calloc(1, (size_t)len + 1)) == NULL)
		goto fail;
	if (pread(out, *text, (size_t)len, 0) != len)
		(*text)[0] = '\0';
	close(out);
	return rc;
fail:
	saved = errno;
	close(out);
	errno = saved;
	return -1;
}

int subproc_memfd(const char *name, void (*fill)(FILE *fp, const void *arg), const void *arg)
{
	int fd = memfd_create(name, MFD_CLOEXEC), saved;
	FILE *fp;

	if (fd == -1)
		return -1;
	fp = fdopen(dup(fd), "w");
	if (fp == NULL)
		goto fail;
	fill(fp, arg);
	if (fclose(fp) != 0 || lseek(fd, 0, SEEK_SET) == -1)
		goto fail;
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}
