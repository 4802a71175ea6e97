/* The links' impairments in a lab: netem set, or linkd started; see lab.h. */
#include "lab.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "events.h"
#include "log.h"
#include "strfmt.h"
#include "timeutil.h"

/* the mechanism, detected once a process (impair_detect forks a child) */
static int linkimpair_known;
static enum impair_mech linkimpair_mech;
static char linkimpair_why[256];

const char *lab_impair_mech_text(enum impair_mech mech)
{
	return mech == IMPAIR_MECH_NETEM ? "netem" : "delayline (linkd)";
}

/* linkimpair_check: every impaired direction as mech applies it; each one
 * it cannot is said on err, at its [link]'s line. 0 or -1. */
static int linkimpair_check(const struct topology *t, enum impair_mech mech, FILE *err)
{
	char why[256];
	int rc = 0;

	for (int n = 0; n < t->nnodes; n++) {
		struct topo_egress e[TOPO_MAX_NODES];
		int k = topo_node_egress(t, n, e, TOPO_MAX_NODES);

		for (int i = 0; i < k && i < TOPO_MAX_NODES; i++) {
			int line = 0;

			if (impair_check(e[i].im, mech, why, sizeof(why)) == 0)
				continue;
			for (int l = 0; l < t->nlinks && line == 0; l++)
				if (e[i].im == &t->links[l].impair[0] ||
				    e[i].im == &t->links[l].impair[1])
					line = t->links[l].impair_line;
			for (int j = 0; j < t->nrlinks && line == 0; j++)
				if (e[i].im == &t->rlinks[j].impair[0] ||
				    e[i].im == &t->rlinks[j].impair[1])
					line = t->rlinks[j].line;
			fprintf(err, "%s:%d: %s>%s: %s (mechanism: %s)\n", t->path, line,
				t->nodes[n].name, t->nodes[e[i].peer].name, why,
				lab_impair_mech_text(mech));
			rc = -1;
		}
	}
	/* the timeline's impair: what the mechanism cannot change */
	for (int i = 0; i < t->nevents; i++) {
		const struct topo_event *ev = &t->events[i];
		const struct impair *base[2];
		const char *ifname[2];
		int node[2];

		if (ev->action != TOPO_A_IMPAIR)
			continue;
		topo_link_dirs(t, ev->link, ev->rlink, node, ifname, base);
		for (int d = 0; d < 2; d++) {
			struct impair im = *base[d];
			const char *a = t->nodes[node[d]].name, *b = t->nodes[node[1 - d]].name;

			if (!ev->imset[d])
				continue;
			topo_impair_merge(&im, &ev->im[d], ev->imset[d]);
			if (impair_check(&im, mech, why, sizeof(why)) == -1) {
				fprintf(err, "%s:%d: [event %s] %s>%s: %s (mechanism: %s)\n",
					t->path, ev->line, ev->name, a, b, why,
					lab_impair_mech_text(mech));
				rc = -1;
			} else if (mech == IMPAIR_MECH_DELAYLINE && topo_impair_none(base[d])) {
				fprintf(
				    err,
				    "%s:%d: [event %s] %s>%s: the delay line changes only the "
				    "directions impaired at bring-up; expected the topology to "
				    "impair it ([link %s %s] %s>%s.delay = 1us, say) (mechanism: "
				    "%s)\n",
				    t->path, ev->line, ev->name, a, b, t->nodes[node[0]].name,
				    t->nodes[node[1]].name, a, b, lab_impair_mech_text(mech));
				rc = -1;
			}
		}
	}
	return rc;
}

void lab_impair_mech_pin(enum impair_mech mech, const char *why)
{
	linkimpair_known = 1;
	linkimpair_mech = mech;
	(void)strfmt(linkimpair_why, sizeof(linkimpair_why), "%s", why);
}

int lab_impair_mech(const struct topology *t, enum impair_mech *mech, char *why, size_t len,
		    FILE *err)
{
	if (!linkimpair_known) {
		if (impair_detect(&linkimpair_mech, linkimpair_why, sizeof(linkimpair_why)) == -1) {
			(void)strfmt(why, len, "%s", linkimpair_why);
			return -2;
		}
		linkimpair_known = 1;
	}
	*mech = linkimpair_mech;
	(void)strfmt(why, len, "%s", linkimpair_why);
	return linkimpair_check(t, linkimpair_mech, err);
}

/* linkimpair_netem: node n's impaired interfaces, each a netem qdisc (with
 * a tbf under it for a rate), set from inside its namespace. 0 or -1. */
static int linkimpair_netem(struct lab *lab, int n, const struct topo_egress *e, int k)
{
	char err[256];
	int rc = 0;

	if (netns_enter(lab->nsfd[n]) == -1) {
		log_warn("%s: setns %s", __func__, lab->t->nodes[n].name);
		return -1;
	}
	for (int i = 0; i < k && rc == 0; i++) {
		if (impair_netem_apply(e[i].ifname, e[i].im, err, sizeof(err)) == -1) {
			log_warnx("%s: %s: netem: %s", lab->t->nodes[n].name, e[i].ifname, err);
			rc = -1;
		}
	}
	if (netns_enter_root() == -1)
		fatal("%s: setns back to the root namespace", __func__);
	return rc;
}

/* A linkd's command line: room for every impaired interface of a router
 * of the largest lab, each with its five keys. */
#define LINKIMPAIR_ARGS (12 * TOPO_MAX_NODES + 16)

/* linkimpair_linkd: node n's linkd, started (inside the open batch) with
 * each impaired interface's -i and keys. 0 or -1 (said). */
static int linkimpair_linkd(struct lab *lab, int n, const struct topo_egress *e, int k)
{
	/* the keys linkd takes, by topo_impair_key_name's index: duplicate
	 * has none (lab_impair_mech refused it) */
	static const char opt[6][3] = {"-d", "-j", "-l", "", "-R", "-r"};
	static char *argv[LINKIMPAIR_ARGS];
	static char store[LINKIMPAIR_ARGS][128];
	int a = 0;

#define LINKIMPAIR_ARG(...)                                                                        \
	do {                                                                                       \
		if (a + 1 >= LINKIMPAIR_ARGS ||                                                    \
		    strfmt(store[a], sizeof(store[a]), __VA_ARGS__) == -1) {                       \
			log_warnx("linkd of %s: command line too long", lab->t->nodes[n].name);    \
			return -1;                                                                 \
		}                                                                                  \
		argv[a] = store[a];                                                                \
		a++;                                                                               \
	} while (0)
	LINKIMPAIR_ARG("linkd");
	LINKIMPAIR_ARG("-n");
	LINKIMPAIR_ARG("%s", lab->t->nodes[n].name);
	LINKIMPAIR_ARG("-e");
	LINKIMPAIR_ARG("%s/%s.linkd.events.jsonl", lab->rundir, lab->t->nodes[n].name);
	/* the delay line is a clock: a busy machine makes it late (SCHED_FIFO
	 * where it is permitted: lab_rt_permitted) */
	if (lab_rt_permitted(lab)) {
		LINKIMPAIR_ARG("-p");
		LINKIMPAIR_ARG("%d", LAB_LINKD_PRIO);
	}
	/* the impairments `steerlab impair` and the timeline change, read
	 * again on SIGHUP (and at start: a linkd started again keeps them) */
	LINKIMPAIR_ARG("-c");
	LINKIMPAIR_ARG("%s/%s.impair", lab->rundir, lab->t->nodes[n].name);
	/* the seed of the draws: the node's index, so a run is repeatable */
	LINKIMPAIR_ARG("-s");
	LINKIMPAIR_ARG("%d", n + 1);
	for (int i = 0; i < k; i++) {
		char v[128];

		LINKIMPAIR_ARG("-i");
		LINKIMPAIR_ARG("%s", e[i].ifname);
		for (int key = 0; topo_impair_key_name(key); key++) {
			if (!opt[key][0] || !topo_impair_value(e[i].im, key, v, sizeof(v)))
				continue;
			LINKIMPAIR_ARG("%s", opt[key]);
			LINKIMPAIR_ARG("%s", v);
		}
	}
#undef LINKIMPAIR_ARG
	argv[a] = NULL;
	return lab_start_agent_as(lab, n, "linkd", "linkd", argv) == -1 ? -1 : 0;
}

/* linkimpair_ready: NODE.linkd.events.jsonl has linkd_ready */
static int linkimpair_ready(const struct lab *lab, int n)
{
	char path[PATH_MAX], line[1024];
	int ready = 0;
	FILE *fp;

	if (strfmt(path, sizeof(path), "%s/%s.linkd.events.jsonl", lab->rundir,
		   lab->t->nodes[n].name) == -1 ||
	    (fp = lab_fopen_read(path)) == NULL)
		return 0;
	while (!ready && fgets(line, sizeof(line), fp))
		ready = strstr(line, "\"linkd_ready\"") != NULL;
	fclose(fp);
	return ready;
}

/* linkimpair_paths: every client's path to every site as configured, for
 * the analysis (lab.events.jsonl's impairments; docs/events.md) */
static json_t *linkimpair_paths(const struct topology *t)
{
	json_t *a = json_array();

	for (int c = 0; c < t->nnodes && a; c++) {
		if (t->nodes[c].kind != TOPO_CLIENT)
			continue;
		for (int s = 0; s < t->nnodes; s++) {
			double there, back;
			int64_t rtt;

			if (t->nodes[s].kind != TOPO_SITE || (rtt = topo_rtt_ns(t, c, s)) < 0)
				continue;
			there = topo_loss_pct(t, c, s);
			back = topo_loss_pct(t, s, c);
			json_array_append_new(
			    a, json_pack("{s:s, s:s, s:I, s:f}", "client", t->nodes[c].name, "site",
					 t->nodes[s].name, "rtt_ns", (json_int_t)rtt, "loss_pct",
					 100 * (1 - (1 - there / 100) * (1 - back / 100))));
		}
	}
	return a;
}

int lab_impair_apply(struct lab *lab)
{
	const struct topology *t = lab->t;
	static struct topo_egress e[TOPO_MAX_NODES];
	enum impair_mech mech;
	char why[256];
	int64_t deadline;
	int rc = 0, waiting;

	if (!topo_impaired(t))
		return 0;
	switch (lab_impair_mech(t, &mech, why, sizeof(why), stderr)) {
	case -2:
		log_warnx("impairments: %s", why);
		return -1;
	case -1:
		return -1; /* each link said */
	}
	event_emit(lab->ev, EVENTS_IMPAIRMENTS, "{s:s, s:s, s:o?}", "mechanism",
		   impair_mech_name(mech), "why", why, "paths", linkimpair_paths(t));
	if (mech == IMPAIR_MECH_NETEM) {
		for (int n = 0; n < t->nnodes && rc == 0; n++) {
			int k = topo_node_egress(t, n, e, TOPO_MAX_NODES);

			if (k > 0)
				rc = linkimpair_netem(lab, n, e, k);
		}
		return rc;
	}
	lab_start_batch(lab);
	for (int n = 0; n < t->nnodes && rc == 0; n++) {
		int k = topo_node_egress(t, n, e, TOPO_MAX_NODES);

		if (k > 0)
			rc = linkimpair_linkd(lab, n, e, k);
	}
	if (lab_start_wait(lab) == -1 || rc == -1)
		return -1;
	/* the warm-up, and every agent started after this, see the delayed
	 * paths: each linkd has its table in place */
	deadline = now_mono_ns() + t->settle_ns;
	do {
		waiting = 0;
		for (int n = 0; n < t->nnodes; n++)
			if (topo_node_egress(t, n, e, 0) > 0 && !linkimpair_ready(lab, n))
				waiting++;
		if (waiting == 0)
			return 0;
		if (lab_watch(lab, 10 * NSEC_PER_MSEC) > 0 && lab->unexpected)
			break;
	} while (now_mono_ns() < deadline && !(lab->interrupt && *lab->interrupt));
	log_warnx("impairments: %d linkd not ready (linkd_ready) within %.1f s (settle); see "
		  "NODE.linkd.log in %s",
		  waiting, (double)t->settle_ns / 1e9, lab->rundir);
	return -1;
}

/* linkimpair_count: lines of NODE.linkd.events.jsonl that are linkd_impaired */
static int linkimpair_count(const struct lab *lab, int n)
{
	char path[PATH_MAX], line[1024];
	int count = 0;
	FILE *fp;

	if (strfmt(path, sizeof(path), "%s/%s.linkd.events.jsonl", lab->rundir,
		   lab->t->nodes[n].name) == -1 ||
	    (fp = lab_fopen_read(path)) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp))
		count += strstr(line, "\"" EVENTS_LINKD_IMPAIRED "\"") != NULL;
	fclose(fp);
	return count;
}

/* linkimpair_write: node n's file of impairments in force with ifname's
 * lines replaced by im's: the other interfaces' lines kept. 0 or -1. */
static int linkimpair_write(const struct lab *lab, int n, const char *ifname,
			    const struct impair *im, char *said, size_t len)
{
	char path[PATH_MAX], tmp[PATH_MAX], line[256], v[128];
	size_t iflen = strlen(ifname);
	FILE *in, *out;
	int rc = 0;

	if (strfmt(path, sizeof(path), "%s/%s.impair", lab->rundir, lab->t->nodes[n].name) == -1 ||
	    strfmt(tmp, sizeof(tmp), "%s.tmp", path) == -1) {
		strfmt(said, len, "%s: path too long", lab->rundir);
		return -1;
	}
	if ((out = fopen(tmp, "we")) == NULL) {
		strfmt(said, len, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	if ((in = fopen(path, "re")) != NULL) {
		while (fgets(line, sizeof(line), in))
			if (!(strncmp(line, ifname, iflen) == 0 &&
			      (line[iflen] == ' ' || line[iflen] == '\t')))
				fputs(line, out);
		fclose(in);
	}
	if (topo_impair_none(im))
		fprintf(out, "%s none\n", ifname);
	for (int k = 0; topo_impair_key_name(k); k++)
		if (topo_impair_value(im, k, v, sizeof(v)))
			fprintf(out, "%s %s %s\n", ifname, topo_impair_key_name(k), v);
	if (ferror(out))
		rc = -1;
	if (fclose(out) == EOF)
		rc = -1;
	/* renamed: linkd never reads half a file */
	if (rc == -1 || rename(tmp, path) == -1) {
		strfmt(said, len, "%s: %s", path, strerror(errno));
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* linkimpair_linkd_of: node n's running linkd in lab->agents, or -1 */
static int linkimpair_linkd_of(const struct lab *lab, int n)
{
	for (int i = lab->nagents - 1; i >= 0; i--)
		if (lab->agents[i].node == n && !lab->agents[i].reaped &&
		    strcmp(lab->agents[i].name, "linkd") == 0)
			return i;
	return -1;
}

/* linkimpair_one: direction d of the link (leaving node n by ifname) to
 * im, by mech. 0, or -1 with why in said. */
static int linkimpair_one(struct lab *lab, enum impair_mech mech, int n, const char *ifname,
			  const struct impair *base, const struct impair *im, char *said,
			  size_t len)
{
	char err[256];
	int rc = 0;

	if (mech == IMPAIR_MECH_NETEM) {
		if (lab->nsfd[n] < 0 || netns_enter(lab->nsfd[n]) == -1) {
			strfmt(said, len, "entering the namespace of %s: %s", lab->t->nodes[n].name,
			       strerror(errno));
			return -1;
		}
		if (topo_impair_none(im))
			rc = impair_root_remove(ifname, err, sizeof(err));
		else
			rc = impair_netem_apply(ifname, im, err, sizeof(err));
		if (netns_enter_root() == -1)
			fatal("%s: back to the root namespace", __func__);
		if (rc == -1)
			strfmt(said, len, "%s: %s: netem: %s", lab->t->nodes[n].name, ifname, err);
		return rc;
	}
	int i = linkimpair_linkd_of(lab, n), before;
	int64_t deadline;

	(void)base; /* lab_impair_change refused a direction linkd does not delay */
	if (i < 0) {
		strfmt(said, len, "linkd of %s is not running", lab->t->nodes[n].name);
		return -1;
	}
	before = linkimpair_count(lab, n);
	if (lab_signal_agent(lab, i, SIGHUP) == -1) {
		strfmt(said, len, "linkd of %s (pid %d): SIGHUP: %s", lab->t->nodes[n].name,
		       (int)lab->agents[i].pid, strerror(errno));
		return -1;
	}
	/* linkd says each interface it changed: the change is in force once
	 * it has said this one's */
	deadline = now_mono_ns() + LAB_IMPAIR_ACK_NS;
	while (linkimpair_count(lab, n) == before) {
		if (now_mono_ns() >= deadline) {
			strfmt(said, len,
			       "linkd of %s (pid %d) did not say linkd_impaired within %.0f s "
			       "(see %s/%s.linkd.log)",
			       lab->t->nodes[n].name, (int)lab->agents[i].pid,
			       (double)LAB_IMPAIR_ACK_NS / 1e9, lab->rundir, lab->t->nodes[n].name);
			return -1;
		}
		usleep(1000);
	}
	return 0;
}

/* linkimpair_paths_now: linkimpair_paths of the impairments in force: the
 * topology's, each direction's replaced by its node's RUNDIR/NODE.impair
 * lines if it has some */
static json_t *linkimpair_paths_now(const struct lab *lab)
{
	static struct topology now;
	char path[PATH_MAX], err[256];

	now = *lab->t;
	for (int l = 0; l < now.nlinks + now.nrlinks; l++) {
		const struct impair *base[2];
		const char *ifname[2];
		int node[2], found;

		topo_link_dirs(&now, l < now.nlinks ? l : -1, l < now.nlinks ? -1 : l - now.nlinks,
			       node, ifname, base);
		for (int d = 0; d < 2; d++) {
			strfmt(path, sizeof(path), "%s/%s.impair", lab->rundir,
			       now.nodes[node[d]].name);
			(void)impair_file_read(path, ifname[d], (struct impair *)base[d], &found,
					       err, sizeof(err));
		}
	}
	return linkimpair_paths(&now);
}

int lab_impair_change(struct lab *lab, enum impair_mech mech, int link, int rlink,
		      const struct impair chg[2], const unsigned set[2], const char *name,
		      const char *by, char *said, size_t len)
{
	const struct topology *t = lab->t;
	const struct impair *base[2];
	const char *ifname[2];
	struct impair now[2];
	int node[2];
	char err[512], desc[256], tg[64];

	topo_link_dirs(t, link, rlink, node, ifname, base);
	strfmt(tg, sizeof(tg), "%s %s", t->nodes[node[0]].name, t->nodes[node[1]].name);
	for (int d = 0; d < 2; d++) {
		char path[PATH_MAX];
		int found;

		now[d] = *base[d];
		if (!set[d])
			continue;
		strfmt(path, sizeof(path), "%s/%s.impair", lab->rundir, t->nodes[node[d]].name);
		if (impair_file_read(path, ifname[d], &now[d], &found, err, sizeof(err)) == -1) {
			strfmt(said, len, "%s", err);
			return -1;
		}
		topo_impair_merge(&now[d], &chg[d], set[d]);
		if (impair_check(&now[d], mech, err, sizeof(err)) == -1) {
			strfmt(said, len, "%s>%s: %s (mechanism: %s)", t->nodes[node[d]].name,
			       t->nodes[node[1 - d]].name, err, lab_impair_mech_text(mech));
			return -1;
		}
		/* the delay line refuses before anything changes */
		if (mech == IMPAIR_MECH_DELAYLINE &&
		    (topo_impair_none(base[d]) || linkimpair_linkd_of(lab, node[d]) < 0)) {
			strfmt(
			    said, len,
			    "%s>%s: no linkd delays %s of %s: the delay line (this kernel has no "
			    "sch_netem) changes only the directions impaired at bring-up; "
			    "expected the topology to impair it ([link %s] %s>%s.delay = 1us, "
			    "say)",
			    t->nodes[node[d]].name, t->nodes[node[1 - d]].name, ifname[d],
			    t->nodes[node[d]].name, tg, t->nodes[node[d]].name,
			    t->nodes[node[1 - d]].name);
			return -1;
		}
	}
	int64_t t0[2] = {0, 0};
	for (int d = 0; d < 2; d++) {
		t0[d] = now_real_ns();
		if (!set[d])
			continue;
		if (linkimpair_write(lab, node[d], ifname[d], &now[d], said, len) == -1 ||
		    linkimpair_one(lab, mech, node[d], ifname[d], base[d], &now[d], said, len) ==
			-1)
			return -1;
	}
	json_t *paths = linkimpair_paths_now(lab);
	for (int d = 0; d < 2; d++) {
		if (!set[d])
			continue;
		impair_format(&now[d], desc, sizeof(desc));
		event_emit_at(lab->ev, t0[d], EVENTS_LINK_IMPAIRED,
			      "{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:f, s:I, s:s, s:s, s:O?}",
			      "name", name, "link", tg, "from", t->nodes[node[d]].name, "to",
			      t->nodes[node[1 - d]].name, "interface", ifname[d], "impairment",
			      desc, "delay_ns", (json_int_t)now[d].delay_ns, "jitter_ns",
			      (json_int_t)now[d].jitter_ns, "loss_pct", now[d].loss_pct, "rate_bps",
			      (json_int_t)now[d].rate_bps, "mechanism", impair_mech_name(mech),
			      "by", by, "paths", paths);
	}
	json_decref(paths);
	return 0;
}
