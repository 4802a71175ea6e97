/*
 * The client's command line (agents/client/opts.c): what a valid one sets,
 * the defaults, and each refusal's exact words and exit status, parsed in a
 * child since a refusal exits (test_child.h).
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agents/client/opts.h"
#include "test_child.h"
#include "timeutil.h"

#define TARGET "198.18.0.1:7000"

struct parse {
	char *argv[32];
	int argc;
	struct client_opts o;
};

static void parse_run(void *arg)
{
	struct parse *p = arg;

	client_parse(p->argc, p->argv, &p->o);
}

/* expect STATUS WANT ARG... NULL: the client given ARG... exits STATUS
 * (0: client_parse returned) and writes WANT to standard error */
static void expect(int status, const char *want, ...)
{
	struct parse p = {.argv = {"client"}, .argc = 1};
	va_list ap;
	char *a, *got;
	int st;

	va_start(ap, want);
	while ((a = va_arg(ap, char *)) != NULL)
		p.argv[p.argc++] = a;
	va_end(ap);
	got = test_child_stderr(parse_run, &p, &st);
	assert_true(WIFEXITED(st));
	assert_string_equal(got, want);
	assert_int_equal(WEXITSTATUS(st), status);
	free(got);
}

/* parse ARG... NULL: client_parse's result in this process */
static void parse(struct client_opts *o, ...)
{
	char *argv[32] = {"client"}, *a;
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	while ((a = va_arg(ap, char *)) != NULL)
		argv[argc++] = a;
	va_end(ap);
	client_parse(argc, argv, o);
}

static void test_one_client(void **state)
{
	struct client_opts o;

	(void)state;
	parse(&o, "-i", "7", "-t", TARGET, NULL);
	assert_int_equal(o.cfg.id, 7);
	assert_string_equal(o.target, TARGET);
	/* the defaults: 1,000 requests/s, 500 ms, the node's name, a seed of
	 * the id's, no population and nobody sticky */
	assert_true(o.cfg.rate == 1000);
	assert_int_equal(o.cfg.timeout_ns, 500 * NSEC_PER_MSEC);
	assert_string_equal(o.node, "client");
	assert_int_equal(o.seed, 8);
	assert_int_equal(o.population, 0);
	assert_true(o.sticky_share == 0);

	parse(&o, "-n", "c1", "-i", "3", "-t", TARGET, "-r", "2500.5", "-w", "200ms", "-d", "10s",
	      "-o", "r.csv", "-e", "c1.events.jsonl", "-v", NULL);
	assert_string_equal(o.node, "c1");
	assert_true(o.cfg.rate == 2500.5);
	assert_int_equal(o.cfg.timeout_ns, 200 * NSEC_PER_MSEC);
	assert_int_equal(o.cfg.duration_ns, 10 * NSEC_PER_SEC);
	assert_string_equal(o.csv, "r.csv");
	assert_string_equal(o.events, "c1.events.jsonl");
	assert_int_equal(o.verbose, 1);
}

static void test_population(void **state)
{
	struct client_opts o;
	char addr[INET_ADDRSTRLEN];

	(void)state;
	parse(&o, "-i", "1000", "-P", "10000", "-R", "198.18.128.1", "-R", "198.18.128.2:5353",
	      "-q", "www.lab.example", "-p", "7000", "-S", "30s", "-Q", "0.25", "-k", "zipf:1.5",
	      "-a", "poisson", "-W", "3,1", "-A", "198.18.64.0/18", "-s", "42", NULL);
	assert_int_equal(o.population, 10000);
	assert_int_equal(o.nresolvers, 2);
	assert_string_equal(inet_ntop(AF_INET, &o.resolvers[1].sin.sin_addr, addr, sizeof(addr)),
			    "198.18.128.2");
	assert_int_equal(ntohs(o.resolvers[1].sin.sin_port), 5353);
	assert_string_equal(o.name, "www.lab.example");
	assert_int_equal(o.port, 7000);
	assert_int_equal(o.sticky_ns, 30 * NSEC_PER_SEC);
	assert_true(o.sticky_share == 0.25);
	assert_int_equal(o.rates.skew, POP_ZIPF);
	assert_true(o.rates.exponent == 1.5);
	assert_int_equal(o.poisson, 1);
	assert_int_equal(o.nweights, 2);
	assert_true(o.weights[0] == 3 && o.weights[1] == 1);
	assert_int_equal(o.src_size, 1 << 14);
	assert_int_equal(o.src_net, 0xc6124000); /* 198.18.64.0 */
	assert_int_equal(o.seed, 42);
	/* a sticky time without a share: every one of them sticky */
	parse(&o, "-i", "1", "-R", "198.18.128.1", "-q", "www.lab.example", "-S", "5s", NULL);
	assert_true(o.sticky_share == 1);
}

/* each refusal's words, then the usage (but for the ids' overflow) */
static void test_refusals(void **state)
{
	(void)state;
	expect(1,
	       "client: -i ID and either -t ADDR:PORT or -R RESOLVER with -q NAME are "
	       "required\n" CLIENT_USAGE,
	       "-i", "1", NULL);
	expect(1,
	       "client: -i ID and either -t ADDR:PORT or -R RESOLVER with -q NAME are "
	       "required\n" CLIENT_USAGE,
	       "-t", TARGET, NULL);
	expect(1, "client: -r: expected a rate in requests per second, got '0'\n" CLIENT_USAGE,
	       "-i", "1", "-t", TARGET, "-r", "0", NULL);
	expect(1, "client: -r: expected a rate in requests per second, got '2e7'\n" CLIENT_USAGE,
	       "-i", "1", "-t", TARGET, "-r", "2e7", NULL);
	expect(1, "client: -W gives 2 weights for 0 resolvers (-R)\n" CLIENT_USAGE, "-i", "1", "-t",
	       TARGET, "-W", "1,2", NULL);
	expect(1, "client: -p and -S go with -R (DNS mode)\n" CLIENT_USAGE, "-i", "1", "-t", TARGET,
	       "-p", "53", NULL);
	expect(1,
	       "client: -k: expected equal, harmonic, zipf:S (0 < S <= 10) or list:W1,W2,..., got "
	       "'zipf:11'\n" CLIENT_USAGE,
	       "-i", "1", "-t", TARGET, "-k", "zipf:11", "-P", "10", NULL);
	expect(1, "client: several -R, -k, -a, -Q and -s go with -P (a population)\n" CLIENT_USAGE,
	       "-i", "1", "-t", TARGET, "-s", "5", NULL);
	expect(
	    1, "client: -Q goes with -S (how long the sticky ones keep an address)\n" CLIENT_USAGE,
	    "-i", "1", "-P", "2", "-R", "198.18.128.1", "-q", "www.lab.example", "-Q", "0.5", NULL);
	expect(1, "client: -i 4294967295 -P 2: the ids pass 4294967295\n", "-i", "4294967295", "-P",
	       "2", "-t", TARGET, NULL);
	expect(1,
	       "client: -A: expected an IPv4 NET/LEN (LEN 1 to 32, host bits zero), got "
	       "'198.18.64.1/18'\n" CLIENT_USAGE,
	       "-i", "1", "-P", "2", "-t", TARGET, "-A", "198.18.64.1/18", NULL);
	expect(0, "", "-i", "1", "-t", TARGET, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_client),
	    cmocka_unit_test(test_population),
	    cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests_name("client_opts", tests, NULL, NULL);
}
