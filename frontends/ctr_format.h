/*
 * ctr_format.h - constants and integer coding of the cachet trace format
 * (internal). The format itself is specified in frontends/CTR.md; the
 * reader is ctr.c, the writers write_ctr.c.
 */
#ifndef CT_CTR_FORMAT_H
#define CT_CTR_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define CTR_MAGIC "\x89" "CTR\r\n\x1a\n"
#define CTR_MAGIC_LEN 8
#define CTR_MAJOR 1
#define CTR_MINOR 0
#define CTR_FIXED_HEADER 16       /* magic, major, minor, text length */
#define CTR_HEADER_TEXT_MAX 65536

/* Tag byte. */
#define CTR_KIND_MASK 0x07        /* 0..6 access kind, 7 other record */
#define CTR_OTHER 0x07
#define CTR_SAME_SIZE 0x08
#define CTR_TIME_SHIFT 4          /* 2 bits: */
#define CTR_TIME_SAME 0           /*   time = last time */
#define CTR_TIME_NEXT 1           /*   time = last time + 1 */
#define CTR_TIME_DELTA 2          /*   a zigzag delta follows */
#define CTR_PC_PREDICTED 0x40
#define CTR_STRIDE 0x80

/* Types of other records (tag >> 3). */
enum ctr_record { CTR_STATE = 0, CTR_MARKER, CTR_EVENT, CTR_NAME, CTR_END, CTR_KIND_STATE,
                  CTR_NTYPES };

#define CTR_NAME_MAX 255
#define CTR_ACCESS_KINDS 7        /* CT_IFETCH .. CT_NOFETCH */
#define CTR_OP_MISC 0xff          /* a load kind state with this op: the loads that
                                     follow are kind misc (CT_MISC), op 0 */

#define CTR_MARKER_FIELDS 7       /* type cpu thread aux time value value2 */
#define CTR_MARKER_STRIDED 4      /* fields from here on predicted with a stride */
#define CTR_EVENT_FIELDS 16       /* type op cpu structure flags stage level regime
                                     result asid vmid time line addr value size */
/* The longest record: an event, tag + mask + 16 varints of 10 bytes. */
#define CTR_RECORD_MAX (1 + 3 + CTR_EVENT_FIELDS * 10)
/* The longest name record. */
#define CTR_NAME_RECORD_MAX (1 + 10 + 10 + CTR_NAME_MAX)

static inline uint64_t ctr_zigzag(uint64_t d)
{
    return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t ctr_unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

/* Append a varint at p; returns the byte after it (at most 10 bytes). */
static inline uint8_t *ctr_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

#endif
