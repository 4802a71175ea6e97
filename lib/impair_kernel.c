/* Impairments in the kernel: netem and tbf qdiscs through libnl-route-3; see impair.h. */
#include "impair.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/pkt_sched.h>
#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/qdisc.h>
#include <netlink/route/qdisc/netem.h>
#include <netlink/route/qdisc/tbf.h>
#include <netlink/route/tc.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strfmt.h"

/* netem's queue in packets: iproute2's default (1000) is 10 ms at 100,000
 * packets/s; a delay line must hold a whole delay's worth */
#define IMPAIR_NETEM_LIMIT 1000000
/* tbf's queue, as the time a full queue takes to drain */
#define IMPAIR_TBF_LATENCY_US 50000
/* libnl's tbf takes bytes/s in an int */
#define IMPAIR_TBF_MAX_BPS (8ULL * INT32_MAX)

static struct rtnl_qdisc *impair_qdisc(int ifindex, uint32_t parent, uint32_t handle,
				       const char *kind, char *err, size_t errlen)
{
	struct rtnl_qdisc *q = rtnl_qdisc_alloc();
	int e;

	if (q == NULL) {
		(void)strfmt(err, errlen, "%s: out of memory", kind);
		return NULL;
	}
	rtnl_tc_set_ifindex(TC_CAST(q), ifindex);
	rtnl_tc_set_parent(TC_CAST(q), parent);
	rtnl_tc_set_handle(TC_CAST(q), handle);
	if ((e = rtnl_tc_set_kind(TC_CAST(q), kind)) < 0) {
		(void)strfmt(err, errlen, "%s: libnl: %s", kind, nl_geterror(e));
		rtnl_qdisc_put(q);
		return NULL;
	}
	return q;
}

/* impair_tbf: a tbf of rate_bps; a bucket of 4 ms at the rate (tc wants at
 * least rate / HZ), two full frames at least */
static struct rtnl_qdisc *impair_tbf(int ifindex, uint32_t parent, uint32_t handle,
				     uint64_t rate_bps, char *err, size_t errlen)
{
	struct rtnl_qdisc *q;
	uint64_t bytes = rate_bps / 8, bucket = bytes / 250;
	int e;

	if (rate_bps > IMPAIR_TBF_MAX_BPS || bytes == 0) {
		(void)strfmt(err, errlen, "rate: %llubit is out of tbf's range (8bit to %llubit)",
			     (unsigned long long)rate_bps, IMPAIR_TBF_MAX_BPS);
		return NULL;
	}
	if ((q = impair_qdisc(ifindex, parent, handle, "tbf", err, errlen)) == NULL)
		return NULL;
	if (bucket < 2 * 1514)
		bucket = 2 * 1514;
	rtnl_qdisc_tbf_set_rate(q, (int)bytes, (int)bucket, 0);
	if ((e = rtnl_qdisc_tbf_set_limit_by_latency(q, IMPAIR_TBF_LATENCY_US)) < 0) {
		(void)strfmt(err, errlen, "tbf: libnl: %s", nl_geterror(e));
		rtnl_qdisc_put(q);
		return NULL;
	}
	return q;
}

static struct rtnl_qdisc *impair_netem(int ifindex, const struct impair *im, char *err,
				       size_t errlen)
{
	struct rtnl_qdisc *q;
	int e;

	if (im->jitter_ns > IMPAIR_JITTER_MAX_NS || im->delay_ns / 1000 > INT32_MAX) {
		(void)strfmt(err, errlen, "netem: delay or jitter out of range");
		return NULL;
	}
	q = impair_qdisc(ifindex, TC_H_ROOT, TC_HANDLE(1, 0), "netem", err, errlen);
	if (q == NULL)
		return NULL;
	rtnl_netem_set_limit(q, IMPAIR_NETEM_LIMIT);
	/* libnl takes microseconds (netem's ticks); the delay line has ns */
	rtnl_netem_set_delay(q, (int)(im->delay_ns / 1000));
	if (im->jitter_ns) {
		rtnl_netem_set_jitter(q, (int)(im->jitter_ns / 1000));
		if (im->dist != IMPAIR_DIST_UNIFORM &&
		    (e = rtnl_netem_set_delay_distribution_data(q, impair_dist_table(im->dist),
								IMPAIR_DIST_LEN)) < 0) {
			(void)strfmt(err, errlen, "netem: distribution %s: libnl: %s",
				     impair_dist_name(im->dist), nl_geterror(e));
			rtnl_qdisc_put(q);
			return NULL;
		}
	}
	if (im->loss_pct > 0) {
		rtnl_netem_set_loss(q, (int)impair_pct_u32(im->loss_pct));
		rtnl_netem_set_loss_correlation(q, (int)impair_pct_u32(im->loss_corr_pct));
	}
	if (im->duplicate_pct > 0) {
		rtnl_netem_set_duplicate(q, (int)impair_pct_u32(im->duplicate_pct));
		rtnl_netem_set_duplicate_correlation(q,
						     (int)impair_pct_u32(im->duplicate_corr_pct));
	}
	if (im->reorder_pct > 0) {
		/* as tc: a reorder without a gap is a gap of 1 */
		rtnl_netem_set_gap(q, 1);
		rtnl_netem_set_reorder_probability(q, (int)impair_pct_u32(im->reorder_pct));
		rtnl_netem_set_reorder_correlation(q, (int)impair_pct_u32(im->reorder_corr_pct));
	}
	return q;
}

/*
 * impair_msg: q's RTM_NEWQDISC (create or replace). libnl 3.7's netem
 * (netem_msg_fill_raw) stretches TCA_OPTIONS over the attributes after the
 * qopt, then adds their length to nlmsg_len a second time: the message
 * claims bytes past its end (the distribution's 8 KiB with a table), which
 * libnl would send. The length is set back to the end of TCA_OPTIONS, the
 * last attribute, checked against the buffer.
 */
static struct nl_msg *impair_msg(struct rtnl_qdisc *q, char *err, size_t errlen)
{
	struct nl_msg *msg = NULL;
	struct nlmsghdr *h;
	struct nlattr *a;
	size_t off, max;
	int e;

	if ((e = rtnl_qdisc_build_add_request(q, NLM_F_CREATE | NLM_F_REPLACE, &msg)) < 0) {
		(void)strfmt(err, errlen, "%s: libnl: %s", rtnl_tc_get_kind(TC_CAST(q)),
			     nl_geterror(e));
		return NULL;
	}
	if (strcmp(rtnl_tc_get_kind(TC_CAST(q)), "netem") != 0)
		return msg;
	h = nlmsg_hdr(msg);
	max = nlmsg_get_max_size(msg);
	for (off = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct tcmsg)); off + NLA_HDRLEN <= max;
	     off += NLA_ALIGN(a->nla_len)) {
		a = (struct nlattr *)((char *)h + off);
		if (a->nla_len < NLA_HDRLEN)
			break;
		if (nla_type(a) == TCA_OPTIONS && off + a->nla_len <= max) {
			h->nlmsg_len = (uint32_t)(off + NLA_ALIGN(a->nla_len));
			return msg;
		}
	}
	(void)strfmt(err, errlen, "netem: libnl's message has no TCA_OPTIONS within its buffer");
	nlmsg_free(msg);
	return NULL;
}

/* impair_append: q's RTM_NEWQDISC appended to *buf */
static int impair_append(struct rtnl_qdisc *q, void **buf, size_t *len, char *err, size_t errlen)
{
	struct nl_msg *msg;
	struct nlmsghdr *h;
	void *nb;

	if ((msg = impair_msg(q, err, errlen)) == NULL)
		return -1;
	h = nlmsg_hdr(msg);
	if ((nb = realloc(*buf, *len + h->nlmsg_len)) == NULL) {
		(void)strfmt(err, errlen, "out of memory");
		nlmsg_free(msg);
		return -1;
	}
	memcpy((char *)nb + *len, h, h->nlmsg_len);
	*buf = nb;
	*len += h->nlmsg_len;
	nlmsg_free(msg);
	return 0;
}

/* impair_send: q's request, sent on sk and acknowledged. 0, or a libnl
 * error (negative) with err set. */
static int impair_send(struct nl_sock *sk, struct rtnl_qdisc *q, char *err, size_t errlen)
{
	struct nl_msg *msg = impair_msg(q, err, errlen);

	if (msg == NULL)
		return -NLE_NOMEM;
	/* nl_send_sync frees msg */
	return nl_send_sync(sk, msg);
}

/* impair_netem_qdiscs: netem for im, and a tbf under it for the rate */
static int impair_netem_qdiscs(int ifindex, const struct impair *im, struct rtnl_qdisc *q[2],
			       char *err, size_t errlen)
{
	q[0] = q[1] = NULL;
	if ((q[0] = impair_netem(ifindex, im, err, errlen)) == NULL)
		return -1;
	if (im->rate_bps && (q[1] = impair_tbf(ifindex, TC_HANDLE(1, 1), TC_HANDLE(10, 0),
					       im->rate_bps, err, errlen)) == NULL) {
		rtnl_qdisc_put(q[0]);
		return -1;
	}
	return 0;
}

int impair_netem_request(int ifindex, const struct impair *im, void **buf, size_t *len, char *err,
			 size_t errlen)
{
	struct rtnl_qdisc *q[2];
	int rc = -1;

	*buf = NULL;
	*len = 0;
	if (impair_netem_qdiscs(ifindex, im, q, err, errlen) == -1)
		return -1;
	if (impair_append(q[0], buf, len, err, errlen) == -1 ||
	    (q[1] && impair_append(q[1], buf, len, err, errlen) == -1))
		goto out;
	rc = 0;
out:
	if (rc == -1) {
		free(*buf);
		*buf = NULL;
	}
	rtnl_qdisc_put(q[0]);
	if (q[1])
		rtnl_qdisc_put(q[1]);
	return rc;
}

int impair_tbf_request(int ifindex, uint64_t rate_bps, void **buf, size_t *len, char *err,
		       size_t errlen)
{
	struct rtnl_qdisc *q;
	int rc;

	*buf = NULL;
	*len = 0;
	if ((q = impair_tbf(ifindex, TC_H_ROOT, TC_HANDLE(1, 0), rate_bps, err, errlen)) == NULL)
		return -1;
	rc = impair_append(q, buf, len, err, errlen);
	rtnl_qdisc_put(q);
	return rc;
}

static struct nl_sock *impair_sock(char *err, size_t errlen)
{
	struct nl_sock *sk = nl_socket_alloc();
	int e;

	if (sk == NULL) {
		(void)strfmt(err, errlen, "netlink: out of memory");
		return NULL;
	}
	if ((e = nl_connect(sk, NETLINK_ROUTE)) < 0) {
		(void)strfmt(err, errlen, "netlink: %s", nl_geterror(e));
		nl_socket_free(sk);
		return NULL;
	}
	return sk;
}

static int impair_ifindex(const char *ifname, char *err, size_t errlen)
{
	unsigned idx = if_nametoindex(ifname);

	if (idx == 0)
		(void)strfmt(err, errlen, "%s: no such interface", ifname);
	return (int)idx;
}

int impair_netem_apply(const char *ifname, const struct impair *im, char *err, size_t errlen)
{
	struct nl_sock *sk = NULL;
	struct rtnl_qdisc *q[2] = {NULL, NULL};
	int idx, e, rc = -1;

	if ((idx = impair_ifindex(ifname, err, errlen)) == 0)
		return -1;
	if (impair_netem_qdiscs(idx, im, q, err, errlen) == -1)
		return -1;
	if ((sk = impair_sock(err, errlen)) == NULL)
		goto out;
	if ((e = impair_send(sk, q[0], err, errlen)) < 0) {
		if (e == -NLE_OBJ_NOTFOUND)
			(void)strfmt(
			    err, errlen,
			    "%s: the kernel has no sch_netem (netem qdisc: %s); impairments "
			    "need the delay line (linkd) on this kernel",
			    ifname, nl_geterror(e));
		else
			(void)strfmt(err, errlen, "%s: netem qdisc: %s", ifname, nl_geterror(e));
		goto out;
	}
	if (q[1] && (e = impair_send(sk, q[1], err, errlen)) < 0) {
		(void)strfmt(err, errlen, "%s: tbf under netem: %s", ifname, nl_geterror(e));
		goto out;
	}
	rc = 0;
out:
	if (sk)
		nl_socket_free(sk);
	rtnl_qdisc_put(q[0]);
	if (q[1])
		rtnl_qdisc_put(q[1]);
	return rc;
}

int impair_tbf_apply(const char *ifname, uint64_t rate_bps, char *err, size_t errlen)
{
	struct nl_sock *sk = NULL;
	struct rtnl_qdisc *q;
	int idx, e, rc = -1;

	if ((idx = impair_ifindex(ifname, err, errlen)) == 0)
		return -1;
	if ((q = impair_tbf(idx, TC_H_ROOT, TC_HANDLE(1, 0), rate_bps, err, errlen)) == NULL)
		return -1;
	if ((sk = impair_sock(err, errlen)) == NULL)
		goto out;
	if ((e = impair_send(sk, q, err, errlen)) < 0) {
		(void)strfmt(err, errlen, "%s: tbf qdisc: %s", ifname, nl_geterror(e));
		goto out;
	}
	rc = 0;
out:
	if (sk)
		nl_socket_free(sk);
	rtnl_qdisc_put(q);
	return rc;
}

int impair_root_remove(const char *ifname, char *err, size_t errlen)
{
	struct nl_sock *sk = NULL;
	struct rtnl_qdisc *q;
	int idx, e, rc = -1;

	if ((idx = impair_ifindex(ifname, err, errlen)) == 0)
		return -1;
	if ((q = rtnl_qdisc_alloc()) == NULL) {
		(void)strfmt(err, errlen, "%s: out of memory", ifname);
		return -1;
	}
	rtnl_tc_set_ifindex(TC_CAST(q), idx);
	rtnl_tc_set_parent(TC_CAST(q), TC_H_ROOT);
	if ((sk = impair_sock(err, errlen)) == NULL)
		goto out;
	if ((e = rtnl_qdisc_delete(sk, q)) < 0) {
		(void)strfmt(err, errlen, "%s: removing the root qdisc: %s", ifname,
			     nl_geterror(e));
		goto out;
	}
	rc = 0;
out:
	if (sk)
		nl_socket_free(sk);
	rtnl_qdisc_put(q);
	return rc;
}

/* the child's answers to impair_detect() */
enum { IMPAIR_DETECT_NETEM = 0, IMPAIR_DETECT_NONE = 10, IMPAIR_DETECT_FAIL = 11 };

/* impair_detect_child: in a new network namespace, a netem qdisc on lo */
static int impair_detect_child(int fd)
{
	struct impair im = {.delay_ns = 1000000};
	char err[256];
	int rc;

	if (unshare(CLONE_NEWNET) == -1) {
		(void)strfmt(err, sizeof(err), "unshare(CLONE_NEWNET): %s (root is needed)",
			     strerror(errno));
		rc = IMPAIR_DETECT_FAIL;
	} else if (impair_netem_apply("lo", &im, err, sizeof(err)) == 0) {
		rc = IMPAIR_DETECT_NETEM;
	} else {
		rc = strstr(err, "no sch_netem") ? IMPAIR_DETECT_NONE : IMPAIR_DETECT_FAIL;
	}
	if (rc != IMPAIR_DETECT_NETEM && write(fd, err, strlen(err)) == -1)
		rc = IMPAIR_DETECT_FAIL;
	return rc;
}

int impair_detect(enum impair_mech *mech, char *err, size_t errlen)
{
	char msg[256] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1) {
		(void)strfmt(err, errlen, "detecting netem: pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		(void)strfmt(err, errlen, "detecting netem: fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(impair_detect_child(p[1]));
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == IMPAIR_DETECT_NETEM) {
		*mech = IMPAIR_MECH_NETEM;
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == IMPAIR_DETECT_NONE) {
		*mech = IMPAIR_MECH_DELAYLINE;
		(void)strfmt(err, errlen, "%s", msg);
		return 0;
	}
	(void)strfmt(err, errlen, "cannot tell whether the kernel has sch_netem: %s",
		     msg[0] ? msg : "the probe failed");
	return -1;
}
