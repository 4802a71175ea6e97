/*
 * linkd's kernel side against the real kernel, in a network namespace of
 * the test's own (test_netns.h; root, else skipped): the nftables table
 * (agents/linkd/nftable.c) read back through libnftnl — a postrouting
 * filter chain at priority 300, one rule per interface matching its
 * egress name (oifname) and sending it to its queue with the xt NFQUEUE
 * target, not fail-open — replaced when left over, deleted, and the
 * kernel's refusals said; the queues (nfqueue.c): a UDP datagram on lo is
 * queued, read through nfqueue_read and let through or dropped by the
 * verdict, which a UDP socket on the other end sees (a bounded poll).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <libmnl/libmnl.h>
#include <libnftnl/chain.h>
#include <libnftnl/expr.h>
#include <libnftnl/rule.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/xt_NFQUEUE.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "agents/linkd/nfqueue.h"
#include "agents/linkd/nftable.h"
#include "test_child.h"
#include "test_netns.h"

#define TABLE "linkd_t"

/* what one rule of the table says */
struct rule_seen {
	char ifname[IFNAMSIZ];
	int queue;
	int queues_total;
	int flags;
	char target[32];
	int rev;
};

struct table_seen {
	int chains;
	char chain[32], type[16];
	int hook, prio;
	int nrules;
	struct rule_seen rules[4];
};

static int rule_expr(struct nftnl_expr *e, void *arg)
{
	struct rule_seen *r = arg;
	const char *name = nftnl_expr_get_str(e, NFTNL_EXPR_NAME);
	uint32_t len;

	if (strcmp(name, "meta") == 0) {
		assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_META_KEY), NFT_META_OIFNAME);
	} else if (strcmp(name, "cmp") == 0) {
		const char *d = nftnl_expr_get(e, NFTNL_EXPR_CMP_DATA, &len);

		assert_int_equal(nftnl_expr_get_u32(e, NFTNL_EXPR_CMP_OP), NFT_CMP_EQ);
		assert_int_equal(len, IFNAMSIZ);
		memcpy(r->ifname, d, IFNAMSIZ);
		r->ifname[IFNAMSIZ - 1] = '\0';
	} else if (strcmp(name, "target") == 0) {
		const struct xt_NFQ_info_v3 *info = nftnl_expr_get(e, NFTNL_EXPR_TG_INFO, &len);

		snprintf(r->target, sizeof(r->target), "%s",
			 nftnl_expr_get_str(e, NFTNL_EXPR_TG_NAME));
		r->rev = (int)nftnl_expr_get_u32(e, NFTNL_EXPR_TG_REV);
		assert_true(len >= sizeof(*info));
		r->queue = info->queuenum;
		r->queues_total = info->queues_total;
		r->flags = info->flags;
	} else {
		fail_msg("an expression linkd does not make: %s", name);
	}
	return MNL_CB_OK;
}

static int table_rule(const struct nlmsghdr *nlh, void *arg)
{
	struct table_seen *s = arg;
	struct nftnl_rule *r = nftnl_rule_alloc();

	assert_non_null(r);
	assert_int_equal(nftnl_rule_nlmsg_parse(nlh, r), 0);
	if (strcmp(nftnl_rule_get_str(r, NFTNL_RULE_TABLE), TABLE) == 0) {
		assert_true(s->nrules < 4);
		assert_string_equal(nftnl_rule_get_str(r, NFTNL_RULE_CHAIN), "postrouting");
		nftnl_expr_foreach(r, rule_expr, &s->rules[s->nrules++]);
	}
	nftnl_rule_free(r);
	return MNL_CB_OK;
}

static int table_chain(const struct nlmsghdr *nlh, void *arg)
{
	struct table_seen *s = arg;
	struct nftnl_chain *c = nftnl_chain_alloc();

	assert_non_null(c);
	assert_int_equal(nftnl_chain_nlmsg_parse(nlh, c), 0);
	if (strcmp(nftnl_chain_get_str(c, NFTNL_CHAIN_TABLE), TABLE) == 0) {
		s->chains++;
		snprintf(s->chain, sizeof(s->chain), "%s",
			 nftnl_chain_get_str(c, NFTNL_CHAIN_NAME));
		snprintf(s->type, sizeof(s->type), "%s", nftnl_chain_get_str(c, NFTNL_CHAIN_TYPE));
		s->hook = (int)nftnl_chain_get_u32(c, NFTNL_CHAIN_HOOKNUM);
		s->prio = nftnl_chain_get_s32(c, NFTNL_CHAIN_PRIO);
	}
	nftnl_chain_free(c);
	return MNL_CB_OK;
}

/* dump: every chain (GETCHAIN) or rule (GETRULE) of family inet through cb */
static void dump(int type, mnl_cb_t cb, void *arg)
{
	struct mnl_socket *nl = mnl_socket_open(NETLINK_NETFILTER);
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	uint32_t seq = 1;
	ssize_t n;
	int rc;

	assert_non_null(nl);
	assert_int_equal(mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID), 0);
	nlh = nftnl_nlmsg_build_hdr(buf, (uint16_t)type, NFPROTO_INET, NLM_F_DUMP, seq);
	assert_true(mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) > 0);
	do {
		assert_true((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) > 0);
		rc = mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(nl), cb, arg);
	} while (rc > 0);
	assert_int_equal(rc, MNL_CB_STOP);
	mnl_socket_close(nl);
}

static void table_read(struct table_seen *s)
{
	memset(s, 0, sizeof(*s));
	dump(NFT_MSG_GETCHAIN, table_chain, s);
	dump(NFT_MSG_GETRULE, table_rule, s);
}

/* assert_log: the log's text, stamps off, is want; frees text */
static void assert_log(char *text, const char *want)
{
	char *got = test_strip_stamps_between(text, -1, -1);

	assert_string_equal(got, want);
	free(got);
	free(text);
}

static void test_nftable_rules(void **state)
{
	const struct nftable_rule rules[] = {{"t0", 7}, {"t1", 8}};
	struct table_seen s;
	struct nl_sock *sk;

	(void)state;
	TEST_NETNS_ENTER();
	sk = test_netns_sock();
	test_netns_veth(sk, "t0", "t1");
	nl_socket_free(sk);
	assert_int_equal(nftable_create(TABLE, rules, 2), 0);
	table_read(&s);
	assert_int_equal(s.chains, 1);
	assert_string_equal(s.chain, "postrouting");
	assert_string_equal(s.type, "filter");
	assert_int_equal(s.hook, NF_INET_POST_ROUTING);
	/* after source NAT (100) */
	assert_int_equal(s.prio, 300);
	assert_int_equal(s.nrules, 2);
	for (int i = 0; i < 2; i++) {
		assert_string_equal(s.rules[i].ifname, rules[i].ifname);
		assert_string_equal(s.rules[i].target, "NFQUEUE");
		assert_int_equal(s.rules[i].rev, 3);
		assert_int_equal(s.rules[i].queue, rules[i].queue);
		assert_int_equal(s.rules[i].queues_total, 1);
		/* no bypass: without linkd the packets wait, never pass undelayed */
		assert_int_equal(s.rules[i].flags, 0);
	}

	/* a table left by a crashed linkd is replaced, not added to */
	assert_int_equal(nftable_create(TABLE, rules + 1, 1), 0);
	table_read(&s);
	assert_int_equal(s.chains, 1);
	assert_int_equal(s.nrules, 1);
	assert_string_equal(s.rules[0].ifname, "t1");
	assert_int_equal(s.rules[0].queue, 8);

	assert_int_equal(nftable_delete(TABLE), 0);
	table_read(&s);
	assert_int_equal(s.chains, 0);
	assert_int_equal(s.nrules, 0);
}

static void test_nftable_errors(void **state)
{
	/* the rule matches the name: an interface not there (yet) is the
	 * kernel's to accept, linkd checks its interfaces first (linkd.c) */
	const struct nftable_rule absent[] = {{"nosuch0", 3}};
	struct table_seen s;
	char *err;
	int saved;

	(void)state;
	TEST_NETNS_ENTER();
	assert_int_equal(nftable_create(TABLE, absent, 1), 0);
	table_read(&s);
	assert_int_equal(s.nrules, 1);
	assert_string_equal(s.rules[0].ifname, "nosuch0");
	assert_int_equal(nftable_delete(TABLE), 0);

	saved = test_stderr_begin();
	assert_int_equal(nftable_delete(TABLE), -1);
	/* a name longer than the kernel's NFT_NAME_MAXLEN - 1 (255) */
	{
		char name[300];

		memset(name, 'x', sizeof(name) - 1);
		name[sizeof(name) - 1] = '\0';
		assert_int_equal(nftable_create(name, absent, 1), -1);
	}
	err = test_stderr_end(saved);
	assert_log(err, "steerlab: nftable_send: removing the nftables table: No such file "
			"or directory\n"
			"steerlab: nftable_send: creating the nftables table: Numerical "
			"result out of range\n");
}

/* a datagram sent from a socket to another on lo, its verdict given */
struct seen {
	int packets;
	uint16_t num;
	uint32_t id;
	size_t len;
	uint8_t pkt[NFQUEUE_COPY];
};

static void on_packet(void *arg, uint16_t num, uint32_t id, int64_t queued_ns, const uint8_t *pkt,
		      size_t len)
{
	struct seen *s = arg;

	(void)queued_ns;
	s->packets++;
	s->num = num;
	s->id = id;
	s->len = len;
	memcpy(s->pkt, pkt, len < sizeof(s->pkt) ? len : sizeof(s->pkt));
}

/* udp_pair: a receiving socket on 127.0.0.1 (its port in *port) and a
 * sending one */
static void udp_pair(int *rx, int *tx, uint16_t *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);

	assert_true((*rx = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0)) >= 0);
	assert_true((*tx = socket(AF_INET, SOCK_DGRAM, 0)) >= 0);
	assert_int_equal(bind(*rx, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(*rx, (struct sockaddr *)&a, &alen), 0);
	*port = ntohs(a.sin_port);
}

static void send_to(int tx, uint16_t port, const char *msg)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				.sin_port = htons(port)};

	assert_int_equal(sendto(tx, msg, strlen(msg), 0, (struct sockaddr *)&a, sizeof(a)),
			 (ssize_t)strlen(msg));
}

/* wait_readable: fd readable within ms */
static int wait_readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	int n = poll(&p, 1, ms);

	assert_true(n >= 0);
	return n;
}

/* one_packet: the datagram msg sent, queued, and read through nfqueue_read */
static void one_packet(struct nfqueue *q, int tx, uint16_t port, const char *msg, struct seen *s)
{
	memset(s, 0, sizeof(*s));
	send_to(tx, port, msg);
	/* the kernel queues it before sendto returns: no wait is a guess */
	assert_int_equal(wait_readable(nfqueue_fd(q), 2000), 1);
	assert_int_equal(nfqueue_read(q, 4, on_packet, s), 1);
	assert_int_equal(s->packets, 1);
	assert_int_equal(s->num, 5);
	/* IPv4, UDP, the payload after the 28 bytes of headers */
	assert_int_equal(s->len, 28 + strlen(msg));
	assert_int_equal(s->pkt[0] >> 4, 4);
	assert_int_equal(s->pkt[9], IPPROTO_UDP);
	assert_memory_equal(s->pkt + 28, msg, strlen(msg));
}

static void test_nfqueue_verdicts(void **state)
{
	const struct nftable_rule rule = {"lo", 5};
	struct nfqueue q;
	struct seen s;
	uint64_t qdrop = 1, udrop = 1;
	uint16_t port;
	char buf[64];
	int rx, tx;

	(void)state;
	TEST_NETNS_ENTER();
	assert_int_equal(nfqueue_open(&q, 1 << 20), 0);
	assert_int_equal(nfqueue_bind(&q, 5, 100), 0);
	assert_int_equal(nfqueue_nonblock(&q), 0);
	/* nothing queued yet: a read returns at once, empty */
	assert_int_equal(nfqueue_read(&q, 4, on_packet, &s), 0);
	assert_int_equal(nftable_create(TABLE, &rule, 1), 0);
	udp_pair(&rx, &tx, &port);

	/* accepted: it arrives, and only then */
	one_packet(&q, tx, port, "accept me", &s);
	assert_int_equal(wait_readable(rx, 0), 0);
	assert_int_equal(nfqueue_verdict(&q, 5, s.id, NFQUEUE_ACCEPT), 0);
	assert_int_equal(nfqueue_flush(&q), 0);
	assert_int_equal(wait_readable(rx, 2000), 1);
	assert_int_equal(recv(rx, buf, sizeof(buf), 0), 9);
	assert_memory_equal(buf, "accept me", 9);

	/* dropped: it never arrives; the verdict is taken before the next
	 * packet's, so the next one's arrival proves the first gone */
	one_packet(&q, tx, port, "drop me", &s);
	assert_int_equal(nfqueue_verdict(&q, 5, s.id, NFQUEUE_DROP), 0);
	assert_int_equal(nfqueue_flush(&q), 0);
	one_packet(&q, tx, port, "after", &s);
	assert_int_equal(nfqueue_verdict(&q, 5, s.id, NFQUEUE_ACCEPT), 0);
	assert_int_equal(nfqueue_flush(&q), 0);
	/* an empty batch sends nothing */
	assert_int_equal(nfqueue_flush(&q), 0);
	assert_int_equal(wait_readable(rx, 2000), 1);
	assert_int_equal(recv(rx, buf, sizeof(buf), 0), 5);
	assert_memory_equal(buf, "after", 5);
	assert_int_equal(wait_readable(rx, 0), 0);

	/* the kernel's counts: nothing lost by the queue or the socket */
	assert_int_equal(nfqueue_stats(5, &qdrop, &udrop), 0);
	assert_int_equal(qdrop, 0);
	assert_int_equal(udrop, 0);
	assert_int_equal(nfqueue_stats(6, &qdrop, &udrop), -1);
	assert_int_equal(q.errors, 0);

	/* a verdict for a packet the kernel does not hold: refused, said once */
	{
		char *err;
		int saved = test_stderr_begin();

		assert_int_equal(nfqueue_verdict(&q, 5, s.id + 100, NFQUEUE_ACCEPT), 0);
		assert_int_equal(nfqueue_flush(&q), 0);
		/* the refusal is a message on the socket, read as packets are */
		assert_int_equal(wait_readable(nfqueue_fd(&q), 2000), 1);
		assert_int_equal(nfqueue_read(&q, 4, on_packet, &s), 1);
		err = test_stderr_end(saved);
		assert_int_equal(q.errors, 1);
		assert_log(
		    err, "steerlab: nfqueue_packet: the kernel refused a message: No such file or "
			 "directory\n");
	}

	assert_int_equal(nftable_delete(TABLE), 0);
	close(rx);
	close(tx);
	nfqueue_close(&q);
}

static void test_nfqueue_bind_refused(void **state)
{
	struct nfqueue q, other;
	char *err;
	int saved;

	(void)state;
	TEST_NETNS_ENTER();
	assert_int_equal(nfqueue_open(&q, 1 << 16), 0);
	assert_int_equal(nfqueue_open(&other, 1 << 16), 0);
	assert_int_equal(nfqueue_bind(&q, 9, 10), 0);
	/* a queue has one listener: a second socket's bind is refused (EPERM) */
	saved = test_stderr_begin();
	assert_int_equal(nfqueue_bind(&other, 9, 10), -1);
	err = test_stderr_end(saved);
	assert_log(err, "steerlab: nfqueue_ack: queue 9: bind: Operation not permitted\n");
	nfqueue_close(&other);
	nfqueue_close(&q);
	/* closed twice is harmless: close clears it */
	nfqueue_close(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nftable_rules),
	    cmocka_unit_test(test_nftable_errors),
	    cmocka_unit_test(test_nfqueue_verdicts),
	    cmocka_unit_test(test_nfqueue_bind_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
