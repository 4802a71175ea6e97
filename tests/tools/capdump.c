/*
 * capdump: the requests steerlab's own analysis reads from a run's captures
 * (clocks_load, as `steerlab report` does), one line per captured request:
 *
 *   capdump RUN_DIR
 *   LABEL CLIENT SEQ T_NS
 *
 * in each capture's file order, captures in the order the analysis keeps
 * them. SEQ is the low 32 bits of the sequence number (all the analysis
 * keeps). For cross-checking other readers of the same files, such as the
 * Wireshark dissector (tests/unit/test_dissector.sh).
 */
#include <inttypes.h>
#include <stdio.h>

#include "clocks.h"

int main(int argc, char **argv)
{
	struct clocks_input in;
	char err[512];
	int rc = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: capdump RUN_DIR\n");
		return 2;
	}
	if (clocks_load(argv[1], &in, err, sizeof(err)) == -1) {
		fprintf(stderr, "capdump: %s\n", err);
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < in.ncaptures; i++) {
		const struct clocks_capture *c = &in.captures[i];

		for (size_t j = 0; j < c->n; j++)
			printf("%s %" PRIu32 " %" PRIu32 " %" PRId64 "\n", c->label,
			       c->packets[j].client, c->packets[j].seq, c->packets[j].t_ns);
	}
	if (fflush(stdout) == EOF) {
		perror("capdump: stdout");
		rc = 1;
	}
out:
	clocks_input_free(&in);
	return rc;
}
