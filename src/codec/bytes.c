/* Byte-string helpers for scan bounds (plusOne, prefix upper bound,
 * docs/storage-format.md §8), the offset token (suffix XOR K, base64url without padding,
 * §7) and hex dumps. */
#include <string.h>
#include "codec/bytes.h"
#include "codec/element.h"

/* Upstream's fixed XOR key: the token only obscures the key suffix. */
static const guint8 token_key[16] = {
  0x5a, 0x45, 0xe1, 0x87, 0xcb, 0xe8, 0xde, 0xfc, 0x37, 0x36, 0x01, 0xe1, 0xd5, 0xc0, 0x74, 0xf5,
};

gboolean
ab_codec_plus_one (GByteArray *buf)
{
  for (guint i = buf->len; i > 0; i--)
    {
      if (buf->data[i - 1] != 0xFF)
        {
          buf->data[i - 1]++;
          return TRUE;
        }
      buf->data[i - 1] = 0x00;
    }
  return FALSE;
}

GByteArray *
ab_codec_prefix_upper_bound (const guint8 *prefix, gsize len)
{
  while (len > 0 && prefix[len - 1] == 0xFF)
    len--;
  if (len == 0)
    return NULL;
  GByteArray *out = g_byte_array_sized_new ((guint) len);
  g_byte_array_append (out, prefix, (guint) len);
  out->data[len - 1]++;
  return out;
}

GByteArray *
ab_codec_prefix_range (const guint8 *prefix, gsize len, AbScanRange *range)
{
  GByteArray *stop = ab_codec_prefix_upper_bound (prefix, len);
  *range = (AbScanRange){ .start = prefix,
                          .start_len = len,
                          .start_inclusive = TRUE,
                          .stop = stop != NULL ? stop->data : NULL,
                          .stop_len = stop != NULL ? stop->len : 0 };
  return stop;
}

static void
xor_key (guint8 *buf, gsize len)
{
  for (gsize i = 0; i < len; i++)
    buf[i] ^= token_key[i % sizeof token_key];
}

gchar *
ab_codec_offset_encode (const guint8 *suffix, gsize len)
{
  g_autofree guint8 *mixed = g_memdup2 (suffix, len);
  xor_key (mixed, len);
  gchar *b64 = g_base64_encode (mixed, len);
  gsize n = strlen (b64);
  while (n > 0 && b64[n - 1] == '=')
    b64[--n] = '\0';
  for (gsize i = 0; i < n; i++)
    {
      if (b64[i] == '+')
        b64[i] = '-';
      else if (b64[i] == '/')
        b64[i] = '_';
    }
  return b64;
}

static gboolean
token_error (GError **error, const gchar *why)
{
  g_set_error (error, AB_CODEC_ERROR, AB_CODEC_ERROR_TOKEN, "invalid offset token: %s", why);
  return FALSE;
}

/* Rewrites a base64url token (padding optional) into standard padded base64,
 * because g_base64_decode does not report bad input itself. */
static gchar *
to_std_base64 (const gchar *token, GError **error)
{
  gsize total = strlen (token), pad = 0;
  while (pad < 2 && pad < total && token[total - 1 - pad] == '=')
    pad++;
  gsize n = total - pad;
  /* "" is the (unused in practice) token of an empty suffix: keep the round
   * trip total rather than special-casing it. */
  if ((n == 0 && pad > 0) || n % 4 == 1 || (pad > 0 && total % 4 != 0))
    {
      token_error (error, "bad length or padding");
      return NULL;
    }
  GString *s = g_string_sized_new (n + 3);
  for (gsize i = 0; i < n; i++)
    {
      gchar c = token[i];
      if (c == '-')
        c = '+';
      else if (c == '_')
        c = '/';
      else if (!g_ascii_isalnum (c))
        {
          g_string_free (s, TRUE);
          token_error (error, "bad character");
          return NULL;
        }
      g_string_append_c (s, c);
    }
  while (s->len % 4 != 0)
    g_string_append_c (s, '=');
  return g_string_free (s, FALSE);
}

GBytes *
ab_codec_offset_decode (const gchar *token, GError **error)
{
  if (token == NULL)
    {
      token_error (error, "missing");
      return NULL;
    }
  g_autofree gchar *std = to_std_base64 (token, error);
  if (std == NULL)
    return NULL;
  gsize len = 0;
  guint8 *raw = g_base64_decode (std, &len);
  xor_key (raw, len);
  return g_bytes_new_take (raw, len);
}

gchar *
ab_codec_hex (const guint8 *buf, gsize len)
{
  static const gchar digits[] = "0123456789abcdef";
  gchar *s = g_malloc (len * 2 + 1);
  for (gsize i = 0; i < len; i++)
    {
      s[2 * i] = digits[buf[i] >> 4];
      s[2 * i + 1] = digits[buf[i] & 0x0F];
    }
  s[len * 2] = '\0';
  return s;
}
