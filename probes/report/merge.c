/* `steerlab merge`: every capture of a run in one pcapng, the lab's events as comments; see
 * report.h. */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicfile.h"
#include "ipframe.h"
#include "merge_int.h"
#include "pcapng.h"
#include "strfmt.h"
#include "wire.h"

struct merge_cap {
	char label[MERGE_LABEL];
	pcap_t *p;
	int dlt;
	int ifid;
	struct pcap_pkthdr *h; /* the packet read ahead, NULL at the end */
	const uint8_t *data;
	int64_t t_ns;
	int site; /* a site's link */
	uint64_t packets;
};

struct merge_state {
	struct merge_plan plan;
	struct merge_cap *caps;
	int ncaps;
	int *heap; /* capture indexes, by (t_ns, index) */
	int nheap;
	uint16_t port;
	/* the clients S saw before t0, and whether each was seen at another
	 * site since */
	uint32_t seen[MERGE_MAX_CLIENTS];
	int moved[MERGE_MAX_CLIENTS];
	int nseen;
};

static int merge_capture_name(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return strncmp(d->d_name, "capture-", 8) == 0 && n > 13 &&
	       strcmp(d->d_name + n - 5, ".pcap") == 0;
}

/* merge_next: read capture c's next packet ahead; 0, or -1 at its end
 * (a damaged file ends there, said on log) */
static int merge_next(struct merge_cap *c, FILE *log)
{
	int rc = pcap_next_ex(c->p, &c->h, &c->data);

	if (rc == 1) {
		c->t_ns = (int64_t)c->h->ts.tv_sec * 1000000000LL + c->h->ts.tv_usec;
		return 0;
	}
	if (rc == PCAP_ERROR && log)
		fprintf(log, "steerlab: merge: capture-%s.pcap: %s (merged up to there)\n",
			c->label, pcap_geterr(c->p));
	c->h = NULL;
	return -1;
}

static int merge_before(const struct merge_state *m, int a, int b)
{
	const struct merge_cap *x = &m->caps[a], *y = &m->caps[b];

	return x->t_ns < y->t_ns || (x->t_ns == y->t_ns && a < b);
}

static void merge_sift_down(struct merge_state *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, best = i, tmp;

		if (l < m->nheap && merge_before(m, m->heap[l], m->heap[best]))
			best = l;
		if (r < m->nheap && merge_before(m, m->heap[r], m->heap[best]))
			best = r;
		if (best == i)
			return;
		tmp = m->heap[i];
		m->heap[i] = m->heap[best];
		m->heap[best] = tmp;
		i = best;
	}
}

static int merge_linktype(int dlt)
{
	/* the DLT_ values that differ from their LINKTYPE_ */
	if (dlt == DLT_RAW)
		return 101; /* LINKTYPE_RAW */
	return dlt;
}

/* merge_open: every capture-*.pcap of rundir, its interface in w */
static int merge_open(struct merge_state *m, const char *rundir, struct pcapng_writer *w, char *err,
		      size_t errlen)
{
	struct dirent **ents = NULL;
	char path[4096], ebuf[PCAP_ERRBUF_SIZE];
	int n = scandir(rundir, &ents, merge_capture_name, alphasort), rc = 0, snaplen = 0;

	if (n < 0) {
		snprintf(err, errlen, "%s: %s", rundir, strerror(errno));
		return -1;
	}
	m->caps = calloc((size_t)n + 1, sizeof(*m->caps));
	m->heap = calloc((size_t)n + 1, sizeof(*m->heap));
	if (m->caps == NULL || m->heap == NULL) {
		snprintf(err, errlen, "merge: out of memory");
		rc = -1;
	}
	for (int i = 0; i < n && rc == 0; i++) {
		struct merge_cap *c = &m->caps[m->ncaps];
		size_t len = strlen(ents[i]->d_name);

		strfmt(c->label, sizeof(c->label), "%.*s", (int)(len - 13), ents[i]->d_name + 8);
		strfmt(path, sizeof(path), "%s/%s", rundir, ents[i]->d_name);
		c->p =
		    pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
		if (c->p == NULL) {
			snprintf(err, errlen, "%s: %s", path, ebuf);
			rc = -1;
			break;
		}
		c->dlt = pcap_datalink(c->p);
		c->site = merge_is_site(&m->plan, c->label);
		if (pcap_snapshot(c->p) > snaplen)
			snaplen = pcap_snapshot(c->p);
		m->ncaps++;
	}
	/* one snaplen for every interface, the largest: libpcap refuses a
	 * pcapng whose interfaces differ in it */
	for (int i = 0; i < m->ncaps && rc == 0; i++) {
		struct merge_cap *c = &m->caps[i];

		c->ifid =
		    pcapng_interface(w, c->label, merge_linktype(c->dlt), (uint32_t)snaplen, 9);
		if (c->ifid < 0) {
			snprintf(err, errlen, "%s/run.pcapng: %s", rundir, strerror(errno));
			rc = -1;
		}
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return rc;
}

/* merge_client_moved: a request of client at site c after t0, by a client
 * S answered before: its first there is an event (into text) */
static int merge_watch(struct merge_state *m, const struct merge_cap *c, char *text, size_t len)
{
	struct merge_plan *plan = &m->plan;
	uint32_t client;
	char who[96];
	int k;

	if (!c->site || plan->t0_ns < 0 ||
	    ipframe_request(c->dlt, c->data, c->h->caplen, m->port, &client, NULL, NULL) == -1 ||
	    client == WIRE_PROBE_CLIENT)
		return 0;
	client = wire_agent_of(client);
	for (k = 0; k < m->nseen && m->seen[k] != client; k++)
		;
	if (c->t_ns < plan->t0_ns) {
		if (k == m->nseen && m->nseen < MERGE_MAX_CLIENTS &&
		    strcmp(c->label, plan->failed) == 0)
			m->seen[m->nseen++] = client;
		return 0;
	}
	if (k == m->nseen || m->moved[k] || strcmp(c->label, plan->failed) == 0)
		return 0;
	m->moved[k] = 1;
	snprintf(
	    text, len,
	    "t0 + %.6f s: the first request of %s at its new site %s (it reached %s before t0)",
	    (double)(c->t_ns - plan->t0_ns) / 1e9,
	    merge_client_name(plan, client, who, sizeof(who)), c->label, plan->failed);
	return 1;
}

/* merge_dns_answer: whether c's packet is authd's answer to name without
 * the address gone */
static int merge_dns_answer(const struct merge_state *m, const struct merge_cap *c)
{
	char qname[256];
	struct ipframe u;
	const uint8_t *a = (const uint8_t *)&m->plan.failed_addr;

	if (strncmp(c->label, "dns-", 4) != 0 ||
	    ipframe_decode(c->dlt, c->data, c->h->caplen, &u) == -1 || u.sport != 53 ||
	    u.have < 12 || !(u.payload[2] & 0x80) ||
	    merge_dns_qname(u.payload, u.have, qname, sizeof(qname)) == -1 ||
	    strcasecmp(qname, m->plan.steer_name) != 0)
		return 0;
	if (m->plan.failed_addr.s_addr)
		for (size_t i = 12; i + 4 <= u.have; i++)
			if (memcmp(u.payload + i, a, 4) == 0)
				return 0;
	return 1;
}

/* merge_comments: the events of the packet of c: into out[], their number */
static int merge_comments(struct merge_state *m, const struct merge_cap *c,
			  char (*buf)[MERGE_TEXT + 64], const char **out, int max)
{
	struct merge_plan *plan = &m->plan;
	int n = 0;

	for (int i = 0; i < plan->nev && n < max; i++) {
		struct merge_event *e = &plan->ev[i];

		if (e->placed || e->t_ns > c->t_ns)
			continue;
		switch (e->kind) {
		case MERGE_AT:
			strfmt(buf[n], sizeof(buf[n]), "%s", e->text);
			break;
		case MERGE_REQUEST:
			if (c->t_ns <= e->t_ns + 2 && strcmp(c->label, e->label) == 0 && c->site &&
			    ipframe_request(c->dlt, c->data, c->h->caplen, m->port, &(uint32_t){0},
					    NULL, NULL) == 0)
				strfmt(buf[n], sizeof(buf[n]), "%s", e->text);
			else if (c->t_ns > e->t_ns + 2)
				strfmt(
				    buf[n], sizeof(buf[n]),
				    "%s [its packet is not in capture-%s.pcap: on the next packet]",
				    e->text, e->label);
			else
				continue;
			break;
		case MERGE_DNS_ANSWER:
			if (!merge_dns_answer(m, c))
				continue;
			strfmt(buf[n], sizeof(buf[n]), "t0 + %.6f s: %s",
			       (double)(c->t_ns - plan->t0_ns) / 1e9, e->text);
			break;
		}
		e->placed = 1;
		out[n] = buf[n];
		n++;
	}
	if (n < max && merge_watch(m, c, buf[n], sizeof(buf[n]))) {
		out[n] = buf[n];
		n++;
	}
	return n;
}

int report_merge(const char *rundir, uint16_t port, struct report_merge_stats *st, FILE *log,
		 char *err, size_t errlen)
{
	static struct merge_state m;
	char cbuf[8][MERGE_TEXT + 64];
	const char *comments[8];
	struct pcapng_writer w;
	struct atomicfile af;
	int dirfd = -1, rc = -1;

	memset(&m, 0, sizeof(m));
	memset(st, 0, sizeof(*st));
	if (merge_plan_load(rundir, &m.plan, err, errlen) == -1)
		return -1;
	m.port = port ? port : m.plan.port ? m.plan.port : WIRE_PORT_DEFAULT;
	if ((dirfd = atomicfile_dir(rundir, err, errlen)) == -1)
		return -1;
	if (atomicfile_open(&af, dirfd, rundir, REPORT_MERGE_FILE, err, errlen) == -1)
		goto out;
	if (pcapng_begin(&w, af.fp, "steerlab merge") == -1 ||
	    merge_open(&m, rundir, &w, err, errlen) == -1) {
		if (err[0] == '\0')
			snprintf(err, errlen, "%s/%s: %s", rundir, REPORT_MERGE_FILE,
				 strerror(errno));
		atomicfile_abort(&af);
		goto out;
	}
	if (m.ncaps == 0) {
		snprintf(err, errlen, "%s: no capture-*.pcap: not a run directory?", rundir);
		atomicfile_abort(&af);
		goto out;
	}
	for (int i = 0; i < m.ncaps; i++)
		if (merge_next(&m.caps[i], log) == 0)
			m.heap[m.nheap++] = i;
	for (int i = m.nheap / 2 - 1; i >= 0; i--)
		merge_sift_down(&m, i);
	while (m.nheap > 0) {
		struct merge_cap *c = &m.caps[m.heap[0]];
		int n = merge_comments(&m, c, cbuf, comments, 8);

		if (pcapng_packet(&w, (uint32_t)c->ifid, (uint64_t)c->t_ns, c->data, c->h->caplen,
				  c->h->len, comments, n) == -1) {
			snprintf(err, errlen, "%s/%s: %s", rundir, REPORT_MERGE_FILE,
				 strerror(errno));
			atomicfile_abort(&af);
			goto out;
		}
		c->packets++;
		st->packets++;
		st->comments += n;
		if (merge_next(c, log) == -1)
			m.heap[0] = m.heap[--m.nheap];
		merge_sift_down(&m, 0);
	}
	for (int i = 0; i < m.plan.nev; i++)
		if (!m.plan.ev[i].placed) {
			st->unplaced++;
			if (log)
				fprintf(log, "steerlab: merge: no packet after the event: %s\n",
					m.plan.ev[i].text);
		}
	st->captures = m.ncaps;
	if (atomicfile_commit(&af, err, errlen) == -1)
		goto out;
	rc = 0;
out:
	for (int i = 0; i < m.ncaps; i++)
		pcap_close(m.caps[i].p);
	free(m.caps);
	free(m.heap);
	close(dirfd);
	return rc;
}
