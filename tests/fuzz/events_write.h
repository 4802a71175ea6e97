/*
 * The records the clocks read from events files (probes/clocks/
 * clocks_events.c) written back as the events the agents write
 * (docs/events.md), for the events fuzz target's round trip
 * (fuzz_events.c): what the reader accepted, written, read again and
 * written again, must give the same text.
 *
 * Every field the reader keeps is written, in the form docs/events.md
 * gives it; what the reader does not keep (a lab_up's t, a client's
 * target) is not. A value the reader turns into "not said" (CLOCKS_NONE,
 * an empty string) is written as null or left out.
 */
#ifndef STEERLAB_FUZZ_EVENTS_WRITE_H
#define STEERLAB_FUZZ_EVENTS_WRITE_H

#include <stdio.h>

#include "clocks.h"

/* evw_write: every record of in as events, one JSON object a line, to
 * out. 0, or -1 (out of memory, or a write error). */
int evw_write(const struct clocks_input *in, FILE *out);

#endif
