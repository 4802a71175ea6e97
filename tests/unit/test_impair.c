/*
 * lib/impair: the keys as a topology writes them and the exact text of
 * their errors; the distribution tables against iproute2's .dist files;
 * the draws' moments from a fixed seed; and the netem request libnl
 * encodes (which this kernel could not apply).
 */
#include <linux/pkt_sched.h>
#include <math.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/tc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "impair.h"

/* parse_err: the error text of key = value, "" if it parsed */
static const char *parse_err(struct impair *im, const char *key, const char *value)
{
	static char buf[512];
	const char *what;

	buf[0] = '\0';
	if (impair_parse(im, key, value, &what) == -1)
		impair_error(buf, sizeof(buf), key, value, what);
	return buf;
}

static void test_impair_parse(void **state)
{
	struct impair im = {0};
	char buf[256];

	(void)state;
	assert_string_equal(parse_err(&im, "delay", "15ms"), "");
	assert_int_equal(im.delay_ns, 15000000);
	assert_string_equal(parse_err(&im, "jitter", "2ms normal"), "");
	assert_int_equal(im.jitter_ns, 2000000);
	assert_int_equal(im.dist, IMPAIR_DIST_NORMAL);
	assert_string_equal(parse_err(&im, "loss", "1%"), "");
	assert_true(im.loss_pct == 1.0 && im.loss_corr_pct == 0);
	assert_string_equal(parse_err(&im, "loss", " 0.5%   25% "), "");
	assert_true(im.loss_pct == 0.5 && im.loss_corr_pct == 25.0);
	assert_string_equal(parse_err(&im, "rate", "100mbit"), "");
	assert_int_equal(im.rate_bps, 100000000);
	impair_format(&im, buf, sizeof(buf));
	assert_string_equal(buf, "delay 15ms jitter 2ms normal loss 0.5% 25% rate 100mbit");
	assert_string_equal(parse_err(&im, "rate", "1.5MBps"), "");
	assert_int_equal(im.rate_bps, 12000000);
	assert_string_equal(parse_err(&im, "jitter", "500us"), "");
	assert_int_equal(im.dist, IMPAIR_DIST_UNIFORM);
	assert_string_equal(parse_err(&im, "jitter", "1ms paretonormal"), "");
	assert_int_equal(im.dist, IMPAIR_DIST_PARETONORMAL);
	assert_string_equal(parse_err(&im, "reorder", "25% 50%"), "");
	assert_string_equal(parse_err(&im, "duplicate", "1%"), "");
	impair_format(&im, buf, sizeof(buf));
	assert_string_equal(buf, "delay 15ms jitter 1ms paretonormal loss 0.5% 25% duplicate 1% "
				 "reorder 25% 50% rate 12mbit");
	memset(&im, 0, sizeof(im));
	impair_format(&im, buf, sizeof(buf));
	assert_string_equal(buf, "none");
}

static void test_impair_parse_errors(void **state)
{
	struct impair im = {.delay_ns = 7};

	(void)state;
	assert_string_equal(parse_err(&im, "delay", "15"), "");
	assert_string_equal(parse_err(&im, "delay", "15ms 2ms"),
			    "delay: expected a duration such as 15ms, got '15ms 2ms'");
	assert_string_equal(parse_err(&im, "delay", "-1ms"),
			    "delay: expected a duration such as 15ms, got '-1ms'");
	assert_string_equal(parse_err(&im, "jitter", "2ms gaussian"),
			    "jitter: expected a duration such as 2ms and an optional distribution "
			    "(uniform, normal, pareto or paretonormal), got '2ms gaussian'");
	assert_string_equal(parse_err(&im, "jitter", "3s"),
			    "jitter: expected a duration such as 2ms and an optional distribution "
			    "(uniform, normal, pareto or paretonormal), got '3s'");
	assert_string_equal(parse_err(&im, "loss", "1"),
			    "loss: expected a percentage such as 1% and an optional correlation "
			    "such as 25%, got '1'");
	assert_string_equal(parse_err(&im, "loss", "101%"),
			    "loss: expected a percentage such as 1% and an optional correlation "
			    "such as 25%, got '101%'");
	assert_string_equal(parse_err(&im, "loss", "1% 2% 3%"),
			    "loss: expected a percentage such as 1% and an optional correlation "
			    "such as 25%, got '1% 2% 3%'");
	assert_string_equal(parse_err(&im, "rate", "100"),
			    "rate: expected a rate such as 100mbit (bit, kbit, mbit, gbit, tbit; "
			    "bps, kbps, mbps, gbps, tbps are bytes per second), got '100'");
	assert_string_equal(parse_err(&im, "rate", "0mbit"),
			    "rate: expected a rate such as 100mbit (bit, kbit, mbit, gbit, tbit; "
			    "bps, kbps, mbps, gbps, tbps are bytes per second), got '0mbit'");
	assert_string_equal(parse_err(&im, "latency", "1ms"),
			    "unknown impairment 'latency' (expected delay, jitter, loss, rate, "
			    "duplicate or reorder)");
	/* a failed parse leaves the impairment as it was */
	assert_int_equal(im.delay_ns, 15000000000LL);
}

/* impair_file_read: an interface's lines of the file steerlab impair
 * writes and linkd reads on SIGHUP, from zero; "none"; not named, or no
 * file: not found; a bad line named with its line and what was expected */
static void test_impair_file_read(void **state)
{
	char path[] = "/tmp/test_impair_file.XXXXXX", err[256];
	struct impair im = {.delay_ns = 7};
	int fd = mkstemp(path), found;
	FILE *fp;

	(void)state;
	assert_true(fd >= 0);
	assert_non_null(fp = fdopen(fd, "w"));
	fputs("eth0 delay 40ms\neth0 loss 1% 25%\nc1 none\neth0 jitter 2ms normal\n", fp);
	fclose(fp);
	assert_int_equal(impair_file_read(path, "eth0", &im, &found, err, sizeof(err)), 0);
	assert_int_equal(found, 1);
	assert_int_equal(im.delay_ns, 40000000);
	assert_int_equal(im.jitter_ns, 2000000);
	assert_int_equal(im.dist, IMPAIR_DIST_NORMAL);
	assert_true(im.loss_pct == 1 && im.loss_corr_pct == 25);
	assert_int_equal(impair_file_read(path, "c1", &im, &found, err, sizeof(err)), 0);
	assert_int_equal(found, 1);
	assert_int_equal(im.delay_ns, 0);
	im.delay_ns = 7;
	assert_int_equal(impair_file_read(path, "eth1", &im, &found, err, sizeof(err)), 0);
	assert_int_equal(found, 0);
	assert_int_equal(im.delay_ns, 7);
	assert_non_null(fp = fopen(path, "a"));
	fputs("eth0 delay soon\n", fp);
	fclose(fp);
	assert_int_equal(impair_file_read(path, "eth0", &im, &found, err, sizeof(err)), -1);
	assert_int_equal(im.delay_ns, 7);
	assert_non_null(strstr(err, ":5: delay: expected a duration such as 15ms, got 'soon'"));
	assert_non_null(fp = fopen(path, "w"));
	fputs("eth0 delay\n", fp);
	fclose(fp);
	assert_int_equal(impair_file_read(path, "eth0", &im, &found, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":1: expected IFNAME KEY VALUE or IFNAME none"));
	unlink(path);
	assert_int_equal(impair_file_read(path, "eth0", &im, &found, err, sizeof(err)), 0);
	assert_int_equal(found, 0);
}

static void test_impair_check(void **state)
{
	struct impair im = {.duplicate_pct = 1};
	char buf[256];

	(void)state;
	assert_int_equal(impair_check(&im, IMPAIR_MECH_NETEM, buf, sizeof(buf)), 0);
	assert_int_equal(impair_check(&im, IMPAIR_MECH_DELAYLINE, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "duplicate: the delay line (linkd) cannot duplicate packets; "
				 "only netem can");
	im = (struct impair){.reorder_pct = 5};
	assert_int_equal(impair_check(&im, IMPAIR_MECH_NETEM, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "reorder: needs a delay (packets are reordered by sending some "
				 "at once, ahead of the delayed ones)");
	assert_string_equal(impair_mech_name(IMPAIR_MECH_DELAYLINE), "delayline");
	assert_string_equal(impair_mech_name(IMPAIR_MECH_NETEM), "netem");
}

/* read_dist: an iproute2 .dist file's numbers; 0 if there is no file */
static size_t read_dist(const char *name, int16_t *v, size_t max)
{
	const char *dirs[] = {"/usr/lib/x86_64-linux-gnu/tc", "/usr/lib/tc", "/usr/lib64/tc"};
	char path[256], line[1024];
	size_t n = 0;
	FILE *fp = NULL;

	for (size_t i = 0; i < 3 && fp == NULL; i++) {
		snprintf(path, sizeof(path), "%s/%s.dist", dirs[i], name);
		fp = fopen(path, "r");
	}
	if (fp == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp)) {
		char *p = line, *end;

		if (line[0] == '#')
			continue;
		for (long x = strtol(p, &end, 10); end != p && n < max; x = strtol(p, &end, 10)) {
			v[n++] = (int16_t)x;
			p = end;
		}
	}
	fclose(fp);
	return n;
}

/* the tables are iproute2's, entry for entry (where iproute2 is installed:
 * it is in the Makefile's DEB_PKGS) */
static void test_impair_tables(void **state)
{
	static int16_t file[IMPAIR_DIST_LEN + 1];
	const enum impair_dist d[] = {IMPAIR_DIST_NORMAL, IMPAIR_DIST_PARETO,
				      IMPAIR_DIST_PARETONORMAL};

	(void)state;
	assert_null(impair_dist_table(IMPAIR_DIST_UNIFORM));
	for (size_t i = 0; i < 3; i++) {
		const int16_t *t = impair_dist_table(d[i]);
		size_t n = read_dist(impair_dist_name(d[i]), file, IMPAIR_DIST_LEN + 1);
		size_t differ = 0;

		assert_non_null(t);
		if (n == 0) {
			print_message("no %s.dist from iproute2: not compared\n",
				      impair_dist_name(d[i]));
			continue;
		}
		assert_int_equal(n, IMPAIR_DIST_LEN);
		for (size_t k = 0; k < n; k++)
			differ += t[k] != file[k];
		if (differ)
			print_message("%s: %zu entries differ from iproute2's\n",
				      impair_dist_name(d[i]), differ);
		assert_int_equal(differ, 0);
	}
}

/* moments: mean and standard deviation of n delay draws, in ns */
static void moments(const struct impair *im, int n, double *mean, double *sd)
{
	struct impair_sampler s;
	double sum = 0, sq = 0;

	impair_sampler_init(&s, im, 42);
	for (int i = 0; i < n; i++) {
		double x = (double)impair_sample_delay_ns(&s);

		sum += x;
		sq += x * x;
	}
	*mean = sum / n;
	*sd = sqrt(sq / n - *mean * *mean);
}

/* table_moments: the mean and sd of a table, in sigmas */
static void table_moments(const int16_t *t, double *mean, double *sd)
{
	double sum = 0, sq = 0;

	for (int i = 0; i < IMPAIR_DIST_LEN; i++) {
		sum += t[i];
		sq += (double)t[i] * t[i];
	}
	*mean = sum / IMPAIR_DIST_LEN / IMPAIR_DIST_SCALE;
	*sd = sqrt(sq / IMPAIR_DIST_LEN / IMPAIR_DIST_SCALE / IMPAIR_DIST_SCALE - *mean * *mean);
}

static void test_impair_sample_delay(void **state)
{
	struct impair im = {.delay_ns = 10000000, .jitter_ns = 1000000};
	double mean, sd, tm, tsd;
	const int n = 400000;

	(void)state;
	/* uniform on [delay - jitter, delay + jitter): sd = jitter / sqrt(3) */
	moments(&im, n, &mean, &sd);
	assert_true(fabs(mean - 1e7) < 3e3);
	assert_true(fabs(sd - 1e6 / sqrt(3)) < 0.01 * 1e6 / sqrt(3));
	/* the normal table is one sigma wide */
	im.dist = IMPAIR_DIST_NORMAL;
	table_moments(impair_dist_table(IMPAIR_DIST_NORMAL), &tm, &tsd);
	assert_true(fabs(tm) < 0.001 && fabs(tsd - 1.0) < 0.01);
	moments(&im, n, &mean, &sd);
	assert_true(fabs(mean - 1e7) < 5e3);
	assert_true(fabs(sd - 1e6) < 0.01 * 1e6);
	/* pareto and paretonormal: the draws have the table's moments */
	for (enum impair_dist d = IMPAIR_DIST_PARETO; d <= IMPAIR_DIST_PARETONORMAL; d++) {
		im.dist = d;
		table_moments(impair_dist_table(d), &tm, &tsd);
		moments(&im, n, &mean, &sd);
		assert_true(fabs(mean - (1e7 + tm * 1e6)) < 1e4);
		assert_true(fabs(sd - tsd * 1e6) < 0.02 * tsd * 1e6);
	}
	/* no jitter: the delay, exactly; jitter wider than the delay: never < 0 */
	im = (struct impair){.delay_ns = 15000000};
	moments(&im, 1000, &mean, &sd);
	assert_true(mean == 15e6 && sd == 0);
	im = (struct impair){.delay_ns = 1000, .jitter_ns = 1000000};
	{
		struct impair_sampler s;

		impair_sampler_init(&s, &im, 7);
		for (int i = 0; i < 10000; i++)
			assert_true(impair_sample_delay_ns(&s) >= 0);
	}
}

/* loss: the configured rate, with and without correlation (a two-state
 * chain whose rate stays the configured one), and runs longer when
 * correlated: 1 / (1 - (rho + (1 - rho) p)) */
static void test_impair_sample_loss(void **state)
{
	const double corr[] = {0, 25, 75};
	const int n = 1000000;

	(void)state;
	for (int c = 0; c < 3; c++) {
		struct impair im = {.loss_pct = 5, .loss_corr_pct = corr[c]};
		struct impair_sampler s;
		int lost = 0, prev = 0, starts = 0;
		double rho = corr[c] / 100, run, want_run = 1 / (1 - (rho + (1 - rho) * 0.05));
		/* the chain's variance is (1 + rho) / (1 - rho) times the binomial's */
		double tol = 2.576 * sqrt(0.05 * 0.95 / n * (1 + rho) / (1 - rho));

		impair_sampler_init(&s, &im, 1);
		for (int i = 0; i < n; i++) {
			int l = impair_sample_loss(&s);

			lost += l;
			starts += l && !prev;
			prev = l;
		}
		run = (double)lost / starts;
		print_message("loss 5%% corr %g%%: %.3f%% lost (+-%.3f), mean run %.3f (%.3f)\n",
			      corr[c], 100.0 * lost / n, 100 * tol, run, want_run);
		assert_true(fabs((double)lost / n - 0.05) < tol);
		assert_true(fabs(run - want_run) < 0.03 * want_run);
	}
	{
		struct impair im = {.loss_pct = 0, .loss_corr_pct = 50};
		struct impair_sampler s;

		impair_sampler_init(&s, &im, 1);
		for (int i = 0; i < 10000; i++)
			assert_int_equal(impair_sample_loss(&s), 0);
		im.loss_pct = 100;
		im.loss_corr_pct = 0;
		impair_sampler_init(&s, &im, 1);
		for (int i = 0; i < 10000; i++)
			assert_int_equal(impair_sample_loss(&s), 1);
	}
}

/* msg_attrs: the tcmsg's attributes of the netlink message at h */
static void msg_attrs(struct nlmsghdr *h, struct nlattr **tb)
{
	assert_int_equal(h->nlmsg_type, RTM_NEWQDISC);
	assert_int_equal(h->nlmsg_flags & (NLM_F_CREATE | NLM_F_REPLACE),
			 NLM_F_CREATE | NLM_F_REPLACE);
	assert_int_equal(nlmsg_parse(h, sizeof(struct tcmsg), tb, TCA_MAX, NULL), 0);
	assert_non_null(tb[TCA_KIND]);
}

/* the request as the kernel's netem_change() reads it: the qopt, then
 * attributes (TCA_NETEM_CORR, _REORDER, _DELAY_DIST) */
static void test_impair_netem_request(void **state)
{
	struct impair im = {0};
	struct nlattr *tb[TCA_MAX + 1], *nt[TCA_NETEM_MAX + 1];
	struct nlmsghdr *h;
	struct tcmsg *tc;
	struct tc_netem_qopt *qopt;
	struct tc_netem_corr *corr;
	struct tc_netem_reorder *reo;
	void *buf;
	size_t len;
	char err[256];
	const char *what;
	int optlen;

	(void)state;
	assert_int_equal(impair_parse(&im, "delay", "15ms", &what), 0);
	assert_int_equal(impair_parse(&im, "jitter", "2ms normal", &what), 0);
	assert_int_equal(impair_parse(&im, "loss", "1% 25%", &what), 0);
	assert_int_equal(impair_parse(&im, "reorder", "10%", &what), 0);
	assert_int_equal(impair_parse(&im, "rate", "100mbit", &what), 0);
	assert_int_equal(impair_netem_request(7, &im, &buf, &len, err, sizeof(err)), 0);

	h = buf;
	assert_true(len > h->nlmsg_len);
	msg_attrs(h, tb);
	tc = nlmsg_data(h);
	assert_int_equal(tc->tcm_ifindex, 7);
	assert_int_equal(tc->tcm_parent, TC_H_ROOT);
	assert_int_equal(tc->tcm_handle, TC_HANDLE(1, 0));
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "netem");
	assert_non_null(tb[TCA_OPTIONS]);
	/* the message ends with TCA_OPTIONS (libnl 3.7 claims more: impair_msg) */
	assert_int_equal(h->nlmsg_len,
			 (char *)tb[TCA_OPTIONS] - (char *)h + NLA_ALIGN(tb[TCA_OPTIONS]->nla_len));
	qopt = nla_data(tb[TCA_OPTIONS]);
	optlen = nla_len(tb[TCA_OPTIONS]);
	assert_true(optlen >= (int)sizeof(*qopt));
	assert_int_equal(qopt->latency, nl_us2ticks(15000));
	assert_int_equal(qopt->jitter, nl_us2ticks(2000));
	assert_int_equal(qopt->limit, 1000000);
	assert_int_equal(qopt->loss, impair_pct_u32(1));
	assert_int_equal(qopt->gap, 1);
	assert_int_equal(qopt->duplicate, 0);
	assert_int_equal(nla_parse(nt, TCA_NETEM_MAX,
				   (struct nlattr *)((char *)qopt + NLA_ALIGN(sizeof(*qopt))),
				   optlen - NLA_ALIGN(sizeof(*qopt)), NULL),
			 0);
	assert_non_null(nt[TCA_NETEM_CORR]);
	corr = nla_data(nt[TCA_NETEM_CORR]);
	assert_int_equal(corr->loss_corr, impair_pct_u32(25));
	assert_int_equal(corr->delay_corr, 0);
	assert_non_null(nt[TCA_NETEM_REORDER]);
	reo = nla_data(nt[TCA_NETEM_REORDER]);
	assert_int_equal(reo->probability, impair_pct_u32(10));
	assert_non_null(nt[TCA_NETEM_DELAY_DIST]);
	assert_int_equal(nla_len(nt[TCA_NETEM_DELAY_DIST]), IMPAIR_DIST_LEN * sizeof(int16_t));
	assert_memory_equal(nla_data(nt[TCA_NETEM_DELAY_DIST]),
			    impair_dist_table(IMPAIR_DIST_NORMAL),
			    IMPAIR_DIST_LEN * sizeof(int16_t));

	/* the rate: a tbf under netem's class 1:1 */
	h = (struct nlmsghdr *)((char *)buf + NLMSG_ALIGN(h->nlmsg_len));
	assert_int_equal((char *)h + h->nlmsg_len - (char *)buf, len);
	msg_attrs(h, tb);
	tc = nlmsg_data(h);
	assert_int_equal(tc->tcm_parent, TC_HANDLE(1, 1));
	assert_int_equal(tc->tcm_handle, TC_HANDLE(10, 0));
	assert_string_equal(nla_get_string(tb[TCA_KIND]), "tbf");
	{
		struct nlattr *bt[TCA_TBF_MAX + 1];
		struct tc_tbf_qopt *tq;

		assert_int_equal(nla_parse_nested(bt, TCA_TBF_MAX, tb[TCA_OPTIONS], NULL), 0);
		assert_non_null(bt[TCA_TBF_PARMS]);
		tq = nla_data(bt[TCA_TBF_PARMS]);
		assert_int_equal(tq->rate.rate, 100000000 / 8);
		assert_true(tq->limit > 0);
	}
	free(buf);

	/* out of tbf's range: said, nothing built */
	im.rate_bps = 100000000000ULL;
	assert_int_equal(impair_netem_request(7, &im, &buf, &len, err, sizeof(err)), -1);
	assert_string_equal(err, "rate: 100000000000bit is out of tbf's range (8bit to "
				 "17179869176bit)");
	assert_null(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_impair_parse),       cmocka_unit_test(test_impair_parse_errors),
	    cmocka_unit_test(test_impair_check),       cmocka_unit_test(test_impair_tables),
	    cmocka_unit_test(test_impair_file_read),   cmocka_unit_test(test_impair_sample_delay),
	    cmocka_unit_test(test_impair_sample_loss), cmocka_unit_test(test_impair_netem_request),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
