/* SHA-256 through OpenSSL's EVP interface (digest.h): the same library the
 * server's TLS uses, so the tree has no SHA-256 of its own (nor GChecksum's).
 * A failing EVP call is a broken OpenSSL install: it aborts. */
#include <openssl/evp.h>
#include "codec/digest.h"

void
ab_sha256_init (AbSha256 *s)
{
  EVP_MD_CTX *ctx = EVP_MD_CTX_new ();
  if (ctx == NULL || EVP_DigestInit_ex (ctx, EVP_sha256 (), NULL) != 1)
    g_error ("OpenSSL cannot start a SHA-256 digest");
  s->ctx = ctx;
}

void
ab_sha256_update (AbSha256 *s, const void *data, gsize len)
{
  if (len > 0 && EVP_DigestUpdate (s->ctx, data, len) != 1)
    g_error ("OpenSSL SHA-256 update failed");
}

void
ab_sha256_hex (AbSha256 *s, gchar out[65])
{
  guint8 md[EVP_MAX_MD_SIZE];
  guint n = 0;
  if (EVP_DigestFinal_ex (s->ctx, md, &n) != 1 || n != 32)
    g_error ("OpenSSL SHA-256 final failed");
  ab_sha256_clear (s);
  static const gchar digits[] = "0123456789abcdef";
  for (guint i = 0; i < 32; i++)
    {
      out[2 * i] = digits[md[i] >> 4];
      out[2 * i + 1] = digits[md[i] & 15];
    }
  out[64] = '\0';
}

void
ab_sha256_clear (AbSha256 *s)
{
  g_clear_pointer ((EVP_MD_CTX **) &s->ctx, EVP_MD_CTX_free);
}

gchar *
ab_sha256_hex_of (const void *data, gsize len)
{
  AbSha256 s;
  gchar *out = g_malloc (65);
  ab_sha256_init (&s);
  ab_sha256_update (&s, data, len);
  ab_sha256_hex (&s, out);
  return out;
}
