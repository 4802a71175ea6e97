/* What a run measured on the graph: catchments and FIB changes from clocks.json; see graph_int.h.
 */
#include "graph_int.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* graph_run_site: the site index of a clocks.json site name (null: -1);
 * -2 if the topology has no such site */
static int graph_run_site(const struct graph *g, json_t *site)
{
	const char *s = json_string_value(site);

	if (s == NULL)
		return -1;
	for (int i = 0; i < g->nsites; i++)
		if (strcmp(g->t->nodes[g->sites[i]].name, s) == 0)
			return i;
	return -2;
}

static double graph_run_s(json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : -1;
}

/* graph_run_node: node name of g, or -1 with err */
static int graph_run_node(const struct graph *g, const char *name, const char *path, char *err,
			  size_t errlen)
{
	int n = topo_find(g->t, name);

	if (n < 0)
		snprintf(err, errlen,
			 "%s: node %s is not in %s: the run is of another topology (give the "
			 "run's own, RUN/topology.ini)",
			 path, name, g->t->path);
	return n;
}

int graph_run_load(struct graph *g, const char *rundir, char *err, size_t errlen)
{
	char path[4200];
	json_error_t je;
	json_t *root, *any, *fib, *r, *c;
	const char *name;
	struct stat st;

	if (stat(rundir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "--run %s: %s", rundir,
			 errno && !S_ISDIR(st.st_mode) ? strerror(errno) : "not a directory");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/clocks.json", rundir);
	if ((root = json_load_file(path, 0, &je)) == NULL) {
		if (access(path, F_OK) == -1)
			snprintf(err, errlen,
				 "--run %s: no clocks.json: not a run directory (a run's, or "
				 "steerlab report RUN to write it)",
				 rundir);
		else
			snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return -1;
	}
	g->run = 1;
	snprintf(g->rundir, sizeof(g->rundir), "%s", rundir);
	any = json_object_get(json_object_get(root, "schemes"), "anycast");
	fib = json_object_get(any, "fib");
	g->convergence_s = graph_run_s(json_object_get(fib, "convergence_s"));
	json_object_foreach(json_object_get(fib, "routers"), name, r)
	{
		int n = graph_run_node(g, name, path, err, errlen);
		struct graph_node *gn;

		if (n < 0)
			goto fail;
		gn = &g->nodes[n];
		gn->fib_known = 1;
		gn->changes = (int)json_integer_value(json_object_get(r, "changes"));
		gn->first_s = graph_run_s(json_object_get(r, "first_s"));
		gn->final_s = graph_run_s(json_object_get(r, "final_s"));
		gn->fib_before =
		    graph_run_site(g, json_object_get(json_object_get(r, "before"), "site"));
		gn->fib_after =
		    graph_run_site(g, json_object_get(json_object_get(r, "after"), "site"));
		if (gn->fib_before == -2 || gn->fib_after == -2) {
			snprintf(err, errlen, "%s: router %s's route leads to a site %s has not",
				 path, name, g->t->path);
			goto fail;
		}
	}
	json_object_foreach(json_object_get(any, "catchments"), name, c)
	{
		const char *node = json_string_value(json_object_get(c, "node"));
		struct graph_node *gn;
		int n;

		if (node == NULL)
			continue;
		if ((n = graph_run_node(g, node, path, err, errlen)) < 0)
			goto fail;
		gn = &g->nodes[n];
		gn->catch_known = 1;
		gn->before =
		    graph_run_site(g, json_object_get(json_object_get(c, "before"), "site"));
		gn->after = graph_run_site(g, json_object_get(json_object_get(c, "after"), "site"));
		gn->moved = json_is_true(json_object_get(c, "moved"));
		if (gn->before == -2 || gn->after == -2) {
			snprintf(err, errlen, "%s: client %s's catchment is a site %s has not",
				 path, node, g->t->path);
			goto fail;
		}
	}
	json_decref(root);
	return 0;
fail:
	json_decref(root);
	return -1;
}
