/* sited's held replies; see slow.h. */
#include "slow.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int sited_slow_push(struct sited_slow *s, const struct sited_slow_item *item)
{
	if (s->len == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct sited_slow_item *q;

		if (s->cap >= SITED_SLOW_MAX || (q = malloc(cap * sizeof(*q))) == NULL) {
			s->dropped_full++;
			return -1;
		}
		/* unrolled from head, so the ring starts at 0 */
		for (size_t i = 0; i < s->len; i++)
			q[i] = s->q[(s->head + i) % s->cap];
		free(s->q);
		s->q = q;
		s->cap = cap;
		s->head = 0;
	}
	s->q[(s->head + s->len) % s->cap] = *item;
	s->len++;
	s->held++;
	return 0;
}

int64_t sited_slow_due(const struct sited_slow *s)
{
	return s->len ? s->q[s->head].due_ns : INT64_MAX;
}

int sited_slow_pop(struct sited_slow *s, int64_t now, struct sited_slow_item *item)
{
	while (s->len && s->q[s->head].due_ns <= now) {
		*item = s->q[s->head];
		s->head = (s->head + 1) % s->cap;
		s->len--;
		/* a connection's, forgotten when it ended: skipped */
		if (item->fd == -1 && item->conn == NULL)
			continue;
		return 1;
	}
	return 0;
}

void sited_slow_forget(struct sited_slow *s, const struct sited_tcp_conn *conn)
{
	for (size_t i = 0; i < s->len; i++) {
		struct sited_slow_item *it = &s->q[(s->head + i) % s->cap];

		if (it->fd == -1 && it->conn == conn) {
			it->conn = NULL;
			s->dropped_closed++;
		}
	}
}

int sited_slow_send(const struct sited_slow_item *item)
{
	union udp_cmsg c;
	struct iovec iov = {(void *)item->msg, WIRE_LEN};
	struct msghdr h = {.msg_name = (void *)&item->to,
			   .msg_namelen = item->to.sa.sa_family == AF_INET6 ? sizeof(item->to.sin6)
									    : sizeof(item->to.sin),
			   .msg_iov = &iov,
			   .msg_iovlen = 1};

	udp_pktinfo_cmsg(&h, &c, item->to.sa.sa_family, &item->src);
	return sendmsg(item->fd, &h, MSG_DONTWAIT) == WIRE_LEN ? 0 : -1;
}

void sited_slow_free(struct sited_slow *s)
{
	free(s->q);
	memset(s, 0, sizeof(*s));
}
