/*
 * The clocks of a run directory: loading it, and the whole analysis; see
 * clocks.h and clocks_input.h. The readers of each kind of file are in clocks_events.c,
 * clocks_csv.c and clocks_pcap.c; the arithmetic in clocks_anycast.c,
 * clocks_dns.c and clocks_scheme.c.
 */
#include "clocks.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "atomicfile.h"
#include "clocks_auths.h"
#include "clocks_int.h"
#include "inifile.h"
#include "log.h"
#include "strtonum.h"
#include "timeutil.h"

#define CLOCKS_NSCHEMES 2 /* anycast, dns: the columns of the table */
#define CLOCKS_HUGE (2u << 20)

static void clocks_note(struct clocks_notes *notes, const char *code, int invalidates,
			const char *fmt, va_list ap)
{
	struct clocks_warning *w;

	notes->invalid += invalidates;
	if (notes->n == CLOCKS_MAX_WARNINGS) {
		notes->lost++;
		return;
	}
	w = &notes->w[notes->n++];
	snprintf(w->code, sizeof(w->code), "%s", code);
	w->invalidates = invalidates;
	vsnprintf(w->msg, sizeof(w->msg), fmt, ap);
}

void clocks_warn(struct clocks_notes *notes, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	clocks_note(notes, code, 0, fmt, ap);
	va_end(ap);
}

void clocks_invalid(struct clocks_notes *notes, const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	clocks_note(notes, code, 1, fmt, ap);
	va_end(ap);
}

/* clocks_huge: advise huge pages for the 2 MiB-aligned part of p's len
 * bytes (see clocks_reserve); advice only, a kernel that says no changes
 * nothing. Not for an array realloc will move: mremap then splits them. */
static void clocks_huge(void *p, size_t len)
{
	uintptr_t start = ((uintptr_t)p + CLOCKS_HUGE - 1) & ~(uintptr_t)(CLOCKS_HUGE - 1);
	uintptr_t end = ((uintptr_t)p + len) & ~(uintptr_t)(CLOCKS_HUGE - 1);

	if (len >= 2 * CLOCKS_HUGE && end > start)
		madvise((void *)start, end - start, MADV_HUGEPAGE);
}

void clocks_reserve(void **arr, size_t *cap, size_t want, size_t size)
{
	void *p;

	if (want <= *cap || want > SIZE_MAX / size || (p = realloc(*arr, want * size)) == NULL)
		return;
	clocks_huge(p, want * size);
	*arr = p;
	*cap = want;
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

/* what the clocks take from topology.ini */
struct clocks_ini {
	long port;	    /* 0: not said; -1: not a port */
	int64_t timeout_ns; /* the longest client timeout; 0: none said */
	int lab, client;    /* in [lab], in a [client NODE] */
};

static int clocks_ini_section(void *user, const char *kind, const char *name, const char *extra)
{
	struct clocks_ini *ini = user;

	ini->lab = strcmp(kind, "lab") == 0 && name == NULL;
	ini->client = strcmp(kind, "client") == 0 && name != NULL;
	(void)extra;
	return 0;
}

static void clocks_ini_key(void *user, const char *name, const char *value)
{
	struct clocks_ini *ini = user;
	const char *errstr;
	int64_t ns;
	long v;

	if (ini->lab && strcmp(name, "port") == 0) {
		v = (long)strtonum(value, 1, 65535, &errstr);
		ini->port = errstr ? -1 : v;
	}
	/* the clients' timeouts: [lab]'s default and each [client NODE]'s (a
	 * [resolver]'s timeout is resolverd's own, not a client's) */
	if (strcmp(name, "timeout") == 0 && (ini->lab || ini->client) &&
	    parse_duration_ns(value, &ns) == 0 && ns > ini->timeout_ns)
		ini->timeout_ns = ns;
}

/* clocks_read_topology: the request port when lab_up did not say it: the
 * [lab] port of the topology as used, else the default, with a warning;
 * and the clients' longest timeout. */
static int clocks_read_topology(const char *rundir, struct clocks_input *in, char *err,
				size_t errlen)
{
	struct clocks_ini ini = {0};
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/topology.ini", rundir);
	/* the topology as used, as the lab printed it back */
	rc = inifile_scan(path, clocks_ini_section, clocks_ini_key, &ini);
	in->client_timeout_ns = ini.timeout_ns > 0 ? ini.timeout_ns : CLOCKS_CLIENT_TIMEOUT_NS;
	if (in->port != 0)
		return 0;
	long port = ini.port;
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
		clocks_warn(&in->notes, "port_assumed", "%s: %s; request port %d assumed", path,
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
	in->fail_at_ns = in->lab_stopping_ns = in->failure.killed_ns = CLOCKS_NONE;
	in->failure.jitter_offset_ns = in->failure.nominal_at_ns = CLOCKS_NONE;
	in->seed = in->fail_jitter_ns = CLOCKS_NONE;
	in->traffic_interrupted = -1;
	in->client_timeout_ns = CLOCKS_CLIENT_TIMEOUT_NS;
}

int64_t clocks_traffic_ns(const struct clocks_input *in)
{
	int ran = in->traffic_start_ns != CLOCKS_NONE && in->traffic_stop_ns != CLOCKS_NONE &&
		  in->traffic_stop_ns > in->traffic_start_ns;

	/* an interrupted run sent for as long as it ran, not as it was told
	 * (and never longer: the clients stop by themselves) */
	if (ran && in->traffic_interrupted == 1) {
		int64_t ns = in->traffic_stop_ns - in->traffic_start_ns;

		if (in->traffic_duration_ns != CLOCKS_NONE && in->traffic_duration_ns > 0 &&
		    in->traffic_duration_ns < ns)
			return in->traffic_duration_ns;
		return ns;
	}
	if (in->traffic_duration_ns != CLOCKS_NONE && in->traffic_duration_ns > 0)
		return in->traffic_duration_ns;
	if (ran)
		return in->traffic_stop_ns - in->traffic_start_ns;
	return CLOCKS_NONE;
}

int64_t clocks_traffic_end(const struct clocks_input *in)
{
	int64_t ns = clocks_traffic_ns(in);

	if (in->traffic_start_ns != CLOCKS_NONE && ns != CLOCKS_NONE)
		return in->traffic_start_ns + ns;
	return in->traffic_stop_ns;
}

int64_t clocks_observation_end(const struct clocks_input *in)
{
	int64_t end = clocks_traffic_end(in);

	/* a request captured later still belongs in a bucket */
	for (size_t i = 0; i < in->ncaptures; i++) {
		const struct clocks_capture *c = &in->captures[i];
		int64_t last = c->last_request_ns;

		if (c->n == 0)
			continue;
		if (c->last_of_n != c->n) { /* not filled by the reader */
			last = CLOCKS_NONE;
			for (size_t k = 0; k < c->n; k++)
				if (clocks_scheme_of(c->packets[k].client) != CLOCKS_SCHEME_NONE &&
				    (last == CLOCKS_NONE || c->packets[k].t_ns > last))
					last = c->packets[k].t_ns;
		}
		if (last != CLOCKS_NONE && (end == CLOCKS_NONE || last > end))
			end = last;
	}
	return end;
}

int clocks_load(const char *rundir, struct clocks_input *in, char *err, size_t errlen)
{
	clocks_input_init(in);
	if (clocks_read_events(rundir, in, err, errlen) == -1)
		return -1;
	/* a lab of IPv6 alone ([lab] ip = 6): its IPv6 routes are the
	 * service's routes, every anycast clock read on them (each as its
	 * IPv4 twin's: lab_up's twins); a dual lab has both, apart */
	if (in->nroutes == 0 && in->nroutes6 > 0) {
		free(in->routes);
		in->routes = in->routes6;
		in->nroutes = in->nroutes6;
		in->caproutes = in->caproutes6;
		in->routes6 = NULL;
		in->nroutes6 = in->caproutes6 = 0;
	}
	/* the failed site's recovery, if the timeline brought it back */
	for (size_t i = 0; i < in->nhits && in->failure.recovered_ns == 0; i++)
		if (in->hits[i].up && in->hits[i].t_ns > in->failure.t0_ns &&
		    strcmp(in->hits[i].site, in->failure.site) == 0)
			in->failure.recovered_ns = in->hits[i].t_ns;
	if (clocks_failures_find(in, err, errlen) == -1 ||
	    clocks_read_topology(rundir, in, err, errlen) == -1 ||
	    clocks_read_requests(rundir, in, err, errlen) == -1)
		return -1;
	/* before the captures: their queries are told apart by its names */
	clocks_read_dns_topology(rundir, in);
	if (clocks_read_captures(rundir, in, err, errlen) == -1)
		return -1;
	/* PowerDNS's verdicts and answers, from its checks and responses on
	 * the captures, as authd's events would say them */
	return clocks_authority_events(in);
}

void clocks_input_free(struct clocks_input *in)
{
	for (size_t i = 0; i < in->ncaptures; i++) {
		free(in->captures[i].packets);
		free(in->captures[i].v6);
		free(in->captures[i].tcp);
	}
	free(in->captures);
	for (size_t i = 0; i < in->nqcaptures; i++) {
		free(in->qcaptures[i].queries);
		free(in->qcaptures[i].responses);
	}
	free(in->qcaptures);
	free(in->lcaptures);
	for (size_t i = 0; i < in->nrcaptures; i++)
		free(in->rcaptures[i].msgs);
	free(in->rcaptures);
	free(in->addrs);
	free(in->twins);
	free(in->routes6);
	free(in->health);
	free(in->answers);
	free(in->dead);
	free(in->alive);
	free(in->expired);
	free(in->hits);
	free(in->failures);
	free(in->routes);
	free(in->stats);
	free(in->requests);
	free(in->impair);
	free(in->hosts);
	free(in->node_hosts);
	free(in->label_nodes);
	free(in->exits);
	free(in->cerrors);
	free(in->mlosses);
	free(in->rejected);
	free(in->clients);
	free(in->resolutions);
	free(in->danswers);
	free(in->steering);
	clocks_shares_free(in->shares);
	free(in->shares);
	free(in->auths);
	free(in->zchanges);
	free(in->conn);
	clocks_model_free(in->model);
	if (in->multi) {
		clocks_multi_free(in->multi);
		free(in->multi);
		in->multi = NULL;
	}
	memset(in, 0, sizeof(*in));
}

int clocks_analyse(const char *rundir, FILE *out)
{
	struct clocks_input in;
	struct clocks_result *res;
	struct clocks_notes *v;
	char err[PATH_MAX + 256];
	int rc = -1, dirfd = -1;

	res = calloc(CLOCKS_NSCHEMES, sizeof(*res));
	v = calloc(1, sizeof(*v));
	if (res == NULL || v == NULL) {
		log_warnx("clocks: out of memory");
		free(res);
		free(v);
		return -1;
	}
	if (clocks_load(rundir, &in, err, sizeof(err)) == -1) {
		log_warnx("clocks: %s", err);
		goto out;
	}
	clocks_anycast(&in, &res[0]);
	clocks_dns(&in, &res[1]);
	clocks_multi_prepare(&in);
	clocks_steering_prepare(&in, &res[0]);
	clocks_shares_prepare(&in);
	clocks_auths_prepare(&in);
	clocks_conn_prepare(&in);
	clocks_model_prepare(rundir, &in, CLOCKS_SLO_DEFAULT);
	clocks_verdict(&in, res, CLOCKS_NSCHEMES, v);
	if ((dirfd = atomicfile_dir(rundir, err, sizeof(err))) == -1 ||
	    clocks_write_json(dirfd, rundir, "clocks.json", &in, res, CLOCKS_NSCHEMES, v, NULL, err,
			      sizeof(err)) == -1) {
		log_warnx("clocks: %s", err);
		goto out;
	}
	clocks_print(out, &in, res, CLOCKS_NSCHEMES, v);
	rc = clocks_valid(&in, res, CLOCKS_NSCHEMES, v) ? 0 : CLOCKS_INVALID;
out:
	if (dirfd != -1)
		close(dirfd);
	clocks_input_free(&in);
	for (int i = 0; i < CLOCKS_NSCHEMES; i++)
		clocks_result_free(&res[i]);
	free(res);
	free(v);
	return rc;
}
