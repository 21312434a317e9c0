/* libFuzzer target: element decoding (ab_codec_get_value / ab_codec_skip) on
 * arbitrary bytes. Every element that decodes must skip to the same place,
 * decode the same through an arena (ab_codec_get_value_in) and re-encode
 * (same order) to bytes that decode to an equal value. */
#include <math.h>
#include "codec/element.h"
#include "fuzz.h"

static gboolean
comparable (const AbValue *v)
{
  /* NaN never equals itself */
  return !((v->kind == AB_VALUE_FLOAT32 || v->kind == AB_VALUE_FLOAT64) && isnan (v->u.f));
}

static void
round_trip (const AbValue *v, AbOrder order)
{
  g_autoptr (GByteArray) again = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  if (!ab_codec_put_value (again, v, order, &error))
    {
      /* only text the encoder refuses may fail: the decoder let it through */
      AB_FUZZ_CHECK (v->kind == AB_VALUE_STRING || v->kind == AB_VALUE_JSON);
      return;
    }
  gsize pos = 0;
  AbValue back = AB_VALUE_INIT;
  AbOrder back_order;
  AB_FUZZ_CHECK (ab_codec_get_value (again->data, again->len, &pos, &back, &back_order, NULL));
  AB_FUZZ_CHECK (pos == again->len && back_order == order);
  AB_FUZZ_CHECK (!comparable (v) || ab_value_equal (v, &back));
  ab_value_clear (&back);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GStringChunk *strings = g_string_chunk_new (64);
  gsize pos = 0;
  while (pos < size)
    {
      gsize skipped = pos, in_pos = pos;
      AbValue v = AB_VALUE_INIT, in = AB_VALUE_INIT;
      AbOrder order, in_order;
      gboolean ok = ab_codec_get_value (data, size, &pos, &v, &order, NULL);
      gboolean skip_ok = ab_codec_skip (data, size, &skipped, NULL);
      gboolean in_ok = ab_codec_get_value_in (data, size, &in_pos, &in, &in_order, strings, NULL);
      AB_FUZZ_CHECK (in_ok == ok);
      if (!ok)
        {
          ab_value_clear (&v);
          ab_value_clear (&in);
          break;
        }
      AB_FUZZ_CHECK (skip_ok && skipped == pos);
      AB_FUZZ_CHECK (in_pos == pos && in_order == order && in.kind == v.kind);
      AB_FUZZ_CHECK (!comparable (&v) || ab_value_equal (&v, &in));
      ab_value_clear (&in); /* borrowed text: the arena keeps it */
      round_trip (&v, order);
      ab_value_clear (&v);
    }
  g_string_chunk_free (strings);
  return 0;
}
