/*
 * The model beside the measurement in a sweep and a repeat (docs/model.md,
 * "In sweeps and repeats"): each run's clocks.json carries its model
 * (probes/clocks/clocks_model_write.c); sweep_model.c reads it into the
 * sweep's table (struct sweep_model, run.h) and writes the sweep's model
 * columns and rows; the repeat's comparison is repeat_model.c's
 * (repeat.h). Nothing here computes a model: the runs did.
 */
#ifndef STEERLAB_SWEEP_MODEL_H
#define STEERLAB_SWEEP_MODEL_H

#include <jansson.h>
#include <stdio.h>

#include "run.h"

struct texttable;

/* sweep_model_key: clock c's key in clocks.json, as the model's "outside"
 * names it ("detect_s", "last_per_client_s.p50", ...); sweep_model_seconds:
 * whether it is a time (else a count) */
const char *sweep_model_key(enum sweep_model_clock c);
int sweep_model_seconds(enum sweep_model_clock c);

/* sweep_model_load: the model of scheme s at point i, from the scheme's
 * clocks.json object o (root: the whole file: the run's tolerance, or
 * why it has no model), into tb */
void sweep_model_load(struct sweep_table *tb, int i, int s, json_t *o, json_t *root);

/* sweep_model_shown: the model's clocks in scheme s's columns (upstream
 * queries only where the scheme has them) */
int sweep_model_shown(const struct sweep_table *tb, int s, enum sweep_model_clock c);

/* sweep_model_cell: interval v as the tables write it, "0.250" when every
 * draw gives it, else "0.250 (0.205-0.295)"; "-" when it is not known */
const char *sweep_model_cell(char *buf, size_t len, const struct sweep_model_iv *v, int seconds);

/* sweep_model_csv_head, sweep_model_csv_cells: sweep.csv's model columns
 * of scheme s, SCHEME_model_CLOCK_p50, _p5 and _p95 per clock shown, then
 * SCHEME_model_outside (the keys the run judged outside, space-separated);
 * and their cells at point i, empty where the model has none */
void sweep_model_csv_head(const struct sweep_table *tb, int s, FILE *out);
void sweep_model_csv_cells(const struct sweep_table *tb, int i, int s, FILE *out);

/* sweep_model_md_rows: under point i's row in scheme s's table (the key,
 * detect .. lost (capture), then upstream queries and deviation where the
 * scheme has them), the model's row, p50 (p5-p95) or "-", and the
 * difference's, measured - p50, with "outside" where the run's
 * model_disagrees said so; nothing for a point not measured or without
 * the scheme */
void sweep_model_md_rows(const struct sweep_table *tb, int i, int s, struct texttable *t);

/* sweep_model_md_notes: what the model's rows say, and the points whose
 * run has no model and why; nothing for a steady-state sweep */
void sweep_model_md_notes(const struct sweep *sw, const struct sweep_table *tb, FILE *out);

#endif
