/*
 * The plots: a gnuplot script per chart, kept in the run directory so that
 * anyone can change it and plot again (`gnuplot decay.gp` there), and
 * gnuplot run on it as a child process in that directory:
 *
 *   decay.gp     -> decay.png     both schemes' decay curves (decay.csv)
 *   upstream.gp  -> upstream.png  the queries that reached authd per second
 *                                 (upstream.csv), when there is a capture
 *
 * gnuplot's output goes to gnuplot.log, removed when it is empty. A gnuplot
 * that is missing or fails is no error: the report says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report_int.h"
#include "timeutil.h"

extern char **environ;

#define PLOT_LOG "gnuplot.log"

int report_spawn(const char *dir, char *const argv[], int fd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, rc;

	/* posix_spawn, not fork: the analysis may hold a few hundred MB of
	 * packets, whose page tables fork would copy for nothing */
	fflush(NULL); /* what we wrote goes out before what the child writes */
	if ((rc = posix_spawn_file_actions_init(&fa)) != 0) {
		errno = rc;
		return -1;
	}
	rc = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, fd, STDERR_FILENO);
	if (rc == 0 && dir)
		rc = posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (rc == 0)
		rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc == ENOENT || rc == EACCES || rc == ENOEXEC || rc == ENOTDIR)
		return 127; /* not there, or not runnable */
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* the terminal: pngcairo's antialiased text where gnuplot has it */
static void plot_terminal(FILE *fp, const char *png)
{
	fprintf(fp,
		"if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
		"\tset terminal pngcairo size 1000,600 font \"Sans,11\" noenhanced\n"
		"} else {\n"
		"\tset terminal png size 1000,600 noenhanced\n"
		"}\n"
		"set output \"%s\"\n"
		"set datafile separator \",\"\n"
		"set datafile columnheaders\n"
		"set grid\n",
		png);
}

static const char *const plot_colour[REPORT_NSCHEMES] = {"#1f77b4", "#d62728"};
static const char *const plot_title[REPORT_NSCHEMES] = {"anycast", "DNS steering"};

static int plot_decay_script(const struct report *r, char *err, size_t errlen)
{
	const struct clocks_decay *d = &r->decay;
	char bucket[48], end[48];
	FILE *fp = report_file_open(r, "decay.gp", err, errlen);

	if (fp == NULL)
		return -1;
	fprintf(fp,
		"# The decay curves of lab %s (decay.csv), written by steerlab report.\n"
		"# Plot again in this directory with: gnuplot decay.gp\n",
		r->in.lab);
	plot_terminal(fp, "decay.png");
	fprintf(fp,
		"set title \"lab %s: share of each scheme's requests still sent to the dead site "
		"%s (buckets of %s)\"\n"
		"set xlabel \"time after the failure (s)\"\n"
		"set ylabel \"share of requests to the dead site (%%)\"\n"
		"set xrange [0:%s]\n"
		"# a little below 0, so that a curve at 0 is not hidden by the axis\n"
		"set yrange [-3:103]\n"
		"set ytics 0,20,100\n"
		"set key below\n"
		"# a bucket's share is drawn from its start to its end (columns t_s, t_end_s)\n",
		r->in.lab, r->in.failure.site,
		report_fmt_duration(bucket, sizeof(bucket), d->bucket_ns),
		report_fmt_s(end, sizeof(end), d->end_ns));
	/* a curve per scheme that has one: share in column 3 + 3 i */
	for (int i = 0, n = 0; i < REPORT_NSCHEMES; i++) {
		if (!d->s[i].known || r->res[i].noflows)
			continue;
		fprintf(fp,
			"%s\"decay.csv\" using 1:($%d * 100) with steps lw 2 lc rgb \"%s\" "
			"title \"%s\"",
			n++ ? ", \\\n     " : "plot ", 3 + 3 * i, plot_colour[i], plot_title[i]);
	}
	fputc('\n', fp);
	return report_file_close(r, fp, "decay.gp", err, errlen);
}

static int plot_upstream_script(const struct report *r, char *err, size_t errlen)
{
	FILE *fp = report_file_open(r, "upstream.gp", err, errlen);
	int64_t max = 0, step;

	for (size_t i = 0; i < r->up.n; i++)
		if (r->up.total[i] > max)
			max = r->up.total[i];
	/* whole queries on the axis, and room above the highest box */
	step = max <= 8 ? 1 : (max + 7) / 8;

	if (fp == NULL)
		return -1;
	fprintf(fp,
		"# The queries that reached authd in lab %s (upstream.csv), written by steerlab "
		"report.\n# Plot again in this directory with: gnuplot upstream.gp\n",
		r->in.lab);
	plot_terminal(fp, "upstream.png");
	fprintf(fp,
		"set title \"lab %s: DNS queries reaching authd, per second (all resolvers)\"\n"
		"set xlabel \"time after the failure (s)\"\n"
		"set ylabel \"queries per second\"\n"
		"set xrange [%lld:%lld]\n"
		"set yrange [0:%lld]\n"
		"set ytics 0,%lld\n"
		"set style fill solid 0.6 border -1\n"
		"set boxwidth 0.9 relative\n"
		"unset key\n"
		"set arrow from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb \"#555555\"\n"
		"set label \" failure of %s\" at 0, graph 0.95 left\n"
		"# second k runs from t_s to t_end_s: its box is drawn in between\n"
		"plot \"upstream.csv\" using (($1 + $2) / 2):3 with boxes lc rgb \"#2ca02c\" "
		"notitle\n",
		r->in.lab, (long long)r->up.first, (long long)(r->up.first + (int64_t)r->up.n),
		(long long)(max + step), (long long)step, r->in.failure.site);
	return report_file_close(r, fp, "upstream.gp", err, errlen);
}

/* plot_run: gnuplot on one script; 0 drawn, -1 not (r->plot_note says why) */
static int plot_run(struct report *r, const char *script, int logfd)
{
	char *argv[] = {(char *)r->gnuplot, (char *)script, NULL};
	int rc = report_spawn(r->rundir, argv, logfd);

	if (rc == 0)
		return 0;
	if (rc == 127)
		snprintf(r->plot_note, sizeof(r->plot_note),
			 "%s was not found (Debian: apt-get install gnuplot-nox, or make deps): "
			 "no PNG; the scripts are there to plot later (gnuplot %s)",
			 r->gnuplot, script);
	else if (rc == -1)
		snprintf(r->plot_note, sizeof(r->plot_note), "%s could not be started: %s",
			 r->gnuplot, strerror(errno));
	else
		snprintf(r->plot_note, sizeof(r->plot_note), "%s %s failed (status %d): see %s",
			 r->gnuplot, script, rc, PLOT_LOG);
	return -1;
}

int report_plot(struct report *r, char *err, size_t errlen)
{
	char log[PATH_MAX];
	struct stat st;
	int fd;

	r->plot_decay = r->decay.n > 0 && ((r->decay.s[0].known && !r->res[0].noflows) ||
					   (r->decay.s[1].known && !r->res[1].noflows));
	r->plot_upstream = r->up.known && r->up.n > 0;
	if (!r->plot_decay && !r->plot_upstream) {
		snprintf(r->plot_note, sizeof(r->plot_note),
			 "nothing to plot: no scheme's requests after t0, no query capture");
		return 0;
	}
	if ((r->plot_decay && plot_decay_script(r, err, errlen) == -1) ||
	    (r->plot_upstream && plot_upstream_script(r, err, errlen) == -1))
		return -1;
	snprintf(log, sizeof(log), "%s/%s", r->rundir, PLOT_LOG);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1) {
		snprintf(err, errlen, "%s: %s", log, strerror(errno));
		return -1;
	}
	r->drawn = (!r->plot_decay || plot_run(r, "decay.gp", fd) == 0) &&
		   (!r->plot_upstream || plot_run(r, "upstream.gp", fd) == 0);
	if (fstat(fd, &st) == 0 && st.st_size == 0)
		unlink(log);
	close(fd);
	return 0;
}
