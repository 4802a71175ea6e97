/* One resolverd process: its resolvers, its epoll set and dispatch; see
 * ctx.h. */
#include "ctx.h"

#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "log.h"
#include "timeutil.h"

#define RSV_EVENTS 64
/* a flood returns to the loop after this many batches, so timers and
 * signals still run */
#define RSV_ROUNDS 8

int rsv_epoll_add(struct rsv_ctx *ctx, struct rsv_fd *f, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = f};

	return epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, f->fd, &ev);
}

int rsv_epoll_mod(struct rsv_ctx *ctx, struct rsv_fd *f, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = f};

	return epoll_ctl(ctx->epfd, EPOLL_CTL_MOD, f->fd, &ev);
}

void rsv_epoll_del(struct rsv_ctx *ctx, struct rsv_fd *f)
{
	epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, f->fd, NULL);
}

static int64_t rsv_ctx_now(struct rsv_ctx *ctx)
{
	return ctx->clock ? ctx->clock() : now_mono_ns();
}

int rsv_ctx_open(struct rsv_ctx *ctx, const struct rsv_conf *conf, int nfd)
{
	ctx->conf = conf;
	ctx->epfd = -1;
	ctx->inst = NULL;
	ctx->ninst = 0;
	ctx->now = rsv_ctx_now(ctx);
	if ((ctx->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		log_warn("epoll_create1");
		return -1;
	}
	if (rsv_up_init(ctx) == -1 || rsv_srv_init(ctx, nfd) == -1)
		return -1;
	if ((ctx->inst = calloc((size_t)conf->ninst, sizeof(*ctx->inst))) == NULL) {
		log_warn("calloc");
		return -1;
	}
	for (int i = 0; i < conf->ninst; i++) {
		struct rsv_inst *in = &ctx->inst[i];

		in->ctx = ctx;
		in->index = i;
		in->conf = &conf->inst[i];
		in->udp.fd = in->tcp.fd = in->up.fd = -1;
		ctx->ninst = i + 1;
		if (rsv_cache_init(&in->cache, &in->conf->cache) == -1) {
			log_warn("calloc");
			return -1;
		}
		if (rsv_srv_open(in) == -1 || rsv_up_open(in) == -1)
			return -1;
	}
	return 0;
}

void rsv_ctx_close(struct rsv_ctx *ctx)
{
	rsv_up_finish(ctx);
	rsv_srv_close_all(ctx);
	for (int i = 0; i < ctx->ninst; i++) {
		struct rsv_inst *in = &ctx->inst[i];

		if (in->udp.fd != -1)
			close(in->udp.fd);
		if (in->tcp.fd != -1)
			close(in->tcp.fd);
		if (in->up.fd != -1)
			close(in->up.fd);
		rsv_cache_free(&in->cache);
	}
	free(ctx->inst);
	ctx->inst = NULL;
	ctx->ninst = 0;
	if (ctx->epfd != -1)
		close(ctx->epfd);
	ctx->epfd = -1;
}

static void rsv_ctx_dispatch(struct rsv_fd *f, uint32_t events)
{
	switch (f->kind) {
	case RSV_FD_UDP:
		rsv_srv_udp_readable(f->ptr);
		break;
	case RSV_FD_TCP_LISTEN:
		rsv_srv_accept(f->ptr);
		break;
	case RSV_FD_TCP_CONN:
		rsv_srv_conn_event(f->ptr, events);
		break;
	case RSV_FD_UPSTREAM:
		rsv_up_readable(f->ptr);
		break;
	case RSV_FD_UPSTREAM_TCP:
		rsv_up_tcp_event(f->ptr, events);
		break;
	}
}

void rsv_ctx_events(struct rsv_ctx *ctx, int timeout_ms)
{
	struct epoll_event evs[RSV_EVENTS];

	for (int round = 0; round < RSV_ROUNDS; round++) {
		int n = epoll_wait(ctx->epfd, evs, RSV_EVENTS, round ? 0 : timeout_ms);

		if (n <= 0)
			return;
		ctx->now = rsv_ctx_now(ctx);
		for (int i = 0; i < n; i++)
			rsv_ctx_dispatch(evs[i].data.ptr, evs[i].events);
		/* what closed in this batch may have had events in it */
		rsv_up_reap(ctx);
		rsv_srv_reap(ctx);
		if (n < RSV_EVENTS)
			return;
	}
}

void rsv_ctx_tick(struct rsv_ctx *ctx)
{
	ctx->now = rsv_ctx_now(ctx);
	rsv_up_tick(ctx);
	if (++ctx->ticks % 100 == 0)
		rsv_srv_idle(ctx);
	rsv_up_reap(ctx);
	rsv_srv_reap(ctx);
}
