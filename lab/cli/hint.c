/*
 * lab/hint: usage errors that suggest the fix (hint.h).
 */
#include "hint.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "topology.h"

/* hint_appendf: vsnprintf at *off in buf, which stays terminated; -1 once the
 * message no longer fits */
static int hint_appendf(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return -1;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *off) {
		*off = len;
		return -1;
	}
	*off += (size_t)n;
	return 0;
}

/* hint_lab_key_type: the type of the [lab] key called name (name is
 * namelen bytes; ttl a duration), or -1 if there is none */
static int hint_lab_key_type(const char *name, size_t namelen)
{
	int type = topo_key_type(-1, name, namelen);

	if (type == -1 && namelen == 3 && strncmp(name, "ttl", 3) == 0)
		return TOPO_T_DURATION;
	return type;
}

int hint_option(const char *opt, const char *next, char *buf, size_t len)
{
	const char *name, *eq, *value = NULL;
	int type;
	size_t namelen, off = 0;

	if (strncmp(opt, "--", 2) != 0 || opt[2] == '\0')
		return -1;
	name = opt + 2;
	eq = strchr(name, '=');
	namelen = eq ? (size_t)(eq - name) : strlen(name);
	if (namelen == 0)
		return -1;
	if (eq)
		value = eq + 1;
	else if (next && next[0] != '-' && next[0] != '\0')
		value = next;
	type = hint_lab_key_type(name, namelen);
	if (type == -1 && value == NULL)
		return -1;
	if (hint_appendf(buf, len, &off, "--%.*s is not an option; ", (int)namelen, name) == -1)
		return -1;
	if (type == TOPO_T_DURATION)
		hint_appendf(buf, len, &off,
			     "durations and other topology keys are set with --set");
	else if (type != -1)
		hint_appendf(buf, len, &off, "topology keys are set with --set");
	else
		hint_appendf(buf, len, &off, "if %.*s is a topology key, set it with --set",
			     (int)namelen, name);
	hint_appendf(buf, len, &off, ": --set %.*s=%s", (int)namelen, name,
		     value ? value : "VALUE");
	return off < len ? 0 : -1;
}

int hint_lab_file(const char *cmd, const char *arg, const char *name, char *buf, size_t len)
{
	size_t off = 0;

	if (name)
		hint_appendf(buf, len, &off,
			     "%s takes the lab's name, not its file: steerlab %s %s", cmd, cmd,
			     name);
	else
		hint_appendf(buf, len, &off,
			     "%s takes a lab's name, not a file ('%s'; steerlab status "
			     "lists the labs that are up)",
			     cmd, arg);
	return off < len ? 0 : -1;
}

/* hint_takes_value: a steerlab option whose value is the next argument */
static int hint_takes_value(const char *a)
{
	static const char *const opts[] = {"--out", "--set", "--bucket", "--slo", "-o", "-s", NULL};
	int i;

	for (i = 0; opts[i]; i++)
		if (strcmp(a, opts[i]) == 0)
			return 1;
	return 0;
}

int hint_options_first(int n, char *const args[], char *buf, size_t len)
{
	size_t off = 0;
	int i, cmd = -1;

	if (n < 1 || args[0][0] != '-')
		return -1;
	/* the command: the first argument that is neither an option nor an
	 * option's value */
	for (i = 0; i < n; i++) {
		if (strcmp(args[i], "--") == 0)
			break;
		if (args[i][0] != '-') {
			cmd = i;
			break;
		}
		if (hint_takes_value(args[i]))
			i++;
	}
	hint_appendf(buf, len, &off, "options go after the command: steerlab %s",
		     cmd >= 0 ? args[cmd] : "COMMAND");
	for (i = cmd + 1; cmd >= 0 && i < n; i++)
		hint_appendf(buf, len, &off, " %s", args[i]);
	if (cmd < 0)
		hint_appendf(buf, len, &off, " ...");
	for (i = 0; i < (cmd >= 0 ? cmd : n); i++)
		hint_appendf(buf, len, &off, " %s", args[i]);
	return off < len ? 0 : -1;
}

int hint_directory(const char *path, char *const names[], int n, char *buf, size_t len)
{
	size_t off = 0, plen = strlen(path);
	const char *sep = plen && path[plen - 1] == '/' ? "" : "/";
	int i;

	hint_appendf(buf, len, &off, "%s: is a directory; expected a topology file such as ", path);
	if (n > 0)
		hint_appendf(buf, len, &off, "%s%s%s", path, sep, names[0]);
	else
		hint_appendf(buf, len, &off, "topology/anycast.ini");
	if (n > 0) {
		hint_appendf(buf, len, &off, "\n  topology files in %s:", path);
		for (i = 0; i < n; i++)
			hint_appendf(buf, len, &off, " %s", names[i]);
	} else {
		hint_appendf(buf, len, &off, " (%s holds no .ini file)", path);
	}
	return off < len ? 0 : -1;
}

int hint_which_node(const char *cmd, const char *lab, const char *what, char *const names[], int n,
		    char *buf, size_t len)
{
	size_t off = 0;

	if (n == 0)
		return -1;
	hint_appendf(buf, len, &off, "%s: which %s of lab %s? its %ss:", cmd, what, lab, what);
	for (int i = 0; i < n; i++)
		hint_appendf(buf, len, &off, "%s %s", i ? "," : "", names[i]);
	hint_appendf(buf, len, &off, " (e.g. steerlab %s %s %s%s)", cmd, lab, names[0],
		     strcmp(cmd, "exec") == 0 ? " -- ip route" : "");
	return off < len ? 0 : -1;
}
