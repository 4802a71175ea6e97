/* The outstanding-request ring of the client; see ring.h. */
#include "ring.h"

#include <stdlib.h>
#include <string.h>

int client_ring_init(struct client_ring *r, size_t min_capacity)
{
	uint64_t cap = 16;

	memset(r, 0, sizeof(*r));
	while (cap < min_capacity && cap < (UINT64_C(1) << 40))
		cap <<= 1;
	r->slots = calloc(cap, sizeof(*r->slots));
	if (r->slots == NULL)
		return -1;
	r->mask = cap - 1;
	return 0;
}

void client_ring_free(struct client_ring *r)
{
	free(r->slots);
	memset(r, 0, sizeof(*r));
}

uint64_t client_ring_capacity(const struct client_ring *r)
{
	return r->mask + 1;
}

static int client_ring_grow(struct client_ring *r)
{
	uint64_t cap = (r->mask + 1) * 2, mask = cap - 1;
	struct client_slot *slots = calloc(cap, sizeof(*slots));

	if (slots == NULL)
		return -1;
	for (uint64_t seq = r->tail; seq < r->head; seq++)
		slots[seq & mask] = r->slots[seq & r->mask];
	free(r->slots);
	r->slots = slots;
	r->mask = mask;
	return 0;
}

struct client_slot *client_ring_push(struct client_ring *r, int64_t sent_real_ns,
				     int64_t sent_mono_ns)
{
	struct client_slot *s;

	if (r->head - r->tail > r->mask && client_ring_grow(r) == -1)
		return NULL;
	s = &r->slots[r->head & r->mask];
	s->seq = r->head;
	s->sent_real_ns = sent_real_ns;
	s->sent_mono_ns = sent_mono_ns;
	s->state = CLIENT_SLOT_PENDING;
	/* a slot is used again: what the last request in it did is not this one's */
	s->fell_back = 0;
	s->family = 0;
	r->head++;
	r->pending++;
	return s;
}

struct client_slot *client_ring_find(struct client_ring *r, uint64_t seq)
{
	struct client_slot *s;

	if (seq < r->tail || seq >= r->head)
		return NULL;
	s = &r->slots[seq & r->mask];
	if (s->seq != seq || s->state != CLIENT_SLOT_PENDING)
		return NULL;
	return s;
}

void client_ring_resolve(struct client_ring *r, struct client_slot *s)
{
	if (s->state != CLIENT_SLOT_PENDING)
		return;
	s->state = CLIENT_SLOT_DONE;
	r->pending--;
	while (r->tail < r->head && r->slots[r->tail & r->mask].state != CLIENT_SLOT_PENDING)
		r->tail++;
}

struct client_slot *client_ring_oldest(struct client_ring *r)
{
	if (r->tail == r->head)
		return NULL;
	return &r->slots[r->tail & r->mask];
}
