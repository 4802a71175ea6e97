/*
 * The writers (docs/clocks.md, "clocks.json", "The table"): clocks.json
 * (clocks_write.c), through lib/atomicfile.h, and the table for the
 * terminal (clocks_write_table.c), with the warnings and the verdict in one line.
 */
#ifndef STEERLAB_CLOCKS_WRITE_H
#define STEERLAB_CLOCKS_WRITE_H

#include <stddef.h>
#include <stdio.h>

#include "clocks_input.h"
#include "clocks_result.h"

struct clocks_explain;

/* clocks_write_json: write the results (nres schemes), the verdict v and
 * the explanation ex (NULL: none; "explain", and each scheme's decay at
 * its marks) to name in the directory dirfd (dir its path, for messages), through a
 * temporary file renamed into place (lib/atomicfile.h). 0, or -1 with the
 * reason in err. */
int clocks_write_json(int dirfd, const char *dir, const char *name, const struct clocks_input *in,
		      const struct clocks_result *res, int nres, const struct clocks_notes *v,
		      const struct clocks_explain *ex, char *err, size_t errlen);

/* clocks_print_json: the same document as clocks_write_json's, to out
 * (steerlab report --json). 0, or -1 (out of memory, or a write error: out's
 * error indicator says which). */
int clocks_print_json(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		      int nres, const struct clocks_notes *v, const struct clocks_explain *ex);

/* clocks_print: the readable table, one column per scheme present: its
 * title (the failure), the warnings (clocks_print_warnings), the table and
 * its legend, the model beside it (clocks_model_print), then the verdict
 * (clocks_print_verdict). */
void clocks_print(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
		  int nres, const struct clocks_notes *v);

/* clocks_print_table: as clocks_print, with the warnings only if flags has
 * CLOCKS_PRINT_WARNINGS, the verdict only if it has CLOCKS_PRINT_VERDICT
 * and the model beside the clocks (clocks_model_print) only if it has
 * CLOCKS_PRINT_MODEL: each is said once, where the caller wants it */
#define CLOCKS_PRINT_WARNINGS 1
#define CLOCKS_PRINT_VERDICT 2
#define CLOCKS_PRINT_MODEL 4
void clocks_print_table(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			int nres, const struct clocks_notes *v, int flags);

/* clocks_print_warnings: nothing for a valid run without warnings; else a
 * line with their count (an invalid run's: *** INVALID RUN: N self-checks
 * failed ... ***), then one line per warning, the invalidating ones first,
 * each once */
void clocks_print_warnings(FILE *out, const struct clocks_input *in,
			   const struct clocks_result *res, int nres, const struct clocks_notes *v);

/* clocks_print_verdict: the verdict in one line, the warnings counted, not
 * said again; an invalid run's names the codes that invalidate it */
void clocks_print_verdict(FILE *out, const struct clocks_input *in, const struct clocks_result *res,
			  int nres, const struct clocks_notes *v);

#endif
