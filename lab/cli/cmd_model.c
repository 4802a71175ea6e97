/* steerlab model: the clocks a run of a topology should measure, predicted
 * from its settings alone, nothing built (docs/model.md); see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "model.h"

int cmd_model(const struct cmd_args *a, const char *bindir)
{
	static struct model_input in;
	static struct model_result r;
	static struct model_notes notes;
	char err[512];
	int rc = 0;

	(void)bindir;
	if (a->ntargets || a->nvaries)
		return cmd_design(a);
	if (cli_load(a, "model") == -1)
		return 1;
	if (model_from_topology(&cli_topo, &in, &notes, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: model: %s\n", err);
		return 1;
	}
	if (model_lab(&in, &r) == -1) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		return 1;
	}
	if (a->json) {
		json_t *o = model_json(&in, &r, &notes);

		if (o == NULL ||
		    json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) == -1)
			rc = 1;
		else
			putchar('\n');
		json_decref(o);
		if (rc)
			fprintf(stderr, "steerlab: model: could not write the JSON\n");
		return rc;
	}
	model_print(&in, &r, &notes, stdout);
	return 0;
}
