/* SHA-256 for backups (dump.c): the x86 SHA extensions when the CPU has
 * them (about 15 times GLib's GChecksum, which hashes ~100 MB/s), else a
 * portable implementation. The digests are SHA-256's, whichever runs. */
#pragma once
#include <glib.h>

typedef struct {
  guint32 h[8];
  guint8 buf[64];
  gsize buf_len;
  guint64 total; /* bytes hashed */
} AbSha256;

void ab_sha256_init (AbSha256 *s);
void ab_sha256_update (AbSha256 *s, const void *data, gsize len);
/* Finishes s and writes the digest as 64 lowercase hex digits and a NUL. */
void ab_sha256_hex (AbSha256 *s, gchar out[65]);
/* FALSE forces the portable code (tests compare both); returns whether the
 * CPU's SHA extensions are used from now on. */
gboolean ab_sha256_use_cpu (gboolean allow);
