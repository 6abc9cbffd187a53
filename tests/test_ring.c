/*
 * test_ring.c - the ring of slots between threads (sim/ring.h): sequences
 * in order, a slot kept until released, a claim that waits for the slot's
 * last reader, what stop does, and one producer with three consumers that
 * each see every sequence with the value written for it.
 */
#include <pthread.h>
#include <time.h>

#include "harness.h"
#include "cachet/error.h"
#include "sim/ring.h"

TEST(no_slots_or_no_consumers_is_a_usage_error)
{
    ct_ring *r = (ct_ring *)1;
    CHECK(ct_ring_create(&r, 0, 1) == CT_E_USAGE);
    CHECK(r == NULL);
    CHECK(ct_ring_create(&r, 4, 0) == CT_E_USAGE);
    ct_ring_free(NULL);
}

TEST(acquire_gives_the_same_sequence_until_released)
{
    ct_ring *r;
    uint64_t seq = 99;
    CHECK(ct_ring_create(&r, 2, 1) == CT_OK);
    CHECK(ct_ring_claim(r, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 0);
    ct_ring_publish(r);
    CHECK(ct_ring_claim(r, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 1);
    ct_ring_publish(r);
    CHECK(ct_ring_acquire(r, 0, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 0);
    CHECK(ct_ring_acquire(r, 0, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 0);
    ct_ring_release(r, 0);
    CHECK(ct_ring_acquire(r, 0, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 1);
    /* slot 0 is free again: sequence 2 may be claimed without waiting */
    CHECK(ct_ring_claim(r, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 2);
    ct_ring_free(r);
}

struct claimer {
    ct_ring *r;
    int rc;
    uint64_t seq;
};

static void *claim_one(void *arg)
{
    struct claimer *c = arg;
    c->rc = ct_ring_claim(c->r, &c->seq);
    return NULL;
}

TEST(a_full_ring_waits_and_stop_ends_the_wait)
{
    ct_ring *r;
    uint64_t seq;
    pthread_t th;
    struct claimer c = {0};
    CHECK(ct_ring_create(&r, 2, 2) == CT_OK);
    for (int i = 0; i < 2; i++) {
        CHECK(ct_ring_claim(r, &seq) == CT_OK);
        ct_ring_publish(r);
    }
    /* consumer 0 releases sequence 0, consumer 1 does not: slot 0 stays taken */
    CHECK(ct_ring_acquire(r, 0, &seq) == CT_OK);
    ct_ring_release(r, 0);
    c.r = r;
    c.rc = 1;
    CHECK(pthread_create(&th, NULL, claim_one, &c) == 0);
    nanosleep(&(struct timespec){0, 20000000}, NULL); /* let it wait: were it
                                                       not to, it would claim */
    ct_ring_stop(r);
    pthread_join(th, NULL);
    CHECK(c.rc == CT_E_INTERRUPTED);
    CHECK(ct_ring_drain(r) == CT_E_INTERRUPTED);
    /* stopped: what was published is still handed out, then nothing */
    CHECK(ct_ring_acquire(r, 1, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 0);
    ct_ring_release(r, 1);
    CHECK(ct_ring_acquire(r, 1, &seq) == CT_OK);
    CHECK_EQ_U64(seq, 1);
    ct_ring_release(r, 1);
    CHECK(ct_ring_acquire(r, 1, &seq) == CT_E_INTERRUPTED);
    CHECK(ct_ring_claim(r, &seq) == CT_E_INTERRUPTED);
    ct_ring_free(r);
}

#define NSEQ 20000
#define NSLOT 4
#define NCONS 3

struct shared {
    ct_ring *r;
    uint64_t slot[NSLOT];
    uint64_t seen[NCONS];   /* sequences a consumer saw in order with its value */
};

struct consumer {
    struct shared *s;
    uint32_t id;
};

static void *consume(void *arg)
{
    struct consumer *c = arg;
    uint64_t seq;
    while (ct_ring_acquire(c->s->r, c->id, &seq) == CT_OK) {
        if (seq == c->s->seen[c->id] && c->s->slot[seq % NSLOT] == seq * 7 + 1)
            c->s->seen[c->id]++;
        ct_ring_release(c->s->r, c->id);
    }
    return NULL;
}

TEST(every_consumer_sees_every_sequence_in_order)
{
    struct shared s = {0};
    struct consumer c[NCONS];
    pthread_t th[NCONS];
    uint64_t seq;
    CHECK(ct_ring_create(&s.r, NSLOT, NCONS) == CT_OK);
    for (uint32_t i = 0; i < NCONS; i++) {
        c[i].s = &s;
        c[i].id = i;
        CHECK(pthread_create(&th[i], NULL, consume, &c[i]) == 0);
    }
    for (uint64_t i = 0; i < NSEQ; i++) {
        if (ct_ring_claim(s.r, &seq) != CT_OK || seq != i)
            break;
        s.slot[seq % NSLOT] = seq * 7 + 1;
        ct_ring_publish(s.r);
    }
    CHECK(ct_ring_drain(s.r) == CT_OK);
    for (uint32_t i = 0; i < NCONS; i++)
        CHECK_EQ_U64(s.seen[i], NSEQ);
    ct_ring_stop(s.r);
    for (uint32_t i = 0; i < NCONS; i++)
        pthread_join(th[i], NULL);
    ct_ring_free(s.r);
}

int main(void)
{
    RUN(no_slots_or_no_consumers_is_a_usage_error);
    RUN(acquire_gives_the_same_sequence_until_released);
    RUN(a_full_ring_waits_and_stop_ends_the_wait);
    RUN(every_consumer_sees_every_sequence_in_order);
    return harness_done();
}
