/* A lab that is up, read back from its state directory; see lab.h. */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "strfmt.h"

void lab_state_line(const char *dir, const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *fp;

	buf[0] = '\0';
	strfmt(path, sizeof(path), "%s/%s", dir, file);
	if ((fp = lab_fopen_read(path)) == NULL)
		return;
	if (fgets(buf, (int)len, fp) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(fp);
}

/* state_check_agents: each agent's node, and whether it is alive */
static void state_check_agents(struct lab_state *s)
{
	char path[PATH_MAX];

	strfmt(path, sizeof(path), "%s/agents.tsv", s->dir);
	for (int i = 0; i < s->nagents; i++) {
		struct lab_agent *a = &s->agents[i];

		a->node = topo_find(&s->t, a->nodename);
		if (lab_agent_claim(a, s->bindir, path, 0) == 1)
			lab_agent_release(a); /* alive: reaped stays 0 */
	}
}

int lab_state_load(struct lab_state *s, const char *name, char *err, size_t errlen)
{
	char path[PATH_MAX];
	FILE *null;
	int rc;

	memset(s, 0, sizeof(*s));
	if (topo_check_name(name) == -1) {
		strfmt(err, errlen, "'%s' is not a lab name (%s)", name, TOPO_NAME_RULE);
		return -1;
	}
	strfmt(s->name, sizeof(s->name), "%s", name);
	lab_statedir(s->dir, sizeof(s->dir), name);
	if (access(s->dir, F_OK) == -1) {
		if (errno == EACCES)
			strfmt(err, errlen, "%s is root's only: try sudo", LAB_STATE_DIR);
		else
			strfmt(err, errlen, "no lab named '%s' is up (steerlab status lists them)",
			       name);
		return -1;
	}
	if (lab_state_check(LAB_STATE_DIR) == -1 || lab_state_check(s->dir) == -1) {
		strfmt(err, errlen, "the state of lab %s is refused (above)", name);
		return -1;
	}
	strfmt(path, sizeof(path), "%s/topology.ini", s->dir);
	/* topo_load's own errors name topology.ini's lines: keep the first */
	if ((null = fopen("/dev/null", "w")) == NULL) {
		strfmt(err, errlen, "/dev/null: %s", strerror(errno));
		return -1;
	}
	rc = topo_load(&s->t, path, NULL, 0, null);
	fclose(null);
	if (rc == -1) {
		FILE *mem = fmemopen(err, errlen, "w");

		if (mem) {
			topo_load(&s->t, path, NULL, 0, mem);
			fclose(mem);
			err[strcspn(err, "\n")] = '\0';
		}
		return -1;
	}
	if (strcmp(s->t.name, name) != 0) {
		strfmt(err, errlen, "%s: the lab is named '%s', not '%s': refused", path, s->t.name,
		       name);
		return -1;
	}
	lab_state_line(s->dir, "rundir", s->rundir, sizeof(s->rundir));
	lab_state_bindir(s->dir, s->bindir, sizeof(s->bindir));
	s->nagents = lab_state_read_agents(s->dir, s->agents, LAB_MAX_AGENTS, 0, &s->refused);
	state_check_agents(s);
	return 0;
}

/* agents_current: agents[i] is the last line of its node and label */
static int agents_current(const struct lab_agent *agents, int n, int i)
{
	for (int j = i + 1; j < n; j++)
		if (strcmp(agents[j].nodename, agents[i].nodename) == 0 &&
		    strcmp(agents[j].name, agents[i].name) == 0)
			return 0;
	return 1;
}

int lab_state_current(const struct lab_state *s, int i)
{
	return agents_current(s->agents, s->nagents, i);
}

int lab_state_find_agent(const struct lab_state *s, int node, const char *label)
{
	for (int i = s->nagents - 1; i >= 0; i--)
		if (s->agents[i].node == node && strcmp(s->agents[i].name, label) == 0)
			return i;
	return -1;
}

int lab_state_node(const struct lab_state *s, const char *name, char *err, size_t errlen)
{
	int n = topo_find(&s->t, name), len;

	if (n >= 0)
		return n;
	len = snprintf(err, errlen, "lab %s has no node '%s' (its nodes:", s->name, name);
	for (int i = 0; i < s->t.nnodes && len > 0 && (size_t)len < errlen; i++)
		len += snprintf(err + len, errlen - (size_t)len, "%s %s", i ? "," : "",
				s->t.nodes[i].name);
	if (len > 0 && (size_t)len < errlen)
		snprintf(err + len, errlen - (size_t)len, ")");
	return -1;
}

int lab_state_has_ns(const struct lab_state *s, const char *nsname)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *fp;

	strfmt(path, sizeof(path), "%s/namespaces", s->dir);
	if ((fp = lab_fopen_read(path)) == NULL)
		return 0;
	while (!found && getline(&line, &cap, fp) != -1) {
		line[strcspn(line, "\n")] = '\0';
		found = strcmp(line, nsname) == 0;
	}
	free(line);
	fclose(fp);
	return found;
}

/* One lab of `steerlab status`, read from its state directory. */
struct status_lab {
	char rundir[PATH_MAX];
	int nns, nexist;
	int nagents, alive;
	struct lab_agent agents[LAB_MAX_AGENTS];
};

static void state_status_read(const char *name, const char *dir, struct status_lab *l)
{
	char path[PATH_MAX], bindir[PATH_MAX], *ns = NULL;
	size_t cap = 0;
	int refused = 0;
	FILE *fp;

	lab_state_line(dir, "rundir", l->rundir, sizeof(l->rundir));
	l->nns = l->nexist = l->alive = 0;
	strfmt(path, sizeof(path), "%s/namespaces", dir);
	if ((fp = lab_fopen_read(path)) != NULL) {
		while (getline(&ns, &cap, fp) != -1) {
			ns[strcspn(ns, "\n")] = '\0';
			if (!lab_ns_valid(name, ns))
				continue;
			l->nns++;
			l->nexist += netns_exists(ns);
		}
		free(ns);
		fclose(fp);
	}
	lab_state_bindir(dir, bindir, sizeof(bindir));
	l->nagents = lab_state_read_agents(dir, l->agents, LAB_MAX_AGENTS, 0, &refused);
	strfmt(path, sizeof(path), "%s/agents.tsv", dir);
	for (int i = 0; i < l->nagents; i++)
		if (lab_agent_claim(&l->agents[i], bindir, path, 0) == 1)
			lab_agent_release(&l->agents[i]);
}

static int state_status_current(const struct status_lab *l, int i)
{
	return agents_current(l->agents, l->nagents, i);
}

int lab_status(FILE *out, int json, const char *only)
{
	static struct status_lab l;
	json_t *doc = NULL, *labs = NULL;
	struct dirent *de;
	int nlabs = 0;
	DIR *d;

	if (json && ((doc = json_object()) == NULL || (labs = json_array()) == NULL ||
		     json_object_set_new(doc, "labs", labs) == -1)) {
		json_decref(doc);
		log_warnx("status: out of memory");
		return -1;
	}
	if (access(LAB_STATE_DIR, F_OK) == -1)
		goto done;
	if (lab_state_check(LAB_STATE_DIR) == -1)
		goto fail;
	if ((d = opendir(LAB_STATE_DIR)) == NULL) {
		if (errno == EACCES)
			log_warnx("%s is root's only: try sudo steerlab status", LAB_STATE_DIR);
		else
			log_warn("%s: %s", __func__, LAB_STATE_DIR);
		goto fail;
	}
	while ((de = readdir(d)) != NULL) {
		char dir[PATH_MAX], nsbuf[24], agbuf[24];
		json_t *lab, *dead;
		int current = 0;

		if (de->d_name[0] == '.' || (only && strcmp(de->d_name, only) != 0))
			continue;
		strfmt(dir, sizeof(dir), "%s/%s", LAB_STATE_DIR, de->d_name);
		if (topo_check_name(de->d_name) == -1 || lab_state_check(dir) == -1)
			continue;
		state_status_read(de->d_name, dir, &l);
		for (int i = 0; i < l.nagents; i++) {
			if (!state_status_current(&l, i))
				continue;
			current++;
			l.alive += !l.agents[i].reaped;
		}
		if (json) {
			dead = json_array();
			lab = json_pack("{s:s, s:s?, s:{s:i, s:i}, s:{s:i, s:i}, s:o}", "lab",
					de->d_name, "rundir", l.rundir[0] ? l.rundir : NULL,
					"namespaces", "present", l.nexist, "recorded", l.nns,
					"agents", "alive", l.alive, "recorded", current, "dead",
					dead);
			for (int i = 0; dead && lab && i < l.nagents; i++)
				if (state_status_current(&l, i) && l.agents[i].reaped)
					json_array_append_new(
					    dead, json_pack("{s:s, s:s, s:i}", "node",
							    l.agents[i].nodename, "agent",
							    l.agents[i].name, "pid",
							    (int)l.agents[i].pid));
			if (lab == NULL || json_array_append_new(labs, lab) == -1) {
				closedir(d);
				log_warnx("status: out of memory");
				goto fail;
			}
			nlabs++;
			continue;
		}
		if (nlabs++ == 0)
			fprintf(out, "%-14s %-11s %-11s %s\n", "LAB", "NAMESPACES", "AGENTS",
				"RUN DIRECTORY");
		strfmt(nsbuf, sizeof(nsbuf), "%d/%d", l.nexist, l.nns);
		strfmt(agbuf, sizeof(agbuf), "%d/%d", l.alive, current);
		fprintf(out, "%-14s %-11s %-11s %s\n", de->d_name, nsbuf, agbuf,
			l.rundir[0] ? l.rundir : "-");
		for (int i = 0; i < l.nagents; i++)
			if (state_status_current(&l, i) && l.agents[i].reaped)
				fprintf(out, "  dead: %s of node %s (pid %d)\n", l.agents[i].name,
					l.agents[i].nodename, (int)l.agents[i].pid);
	}
	closedir(d);
done:
	if (json) {
		json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(doc);
	} else if (nlabs == 0 && only == NULL) {
		fprintf(out, "no labs\n");
	}
	if (only && nlabs == 0) {
		fprintf(stderr, "steerlab: status: no lab named '%s' is up\n", only);
		return -1;
	}
	return 0;
fail:
	json_decref(doc);
	return -1;
}
