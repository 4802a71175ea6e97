/* sited's drain and degradation, set by signals; see state.h. */
#include "state.h"

#include <string.h>

#include "events.h"
#include "log.h"
#include "sited_signals.h"
#include "tcp.h"
#include "timeutil.h"

/* sited_state_set: *flag to on; on a change, the log line and the event
 * (ev_on's or ev_off's, "sited_" and what the log says) */
static void sited_state_set(struct sited_state *d, int *flag, int on, const char *ev_on,
			    const char *ev_off)
{
	const char *ev = on ? ev_on : ev_off;

	if (*flag == on)
		return;
	*flag = on;
	log_info("site %s %s", d->site, ev + strlen("sited_"));
	event_emit(d->ev, ev, "{s:s}", "site", d->site);
}

/* sited_state_on_tick: the held replies that are due sent; the tick
 * stops once nothing is held and the site is not slow */
static void sited_state_on_tick(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sited_state *d = arg;
	struct sited_slow_item it;
	int64_t now = now_mono_ns();

	(void)loop;
	(void)events;
	loop_timer_read(fd);
	while (sited_slow_pop(d->srv->slow, now, &it)) {
		if (it.fd == -1) {
			sited_tcp_deliver(it.conn, it.msg);
			d->slow_sent++;
		} else if (sited_slow_send(&it) == 0) {
			d->srv->counts.replies++;
			d->slow_sent++;
		} else {
			d->srv->counts.send_errors++;
		}
	}
	if (d->srv->slow_ns == 0 && sited_slow_due(d->srv->slow) == INT64_MAX) {
		(void)loop_timer_set(&d->tick, INT64_MAX, 0);
		d->ticking = 0;
	}
}

/* sited_state_slow: replies held us microseconds from now on (0: none) */
static void sited_state_slow(struct sited_state *d, int us)
{
	int64_t ns = us > 0 ? (int64_t)us * 1000 : 0;

	if (ns == d->srv->slow_ns)
		return;
	d->srv->slow_ns = ns;
	log_info("site %s %s", d->site, ns ? "slowed" : "no longer slow");
	if (ns)
		log_info("each reply held %.3f s", (double)ns / NSEC_PER_SEC);
	event_emit(d->ev, EVENTS_SITED_SLOWED, "{s:s, s:I}", "site", d->site, "delay_ns",
		   (json_int_t)ns);
	if (ns && !d->ticking) {
		if (loop_timer_set(&d->tick, now_mono_ns() + SITED_SLOW_TICK_NS,
				   SITED_SLOW_TICK_NS) == -1)
			log_warn("%s: timerfd", __func__);
		else
			d->ticking = 1;
	}
}

static void sited_state_on_signal(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sited_state *d = arg;
	int value, sig = loop_signal_read_value(fd, &value);

	(void)loop;
	(void)events;
	if (sig == SITED_SIG_SLOW) {
		sited_state_slow(d, value);
		return;
	}
	if (sig == SITED_SIG_DRAIN || sig == SITED_SIG_UNDRAIN)
		sited_state_set(d, &d->srv->draining, sig == SITED_SIG_DRAIN, EVENTS_SITED_DRAINING,
				EVENTS_SITED_UNDRAINED);
	else if (sig == SITED_SIG_DEGRADE || sig == SITED_SIG_RESTORE)
		sited_state_set(d, &d->srv->degraded, sig == SITED_SIG_DEGRADE,
				EVENTS_SITED_DEGRADED, EVENTS_SITED_RESTORED);
}

int sited_state_open(struct sited_state *d, struct loop *loop, struct sited_server *srv,
		     struct event_log *ev, const char *site)
{
	/* SIGRTMIN is a call: the list cannot be static */
	const int sigs[] = {SITED_SIG_DRAIN,   SITED_SIG_UNDRAIN, SITED_SIG_DEGRADE,
			    SITED_SIG_RESTORE, SITED_SIG_SLOW,	  0};

	memset(d, 0, sizeof(*d));
	d->srv = srv;
	d->ev = ev;
	d->site = site;
	if (loop_add_signals(loop, &d->h, sigs, sited_state_on_signal, d) == -1) {
		log_warn("%s: signalfd", __func__);
		return -1;
	}
	if (loop_timer_add(loop, &d->tick, INT64_MAX, 0, sited_state_on_tick, d) == -1) {
		log_warn("%s: timerfd", __func__);
		return -1;
	}
	return 0;
}
