/* The commands of experiments and their analysis; see cli.h. */
#include "cli.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "run.h"
#include "strtonum.h"
#include "timeutil.h"

/* sweep_json_print: j (NULL: out of memory) on out, and freed. 0 or -1
 * (said). */
static int sweep_json_print(json_t *j, FILE *out)
{
	int rc = -1;

	if (j && json_dumpf(j, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
	    fputc('\n', out) != EOF && fflush(out) == 0)
		rc = 0;
	if (rc == -1)
		fprintf(stderr, "steerlab: the points as JSON: cannot write them\n");
	json_decref(j);
	return rc;
}

/* sweep_json_stdout: with --json, everything the points' runs print goes
 * to stderr, and stdout holds the table's JSON alone (sw->json_out, a
 * stream on the original stdout); sweep_json_restore puts stdout back.
 * 0, or -1 (said). */
static int sweep_json_saved = -1;

static int sweep_json_stdout(struct sweep *sw)
{
	fflush(stdout);
	if ((sweep_json_saved = dup(STDOUT_FILENO)) == -1 ||
	    (sw->json_out = fdopen(sweep_json_saved, "w")) == NULL ||
	    dup2(STDERR_FILENO, STDOUT_FILENO) == -1) {
		fprintf(stderr, "steerlab: --json: stdout: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void sweep_json_restore(struct sweep *sw)
{
	fflush(stdout);
	fflush(sw->json_out);
	dup2(sweep_json_saved, STDOUT_FILENO);
	fclose(sw->json_out);
	sw->json_out = NULL;
}

/* sweep_go: run a parsed sweep or repeat of the command cmd to the end;
 * the exit status (3: a point, or a repetition, is invalid: docs/clocks.md,
 * "Verdict") */
/* sweep_via_opts: --via, --partition and --jobs into o; 0, or -1 (said:
 * a usage error) */
static int sweep_via_opts(const struct cmd_args *a, const char *cmd, struct sweep_opts *o)
{
	const char *errstr;

	o->via = SWEEP_VIA_SELF;
	if (a->via && strcmp(a->via, "slurm") == 0) {
		o->via = SWEEP_VIA_SLURM;
	} else if (a->via && strcmp(a->via, "local") != 0) {
		fprintf(stderr, "steerlab: %s: --via %s: expected slurm or local\n", cmd, a->via);
		return -1;
	}
	if (a->partition && o->via != SWEEP_VIA_SLURM) {
		fprintf(stderr, "steerlab: %s: --partition is Slurm's: with --via slurm\n", cmd);
		return -1;
	}
	if (a->jobs) {
		o->jobs = (int)strtonum(a->jobs, 1, SWEEP_MAX_POINTS, &errstr);
		if (errstr) {
			fprintf(stderr,
				"steerlab: %s: --jobs %s: expected a number of runs at once from 1 "
				"to %d\n",
				cmd, a->jobs, SWEEP_MAX_POINTS);
			return -1;
		}
		if (o->via == SWEEP_VIA_SLURM) {
			fprintf(stderr,
				"steerlab: %s: --jobs is for this machine; with --via slurm, Slurm "
				"runs the points (one exclusive node each)\n",
				cmd);
			return -1;
		}
		if (o->jobs > 1)
			o->via = SWEEP_VIA_LOCAL;
	}
	o->partition = a->partition;
	return 0;
}

static int sweep_go(struct sweep *sw, const char *cmd, const struct cmd_args *a, const char *bindir)
{
	struct sweep_opts o = {.out = a->out, .bindir = bindir, .quiet = a->quiet};
	char lab[TOPO_NAME_MAX + 1];
	int rc;

	if (sweep_via_opts(a, cmd, &o) == -1)
		return 2;
	if (sweep_check(sw, lab, bindir) == -1)
		return 1;
	if (a->check && a->json)
		return sweep_json_print(sweep_check_json(sw), stdout) == -1 ? 1 : 0;
	if (a->check) {
		printf("steerlab: %s: the %d points of %s load and check (", cmd, sw->nvalues,
		       sw->key);
		for (int i = 0; i < sw->nvalues; i++)
			printf("%s%s", i ? ", " : "", sw->values[i]);
		printf("): nothing run (--check)\n");
		return 0;
	}
	if (cli_need_root(cmd) == -1)
		return 1;
	cli_catch_signals();
	if (a->json && sweep_json_stdout(sw) == -1)
		return 1;
	rc = sweep_run(sw, lab, &o);
	if (a->json)
		sweep_json_restore(sw);
	switch (rc) {
	case 0:
		return 0;
	case SWEEP_INVALID:
		return 3;
	default:
		return 1;
	}
}

/* cmd_repeat: run --repeat N, on the sweep's machinery (lab/run/repeat.h) */
static int cmd_repeat(const struct cmd_args *a, const char *bindir)
{
	static struct sweep sw;
	const char *errstr;
	int n;

	n = (int)strtonum(a->repeat, 1, REPEAT_MAX, &errstr);
	if (errstr != NULL) {
		fprintf(stderr,
			"steerlab: run: --repeat %s: expected a number of runs from 1 to %d\n",
			a->repeat, REPEAT_MAX);
		return 2;
	}
	if (cli_need_file(a, "run") == -1 ||
	    repeat_parse(&sw, a->file, n, a->sets, a->nsets, stderr) == -1)
		return 2;
	return sweep_go(&sw, "run", a, bindir);
}

int cmd_run(const struct cmd_args *a, const char *bindir)
{
	struct run_opts o = {.rundir = a->out,
			     .bindir = bindir,
			     .quiet = a->quiet,
			     .merge = a->merge,
			     .json = a->json};

	if (a->repeat && a->merge) {
		fprintf(stderr, "steerlab: run: --merge is for one run: steerlab merge DIR/rep-N "
				"merges a repetition\n");
		return 2;
	}
	if (a->repeat)
		return cmd_repeat(a, bindir);
	if (a->via || a->partition || a->jobs) {
		fprintf(stderr,
			"steerlab: run: --via, --partition and --jobs are for several runs: "
			"with --repeat N (or steerlab sweep)\n");
		return 2;
	}
	if (cli_load(a, "run") == -1 || cli_need_root("run") == -1)
		return 1;
	cli_catch_signals();
	switch (run_scenario(&cli_topo, &o)) {
	case 0:
		return 0;
	case RUN_INVALID:
		return 3;
	case RUN_UNSAVED:
		return 4; /* as report's: the tables printed, a file not written */
	default:
		return 1;
	}
}

int cmd_sweep(const struct cmd_args *a, const char *bindir)
{
	static struct sweep sw;

	if (cli_need_file(a, "sweep") == -1 ||
	    sweep_parse(&sw, a->file, a->sets, a->nsets, stderr) == -1)
		return 2;
	return sweep_go(&sw, "sweep", a, bindir);
}

int cmd_report(const struct cmd_args *a, const char *bindir)
{
	struct report_opts o = {0};
	int rc;

	(void)bindir;

	if (a->file == NULL) {
		fprintf(stderr, "steerlab: report: which run directory?\n");
		return 2;
	}
	if (a->bucket && (parse_duration_ns(a->bucket, &o.bucket_ns) == -1 || o.bucket_ns <= 0)) {
		fprintf(stderr,
			"steerlab: report: --bucket: expected a duration such as 100ms or "
			"1s, got '%s'\n",
			a->bucket);
		return 2;
	}
	if (a->slo && report_parse_slo(a->slo, &o.slo_pct) == -1) {
		fprintf(stderr,
			"steerlab: report: --slo: expected a percentage between 0 and 100 "
			"such as 99.9, got '%s'\n",
			a->slo);
		return 2;
	}
	if (a->times)
		o.times = stderr;
	o.json = a->json;
	rc = report_run(a->file, &o, stdout);
	/* what root wrote in the user's run directory stays the user's */
	run_chown(a->file);
	if (rc == -1)
		return 1;
	if (rc & REPORT_UNSAVED)
		return 4;		     /* printed, not saved: the error names the file */
	return rc == REPORT_INVALID ? 3 : 0; /* docs/clocks.md, "Verdict" */
}
