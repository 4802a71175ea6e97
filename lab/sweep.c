/* The sweep command: its arguments, its points, resuming; see sweep.h. */
#include "sweep.h"

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
#include "log.h"
#include "overrides.h"
#include "run.h"
#include "subproc.h"
#include "strfmt.h"
#include "timeutil.h"
#include "topology_int.h"

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
	const struct topo_key *keys;
	const char *dot = strrchr(key, '.'), *name = dot ? dot + 1 : key;
	int kind = -1, n;

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
	keys = topo_keys(kind, &n);
	for (int i = 0; i < n; i++)
		if (strcmp(keys[i].name, name) == 0)
			return (int)keys[i].type;
	return -1;
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

	strfmt(buf, len, "steerlab sweep %s", sw->file);
	for (int i = 0; i < sw->nfixed; i++) {
		off = strlen(buf);
		strfmt(buf + off, len - off, " --set %s", sw->fixed[i]);
	}
	off = strlen(buf);
	strfmt(buf + off, len - off, " --set %s", sw->swept);
	if (dir) {
		off = strlen(buf);
		strfmt(buf + off, len - off, " --out %s", dir);
	}
}

int sweep_check(struct sweep *sw, char *lab)
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
		    overrides_load(t, sw->file, sets, n, stderr) == -1) {
			fprintf(stderr, "steerlab: sweep: the point %s=%s does not load (above)\n",
				sw->key, sw->values[i]);
			rc = -1;
		} else if (run_failing_site(t) < 0) {
			/* what run would refuse at every point, refused once */
			fprintf(stderr,
				"steerlab: sweep: at the point %s=%s no event takes a site out: "
				"nothing to fail over\n",
				sw->key, sw->values[i]);
			rc = -1;
		}
	}
	if (rc == 0) {
		sweep_axis(sw, t);
		strfmt(lab, TOPO_NAME_MAX + 1, "%s", t->name);
	}
	free(t);
	return rc;
}

/* sweep_mkdirs: mkdir -p path */
static int sweep_mkdirs(const char *path)
{
	char buf[PATH_MAX];

	if (strfmt(buf, sizeof(buf), "%s", path) == -1)
		return -1;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) == -1 && errno != EEXIST ? -1 : 0;
}

/* sweep_args_text: what a sweep directory is a sweep of (not its values:
 * a resumed sweep may add some) */
static void sweep_args_text(const struct sweep *sw, char *buf, size_t len)
{
	size_t off;

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

static int sweep_dir_empty(const char *dir)
{
	struct dirent *de;
	int empty = 1;
	DIR *d = opendir(dir);

	if (d == NULL)
		return 0;
	while (empty && (de = readdir(d)) != NULL)
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	return empty;
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

/* sweep_dir: make dir, or check that it is this sweep's (sweep.args). */
static int sweep_dir(const struct sweep *sw, const char *dir)
{
	char path[PATH_MAX], want[8192], have[8192], line[1024];
	size_t off = 0;
	FILE *fp;

	sweep_args_text(sw, want, sizeof(want));
	if (sweep_mkdirs(dir) == -1) {
		log_warn("%s: %s", __func__, dir);
		return -1;
	}
	strfmt(path, sizeof(path), "%s/sweep.args", dir);
	if ((fp = fopen(path, "r")) != NULL) {
		have[0] = '\0';
		while (fgets(line, sizeof(line), fp))
			if (line[0] != '#' && off < sizeof(have))
				off += (size_t)snprintf(have + off, sizeof(have) - off, "%s", line);
		fclose(fp);
		if (strcmp(have, want) != 0) {
			fprintf(stderr,
				"steerlab: sweep: %s holds another sweep; its sweep.args:\n", dir);
			sweep_indent(stderr, have);
			fprintf(stderr, "this command's:\n");
			sweep_indent(stderr, want);
			fprintf(stderr,
				"to resume that sweep, give its arguments; else choose another "
				"--out\n");
			return -1;
		}
		return 0;
	}
	if (!sweep_dir_empty(dir)) {
		/* not ours to fill, nor, later, to clean */
		fprintf(stderr,
			"steerlab: sweep: %s exists and is not a sweep directory (it has no "
			"sweep.args): choose another --out\n",
			dir);
		return -1;
	}
	return sweep_write_text(dir, "sweep.args",
				"# steerlab sweep: what this directory is a sweep of "
				"(docs/sweeps.md)\n",
				want);
}

/* sweep_point_done: the point's clocks.json exists and its run was not
 * interrupted (a run stopped by Ctrl-C still analyses what it has) */
static int sweep_point_done(const char *rundir)
{
	char path[PATH_MAX], line[4096];
	int done = 0;
	FILE *fp;

	strfmt(path, sizeof(path), "%s/clocks.json", rundir);
	if (access(path, F_OK) == -1)
		return 0;
	strfmt(path, sizeof(path), "%s/lab.events.jsonl", rundir);
	if ((fp = fopen(path, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		json_t *o = json_loads(line, 0, NULL);
		const char *ev = json_string_value(json_object_get(o, "event"));
		if (ev && strcmp(ev, "traffic_stopped") == 0)
			done = json_is_false(json_object_get(o, "interrupted"));
		json_decref(o);
	}
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

/* sweep_default_dir: runs/sweep-LAB-KEY-YYYYmmdd-HHMMSS */
static void sweep_default_dir(char *buf, size_t len, const char *lab, const struct sweep *sw)
{
	char key[SWEEP_POINT_NAME_MAX], when[32];
	time_t now = time(NULL);
	struct tm tm;

	strfmt(key, sizeof(key), "%s", sw->key);
	sweep_clean(key);
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm);
	strfmt(buf, len, "runs/sweep-%s-%s-%s", lab, key, when);
}

/* sweep_plot_fill: the plot script for gnuplot's standard input */
struct sweep_plot_arg {
	const struct sweep *sw;
	const struct sweep_table *tb;
};

static void sweep_plot_fill(FILE *fp, const void *arg)
{
	const struct sweep_plot_arg *a = arg;

	sweep_gp_text(a->sw, a->tb, fp, 1);
}

/* sweep_plot: gnuplot on the plot script (sw, tb) in dir: the script
 * from a memory file on its standard input, the PNG from its standard
 * output into sweep.png through a temporary file, as the run reports do
 * (probes/report/report_plot.c; lib/subproc.h): gnuplot opens no file of the
 * directory. 0, 1 if gnuplot is not there, -1. */
static int sweep_plot(const struct sweep *sw, const struct sweep_table *tb, int dirfd,
		      const char *dir)
{
	struct sweep_plot_arg arg = {sw, tb};
	char *argv[] = {"gnuplot", NULL};
	char err[PATH_MAX + 128];
	struct atomicfile png;
	int rc, in;

	/* a plot of fewer points, from an earlier try, would mislead */
	if (unlinkat(dirfd, "sweep.png", 0) == -1 && errno != ENOENT)
		log_warn("%s: %s/sweep.png", __func__, dir);
	if ((in = subproc_memfd("steerlab-sweep-plot", sweep_plot_fill, &arg)) == -1) {
		log_warn("%s: gnuplot script", __func__);
		return -1;
	}
	if (atomicfile_open(&png, dirfd, dir, "sweep.png", err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		close(in);
		return -1;
	}
	rc = subproc_run(dir, argv, in, atomicfile_fd(&png), STDERR_FILENO);
	close(in);
	if (rc != 0) {
		if (rc == -1)
			log_warn("%s: gnuplot", __func__);
		atomicfile_abort(&png);
		return rc == 127 ? 1 : -1;
	}
	if (atomicfile_commit(&png, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	return 0;
}

/* sweep_write: DIR/NAME through a temporary file renamed into place */
static int sweep_write(const struct sweep *sw, const struct sweep_table *tb, int dirfd,
		       const char *dir, const char *name,
		       void (*fn)(const struct sweep *, const struct sweep_table *, FILE *))
{
	char err[PATH_MAX + 128];
	struct atomicfile af;

	if (atomicfile_open(&af, dirfd, dir, name, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	fn(sw, tb, af.fp);
	if (atomicfile_commit(&af, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return -1;
	}
	return 0;
}

/* sweep_results: the table, the plot, and the table on stdout. 0,
 * SWEEP_INVALID if a point is invalid, or -1. */
static int sweep_results(const struct sweep *sw, const char *dir)
{
	struct sweep_table *tb = calloc(1, sizeof(*tb));
	char err[PATH_MAX + 128];
	int rc = -1, plot, dirfd = -1, invalid;

	if (tb == NULL || sweep_table_load(sw, dir, tb, stderr) == -1)
		goto out;
	if ((dirfd = atomicfile_dir(dir, err, sizeof(err))) == -1) {
		log_warnx("%s", err);
		goto out;
	}
	if (sweep_write(sw, tb, dirfd, dir, "sweep.csv", sweep_write_csv) == -1 ||
	    sweep_write(sw, tb, dirfd, dir, "sweep.md", sweep_write_md) == -1 ||
	    sweep_write(sw, tb, dirfd, dir, "sweep.gp", sweep_write_gp) == -1)
		goto out;
	rc = 0;
	printf("\n");
	sweep_write_md(sw, tb, stdout);
	printf("\n");
	plot = sweep_plot(sw, tb, dirfd, dir);
	if (plot == 1)
		printf("steerlab: sweep: gnuplot is not installed (sudo make deps, or apt-get "
		       "install gnuplot-nox): no sweep.png; plot later with: cd %s && gnuplot "
		       "sweep.gp\n",
		       dir);
	else if (plot == -1)
		log_warnx("gnuplot %s/sweep.gp failed (above): no sweep.png", dir);
	printf("steerlab: sweep results in %s/: sweep.csv, sweep.md%s\n", dir,
	       plot == 0 ? ", sweep.png" : "");
	if (plot == -1)
		rc = -1;
	invalid = sweep_invalid(sw, tb);
	if (invalid > 0) {
		printf("steerlab: sweep: %d point%s INVALID (see sweep.md and each point's "
		       "report.md): their clocks must not be quoted\n",
		       invalid, invalid == 1 ? " is" : "s are");
		if (rc == 0)
			rc = SWEEP_INVALID;
	}
out:
	if (dirfd != -1)
		close(dirfd);
	free(tb);
	return rc;
}

int sweep_run(struct sweep *sw, const char *lab, const struct sweep_opts *o)
{
	struct topology *t = malloc(sizeof(*t));
	char dir[PATH_MAX], rundir[PATH_MAX], cmd[8192], label[160], buf[512];
	char *sets[TOPO_MAX_SETS + 1];
	int rc = 0, done = 0, n;

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
	printf("steerlab: sweep of %s over %d values in %s\n"
	       "steerlab: if it is interrupted, resume it with: %s\n",
	       sw->key, sw->nvalues, dir, cmd);
	fflush(stdout);
	for (int i = 0; i < sw->nvalues && !run_interrupted; i++) {
		strfmt(rundir, sizeof(rundir), "%s/%s", dir, sw->names[i]);
		if (sweep_point_done(rundir)) {
			printf("steerlab: point %s=%s: done, skipped\n", sw->key, sw->values[i]);
			done++;
			continue;
		}
		if (access(rundir, F_OK) == 0) {
			printf("steerlab: point %s=%s: removing the unfinished run in %s\n",
			       sw->key, sw->values[i], rundir);
			if (nftw(rundir, sweep_rm_entry, 16, FTW_DEPTH | FTW_PHYS) == -1) {
				rc = -1;
				break;
			}
		}
		printf("steerlab: point %s=%s (%d of %d): %s\n", sw->key, sw->values[i], i + 1,
		       sw->nvalues, rundir);
		fflush(stdout);
		strfmt(label, sizeof(label), "%s=%s %d/%d", sw->key, sw->values[i], i + 1,
		       sw->nvalues);
		struct run_opts ro = {
		    .rundir = rundir, .bindir = o->bindir, .quiet = o->quiet, .label = label};
		if ((n = sweep_point_sets(sw, i, sets, buf, sizeof(buf))) != -1 &&
		    overrides_load(t, sw->file, sets, n, stderr) == 0)
			run_scenario(t, &ro);
		/* what counts is what a rerun will find: a Ctrl-C after the
		 * traffic leaves a finished point */
		if (sweep_point_done(rundir)) {
			done++;
		} else if (!run_interrupted) {
			log_warnx("point %s=%s failed: see %s", sw->key, sw->values[i], rundir);
			rc = -1;
		}
	}
	if (run_interrupted) {
		printf("steerlab: sweep interrupted: %d of %d points done; resume with: %s\n", done,
		       sw->nvalues, cmd);
		rc = -1;
	} else if ((n = sweep_results(sw, dir)) == -1) {
		rc = -1;
	} else if (done < sw->nvalues) {
		printf(
		    "steerlab: %d of %d points failed; rerun the same command to run them again\n",
		    sw->nvalues - done, sw->nvalues);
	} else if (n == SWEEP_INVALID && rc == 0) {
		rc = SWEEP_INVALID;
	}
	run_chown(dir);
	free(t);
	return rc;
}
