/* Refused control messages, counted and reported at most once a second; see ctlreject.h. */
#include "ctlreject.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "events.h"
#include "log.h"
#include "timeutil.h"

void ctl_reject_init(struct ctl_reject *r, struct loop *loop, struct event_log *ev,
		     const char *what)
{
	memset(r, 0, sizeof(*r));
	r->loop = loop;
	r->ev = ev;
	r->what = what;
	r->timer.fd = -1;
}

void ctl_reject_flush(struct ctl_reject *r, int64_t now_ns)
{
	if (r->pending == 0)
		return;
	log_warnx("rejected %s from %s: %s (%llu since the last report, %llu in all)", r->what,
		  r->from, r->reason, (unsigned long long)r->pending, (unsigned long long)r->total);
	if (r->ev)
		event_emit(r->ev, EVENTS_CONTROL_REJECTED, "{s:s, s:s, s:I}", "from", r->from,
			   "reason", r->reason, "count", (json_int_t)r->pending);
	r->pending = 0;
	r->last_ns = now_ns;
}

static void ctl_reject_timer_cb(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct ctl_reject *r = arg;

	(void)loop, (void)events;
	loop_timer_read(fd);
	r->timer_armed = 0;
	ctl_reject_flush(r, now_mono_ns());
}

/* ctl_reject_defer: the pending drops are reported when the second since
 * the last report ends. */
static void ctl_reject_defer(struct ctl_reject *r)
{
	int64_t due = r->last_ns + CTL_REJECT_INTERVAL_NS;

	if (r->loop == NULL || r->timer_armed)
		return;
	/* without a timer the drops are reported with the next one, or at exit */
	if (r->timer.fd == -1) {
		if (loop_timer_add(r->loop, &r->timer, due, 0, ctl_reject_timer_cb, r) == -1) {
			log_warn("%s: control_rejected timer", __func__);
			return;
		}
	} else if (loop_timer_set(&r->timer, due, 0) == -1) {
		log_warn("%s: control_rejected timer", __func__);
		return;
	}
	r->timer_armed = 1;
}

void ctl_reject_drop(struct ctl_reject *r, int64_t now_ns, const char *from, const char *reason)
{
	r->total++;
	r->pending++;
	snprintf(r->from, sizeof(r->from), "%s", from);
	snprintf(r->reason, sizeof(r->reason), "%s", reason);
	log_debug("rejected %s from %s: %s", r->what, from, reason);
	if (r->last_ns == 0 || now_ns - r->last_ns >= CTL_REJECT_INTERVAL_NS)
		ctl_reject_flush(r, now_ns);
	else
		ctl_reject_defer(r);
}

void ctl_reject_close(struct ctl_reject *r)
{
	ctl_reject_flush(r, now_mono_ns());
	if (r->timer.fd != -1)
		loop_timer_del(r->loop, &r->timer);
	r->timer_armed = 0;
}
