/*
 * nginx at a site (`impl = nginx` on a [site], docs/topology.md, "nginx at
 * a site"): Debian's nginx answering the lab's HTTP requests in place of
 * sited, so that a user fails the server they run.
 *
 * Its configuration is the lab's, written into the run directory
 * (NODE.nginx.conf, its temporary files under NODE.nginx/): one server on
 * the lab's port, every address of the site's namespace (in a lab with
 * IPv6, [::] too, ipv6only as sited's: agents/sited/serve.h); a location
 * that matches lib/httpwire.h's request target and answers 200 with the
 * X-Steerlab header naming the site and echoing the request's client id,
 * sequence and send time (flags 0: nginx knows no drain), as sited -H
 * does; every other path its health page, 200 "ok". Connections are kept
 * alive as long as a run lasts. nginx's own check (nginx -t) reads it
 * before nginx is started. It runs in the foreground as one process
 * (master_process off): the supervisor forks it as an agent, its log (its
 * standard error) in RUNDIR/NODE.nginx.log, and a kill kills all of it, as
 * it kills sited.
 */
#include "lab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "strfmt.h"
#include "subproc.h"

#define NGINX_PROG "/usr/sbin/nginx"

const char *lab_nginx_prog(void)
{
	return NGINX_PROG;
}

/* nginx_conf: the configuration of site n into path, its prefix dir. 0 or
 * -1 (logged). */
static int nginx_conf(const struct lab *lab, int n, const char *path, const char *dir)
{
	const struct topology *t = lab->t;
	const char *site = t->nodes[n].name;
	FILE *fp = fopen(path, "w");

	if (fp == NULL) {
		log_warn("nginx of %s: %s", site, path);
		return -1;
	}
	fprintf(fp,
		"# steerlab: site %s's nginx (lab/build/nginx.c), in place of sited\n"
		"daemon off;\n"
		"master_process off;\n"
		"worker_processes 1;\n"
		"pid %s/nginx.pid;\n"
		"error_log stderr warn;\n"
		"events {\n"
		"\tworker_connections 16384;\n"
		"}\n"
		"http {\n"
		"\taccess_log off;\n"
		"\tclient_body_temp_path %s/body;\n"
		"\tproxy_temp_path %s/proxy;\n"
		"\tfastcgi_temp_path %s/fastcgi;\n"
		"\tuwsgi_temp_path %s/uwsgi;\n"
		"\tscgi_temp_path %s/scgi;\n"
		"\tkeepalive_timeout 3600s;\n"
		"\tkeepalive_requests 1000000000;\n"
		"\tserver {\n"
		"\t\tlisten %u reuseport;\n",
		site, dir, dir, dir, dir, dir, dir, t->port);
	/* [::] where the lab gives the site IPv6 addresses: an IPv4 lab's
	 * nginx listens as it did */
	if (t->ip != TOPO_IP_4)
		fprintf(fp, "\t\tlisten [::]:%u reuseport ipv6only=on;\n", t->port);
	fprintf(fp,
		"\t\t# lib/httpwire.h's request: /steerlab/CLIENT/SEQ/SENT\n"
		"\t\tlocation ~ \"^/steerlab/(0|[1-9][0-9]*)/(0|[1-9][0-9]*)/(0|[1-9][0-9]*)$\" {\n"
		"\t\t\tdefault_type text/plain;\n"
		"\t\t\tadd_header X-Steerlab \"site=%s client=$1 seq=$2 sent=$3 flags=0\" always;\n"
		"\t\t\treturn 200 \"ok\\n\";\n"
		"\t\t}\n"
		"\t\tlocation / {\n"
		"\t\t\tdefault_type text/plain;\n"
		"\t\t\treturn 200 \"ok\\n\";\n"
		"\t\t}\n"
		"\t}\n"
		"}\n",
		site);
	if (fclose(fp) != 0) {
		log_warn("nginx of %s: %s", site, path);
		return -1;
	}
	return 0;
}

int lab_start_nginx(struct lab *lab, int n)
{
	const char *site = lab->t->nodes[n].name;
	char conf[PATH_MAX], dir[PATH_MAX], *text = NULL;
	char *check[] = {NGINX_PROG, "-t", "-q", "-c", conf, "-p", dir, "-e", "stderr", NULL};
	char *argv[] = {"nginx", "-c", conf, "-p", dir, "-e", "stderr", NULL};
	int rc;

	if (strfmt(conf, sizeof(conf), "%s/%s.nginx.conf", lab->rundir, site) == -1 ||
	    strfmt(dir, sizeof(dir), "%s/%s.nginx", lab->rundir, site) == -1) {
		log_warnx("nginx of %s: a run directory path too long", site);
		return -1;
	}
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		log_warn("nginx of %s: %s", site, dir);
		return -1;
	}
	if (nginx_conf(lab, n, conf, dir) == -1)
		return -1;
	/* its own check first: what it says, said */
	rc = subproc_capture(check, -1, &text, NULL);
	if (rc != 0) {
		log_warnx("nginx of %s: %s refused %s (exit %d)%s%s", site, NGINX_PROG, conf, rc,
			  text && *text ? ": " : "", text ? text : "");
		free(text);
		return -1;
	}
	free(text);
	return lab_start_agent_as(lab, n, NGINX_PROG, "nginx", argv) == -1 ? -1 : 0;
}
