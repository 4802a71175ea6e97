/*
 * lab/hint: the usage errors that suggest the fix, for the guesses a
 * newcomer makes (issue 10, item 6). Each function writes one message,
 * without "steerlab: " and without a newline, into buf and returns 0, or
 * returns -1 when it has no suggestion. No I/O: main.c reads the files and
 * directories, these only word the answer.
 */
#ifndef STEERLAB_HINT_H
#define STEERLAB_HINT_H

#include <stddef.h>

/* hint_option: opt is an option steerlab does not know ("--duration" or
 * "--duration=3s"), next the argument after it or NULL. A [lab] key (or
 * ttl) is answered with --set KEY=VALUE, whatever its value; any other long
 * option with a value (after '=', or a next argument not starting with '-')
 * with --set NAME=VALUE. */
int hint_option(const char *opt, const char *next, char *buf, size_t len);

/* hint_lab_file: cmd was given arg, which names a file, where a lab name is
 * expected; name is the file's [lab] name, or NULL if it could not be read. */
int hint_lab_file(const char *cmd, const char *arg, const char *name, char *buf, size_t len);

/* hint_options_first: args[0..n) are steerlab's arguments (argv + 1), and
 * args[0] starts with '-': the same command line with the options moved
 * after the command and its arguments. */
int hint_options_first(int n, char *const args[], char *buf, size_t len);

/* hint_directory: path, given as a topology, is a directory holding the
 * .ini files names[0..n) (sorted). */
int hint_directory(const char *path, char *const names[], int n, char *buf, size_t len);

/* hint_which_node: cmd (exec, fail, recover) was given lab but no node;
 * what is "node" or "site", names[0..n) the lab's nodes of that kind. */
int hint_which_node(const char *cmd, const char *lab, const char *what, char *const names[], int n,
		    char *buf, size_t len);

#endif
