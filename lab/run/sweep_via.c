/*
 * A sweep's points run elsewhere than in this process: several at once on
 * this machine (--jobs N), or one Slurm array task each (--via slurm); see
 * run.h and docs/sweeps.md, "Many points at once". Each point is a plain
 * `steerlab run` of the same file with the point's --set, its own lab name
 * and --out DIR/NAME, so a point run here, there or by hand is the same
 * run; the sweep reads what the points leave, as it does for its own.
 */
#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomicfile.h"
#include "log.h"
#include "strfmt.h"
#include "subproc.h"
#include "timeutil.h"
#include "topology.h"

/* how often squeue is asked, and the children looked at */
#define VIA_POLL_MS 2000

void sweep_point_lab(const char *lab, int i, char *buf, size_t len)
{
	char suffix[16];
	int keep;

	snprintf(suffix, sizeof(suffix), "-%d", i + 1);
	keep = TOPO_NAME_MAX - (int)strlen(suffix);
	if (keep > (int)strlen(lab))
		keep = (int)strlen(lab);
	while (keep > 1 && lab[keep - 1] == '-')
		keep--;
	strfmt(buf, len, "%.*s%s", keep, lab, suffix);
}

/* One point's command line: steerlab run FILE --set ... --set name=LAB-N
 * --out DIR/NAME -q, its strings in store. */
struct via_cmd {
	char *argv[TOPO_MAX_SETS * 2 + 16];
	char store[8192];
	size_t used;
};

static char *via_keep(struct via_cmd *c, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;

	if (c->used + n > sizeof(c->store))
		return NULL;
	p = memcpy(c->store + c->used, s, n);
	c->used += n;
	return p;
}

/* via_point_cmd: point i's command into c; 0, or -1 (said) */
static int via_point_cmd(const struct sweep *sw, const char *self, const char *file,
			 const char *lab, const char *dir, int i, struct via_cmd *c)
{
	char *sets[TOPO_MAX_SETS + 1], buf[512], name[TOPO_NAME_MAX + 1], arg[PATH_MAX + 64];
	int n = sweep_point_sets(sw, i, sets, buf, sizeof(buf)), k = 0;

	c->used = 0;
	if (n == -1)
		goto long_;
	c->argv[k++] = via_keep(c, self);
	c->argv[k++] = "run";
	c->argv[k++] = via_keep(c, file);
	for (int j = 0; j < n; j++) {
		c->argv[k++] = "--set";
		c->argv[k++] = via_keep(c, sets[j]);
	}
	sweep_point_lab(lab, i, name, sizeof(name));
	strfmt(arg, sizeof(arg), "name=%s", name);
	c->argv[k++] = "--set";
	c->argv[k++] = via_keep(c, arg);
	strfmt(arg, sizeof(arg), "%s/%s", dir, sw->names[i]);
	c->argv[k++] = "--out";
	c->argv[k++] = via_keep(c, arg);
	c->argv[k++] = "-q";
	c->argv[k] = NULL;
	for (int j = 0; j < k; j++)
		if (c->argv[j] == NULL)
			goto long_;
	return 0;
long_:
	log_warnx("sweep: the command of point %s=%s is too long", sw->key, sw->values[i]);
	return -1;
}

/* via_said_end: the end of point i's run, with the exit status st of
 * `steerlab run` (-1: not known, as from Slurm) and where its output is */
static void via_said_end(const struct sweep *sw, const char *dir, int i, int st, const char *log)
{
	char rundir[PATH_MAX], what[160];

	sweep_point_label(sw, i, what, sizeof(what));
	strfmt(rundir, sizeof(rundir), "%s/%s", dir, sw->names[i]);
	if (sweep_point_done(rundir))
		printf("steerlab: %s: finished%s (%s)\n", what,
		       st == 3 ? ", measured but not valid" : "", rundir);
	else if (st >= 0)
		printf("steerlab: %s: failed (steerlab run exited with %d): see %s\n", what, st,
		       log);
	else
		printf("steerlab: %s: failed: see %s\n", what, log);
	fflush(stdout);
}

/* ---- --jobs N: children of this process ---- */

struct via_child {
	pid_t pid;
	int pidfd;
	int point;
	char log[PATH_MAX];
};

static int via_local_start(const struct sweep *sw, const char *self, const char *file,
			   const char *lab, const char *dir, int i, struct via_child *ch)
{
	struct via_cmd cmd;
	int fd, rc;

	if (via_point_cmd(sw, self, file, lab, dir, i, &cmd) == -1)
		return -1;
	strfmt(ch->log, sizeof(ch->log), "%s/logs/%s.txt", dir, sw->names[i]);
	if ((fd = open(ch->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644)) ==
	    -1) {
		log_warn("sweep: %s", ch->log);
		return -1;
	}
	rc = subproc_start_bg(cmd.argv, fd, &ch->pid);
	close(fd);
	if (rc != 0) {
		log_warnx("sweep: %s could not be started", self);
		return -1;
	}
	ch->point = i;
	if ((ch->pidfd = pidfd_open(ch->pid, 0)) == -1)
		log_warn("sweep: pidfd_open");
	return 0;
}

static int via_local(const struct sweep *sw, const char *self, const char *file, const char *lab,
		     const char *dir, const int *todo, int ntodo, int jobs)
{
	struct via_child *ch = calloc((size_t)jobs, sizeof(*ch));
	struct pollfd *pfd = calloc((size_t)jobs, sizeof(*pfd));
	int next = 0, running = 0, told = 0, rc = 0;

	if (ch == NULL || pfd == NULL) {
		log_warn("sweep");
		free(ch);
		free(pfd);
		return -1;
	}
	for (int j = 0; j < jobs; j++)
		ch[j].pid = 0;
	while (running > 0 || (next < ntodo && !run_interrupted && rc == 0)) {
		for (int j = 0; j < jobs && next < ntodo && !run_interrupted && rc == 0; j++) {
			char what[160];

			if (ch[j].pid != 0)
				continue;
			sweep_point_label(sw, todo[next], what, sizeof(what));
			if (via_local_start(sw, self, file, lab, dir, todo[next], &ch[j]) == -1) {
				rc = -1;
				break;
			}
			printf("steerlab: %s (%d of %d): started, %d at once (output: %s)\n", what,
			       next + 1, ntodo, jobs, ch[j].log);
			fflush(stdout);
			next++;
			running++;
		}
		if (run_interrupted && !told) {
			/* a Ctrl-C reached them too; a SIGTERM may not have */
			for (int j = 0; j < jobs; j++)
				if (ch[j].pid != 0)
					kill(ch[j].pid, SIGTERM);
			told = 1;
		}
		for (int j = 0; j < jobs; j++) {
			pfd[j].fd = ch[j].pid != 0 ? ch[j].pidfd : -1;
			pfd[j].events = POLLIN;
			pfd[j].revents = 0;
		}
		if (running > 0 && poll(pfd, (nfds_t)jobs, VIA_POLL_MS) == -1 && errno != EINTR)
			log_warn("sweep: poll");
		for (int j = 0; j < jobs; j++) {
			int st;

			if (ch[j].pid == 0 || (ch[j].pidfd != -1 && !(pfd[j].revents & POLLIN)))
				continue;
			st = subproc_wait(ch[j].pid);
			if (ch[j].pidfd != -1)
				close(ch[j].pidfd);
			via_said_end(sw, dir, ch[j].point, st, ch[j].log);
			ch[j].pid = 0;
			running--;
		}
	}
	free(ch);
	free(pfd);
	return rc;
}

/* ---- --via slurm: one array task per point ---- */

/* via_quote: s in single quotes for sh, into fp */
static void via_quote(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", fp);
		else
			fputc(*s, fp);
	fputc('\'', fp);
}

/* via_script: DIR/slurm-job.sh, the array's task: the point of
 * $SLURM_ARRAY_TASK_ID run. 0, or -1 (said). */
static int via_script(const struct sweep *sw, const char *self, const char *file, const char *lab,
		      const char *dir, const int *todo, int ntodo)
{
	char err[PATH_MAX + 128];
	struct atomicfile af;
	struct via_cmd cmd;
	int dirfd = atomicfile_dir(dir, err, sizeof(err)), rc = -1;

	if (dirfd == -1 || atomicfile_open(&af, dirfd, dir, "slurm-job.sh", err, sizeof(err)) == -1)
		goto out;
	fprintf(af.fp,
		"#!/bin/sh\n# steerlab: one Slurm array task per point of the %s in %s\n"
		"# (docs/sweeps.md, \"On Slurm\"); the task id is the point's index\n"
		"unset STEERLAB_SET\ncase \"$SLURM_ARRAY_TASK_ID\" in\n",
		sw->repeat ? "repeat" : "sweep", dir);
	for (int t = 0; t < ntodo; t++) {
		if (via_point_cmd(sw, self, file, lab, dir, todo[t], &cmd) == -1) {
			atomicfile_abort(&af);
			goto out;
		}
		fprintf(af.fp, "%d)\n\texec", todo[t]);
		for (char **a = cmd.argv; *a; a++) {
			fputc(' ', af.fp);
			via_quote(af.fp, *a);
		}
		fputs("\n\t;;\n", af.fp);
	}
	fputs("esac\necho \"steerlab: no point $SLURM_ARRAY_TASK_ID in this sweep\" >&2\nexit 2\n",
	      af.fp);
	if (fchmod(atomicfile_fd(&af), 0755) == -1)
		log_warn("sweep: slurm-job.sh");
	rc = atomicfile_commit(&af, err, sizeof(err));
out:
	if (rc == -1)
		log_warnx("%s", err);
	if (dirfd != -1)
		close(dirfd);
	return rc;
}

/* via_capture: argv's exit status and output (*text, malloc'd), run in
 * this process's environment (SLURM_CONF) */
static int via_capture(char *const argv[], char **text)
{
	struct subproc_job job = {.argv = argv, .in = -1, .keep_env = 1};

	subproc_capture_all(&job, 1, 1);
	*text = job.text;
	return job.status;
}

/* via_squeue: the tasks of job still in Slurm's queue: pending and
 * running; -1 if squeue failed (text said) */
static int via_squeue(const char *job, int *pending, int *running)
{
	char *argv[] = {"squeue", "-h", "-r", "-j", (char *)job, "-o", "%T", NULL}, *text = NULL;
	int st = via_capture(argv, &text);

	*pending = *running = 0;
	if (st != 0) {
		/* a job Slurm has forgotten (MinJobAge) is one that ended */
		if (text && strstr(text, "Invalid job id")) {
			free(text);
			return 0;
		}
		log_warnx("sweep: squeue -j %s exited with %d: %s", job, st, text ? text : "");
		free(text);
		return -1;
	}
	for (char *l = text; l && *l;) {
		size_t n = strcspn(l, "\n");

		if (n > 0 && strncmp(l, "PENDING", 7) == 0)
			(*pending)++;
		else if (n > 0)
			(*running)++;
		l += n + (l[n] == '\n');
	}
	free(text);
	return 0;
}

static int via_slurm(const struct sweep *sw, const char *self, const char *file, const char *lab,
		     const char *dir, const int *todo, int ntodo, const char *partition)
{
	char array[4096] = "", out[PATH_MAX + 32], script[PATH_MAX + 16], name[64], part[256];
	char *argv[16], *text = NULL, job[64], log[PATH_MAX + 64];
	int k = 0, st, said_p = -1, said_r = -1, said_d = -1, *ended;
	size_t off = 0;

	for (int t = 0; t < ntodo; t++)
		off += (size_t)snprintf(array + off, off < sizeof(array) ? sizeof(array) - off : 0,
					"%s%d", t ? "," : "", todo[t]);
	if (off >= sizeof(array)) {
		log_warnx("sweep: too many points for one Slurm array");
		return -1;
	}
	if (via_script(sw, self, file, lab, dir, todo, ntodo) == -1)
		return -1;
	strfmt(script, sizeof(script), "%s/slurm-job.sh", dir);
	strfmt(out, sizeof(out), "--output=%s/logs/slurm-%%A_%%a.txt", dir);
	strfmt(name, sizeof(name), "--job-name=steerlab-%s", lab);
	argv[k++] = "sbatch";
	argv[k++] = "--parsable";
	argv[k++] = name;
	argv[k++] = "--array";
	argv[k++] = array;
	/* a lab's clocks want a machine of their own: no other job beside */
	argv[k++] = "--exclusive";
	argv[k++] = out;
	argv[k++] = "--chdir";
	argv[k++] = (char *)dir;
	if (partition) {
		strfmt(part, sizeof(part), "--partition=%s", partition);
		argv[k++] = part;
	}
	argv[k++] = script;
	argv[k] = NULL;
	st = via_capture(argv, &text);
	if (st == 127) {
		log_warnx("sweep: --via slurm needs Slurm's sbatch and squeue on PATH (Debian: "
			  "slurm-client) and a cluster that takes root's jobs (docs/sweeps.md, "
			  "\"On Slurm\")");
		free(text);
		return -1;
	}
	if (st != 0 || text == NULL || strspn(text, "0123456789") == 0) {
		log_warnx("sweep: sbatch exited with %d: %s", st, text ? text : "");
		free(text);
		return -1;
	}
	strfmt(job, sizeof(job), "%.*s", (int)strspn(text, "0123456789"), text);
	free(text);
	printf("steerlab: Slurm job %s: %d %s%s as an array (%s), one exclusive node each; "
	       "output in %s/logs\n",
	       job, ntodo, sw->repeat ? "repetition" : "point", ntodo == 1 ? "" : "s", script, dir);
	fflush(stdout);
	if ((ended = calloc((size_t)ntodo, sizeof(*ended))) == NULL) {
		log_warn("sweep");
		return -1;
	}
	for (;;) {
		int pending, running, done = 0, gone;
		char cancel[] = "scancel";

		if (run_interrupted) {
			char *sc[] = {cancel, job, NULL};

			st = via_capture(sc, &text);
			printf("steerlab: interrupted: Slurm job %s cancelled (scancel: %d)\n", job,
			       st);
			free(text);
			break;
		}
		if (via_squeue(job, &pending, &running) == -1)
			break;
		gone = pending + running == 0;
		for (int t = 0; t < ntodo; t++) {
			char rundir[PATH_MAX];

			strfmt(rundir, sizeof(rundir), "%s/%s", dir, sw->names[todo[t]]);
			if (!ended[t] && (gone || sweep_point_done(rundir))) {
				ended[t] = 1;
				strfmt(log, sizeof(log), "%s/logs/slurm-%s_%d.txt", dir, job,
				       todo[t]);
				via_said_end(sw, dir, todo[t], -1, log);
			}
			done += ended[t];
		}
		if (gone)
			break;
		if (pending != said_p || running != said_r || done != said_d) {
			printf("steerlab: Slurm job %s: %d pending, %d running, %d of %d finished "
			       "(squeue -j %s)\n",
			       job, pending, running, done, ntodo, job);
			fflush(stdout);
			said_p = pending, said_r = running, said_d = done;
		}
		poll(NULL, 0, VIA_POLL_MS);
	}
	free(ended);
	return 0;
}

int sweep_via_run(const struct sweep *sw, const char *lab, const char *dir, const int *todo,
		  int ntodo, const struct sweep_opts *o)
{
	char self[PATH_MAX], file[PATH_MAX], adir[PATH_MAX], logs[PATH_MAX + 8];

	if (ntodo == 0)
		return 0;
	/* the same paths from every node: a shared filesystem */
	if (realpath("/proc/self/exe", self) == NULL || realpath(sw->file, file) == NULL ||
	    realpath(dir, adir) == NULL) {
		log_warn("sweep: the absolute paths of steerlab, %s and %s", sw->file, dir);
		return -1;
	}
	strfmt(logs, sizeof(logs), "%s/logs", adir);
	if (mkdir(logs, 0755) == -1 && errno != EEXIST) {
		log_warn("sweep: %s", logs);
		return -1;
	}
	if (o->via == SWEEP_VIA_SLURM)
		return via_slurm(sw, self, file, lab, adir, todo, ntodo, o->partition);
	return via_local(sw, self, file, lab, adir, todo, ntodo, o->jobs);
}
