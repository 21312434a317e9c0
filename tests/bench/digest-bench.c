/* What a backup's SHA-256 costs (issue 42): 256 MiB hashed in 1 MiB pieces by
 * OpenSSL's EVP (what actionbase-admin uses) and by GLib's GChecksum, and,
 * when built with -DWITH_OLD, by the hand-written SHA-NI code the tree had
 * before (tests/bench/digest-bench.sh extracts it from git); GB/s and ratios. */
#include <glib.h>
#include <openssl/evp.h>
#include <stdio.h>
#ifdef WITH_OLD
#include "sha256.h"
#endif

#define TOTAL ((gsize) 256 << 20)
#define PIECE ((gsize) 1 << 20)

static double
rate (gint64 start)
{
  return (double) TOTAL / ((double) (g_get_monotonic_time () - start) / 1e6) / 1e9;
}

static double
evp (const guint8 *d)
{
  gint64 t = g_get_monotonic_time ();
  EVP_MD_CTX *c = EVP_MD_CTX_new ();
  guint8 md[EVP_MAX_MD_SIZE];
  guint len;
  EVP_DigestInit_ex (c, EVP_sha256 (), NULL);
  for (gsize at = 0; at < TOTAL; at += PIECE)
    EVP_DigestUpdate (c, d + at, PIECE);
  EVP_DigestFinal_ex (c, md, &len);
  EVP_MD_CTX_free (c);
  return rate (t);
}

static double
gchecksum (const guint8 *d)
{
  gint64 t = g_get_monotonic_time ();
  GChecksum *g = g_checksum_new (G_CHECKSUM_SHA256);
  for (gsize at = 0; at < TOTAL; at += PIECE)
    g_checksum_update (g, d + at, PIECE);
  g_checksum_free (g);
  return rate (t);
}

int
main (void)
{
  guint8 *d = g_malloc (TOTAL);
  for (gsize i = 0; i < TOTAL; i++)
    d[i] = (guint8) ((i * 2654435761u) >> 13);
  for (int round = 1; round <= 2; round++)
    {
      double e = evp (d), g = gchecksum (d);
      printf ("round %d: OpenSSL EVP %.2f GB/s, GChecksum %.2f GB/s (EVP %.1fx)", round, e, g,
              e / g);
#ifdef WITH_OLD
      gint64 t = g_get_monotonic_time ();
      AbSha256 s;
      gchar hex[65];
      ab_sha256_init (&s);
      for (gsize at = 0; at < TOTAL; at += PIECE)
        ab_sha256_update (&s, d + at, PIECE);
      ab_sha256_hex (&s, hex);
      double o = rate (t);
      printf (", the old sha256.c %.2f GB/s (EVP %.2fx)", o, e / o);
#endif
      printf ("\n");
    }
  g_free (d);
  return 0;
}
