/*
 * The HTML pages steerlab writes (the run's report.html, the sweep's and the
 * repeat's): one self-contained file each, readable offline years later, so
 * no request leaves the page (no font, script or style from the network: the
 * style is inline, the plots are SVG or drawn by a small inline script from
 * JSON embedded in the page). The helpers here are the page's frame and its
 * escaping (HTML 5: text and attribute values escape & < > " '; a JSON block
 * inside <script> escapes "</" and "<!--" so that no string of the data can
 * end the block), and a lib/texttable.h table as an HTML table.
 */
#ifndef STEERLAB_HTML_H
#define STEERLAB_HTML_H

#include <stdio.h>

#include "texttable.h"

/* html_escape: s to out with & < > " ' as character references (text and
 * attribute values alike) */
void html_escape(FILE *out, const char *s);
/* html_escape_n: the same of the n bytes at s */
void html_escape_n(FILE *out, const char *s, size_t n);

/* html_page_begin: the doctype, <head> with title (escaped), the shared
 * inline style, and <body>; html_page_end closes both */
void html_page_begin(FILE *out, const char *title);
void html_page_end(FILE *out);

/* html_json_block: json (JSON text, n bytes) in a
 * <script type="application/json" id="ID"> block, "</" written "<\/" and
 * "<!--" "<\!--" (both still the same JSON) */
void html_json_block(FILE *out, const char *id, const char *json, size_t n);

/* html_table: t as a <table> (its first row the header, each column
 * aligned as texttable_align says), with the class cls (NULL: none) */
void html_table(FILE *out, const struct texttable *t, const char *cls);

#endif
