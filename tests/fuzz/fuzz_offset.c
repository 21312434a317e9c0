/* libFuzzer target: offset tokens (ab_codec_offset_decode), the one opaque
 * value clients send back: garbage is refused, and what decodes encodes to a
 * token that decodes to the same bytes. */
#include "codec/bytes.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree gchar *token = g_strndup ((const gchar *) data, size);
  g_autoptr (GBytes) raw = ab_codec_offset_decode (token, NULL);
  if (raw == NULL)
    return 0;
  gsize len = 0;
  const guint8 *bytes = g_bytes_get_data (raw, &len);
  g_autofree gchar *again = ab_codec_offset_encode (bytes, len);
  g_autoptr (GBytes) back = ab_codec_offset_decode (again, NULL);
  AB_FUZZ_CHECK (back != NULL && g_bytes_equal (raw, back));
  return 0;
}
