/*
 * The clients by address family (clocks_family.c; docs/clocks.md, "IPv6"):
 * in a dual lab each client says its family (client_started's family: 4,
 * 6 or dual) and each record the family its reply came over and whether
 * it was sent again over IPv4 (Happy Eyeballs). Per family, the requests
 * sent after t0 (until the site came back), those lost, those a dual
 * client sent again over IPv4 and had answered (rescued, and how late:
 * the median round trip of them), and the clients that lost none: the
 * share of a family's clients that never noticed the failure. A
 * population's logical clients are clients of its family, each its own.
 */
#ifndef STEERLAB_CLOCKS_FAMILY_H
#define STEERLAB_CLOCKS_FAMILY_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks_input.h"

enum clocks_family_kind { CLOCKS_FAMILY_4, CLOCKS_FAMILY_6, CLOCKS_FAMILY_DUAL, CLOCKS_FAMILIES };

struct clocks_family_row {
	int clients;		    /* client flows of the family (a population's: each user) */
	int unnoticed;		    /* of them, those that lost nothing after t0 */
	int64_t sent, lost;	    /* their requests after t0, and of them lost */
	int64_t rescued;	    /* answered after going again over IPv4 */
	int64_t rescued_rtt_p50_ns; /* their round trip's median; -1: none */
};

struct clocks_family {
	int present; /* a client said its family (a dual lab) */
	struct clocks_family_row row[CLOCKS_FAMILIES];
};

/* clocks_family: the rows of in's clients and records. 0, or -1 out of
 * memory. */
int clocks_family(const struct clocks_input *in, struct clocks_family *f);

/* clocks_family_print: the table (nothing outside a dual lab);
 * clocks_family_json: clocks.json's "families", NULL outside one */
void clocks_family_print(FILE *out, const struct clocks_input *in);
json_t *clocks_family_json(const struct clocks_input *in);

#endif
