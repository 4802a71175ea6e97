/* Helpers shared by the authd unit tests: configurations from strings. */
#ifndef STEERLAB_TEST_AUTHD_UTIL_H
#define STEERLAB_TEST_AUTHD_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/authd/conf.h"

/* test_load: the database of a configuration text; NULL (errors on
 * stderr) if it is wrong. */
static inline struct authd_db *test_load(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	struct authd_db *db;

	if (f == NULL)
		return NULL;
	db = authd_conf_load_stream(f, "test.ini", stderr);
	fclose(f);
	return db;
}

/* test_load_errors: the error text of a wrong configuration (caller
 * frees), or NULL if it loaded. */
static inline char *test_load_errors(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&buf, &len);
	struct authd_db *db = authd_conf_load_stream(f, "test.ini", err);

	fclose(f);
	fclose(err);
	if (db) {
		authd_db_free(db);
		free(buf);
		return NULL;
	}
	return buf;
}

/* test_name: the [name] of a text name. */
static inline struct authd_name *test_name(const struct authd_db *db, const char *text)
{
	for (int i = 0; i < db->nnames; i++)
		if (strcmp(db->names[i]->text, text) == 0)
			return db->names[i];
	return NULL;
}

#endif
