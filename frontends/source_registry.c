/*
 * source_registry.c - the decompressors tried, in order, on the head of
 * every stream. One line each.
 */
#include "frontend.h"

static const ct_source_ops *const decoders[] = {
    &ct_source_gzip,
    &ct_source_zstd,
    &ct_source_compress,
    &ct_source_zip,
    &ct_source_snappy,
    &ct_source_lz4,
};

const ct_source_ops *ct_source_decoder_at(size_t i)
{
    return i < sizeof decoders / sizeof decoders[0] ? decoders[i] : NULL;
}
