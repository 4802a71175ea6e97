/*
 * Weights that change (probes/clocks/clocks_shares.c) on inputs built by
 * hand (test_clocks_load.c reads authd's zone_changed): a canary's shares per second and per period
 * against its weights (a burst of changes one change, the TTL from a set-ttl), requests of another
 * name or scheme not counted, nothing without a set-weight, and the steering's target withdrawn for
 * a name whose weights moved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clocks.h"
#include "wire.h"

#define T0 1000000000000LL
#define S 1000000000LL
#define MS 1000000LL
#define USERS WIRE_DNS_CLIENT_ID(1)
#define OTHER WIRE_DNS_CLIENT_ID(2)

static struct clocks_capture caps[2];
static struct clocks_packet pk[2][512];
static struct clocks_client clients[2];
static struct clocks_zone_change zc[4];

static void add_packet(int site, uint32_t client, int64_t t)
{
	struct clocks_capture *c = &caps[site];

	assert_true(c->n < 512);
	pk[site][c->n].t_ns = t;
	pk[site][c->n].client = client;
	c->n++;
}

static void add_change(struct clocks_input *in, int64_t t, const char *what, const char *site,
		       int64_t after)
{
	struct clocks_zone_change *z = &zc[in->nzchanges++];

	memset(z, 0, sizeof(*z));
	z->t_ns = t;
	snprintf(z->name, sizeof(z->name), "w.lab.example.");
	snprintf(z->what, sizeof(z->what), "%s", what);
	snprintf(z->site, sizeof(z->site), "%s", site);
	z->after = after;
}

/*
 * A steady run of 20 s: w.lab.example weighted a 90, b 10, TTL 5, asked by
 * node users; other asks x.lab.example. Each second users sends 10
 * requests: 9 to a, 1 to b for 10 s; then the caches move within a
 * second: 7/3 in second 10, 5/5 from 11 s on. At 1 s the TTL goes to 1 s;
 * at 10 s a goes to 50, b to 50 a microsecond later (one change). other's
 * 3 requests a second all at b are not w's.
 */
static void build(struct clocks_input *in)
{
	struct clocks_topo_name *n;

	clocks_input_init(in);
	memset(caps, 0, sizeof(caps));
	snprintf(in->lab, sizeof(in->lab), "t");
	in->steady = 1;
	in->traffic_start_ns = T0;
	in->traffic_duration_ns = 20 * S;
	in->failure.t0_ns = T0 + 20 * S;
	for (int s = 0; s < 2; s++) {
		snprintf(caps[s].label, sizeof(caps[s].label), "%c", 'a' + s);
		caps[s].packets = pk[s];
	}
	for (int sec = 0; sec < 20; sec++) {
		int to_a = sec < 10 ? 9 : sec == 10 ? 7 : 5;

		for (int i = 0; i < 10; i++)
			add_packet(i < to_a ? 0 : 1, USERS, T0 + sec * S + i * 50 * MS);
		for (int i = 0; i < 3; i++)
			add_packet(1, OTHER, T0 + sec * S + 600 * MS + i * MS);
	}
	in->captures = caps;
	in->ncaptures = 2;
	memset(clients, 0, sizeof(clients));
	snprintf(clients[0].node, sizeof(clients[0].node), "users");
	clients[0].id = USERS;
	snprintf(clients[1].node, sizeof(clients[1].node), "other");
	clients[1].id = OTHER;
	in->clients = clients;
	in->nclients = 2;
	in->dnstopo.nnames = 2;
	n = &in->dnstopo.names[0];
	snprintf(n->name, sizeof(n->name), "w.lab.example");
	snprintf(n->policy, sizeof(n->policy), "weighted");
	n->ttl_s = 5;
	n->nweights = 2;
	snprintf(n->wsite[0], sizeof(n->wsite[0]), "a");
	n->weight[0] = 90;
	snprintf(n->wsite[1], sizeof(n->wsite[1]), "b");
	n->weight[1] = 10;
	n = &in->dnstopo.names[1];
	snprintf(n->name, sizeof(n->name), "x.lab.example");
	snprintf(n->policy, sizeof(n->policy), "simple");
	in->dnstopo.nclients = 2;
	snprintf(in->dnstopo.clients[0].name, CLOCKS_NAME_MAX, "users");
	snprintf(in->dnstopo.clients[0].dns_name, CLOCKS_DNS_NAME_MAX, "w.lab.example");
	snprintf(in->dnstopo.clients[1].name, CLOCKS_NAME_MAX, "other");
	snprintf(in->dnstopo.clients[1].dns_name, CLOCKS_DNS_NAME_MAX, "x.lab.example");
	in->zchanges = zc;
	add_change(in, T0 + 1 * S, "set-ttl", "", 1);
	add_change(in, T0 + 10 * S, "set-weight", "a", 50);
	add_change(in, T0 + 10 * S + 1000, "set-weight", "b", 50);
}

static void test_shares(void **state)
{
	struct clocks_input in;
	struct clocks_shares s;
	const struct clocks_shares_name *n;
	const struct clocks_shares_period *p;

	(void)state;
	build(&in);
	assert_int_equal(clocks_shares(&in, &s), 1);
	assert_int_equal(s.nnames, 1);
	assert_int_equal(s.nbuckets, 20); /* to the last capture */
	n = &s.names[0];
	assert_string_equal(n->name, "w.lab.example");
	assert_int_equal(n->nsites, 2);
	/* second 0: 9 and 1 of 10, weights 90/10; second 12: 5/5, 50/50 */
	assert_int_equal(n->total[0], 10);
	assert_int_equal(n->count[0], 9);
	assert_int_equal(n->count[1], 1);
	assert_true(fabs(n->weight[0] - 0.9) < 1e-12);
	assert_true(fabs(n->weight[12 * 2 + 1] - 0.5) < 1e-12);
	assert_int_equal(n->count[12 * 2], 5);
	/* the burst at 10 s is one change: two periods */
	assert_int_equal(n->nperiods, 2);
	p = &n->periods[0];
	assert_int_equal(p->from_ns, T0);
	assert_int_equal(p->until_ns, T0 + 10 * S);
	assert_int_equal(p->n, 100);
	assert_true(fabs(p->share[0] - 0.9) < 1e-12);
	assert_true(fabs(p->deviation) < 1e-12);
	assert_int_equal(p->ttl_s, 5); /* from its start: the set-ttl came at 1 s */
	assert_int_equal(p->settled_n, 50);
	p = &n->periods[1];
	assert_int_equal(p->from_ns, T0 + 10 * S);
	assert_int_equal(p->ttl_s, 1);
	assert_true(fabs(p->weight[0] - 0.5) < 1e-12 && fabs(p->weight[1] - 0.5) < 1e-12);
	/* second 10 had 7/3: the whole period's shares carry it, one TTL on not */
	assert_int_equal(p->n, 100);
	assert_true(fabs(p->share[0] - 0.52) < 1e-12);
	assert_true(fabs(p->deviation - 0.02) < 1e-12);
	assert_int_equal(p->settled_n, 90);
	assert_true(fabs(p->settled[0] - 0.5) < 1e-12);
	assert_true(fabs(p->settled_deviation) < 1e-12);
	clocks_shares_free(&s);

	/* the steering's target: none for a name whose weights moved */
	clocks_steering_prepare(&in, NULL);
	assert_non_null(in.steering);
	for (int i = 0; i < in.steering->nrows; i++)
		if (strcmp(in.steering->rows[i].group, "users") == 0) {
			assert_false(in.steering->rows[i].has_target);
			assert_non_null(strstr(in.steering->rows[i].target_from,
					       "its weights changed in the period"));
		}
	free(in.steering);
	in.steering = NULL;

	/* a set-ttl alone moves no weight: nothing */
	in.nzchanges = 1;
	assert_int_equal(clocks_shares(&in, &s), 0);
}

/* the table and clocks.json's object */
static void test_shares_writers(void **state)
{
	struct clocks_input in;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	json_t *o, *p;

	(void)state;
	build(&in);
	clocks_shares_prepare(&in);
	assert_non_null(in.shares);
	f = open_memstream(&text, &len);
	clocks_shares_print(f, &in);
	fclose(f);
	assert_non_null(strstr(text,
			       "w.lab.example        a/b          0.000   10.000  90.0/10.0   "
			       "       100  90.0/10.0        0.000     5     5.000  90.0/10.0  "
			       "      0.000\n"));
	assert_non_null(strstr(text,
			       "w.lab.example        a/b         10.000   20.000  50.0/50.0   "
			       "       100  52.0/48.0        0.020     1    11.000  50.0/50.0  "
			       "      0.000\n"));
	free(text);
	o = clocks_shares_json(&in);
	assert_non_null(o);
	p = json_object_get(json_object_get(json_object_get(o, "names"), "w.lab.example"),
			    "periods");
	assert_int_equal(json_array_size(p), 2);
	p = json_array_get(p, 1);
	assert_true(fabs(json_real_value(json_object_get(p, "from_s")) - 10) < 1e-9);
	assert_int_equal(json_integer_value(json_object_get(p, "settled_requests")), 90);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(p, "weights"), "b")) -
			 0.5) < 1e-12);
	json_decref(o);
	clocks_shares_free(in.shares);
	free(in.shares);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shares),
	    cmocka_unit_test(test_shares_writers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
