/* --set ttl= and loading a topology with every override; see lab.h. */
#include "lab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dnsconf.h"
#include "resolvconf.h"
#include "strfmt.h"
#include "timeutil.h"

/* overrides_key: does set s ("key=value", spaces allowed around both) have
 * key key? Then its value, trimmed on the left; else NULL. */
static const char *overrides_key(const char *s, const char *key)
{
	size_t n = strlen(key);

	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, key, n) != 0)
		return NULL;
	s += n;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '=')
		return NULL;
	s++;
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

void overrides_take(char *sets[], int *nsets, struct overrides *ov)
{
	int kept = 0;

	memset(ov, 0, sizeof(*ov));
	for (int i = 0; i < *nsets; i++) {
		const char *v = overrides_key(sets[i], "ttl");
		if (v == NULL) {
			sets[kept++] = sets[i];
			continue;
		}
		ov->ttl = v;
	}
	*nsets = kept;
}

/* overrides_insert: a new pair at index at of t->raw_pairs. */
static struct topo_raw_pair *overrides_insert(struct topology *t, int at)
{
	if (t->nraw_pairs == TOPO_MAX_RAW)
		return NULL;
	memmove(&t->raw_pairs[at + 1], &t->raw_pairs[at],
		(size_t)(t->nraw_pairs - at) * sizeof(t->raw_pairs[0]));
	t->nraw_pairs++;
	memset(&t->raw_pairs[at], 0, sizeof(t->raw_pairs[0]));
	return &t->raw_pairs[at];
}

static int overrides_ttl(struct topology *t, const char *value, FILE *err)
{
	char trimmed[sizeof(t->raw_pairs[0].value)];
	int names = 0;
	uint32_t ttl;
	size_t n;

	if (strfmt(trimmed, sizeof(trimmed), "%s", value) == -1) {
		fprintf(err, "--set ttl=%.32s...: too long\n", value);
		return -1;
	}
	for (n = strlen(trimmed); n > 0 && (trimmed[n - 1] == ' ' || trimmed[n - 1] == '\t');)
		trimmed[--n] = '\0';
	if (parse_ttl(trimmed, &ttl) == -1) {
		fprintf(err,
			"--set ttl=%s: expected a TTL such as 30 or 5m (the TTL of the [name] "
			"sections)\n",
			trimmed);
		return -1;
	}
	for (int s = 0; s < t->nraw_sections; s++) {
		int last = -1, found = 0;

		if (strcmp(t->raw_sections[s].kind, "name") != 0)
			continue;
		names++;
		for (int i = 0; i < t->nraw_pairs; i++) {
			if (t->raw_pairs[i].section != s)
				continue;
			last = i;
			if (strcmp(t->raw_pairs[i].key, "ttl") == 0) {
				strfmt(t->raw_pairs[i].value, sizeof(t->raw_pairs[i].value), "%s",
				       trimmed);
				found = 1;
			}
		}
		if (found)
			continue;
		/* pairs are in section order: the new one goes after the
		 * section's last, at its line (authd's errors name that line) */
		int at = last >= 0 ? last + 1 : 0;
		if (last < 0)
			while (at < t->nraw_pairs && t->raw_pairs[at].section < s)
				at++;
		struct topo_raw_pair *p = overrides_insert(t, at);
		if (p == NULL) {
			fprintf(err, "--set ttl=%s: too many [zone] and [name] keys (at most %d)\n",
				trimmed, TOPO_MAX_RAW);
			return -1;
		}
		p->section = s;
		strfmt(p->key, sizeof(p->key), "ttl");
		strfmt(p->value, sizeof(p->value), "%s", trimmed);
		p->line = last >= 0 ? t->raw_pairs[at - 1].line : t->raw_sections[s].line;
	}
	if (names == 0) {
		fprintf(err,
			"--set ttl=%s: the topology has no [name] section (ttl is the TTL a "
			"[name] hands out: docs/topology.md)\n",
			trimmed);
		return -1;
	}
	return 0;
}

int overrides_apply(struct topology *t, const struct overrides *ov, FILE *err)
{
	if (ov->ttl && overrides_ttl(t, ov->ttl, err) == -1)
		return -1;
	return 0;
}

int overrides_load(struct topology *t, const char *path, char *const sets[], int nsets, FILE *err)
{
	char *topo_sets[TOPO_MAX_SETS];
	struct overrides ov;
	int rc;

	if (nsets > TOPO_MAX_SETS) {
		fprintf(err, "at most %d --set options\n", TOPO_MAX_SETS);
		return -1;
	}
	memcpy(topo_sets, sets, (size_t)nsets * sizeof(sets[0]));
	overrides_take(topo_sets, &nsets, &ov);
	if (topo_load(t, path, topo_sets, nsets, err) == -1)
		return -1;
	if (overrides_apply(t, &ov, err) == -1)
		return -1;
	/* authd's own parser on the [zone] and [name] sections, resolverd's on
	 * the [resolver] nodes' keys: their errors name this file's lines */
	rc = dnsconf_check(t, err);
	if (resolvconf_check(t, err) == -1)
		rc = -1;
	return rc;
}

int overrides_env(const char *value, char *buf, size_t len, char *sets[], int *nsets, int max,
		  int *nenv, FILE *err)
{
	char *item, *save = NULL;

	*nenv = 0;
	if (value == NULL)
		return 0;
	if (strfmt(buf, len, "%s", value) == -1) {
		fprintf(err, "%s: too long (at most %zu characters)\n", OVERRIDES_ENV, len - 1);
		return -1;
	}
	for (item = strtok_r(buf, " \t\n", &save); item; item = strtok_r(NULL, " \t\n", &save)) {
		const char *eq = strchr(item, '=');

		if (eq == NULL || eq == item || eq[1] == '\0') {
			fprintf(err,
				"%s: '%s': expected KEY=VALUE items separated by spaces "
				"(e.g. %s=\"duration=3s fail_at=1s\")\n",
				OVERRIDES_ENV, item, OVERRIDES_ENV);
			return -1;
		}
		if (strchr(item, ',')) {
			fprintf(err,
				"%s: '%s': one value per key (a sweep's values go on the "
				"command line: --set %s)\n",
				OVERRIDES_ENV, item, item);
			return -1;
		}
		if (*nsets == max) {
			fprintf(err,
				"%s: too many overrides with the command line's (at most %d)\n",
				OVERRIDES_ENV, max);
			return -1;
		}
		sets[(*nsets)++] = item;
		(*nenv)++;
	}
	return 0;
}

int overrides_env_check(struct topology *t, const char *path, char *const sets[], int nsets,
			int nenv, FILE *err)
{
	char *use[TOPO_MAX_SETS], *msg = NULL, *line, *save = NULL;
	int n = 0, rc;
	size_t msglen = 0;
	FILE *m;

	if (nenv == 0 || nsets > TOPO_MAX_SETS)
		return 0;
	for (int i = 0; i < nsets - nenv; i++)
		if (strchr(sets[i], ',') == NULL)
			use[n++] = sets[i];
	if ((m = fopen("/dev/null", "w")) == NULL)
		return 0;
	rc = overrides_load(t, path, use, n, m);
	fclose(m);
	if (rc == -1)
		return 0;
	for (int i = nsets - nenv; i < nsets; i++)
		use[n++] = sets[i];
	if ((m = open_memstream(&msg, &msglen)) == NULL) {
		fprintf(err, "%s: out of memory\n", OVERRIDES_ENV);
		return -1;
	}
	rc = overrides_load(t, path, use, n, m);
	fclose(m);
	if (rc == -1)
		for (line = strtok_r(msg, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			fprintf(err, "%s: %s\n", OVERRIDES_ENV, line);
	free(msg);
	return rc;
}
