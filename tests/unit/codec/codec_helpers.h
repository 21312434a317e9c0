/* Shared by the codec Check suites: hex literals with spaces, byte-order
 * comparison with "shorter first", and random AbValues biased towards the
 * edge cases (extremes, prefixes, NaN, -0.0, multi-byte UTF-8). */
#pragma once
#include <check.h>
#include <glib.h>
#include "codec/element.h"

/* Parses hex, ignoring spaces; aborts the test on a bad literal. */
GByteArray *th_hex (const gchar *hex);
/* Asserts buf equals the hex literal (spaces ignored); prints both on failure. */
void th_assert_hex (const guint8 *buf, gsize len, const gchar *hex);
/* Unsigned lexicographic order, a proper prefix first: -1, 0 or 1. */
gint th_bytes_cmp (const guint8 *a, gsize alen, const guint8 *b, gsize blen);
gint th_sign (gint v);
/* The seeded generator of a suite (AB_TEST_SEED overrides the default). */
GRand *th_rand_new (void);
/* How many rounds a randomised property runs: n, or a tenth of it under
 * valgrind (AB_TEST_UNDER_VALGRIND), which checks the code each round runs
 * and not the values drawn (the native and ASan runs draw them all). */
gint th_rounds (gint n);
/* A random value of the given kind. */
void th_random_value (GRand *r, AbValueKind kind, AbValue *out);
/* A random kind, null and bool included. */
AbValueKind th_random_kind (GRand *r);
/* The element encoding of v; the test fails if encoding fails. */
GByteArray *th_encode (const AbValue *v, AbOrder order);
/* A copy of buf[0..len) in its own allocation, so ASan sees any overread. */
guint8 *th_exact_copy (const guint8 *buf, gsize len);
