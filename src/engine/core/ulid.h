/* ULIDs for queue message ids: 48-bit millisecond time + 80 random bits in
 * Crockford base32 (26 chars), monotonic within a millisecond in one process
 * (the random part is incremented when the clock has not moved). */
#pragma once
#include <glib.h>

/* Writes 26 characters + NUL into out. */
void ab_ulid_new (gchar out[27]);
/* For tests: the ULID for a given time and 80-bit random part. */
void ab_ulid_format (guint64 ms, guint16 rand_hi, guint64 rand_lo, gchar out[27]);
/* Milliseconds encoded in a ULID's first 10 characters; FALSE if malformed. */
gboolean ab_ulid_time (const gchar *ulid, guint64 *ms);
