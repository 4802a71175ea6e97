/* Running a helper program and waiting for it; see subproc.h. */
#include "subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* subproc_start: argv with the child's descriptor i from fds[i] (nfds of
 * them; fds[0] -1: /dev/null), in dir, with the environment envp, its pid
 * in *pidp (0 if it never ran). 0 once it runs, 127 if it could not be run,
 * -1 (errno) if it could not be started. posix_spawn returns once the
 * child has exec'd: the caller waits for it (subproc_status). */
static int subproc_start(const char *dir, char *const argv[], const int *fds, int nfds,
			 char *const envp[], pid_t *pidp)
{
	posix_spawn_file_actions_t fa;
	int high[SUBPROC_MAX_FDS], rc = 0;
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
	return 0;
}

/* subproc_status: wait for pid; its exit status, 128 + N if signal N ended
 * it, or -1 (errno). */
static int subproc_status(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* subproc_spawn: subproc_start, then wait for it. Returns as subproc_run. */
static int subproc_spawn(const char *dir, char *const argv[], const int *fds, int nfds,
			 char *const envp[], pid_t *pidp)
{
	int rc = subproc_start(dir, argv, fds, nfds, envp, pidp);

	return rc == 0 ? subproc_status(*pidp) : rc;
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

int subproc_start_bg(char *const argv[], int out, pid_t *pidp)
{
	int fds[] = {-1, out, out};

	return subproc_start(NULL, argv, fds, 3, environ, pidp);
}

int subproc_wait(pid_t pid)
{
	return subproc_status(pid);
}

/* the environment of a program whose output is read */
static char *const subproc_capture_env[] = {"PATH=/usr/bin:/bin", NULL};

/* subproc_read: what the memory file out holds into *text (malloc'd); 0 or
 * -1 (errno) */
static int subproc_read(int out, char **text)
{
	off_t len;

	if ((len = lseek(out, 0, SEEK_END)) == -1 || (*text = calloc(1, (size_t)len + 1)) == NULL)
		return -1;
	if (pread(out, *text, (size_t)len, 0) != len)
		(*text)[0] = '\0';
	return 0;
}

int subproc_capture(char *const argv[], int in, char **text, pid_t *pidp)
{
	struct subproc_job job = {.argv = argv, .in = in};

	subproc_capture_all(&job, 1, 1);
	*text = job.text;
	if (pidp)
		*pidp = job.pid;
	if (job.status == -1)
		errno = job.errnum;
	return job.status;
}

/* capture_begin: job j started, its output into a memory file (*out) and
 * its pid into job->pid; 0, or -1 with job->status set (not started) */
static int capture_begin(struct subproc_job *job, int *out)
{
	int fds[3];

	job->text = NULL;
	job->pid = 0;
	if ((*out = memfd_create("subproc-output", MFD_CLOEXEC)) == -1) {
		job->status = -1;
		job->errnum = errno;
		return -1;
	}
	fds[0] = job->in;
	fds[1] = fds[2] = *out;
	job->status = subproc_start(NULL, job->argv, fds, 3,
				    job->keep_env ? environ : subproc_capture_env, &job->pid);
	job->errnum = job->status == -1 ? errno : 0;
	if (job->status == 0)
		return 0;
	close(*out);
	*out = -1;
	if (job->status == 127) /* it said nothing */
		job->text = calloc(1, 1);
	return -1;
}

/* capture_end: job, which ran with its output in out, waited for and read */
static void capture_end(struct subproc_job *job, int out)
{
	job->status = subproc_status(job->pid);
	if (job->status == -1 || subproc_read(out, &job->text) == -1) {
		job->errnum = errno;
		job->status = -1;
		free(job->text);
		job->text = NULL;
	}
	close(out);
}

int subproc_capture_all(struct subproc_job *jobs, int n, int parallel)
{
	struct pollfd *pfd;
	int *which, *outs, next = 0, running = 0;

	if (parallel < 1)
		parallel = 1;
	pfd = calloc((size_t)parallel, sizeof(*pfd));
	which = calloc((size_t)parallel, sizeof(*which));
	outs = calloc(n > 0 ? (size_t)n : 1, sizeof(*outs));
	if (pfd == NULL || which == NULL || outs == NULL) {
		/* one at a time, with nothing more to allocate */
		free(pfd);
		free(which);
		free(outs);
		for (int j = 0; j < n; j++) {
			int out;

			if (capture_begin(&jobs[j], &out) == 0)
				capture_end(&jobs[j], out);
		}
		return 0;
	}
	while (next < n || running > 0) {
		while (running < parallel && next < n) {
			int j = next++, fd;

			if (capture_begin(&jobs[j], &outs[j]) == -1)
				continue;
			/* held by a pidfd, so that the first to end is waited for
			 * first; without one, waited for now */
			if ((fd = pidfd_open(jobs[j].pid, 0)) == -1) {
				capture_end(&jobs[j], outs[j]);
				continue;
			}
			pfd[running] = (struct pollfd){.fd = fd, .events = POLLIN};
			which[running++] = j;
		}
		if (running == 0)
			continue;
		if (poll(pfd, (nfds_t)running, -1) == -1 && errno != EINTR)
			pfd[0].revents = POLLIN; /* wait for the first, whatever poll says */
		for (int k = running - 1; k >= 0; k--) {
			if (pfd[k].revents == 0)
				continue;
			capture_end(&jobs[which[k]], outs[which[k]]);
			close(pfd[k].fd);
			pfd[k] = pfd[running - 1];
			which[k] = which[running - 1];
			running--;
		}
	}
	free(pfd);
	free(which);
	free(outs);
	return 0;
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
