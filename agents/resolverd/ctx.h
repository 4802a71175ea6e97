/*
 * The state of one resolverd process, shared by its modules: the
 * resolvers, the loop their sockets are in (lib/loop.h), and each module's
 * own part (upstream.h, server.h, stats.h).
 */
#ifndef STEERLAB_RESOLVERD_CTX_H
#define STEERLAB_RESOLVERD_CTX_H

#include <stdint.h>

#include "config.h"
#include "resolver.h"
#include "server.h"
#include "stats.h"
#include "upstream.h"

struct rsv_ctx {
	const struct rsv_conf *conf;
	struct rsv_inst *inst;
	int ninst;
	struct loop *loop;
	int64_t now;		/* ns, read from clock before each event */
	int64_t (*clock)(void); /* now_mono_ns; the tests' own */
	unsigned ticks;
	struct rsv_upstream up;
	struct rsv_server srv;
	struct rsv_stats stats;
};

/* rsv_ctx_open: the tables, and every resolver of conf with its cache and
 * sockets, watched by loop; nfd is the descriptor limit. ctx->stats must
 * be set (or zero). 0, or -1 (logged); call rsv_ctx_close() either way,
 * before loop_free(). */
int rsv_ctx_open(struct rsv_ctx *ctx, const struct rsv_conf *conf, int nfd, struct loop *loop);

/* rsv_ctx_close: queries in flight abandoned (and written), every socket
 * closed, everything freed. */
void rsv_ctx_close(struct rsv_ctx *ctx);

/* rsv_ctx_tick: attempts past their timeout; every 100th tick, idle TCP
 * connections. resolverd calls it every 10 ms. */
void rsv_ctx_tick(struct rsv_ctx *ctx);

/* rsv_ctx_now: ctx->clock's time, or CLOCK_MONOTONIC's. */
int64_t rsv_ctx_now(struct rsv_ctx *ctx);

/* rsv_watch: f->fd in ctx->loop, dispatched by f->kind. 0, or -1. */
int rsv_watch(struct rsv_ctx *ctx, struct rsv_fd *f, uint32_t events);

#endif
