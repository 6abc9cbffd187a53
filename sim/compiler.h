/*
 * compiler.h - branch hints and inlining in one place (internal).
 */
#ifndef CT_COMPILER_H
#define CT_COMPILER_H

#if defined(__GNUC__)
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FORCE_INLINE static inline __attribute__((always_inline))
#define NOINLINE __attribute__((noinline))
#define PREFETCH_R(p) __builtin_prefetch((p), 0, 3)
#else
#define LIKELY(x) (x)
#define UNLIKELY(x) (x)
#define FORCE_INLINE static inline
#define NOINLINE
#define PREFETCH_R(p) ((void)(p))
#endif

/* A function compiled twice, with and without the POPCNT instruction (not
 * in the x86-64 baseline), the right one picked when the program loads.
 * Elsewhere a plain function; also under ThreadSanitizer, whose runtime is
 * not ready when the loader picks. */
#if defined(__x86_64__) && defined(__has_attribute) && !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones)
#define CT_CLONES_POPCNT __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef CT_CLONES_POPCNT
#define CT_CLONES_POPCNT
#endif

#define CT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
