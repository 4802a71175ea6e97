/* authd's declared configuration check; see authd_check.h. */
#include "authd_check.h"

#include "change.h"
#include "conf.h"

int authd_check_stream(FILE *f, const char *path, FILE *err)
{
	return authd_check_changes(f, path, NULL, 0, err);
}

int authd_check_changes(FILE *f, const char *path, const struct authd_check_change *c, int n,
			FILE *err)
{
	struct authd_db *db = authd_conf_load_stream(f, path, err);
	int rc = 0;

	if (db == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		struct authd_change_result r;
		char why[ZONE_CHANGE_REASON_LEN + 1];

		if (authd_change_apply(db, &c[i].change, &r, why, sizeof(why)) == -1) {
			fprintf(err, "%s:%d: %s: %s\n", path, c[i].line, c[i].label, why);
			rc = -1;
			continue;
		}
		json_decref(r.before);
		json_decref(r.after);
	}
	authd_db_free(db);
	return rc;
}
