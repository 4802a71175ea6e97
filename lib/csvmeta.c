/* The '#' lines that open steerlab's CSV files; see csvmeta.h. */
#include "csvmeta.h"

#include <string.h>

#ifndef STEERLAB_VERSION
#define STEERLAB_VERSION "unknown"
#endif

const char *csvmeta_version(void)
{
	return STEERLAB_VERSION;
}

/* csvmeta_line: "# WHAT VALUE\n", the value up to its first newline */
static void csvmeta_line(FILE *fp, const char *what, const char *value)
{
	if (value == NULL || value[0] == '\0')
		value = "-";
	fprintf(fp, "# %s%.*s\n", what, (int)strcspn(value, "\r\n"), value);
}

void csvmeta_write(FILE *fp, const char *run, const char *topology, const char *units)
{
	csvmeta_line(fp, "steerlab ", csvmeta_version());
	csvmeta_line(fp, "run ", run);
	csvmeta_line(fp, "topology ", topology);
	if (units)
		csvmeta_line(fp, "units: ", units);
}

const char *csvmeta_run_id(const char *dir, char *buf, size_t len)
{
	size_t end, start;

	if (len == 0)
		return buf;
	end = dir ? strlen(dir) : 0;
	while (end > 0 && dir[end - 1] == '/')
		end--;
	start = end;
	while (start > 0 && dir[start - 1] != '/')
		start--;
	if (end == start || (end - start == 1 && dir[start] == '.'))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.*s", (int)(end - start), dir + start);
	return buf;
}

int csvmeta_is_meta(const char *line)
{
	return line[0] == '#';
}
