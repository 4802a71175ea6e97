/* Each real resolver's configuration checked by its own tool, and printed; see realres.h. */
#include "realres.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab.h"
#include "rmtree.h"
#include "strfmt.h"
#include "subproc.h"

#define REALRES_KRESD_CHECK "check.lua"

/* realres_said: the tool's complaint on one line into buf: its lines but
 * kresd's start-up warnings and the tracebacks, joined by "; " */
static void realres_said(const char *text, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (const char *line = text; line && *line;) {
		size_t n = strcspn(line, "\n");

		if (n && !memmem(line, n, "warning: hard limit", 19) &&
		    !memmem(line, n, "stack traceback", 15) && line[0] != '\t' &&
		    !memmem(line, n, "error occurred here", 19) && used + 3 < len) {
			int w = snprintf(buf + used, len - used, "%s%.*s", used ? "; " : "", (int)n,
					 line);
			used = w < 0 || (size_t)w >= len - used ? len - 1 : used + (size_t)w;
		}
		line = line[n] ? line + n + 1 : NULL;
	}
	if (used == 0)
		strfmt(buf, len, "no message");
}

/* realres_write_file: dir/name from what write made; 0 or -1 */
static int realres_write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;
	int rc;

	if (strfmt(path, sizeof(path), "%s/%s", dir, name) == -1 || (f = fopen(path, "wx")) == NULL)
		return -1;
	rc = fputs(text, f) == EOF ? -1 : 0;
	return fclose(f) == EOF ? -1 : rc;
}

/* realres_check_tool: the implementation's own check of node n's
 * configuration in dir. 0, or -1 said on err. */
static int realres_check_tool(const struct topology *t, int n, const char *dir, const char *name,
			      FILE *err)
{
	const int impl = t->nodes[n].impl;
	char path[PATH_MAX], check[PATH_MAX + 512], said[512], *text = NULL;
	char *argv[8];
	int rc;

	strfmt(path, sizeof(path), "%s/%s", dir, name);
	if (impl == TOPO_IMPL_UNBOUND) {
		argv[0] = "/usr/sbin/unbound-checkconf";
		argv[1] = path;
		argv[2] = NULL;
	} else if (impl == TOPO_IMPL_BIND) {
		argv[0] = "/usr/bin/named-checkconf";
		argv[1] = path;
		argv[2] = NULL;
	} else {
		/* kresd has no check mode: it runs the configuration with its
		 * own functions, but net.listen (nothing listens) and user
		 * (nothing drops), then exits */
		strfmt(check, sizeof(check),
		       "net.listen = function(addr, port, opts)\n"
		       "\tassert(type(addr) == 'string' and type(port) == 'number' and "
		       "type(opts) == 'table', 'net.listen(addr, port, opts)')\n"
		       "end\n"
		       "user = function(u, g) assert(type(u) == 'string' and type(g) == "
		       "'string', 'user(name, group)') end\n"
		       "local ok, e = pcall(dofile, '%s')\n"
		       "if not ok then io.stderr:write(tostring(e) .. '\\n'); os.exit(1) end\n"
		       "os.exit(0)\n",
		       path);
		if (realres_write_file(dir, REALRES_KRESD_CHECK, check) == -1) {
			fprintf(err, "steerlab: node %s: %s/%s: %s\n", t->nodes[n].name, dir,
				REALRES_KRESD_CHECK, strerror(errno));
			return -1;
		}
		strfmt(check, sizeof(check), "%s/%s", dir, REALRES_KRESD_CHECK);
		argv[0] = (char *)realres_prog(impl);
		argv[1] = "-n";
		argv[2] = "-c";
		argv[3] = check;
		argv[4] = (char *)dir;
		argv[5] = NULL;
	}
	rc = subproc_capture(argv, -1, &text, NULL);
	if (rc == 127 || access(realres_prog(impl), X_OK) == -1) {
		fprintf(err,
			"steerlab: node %s: impl = %s needs %s and %s: not installed (sudo make "
			"deps)\n",
			t->nodes[n].name, topo_impl_name(impl), realres_prog(impl), argv[0]);
		free(text);
		return -1;
	}
	if (rc != 0) {
		realres_said(text ? text : "", said, sizeof(said));
		fprintf(err, "steerlab: node %s: %s rejected its configuration (%s)\n",
			t->nodes[n].name, topo_impl_name(impl), said);
	}
	free(text);
	return rc == 0 ? 0 : -1;
}

/* realres_text: node n's configuration and root hints for in, as text
 * (malloc'd). 0, or -1 with the knob errors on err. */
static int realres_text(const struct topology *t, int n, const struct realres_in *in, char **conf,
			char **hints, FILE *err)
{
	size_t len = 0, hlen = 0;
	FILE *f, *h;
	int rc;

	*conf = *hints = NULL;
	if ((f = open_memstream(conf, &len)) == NULL)
		return -1;
	if ((h = open_memstream(hints, &hlen)) == NULL) {
		fclose(f);
		free(*conf);
		return -1;
	}
	rc = realres_write(t, n, in, f, err);
	if (realres_write_hints(in, h) == -1)
		rc = -1;
	if (fclose(f) == EOF)
		rc = -1;
	if (fclose(h) == EOF)
		rc = -1;
	if (rc == -1) {
		free(*conf);
		free(*hints);
		*conf = *hints = NULL;
	}
	return rc;
}

int realres_check(const struct topology *t, FILE *err)
{
	int rc = 0;

	for (int n = 0; n < t->nnodes; n++) {
		char dir[PATH_MAX], name[TOPO_NAME_MAX + 16], *conf, *hints;
		struct realres_in in;

		if (t->nodes[n].kind != TOPO_RESOLVER || t->nodes[n].impl == TOPO_IMPL_RESOLVERD)
			continue;
		if (rmtree_mkdtemp(dir, sizeof(dir), "steerlab-realres") == -1) {
			fprintf(err, "steerlab: node %s: mkdtemp: %s\n", t->nodes[n].name,
				strerror(errno));
			return -1;
		}
		if (realres_inputs(t, n, dir, &in) == -1 ||
		    realres_text(t, n, &in, &conf, &hints, err) == -1) {
			rc = -1;
		} else {
			strfmt(name, sizeof(name), "%s.%s.conf", t->nodes[n].name,
			       realres_label(t->nodes[n].impl));
			if (realres_write_file(dir, name, conf) == -1 ||
			    realres_write_file(dir, "root.hints", hints) == -1) {
				fprintf(err, "steerlab: node %s: %s: %s\n", t->nodes[n].name, dir,
					strerror(errno));
				rc = -1;
			} else if (realres_check_tool(t, n, dir, name, err) == -1) {
				rc = -1;
			}
			free(conf);
			free(hints);
		}
		rmtree_at(AT_FDCWD, dir, 8); /* what the check tool made in it too */
	}
	return rc;
}

void realres_print(const struct topology *t, FILE *out)
{
	for (int n = 0; n < t->nnodes; n++) {
		char dir[PATH_MAX], *conf, *hints, *line, *save = NULL;
		struct realres_in in;
		FILE *null;

		if (t->nodes[n].kind != TOPO_RESOLVER || t->nodes[n].impl == TOPO_IMPL_RESOLVERD)
			continue;
		strfmt(dir, sizeof(dir), "%s/%s/%s/%s", LAB_STATE_DIR, t->name, REALRES_DIR,
		       t->nodes[n].name);
		if ((null = fopen("/dev/null", "w")) == NULL)
			return;
		if (realres_inputs(t, n, dir, &in) == -1 ||
		    realres_text(t, n, &in, &conf, &hints, null) == -1) {
			fclose(null);
			continue;
		}
		fclose(null);
		fprintf(out, "\n# %s of [resolver %s] (%s/%s.%s.conf while it is up):\n",
			topo_impl_name(t->nodes[n].impl), t->nodes[n].name, dir, t->nodes[n].name,
			realres_label(t->nodes[n].impl));
		for (line = strtok_r(conf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(out, "#   %s\n", line);
		free(conf);
		free(hints);
	}
}
