/* The clients by address family; see clocks_family.h. */
#include "clocks_family.h"

#include <stdlib.h>
#include <sys/types.h>
#include <string.h>

#include "clocks_int.h"
#include "timeutil.h"
#include "wire.h"

static const char *const clocks_family_names[CLOCKS_FAMILIES] = {"4", "6", "dual"};

/* clocks_family_of: client c's family (client_started's), or -1 */
static int clocks_family_of(const struct clocks_client *c)
{
	for (int k = 0; k < CLOCKS_FAMILIES; k++)
		if (strcmp(c->family, clocks_family_names[k]) == 0)
			return k;
	return -1;
}

/* clocks_client_index: the index in in->clients of the agent that sent
 * client id's requests (a population's logical clients are its), or -1;
 * *last the previous answer (a file's records are one agent's: asked
 * once) */
static ssize_t clocks_client_index(const struct clocks_input *in, uint32_t id, ssize_t *last)
{
	uint32_t agent = wire_agent_of(id);

	if (*last >= 0 && in->clients[*last].id == agent)
		return *last;
	for (size_t i = 0; i < in->nclients; i++)
		if (in->clients[i].id == agent)
			return *last = (ssize_t)i;
	return -1;
}

/* clocks_family_users: the clients (users) agent i is: a population's
 * logical clients, else 1 */
static int64_t clocks_family_users(const struct clocks_input *in, size_t i)
{
	return in->clients[i].population > 0 ? in->clients[i].population : 1;
}

static int clocks_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int clocks_family(const struct clocks_input *in, struct clocks_family *f)
{
	int64_t t0 = in->failure.t0_ns, back = in->failure.recovered_ns, *rtt[CLOCKS_FAMILIES];
	size_t nrtt[CLOCKS_FAMILIES] = {0}, caprtt[CLOCKS_FAMILIES] = {0}, users = 0, *first;
	ssize_t last = -1, ci;
	int rc = 0;
	uint8_t *noticed;

	memset(f, 0, sizeof(*f));
	memset(rtt, 0, sizeof(rtt));
	for (size_t i = 0; i < in->nclients; i++) {
		int k = clocks_family_of(&in->clients[i]);

		if (k < 0)
			continue;
		f->present = 1;
		f->row[k].clients += (int)clocks_family_users(in, i);
		/* less those that lose a request after t0, below */
		f->row[k].unnoticed += (int)clocks_family_users(in, i);
	}
	if (!f->present || in->steady)
		return 0;
	/* a mark a user: agent i's from first[i] on */
	if ((first = calloc(in->nclients + 1, sizeof(*first))) == NULL)
		return -1;
	for (size_t i = 0; i < in->nclients; i++)
		first[i + 1] = users += (size_t)clocks_family_users(in, i);
	if ((noticed = calloc(users, sizeof(*noticed))) == NULL) {
		free(first);
		return -1;
	}
	for (size_t i = 0; i < in->nrequests; i++) {
		const struct clocks_request *q = &in->requests[i];
		size_t user;
		int k;

		if (q->sent_ns <= t0 || (back && q->sent_ns >= back) ||
		    (ci = clocks_client_index(in, q->client, &last)) < 0 ||
		    (k = clocks_family_of(&in->clients[ci])) < 0)
			continue;
		user = first[ci] +
		       (in->clients[ci].population > 0 ? (q->client & WIRE_POP_INDEX_MASK) : 0);
		f->row[k].sent++;
		if (q->status != CLOCKS_OK) {
			f->row[k].lost++;
			if (user < first[ci + 1] && !noticed[user]) {
				noticed[user] = 1;
				f->row[k].unnoticed--;
			}
		} else if (q->fell_back) {
			f->row[k].rescued++;
			if (clocks_grow((void **)&rtt[k], &caprtt[k], nrtt[k], sizeof(**rtt)) == -1)
				rc = -1;
			else
				rtt[k][nrtt[k]++] = q->rtt_ns;
		}
	}
	free(noticed);
	free(first);
	for (int k = 0; k < CLOCKS_FAMILIES; k++) {
		f->row[k].rescued_rtt_p50_ns = -1;
		if (nrtt[k] > 0) {
			qsort(rtt[k], nrtt[k], sizeof(**rtt), clocks_cmp_i64);
			f->row[k].rescued_rtt_p50_ns = rtt[k][nrtt[k] / 2];
		}
		free(rtt[k]);
	}
	return rc;
}

void clocks_family_print(FILE *out, const struct clocks_input *in)
{
	struct clocks_family f;

	if (clocks_family(in, &f) == -1 || !f.present || in->steady)
		return;
	fprintf(out, "\nfamilies: each address family's clients, their requests after t0, what "
		     "they lost, what Happy Eyeballs rescued over IPv4\n");
	fprintf(out, "%-7s %7s %13s %9s %9s %17s %15s\n", "family", "clients", "sent after t0",
		"lost", "rescued", "rescued rtt p50", "never noticed");
	for (int k = 0; k < CLOCKS_FAMILIES; k++) {
		const struct clocks_family_row *r = &f.row[k];
		char p50[32] = "-";

		if (r->clients == 0)
			continue;
		if (r->rescued_rtt_p50_ns >= 0)
			snprintf(p50, sizeof(p50), "%.3f s",
				 (double)r->rescued_rtt_p50_ns / NSEC_PER_SEC);
		fprintf(out, "%-7s %7d %13lld %9lld %9lld %17s %9d of %d\n", clocks_family_names[k],
			r->clients, (long long)r->sent, (long long)r->lost, (long long)r->rescued,
			p50, r->unnoticed, r->clients);
	}
}

json_t *clocks_family_json(const struct clocks_input *in)
{
	struct clocks_family f;
	json_t *a;

	if (clocks_family(in, &f) == -1 || !f.present || in->steady || (a = json_array()) == NULL)
		return NULL;
	for (int k = 0; k < CLOCKS_FAMILIES; k++) {
		const struct clocks_family_row *r = &f.row[k];

		if (r->clients == 0)
			continue;
		json_array_append_new(
		    a, json_pack("{s:s, s:i, s:I, s:I, s:I, s:o, s:i}", "family",
				 clocks_family_names[k], "clients", r->clients, "sent_after_t0",
				 (json_int_t)r->sent, "lost_after_t0", (json_int_t)r->lost,
				 "rescued", (json_int_t)r->rescued, "rescued_rtt_p50_s",
				 r->rescued_rtt_p50_ns >= 0
				     ? json_real((double)r->rescued_rtt_p50_ns / NSEC_PER_SEC)
				     : json_null(),
				 "unnoticed_clients", r->unnoticed));
	}
	return a;
}
