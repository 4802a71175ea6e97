/*
 * A table of text cells, printed two ways from the same rows: for the
 * terminal (columns aligned, the first to the left, the others to the
 * right, as clocks_print does) and as a Markdown pipe table for report.md
 * (aligned too, so that report.md reads well as plain text). The first row
 * is the header.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

void report_table_init(struct report_table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
}

static int report_table_grow(struct report_table *t)
{
	size_t need = (size_t)(t->nrows + 1) * (size_t)t->ncols;
	char **cells;

	if (need <= t->cap)
		return 0;
	cells = realloc(t->cells, 2 * need * sizeof(*cells));
	if (cells == NULL)
		return -1;
	memset(cells + t->cap, 0, (2 * need - t->cap) * sizeof(*cells));
	t->cells = cells;
	t->cap = 2 * need;
	return 0;
}

void report_table_row(struct report_table *t)
{
	if (t->failed || report_table_grow(t) == -1) {
		t->failed = 1;
		return;
	}
	t->nrows++;
	t->col = 0;
}

void report_table_cell(struct report_table *t, const char *fmt, ...)
{
	va_list ap;
	char *s;

	if (t->failed || t->nrows == 0 || t->col == t->ncols)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) == -1) {
		t->failed = 1;
		s = NULL;
	}
	va_end(ap);
	t->cells[(size_t)(t->nrows - 1) * (size_t)t->ncols + (size_t)t->col++] = s;
}

/* report_table_width: the columns s takes: its UTF-8 characters (the
 * tables hold "≥", three bytes in one column) */
static int report_table_width(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* report_table_put: s padded to width columns, to the left or right */
static void report_table_put(FILE *out, const char *s, int width, int left)
{
	int pad = width - report_table_width(s);

	if (!left)
		fprintf(out, "%*s", pad > 0 ? pad : 0, "");
	fputs(s, out);
	if (left)
		fprintf(out, "%*s", pad > 0 ? pad : 0, "");
}

static const char *report_table_at(const struct report_table *t, int row, int col)
{
	const char *s = t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];

	return s ? s : "";
}

void report_table_print(const struct report_table *t, FILE *out, int markdown)
{
	int width[REPORT_TABLE_MAX_COLS] = {0};

	if (t->failed) {
		fprintf(out, "(table not printed: out of memory)\n");
		return;
	}
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols && c < REPORT_TABLE_MAX_COLS; c++) {
			int len = report_table_width(report_table_at(t, r, c));
			if (len > width[c])
				width[c] = len;
		}
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols && c < REPORT_TABLE_MAX_COLS; c++) {
			const char *s = report_table_at(t, r, c);

			fputs(markdown ? (c == 0 ? "| " : " ") : (c == 0 ? "" : "  "), out);
			report_table_put(out, s, width[c], c == 0);
			if (markdown)
				fputs(" |", out);
		}
		fputc('\n', out);
		if (markdown && r == 0) {
			/* the delimiter row: as wide as the cells, the first column
			 * aligned left, the others right */
			for (int c = 0; c < t->ncols && c < REPORT_TABLE_MAX_COLS; c++) {
				fputs(c == 0 ? "|:" : "", out);
				for (int k = 0; k <= width[c]; k++)
					fputc('-', out);
				fputs(c == 0 ? "|" : ":|", out);
			}
			fputc('\n', out);
		}
	}
}

void report_table_free(struct report_table *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
