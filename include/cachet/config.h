/*
 * cachet/config.h - configurations: INI files checked against one schema.
 *
 * A configuration is read from an INI file (line rules: sim/ini.c, and the
 * key reference) and checked strictly against a single schema table
 * (sim/config_schema.c): an unknown section or key, a malformed value or an
 * impossible geometry is an error of the form "FILE: [section] key:
 * reason". Values are parsed from their text: sizes take K, M, G and T
 * suffixes (powers of 1024; also written KB or KiB), integers are decimal or
 * 0x-hex, booleans are yes/no, true/false, on/off or 1/0.
 *
 * A top-level `include = other.ini` (path relative to the including file)
 * reads that file first; the including file's values win. A cache section
 * that is absent means the level does not exist: with no [l1i], instruction
 * fetches go straight to the next level.
 *
 * The key reference, with units, ranges and defaults, is configs/README.md,
 * generated from the same table by `cachet config --keys`.
 */
#ifndef CACHET_CONFIG_H
#define CACHET_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "cachet/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ct_config ct_config;

/* A configuration with no file: every key at its default, cache sections
 * [l1d] and [l2] present (the built-in default hierarchy). */
int ct_config_new_default(ct_config **out, ct_error *err);

/* An empty configuration: no cache level exists until a key or section is
 * set. Used to build configurations from scratch (tests, sweeps). */
int ct_config_new_empty(ct_config **out, ct_error *err);

/* Read and check an INI file. On failure *out is NULL and err holds
 * "FILE: [section] key: reason" (or "FILE:LINE: syntax error"). */
int ct_config_load(ct_config **out, const char *path, ct_error *err);

/* Set one key, "section.key=value" or section and key given apart. The
 * value is checked alone (type and range); the geometry, which depends on
 * several keys (size, assoc, line), is checked by ct_config_check or, at the
 * latest, by ct_sim_create, so keys can be set one at a time in any order.
 * An absent cache level or TLB is created by setting its size key (size,
 * or entries for a TLB); any other key of an absent one is an error. Errors
 * name the assignment: "l1d.size=64K: [l1d] size: reason". On failure
 * nothing is changed. */
int ct_config_set(ct_config *c, const char *assignment, ct_error *err);
int ct_config_set_kv(ct_config *c, const char *section, const char *key,
                     const char *value, ct_error *err);

/* Check the geometry after keys were set one at a time: CT_OK, or
 * CT_E_CONFIG naming the key at fault. Cheap when nothing changed. */
int ct_config_check(ct_config *c, ct_error *err);

/* Set several "section.key=value" keys, then check the whole configuration
 * once, geometry included (so that, e.g., size and assoc can change
 * together). On failure nothing is changed. */
int ct_config_set_all(ct_config *c, const char *const *assignments, size_t n, ct_error *err);

/* ct_config_set_all, with errors naming each key as prefix + assignment
 * (a command line passes "-s "). */
int ct_config_set_list(ct_config *c, const char *prefix, const char *const *assignments,
                       size_t n, ct_error *err);

/* Set several keys at once ("sections[i].keys[i] = values[i]"), then check
 * the configuration once: combinations that are only valid together (a new
 * size with a new associativity) are accepted. Errors name `origin` as the
 * place the values came from ("ORIGIN: [section] key: reason"); on failure
 * the configuration is left as it was. */
int ct_config_set_many(ct_config *c, const char *origin, size_t n, const char *const *sections,
                       const char *const *keys, const char *const *values, ct_error *err);

/* Check that `value` parses for a key (type and range only, no geometry):
 * CT_OK, or CT_E_CONFIG with "[section] key: reason". */
int ct_config_check_value(const char *section, const char *key, const char *value,
                          ct_error *err);

/* Remove a whole section (a cache level); no error if it is absent. */
int ct_config_remove_section(ct_config *c, const char *section, ct_error *err);

/* A deep copy (sweeps run many variants of one base). */
int ct_config_clone(ct_config **out, const ct_config *c, ct_error *err);

void ct_config_free(ct_config *c);

/* The resolved value of a key as text ("32768", "lru", "yes"), written to buf
 * when it needs formatting; NULL when the section is absent or the key
 * unknown. */
const char *ct_config_get(const ct_config *c, const char *section, const char *key,
                          char *buf, size_t n);

/* Whether a section (cache level) is present. */
int ct_config_has_section(const ct_config *c, const char *section);

/* The file the configuration came from ("" when built in). */
const char *ct_config_path(const ct_config *c);

/* 64-bit FNV-1a hash of the resolved configuration (every present section,
 * every key, in schema order), printed as 16 hex digits in results. */
uint64_t ct_config_hash(const ct_config *c);

/* Walk the resolved configuration: fn is called for every present section
 * and key in schema order with the resolved value; a non-zero return stops. */
typedef int (*ct_config_visit_fn)(void *ctx, const char *section,
                                  const char *key, const char *value);
int ct_config_visit(const ct_config *c, ct_config_visit_fn fn, void *ctx);

/* The schema, for documentation. */
typedef struct ct_config_key_doc {
    const char *section;  /* "system", "l1d", ... */
    const char *key;
    const char *type;     /* "size", "uint", "bool", "enum", "string", "ways" */
    char range[256];      /* "1..1024", "lru|plru|...", "" */
    const char *def;      /* default as text */
    const char *help;     /* one line, with unit */
} ct_config_key_doc;

/* Fill doc with schema row i; returns 1, or 0 past the last row. */
int ct_config_schema_row(size_t i, ct_config_key_doc *doc);

/* Parse a size with an optional K/M/G suffix ("64K" -> 65536). Returns 0 on
 * success, -1 when text is not a size. Used by the sweep parser too. */
int ct_parse_size(const char *text, uint64_t *out);

/* Write a size into buf (n bytes, always terminated) as ct_parse_size reads
 * it back, with the largest suffix that divides it exactly: 65536 -> "64K",
 * 3145728 -> "3M", 1536 -> "1536", 0 -> "0". */
void ct_format_size(uint64_t v, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
