/* libFuzzer target: the ranges/filters parser (ab_predicates_parse) against
 * a table with a field of every type, then filter evaluation on one fixed
 * edge. The first byte chooses ranges (no "in") or filters. */
#include "engine/core/predicate.h"
#include "fuzz.h"
#include "fuzz_fixture.h"

/* One edge with a value of the right kind for every field. */
static const AbValue *
lookup (const gchar *field, gpointer data)
{
  static const gchar *names[] = { "z", "b",      "h",   "i",      "l",   "f",       "d", "s",
                                  "o", "source", "src", "target", "tgt", "version", "ts" };
  static AbValue values[G_N_ELEMENTS (names)];
  static gboolean ready;
  if (!ready)
    {
      ab_value_set_bool (&values[0], TRUE);
      ab_value_set_int (&values[1], AB_VALUE_INT8, -3);
      ab_value_set_int (&values[2], AB_VALUE_INT16, 300);
      ab_value_set_int (&values[3], AB_VALUE_INT32, 70000);
      ab_value_set_int (&values[4], AB_VALUE_INT64, G_MININT64);
      ab_value_set_float (&values[5], AB_VALUE_FLOAT32, 0.5);
      ab_value_set_float (&values[6], AB_VALUE_FLOAT64, -1e300);
      ab_value_set_string (&values[7], AB_VALUE_STRING, "x", 1);
      ab_value_set_string (&values[8], AB_VALUE_JSON, "{\"a\":1}", 7);
      for (guint k = 9; k < G_N_ELEMENTS (names); k++)
        if (g_str_equal (names[k], "target") || g_str_equal (names[k], "tgt"))
          ab_value_set_string (&values[k], AB_VALUE_STRING, "y", 1);
        else
          ab_value_set_int (&values[k], AB_VALUE_INT64, 7);
      ready = TRUE;
    }
  for (guint k = 0; k < G_N_ELEMENTS (names); k++)
    if (g_str_equal (field, names[k]))
      return &values[k];
  return NULL;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size == 0)
    return 0;
  gboolean filters = data[0] & 1;
  g_autofree gchar *text = g_strndup ((const gchar *) data + 1, size - 1);
  GPtrArray *preds
      = ab_predicates_parse (ab_fuzz_table (), text, filters, filters ? "filters" : "ranges", NULL);
  if (preds == NULL)
    return 0;
  for (guint i = 0; i < preds->len; i++)
    {
      AbPredicate *p = g_ptr_array_index (preds, i);
      AB_FUZZ_CHECK (p->values->len >= 1);
      AB_FUZZ_CHECK (p->op != AB_PRED_BT || p->values->len == 2);
      AB_FUZZ_CHECK (filters || p->op != AB_PRED_IN);
    }
  ab_filters_match (preds, lookup, NULL);
  g_ptr_array_unref (preds);
  return 0;
}
