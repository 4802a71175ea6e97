/* An intrusive hash table of chains; see hmap.h. */
#include "hmap.h"

#include <stdlib.h>

#define HMAP_BUCKETS_MIN 16u
#define HMAP_BUCKETS_MAX (1u << 26)

int hmap_init(struct hmap *m, uint32_t nbuckets)
{
	m->nbuckets = HMAP_BUCKETS_MIN;
	while (m->nbuckets < nbuckets && m->nbuckets < HMAP_BUCKETS_MAX)
		m->nbuckets <<= 1;
	m->count = 0;
	m->buckets = calloc(m->nbuckets, sizeof(*m->buckets));
	return m->buckets ? 0 : -1;
}

void hmap_free(struct hmap *m)
{
	free(m->buckets);
	m->buckets = NULL;
	m->nbuckets = 0;
	m->count = 0;
}

/* hmap_grow: twice the buckets, when there are more nodes than buckets */
static void hmap_grow(struct hmap *m)
{
	uint32_t n = m->nbuckets * 2;
	struct hmap_node **b;

	if (m->count <= m->nbuckets || n > HMAP_BUCKETS_MAX)
		return;
	if ((b = calloc(n, sizeof(*b))) == NULL)
		return;
	for (uint32_t i = 0; i < m->nbuckets; i++) {
		struct hmap_node *e, *next;

		for (e = m->buckets[i]; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(m->buckets);
	m->buckets = b;
	m->nbuckets = n;
}

void hmap_insert(struct hmap *m, struct hmap_node *node, uint32_t hash)
{
	struct hmap_node **b = &m->buckets[hash & (m->nbuckets - 1)];

	node->hash = hash;
	node->next = *b;
	*b = node;
	m->count++;
	hmap_grow(m);
}

void hmap_remove(struct hmap *m, struct hmap_node *node)
{
	struct hmap_node **pp = &m->buckets[node->hash & (m->nbuckets - 1)];

	while (*pp != node)
		pp = &(*pp)->next;
	*pp = node->next;
	node->next = NULL;
	m->count--;
}

struct hmap_node *hmap_first(const struct hmap *m, uint32_t hash)
{
	struct hmap_node *e = m->buckets[hash & (m->nbuckets - 1)];

	while (e && e->hash != hash)
		e = e->next;
	return e;
}

struct hmap_node *hmap_next(const struct hmap_node *node)
{
	struct hmap_node *e = node->next;

	while (e && e->hash != node->hash)
		e = e->next;
	return e;
}

uint32_t hmap_fnv1a(uint32_t h, const void *p, size_t len)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < len; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}
