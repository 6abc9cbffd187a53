/*
 * ring.c - the ring of slots handed from one producer to N consumers (the
 * rules are in ring.h).
 *
 * One mutex guards the counters: `published` (sequences published so far),
 * `claimed` (the same plus the one being filled) and per consumer `done`
 * (sequences it has released). A claim of sequence s waits for the least
 * `done` to reach s - slots + 1; an acquire by consumer c waits for
 * `published` to pass done[c]. Two condition variables: `work` wakes
 * consumers (a publish, a stop), `freed` wakes the producer (a release, a
 * stop). Hand-overs are of whole batches of work, so the lock is taken a
 * few times per batch, not per item.
 */
#include "ring.h"

#include <pthread.h>
#include <stdlib.h>

#include "cachet/error.h"

struct ct_ring {
    pthread_mutex_t mu;
    pthread_cond_t work;    /* a sequence was published, or stop */
    pthread_cond_t freed;   /* a sequence was released, or stop */
    uint32_t slots;
    uint32_t consumers;
    uint64_t published;     /* sequences published */
    uint64_t claimed;       /* sequences claimed (published, or one more) */
    int stop;
    uint64_t done[];        /* per consumer: sequences released */
};

int ct_ring_create(ct_ring **out, uint32_t slots, uint32_t consumers)
{
    ct_ring *r;

    *out = NULL;
    if (slots == 0 || consumers == 0)
        return CT_E_USAGE;
    r = calloc(1, sizeof *r + (size_t)consumers * sizeof r->done[0]);
    if (!r)
        return CT_E_NOMEM;
    if (pthread_mutex_init(&r->mu, NULL) != 0) {
        free(r);
        return CT_E_NOMEM;
    }
    if (pthread_cond_init(&r->work, NULL) != 0) {
        pthread_mutex_destroy(&r->mu);
        free(r);
        return CT_E_NOMEM;
    }
    if (pthread_cond_init(&r->freed, NULL) != 0) {
        pthread_cond_destroy(&r->work);
        pthread_mutex_destroy(&r->mu);
        free(r);
        return CT_E_NOMEM;
    }
    r->slots = slots;
    r->consumers = consumers;
    *out = r;
    return CT_OK;
}

void ct_ring_free(ct_ring *r)
{
    if (!r)
        return;
    pthread_cond_destroy(&r->freed);
    pthread_cond_destroy(&r->work);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

/* The fewest sequences any consumer has released (under mu). */
static uint64_t least_done(const ct_ring *r)
{
    uint64_t least = r->done[0];
    for (uint32_t c = 1; c < r->consumers; c++)
        if (r->done[c] < least)
            least = r->done[c];
    return least;
}

int ct_ring_claim(ct_ring *r, uint64_t *seq)
{
    int rc = CT_OK;

    pthread_mutex_lock(&r->mu);
    while (!r->stop && r->published >= r->slots && least_done(r) < r->published - r->slots + 1)
        pthread_cond_wait(&r->freed, &r->mu);
    if (r->stop)
        rc = CT_E_INTERRUPTED;
    else {
        *seq = r->published;
        r->claimed = r->published + 1;
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void ct_ring_publish(ct_ring *r)
{
    pthread_mutex_lock(&r->mu);
    r->published = r->claimed;
    pthread_cond_broadcast(&r->work);
    pthread_mutex_unlock(&r->mu);
}

int ct_ring_drain(ct_ring *r)
{
    int rc = CT_OK;

    pthread_mutex_lock(&r->mu);
    while (!r->stop && least_done(r) < r->published)
        pthread_cond_wait(&r->freed, &r->mu);
    if (r->stop)
        rc = CT_E_INTERRUPTED;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

int ct_ring_acquire(ct_ring *r, uint32_t who, uint64_t *seq)
{
    int rc = CT_OK;

    pthread_mutex_lock(&r->mu);
    while (!r->stop && r->published <= r->done[who])
        pthread_cond_wait(&r->work, &r->mu);
    if (r->published > r->done[who])
        *seq = r->done[who];
    else
        rc = CT_E_INTERRUPTED;
    pthread_mutex_unlock(&r->mu);
    return rc;
}

void ct_ring_release(ct_ring *r, uint32_t who)
{
    pthread_mutex_lock(&r->mu);
    r->done[who]++;
    pthread_cond_broadcast(&r->freed);
    pthread_mutex_unlock(&r->mu);
}

void ct_ring_stop(ct_ring *r)
{
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->work);
    pthread_cond_broadcast(&r->freed);
    pthread_mutex_unlock(&r->mu);
}
