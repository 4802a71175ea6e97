/*
 * What a command prints, for the unit tests that call one directly (the
 * lab's commands, the run's refusals): standard output and standard error
 * sent to temporary files between capture_start and capture_end, which
 * gives each back as a string. The log's time stamp ("12:34:56.789 " before
 * "steerlab: ...", lib/log.c) is taken off each line, so that the text is
 * compared exactly. End the capture before asserting: a failed assertion
 * would print into it.
 */
#ifndef STEERLAB_TEST_CAPTURE_H
#define STEERLAB_TEST_CAPTURE_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct capture {
	int saved[2]; /* the test's own stdout and stderr */
	FILE *tmp[2];
	char *out, *err; /* capture_end's: what each received */
};

static inline void capture_start(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++) {
		c->tmp[i] = tmpfile();
		c->saved[i] = dup(i + 1);
		if (c->tmp[i] == NULL || c->saved[i] == -1 ||
		    dup2(fileno(c->tmp[i]), i + 1) == -1) {
			perror("capture_start");
			abort();
		}
	}
	c->out = c->err = NULL;
}

/* capture_text: fp's contents, time stamps off (malloc'd) */
static inline char *capture_text(FILE *fp)
{
	long len;
	char *buf, *o;

	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	rewind(fp);
	buf = calloc(1, (size_t)len + 1);
	if (buf == NULL || fread(buf, 1, (size_t)len, fp) != (size_t)len)
		abort();
	o = buf;
	for (char *p = buf; *p;) {
		/* HH:MM:SS.mmm at the start of a line */
		if ((p == buf || p[-1] == '\n') && strlen(p) > 13 && isdigit((unsigned char)p[0]) &&
		    p[2] == ':' && p[5] == ':' && p[8] == '.' && p[12] == ' ')
			p += 13;
		else
			*o++ = *p++;
	}
	*o = '\0';
	return buf;
}

static inline void capture_end(struct capture *c)
{
	fflush(stdout);
	fflush(stderr);
	for (int i = 0; i < 2; i++) {
		dup2(c->saved[i], i + 1);
		close(c->saved[i]);
	}
	c->out = capture_text(c->tmp[0]);
	c->err = capture_text(c->tmp[1]);
	fclose(c->tmp[0]);
	fclose(c->tmp[1]);
}

static inline void capture_free(struct capture *c)
{
	free(c->out);
	free(c->err);
	c->out = c->err = NULL;
}

#endif
