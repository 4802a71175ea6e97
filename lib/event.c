/* JSON Lines event files, written with jansson; see event.h. */
#include "event.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events.h"
#include "log.h"
#include "timeutil.h"

struct event_log {
	FILE *fp;
	char *node;
	char *agent;
};

/* event_fopen: path appended, never through a symbolic link (one planted
 * in a run directory would send the events elsewhere). */
static FILE *event_fopen(const char *path)
{
	int fd =
	    open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
	FILE *fp;

	if (fd == -1) {
		if (errno == ELOOP)
			log_warnx("%s is a symbolic link: not followed", path);
		else
			log_warn("%s: %s", __func__, path);
		return NULL;
	}
	if ((fp = fdopen(fd, "a")) == NULL) {
		log_warn("%s: %s", __func__, path);
		close(fd);
	}
	return fp;
}

struct event_log *event_open(const char *path, const char *node, const char *agent)
{
	struct event_log *ev = calloc(1, sizeof(*ev));

	if (ev == NULL)
		return NULL;
	if (path == NULL || strcmp(path, "-") == 0) {
		ev->fp = stdout;
	} else if ((ev->fp = event_fopen(path)) == NULL) {
		free(ev);
		return NULL;
	}
	ev->node = strdup(node ? node : "");
	ev->agent = strdup(agent ? agent : "");
	if (ev->node == NULL || ev->agent == NULL) {
		event_close(ev);
		return NULL;
	}
	return ev;
}

void event_close(struct event_log *ev)
{
	if (ev == NULL)
		return;
	if (ev->fp && ev->fp != stdout)
		fclose(ev->fp);
	else if (ev->fp)
		fflush(ev->fp);
	free(ev->node);
	free(ev->agent);
	free(ev);
}

/* event_contract: whether the event is one lib/events.c defines, written
 * by the program its row names, with none but its fields. A line that
 * breaks the contract is not written (the analysis would misread it); the
 * log says which part, and a test that needs the event fails. */
static int event_contract(const struct event_log *ev, const char *event, json_t *extra)
{
	const struct events_def *def = events_find(event);
	const char *key;
	json_t *value;

	if (def == NULL) {
		log_warnx("event %s: not an event of lib/events.c (docs/events.md): not written",
			  event);
		return -1;
	}
	if (def->agent && strcmp(def->agent, ev->agent) != 0) {
		log_warnx("event %s: lib/events.c has %s write it, not %s: not written", event,
			  def->agent, ev->agent);
		return -1;
	}
	json_object_foreach(extra, key, value)
	{
		if (!events_has_field(def, key)) {
			log_warnx("event %s: %s is not one of its fields in lib/events.c "
				  "(docs/events.md): not written",
				  event, key);
			return -1;
		}
	}
	return 0;
}

static int event_vemit(struct event_log *ev, int64_t t, const char *event, const char *fields,
		       va_list ap)
{
	json_t *obj = json_object();
	json_error_t err;
	int rc = -1;

	if (ev == NULL || obj == NULL)
		goto out;
	json_object_set_new(obj, "t", json_integer(t));
	json_object_set_new(obj, "node", json_string(ev->node));
	json_object_set_new(obj, "agent", json_string(ev->agent));
	json_object_set_new(obj, "event", json_string(event));
	if (fields == NULL && event_contract(ev, event, NULL) == -1)
		goto out;
	if (fields) {
		json_t *extra = json_vpack_ex(&err, 0, fields, ap);
		if (extra == NULL) {
			log_warnx("event %s: bad fields: %s", event, err.text);
			goto out;
		}
		if (event_contract(ev, event, extra) == -1) {
			json_decref(extra);
			goto out;
		}
		json_object_update(obj, extra);
		json_decref(extra);
	}
	if (json_dumpf(obj, ev->fp, JSON_COMPACT | JSON_PRESERVE_ORDER) == 0 &&
	    fputc('\n', ev->fp) != EOF && fflush(ev->fp) == 0)
		rc = 0;
out:
	json_decref(obj);
	return rc;
}

int event_emit(struct event_log *ev, const char *event, const char *fields, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fields);
	rc = event_vemit(ev, now_real_ns(), event, fields, ap);
	va_end(ap);
	return rc;
}

int event_emit_at(struct event_log *ev, int64_t t_ns, const char *event, const char *fields, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fields);
	rc = event_vemit(ev, t_ns, event, fields, ap);
	va_end(ap);
	return rc;
}

int event_reserve(struct event_log *ev, int64_t bytes)
{
	off_t end;
	int fd;

	if (ev == NULL || ev->fp == stdout)
		return 0;
	fd = fileno(ev->fp);
	if ((end = lseek(fd, 0, SEEK_END)) == -1)
		return -1;
	/* beyond the end, the size unchanged: appends fill the reserved blocks */
	return fallocate(fd, FALLOC_FL_KEEP_SIZE, end, bytes);
}
