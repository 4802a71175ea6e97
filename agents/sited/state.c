/* sited's drain and degradation, set by signals; see state.h. */
#include "state.h"

#include <string.h>

#include "events.h"
#include "log.h"
#include "sited_signals.h"

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

static void sited_state_on_signal(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct sited_state *d = arg;
	int sig = loop_signal_read(fd);

	(void)loop;
	(void)events;
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
	const int sigs[] = {SITED_SIG_DRAIN, SITED_SIG_UNDRAIN, SITED_SIG_DEGRADE,
			    SITED_SIG_RESTORE, 0};

	d->srv = srv;
	d->ev = ev;
	d->site = site;
	if (loop_add_signals(loop, &d->h, sigs, sited_state_on_signal, d) == -1) {
		log_warn("%s: signalfd", __func__);
		return -1;
	}
	return 0;
}
