/* steerlab model: the clocks a run of a topology should measure, predicted
 * from its settings alone, nothing built, and the steady state of its
 * steering (docs/model.md); see cli.h. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

#include "model.h"
#include "model_steer.h"

/* cmd_model_json: the JSON of the failover's model (o; NULL for a steady
 * state) with the steering's under "steering"; 0, or 1 (said) */
static int cmd_model_json(json_t *o, const struct model_steer_input *si,
			  const struct model_steer_result *sr, const struct model_notes *sn)
{
	json_t *st = model_steer_json(si, sr), *as = json_array(), *nm = json_array();
	int rc = 0;

	if (o == NULL)
		o = json_pack("{s:s, s:b, s:s, s:o, s:o}", "lab", si->lab, "steady_state", 1,
			      "failure", "steady state: no failure", "assumptions", json_array(),
			      "not_modelled", json_array());
	for (int i = 0; as && nm && i < sn->n; i++)
		json_array_append_new(sn->not_modelled[i] ? nm : as, json_string(sn->text[i]));
	if (st && as && nm) {
		json_object_set_new(st, "assumptions", as);
		json_object_set_new(st, "not_modelled", nm);
		as = nm = NULL;
	}
	if (o == NULL || st == NULL || json_object_set_new(o, "steering", st) == -1 ||
	    json_dumpf(o, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) == -1)
		rc = 1;
	else
		putchar('\n');
	json_decref(o);
	json_decref(as);
	json_decref(nm);
	if (rc)
		fprintf(stderr, "steerlab: model: could not write the JSON\n");
	return rc;
}

/* cmd_model_failures: every failure of the timeline modelled, the first
 * in[0] and r[0] given; *n their count. 0, or -1 (out of memory, said) */
static int cmd_model_failures(struct model_input **in, struct model_result **r, int *n)
{
	static struct model_notes notes;
	char err[512];

	*n = model_failures(&cli_topo);
	if (*n < 2)
		return 0;
	if ((*in = realloc(*in, (size_t)*n * sizeof(**in))) == NULL ||
	    (*r = realloc(*r, (size_t)*n * sizeof(**r))) == NULL) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		return -1;
	}
	for (int k = 1; k < *n; k++) {
		if (model_from_topology_failure(&cli_topo, k, &(*in)[k], &notes, err,
						sizeof(err)) == -1 ||
		    model_lab(&(*in)[k], &(*r)[k]) == -1) {
			fprintf(stderr, "steerlab: model: failure %d: %s\n", k + 1, err);
			return -1;
		}
	}
	return 0;
}

/* cmd_model_notes: the steering's assumptions and limits */
static void cmd_model_notes(const struct model_notes *notes)
{
	int any = 0;

	for (int i = 0; i < notes->n; i++)
		if (!notes->not_modelled[i])
			printf("%s  - %s\n", any++ ? "" : "\nassumptions (steering):\n",
			       notes->text[i]);
	any = 0;
	for (int i = 0; i < notes->n; i++)
		if (notes->not_modelled[i])
			printf("%s  - %s\n", any++ ? "" : "\nnot modelled (steering):\n",
			       notes->text[i]);
}

int cmd_model(const struct cmd_args *a, const char *bindir)
{
	struct model_input *ins = calloc(1, sizeof(*ins));
	struct model_result *rs = calloc(1, sizeof(*rs));
	static struct model_notes notes, snotes;
	static struct model_steer_result sr;
	struct model_steer_input *si;
	char err[512];
	int steady, rc = 1, nf = 1;
	json_t *o = NULL;

	(void)bindir;
	si = NULL;
	if (a->ntargets || a->nvaries) {
		free(ins);
		free(rs);
		return cmd_design(a);
	}
	if (ins == NULL || rs == NULL) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		goto out;
	}
	if (cli_load(a, "model") == -1)
		goto out;
	steady = topo_first_failure(&cli_topo, NULL) < 0;
	if (!steady && model_from_topology(&cli_topo, ins, &notes, err, sizeof(err)) == -1) {
		fprintf(stderr, "steerlab: model: %s\n", err);
		goto out;
	}
	if ((si = malloc(sizeof(*si))) == NULL) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		goto out;
	}
	model_steer_from_topology(&cli_topo, 0, si, &snotes);
	if ((!steady && model_lab(ins, rs) == -1) || model_steer(si, &sr) == -1) {
		fprintf(stderr, "steerlab: model: out of memory\n");
		goto out;
	}
	if (!steady && cmd_model_failures(&ins, &rs, &nf) == -1)
		goto out;
	rc = 0;
	if (a->json) {
		if (!steady && (o = model_json(ins, rs, &notes)) != NULL && nf > 1)
			json_object_set_new(o, "failures", model_json_failures(ins, rs, nf));
		if (o != NULL) {
			json_t *auths = model_json_authorities(&cli_topo, NULL);

			if (auths)
				json_object_set_new(o, "authorities", auths);
		}
		rc = cmd_model_json(o, si, &sr, &snotes);
	} else {
		if (steady)
			printf("lab %s: a steady state, no failure: the model of its steering "
			       "(docs/model.md)\n",
			       cli_topo.name);
		else
			model_print(ins, rs, &notes, stdout);
		if (!steady)
			model_print_failures(ins, rs, nf, stdout);
		if (!steady)
			model_print_authorities(&cli_topo, NULL, stdout);
		model_steer_print(si, &sr, stdout);
		cmd_model_notes(&snotes);
	}
out:
	free(si);
	free(ins);
	free(rs);
	return rc;
}
