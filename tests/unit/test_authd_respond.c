/* authd's response function (agents/authd/respond.h): queries built and
 * responses read with libknot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>
#include <cmocka.h>
#include <libknot/libknot.h>

#include "agents/authd/health.h"
#include "agents/authd/respond.h"
#include "test_authd_util.h"

static const char *respond_conf =
    "[server]\n"
    "udp_max = 1232\n"
    "[zone lab.example]\n"
    "soa = ns1 hostmaster 2024010101 3600 600 86400 20\n"
    "ttl = 30\n"
    "record = @ NS ns1\n"
    "record = ns1 A 198.18.0.53\n"
    "record = @ MX 10 mail\n"
    "record = mail A 198.18.0.25\n"
    "record = @ TXT \"hello world\" second\n"
    "record = alias CNAME www\n"
    "record = chain CNAME alias\n"
    "record = dangling CNAME nothere\n"
    "record = ext CNAME www.example.com.\n"
    "record = loop1 CNAME loop2\n"
    "record = loop2 CNAME loop1\n"
    "record = deep.ent A 198.18.9.9\n"
    "record = sub NS ns.sub\n"
    "record = ns.sub A 198.18.5.53\n"
    "record = big TXT \"0123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"1123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"2123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"3123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"4123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"5123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"6123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "record = big TXT \"7123456789012345678901234567890123456789012345678901234567890123456789\"\n"
    "[zone other.example]\n"
    "soa = ns hostmaster 1 3600 600 86400 300\n"
    "ttl = 60\n"
    "record = x A 198.18.7.7\n"
    "[site a]\n"
    "address = 198.19.1.1\n"
    "address = 2001:db8:1::1\n"
    "[site b]\n"
    "address = 198.19.2.1\n"
    "[name www.lab.example]\n"
    "policy = simple\n"
    "sites = a b\n"
    "ttl = 10\n"
    "[name fo.lab.example]\n"
    "policy = failover\n"
    "primary = a\n"
    "secondary = b\n"
    "[name geo.lab.example]\n"
    "policy = geolocation\n"
    "geo = 198.18.1.0/24 a\n"
    "geo = 198.18.2.0/24 b\n"
    "[name px.lab.example]\n"
    "policy = proximity\n"
    "tier = www.us.example. a\n"
    "tier = www.eu.example. b\n"
    "ttl = 5\n";

struct fixture {
	struct authd_db *db;
	struct authd_health h;
	struct authd_respond_ctx rc;
	uint8_t q[AUTHD_MSG_MAX], r[AUTHD_MSG_MAX];
	size_t qlen, rlen;
	knot_pkt_t *resp;
	struct sockaddr_in from;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	f->db = test_load(respond_conf);
	assert_non_null(f->db);
	authd_health_init(&f->h, f->db);
	assert_int_equal(authd_respond_init(&f->rc, f->db, &f->h, 42), 0);
	f->from.sin_family = AF_INET;
	inet_pton(AF_INET, "198.18.1.20", &f->from.sin_addr);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	knot_pkt_free(f->resp);
	authd_respond_free(&f->rc);
	authd_db_free(f->db);
	free(f);
	return 0;
}

struct qopts {
	int edns;
	uint16_t payload;
	uint8_t version;
	const char *ecs; /* "198.18.1.0/24" */
	uint8_t opcode;
};

/* query: a query of name/type into f->q. */
static void query(struct fixture *f, const char *name, uint16_t type, const struct qopts *o)
{
	uint8_t qname[KNOT_DNAME_MAXLEN];
	knot_pkt_t *q = knot_pkt_new(f->q, sizeof(f->q), NULL);

	assert_non_null(q);
	knot_pkt_clear(q); /* a packet on a given buffer starts with the buffer's bytes */
	assert_non_null(knot_dname_from_str(qname, name, sizeof(qname)));
	knot_wire_set_id(q->wire, 0xbeef);
	if (o && o->opcode)
		knot_wire_set_opcode(q->wire, o->opcode);
	assert_int_equal(knot_pkt_put_question(q, qname, KNOT_CLASS_IN, type), KNOT_EOK);
	if (o && o->edns) {
		knot_rrset_t opt;

		assert_int_equal(knot_edns_init(&opt, o->payload, 0, o->version, NULL), KNOT_EOK);
		if (o->ecs) {
			knot_edns_client_subnet_t e = {0};
			char addr[64];
			const char *slash = strchr(o->ecs, '/');
			uint8_t *w;
			uint16_t size;

			memcpy(addr, o->ecs, (size_t)(slash - o->ecs));
			addr[slash - o->ecs] = '\0';
			e.family =
			    strchr(addr, ':') ? KNOT_ADDR_FAMILY_IPV6 : KNOT_ADDR_FAMILY_IPV4;
			assert_int_equal(
			    inet_pton(e.family == KNOT_ADDR_FAMILY_IPV6 ? AF_INET6 : AF_INET, addr,
				      e.address),
			    1);
			e.source_len = (uint8_t)atoi(slash + 1);
			size = knot_edns_client_subnet_size(&e);
			assert_int_equal(knot_edns_reserve_option(
					     &opt, KNOT_EDNS_OPTION_CLIENT_SUBNET, size, &w, NULL),
					 KNOT_EOK);
			assert_int_equal(knot_edns_client_subnet_write(w, size, &e), KNOT_EOK);
		}
		assert_int_equal(knot_pkt_begin(q, KNOT_ADDITIONAL), KNOT_EOK);
		assert_int_equal(knot_pkt_put(q, 0, &opt, KNOT_PF_FREE), KNOT_EOK);
	}
	f->qlen = q->size;
	knot_pkt_free(q);
}

/* respond: the response to f->q, parsed into f->resp (NULL: no answer). */
static void respond(struct fixture *f, int tcp)
{
	knot_pkt_free(f->resp);
	f->resp = NULL;
	f->rlen = authd_respond(&f->rc, f->q, f->qlen, (struct sockaddr *)&f->from, tcp, f->r,
				tcp ? AUTHD_MSG_MAX : f->db->server.udp_max);
	if (f->rlen == 0)
		return;
	f->resp = knot_pkt_new(f->r, (uint16_t)f->rlen, NULL);
	assert_non_null(f->resp);
	assert_int_equal(knot_pkt_parse(f->resp, KNOT_PF_NOCANON), KNOT_EOK);
	assert_int_equal(knot_wire_get_id(f->r), knot_wire_get_id(f->q));
	assert_true(knot_wire_get_qr(f->r));
}

static void ask(struct fixture *f, const char *name, uint16_t type, const struct qopts *o)
{
	query(f, name, type, o);
	respond(f, 0);
	assert_non_null(f->resp);
}

/* section: the records of a section as text, one "owner ttl TYPE data" a line. */
static const char *section(struct fixture *f, knot_section_t id)
{
	static char out[8192];
	const knot_pktsection_t *s = knot_pkt_section(f->resp, id);
	size_t used = 0;

	out[0] = '\0';
	for (uint16_t i = 0; i < s->count; i++) {
		const knot_rrset_t *rr = knot_pkt_rr(s, i);
		char owner[KNOT_DNAME_TXT_MAXLEN + 1], type[16];
		knot_rdata_t *rd = rr->rrs.rdata;

		if (rr->type == KNOT_RRTYPE_OPT)
			continue;
		knot_dname_to_str(owner, rr->owner, sizeof(owner));
		knot_rrtype_to_string(rr->type, type, sizeof(type));
		for (uint16_t k = 0; k < rr->rrs.count; k++, rd = knot_rdataset_next(rd)) {
			char data[1024] = "";

			if (rr->type == KNOT_RRTYPE_A)
				inet_ntop(AF_INET, rd->data, data, sizeof(data));
			else if (rr->type == KNOT_RRTYPE_AAAA)
				inet_ntop(AF_INET6, rd->data, data, sizeof(data));
			else if (rr->type == KNOT_RRTYPE_CNAME || rr->type == KNOT_RRTYPE_NS)
				knot_dname_to_str(data, rd->data, sizeof(data));
			else if (rr->type == KNOT_RRTYPE_SOA)
				snprintf(data, sizeof(data), "soa min %u", knot_soa_minimum(rd));
			else
				snprintf(data, sizeof(data), "%u bytes", rd->len);
			used += (size_t)snprintf(out + used, sizeof(out) - used, "%s %u %s %s\n",
						 owner, rr->ttl, type, data);
		}
	}
	return out;
}

static int rcode(struct fixture *f)
{
	return knot_pkt_ext_rcode(f->resp);
}

static void test_answer_policy(void **state)
{
	struct fixture *f = *state;

	ask(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_true(knot_wire_get_aa(f->r));
	assert_false(knot_wire_get_tc(f->r));
	assert_false(knot_wire_get_ra(f->r));
	assert_string_equal(section(f, KNOT_ANSWER), "www.lab.example. 10 A 198.19.1.1\n"
						     "www.lab.example. 10 A 198.19.2.1\n");
	assert_null(f->resp->opt_rr); /* no EDNS asked, none given */
	ask(f, "www.lab.example.", KNOT_RRTYPE_AAAA, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "www.lab.example. 10 AAAA 2001:db8:1::1\n");
}

static void test_answer_keeps_query_case(void **state)
{
	struct fixture *f = *state;

	ask(f, "WwW.LAB.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "WwW.LAB.example. 10 A 198.19.1.1\n"
						     "WwW.LAB.example. 10 A 198.19.2.1\n");
	ask(f, "MAIL.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "MAIL.lab.example. 30 A 198.18.0.25\n");
}

static void test_nxdomain(void **state)
{
	struct fixture *f = *state;

	ask(f, "nope.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NXDOMAIN);
	assert_true(knot_wire_get_aa(f->r));
	assert_string_equal(section(f, KNOT_ANSWER), "");
	/* negative TTL: min(SOA TTL 30, MINIMUM 20) */
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
	ask(f, "nope.other.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_AUTHORITY), "other.example. 60 SOA soa min 300\n");
	/* below an existing name */
	ask(f, "a.b.mail.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NXDOMAIN);
}

static void test_nodata(void **state)
{
	struct fixture *f = *state;

	ask(f, "mail.lab.example.", KNOT_RRTYPE_TXT, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_true(knot_wire_get_aa(f->r));
	assert_string_equal(section(f, KNOT_ANSWER), "");
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
	/* a steered name has no TXT */
	ask(f, "www.lab.example.", KNOT_RRTYPE_TXT, NULL);
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
	/* b has no AAAA: failover to b gives NODATA for AAAA */
	/* an empty non-terminal */
	ask(f, "ent.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
	/* geolocation, unmapped querier, no default */
	inet_pton(AF_INET, "192.0.2.1", &f->from.sin_addr);
	ask(f, "geo.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_string_equal(section(f, KNOT_ANSWER), "");
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
}

static void test_refused(void **state)
{
	struct fixture *f = *state;

	ask(f, "example.com.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_REFUSED);
	assert_false(knot_wire_get_aa(f->r));
	assert_string_equal(section(f, KNOT_ANSWER), "");
	ask(f, ".", KNOT_RRTYPE_NS, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_REFUSED);
	ask(f, "example.", KNOT_RRTYPE_NS, NULL); /* the parent of a zone */
	assert_int_equal(rcode(f), KNOT_RCODE_REFUSED);
	ask(f, "lab.example.", KNOT_RRTYPE_AXFR, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_REFUSED);
	/* CHAOS class */
	query(f, "version.bind.", KNOT_RRTYPE_TXT, NULL);
	knot_wire_write_u16(f->q + f->qlen - 2, KNOT_CLASS_CH);
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_REFUSED);
}

static void test_formerr(void **state)
{
	struct fixture *f = *state;
	uint8_t saved[64];

	/* two questions */
	query(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	memcpy(saved, f->q + KNOT_WIRE_HEADER_SIZE, f->qlen - KNOT_WIRE_HEADER_SIZE);
	memcpy(f->q + f->qlen, saved, f->qlen - KNOT_WIRE_HEADER_SIZE);
	f->qlen += f->qlen - KNOT_WIRE_HEADER_SIZE;
	knot_wire_set_qdcount(f->q, 2);
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
	assert_int_equal(knot_wire_get_qdcount(f->r), 0);
	/* no question */
	query(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	knot_wire_set_qdcount(f->q, 0);
	f->qlen = KNOT_WIRE_HEADER_SIZE;
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
	/* a cut question */
	query(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	f->qlen -= 3;
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
	/* an answer count with no answer */
	query(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	knot_wire_set_ancount(f->q, 1);
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
	assert_int_equal(knot_wire_get_qdcount(f->r), 1); /* the question is echoed */
	/* an OPT as the question type */
	ask(f, "www.lab.example.", KNOT_RRTYPE_OPT, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
}

static void test_not_answered(void **state)
{
	struct fixture *f = *state;

	/* shorter than a header */
	query(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	f->qlen = 11;
	respond(f, 0);
	assert_null(f->resp);
	/* a response */
	query(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	knot_wire_set_qr(f->q);
	respond(f, 0);
	assert_null(f->resp);
	assert_int_equal(f->rc.stats.dropped, 2);
}

static void test_notimp(void **state)
{
	struct fixture *f = *state;
	struct qopts notify = {.opcode = KNOT_OPCODE_NOTIFY},
		     update = {.opcode = KNOT_OPCODE_UPDATE};

	ask(f, "lab.example.", KNOT_RRTYPE_SOA, &notify);
	assert_int_equal(rcode(f), KNOT_RCODE_NOTIMPL);
	assert_int_equal(knot_wire_get_opcode(f->r), KNOT_OPCODE_NOTIFY);
	ask(f, "lab.example.", KNOT_RRTYPE_SOA, &update);
	assert_int_equal(rcode(f), KNOT_RCODE_NOTIMPL);
	assert_false(knot_wire_get_aa(f->r));
}

static void test_truncation(void **state)
{
	struct fixture *f = *state;
	struct qopts edns = {.edns = 1, .payload = 4096}, small = {.edns = 1, .payload = 512};

	/* 8 TXT of 71 bytes: about 750 bytes */
	ask(f, "big.lab.example.", KNOT_RRTYPE_TXT, NULL);
	assert_true(knot_wire_get_tc(f->r));
	assert_true(knot_wire_get_aa(f->r));
	assert_int_equal(knot_wire_get_ancount(f->r), 0);
	assert_true(f->rlen <= 512);
	/* the client's EDNS size: it fits */
	ask(f, "big.lab.example.", KNOT_RRTYPE_TXT, &edns);
	assert_false(knot_wire_get_tc(f->r));
	assert_int_equal(knot_wire_get_ancount(f->r), 8);
	/* an EDNS size of 512: truncated, with the OPT kept */
	ask(f, "big.lab.example.", KNOT_RRTYPE_TXT, &small);
	assert_true(knot_wire_get_tc(f->r));
	assert_non_null(f->resp->opt_rr);
	/* TCP: never truncated */
	query(f, "big.lab.example.", KNOT_RRTYPE_TXT, NULL);
	respond(f, 1);
	assert_false(knot_wire_get_tc(f->r));
	assert_int_equal(knot_wire_get_ancount(f->r), 8);
	assert_int_equal(f->rc.stats.truncated, 2);
}

static void test_truncation_cap(void **state)
{
	struct fixture *f = *state;
	struct qopts edns = {.edns = 1, .payload = 4096};

	/* the server's udp_max caps the client's size */
	f->db->server.udp_max = 700;
	ask(f, "big.lab.example.", KNOT_RRTYPE_TXT, &edns);
	assert_true(knot_wire_get_tc(f->r));
	assert_true(f->rlen <= 700);
	assert_int_equal(knot_edns_get_payload(f->resp->opt_rr), 700);
}

static void test_edns(void **state)
{
	struct fixture *f = *state;
	struct qopts edns = {.edns = 1, .payload = 1400},
		     v1 = {.edns = 1, .payload = 1400, .version = 1};

	ask(f, "www.lab.example.", KNOT_RRTYPE_A, &edns);
	assert_non_null(f->resp->opt_rr);
	assert_int_equal(knot_edns_get_payload(f->resp->opt_rr), 1232);
	assert_int_equal(knot_edns_get_version(f->resp->opt_rr), 0);
	assert_int_equal(knot_wire_get_ancount(f->r), 2);
	/* an unknown EDNS version: BADVERS */
	ask(f, "www.lab.example.", KNOT_RRTYPE_A, &v1);
	assert_int_equal(rcode(f), KNOT_RCODE_BADVERS);
	assert_int_equal(knot_wire_get_ancount(f->r), 0);
	/* errors carry the OPT too */
	ask(f, "example.com.", KNOT_RRTYPE_A, &edns);
	assert_int_equal(rcode(f), KNOT_RCODE_REFUSED);
	assert_non_null(f->resp->opt_rr);
}

/* RFC 6891 6.2.5: an EDNS payload below 512 is treated as 512, not refused */
static void test_edns_small_payload(void **state)
{
	struct fixture *f = *state;
	struct qopts o = {.edns = 1};

	for (unsigned pl = 0; pl <= 512; pl++) {
		o.payload = (uint16_t)pl;
		ask(f, "www.lab.example.", KNOT_RRTYPE_A, &o);
		assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
		assert_int_equal(knot_wire_get_ancount(f->r), 2);
		assert_non_null(f->resp->opt_rr);
		/* the big answer is cut at 512, as for a payload of 512 */
		ask(f, "big.lab.example.", KNOT_RRTYPE_TXT, &o);
		assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
		assert_true(knot_wire_get_tc(f->r));
		assert_true(f->rlen <= 512);
	}
}

/* ecs_scope: the response's ECS option: 0 and the scope, or -1 if none. */
static int ecs_scope(struct fixture *f, knot_edns_client_subnet_t *e)
{
	uint8_t *opt;

	if (f->resp->opt_rr == NULL)
		return -1;
	opt = knot_edns_get_option(f->resp->opt_rr, KNOT_EDNS_OPTION_CLIENT_SUBNET, NULL);
	if (opt == NULL)
		return -1;
	assert_int_equal(knot_edns_client_subnet_parse(e, knot_edns_opt_get_data(opt),
						       knot_edns_opt_get_length(opt)),
			 KNOT_EOK);
	return e->scope_len;
}

static void test_ecs(void **state)
{
	struct fixture *f = *state;
	struct qopts o = {.edns = 1, .payload = 1232};
	knot_edns_client_subnet_t e;

	/* the source address says 198.18.1.20: a */
	ask(f, "geo.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "geo.lab.example. 30 A 198.19.1.1\n");
	/* ECS says 198.18.2.0/24: b, scope 24, the rest echoed */
	o.ecs = "198.18.2.0/24";
	ask(f, "geo.lab.example.", KNOT_RRTYPE_A, &o);
	assert_string_equal(section(f, KNOT_ANSWER), "geo.lab.example. 30 A 198.19.2.1\n");
	assert_int_equal(ecs_scope(f, &e), 24);
	assert_int_equal(e.family, KNOT_ADDR_FAMILY_IPV4);
	assert_int_equal(e.source_len, 24);
	assert_memory_equal(e.address, "\xc6\x12\x02", 3);
	/* a name that does not depend on the querier: scope 0 */
	ask(f, "www.lab.example.", KNOT_RRTYPE_A, &o);
	assert_int_equal(ecs_scope(f, &e), 0);
	ask(f, "nope.lab.example.", KNOT_RRTYPE_A, &o);
	assert_int_equal(ecs_scope(f, &e), 0);
	/* source 0: a global answer, scope 0 */
	o.ecs = "0.0.0.0/0";
	ask(f, "geo.lab.example.", KNOT_RRTYPE_A, &o);
	assert_int_equal(ecs_scope(f, &e), 0);
	assert_string_equal(section(f, KNOT_ANSWER), "");
	/* IPv6 ECS: unmapped */
	o.ecs = "2001:db8::/56";
	ask(f, "geo.lab.example.", KNOT_RRTYPE_A, &o);
	assert_int_equal(ecs_scope(f, &e), 0);
	assert_int_equal(e.family, KNOT_ADDR_FAMILY_IPV6);
	assert_int_equal(f->rc.stats.ecs, 5);
}

static void test_ecs_malformed(void **state)
{
	struct fixture *f = *state;
	struct qopts o = {.edns = 1, .payload = 1232, .ecs = "198.18.2.0/24"};

	/* the query ends with the option: family(2) source(1) scope(1) 198 18 2 */
	query(f, "geo.lab.example.", KNOT_RRTYPE_A, &o);
	f->q[f->qlen - 5] = 23; /* source 23: the last bit of 198.18.3 is past it */
	f->q[f->qlen - 1] = 3;
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
	assert_int_equal(ecs_scope(f, &(knot_edns_client_subnet_t){0}), -1);
	/* an address longer than the source prefix needs */
	query(f, "geo.lab.example.", KNOT_RRTYPE_A, &o);
	f->q[f->qlen - 5] = 16;
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
	/* an unknown family */
	query(f, "geo.lab.example.", KNOT_RRTYPE_A, &o);
	f->q[f->qlen - 6] = 9;
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_FORMERR);
	/* well-formed again */
	query(f, "geo.lab.example.", KNOT_RRTYPE_A, &o);
	respond(f, 0);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
}

static void test_cname(void **state)
{
	struct fixture *f = *state;

	ask(f, "chain.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_true(knot_wire_get_aa(f->r));
	assert_string_equal(section(f, KNOT_ANSWER),
			    "chain.lab.example. 30 CNAME alias.lab.example.\n"
			    "alias.lab.example. 30 CNAME www.lab.example.\n"
			    "www.lab.example. 10 A 198.19.1.1\n"
			    "www.lab.example. 10 A 198.19.2.1\n");
	/* the CNAME itself */
	ask(f, "alias.lab.example.", KNOT_RRTYPE_CNAME, NULL);
	assert_string_equal(section(f, KNOT_ANSWER),
			    "alias.lab.example. 30 CNAME www.lab.example.\n");
	/* to a name that does not exist: NXDOMAIN, with the CNAME */
	ask(f, "dangling.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NXDOMAIN);
	assert_string_equal(section(f, KNOT_ANSWER),
			    "dangling.lab.example. 30 CNAME nothere.lab.example.\n");
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
	/* out of the zone: the CNAME only, the resolver follows */
	ask(f, "ext.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_string_equal(section(f, KNOT_ANSWER),
			    "ext.lab.example. 30 CNAME www.example.com.\n");
	/* to a type the target lacks: NODATA after the chain */
	ask(f, "alias.lab.example.", KNOT_RRTYPE_MX, NULL);
	assert_string_equal(section(f, KNOT_ANSWER),
			    "alias.lab.example. 30 CNAME www.lab.example.\n");
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
	/* a loop ends */
	ask(f, "loop1.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_true(knot_wire_get_ancount(f->r) <= AUTHD_CNAME_CHAIN);
}

static void test_referral(void **state)
{
	struct fixture *f = *state;

	ask(f, "x.sub.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	assert_false(knot_wire_get_aa(f->r));
	assert_string_equal(section(f, KNOT_ANSWER), "");
	assert_string_equal(section(f, KNOT_AUTHORITY),
			    "sub.lab.example. 30 NS ns.sub.lab.example.\n");
	assert_string_equal(section(f, KNOT_ADDITIONAL), "ns.sub.lab.example. 30 A 198.18.5.53\n");
	/* the cut itself, and its glue's name */
	ask(f, "sub.lab.example.", KNOT_RRTYPE_NS, NULL);
	assert_false(knot_wire_get_aa(f->r));
	assert_int_equal(knot_wire_get_nscount(f->r), 1);
	ask(f, "ns.sub.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_false(knot_wire_get_aa(f->r));
	assert_int_equal(knot_wire_get_ancount(f->r), 0);
	/* DS is the parent's: authoritative NODATA */
	ask(f, "sub.lab.example.", KNOT_RRTYPE_DS, NULL);
	assert_true(knot_wire_get_aa(f->r));
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
	assert_int_equal(f->rc.stats.referrals, 3);
}

static void test_additional_and_any(void **state)
{
	struct fixture *f = *state;

	ask(f, "lab.example.", KNOT_RRTYPE_NS, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "lab.example. 30 NS ns1.lab.example.\n");
	assert_string_equal(section(f, KNOT_ADDITIONAL), "ns1.lab.example. 30 A 198.18.0.53\n");
	ask(f, "lab.example.", KNOT_RRTYPE_MX, NULL);
	assert_string_equal(section(f, KNOT_ADDITIONAL), "mail.lab.example. 30 A 198.18.0.25\n");
	ask(f, "lab.example.", KNOT_RRTYPE_ANY, NULL);
	assert_int_equal(knot_wire_get_ancount(f->r), 4); /* SOA NS MX TXT */
	ask(f, "www.lab.example.", KNOT_RRTYPE_ANY, NULL);
	assert_int_equal(knot_wire_get_ancount(f->r), 3); /* 2 A, 1 AAAA */
}

static void test_health_steers_answers(void **state)
{
	struct fixture *f = *state;
	struct health_report r = {.up = 0};
	struct authd_health_change c;

	ask(f, "fo.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "fo.lab.example. 30 A 198.19.1.1\n");
	strcpy(r.prober, "p1");
	strcpy(r.site, "a");
	assert_int_equal(authd_health_apply(&f->h, &r, &c), 0);
	ask(f, "fo.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "fo.lab.example. 30 A 198.19.2.1\n");
	ask(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "www.lab.example. 10 A 198.19.2.1\n");
	/* b has no AAAA and a is dead: fail-open gives a's AAAA */
	ask(f, "fo.lab.example.", KNOT_RRTYPE_AAAA, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "fo.lab.example. 30 AAAA 2001:db8:1::1\n");
	f->db->server.all_dead = AUTHD_FAIL_CLOSED;
	ask(f, "fo.lab.example.", KNOT_RRTYPE_AAAA, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), "");
	assert_string_equal(section(f, KNOT_AUTHORITY), "lab.example. 20 SOA soa min 20\n");
}

static void test_stats(void **state)
{
	struct fixture *f = *state;

	ask(f, "www.lab.example.", KNOT_RRTYPE_A, NULL);
	ask(f, "nope.lab.example.", KNOT_RRTYPE_A, NULL);
	ask(f, "example.com.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(f->rc.stats.queries, 3);
	assert_int_equal(f->rc.stats.responses, 3);
	assert_int_equal(f->rc.stats.rcode[KNOT_RCODE_NOERROR], 1);
	assert_int_equal(f->rc.stats.rcode[KNOT_RCODE_NXDOMAIN], 1);
	assert_int_equal(f->rc.stats.rcode[KNOT_RCODE_REFUSED], 1);
}

/* a tiered proximity name answers a CNAME to a tier, whatever the type:
 * the tiers in turn until its sites measure the querier, then the tier of
 * the closest healthy site */
static void test_proximity_tiers(void **state)
{
	struct fixture *f = *state;
	struct health_report r = {.proximity = 1, .up = 1};
	struct authd_health_change c;
	const char *us = "px.lab.example. 5 CNAME www.us.example.\n",
		   *eu = "px.lab.example. 5 CNAME www.eu.example.\n";
	char first[128];

	ask(f, "px.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_int_equal(rcode(f), KNOT_RCODE_NOERROR);
	snprintf(first, sizeof(first), "%s", section(f, KNOT_ANSWER));
	assert_true(strcmp(first, us) == 0 || strcmp(first, eu) == 0);
	ask(f, "px.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), strcmp(first, us) == 0 ? eu : us);
	/* b measures the querier (198.18.1.20) closer than a */
	strcpy(r.prober, "px-a");
	strcpy(r.site, "a");
	inet_pton(AF_INET, "198.18.1.20", &r.querier);
	r.rtt_us = 40000;
	assert_int_equal(authd_health_apply_prox(&f->h, &r, 1, &c), 0);
	strcpy(r.prober, "px-b");
	strcpy(r.site, "b");
	r.rtt_us = 900;
	assert_int_equal(authd_health_apply_prox(&f->h, &r, 1, &c), 0);
	for (int i = 0; i < 3; i++) {
		ask(f, "px.lab.example.", i == 2 ? KNOT_RRTYPE_AAAA : KNOT_RRTYPE_A, NULL);
		assert_string_equal(section(f, KNOT_ANSWER), eu);
	}
	/* b dies: a's tier, the only one with a live site */
	{
		struct health_report h = {.up = 0};

		strcpy(h.prober, "p1");
		strcpy(h.site, "b");
		assert_int_equal(authd_health_apply(&f->h, &h, &c), 0);
	}
	ask(f, "px.lab.example.", KNOT_RRTYPE_A, NULL);
	assert_string_equal(section(f, KNOT_ANSWER), us);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_answer_policy),
	    T(test_answer_keeps_query_case),
	    T(test_nxdomain),
	    T(test_nodata),
	    T(test_refused),
	    T(test_formerr),
	    T(test_not_answered),
	    T(test_notimp),
	    T(test_truncation),
	    T(test_truncation_cap),
	    T(test_edns),
	    T(test_edns_small_payload),
	    T(test_ecs),
	    T(test_ecs_malformed),
	    T(test_cname),
	    T(test_referral),
	    T(test_additional_and_any),
	    T(test_health_steers_answers),
	    T(test_proximity_tiers),
	    T(test_stats),
	};
#undef T

	return cmocka_run_group_tests_name("authd respond", tests, NULL, NULL);
}
