/*
 * A table of text cells, printed two ways from the same rows: for the
 * terminal (columns aligned, the first to the left, the others to the
 * right unless texttable_align says otherwise) and as a Markdown pipe table
 * (aligned too, so that the Markdown reads well as plain text, with the
 * alignment in the delimiter row: ":---" or "---:"; a '|' in a cell is
 * escaped). The first row is the header. Cells are formatted with printf;
 * widths count UTF-8 characters, so "≥" takes one column. Out of memory is
 * remembered, not reported at each cell: the table says so when printed.
 *
 * The report's tables (probes/report/report_tables.c) and the sweep's
 * (lab/run/sweep_table.c) are built on it.
 */
#ifndef STEERLAB_TEXTTABLE_H
#define STEERLAB_TEXTTABLE_H

#include <stddef.h>
#include <stdio.h>

#define TEXTTABLE_MAX_COLS 16

struct texttable {
	int ncols, nrows, col;
	char **cells; /* nrows * ncols, malloc'd strings; NULL: empty */
	size_t cap;
	int failed; /* out of memory: the table says so when printed */
	/* 1: the column is aligned left (texttable_align) */
	unsigned char left[TEXTTABLE_MAX_COLS];
};

/* texttable_init: an empty table of ncols (at most TEXTTABLE_MAX_COLS
 * are printed) columns */
void texttable_init(struct texttable *t, int ncols);
/* texttable_align: column col aligned to the left (left = 1) or the right */
void texttable_align(struct texttable *t, int col, int left);
/* texttable_row: start a row; texttable_cell: its next cell (cells past
 * the last column are dropped) */
void texttable_row(struct texttable *t);
void texttable_cell(struct texttable *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* texttable_titles: a row of the cells given, taken as they are (not
 * formats), up to the NULL that ends them: a table's heading */
void texttable_titles(struct texttable *t, ...) __attribute__((sentinel));
/* texttable_print: aligned columns; markdown: a pipe table */
void texttable_print(const struct texttable *t, FILE *out, int markdown);
void texttable_free(struct texttable *t);

/* texttable_csv_field: s to out as one field of a CSV line (RFC 4180):
 * quoted, its quotes doubled, if it holds a comma, a quote or a newline. The
 * sweep's and the repeat's CSV (lab/run/sweep_table.c, repeat_table.c). */
void texttable_csv_field(FILE *out, const char *s);

#endif
