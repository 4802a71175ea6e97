/*
 * Where steerlab finds its agent programs. From a checkout they are beside
 * it, in bin/; installed (make install), steerlab is in PREFIX/bin and they
 * are in LIBEXECDIR (PREFIX/libexec/steerlab), compiled in as
 * STEERLAB_LIBEXECDIR. The agents beside the binary win, so a checkout's
 * bin/steerlab never runs an installed copy's agents.
 */
#include "lab.h"

#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strfmt.h"

#ifndef STEERLAB_LIBEXECDIR
#define STEERLAB_LIBEXECDIR "/usr/local/libexec/steerlab"
#endif

/* sited is the marker: a name no other package puts in a bin directory */
static int agent_dir_has_agents(const char *dir)
{
	char path[PATH_MAX];

	return strfmt(path, sizeof(path), "%s/sited", dir) == 0 && access(path, X_OK) == 0;
}

static int agent_dir_is_dir(const char *dir)
{
	struct stat st;

	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

void lab_agent_dir_pick(const char *selfdir, const char *libexecdir, char *buf, size_t len)
{
	if (agent_dir_has_agents(selfdir) || !agent_dir_is_dir(libexecdir))
		strfmt(buf, len, "%s", selfdir);
	else
		strfmt(buf, len, "%s", libexecdir);
}

void lab_agent_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0) {
		lab_agent_dir_pick("bin", STEERLAB_LIBEXECDIR, buf, len);
		return;
	}
	exe[n] = '\0';
	lab_agent_dir_pick(dirname(exe), STEERLAB_LIBEXECDIR, buf, len);
}

const char *lab_libexecdir(void)
{
	return STEERLAB_LIBEXECDIR;
}
