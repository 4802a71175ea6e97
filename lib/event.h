/*
 * Events as JSON Lines (docs/events.md lists them all).
 *
 * Each agent writes one file, NODE.AGENT.events.jsonl, in the run directory.
 * Every line is one JSON object with at least:
 *   "t"      nanoseconds of CLOCK_REALTIME (the clock pcap uses)
 *   "node"   the lab node the agent runs in
 *   "agent"  the agent's program name
 *   "event"  what happened: site_failed, probe_failed, declared_dead, ...
 * plus the event's own fields, given as a jansson pack format:
 *
 *   event_emit(ev, "declared_dead", "{s:s, s:i}", "site", "a", "failures", 3);
 *
 * The name, the program and the fields must be those of the event's row in
 * lib/events.c's table (events.h): a line that is not is not written, and
 * the log says why (event_emit returns -1).
 *
 * Each line is flushed when written: events are few, and a killed agent must
 * not lose the ones it wrote.
 */
#ifndef STEERLAB_EVENT_H
#define STEERLAB_EVENT_H

#include <stdint.h>

struct event_log;

/* event_open: path NULL or "-" writes to stdout. Returns NULL (and logs)
 * on failure. */
struct event_log *event_open(const char *path, const char *node, const char *agent);
void event_close(struct event_log *ev);

/* event_emit: fields is a jansson pack format for an object, or NULL. */
int event_emit(struct event_log *ev, const char *event, const char *fields, ...);
/* event_emit_at: the same with an explicit time in ns (CLOCK_REALTIME). */
int event_emit_at(struct event_log *ev, int64_t t_ns, const char *event, const char *fields, ...);

/* event_reserve: allocates bytes of disk beyond the end of the file, so
 * that that many bytes of events can still be written once the disk is
 * full (a collector reporting ENOSPC). 0, or -1 with errno (EOPNOTSUPP on
 * a filesystem without fallocate). Standard output: nothing, 0. */
int event_reserve(struct event_log *ev, int64_t bytes);

#endif
