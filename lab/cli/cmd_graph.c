/* The commands on a topology's graph and a run's captures: graph, merge; see cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "subproc.h"
#include "topology.h"

static void cmd_graph_dot(FILE *fp, const void *arg)
{
	char err[8];

	topo_graph_write(&cli_topo, arg, TOPO_GRAPH_DOT, fp, err, sizeof(err));
}

int cmd_graph(const struct cmd_args *a, const char *bindir)
{
	static const char *const formats[] = {"dot", "mermaid", "json", "svg"};
	char *const argv[] = {"dot", "-Tsvg", NULL};
	char err[4200];
	int fmt = -1, fd, rc;

	(void)bindir;
	for (int i = 0; i < 4 && a->format; i++)
		if (strcmp(a->format, formats[i]) == 0)
			fmt = i;
	if (a->format == NULL)
		fmt = TOPO_GRAPH_DOT;
	if (fmt < 0) {
		fprintf(stderr,
			"steerlab: graph: --format %s: expected dot, mermaid, json or svg\n",
			a->format);
		return 2;
	}
	if (cli_load(a, "graph") == -1)
		return 1;
	if (fmt != 3) {
		if (topo_graph_write(&cli_topo, a->run, fmt, stdout, err, sizeof(err)) == -1) {
			fprintf(stderr, "steerlab: graph: %s\n", err);
			return 1;
		}
		return fflush(stdout) == EOF ? 1 : 0;
	}
	/* svg: Graphviz's dot on the dot text, checked first for its errors */
	if (a->run) {
		FILE *null = fopen("/dev/null", "w");

		rc = null ? topo_graph_write(&cli_topo, a->run, TOPO_GRAPH_DOT, null, err,
					     sizeof(err))
			  : 0;
		if (null)
			fclose(null);
		if (rc == -1) {
			fprintf(stderr, "steerlab: graph: %s\n", err);
			return 1;
		}
	}
	if ((fd = subproc_memfd("graph.dot", cmd_graph_dot, a->run)) == -1) {
		fprintf(stderr, "steerlab: graph: memfd: %s\n", strerror(errno));
		return 1;
	}
	fflush(stdout);
	rc = subproc_run(NULL, argv, fd, STDOUT_FILENO, STDERR_FILENO);
	close(fd);
	if (rc == 127) {
		fprintf(stderr, "steerlab: graph: --format svg needs Graphviz's dot, not found in "
				"PATH (apt-get install graphviz, or --format dot)\n");
		return 1;
	}
	if (rc != 0) {
		fprintf(stderr, "steerlab: graph: dot -Tsvg failed (status %d)\n", rc);
		return 1;
	}
	return 0;
}

int cmd_merge(const struct cmd_args *a, const char *bindir)
{
	struct report_merge_stats st;
	char err[4200] = "";

	(void)bindir;
	if (a->file == NULL) {
		fprintf(stderr, "steerlab: merge: which run directory?\n");
		return 2;
	}
	if (report_merge(a->file, 0, &st, stderr, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: merge: %s\n", err);
		return 1;
	}
	printf("%s/%s: %d captures, %llu packets, %d comments%s\n", a->file, REPORT_MERGE_FILE,
	       st.captures, (unsigned long long)st.packets, st.comments,
	       st.unplaced ? " (some events had no packet after them: said above)" : "");
	return 0;
}
