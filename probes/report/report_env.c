/*
 * What report.md says about the machine a report was made on: the versions
 * of steerlab (git describe at build time: the Makefile's STEERLAB_VERSION),
 * of the libraries that read the run (libpcap, jansson and libknot) and of
 * gnuplot, the kernel, and whether the lab had link delays and the kernel
 * sch_netem. These lines differ from machine to machine; report.md keeps
 * them in its last section, which the golden test leaves out.
 */
#include <jansson.h>
#include <libknot/version.h>
#include <limits.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "inifile.h"
#include "report_int.h"
#include "subproc.h"

#ifndef STEERLAB_VERSION
#define STEERLAB_VERSION "unknown"
#endif

/* report_env_capture: the first line that argv writes that contains needle (NULL:
 * any), into buf; 0, or -1 if it could not run or wrote no such line */
static int report_env_capture(char *const argv[], const char *needle, char *buf, size_t len)
{
	FILE *tmp = tmpfile();
	char *line = NULL;
	size_t cap = 0;
	int rc = -1;

	if (tmp == NULL)
		return -1;
	if (subproc_run(NULL, argv, -1, fileno(tmp), fileno(tmp)) != 0)
		goto out;
	rewind(tmp);
	while (getline(&line, &cap, tmp) != -1) {
		if (needle && strstr(line, needle) == NULL)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line);
		rc = 0;
		break;
	}
out:
	free(line);
	fclose(tmp);
	return rc;
}

/* report_env_netem: whether this kernel has sch_netem, and how we know */
static void report_env_netem(char *buf, size_t len, const char *release)
{
	char *zcat[] = {"gzip", "-dc", "/proc/config.gz", NULL};
	char path[128], line[256];
	struct stat st;

	if (stat("/sys/module/sch_netem", &st) == 0) {
		snprintf(buf, len, "available in this kernel (/sys/module/sch_netem)");
		return;
	}
	if (report_env_capture(zcat, "CONFIG_NET_SCH_NETEM", line, sizeof(line)) == 0) {
		if (strstr(line, "=y") || strstr(line, "=m"))
			snprintf(buf, len, "available in this kernel (/proc/config.gz: %s)", line);
		else
			snprintf(buf, len, "not available in this kernel (/proc/config.gz: %s)",
				 line);
		return;
	}
	snprintf(path, sizeof(path), "/lib/modules/%.64s/modules.dep", release);
	char *grep[] = {"grep", "-m1", "sch_netem", path, NULL};
	if (report_env_capture(grep, NULL, line, sizeof(line)) == 0) {
		snprintf(buf, len, "available as a module (%s)", path);
		return;
	}
	snprintf(buf, len,
		 "not found (no /sys/module/sch_netem, no CONFIG_NET_SCH_NETEM in "
		 "/proc/config.gz, no sch_netem in /lib/modules/%.64s)",
		 release);
}

struct report_env_delays {
	char list[512];
	char section[200];
};

static int report_env_ini_section(void *user, const char *kind, const char *name, const char *extra)
{
	struct report_env_delays *d = user;

	snprintf(d->section, sizeof(d->section), "%s%s%s%s%s", kind, name ? " " : "",
		 name ? name : "", extra ? " " : "", extra ? extra : "");
	return 0;
}

/* a key of the topology that sets a link delay or jitter: a [link]'s
 * (steerlab.ini(5), IMPAIRMENTS), or any key named like one, so that a
 * topology that sets one is never reported as without */
static void report_env_ini_delay(void *user, const char *name, const char *value)
{
	struct report_env_delays *d = user;
	size_t used = strlen(d->list);

	if ((strstr(name, "delay") || strstr(name, "jitter") || strstr(name, "netem")) &&
	    strcmp(value, "0") != 0 && strcmp(value, "0s") != 0 && strcmp(value, "0ms") != 0 &&
	    strcmp(value, "none") != 0 && value[0] != '\0')
		snprintf(d->list + used, sizeof(d->list) - used, "%s[%s] %s = %s", used ? ", " : "",
			 d->section, name, value);
}

void report_env(const struct report *r, FILE *out)
{
	char path[PATH_MAX], netem[512];
	struct report_env_delays delays = {.list = "", .section = ""};
	struct utsname u;

	if (uname(&u) == -1)
		memset(&u, 0, sizeof(u));
	report_env_netem(netem, sizeof(netem), u.release);
	snprintf(path, sizeof(path), "%s/topology.ini", r->rundir);
	inifile_scan(path, report_env_ini_section, report_env_ini_delay,
		     &delays); /* as the lab printed it back */

	fprintf(out, "- steerlab: %s\n", STEERLAB_VERSION);
	fprintf(out, "- libpcap: %s\n", pcap_lib_version());
	fprintf(out, "- jansson: %s\n", jansson_version_str());
	fprintf(out, "- libknot: %d.%d.%d (its headers at build time)\n", KNOT_VERSION_MAJOR,
		KNOT_VERSION_MINOR, KNOT_VERSION_PATCH);
	fprintf(out, "- gnuplot: %s\n", r->gnuplot_version); /* asked by report_plot */
	fprintf(out, "- kernel: %s %s %s\n", u.sysname, u.release, u.machine);
	fprintf(out, "- link delays: %s; sch_netem: %s\n",
		delays.list[0] ? delays.list : "none configured", netem);
}
