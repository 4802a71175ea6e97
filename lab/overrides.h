/*
 * The --set overrides the topology parser does not take, and loading a
 * topology with all of them (what check, up, run and sweep do).
 *
 * `--set ttl=V` sets the TTL the DNS names hand out: the `ttl` key of every
 * [name] section (authd's, which --set KEY=VALUE cannot otherwise reach:
 * topology.h). It rewrites the pair as written, or adds one to a [name]
 * that had none (which took its zone's), before authd's parser checks
 * them, so `steerlab check` prints it and topology.ini records it. A [zone]
 * ttl (the zone's records, its SOA) is left alone.
 */
#ifndef STEERLAB_OVERRIDES_H
#define STEERLAB_OVERRIDES_H

#include <stdio.h>

#include "topology.h"

struct overrides {
	const char *ttl; /* the value of --set ttl=, NULL if none */
};

/* overrides_take: move the items that are ours out of sets[0..*nsets)
 * into *ov, keeping the others in order. The last of a key wins, as with
 * the topology's own keys. */
void overrides_take(char *sets[], int *nsets, struct overrides *ov);

/* overrides_apply: the overrides in *ov on a parsed topology. 0, or -1 with
 * "--set ...: why" on err. */
int overrides_apply(struct topology *t, const struct overrides *ov, FILE *err);

/* overrides_load: topo_load path with sets[0..nsets) ("key=value",
 * "node.key=value" and ours), then authd's and resolverd's parsers on
 * their sections. 0, or -1 after printing every error to err. */
int overrides_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err);

#endif
