/* libFuzzer target: State, Index and Lock value decoding (codec/record.h) on
 * arbitrary bytes, as values read back from a store. The first byte picks the
 * decoder; a decoded State value must encode again. */
#include "codec/record.h"
#include "fuzz.h"

static void
state (const guint8 *data, gsize size)
{
  AbStateValue sv;
  ab_codec_state_value_init (&sv);
  if (ab_codec_decode_state_value (data, size, &sv, NULL))
    {
      g_autoptr (GByteArray) again = g_byte_array_new ();
      AbStateValue back;
      ab_codec_state_value_init (&back);
      if (ab_codec_encode_state_value (again, &sv, NULL))
        {
          AB_FUZZ_CHECK (ab_codec_decode_state_value (again->data, again->len, &back, NULL));
          AB_FUZZ_CHECK (back.meta.version == sv.meta.version
                         && back.meta.active == sv.meta.active);
          AB_FUZZ_CHECK (back.props->len == sv.props->len);
        }
      ab_codec_state_value_clear (&back);
    }
  ab_codec_state_value_clear (&sv);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  const guint8 *rest = data + 1;
  gsize n = size - 1;
  switch (data[0] % 3)
    {
      case 0: state (rest, n); break;
      case 1:
        {
          gint64 version = 0;
          g_autoptr (GArray) props = ab_codec_coded_prop_array_new ();
          ab_codec_decode_index_value (rest, n, &version, props, NULL);
          break;
        }
      default:
        {
          gint64 ms = 0;
          ab_codec_decode_lock_value (rest, n, &ms, NULL);
          break;
        }
    }
  return 0;
}
