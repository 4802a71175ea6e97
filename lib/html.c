/* The frame and the escaping of steerlab's HTML pages; see html.h. */
#include "html.h"

#include <string.h>

void html_escape_n(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(s[i], out);
		}
	}
}

void html_escape(FILE *out, const char *s)
{
	html_escape_n(out, s, strlen(s));
}

/* the one style of every page: readable printed and on a screen, no web
 * font (the system's sans-serif and monospace) */
static const char html_style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:80em;padding:0 1em;"
    "color:#222;line-height:1.4}\n"
    "h1{font-size:1.6em}h2{font-size:1.3em;border-bottom:1px solid #ccc;margin-top:1.6em}\n"
    "table{border-collapse:collapse;margin:.6em 0;font-size:.9em}\n"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right;vertical-align:top}\n"
    "th{background:#f0f0f0}.l{text-align:left}\n"
    "pre{background:#f7f7f7;border:1px solid #ddd;padding:.5em;overflow-x:auto;"
    "font-size:.85em}\n"
    ".verdict{padding:.6em 1em;border-radius:4px;font-weight:bold;font-size:1.1em}\n"
    ".valid{background:#e3f4e3;border:2px solid #3a3}"
    ".warned{background:#fff5d6;border:2px solid #c90}"
    ".invalid{background:#fde2e2;border:2px solid #c33}\n"
    ".verdict ul{font-weight:normal;font-size:.9em;margin:.3em 0}\n"
    "svg{max-width:100%;height:auto;border:1px solid #ddd;background:#fff}\n"
    ".toggles label{margin-right:1em;white-space:nowrap}\n"
    ".note{color:#555;font-size:.9em}\n";

void html_page_begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>",
	      out);
	html_escape(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", html_style);
}

void html_page_end(FILE *out)
{
	fputs("</body>\n</html>\n", out);
}

void html_json_block(FILE *out, const char *id, const char *json, size_t n)
{
	fputs("<script type=\"application/json\" id=\"", out);
	html_escape(out, id);
	fputs("\">", out);
	for (size_t i = 0; i < n; i++) {
		/* "<\/" and "<\!--" are the same JSON (a string's "\/" is "/";
		 * '<' is outside strings only in no valid JSON) */
		if (json[i] == '<' && i + 1 < n && (json[i + 1] == '/' || json[i + 1] == '!')) {
			fputs("<\\", out);
			continue;
		}
		fputc(json[i], out);
	}
	fputs("</script>\n", out);
}

void html_table(FILE *out, const struct texttable *t, const char *cls)
{
	if (t->failed) {
		fputs("<p>(table not written: out of memory)</p>\n", out);
		return;
	}
	fputs("<table", out);
	if (cls) {
		fputs(" class=\"", out);
		html_escape(out, cls);
		fputc('"', out);
	}
	fputs(">\n", out);
	for (int r = 0; r < t->nrows; r++) {
		fputs("<tr>", out);
		for (int c = 0; c < t->ncols && c < TEXTTABLE_MAX_COLS; c++) {
			const char *s = t->cells[(size_t)r * (size_t)t->ncols + (size_t)c];
			const char *tag = r == 0 ? "th" : "td";

			fprintf(out, "<%s%s>", tag, t->left[c] ? " class=\"l\"" : "");
			html_escape(out, s ? s : "");
			fprintf(out, "</%s>", tag);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
}
