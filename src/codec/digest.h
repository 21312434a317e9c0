/* The tree's one SHA-256 (backups, API key hashes, the web console's ETags,
 * copy checkpoints): OpenSSL's EVP digest, which uses the CPU's SHA
 * extensions where it has them. One context per stream; ab_sha256_hex
 * finishes and frees it. */
#pragma once
#include <glib.h>

typedef struct {
  gpointer ctx; /* EVP_MD_CTX */
} AbSha256;

void ab_sha256_init (AbSha256 *s);
void ab_sha256_update (AbSha256 *s, const void *data, gsize len);
/* Finishes s and writes the digest as 64 lowercase hex digits and a NUL. */
void ab_sha256_hex (AbSha256 *s, gchar out[65]);
/* Frees an unfinished s (a stream given up); a no-op after ab_sha256_hex. */
void ab_sha256_clear (AbSha256 *s);
/* The digest of data[0..len) as 64 lowercase hex digits (free with g_free). */
gchar *ab_sha256_hex_of (const void *data, gsize len);
