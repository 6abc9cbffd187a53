/*
 * ring.h - the one way work is handed between threads (internal: used by
 * the trace read-ahead and by the one-pass analysis).
 *
 * Rules
 *   - A ring has a fixed number of slots and counts in sequence numbers
 *     0, 1, 2, ...; sequence s lives in slot s % slots. The ring holds no
 *     data: the caller keeps an array of slots and indexes it with these.
 *   - One producer, N consumers (ids 0..N-1). Every consumer sees every
 *     published sequence, in order.
 *   - The producer claims the next sequence (waiting until every consumer
 *     has released the sequence that used the same slot before, that is
 *     s - slots), fills the slot, then publishes it.
 *   - A consumer acquires its next sequence (waiting until it is
 *     published), reads the slot, then releases it. Acquiring again before
 *     releasing gives the same sequence: a consumer may keep a slot (an end
 *     or an error that must be answered again).
 *   - Stop (for errors and interrupts) wakes every waiter. After it, claim
 *     fails at once; acquire still gives the sequences already published
 *     and fails when none is left; drain returns at once.
 *   - Publishing happens-before the consumers' acquire of that sequence;
 *     a release happens-before the claim that reuses the slot and before a
 *     drain that waited for it.
 *   - Errors are codes: CT_OK, CT_E_NOMEM (create), CT_E_INTERRUPTED (the
 *     ring was stopped). Nothing is printed.
 */
#ifndef CT_RING_H
#define CT_RING_H

#include <stdint.h>

typedef struct ct_ring ct_ring;

/* A ring of `slots` slots (at least 1) for `consumers` consumers (at least
 * 1). CT_OK and *out; CT_E_USAGE for no slots or no consumers, CT_E_NOMEM
 * when memory, a mutex or a condition variable cannot be had (*out NULL). */
int ct_ring_create(ct_ring **out, uint32_t slots, uint32_t consumers);

/* Free a ring nobody waits on any more (NULL is fine). */
void ct_ring_free(ct_ring *r);

/* Producer: wait until the next sequence's slot is free; *seq gets it.
 * CT_OK, or CT_E_INTERRUPTED once the ring is stopped. */
int ct_ring_claim(ct_ring *r, uint64_t *seq);

/* Producer: publish the sequence claimed last. */
void ct_ring_publish(ct_ring *r);

/* Producer: wait until every consumer has released every published
 * sequence. CT_OK, or CT_E_INTERRUPTED once the ring is stopped. */
int ct_ring_drain(ct_ring *r);

/* Consumer `who`: wait until its next sequence is published; *seq gets it.
 * CT_OK, or CT_E_INTERRUPTED when the ring is stopped and nothing more was
 * published for it. */
int ct_ring_acquire(ct_ring *r, uint32_t who, uint64_t *seq);

/* Consumer `who`: release the sequence acquired last. */
void ct_ring_release(ct_ring *r, uint32_t who);

/* Stop the ring and wake every waiter. */
void ct_ring_stop(ct_ring *r);

#endif
