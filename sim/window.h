/*
 * window.h - the check of [system] warmup_fraction's text (sim/window.c).
 */
#ifndef CACHET_WINDOW_H
#define CACHET_WINDOW_H

#include <stddef.h>

/* 0 when text is a decimal fraction from 0 to 1 (its value in *out when out
 * is not NULL), else -1 with the reason in why. */
int ct_warmup_fraction_parse(const char *text, double *out, char *why, size_t whyn);
int ct_warmup_fraction_check(const char *text, char *why, size_t whyn);

#endif
