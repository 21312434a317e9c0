/* Byte-string arithmetic for scans (docs/storage-format.md §8) and the opaque offset
 * token (§7): plusOne with carry, the prefix upper bound (and the scan range
 * over a prefix), and the XOR + base64url token encoding. */
#pragma once
#include <glib.h>
#include "store/store.h"

/* In place: add one to buf as an unsigned big-endian number (length kept).
 * Returns FALSE when it wrapped (all 0xFF): the caller treats it as unbounded. */
gboolean ab_codec_plus_one (GByteArray *buf);
/* Smallest key greater than every key with this prefix: drop trailing 0xFF,
 * +1 on the last byte. NULL when the prefix is all 0xFF (unbounded). */
GByteArray *ab_codec_prefix_upper_bound (const guint8 *prefix, gsize len);
/* *range = every key with this prefix (from the prefix inclusive, up to its
 * upper bound, no limit). Returns that bound (NULL: unbounded), which range
 * points into: free it only once range is done. */
GByteArray *ab_codec_prefix_range (const guint8 *prefix, gsize len, AbScanRange *range);

/* Token = base64url_nopad(suffix XOR K). */
gchar *ab_codec_offset_encode (const guint8 *suffix, gsize len);
/* Accepts missing padding; NULL + AB_CODEC_ERROR_TOKEN on garbage. */
GBytes *ab_codec_offset_decode (const gchar *token, GError **error);

/* Lower-case hex of bytes (reports, debugging). */
gchar *ab_codec_hex (const guint8 *buf, gsize len);
