/*
 * FRR's daemons as programs, for every file that starts, checks or stops
 * them (frr.c, frrconf.c's dry runs, supervise.c): the program of each
 * label, and what one leaves behind in /var/tmp/frr when it ends. Below
 * them all, so none of them calls back into another.
 */
#include "lab.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "rmtree.h"
#include "strfmt.h"

static const char *const frr_labels[] = {"zebra", "bgpd", "bfdd", NULL};

const char *lab_frr_prog(const char *label)
{
	static const char *const progs[] = {FRR_ZEBRA, FRR_BGPD, FRR_BFDD};

	for (int i = 0; frr_labels[i]; i++)
		if (strcmp(label, frr_labels[i]) == 0)
			return progs[i];
	return NULL;
}

/* frr_running: a process (not a zombie) has that PID: the recorded daemon
 * reused, whose directory is not ours to remove. */
static int frr_running(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	strfmt(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p == NULL || (p[1] == ' ' && p[2] != 'Z' && p[2] != 'X');
}

void lab_frr_forget(const char *label, pid_t pid)
{
	char dir[64];
	int fd;

	/* FRR's daemons keep their per-thread log buffers and crash logs in
	 * /var/tmp/frr/DAEMON.PID, and one killed leaves it: removed, with
	 * what is in it, never following a link. Only for a daemon of the lab
	 * that has ended (the caller's word), so no running daemon's */
	if (lab_frr_prog(label) == NULL || frr_running(pid))
		return;
	strfmt(dir, sizeof(dir), "%s.%d", label, (int)pid);
	if ((fd = open("/var/tmp/frr", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	rmtree_at(fd, dir, 0);
	close(fd);
}
