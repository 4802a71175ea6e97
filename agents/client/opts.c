/* The client's command line; see opts.h. */
#include "opts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "addr.h"
#include "opt.h"
#include "strtonum.h"
#include "timeutil.h"
#include "wire.h"

static void client_usage(FILE *fp)
{
	fprintf(fp,
		CLIENT_USAGE
		"  -i ID        client id carried in every request (0-4294967295)\n"
		"  -t ADDR:PORT target of the requests (port default %d): anycast mode\n"
		"  -R RESOLVER  DNS mode: ask this resolver (port default 53) for NAME and\n"
		"               send the requests to the answer; ask again when its TTL ends\n"
		"               (a population may list up to %d: client j asks the (j mod k)th)\n"
		"  -q NAME      DNS mode: the service name (an A record)\n"
		"  -p PORT      DNS mode: the requests' port (default %d)\n"
		"  -S STICKY    DNS mode: keep each address this long whatever the TTL\n"
		"  -P N         a population of N logical clients (1-%d), ids ID to ID+N-1\n"
		"  -k SKEW      their shares of RATE: equal (default), harmonic, zipf:S,\n"
		"               list:W1,W2,... (client j weighs W[j mod k])\n"
		"  -a ARRIVALS  paced (default: even gaps, spread phases) or poisson\n"
		"  -Q SHARE     with -S: this share of the population is sticky (default 1)\n"
		"  -s SEED      seed of the Poisson arrivals (default: the id + 1)\n"
		"  -A NET/LEN   client j sends from NET + (j mod 2^(32-LEN)) (local addresses)\n"
		"  -W W1,W2,... the resolvers' weights, one per -R: client j asks one at\n"
		"               random in these proportions (default: in turn)\n"
		"  -r RATE      requests per second (default 1000)\n"
		"  -w TIMEOUT   a request unanswered this long is lost (default 500ms)\n"
		"  -d DURATION  stop sending after this long (default: at SIGTERM)\n"
		"  -o CSV       per-request records (default requests-NODE.csv, unless -B)\n"
		"  -B BIN       the same as binary records (docs/agents.md); with -o, both\n"
		"  -n NODE      lab node, written into every event (default: client)\n"
		"  -e FILE      JSON Lines event file (default: standard output)\n"
		"  -v           debug logging\n"
		"  -h           this help\n"
		"Durations take a unit: 500ms, 1.5s, 250us, 2m (no unit: seconds).\n",
		WIRE_PORT_DEFAULT, POP_MAX_RESOLVERS, WIRE_PORT_DEFAULT, POP_MAX);
}

static void client_bad(const char *flag, const char *what, const char *arg)
{
	opt_bad("client", CLIENT_USAGE, flag, what, arg);
}

/* client_weights: "W1,W2,..." (each a number > 0). 0 or -1. */
static int client_weights(const char *s, double *w, int *n)
{
	char *end;

	for (*n = 0;; s = end + 1) {
		if (*n == POP_MAX_RESOLVERS)
			return -1;
		errno = 0;
		w[*n] = strtod(s, &end);
		if (errno || end == s || !isfinite(w[*n]) || w[*n] <= 0 || (*end && *end != ','))
			return -1;
		(*n)++;
		if (*end == '\0')
			return 0;
	}
}

/* client_block: "A.B.C.D/LEN" into its first address and size (host
 * order). 0 or -1. */
static int client_block(const char *s, uint32_t *net, uint32_t *size)
{
	char host[INET_ADDRSTRLEN];
	const char *slash = strchr(s, '/');
	const char *errstr;
	struct in_addr a;
	long long len;
	uint32_t mask;

	if (slash == NULL || (size_t)(slash - s) >= sizeof(host))
		return -1;
	memcpy(host, s, (size_t)(slash - s));
	host[slash - s] = '\0';
	len = strtonum(slash + 1, 1, 32, &errstr);
	if (errstr || inet_pton(AF_INET, host, &a) != 1)
		return -1;
	mask = len == 32 ? 0xFFFFFFFFu : ~(0xFFFFFFFFu >> len);
	if ((ntohl(a.s_addr) & ~mask) != 0)
		return -1;
	*net = ntohl(a.s_addr);
	*size = len == 32 ? 1 : 1u << (32 - len);
	return 0;
}

void client_parse(int argc, char **argv, struct client_opts *o)
{
	unsigned long long v;
	char *end;
	const char *errstr;
	int ch;

	memset(o, 0, sizeof(*o));
	o->node = "client";
	o->cfg.rate = 1000;
	o->cfg.timeout_ns = 500 * NSEC_PER_MSEC;
	o->port = 0;
	o->sticky_share = -1;
	opterr = 0;
	while ((ch = getopt(argc, argv, ":n:e:i:t:R:q:p:S:P:k:a:Q:s:A:W:r:w:d:o:B:vh")) != -1) {
		switch (ch) {
		case 'n':
			o->node = optarg;
			break;
		case 'e':
			o->events = optarg;
			break;
		case 'i':
			v = strtonum(optarg, 0, UINT32_MAX, &errstr);
			if (errstr)
				client_bad("-i", "a client id (0-4294967295)", optarg);
			o->cfg.id = (uint32_t)v;
			o->has_id = 1;
			break;
		case 't':
			if (parse_addr_port(optarg, WIRE_PORT_DEFAULT, &o->cfg.target) == -1)
				client_bad("-t", "an IPv4 ADDR:PORT", optarg);
			o->target = optarg;
			break;
		case 'R':
			if (parse_addr_port(optarg, 53, &o->resolver_sin) == -1)
				client_bad("-R", "an IPv4 RESOLVER[:PORT]", optarg);
			if (o->nresolvers == POP_MAX_RESOLVERS)
				client_bad("-R", "at most 250 resolvers", optarg);
			o->resolvers[o->nresolvers++] = o->resolver_sin;
			o->resolver = optarg;
			break;
		case 'P':
			v = strtonum(optarg, 1, POP_MAX, &errstr);
			if (errstr)
				client_bad("-P", "a number of logical clients (1-131072)", optarg);
			o->population = (uint32_t)v;
			break;
		case 'k':
			if (pop_rates_parse(optarg, &o->rates) == -1)
				client_bad(
				    "-k", "equal, harmonic, zipf:S (0 < S <= 10) or list:W1,W2,...",
				    optarg);
			break;
		case 'a':
			if (strcmp(optarg, "paced") == 0)
				o->poisson = 0;
			else if (strcmp(optarg, "poisson") == 0)
				o->poisson = 1;
			else
				client_bad("-a", "paced or poisson", optarg);
			break;
		case 'Q':
			errno = 0;
			o->sticky_share = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->sticky_share >= 0) ||
			    o->sticky_share > 1)
				client_bad("-Q", "a share from 0 to 1", optarg);
			break;
		case 'W':
			if (client_weights(optarg, o->weights, &o->nweights) == -1)
				client_bad("-W", "weights W1,W2,... (each > 0, at most 250)",
					   optarg);
			break;
		case 'A':
			if (client_block(optarg, &o->src_net, &o->src_size) == -1)
				client_bad("-A", "an IPv4 NET/LEN (LEN 1 to 32, host bits zero)",
					   optarg);
			break;
		case 's':
			v = strtonum(optarg, 0, LLONG_MAX, &errstr);
			if (errstr)
				client_bad("-s", "a seed (a number)", optarg);
			o->seed = v;
			break;
		case 'q':
			o->name = optarg;
			break;
		case 'p':
			v = strtonum(optarg, 1, 65535, &errstr);
			if (errstr)
				client_bad("-p", "a port (1-65535)", optarg);
			o->port = (uint16_t)v;
			break;
		case 'S':
			if (parse_duration_ns(optarg, &o->sticky_ns) == -1)
				client_bad("-S", "a duration such as 60s", optarg);
			break;
		case 'r':
			errno = 0;
			o->cfg.rate = strtod(optarg, &end);
			if (errno || end == optarg || *end || !isfinite(o->cfg.rate) ||
			    o->cfg.rate <= 0 || o->cfg.rate > CLIENT_RATE_MAX)
				client_bad("-r", "a rate in requests per second", optarg);
			break;
		case 'w':
			if (parse_duration_ns(optarg, &o->cfg.timeout_ns) == -1 ||
			    o->cfg.timeout_ns == 0)
				client_bad("-w", "a timeout such as 500ms", optarg);
			break;
		case 'd':
			if (parse_duration_ns(optarg, &o->cfg.duration_ns) == -1 ||
			    o->cfg.duration_ns == 0)
				client_bad("-d", "a duration such as 10s", optarg);
			break;
		case 'o':
			o->csv = optarg;
			break;
		case 'B':
			o->bin = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			client_usage(stdout);
			exit(0);
		default:
			opt_fail("client", CLIENT_USAGE, ch);
		}
	}
	opt_no_operands("client", CLIENT_USAGE, argc, argv);
	if (!o->has_id || (o->target == NULL) == (o->resolver == NULL) ||
	    (o->resolver != NULL) != (o->name != NULL)) {
		fprintf(stderr, "client: -i ID and either -t ADDR:PORT or -R RESOLVER with -q NAME "
				"are required\n" CLIENT_USAGE);
		exit(1);
	}
	if (o->resolver == NULL && (o->port || o->sticky_ns)) {
		fprintf(stderr, "client: -p and -S go with -R (DNS mode)\n" CLIENT_USAGE);
		exit(1);
	}
	if (o->population == 0 && (o->nresolvers > 1 || o->sticky_share >= 0 ||
				   o->rates.skew != POP_EQUAL || o->poisson || o->seed)) {
		fprintf(stderr, "client: several -R, -k, -a, -Q and -s go with -P (a "
				"population)\n" CLIENT_USAGE);
		exit(1);
	}
	if (o->nweights && o->nweights != o->nresolvers) {
		fprintf(stderr, "client: -W gives %d weights for %d resolvers (-R)\n" CLIENT_USAGE,
			o->nweights, o->nresolvers);
		exit(1);
	}
	if (o->sticky_share >= 0 && o->sticky_ns == 0) {
		fprintf(stderr, "client: -Q goes with -S (how long the sticky ones keep an "
				"address)\n" CLIENT_USAGE);
		exit(1);
	}
	if (o->population && (uint64_t)o->cfg.id + o->population - 1 > UINT32_MAX) {
		fprintf(stderr, "client: -i %u -P %u: the ids pass 4294967295\n", o->cfg.id,
			o->population);
		exit(1);
	}
	if (o->sticky_share < 0)
		o->sticky_share = o->sticky_ns > 0 ? 1 : 0;
	if (o->seed == 0)
		o->seed = o->cfg.id + 1;
}
