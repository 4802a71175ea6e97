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

/*
 * STEERLAB_SET: more overrides from the environment, "KEY=VALUE" items
 * separated by spaces or tabs (STEERLAB_SET="duration=3s fail_at=1s"), for
 * running a documented command shorter (tests/tools/doctest). They are
 * added after the command line's --set, so they win over them.
 */
#define OVERRIDES_ENV "STEERLAB_SET"

/* overrides_env: the items of value (the variable's) copied into buf and
 * appended to sets[*nsets..max), *nenv of them. An item must be KEY=VALUE
 * with one value (a sweep's values go on the command line). 0, or -1 with
 * "STEERLAB_SET: why" on err. */
int overrides_env(const char *value, char *buf, size_t len, char *sets[], int *nsets, int max,
		  int *nenv, FILE *err);

/* overrides_env_check: sets[0..nsets), the command line's then the nenv
 * of the variable, on the topology path. When it loads with the command
 * line's alone (without a sweep's comma-separated one), but not with the
 * variable's too, -1 after printing each refusal as "STEERLAB_SET: --set
 * ...: why" to err; else 0 (the other errors are the command's to tell). t
 * is scratch. */
int overrides_env_check(struct topology *t, const char *path, char *const sets[], int nsets,
			int nenv, FILE *err);

#endif
