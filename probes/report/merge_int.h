/*
 * `steerlab merge` inside (merge.c, merge_events.c): the lab's events that
 * become packet comments, read from what the clocks computed (clocks.json)
 * and the agents recorded, and how each finds its packet.
 */
#ifndef STEERLAB_MERGE_INT_H
#define STEERLAB_MERGE_INT_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define MERGE_TEXT 320
#define MERGE_LABEL 64
#define MERGE_MAX_EVENTS 256
#define MERGE_MAX_SITES 64
#define MERGE_MAX_CLIENTS 64

enum merge_kind {
	MERGE_AT,	  /* no packet of its own: the first packet at or after t_ns */
	MERGE_REQUEST,	  /* the request captured in label at t_ns exactly */
	MERGE_DNS_ANSWER, /* the first answer to name in a dns-* capture from t_ns on,
			   * without the address gone */
};

struct merge_event {
	int64_t t_ns;
	enum merge_kind kind;
	char label[MERGE_LABEL]; /* MERGE_REQUEST: the capture */
	char text[MERGE_TEXT];
	int placed;
};

/* a client node's flows: its ids and its name */
struct merge_client {
	char node[MERGE_LABEL];
	uint32_t id, dns_id;
};

struct merge_plan {
	int64_t t0_ns;		    /* -1: a steady-state run, no failure */
	char failed[MERGE_LABEL];   /* the failed site S */
	struct in_addr failed_addr; /* its own address (0: unknown) */
	char steer_name[256];	    /* the name authd steered, "" if none */
	uint16_t port;		    /* clocks.json's request port, 0 if none */
	char sites[MERGE_MAX_SITES][MERGE_LABEL];
	int nsites;
	struct merge_client clients[MERGE_MAX_CLIENTS * 2];
	int nclients;
	struct merge_event ev[MERGE_MAX_EVENTS];
	int nev; /* sorted by t_ns */
};

/* merge_plan_load: plan's events from rundir's clocks.json, plan.json and
 * *.prober.events.jsonl. 0, or -1 with err ("RUN/clocks.json: ..."). */
int merge_plan_load(const char *rundir, struct merge_plan *plan, char *err, size_t errlen);

/* merge_client_name: "c1 (anycast)" for client id (a population's
 * logical client by its agent) into buf; buf */
const char *merge_client_name(const struct merge_plan *plan, uint32_t id, char *buf, size_t len);

/* merge_is_site: whether capture label is a site's link */
int merge_is_site(const struct merge_plan *plan, const char *label);

/* merge_dns_qname: the question name of DNS message p (len bytes) into
 * buf, lower case with a final dot; 0, or -1 if it has none */
int merge_dns_qname(const uint8_t *p, size_t len, char *buf, size_t buflen);

#endif
