/* resolverd's declared configuration check; see resolverd_check.h. */
#include "resolverd_check.h"

#include "config.h"

int resolverd_check_stream(FILE *f, const char *path, FILE *err)
{
	struct rsv_conf conf;

	if (rsv_conf_load_stream(&conf, f, path, err) == -1)
		return -1;
	rsv_conf_free(&conf);
	return 0;
}
