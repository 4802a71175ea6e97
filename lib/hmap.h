/*
 * A keyed lookup table: an intrusive hash table of chains. The caller's
 * record holds a struct hmap_node and computes its key's hash; the table
 * keeps the nodes in chains by hash, grows by doubling when it holds more
 * nodes than it has buckets, and allocates nothing per node, so a record
 * can be in several tables (resolverd's pending queries, by id and by
 * question) and its lookup compares the caller's key itself:
 *
 *	for (n = hmap_first(&m, h); n; n = hmap_next(n))
 *		if (same key as HMAP_ENTRY(n, struct rec, node))
 *			...
 */
#ifndef STEERLAB_HMAP_H
#define STEERLAB_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct hmap_node {
	struct hmap_node *next; /* the chain */
	uint32_t hash;
};

struct hmap {
	struct hmap_node **buckets;
	uint32_t nbuckets; /* a power of two */
	size_t count;
};

/* HMAP_ENTRY: the record of type holding node as its member */
#define HMAP_ENTRY(node, type, member) ((type *)((char *)(node)-offsetof(type, member)))

#define HMAP_FNV1A_INIT 2166136261u

/* hmap_init: an empty table of at least nbuckets buckets (rounded up to a
 * power of two, at least 16). 0, or -1 (out of memory). */
int hmap_init(struct hmap *m, uint32_t nbuckets);
/* hmap_free: the buckets; the nodes are the caller's */
void hmap_free(struct hmap *m);
/* hmap_insert: node into m under hash; m doubles its buckets past one node
 * per bucket (a failed allocation only leaves the chains longer) */
void hmap_insert(struct hmap *m, struct hmap_node *node, uint32_t hash);
/* hmap_remove: node, which is in m, out of it */
void hmap_remove(struct hmap *m, struct hmap_node *node);
/* hmap_first: the first node of m under hash, or NULL; hmap_next: the
 * next one under node's hash, or NULL */
struct hmap_node *hmap_first(const struct hmap *m, uint32_t hash);
struct hmap_node *hmap_next(const struct hmap_node *node);
/* hmap_fnv1a: h (HMAP_FNV1A_INIT to begin) continued over len bytes of p
 * (FNV-1a, 32 bits) */
uint32_t hmap_fnv1a(uint32_t h, const void *p, size_t len);

#endif
