/*
 * linkd: the delay line, for kernels without sch_netem (docs/agents.md).
 *
 * One linkd per network namespace with impaired egress interfaces. Its
 * nftables table (nftable.c) sends each interface's outgoing packets to a
 * queue of its own (nfqueue.c); linkd decides each packet's fate as netem
 * would (dline.c, lib/impair: loss, delay and jitter, reorder) and gives
 * the kernel its verdict when the packet is due, from a timerfd armed for
 * the earliest. A rate is a tbf on the interface. On SIGHUP the impairments
 * are read again from the file of -c (lib/impair.h: impair_file_read), as
 * `steerlab impair` and the timeline's impair change them: each interface
 * the file names takes its new impairment for the packets arriving from
 * then on (those held keep their time). On SIGINT or SIGTERM the
 * table goes first, the packets still held are released, the queues and
 * the tbf are removed, and one summary line gives the counts.
 */
#include <errno.h>
#include <jansson.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "dline.h"
#include "event.h"
#include "events.h"
#include "impair.h"
#include "log.h"
#include "loop.h"
#include "nfqueue.h"
#include "nftable.h"
#include "opt.h"
#include "timeutil.h"

#define LINKD_IF_MAX 64
/* the socket's buffer: ~ 250 bytes a packet, 0.5 s at 100,000 packets/s */
#define LINKD_RCVBUF (64 << 20)
/* socket reads per wake-up, so that releases are not starved */
#define LINKD_READS 16
/* verdicts sent between two reads (linkd_release) */
#define LINKD_SLICE 16
/* the histogram of how late packets are released after their time */
#define LINKD_LATE_BIN_NS 10000
#define LINKD_LATE_BINS 1000
/* the most the timer is armed early */
#define LINKD_LEAD_MAX_NS 200000

struct linkd_if {
	char name[IFNAMSIZ];
	struct impair im;
};

struct linkd_opts {
	struct linkd_if ifs[LINKD_IF_MAX];
	int nifs;
	uint16_t queue0;
	uint32_t maxlen;
	uint32_t seed;
	const char *table;
	const char *node;
	const char *events;
	const char *ctl;
	int rtprio;
	int mech;
	int verbose;
};

#define LINKD_USAGE                                                                                \
	"usage: linkd -i IF [-d DELAY] [-j JITTER] [-l LOSS] [-r RATE] [-R REORDER] [-i IF ...]\n" \
	"             [-q QUEUE] [-Q MAXLEN] [-s SEED] [-t TABLE] [-p PRIO] [-c FILE] [-v] [-h]\n" \
	"       linkd -M\n"

static void linkd_usage(FILE *fp)
{
	fprintf(fp, LINKD_USAGE
		"  -i IF       an interface whose egress is impaired by the flags after it\n"
		"  -d DELAY    delay, e.g. 15ms\n"
		"  -j JITTER   jitter and its distribution, e.g. '2ms normal' (uniform,\n"
		"              normal, pareto, paretonormal; default uniform)\n"
		"  -l LOSS     loss and its correlation, e.g. 1%% or '1%% 25%%'\n"
		"  -r RATE     rate, e.g. 100mbit (a tbf on the interface)\n"
		"  -R REORDER  share of packets sent at once, ahead of the delayed, e.g. 5%%\n"
		"  -q QUEUE    NFQUEUE number of the first interface; the next take the next\n"
		"              (default 0)\n"
		"  -Q MAXLEN   packets each queue holds (default 1000000)\n"
		"  -s SEED     seed of the draws (default 1)\n"
		"  -t TABLE    the nftables table's name (default linkd)\n"
		"  -p PRIO     run at SCHED_FIFO priority PRIO (1-99; default: not)\n"
		"  -n NODE     lab node, written into every event (default: linkd)\n"
		"  -e FILE     JSON Lines event file (default: standard output)\n"
		"  -c FILE     on SIGHUP, each interface's impairment read again from FILE:\n"
		"              lines 'IF KEY VALUE' or 'IF none' (default: SIGHUP is ignored)\n"
		"  -M          print the mechanism this kernel's impairments need, netem or\n"
		"              delayline (a netem qdisc tried in a throwaway namespace), and exit\n"
		"  -v          debug logging\n"
		"  -h          this help\n");
}

static const struct opt_cmd linkd_cmd = {"linkd", LINKD_USAGE, linkd_usage, NULL};

static int linkd_opt_if(const char *arg, void *dst, const char **what)
{
	struct linkd_opts *o = dst;

	if (o->nifs == LINKD_IF_MAX) {
		*what = "at most 64 interfaces";
		return -1;
	}
	if (arg[0] == '\0' || strlen(arg) >= IFNAMSIZ || strpbrk(arg, " /\t") != NULL)
		return -1;
	for (int i = 0; i < o->nifs; i++) {
		if (strcmp(o->ifs[i].name, arg) == 0) {
			*what = "an interface not given before";
			return -1;
		}
	}
	memset(&o->ifs[o->nifs], 0, sizeof(o->ifs[0]));
	strcpy(o->ifs[o->nifs].name, arg);
	o->nifs++;
	return 0;
}

/* linkd_opt_key: the impairment key of the last -i */
static int linkd_opt_key(const char *key, const char *arg, struct linkd_opts *o, const char **what)
{
	if (o->nifs == 0) {
		*what = "-i IF before it";
		return -1;
	}
	return impair_parse(&o->ifs[o->nifs - 1].im, key, arg, what);
}

#define LINKD_OPT_KEY(name)                                                                        \
	static int linkd_opt_##name(const char *arg, void *dst, const char **what)                 \
	{                                                                                          \
		return linkd_opt_key(#name, arg, dst, what);                                       \
	}
LINKD_OPT_KEY(delay)
LINKD_OPT_KEY(jitter)
LINKD_OPT_KEY(loss)
LINKD_OPT_KEY(rate)
LINKD_OPT_KEY(reorder)

static void linkd_parse(int argc, char **argv, struct linkd_opts *o)
{
	const struct opt opts[] = {
	    {OPT_CALL('i', linkd_opt_if, o, "an interface name (1 to 15 characters)")},
	    {OPT_CALL('d', linkd_opt_delay, o, NULL)},
	    {OPT_CALL('j', linkd_opt_jitter, o, NULL)},
	    {OPT_CALL('l', linkd_opt_loss, o, NULL)},
	    {OPT_CALL('r', linkd_opt_rate, o, NULL)},
	    {OPT_CALL('R', linkd_opt_reorder, o, NULL)},
	    {OPT_INT('q', &o->queue0, 0, 65535, "a queue number (0-65535)")},
	    {OPT_INT('Q', &o->maxlen, 1, 100000000, "a queue length (1-100000000)")},
	    {OPT_INT('s', &o->seed, 0, UINT32_MAX, "a seed (0-4294967295)")},
	    {OPT_NAME('t', &o->table, 32,
		      "a table name of 1 to 32 letters, digits, '.', '_' or '-'")},
	    {OPT_INT('p', &o->rtprio, 1, 99, "a SCHED_FIFO priority (1-99)")},
	    {OPT_STR('n', &o->node)},
	    {OPT_STR('e', &o->events)},
	    {OPT_STR('c', &o->ctl)},
	    {OPT_FLAG('M', &o->mech)},
	    {OPT_COUNT('v', &o->verbose)},
	    {0},
	};
	char why[256];

	memset(o, 0, sizeof(*o));
	o->maxlen = 1000000;
	o->seed = 1;
	o->table = "linkd";
	o->node = "linkd";
	opt_parse(&linkd_cmd, opts, argc, argv);
	if (o->mech && o->nifs)
		opt_refuse(&linkd_cmd, "-M takes no -i");
	if (o->mech)
		return;
	if (o->nifs == 0)
		opt_refuse(&linkd_cmd, "-i IF is required");
	if (o->queue0 + o->nifs - 1 > 65535)
		opt_refuse(&linkd_cmd, "-q %u: %d interfaces need queues up to %d (at most 65535)",
			   o->queue0, o->nifs, o->queue0 + o->nifs - 1);
	for (int i = 0; i < o->nifs; i++)
		if (impair_check(&o->ifs[i].im, IMPAIR_MECH_DELAYLINE, why, sizeof(why)) == -1)
			opt_refuse(&linkd_cmd, "-i %s: %s", o->ifs[i].name, why);
}

struct linkd {
	struct linkd_opts *o;
	struct dline_link *links;
	struct dline_heap heap;
	struct nfqueue nq;
	struct loop *loop;
	struct event_log *ev;
	struct loop_handler qh, th;
	int timer_added;
	int64_t timer_at;
	uint64_t late[LINKD_LATE_BINS]; /* releases by lateness, LINKD_LATE_BIN_NS wide */
	int64_t lead_ns;   /* the timer fires this much early: its wake-up's lateness */
	int64_t real_off;  /* CLOCK_REALTIME - CLOCK_MONOTONIC at the last read */
	int64_t read_mono; /* the last read's CLOCK_MONOTONIC */
	int *tbf_made;	   /* per interface: its tbf is ours to remove */
	int failed;
};

/* linkd_on_packet: a packet from the kernel: dropped now, or held */
static void linkd_on_packet(void *arg, uint16_t num, uint32_t id, int64_t queued_ns,
			    const uint8_t *pkt, size_t len)
{
	struct linkd *d = arg;
	unsigned idx = (unsigned)num - d->o->queue0;
	struct dline_link *l;
	int64_t release, arrival = queued_ns - d->real_off;

	if (idx >= (unsigned)d->o->nifs) {
		/* not ours: let it go */
		(void)nfqueue_verdict(&d->nq, num, id, NFQUEUE_ACCEPT);
		return;
	}
	l = &d->links[idx];
	/* the kernel's time stamp when it has one, else now: the packet
	 * waited in the socket since, which is why linkd reads at once (and
	 * -p gives it a real-time priority); a stamp that is no queueing
	 * time (TCP's departure time) is not used */
	if (queued_ns == 0 || arrival > d->read_mono + NSEC_PER_MSEC ||
	    arrival < d->read_mono - NSEC_PER_SEC) {
		arrival = now_mono_ns();
		l->counts.unstamped++;
	}
	if (dline_decide(l, arrival, dline_flow_hash(pkt, len), &release) == DLINE_DROP) {
		(void)nfqueue_verdict(&d->nq, num, id, NFQUEUE_DROP);
		return;
	}
	if (dline_heap_push(&d->heap, release, id, (uint16_t)idx) == -1) {
		log_warnx("%s: out of memory: packet %u of %s released at once", __func__, id,
			  l->ifname);
		l->counts.released++;
		(void)nfqueue_verdict(&d->nq, num, id, NFQUEUE_ACCEPT);
	}
}

/* linkd_clocks: the offset of the kernel's stamps (realtime) to ours */
static void linkd_clocks(struct linkd *d)
{
	int64_t m0 = now_mono_ns(), r = now_real_ns(), m1 = now_mono_ns();

	d->read_mono = m1;
	d->real_off = r - (m0 + m1) / 2;
}

/* linkd_release: every packet due by now (all of them if flush), then the
 * timer for the next. The kernel sends each accepted packet on inside the
 * sendto of its verdict, so a long batch of verdicts would keep linkd from
 * reading the packets arriving meanwhile, whose arrival it times by their
 * reading: the verdicts go LINKD_SLICE at a time, with a read between. */
static void linkd_release(struct linkd *d, int flush)
{
	const struct dline_pkt *top;
	struct dline_pkt p;
	int64_t now = now_mono_ns();
	int n = 0;

	while ((top = dline_heap_peek(&d->heap)) != NULL &&
	       (flush || top->release_ns - d->lead_ns <= now)) {
		struct dline_link *l;

		dline_heap_pop(&d->heap, &p);
		l = &d->links[p.link];
		l->counts.released++;
		l->counts.flushed += flush;
		if (!flush) {
			int64_t bin = (now - p.release_ns) / LINKD_LATE_BIN_NS;

			if (bin < 0)
				bin = 0;
			d->late[bin < LINKD_LATE_BINS ? bin : LINKD_LATE_BINS - 1]++;
		}
		(void)nfqueue_verdict(&d->nq, l->queue, p.id, NFQUEUE_ACCEPT);
		if (++n % LINKD_SLICE == 0 && !flush) {
			if (nfqueue_flush(&d->nq) == -1)
				d->failed = 1;
			linkd_clocks(d);
			if (nfqueue_read(&d->nq, 1, linkd_on_packet, d) == -1)
				d->failed = 1;
			now = now_mono_ns();
		}
	}
	if (nfqueue_flush(&d->nq) == -1)
		d->failed = 1;
	if (top && top->release_ns - d->lead_ns != d->timer_at) {
		d->timer_at = top->release_ns - d->lead_ns;
		if (loop_timer_set(&d->th, d->timer_at, 0) == -1) {
			log_warn("%s: timer", __func__);
			d->failed = 1;
		}
	}
	if (d->failed)
		loop_stop(d->loop);
}

static void linkd_on_queue(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct linkd *d = arg;

	(void)loop;
	(void)fd;
	(void)events;
	linkd_clocks(d);
	if (nfqueue_read(&d->nq, LINKD_READS, linkd_on_packet, d) == -1)
		d->failed = 1;
	linkd_release(d, 0);
}

static void linkd_on_timer(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct linkd *d = arg;

	(void)loop;
	(void)events;
	(void)loop_timer_read(fd);
	/* a timer wakes late (the scheduler): learn by how much, and arm the
	 * next that much early, so that packets leave on time on average */
	if (d->timer_at) {
		int64_t late = now_mono_ns() - d->timer_at;

		d->lead_ns += (late - d->lead_ns) / 16;
		if (d->lead_ns < 0)
			d->lead_ns = 0;
		if (d->lead_ns > LINKD_LEAD_MAX_NS)
			d->lead_ns = LINKD_LEAD_MAX_NS;
	}
	d->timer_at = 0;
	linkd_release(d, 0);
}

/* linkd_late_us: the q-quantile of the releases' lateness, in us (the
 * upper edge of its bin) */
static double linkd_late_us(const struct linkd *d, double q)
{
	uint64_t total = 0, sum = 0;

	for (int i = 0; i < LINKD_LATE_BINS; i++)
		total += d->late[i];
	for (int i = 0; i < LINKD_LATE_BINS; i++) {
		sum += d->late[i];
		if (total && (double)sum >= q * (double)total)
			return (double)(i + 1) * LINKD_LATE_BIN_NS / 1e3;
	}
	return 0;
}

/* linkd_summary: a line per interface, then the totals; the overflows are
 * the kernel's count of packets its queues or our socket could not take */
static void linkd_summary(struct linkd *d)
{
	struct dline_counts t = {0};
	uint64_t qdrop = 0, udrop = 0, pkts;
	struct rusage ru;
	double cpu_s = 0, user_s = 0;

	for (int i = 0; i < d->o->nifs; i++) {
		struct dline_link *l = &d->links[i];
		struct dline_counts *c = &l->counts;
		uint64_t q = 0, u = 0;

		if (nfqueue_stats(l->queue, &q, &u) == -1)
			log_warnx("queue %u: not in /proc/net/netfilter/nfnetlink_queue", l->queue);
		qdrop += q;
		udrop += u;
		log_info("%s: queued %llu released %llu dropped %llu overflow %llu reordered %llu "
			 "unstamped %llu",
			 l->ifname, (unsigned long long)c->queued, (unsigned long long)c->released,
			 (unsigned long long)c->dropped, (unsigned long long)(q + u),
			 (unsigned long long)c->reordered, (unsigned long long)c->unstamped);
		event_emit(d->ev, EVENTS_LINKD_SUMMARY, "{s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I}",
			   "interface", l->ifname, "queue", (int)l->queue, "queued",
			   (json_int_t)c->queued, "released", (json_int_t)c->released, "dropped",
			   (json_int_t)c->dropped, "overflow", (json_int_t)(q + u), "reordered",
			   (json_int_t)c->reordered, "flushed", (json_int_t)c->flushed);
		t.queued += c->queued;
		t.released += c->released;
		t.dropped += c->dropped;
		t.flushed += c->flushed;
	}
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		cpu_s = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	}
	pkts = t.queued ? t.queued : 1;
	log_info("summary: queued %llu released %llu dropped %llu overflow %llu (queue full %llu, "
		 "socket %llu) flushed %llu late p50 %.0f us p99 %.0f us cpu %.3f s (user %.3f s, "
		 "%.2f us/packet)",
		 (unsigned long long)t.queued, (unsigned long long)t.released,
		 (unsigned long long)t.dropped, (unsigned long long)(qdrop + udrop),
		 (unsigned long long)qdrop, (unsigned long long)udrop,
		 (unsigned long long)t.flushed, linkd_late_us(d, 0.5), linkd_late_us(d, 0.99),
		 cpu_s, user_s, cpu_s * 1e6 / (double)pkts);
	if (qdrop + udrop)
		log_warnx("%llu packets dropped that no loss draw decided (queue full or socket "
			  "overflow): the delay line did not keep up",
			  (unsigned long long)(qdrop + udrop));
}

/* linkd_start: queues, then the tbf of each rate, then the table that
 * fills the queues. 0, or -1 logged. */
static int linkd_start(struct linkd *d, int *table_made, int *tbf_made)
{
	struct nftable_rule rules[LINKD_IF_MAX];
	char err[512], desc[256];

	if (nfqueue_open(&d->nq, LINKD_RCVBUF) == -1)
		return -1;
	for (int i = 0; i < d->o->nifs; i++) {
		struct linkd_if *f = &d->o->ifs[i];

		if (if_nametoindex(f->name) == 0) {
			log_warnx("%s: no such interface", f->name);
			return -1;
		}
		dline_link_init(&d->links[i], f->name, (uint16_t)(d->o->queue0 + i), &f->im,
				(uint64_t)d->o->seed * 1000003u + (uint64_t)i);
		if (nfqueue_bind(&d->nq, d->links[i].queue, d->o->maxlen) == -1)
			return -1;
		if (f->im.rate_bps) {
			if (impair_tbf_apply(f->name, f->im.rate_bps, err, sizeof(err)) == -1) {
				log_warnx("%s", err);
				return -1;
			}
			tbf_made[i] = 1;
		}
		rules[i] = (struct nftable_rule){.ifname = f->name, .queue = d->links[i].queue};
		impair_format(&f->im, desc, sizeof(desc));
		log_info("%s: %s (queue %u)", f->name, desc, d->links[i].queue);
		event_emit(d->ev, EVENTS_LINKD_INTERFACE,
			   "{s:s, s:i, s:s, s:I, s:I, s:s, s:f, s:f, s:f, s:I}", "interface",
			   f->name, "queue", (int)d->links[i].queue, "impairment", desc, "delay_ns",
			   (json_int_t)f->im.delay_ns, "jitter_ns", (json_int_t)f->im.jitter_ns,
			   "distribution", impair_dist_name(f->im.dist), "loss_pct", f->im.loss_pct,
			   "loss_corr_pct", f->im.loss_corr_pct, "reorder_pct", f->im.reorder_pct,
			   "rate_bps", (json_int_t)f->im.rate_bps);
	}
	if (nfqueue_nonblock(&d->nq) == -1)
		return -1;
	if (nftable_create(d->o->table, rules, (size_t)d->o->nifs) == -1)
		return -1;
	*table_made = 1;
	return 0;
}

/* linkd_reload: SIGHUP: the impairments of -c's file; an interface it
 * does not name keeps its own. A file linkd cannot read, or a value it
 * cannot apply, changes nothing of that interface (logged). */
static void linkd_reload(struct linkd *d)
{
	char err[512], desc[256];

	if (d->o->ctl == NULL) {
		log_info("SIGHUP ignored: no -c");
		return;
	}
	for (int i = 0; i < d->o->nifs; i++) {
		struct linkd_if *f = &d->o->ifs[i];
		struct dline_link *l = &d->links[i];
		struct impair im;
		int found;

		if (impair_file_read(d->o->ctl, f->name, &im, &found, err, sizeof(err)) == -1) {
			log_warnx("%s", err);
			return;
		}
		if (!found)
			continue;
		if (impair_check(&im, IMPAIR_MECH_DELAYLINE, err, sizeof(err)) == -1) {
			log_warnx("%s: %s: %s: kept its impairment", d->o->ctl, f->name, err);
			continue;
		}
		if (im.rate_bps != f->im.rate_bps) {
			if (im.rate_bps) {
				if (impair_tbf_apply(f->name, im.rate_bps, err, sizeof(err)) ==
				    -1) {
					log_warnx("%s: kept its impairment", err);
					continue;
				}
				d->tbf_made[i] = 1;
			} else if (d->tbf_made[i]) {
				if (impair_root_remove(f->name, err, sizeof(err)) == -1) {
					log_warnx("%s: kept its impairment", err);
					continue;
				}
				d->tbf_made[i] = 0;
			}
		}
		f->im = im;
		dline_link_set(l, &im, (uint64_t)d->o->seed * 1000003u + (uint64_t)i);
		impair_format(&im, desc, sizeof(desc));
		log_info("%s: %s (SIGHUP)", f->name, desc);
		event_emit(d->ev, EVENTS_LINKD_IMPAIRED, "{s:s, s:s, s:I, s:I, s:f, s:f, s:f, s:I}",
			   "interface", f->name, "impairment", desc, "delay_ns",
			   (json_int_t)im.delay_ns, "jitter_ns", (json_int_t)im.jitter_ns,
			   "loss_pct", im.loss_pct, "loss_corr_pct", im.loss_corr_pct,
			   "reorder_pct", im.reorder_pct, "rate_bps", (json_int_t)im.rate_bps);
	}
}

static void linkd_on_signal(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct linkd *d = arg;
	int sig = loop_signal_read(fd);

	(void)events;
	if (sig == SIGHUP) {
		linkd_reload(d);
		return;
	}
	log_info("signal %d: stopping", sig);
	loop_stop(loop);
}

/* linkd_mech: -M, and why on stderr */
static int linkd_mech(void)
{
	enum impair_mech mech;
	char err[512] = "";

	if (impair_detect(&mech, err, sizeof(err)) == -1) {
		log_warnx("%s", err);
		return 1;
	}
	printf("%s\n", impair_mech_name(mech));
	if (mech == IMPAIR_MECH_DELAYLINE)
		log_info("%s", err);
	return 0;
}

int main(int argc, char **argv)
{
	static struct linkd_opts o;
	struct linkd d = {.o = &o};
	struct loop_handler sig;
	int tbf_made[LINKD_IF_MAX] = {0}, table_made = 0, rc = 1;

	d.tbf_made = tbf_made;
	char err[512];

	linkd_parse(argc, argv, &o);
	log_init("linkd", o.verbose);
	if (o.mech)
		return linkd_mech();
	/* timers on time: the default slack of 50 us is a quarter of the
	 * accuracy asked of the delay line */
	(void)prctl(PR_SET_TIMERSLACK, 1UL);
	if (o.rtprio) {
		struct sched_param sp = {.sched_priority = o.rtprio};

		if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1) {
			log_warn("SCHED_FIFO %d", o.rtprio);
			return 1;
		}
	}
	if ((d.links = calloc((size_t)o.nifs, sizeof(*d.links))) == NULL) {
		log_warn("%s: calloc", __func__);
		return 1;
	}
	if ((d.ev = event_open(o.events, o.node, "linkd")) == NULL)
		goto out;
	/* started again by the supervisor: the impairments in force, not
	 * those of its command line */
	for (int i = 0; o.ctl && i < o.nifs; i++) {
		struct impair im;
		int found;

		if (impair_file_read(o.ctl, o.ifs[i].name, &im, &found, err, sizeof(err)) == -1) {
			log_warnx("%s", err);
			goto out;
		}
		if (found)
			o.ifs[i].im = im;
	}
	if ((d.loop = loop_new()) == NULL) {
		log_warn("%s: loop_new", __func__);
		goto out;
	}
	if (loop_signals(d.loop, &sig, linkd_on_signal, &d) == -1) {
		log_warn("%s: signals", __func__);
		goto out;
	}
	if (linkd_start(&d, &table_made, tbf_made) == -1)
		goto out;
	if (loop_add(d.loop, &d.qh, nfqueue_fd(&d.nq), EPOLLIN, linkd_on_queue, &d) == -1 ||
	    loop_timer_add(d.loop, &d.th, now_mono_ns() + NSEC_PER_SEC, 0, linkd_on_timer, &d) ==
		-1) {
		log_warn("%s: loop", __func__);
		goto out;
	}
	d.timer_added = 1;
	log_info("delay line on %d interface%s, table inet %s", o.nifs, o.nifs == 1 ? "" : "s",
		 o.table);
	event_emit(d.ev, EVENTS_LINKD_READY, "{s:s, s:i}", "table", o.table, "interfaces", o.nifs);
	if (loop_run(d.loop) == 0 && !d.failed)
		rc = 0;
out:
	/* the table first, so that no packet waits in a queue no one reads */
	if (table_made && nftable_delete(o.table) == -1)
		rc = 1;
	if (table_made) {
		/* what is left in the socket, then every packet held, at once */
		linkd_clocks(&d);
		(void)nfqueue_read(&d.nq, 1000, linkd_on_packet, &d);
		linkd_release(&d, 1);
		linkd_summary(&d);
	}
	for (int i = 0; i < o.nifs; i++) {
		if (tbf_made[i] && impair_root_remove(o.ifs[i].name, err, sizeof(err)) == -1) {
			log_warnx("%s", err);
			rc = 1;
		}
	}
	if (d.timer_added)
		loop_timer_del(d.loop, &d.th);
	nfqueue_close(&d.nq);
	dline_heap_free(&d.heap);
	loop_free(d.loop);
	event_close(d.ev);
	free(d.links);
	return rc;
}
