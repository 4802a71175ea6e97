/* One resolverd process: its resolvers and their dispatch; see ctx.h. */
#include "ctx.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deleg.h"
#include "log.h"
#include "timeutil.h"

int64_t rsv_ctx_now(struct rsv_ctx *ctx)
{
	return ctx->clock ? ctx->clock() : now_mono_ns();
}

static void rsv_ctx_dispatch(struct loop *loop, int fd, uint32_t events, void *arg)
{
	struct rsv_fd *f = arg;

	(void)loop, (void)fd;
	f->ctx->now = rsv_ctx_now(f->ctx);
	switch (f->kind) {
	case RSV_FD_UDP:
		rsv_srv_udp_readable(f->ptr, f->fd);
		break;
	case RSV_FD_UPSTREAM:
		rsv_up_readable(f->ptr, f->fd);
		break;
	case RSV_FD_UPSTREAM_TCP:
		rsv_up_tcp_event(f->ptr, events);
		break;
	}
}

int rsv_watch(struct rsv_ctx *ctx, struct rsv_fd *f, uint32_t events)
{
	f->ctx = ctx;
	return loop_add(ctx->loop, &f->h, f->fd, events, rsv_ctx_dispatch, f);
}

int rsv_ctx_open(struct rsv_ctx *ctx, const struct rsv_conf *conf, int nfd, struct loop *loop)
{
	ctx->conf = conf;
	ctx->loop = loop;
	ctx->inst = NULL;
	ctx->ninst = 0;
	ctx->now = rsv_ctx_now(ctx);
	if (rsv_up_init(ctx) == -1 || rsv_srv_init(ctx, nfd) == -1)
		return -1;
	if ((ctx->inst = calloc((size_t)conf->ninst, sizeof(*ctx->inst))) == NULL) {
		log_warn("%s: calloc", __func__);
		return -1;
	}
	for (int i = 0; i < conf->ninst; i++) {
		struct rsv_inst *in = &ctx->inst[i];
		struct rsv_cache_cfg dcfg;

		in->ctx = ctx;
		in->index = i;
		in->conf = &conf->inst[i];
		in->udp.fd = in->tcp.fd = in->up.fd = -1;
		in->udp6.fd = in->tcp6.fd = in->up6.fd = -1;
		ctx->ninst = i + 1;
		rsv_deleg_cfg(&dcfg, &in->conf->cache);
		if (rsv_cache_init(&in->cache, &in->conf->cache) == -1 ||
		    (conf->mode == RSV_MODE_ITERATE && rsv_cache_init(&in->deleg, &dcfg) == -1)) {
			log_warn("%s: calloc", __func__);
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
		if (in->udp6.fd != -1)
			close(in->udp6.fd);
		if (in->tcp6.fd != -1)
			close(in->tcp6.fd);
		if (in->up6.fd != -1)
			close(in->up6.fd);
		rsv_cache_free(&in->cache);
		rsv_cache_free(&in->deleg);
	}
	free(ctx->inst);
	ctx->inst = NULL;
	ctx->ninst = 0;
}

void rsv_ctx_tick(struct rsv_ctx *ctx)
{
	ctx->now = rsv_ctx_now(ctx);
	rsv_up_tick(ctx);
	if (++ctx->ticks % 100 == 0)
		rsv_srv_idle(ctx);
}
