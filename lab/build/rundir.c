/* The rules of a run directory, for every command that makes one; see lab.h. */
#include "lab.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "strfmt.h"

const char *rundir_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return s;
	return NULL;
}

const char *rundir_quote(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (; *s && n + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\n')
			n += (size_t)snprintf(buf + n, len - n, "\\n");
		else if (c == '\t')
			n += (size_t)snprintf(buf + n, len - n, "\\t");
		else if (c == '\\' || c == '"')
			n += (size_t)snprintf(buf + n, len - n, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", c);
		else
			buf[n++] = (char)c;
	}
	buf[n < len ? n : len - 1] = '\0';
	return buf;
}

/* rundir_entry: the first entry of dir but . and .., into buf; 0 if it is
 * empty, 1 if not, -1 (errno) if it cannot be read. *has_marker: marker is
 * one of its entries. */
static int rundir_entry(const char *dir, const char *marker, char *buf, size_t len, int *has_marker)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int rc = 0;

	*has_marker = 0;
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (marker && strcmp(de->d_name, marker) == 0)
			*has_marker = 1;
		if (rc == 0)
			strfmt(buf, len, "%s", de->d_name);
		rc = 1;
	}
	closedir(d);
	return rc;
}

/* what a command makes there, for its refusals */
static const char *rundir_what(const char *cmd)
{
	if (strcmp(cmd, "up") == 0)
		return "a lab";
	if (strcmp(cmd, "sweep") == 0)
		return "a sweep";
	if (strcmp(cmd, "repeat") == 0)
		return "a repeat";
	return "a run";
}

int rundir_check(const char *cmd, const char *dir, const char *marker, int explicit_out, FILE *err)
{
	const char *advice = explicit_out ? "choose another --out" : "run again in a second";
	/* a repeat is run --repeat: its messages say run */
	const char *say = strcmp(cmd, "repeat") == 0 ? "run" : cmd;
	char quoted[PATH_MAX * 4 + 1], entry[NAME_MAX + 1], target[PATH_MAX];
	const char *ctl = rundir_ctl(dir);
	struct stat st;
	ssize_t n;
	int r, has_marker;

	if (ctl) {
		fprintf(err,
			"steerlab: %s: %s \"%s\": a control character (byte 0x%02x) in the "
			"path: refused, the lab writes it one a line in its state and "
			"events; choose another --out\n",
			say, explicit_out ? "--out" : "the run directory",
			rundir_quote(dir, quoted, sizeof(quoted)), (unsigned char)*ctl);
		return -1;
	}
	if (dir[0] == '\0') {
		fprintf(err, "steerlab: %s: --out '': expected a directory\n", say);
		return -1;
	}
	if (lstat(dir, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		fprintf(err, "steerlab: %s: %s: %s\n", say, dir, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(dir, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		fprintf(err,
			"steerlab: %s: %s is a symbolic link (to %s): refused, %s directory "
			"is never reached through a link; %s\n",
			say, dir, n > 0 ? target : "?", rundir_what(cmd),
			explicit_out ? "choose another --out" : "remove it");
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(err, "steerlab: %s: %s exists and is not a directory: %s\n", say, dir,
			explicit_out ? "choose another --out" : "remove it");
		return -1;
	}
	r = rundir_entry(dir, marker, entry, sizeof(entry), &has_marker);
	if (r == -1) {
		fprintf(err, "steerlab: %s: %s: %s\n", say, dir, strerror(errno));
		return -1;
	}
	if (r == 0 || has_marker)
		return 0;
	if (marker) {
		/* not ours to fill, nor, later, to clean */
		fprintf(err,
			"steerlab: %s: %s exists and is not a %s directory (it has no %s): "
			"choose another --out\n",
			cmd, dir, cmd, marker);
		return -1;
	}
	{
		char events[PATH_MAX];

		if (strfmt(events, sizeof(events), "%s/lab.events.jsonl", dir) == 0 &&
		    lstat(events, &st) == 0)
			strfmt(entry, sizeof(entry), "lab.events.jsonl: a run");
	}
	fprintf(err,
		"steerlab: %s: %s is not empty (it has %s): %s writes into a new or empty "
		"directory and leaves what is there untouched; %s\n",
		say, dir, entry, rundir_what(cmd), advice);
	return -1;
}

int rundir_make(const char *dir)
{
	char buf[PATH_MAX];
	struct stat st;

	if (strfmt(buf, sizeof(buf), "%s", dir) == -1) {
		log_warnx("%s: path too long", dir);
		return -1;
	}
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) == -1 && errno != EEXIST) {
			log_warn("%s: mkdir %s", __func__, buf);
			return -1;
		}
		*p = '/';
	}
	if (mkdir(buf, 0755) == -1 && errno != EEXIST) {
		log_warn("%s: mkdir %s", __func__, buf);
		return -1;
	}
	/* what was checked is what is used: not a link planted meanwhile */
	if (lstat(buf, &st) == -1) {
		log_warn("%s: %s", __func__, buf);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		log_warnx("%s: %s: not a directory (a symbolic link?): refused", __func__, buf);
		return -1;
	}
	return 0;
}
