/*
 * The signals sited takes besides SIGTERM, defined once: sited acts on
 * them (agents/sited/sited.c) and the lab's timeline sends them. On
 * Linux with glibc SIGRTMIN is 34 (the first two real-time signals are
 * the C library's), so degrade is signal 35 and restore 36, `kill -s
 * RTMIN+1` and `kill -s RTMIN+2` from a shell. SIGRTMIN is a call in
 * glibc, not a constant: these are expressions, not case labels.
 *
 *   drain    the replies are flagged WIRE_F_DRAINING (lib/wire.h)
 *   undrain  they are not
 *   degrade  requests are read and dropped unanswered, over UDP and TCP,
 *            while the TCP listener goes on accepting: the application
 *            is broken, the kernel is not (docs/agents.md, "sited")
 *   restore  requests are answered again
 *   slow     each reply held its value's microseconds before it is sent
 *            (sigqueue's si_value, sival_int; 0: at once again), over UDP
 *            and TCP (agents/sited/slow.h)
 */
#ifndef STEERLAB_SITED_SIGNALS_H
#define STEERLAB_SITED_SIGNALS_H

#include <signal.h>

#define SITED_SIG_DRAIN SIGUSR1
#define SITED_SIG_UNDRAIN SIGUSR2
#define SITED_SIG_DEGRADE (SIGRTMIN + 1)
#define SITED_SIG_RESTORE (SIGRTMIN + 2)
#define SITED_SIG_SLOW (SIGRTMIN + 3)

#endif
