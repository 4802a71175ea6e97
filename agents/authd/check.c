/* authd's declared configuration check; see authd_check.h. */
#include "authd_check.h"

#include "conf.h"

int authd_check_stream(FILE *f, const char *path, FILE *err)
{
	struct authd_db *db = authd_conf_load_stream(f, path, err);

	if (db == NULL)
		return -1;
	authd_db_free(db);
	return 0;
}
