/* The sweep command: its arguments, its points, resuming; see run.h. */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomicfile.h"
#include "csvmeta.h"
#include "events.h"
#include "topology.h"
#include "log.h"
#include "lab.h"
#include "subproc.h"
#include "strfmt.h"
#include "timeutil.h"

/* sweep_trim: s without its leading and trailing blanks, in place */
static char *sweep_trim(char *s)
{
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

/* sweep_clean: anything but [A-Za-z0-9._-] as '_', and no leading dot,
 * so that s is one safe directory name */
static void sweep_clean(char *s)
{
	for (char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			*c = '_';
	if (s[0] == '.')
		s[0] = '_';
}

int sweep_parse(struct sweep *sw, const char *file, char *const sets[], int nsets, FILE *err)
{
	char *eq, *key, *v, *next;
	int swept = -1;

	memset(sw, 0, sizeof(*sw));
	sw->file = file;
	if (nsets > TOPO_MAX_SETS) {
		fprintf(err, "steerlab: at most %d --set options\n", TOPO_MAX_SETS);
		return -1;
	}
	for (int i = 0; i < nsets; i++) {
		if (strchr(sets[i], ',') == NULL) {
			sw->fixed[sw->nfixed++] = sets[i];
			continue;
		}
		if (swept >= 0) {
			fprintf(
			    err,
			    "steerlab: sweep: --set %s and --set %s both have several values: a "
			    "sweep varies one parameter (run one sweep per parameter)\n",
			    sets[swept], sets[i]);
			return -1;
		}
		swept = i;
	}
	if (swept < 0) {
		fprintf(err, "steerlab: sweep: which parameter? give one --set KEY=V1,V2,... with "
			     "comma-separated values (e.g. --set ttl=30,60,300)\n");
		return -1;
	}
	sw->swept = sets[swept];
	if (strfmt(sw->store, sizeof(sw->store), "%s", sets[swept]) == -1) {
		fprintf(err, "steerlab: sweep: --set %.40s...: too long\n", sets[swept]);
		return -1;
	}
	if ((eq = strchr(sw->store, '=')) == NULL) {
		fprintf(err, "steerlab: sweep: --set %s: expected KEY=V1,V2,...\n", sw->swept);
		return -1;
	}
	*eq = '\0';
	key = sweep_trim(sw->store);
	if (*key == '\0' || strfmt(sw->key, sizeof(sw->key), "%s", key) == -1) {
		fprintf(err,
			"steerlab: sweep: --set %s: expected KEY=V1,V2,... with a key of 1 to %d "
			"characters\n",
			sw->swept, SWEEP_KEY_MAX - 1);
		return -1;
	}
	for (v = eq + 1; v; v = next) {
		if ((next = strchr(v, ',')) != NULL)
			*next++ = '\0';
		v = sweep_trim(v);
		if (*v == '\0') {
			fprintf(err, "steerlab: sweep: --set %s: value %d is empty\n", sw->swept,
				sw->nvalues + 1);
			return -1;
		}
		if (sw->nvalues == SWEEP_MAX_POINTS) {
			fprintf(err, "steerlab: sweep: --set %s: at most %d values\n", sw->swept,
				SWEEP_MAX_POINTS);
			return -1;
		}
		strfmt(sw->names[sw->nvalues], sizeof(sw->names[0]), "%s-%s", sw->key, v);
		sweep_clean(sw->names[sw->nvalues]);
		for (int i = 0; i < sw->nvalues; i++) {
			if (strcmp(sw->names[i], sw->names[sw->nvalues]) == 0) {
				fprintf(err,
					"steerlab: sweep: --set %s: %s and %s are the same point\n",
					sw->swept, sw->values[i], v);
				return -1;
			}
		}
		sw->values[sw->nvalues++] = v;
	}
	for (int i = 0; i < sw->nfixed; i++) {
		const char *f = sw->fixed[i];
		size_t n = strlen(sw->key);
		while (*f == ' ' || *f == '\t')
			f++;
		if (strncmp(f, sw->key, n) == 0 && strchr(" \t=", f[n]) && f[n] != '\0') {
			fprintf(err,
				"steerlab: sweep: %s is swept (--set %s) and fixed (--set %s): "
				"give it once\n",
				sw->key, sw->swept, sw->fixed[i]);
			return -1;
		}
	}
	return 0;
}

int sweep_point_sets(const struct sweep *sw, int i, char *sets[], char *buf, size_t len)
{
	int n = 0;

	for (; n < sw->nfixed; n++)
		sets[n] = sw->fixed[n];
	if (strfmt(buf, len, "%s=%s", sw->key, sw->values[i]) == -1)
		return -1;
	sets[n++] = buf;
	return n;
}

/* sweep_key_type: the type of the swept key in t, or -1 if it is not in
 * the tables (ttl, a resolver's key, ...) */
static int sweep_key_type(const char *key, const struct topology *t)
{
	const char *dot = strrchr(key, '.'), *name = dot ? dot + 1 : key;
	int kind = -1;

	if (dot) {
		char node[TOPO_NAME_MAX + 1];
		if ((size_t)(dot - key) >= sizeof(node))
			return -1;
		memcpy(node, key, (size_t)(dot - key));
		node[dot - key] = '\0';
		int i = t ? topo_find(t, node) : -1;
		if (i < 0)
			return -1;
		kind = (int)t->nodes[i].kind;
	}
	return topo_key_type(kind, name, strlen(name));
}

void sweep_axis(struct sweep *sw, const struct topology *t)
{
	int type = strcmp(sw->key, "ttl") == 0 ? -2 : sweep_key_type(sw->key, t);
	const char *unit = "";

	sw->numeric = 1;
	for (int i = 0; i < sw->nvalues && sw->numeric; i++) {
		const char *v = sw->values[i];
		char *end;
		int64_t ns;
		uint32_t ttl;

		if (type == -2) {
			sw->numeric = parse_ttl(v, &ttl) == 0;
			sw->x[i] = ttl;
			unit = " (s)";
		} else if (type == TOPO_T_DURATION) {
			sw->numeric = parse_duration_ns(v, &ns) == 0;
			sw->x[i] = (double)ns / NSEC_PER_SEC;
			unit = " (s)";
		} else {
			errno = 0;
			sw->x[i] = strtod(v, &end);
			sw->numeric = errno == 0 && end != v && *end == '\0' && isfinite(sw->x[i]);
			if (type == TOPO_T_RATE)
				unit = " (requests/s)";
			else if (type == TOPO_T_SHARE || type == TOPO_T_FRACTION)
				unit = " (share)";
		}
	}
	if (!sw->numeric) {
		unit = "";
		for (int i = 0; i < sw->nvalues; i++)
			sw->x[i] = i;
	}
	if (type == -2)
		strfmt(sw->xlabel, sizeof(sw->xlabel), "ttl of the DNS names%s", unit);
	else
		strfmt(sw->xlabel, sizeof(sw->xlabel), "%s%s", sw->key, unit);
}

void sweep_command(const struct sweep *sw, const char *dir, char *buf, size_t len)
{
	size_t off;

	if (sw->repeat)
		strfmt(buf, len, "steerlab run %s --repeat %d", sw->file, sw->repeat);
	else
		strfmt(buf, len, "steerlab sweep %s", sw->file);
	for (int i = 0; i < sw->nfixed; i++) {
		off = strlen(buf);
		strfmt(buf + off, len - off, " --set %s", sw->fixed[i]);
	}
	off = strlen(buf);
	if (sw->repeat)
		strfmt(buf + off, len - off, " --set seed=%lu", (unsigned long)sw->seed);
	else
		strfmt(buf + off, len - off, " --set %s", sw->swept);
	if (dir) {
		off = strlen(buf);
		strfmt(buf + off, len - off, " --out %s", dir);
	}
}

int sweep_check(struct sweep *sw, char *lab, const char *bindir)
{
	struct topology *t = malloc(sizeof(*t));
	char *sets[TOPO_MAX_SETS + 1], buf[512];
	int rc = 0, n;

	if (t == NULL) {
		log_warn("%s: sweep", __func__);
		return -1;
	}
	if (sw->nfixed + 1 > TOPO_MAX_SETS) {
		fprintf(stderr, "steerlab: at most %d --set options\n", TOPO_MAX_SETS);
		free(t);
		return -1;
	}
	/* the last point first, so that t ends as the first point's */
	for (int i = sw->nvalues - 1; i >= 0; i--) {
		if ((n = sweep_point_sets(sw, i, sets, buf, sizeof(buf))) == -1 ||
		    frrconf_load(t, sw->file, sets, n, stderr) == -1) {
			if (sw->repeat)
				fprintf(stderr, "steerlab: run: %s does not load (above)\n",
					sw->file);
			else
				fprintf(stderr,
					"steerlab: sweep: the point %s=%s does not load (above)\n",
					sw->key, sw->values[i]);
			rc = -1;
		} else if (sw->repeat && i == 0 && t->fail_jitter_ns == 0) {
			printf("steerlab: note: fail_jitter is 0: every run fails at the same "
			       "instant of the probe cycle, and the detection times will barely "
			       "spread; to sample the probe phase, set it to the probe interval "
			       "(--set fail_jitter=%s)\n",
			       topo_format_duration(t->probe_interval_ns, buf, sizeof(buf)));
		}
		if (rc == -1 && sw->repeat)
			break; /* every repetition is the same file: said once */
	}
	/* the lab the points bring up: refused now, before the directory is
	 * made, if it is up already or an agent program is missing */
	if (rc == 0 && run_preflight_lab(sw->repeat ? "run" : "sweep", t, bindir) == -1)
		rc = -1;
	if (rc == 0) {
		sweep_axis(sw, t);
		strfmt(lab, TOPO_NAME_MAX + 1, "%s", t->name);
		strfmt(sw->lab, sizeof(sw->lab), "%s", t->name);
	}
	free(t);
	return rc;
}

/* sweep_args_text: what a sweep directory is a sweep of (not its values:
 * a resumed sweep may add some); a repeat's, of the seed it derives the
 * repetitions' from (not their number) */
static void sweep_args_text(const struct sweep *sw, char *buf, size_t len)
{
	size_t off;

	if (sw->repeat)
		strfmt(buf, len, "file = %s\nseed = %lu\n", sw->file, (unsigned long)sw->seed);
	else
		strfmt(buf, len, "file = %s\nswept = %s\n", sw->file, sw->key);
	for (int i = 0; i < sw->nfixed; i++) {
		off = strlen(buf);
		strfmt(buf + off, len - off, "fixed = %s\n", sw->fixed[i]);
	}
}

static void sweep_indent(FILE *out, const char *text)
{
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		fprintf(out, "    %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
}

/* sweep_write_text: DIR/NAME, the strings a then b, written atomically
 * (lib/atomicfile.h: no link followed). 0, or -1 logged. */
static int sweep_write_text(const char *dir, const char *name, const char *a, const char *b)
{
	struct atomicfile af;
	char err[PATH_MAX + 128];
	int dirfd = atomicfile_dir(dir, err, sizeof(err)), rc = -1;

	if (dirfd != -1 && atomicfile_open(&af, dirfd, dir, name, err, sizeof(err)) == 0) {
		fputs(a, af.fp);
		fputs(b, af.fp);
		rc = atomicfile_commit(&af, err, sizeof(err));
	}
	if (rc == -1)
		log_warnx("%s", err);
	if (dirfd != -1)
		close(dirfd);
	return rc;
}

/* sweep_args_seed: the "seed = N" line of an args text, or -1 */
static int64_t sweep_args_seed(const char *text)
{
	const char *l = strstr(text, "\nseed = ");
	long long v;

	if (l == NULL || sscanf(l, "\nseed = %lld", &v) != 1 || v < 0 || v > JITTER_SEED_MAX)
		return -1;
	return v;
}

/* sweep_dir: make dir, or check that it is this sweep's (sweep.args; a
 * repeat's: repeat.args). A repeat resumed without --set seed takes the
 * seed its directory was started with. */
static int sweep_dir(struct sweep *sw, const char *dir)
{
	const char *args = sw->repeat ? "repeat.args" : "sweep.args";
	const char *what = sw->repeat ? "repeat" : "sweep";
	char path[PATH_MAX], want[8192], have[8192], line[1024];
	size_t off = 0;
	int64_t seed;
	FILE *fp;

	/* the rules of every run directory (lab/build/rundir.c), this one's
	 * marker making it resumable */
	if (rundir_check(what, dir, args, 1, stderr) == -1 || rundir_make(dir) == -1)
		return -1;
	strfmt(path, sizeof(path), "%s/%s", dir, args);
	if ((fp = fopen(path, "r")) != NULL) {
		have[0] = '\0';
		while (fgets(line, sizeof(line), fp))
			if (line[0] != '#' && off < sizeof(have))
				off += (size_t)snprintf(have + off, sizeof(have) - off, "%s", line);
		fclose(fp);
		if (sw->repeat && !sw->seed_given && (seed = sweep_args_seed(have)) >= 0)
			sw->hooks->seeds(sw, (uint32_t)seed);
		sweep_args_text(sw, want, sizeof(want));
		if (strcmp(have, want) != 0) {
			fprintf(stderr, "steerlab: %s: %s holds another %s; its %s:\n", what, dir,
				what, args);
			sweep_indent(stderr, have);
			fprintf(stderr, "this command's:\n");
			sweep_indent(stderr, want);
			fprintf(stderr,
				"to resume that %s, give its arguments; else choose another "
				"--out\n",
				what);
			return -1;
		}
		return 0;
	}
	sweep_args_text(sw, want, sizeof(want));
	return sweep_write_text(dir, args,
				sw->repeat ? "# steerlab run --repeat: what this directory is a "
					     "repeat of (docs/repeat.md)\n"
					   : "# steerlab sweep: what this directory is a sweep of "
					     "(docs/sweeps.md)\n",
				want);
}

static void sweep_point_stopped(json_t *obj, const char *event, void *arg)
{
	int *done = arg;

	if (strcmp(event, EVENTS_TRAFFIC_STOPPED) == 0)
		*done = json_is_false(json_object_get(obj, "interrupted"));
}

/* sweep_point_done: the point's clocks.json exists and its run was not
 * interrupted (a run stopped by Ctrl-C still analyses what it has) */
int sweep_point_done(const char *rundir)
{
	char path[PATH_MAX];
	int done = 0;
	FILE *fp;

	strfmt(path, sizeof(path), "%s/clocks.json", rundir);
	if (access(path, F_OK) == -1)
		return 0;
	strfmt(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	events_each(fp, sweep_point_stopped, &done);
	fclose(fp);
	return done;
}

static int sweep_rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) == -1) {
		log_warn("%s: %s", __func__, path);
		return -1;
	}
	return 0;
}

/* sweep_default_dir: runs/sweep-LAB-KEY-YYYYmmdd-HHMMSS; a repeat's
 * runs/repeat-LAB-YYYYmmdd-HHMMSS */
static void sweep_default_dir(char *buf, size_t len, const char *lab, const struct sweep *sw)
{
	char key[SWEEP_POINT_NAME_MAX], when[32];
	time_t now = time(NULL);
	struct tm tm;

	strfmt(key, sizeof(key), "%s", sw->key);
	sweep_clean(key);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	if (sw->repeat)
		strfmt(buf, len, "%s/repeat-%s-%s", run_runs_dir(), lab, when);
	else
		strfmt(buf, len, "%s/sweep-%s-%s-%s", run_runs_dir(), lab, key, when);
}

/* sweep_plot_fill: the plot script for gnuplot's standard input */
static void sweep_plot_fill(FILE *fp, const void *arg)
{
	const struct sweep_plot_arg *a = arg;

	sweep_gp_text(a->sw, a->tb, fp, 1);
}

/* The script from a memory file on gnuplot's standard input, the PNG from
 * its standard output into png through a temporary file, as the run reports
 * do (probes/report/report_plot.c; lib/subproc.h): gnuplot opens no file of
 * the directory. */
int sweep_gnuplot(int dirfd, const char *dir, const char *png, void (*fill)(FILE *, const void *),
		  const void *arg)
{
	char *argv[] = {"gnuplot", NULL};
	char err[PATH_MAX + 128];
	struct atomicfile af;
	int rc, in;

	/* a plot of fewer points, from an earlier try, would mislead */
	if (unlinkat(dirfd, png, 0) == -1 && errno != ENOENT)
		log_warn("%s: %s/%s", __func__, dir, png);
	if ((in = subproc_memfd("steerlab-sweep-plot", fill, arg)) == -1) {
		log_warn("%s: gnuplot script", __func__);
		return -1;
	}
	if (atomicfile_open(&af, dirfd, dir, png, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		close(in);
		return -1;
	}
	rc = subproc_run(dir, argv, in, atomicfile_fd(&af), STDERR_FILENO);
	close(in);
	if (rc != 0) {
		if (rc == -1)
			log_warn("%s: gnuplot", __func__);
		atomicfile_abort(&af);
		return rc == 127 ? 1 : -1;
	}
	if (atomicfile_commit(&af, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	return 0;
}

int sweep_write_file(const struct sweep *sw, const struct sweep_table *tb, int dirfd,
		     const char *dir, const char *name, const char *units,
		     void (*fn)(const struct sweep *, const struct sweep_table *, FILE *))
{
	char err[PATH_MAX + 128], run[256];
	struct atomicfile af;

	if (atomicfile_open(&af, dirfd, dir, name, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	if (units)
		csvmeta_write(af.fp, csvmeta_run_id(dir, run, sizeof(run)), sw->file, units);
	fn(sw, tb, af.fp);
	if (atomicfile_commit(&af, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	return 0;
}

int sweep_output_write(const struct sweep *sw, const char *dir, const struct sweep_output *o)
{
	struct sweep_table *tb = calloc(1, sizeof(*tb));
	struct sweep_plot_arg arg = {sw, tb};
	char err[PATH_MAX + 128], listed[256] = "";
	int rc = -1, plot = 1, dirfd = -1, invalid, used = 0;
	const char *gp = o->files[o->nfiles - 1];

	if (tb == NULL || sweep_table_load(sw, dir, tb, stderr) == -1)
		goto out;
	if ((dirfd = atomicfile_dir(dir, err, sizeof(err))) == -1) {
		log_warnx("%s", err);
		goto out;
	}
	for (int f = 0; f < o->nfiles; f++) {
		if (sweep_write_file(sw, tb, dirfd, dir, o->files[f], o->units[f], o->writers[f]) ==
		    -1)
			goto out;
		if (f < o->nfiles - 1) /* the files a person reads: not the script */
			strfmt(listed + strlen(listed), sizeof(listed) - strlen(listed), "%s%s",
			       f ? ", " : "", o->files[f]);
	}
	if (sweep_write_html(sw, tb, dirfd, dir, o) == -1)
		goto out;
	strfmt(listed + strlen(listed), sizeof(listed) - strlen(listed), ", report.html");
	rc = 0;
	if (sw->json_out) {
		json_t *j = sweep_table_json(sw, tb, dir);

		if (j == NULL ||
		    json_dumpf(j, sw->json_out,
			       JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) ==
			-1 ||
		    fputc('\n', sw->json_out) == EOF || fflush(sw->json_out) == EOF) {
			log_warnx("%s: the table as JSON: cannot write it", o->what);
			rc = -1;
		}
		json_decref(j);
	} else {
		printf("\n");
		o->shown(sw, tb, stdout);
		printf("\n");
	}
	/* a plot of no point is gnuplot's error (and an older one, of other
	 * points, would mislead): plotted once a point is measured and valid */
	for (int i = 0; i < sw->nvalues; i++)
		used += tb->done[i] && tb->valid[i] != 0;
	if (used > 0)
		plot = sweep_gnuplot(dirfd, dir, o->png, o->fill, &arg);
	else if (unlinkat(dirfd, o->png, 0) == -1 && errno != ENOENT)
		log_warn("%s: %s/%s", __func__, dir, o->png);
	if (used > 0 && plot == 1)
		printf("steerlab: %s: gnuplot is not installed (sudo make deps, or apt-get "
		       "install gnuplot-nox): no %s; plot later with: cd %s && gnuplot "
		       "%s\n",
		       o->what, o->png, dir, gp);
	else if (plot == -1)
		log_warnx("gnuplot %s/%s failed (above): no %s", dir, gp, o->png);
	printf("steerlab: %s results in %s/: %s%s%s\n", o->what, dir, listed, plot == 0 ? ", " : "",
	       plot == 0 ? o->png : "");
	if (plot == -1)
		rc = -1;
	invalid = sweep_invalid(sw, tb);
	if (invalid > 0) {
		o->invalid(sw, invalid);
		if (rc == 0)
			rc = SWEEP_INVALID;
	}
out:
	if (dirfd != -1)
		close(dirfd);
	free(tb);
	return rc;
}

static void sweep_say_invalid(const struct sweep *sw, int invalid)
{
	(void)sw;
	printf("steerlab: sweep: %d point%s INVALID (see sweep.md and each point's "
	       "report.md): their clocks must not be quoted\n",
	       invalid, invalid == 1 ? " is" : "s are");
}

/* sweep_results: sweep.csv, sweep.md, sweep.gp and sweep.png, and the
 * table on stdout (sweep_output_write) */
static const struct sweep_output sweep_out = {
    .what = "sweep",
    .nfiles = 3,
    .files = {"sweep.csv", "sweep.md", "sweep.gp"},
    .writers = {sweep_write_csv, sweep_write_md, sweep_write_gp},
    .units = {"*_s=s, *_lost_client=requests, *_lost_capture=requests, "
	      "*_upstream_queries=queries, *_deviation=fraction (0 to 1), *_model_CLOCK_Q: "
	      "CLOCK's unit"},
    .shown = sweep_write_md,
    .png = "sweep.png",
    .fill = sweep_plot_fill,
    .invalid = sweep_say_invalid,
};

void sweep_point_label(const struct sweep *sw, int i, char *buf, size_t len)
{
	if (sw->repeat)
		strfmt(buf, len, "repetition %d (seed %s)", i + 1, sw->values[i]);
	else
		strfmt(buf, len, "point %s=%s", sw->key, sw->values[i]);
}

int sweep_run(struct sweep *sw, const char *lab, const struct sweep_opts *o)
{
	struct topology *t = malloc(sizeof(*t));
	char dir[PATH_MAX], rundir[PATH_MAX], cmd[8192], label[160], buf[512], what[160];
	const char *points = sw->repeat ? "repetitions" : "points";
	char *sets[TOPO_MAX_SETS + 1];
	int rc = 0, done = 0, n, todo[SWEEP_MAX_POINTS], ntodo = 0;

	if (t == NULL) {
		log_warn("%s: sweep", __func__);
		return -1;
	}
	if (o->out)
		strfmt(dir, sizeof(dir), "%s", o->out);
	else
		sweep_default_dir(dir, sizeof(dir), lab, sw);
	if (sweep_dir(sw, dir) == -1) {
		free(t);
		return -1;
	}
	sweep_command(sw, dir, cmd, sizeof(cmd));
	n = (int)strlen(cmd);
	if (o->via == SWEEP_VIA_SLURM)
		strfmt(cmd + n, sizeof(cmd) - (size_t)n, " --via slurm%s%s",
		       o->partition ? " --partition " : "", o->partition ? o->partition : "");
	else if (o->via == SWEEP_VIA_LOCAL)
		strfmt(cmd + n, sizeof(cmd) - (size_t)n, " --jobs %d", o->jobs);
	if (sw->repeat)
		printf("steerlab: %d runs of %s (seed %lu) in %s\n"
		       "steerlab: if it is interrupted, resume it with: %s\n",
		       sw->nvalues, sw->file, (unsigned long)sw->seed, dir, cmd);
	else
		printf("steerlab: sweep of %s over %d values in %s\n"
		       "steerlab: if it is interrupted, resume it with: %s\n",
		       sw->key, sw->nvalues, dir, cmd);
	fflush(stdout);
	for (int i = 0; i < sw->nvalues && !run_interrupted; i++) {
		strfmt(rundir, sizeof(rundir), "%s/%s", dir, sw->names[i]);
		sweep_point_label(sw, i, what, sizeof(what));
		if (sweep_point_done(rundir)) {
			printf("steerlab: %s: done, skipped\n", what);
			done++;
			continue;
		}
		if (access(rundir, F_OK) == 0) {
			printf("steerlab: %s: removing the unfinished run in %s\n", what, rundir);
			if (nftw(rundir, sweep_rm_entry, 16, FTW_DEPTH | FTW_PHYS) == -1) {
				rc = -1;
				break;
			}
		}
		if (o->via != SWEEP_VIA_SELF) {
			todo[ntodo++] = i; /* run below, beside the others */
			continue;
		}
		printf("steerlab: %s (%d of %d): %s\n", what, i + 1, sw->nvalues, rundir);
		fflush(stdout);
		if (sw->repeat)
			strfmt(label, sizeof(label), "rep %d/%d", i + 1, sw->nvalues);
		else
			strfmt(label, sizeof(label), "%s=%s %d/%d", sw->key, sw->values[i], i + 1,
			       sw->nvalues);
		struct run_opts ro = {
		    .rundir = rundir, .bindir = o->bindir, .quiet = o->quiet, .label = label};
		if ((n = sweep_point_sets(sw, i, sets, buf, sizeof(buf))) != -1 &&
		    frrconf_load(t, sw->file, sets, n, stderr) == 0)
			run_scenario(t, &ro);
		/* what counts is what a rerun will find: a Ctrl-C after the
		 * traffic leaves a finished point */
		if (sweep_point_done(rundir)) {
			done++;
			if (sw->repeat)
				sw->hooks->progress(sw, dir, i);
		} else if (!run_interrupted) {
			log_warnx("%s failed: see %s", what, rundir);
			rc = -1;
		}
	}
	if (ntodo > 0 && rc == 0) {
		if (sweep_via_run(sw, lab, dir, todo, ntodo, o) == -1)
			rc = -1;
		for (int t = 0; t < ntodo; t++) {
			strfmt(rundir, sizeof(rundir), "%s/%s", dir, sw->names[todo[t]]);
			if (!sweep_point_done(rundir))
				continue;
			done++;
			if (sw->repeat)
				sw->hooks->progress(sw, dir, todo[t]);
		}
		if (done < sw->nvalues && !run_interrupted)
			rc = -1; /* each said by sweep_via_run */
	}
	if (run_interrupted) {
		printf("steerlab: %s interrupted: %d of %d %s done; resume with: %s\n",
		       sw->repeat ? "repeat" : "sweep", done, sw->nvalues, points, cmd);
		rc = -1;
	} else if ((n = sw->repeat ? sw->hooks->results(sw, dir)
				   : sweep_output_write(sw, dir, &sweep_out)) == -1) {
		rc = -1;
	} else if (done < sw->nvalues) {
		printf("steerlab: %d of %d %s failed; rerun the same command to run them again\n",
		       sw->nvalues - done, sw->nvalues, points);
	} else if (n == SWEEP_INVALID && rc == 0) {
		rc = SWEEP_INVALID;
	}
	run_chown(dir);
	free(t);
	return rc;
}
