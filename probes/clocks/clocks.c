/*
 * The clocks of a run directory: loading it, and the whole analysis; see
 * clocks.h. The readers of each kind of file are in clocks_events.c,
 * clocks_csv.c and clocks_pcap.c; the arithmetic in clocks_anycast.c,
 * clocks_dns.c and clocks_scheme.c.
 */
#include "clocks.h"

#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clocks_int.h"
#include "log.h"

#define CLOCKS_NSCHEMES 2 /* anycast, dns: the columns of the table */

void clocks_warn(struct clocks_notes *notes, const char *fmt, ...)
{
	va_list ap;

	if (notes->n == CLOCKS_MAX_WARNINGS) {
		notes->lost++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(notes->msg[notes->n++], CLOCKS_WARNING_LEN, fmt, ap);
	va_end(ap);
}

int clocks_grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	if (ncap > SIZE_MAX / size)
		return -1;
	p = realloc(*arr, ncap * size);
	if (p == NULL)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

ssize_t clocks_read_line(FILE *fp, char **line, size_t *cap, int *complete)
{
	ssize_t len = getline(line, cap, fp);

	if (len == -1)
		return -1;
	*complete = len > 0 && (*line)[len - 1] == '\n';
	while (len > 0 && ((*line)[len - 1] == '\n' || (*line)[len - 1] == '\r'))
		(*line)[--len] = '\0';
	return len;
}

static int clocks_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void clocks_free_names(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int clocks_list_dir(const char *dir, const char *prefix, const char *suffix, char ***names,
		    size_t *n, char *err, size_t errlen)
{
	size_t plen = strlen(prefix), slen = strlen(suffix), cap = 0;
	struct dirent *de;
	DIR *d;

	*names = NULL;
	*n = 0;
	d = opendir(dir);
	if (d == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len <= plen + slen || strncmp(de->d_name, prefix, plen) != 0 ||
		    strcmp(de->d_name + len - slen, suffix) != 0)
			continue;
		if (clocks_grow((void **)names, &cap, *n, sizeof(**names)) == -1 ||
		    ((*names)[*n] = strdup(de->d_name)) == NULL) {
			snprintf(err, errlen, "%s: out of memory", dir);
			goto fail;
		}
		(*n)++;
	}
	closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), clocks_cmp_names);
	return 0;
fail:
	closedir(d);
	clocks_free_names(*names, *n);
	*names = NULL;
	*n = 0;
	return -1;
}

static int clocks_ini_port(void *user, const char *section, const char *name, const char *value)
{
	long *port = user;
	char *end;
	long v;

	if (strcmp(section, "lab") == 0 && strcmp(name, "port") == 0) {
		v = strtol(value, &end, 10);
		*port = (*end == '\0' && end != value && v >= 1 && v <= 65535) ? v : -1;
	}
	return 1;
}

/* clocks_read_port: the request port when lab_up did not say it: the [lab]
 * port of the topology as used, else the default, with a warning. */
static int clocks_read_port(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	char path[PATH_MAX];
	long port = 0;
	int rc;

	if (in->port != 0)
		return 0;
	snprintf(path, sizeof(path), "%s/topology.ini", rundir);
	rc = ini_parse(path, clocks_ini_port, &port);
	if (rc > 0) {
		snprintf(err, errlen, "%s:%d: not a valid INI line", path, rc);
		return -1;
	}
	if (port == -1) {
		snprintf(err, errlen, "%s: [lab] port is not a port number", path);
		return -1;
	}
	if (port == 0) {
		in->port = WIRE_PORT_DEFAULT;
		clocks_warn(&in->notes, "%s: %s; request port %d assumed", path,
			    rc == 0 ? "no [lab] port" : "not readable", WIRE_PORT_DEFAULT);
	} else {
		in->port = (uint16_t)port;
	}
	return 0;
}

void clocks_input_init(struct clocks_input *in)
{
	memset(in, 0, sizeof(*in));
	in->traffic_start_ns = in->traffic_duration_ns = in->traffic_stop_ns = CLOCKS_NONE;
}

int64_t clocks_traffic_ns(const struct clocks_input *in)
{
	if (in->traffic_duration_ns != CLOCKS_NONE && in->traffic_duration_ns > 0)
		return in->traffic_duration_ns;
	if (in->traffic_start_ns != CLOCKS_NONE && in->traffic_stop_ns != CLOCKS_NONE &&
	    in->traffic_stop_ns > in->traffic_start_ns)
		return in->traffic_stop_ns - in->traffic_start_ns;
	return CLOCKS_NONE;
}

int clocks_load(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	clocks_input_init(in);
	if (clocks_read_events(rundir, in, err, errlen) == -1 ||
	    clocks_read_port(rundir, in, err, errlen) == -1 ||
	    clocks_read_requests(rundir, in, err, errlen) == -1 ||
	    clocks_read_captures(rundir, in, err, errlen) == -1)
		return -1;
	return 0;
}

void clocks_input_free(struct clocks_input *in)
{
	for (size_t i = 0; i < in->ncaptures; i++)
		free(in->captures[i].packets);
	free(in->captures);
	for (size_t i = 0; i < in->nqcaptures; i++)
		free(in->qcaptures[i].queries);
	free(in->qcaptures);
	free(in->health);
	free(in->answers);
	free(in->dead);
	free(in->routes);
	free(in->stats);
	free(in->requests);
	memset(in, 0, sizeof(*in));
}

int clocks_analyse(const char *rundir, FILE *out)
{
	struct clocks_input in;
	struct clocks_result *res;
	char err[PATH_MAX + 256], path[PATH_MAX];
	int rc = -1;

	res = calloc(CLOCKS_NSCHEMES, sizeof(*res));
	if (res == NULL) {
		log_warnx("clocks: out of memory");
		return -1;
	}
	if (clocks_load(rundir, &in, err, sizeof(err)) == -1) {
		log_warnx("clocks: %s", err);
		goto out;
	}
	clocks_anycast(&in, &res[0]);
	clocks_dns(&in, &res[1]);
	if (snprintf(path, sizeof(path), "%s/clocks.json", rundir) >= (int)sizeof(path)) {
		log_warnx("clocks: %s: path too long", rundir);
		goto out;
	}
	if (clocks_write_json(path, &in, res, CLOCKS_NSCHEMES, err, sizeof(err)) == -1) {
		log_warnx("clocks: %s", err);
		goto out;
	}
	clocks_print(out, &in, res, CLOCKS_NSCHEMES);
	rc = 0;
out:
	clocks_input_free(&in);
	for (int i = 0; i < CLOCKS_NSCHEMES; i++)
		clocks_result_free(&res[i]);
	free(res);
	return rc;
}
