/* A table of text cells for the terminal and Markdown; see texttable.h. */
#include "texttable.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void texttable_init(struct texttable *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->left[0] = 1;
}

void texttable_align(struct texttable *t, int col, int left)
{
	if (col >= 0 && col < TEXTTABLE_MAX_COLS)
		t->left[col] = left != 0;
}

static int texttable_grow(struct texttable *t)
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

void texttable_row(struct texttable *t)
{
	if (t->failed || texttable_grow(t) == -1) {
		t->failed = 1;
		return;
	}
	t->nrows++;
	t->col = 0;
}

void texttable_cell(struct texttable *t, const char *fmt, ...)
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

void texttable_titles(struct texttable *t, ...)
{
	va_list ap;
	const char *cell;

	texttable_row(t);
	va_start(ap, t);
	while ((cell = va_arg(ap, const char *)) != NULL)
		texttable_cell(t, "%s", cell);
	va_end(ap);
}

/* texttable_width: the columns s takes: its UTF-8 characters (the
 * tables hold "≥", three bytes in one column), and in Markdown the
 * backslash before each '|' */
static int texttable_width(const char *s, int markdown)
{
	int n = 0;

	for (; *s; s++)
		n += (((unsigned char)*s & 0xc0) != 0x80) + (markdown && *s == '|');
	return n;
}

/* texttable_put: s padded to width columns, to the left or right; in
 * Markdown a '|' would end the cell: escaped */
static void texttable_put(FILE *out, const char *s, int width, int left, int markdown)
{
	int pad = width - texttable_width(s, markdown);

	if (!left)
		fprintf(out, "%*s", pad > 0 ? pad : 0, "");
	for (; *s; s++) {
		if (markdown && *s == '|')
			fputc('\\', out);
		fputc(*s, out);
	}
	if (left)
		fprintf(out, "%*s", pad > 0 ? pad : 0, "");
}

static const char *texttable_at(const struct texttable *t, int row, int col)
{
	const char *s = t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];

	return s ? s : "";
}

void texttable_print(const struct texttable *t, FILE *out, int markdown)
{
	int width[TEXTTABLE_MAX_COLS] = {0};

	if (t->failed) {
		fprintf(out, "(table not printed: out of memory)\n");
		return;
	}
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols && c < TEXTTABLE_MAX_COLS; c++) {
			int len = texttable_width(texttable_at(t, r, c), markdown);
			if (len > width[c])
				width[c] = len;
		}
	for (int r = 0; r < t->nrows; r++) {
		for (int c = 0; c < t->ncols && c < TEXTTABLE_MAX_COLS; c++) {
			const char *s = texttable_at(t, r, c);

			fputs(markdown ? (c == 0 ? "| " : " ") : (c == 0 ? "" : "  "), out);
			texttable_put(out, s, width[c], t->left[c], markdown);
			if (markdown)
				fputs(" |", out);
		}
		fputc('\n', out);
		if (markdown && r == 0) {
			/* the delimiter row: as wide as the cells, each column's
			 * alignment marked */
			for (int c = 0; c < t->ncols && c < TEXTTABLE_MAX_COLS; c++) {
				fputs(c == 0 ? "|" : "", out);
				fputs(t->left[c] ? ":" : "", out);
				for (int k = 0; k <= width[c]; k++)
					fputc('-', out);
				fputs(t->left[c] ? "|" : ":|", out);
			}
			fputc('\n', out);
		}
	}
}

void texttable_free(struct texttable *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

void texttable_csv_field(FILE *out, const char *s)
{
	if (strpbrk(s, ",\"\n") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}
