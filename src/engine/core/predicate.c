/* ranges/filters: the text syntax, casting of each value to its field's
 * type, and filter evaluation (typed equality and membership, numeric
 * comparisons through doubles as upstream does). */
#include <string.h>
#include "engine/core/core.h"
#include "model/types.h"

void
ab_predicate_free (AbPredicate *p)
{
  g_free (p->field);
  g_array_unref (p->values);
  g_free (p);
}

gboolean
ab_engine_field_type (const AbTableDesc *t, const gchar *field, AbType *out)
{
  const AbSchema *s = t->schema;
  if (g_str_equal (field, "version") || g_str_equal (field, "ts"))
    *out = AB_TYPE_LONG;
  else if (g_str_equal (field, "source") || g_str_equal (field, "src"))
    *out = s->source_type;
  else if (g_str_equal (field, "target") || g_str_equal (field, "tgt"))
    *out = s->target_type;
  else
    {
      const AbField *f = ab_schema_field (s, field);
      if (f == NULL)
        return FALSE;
      *out = f->type;
    }
  return TRUE;
}

static gboolean
table_field_type (gconstpointer t, const gchar *field, AbType *out)
{
  return ab_engine_field_type (t, field, out);
}

static gboolean
parse_op (const gchar *text, AbPredOp *op)
{
  static const gchar *names[] = { "eq", "gt", "gte", "lt", "lte", "bt", "in" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (text, names[i]) == 0)
      {
        *op = (AbPredOp) i;
        return TRUE;
      }
  return FALSE;
}

static gboolean
unknown_field (const gchar *field, const gchar *what, AbFieldTypeFn type_of, gconstpointer data,
               GError **error)
{
  const AbTableDesc *t = data;
  g_autofree gchar *where = type_of == table_field_type
                                ? g_strdup_printf (" of %s.%s", t->database, t->table)
                                : g_strdup ("");
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "unknown field '%s' in %s%s", field,
                         what, where);
}

static gboolean
in_refused (AbPredOp op, gboolean allow_in, GError **error)
{
  if (op != AB_PRED_IN || allow_in)
    return FALSE;
  return !ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                          "`in` is not allowed in ranges (use it in filters)");
}

static AbPredicate *
predicate_new (const gchar *field, AbPredOp op, AbType type)
{
  AbPredicate *p = g_new0 (AbPredicate, 1);
  p->field = g_strdup (field);
  p->op = op;
  p->type = type;
  p->values = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (p->values, (GDestroyNotify) ab_value_clear);
  return p;
}

/* Appends p; an earlier predicate on the same field goes (last wins). */
static void
add_last_wins (GPtrArray *out, AbPredicate *p)
{
  for (guint j = 0; j < out->len; j++)
    if (g_str_equal (((AbPredicate *) out->pdata[j])->field, p->field))
      g_ptr_array_remove_index (out, j--);
  g_ptr_array_add (out, p);
}

static AbPredicate *
parse_term (const gchar *term, gboolean allow_in, const gchar *what, AbFieldTypeFn type_of,
            gconstpointer data, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (term, ":", 3);
  if (g_strv_length (parts) != 3 || parts[0][0] == '\0')
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "invalid %s term '%s': expected field:op:value", what, term),
           NULL;
  AbPredOp op;
  if (!parse_op (parts[1], &op))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "invalid %s operator '%s' (eq, gt, gte, lt, lte, bt%s)", what, parts[1],
                           allow_in ? ", in" : ""),
           NULL;
  if (in_refused (op, allow_in, error))
    return NULL;
  AbType type;
  if (!type_of (data, parts[0], &type))
    return unknown_field (parts[0], what, type_of, data, error), NULL;
  g_auto (GStrv) vals = (op == AB_PRED_BT || op == AB_PRED_IN) ? g_strsplit (parts[2], ",", -1)
                                                               : g_strsplit (parts[2], "\x01", 1);
  guint n = g_strv_length (vals);
  if ((op == AB_PRED_BT && n != 2) || n == 0)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "invalid %s term '%s': bt takes two values a,b", what, term),
           NULL;
  AbPredicate *p = predicate_new (parts[0], op, type);
  for (guint i = 0; i < n; i++)
    {
      AbValue v = AB_VALUE_INIT;
      g_autoptr (GError) local = NULL;
      if (!ab_model_cast_text (vals[i], type, parts[0], &v, &local))
        {
          ab_predicate_free (p);
          return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "invalid %s: %s", what,
                                 local->message),
                 NULL;
        }
      g_array_append_val (p->values, v);
    }
  return p;
}

GPtrArray *
ab_predicates_parse (const AbTableDesc *t, const gchar *text, gboolean allow_in, const gchar *what,
                     GError **error)
{
  return ab_predicates_parse_typed (text, allow_in, what, table_field_type, t, error);
}

GPtrArray *
ab_predicates_parse_typed (const gchar *text, gboolean allow_in, const gchar *what,
                           AbFieldTypeFn type_of, gconstpointer data, GError **error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_predicate_free);
  if (text == NULL || text[0] == '\0')
    return out;
  g_auto (GStrv) terms = g_strsplit (text, ";", -1);
  for (guint i = 0; terms[i] != NULL; i++)
    {
      if (terms[i][0] == '\0')
        continue;
      AbPredicate *p = parse_term (terms[i], allow_in, what, type_of, data, error);
      if (p == NULL)
        {
          g_ptr_array_unref (out);
          return NULL;
        }
      add_last_wins (out, p);
    }
  return out;
}

static AbPredicate *
spec_term (const AbTableDesc *t, const AbRangeSpec *spec, gboolean allow_in, const gchar *what,
           GError **error)
{
  AbType type;
  if ((guint) spec->op > AB_PRED_IN || spec->field == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "invalid %s term", what), NULL;
  if (in_refused (spec->op, allow_in, error))
    return NULL;
  if (!ab_engine_field_type (t, spec->field, &type))
    return unknown_field (spec->field, what, table_field_type, t, error), NULL;
  guint n = spec->n_values;
  if ((spec->op == AB_PRED_BT && n != 2) || n == 0 || (spec->op < AB_PRED_BT && n != 1)
      || spec->values == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "invalid %s term on '%s': %u values (bt takes two, in one or more, "
                           "the others one)",
                           what, spec->field, n),
           NULL;
  AbPredicate *p = predicate_new (spec->field, spec->op, type);
  for (guint i = 0; i < n; i++)
    {
      AbValue v = AB_VALUE_INIT;
      g_autoptr (GError) local = NULL;
      if (ab_value_is_null (&spec->values[i])
          || !ab_model_cast_value (&spec->values[i], type, spec->field, &v, &local))
        {
          ab_predicate_free (p);
          return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "invalid %s: %s", what,
                                 local != NULL ? local->message : "a value is null"),
                 NULL;
        }
      g_array_append_val (p->values, v);
    }
  return p;
}

GPtrArray *
ab_predicates_from_specs (const AbTableDesc *t, const AbRangeSpec *specs, guint n,
                          gboolean allow_in, const gchar *what, GError **error)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_predicate_free);
  for (guint i = 0; i < n; i++)
    {
      AbPredicate *p = spec_term (t, &specs[i], allow_in, what, error);
      if (p == NULL)
        return NULL;
      add_last_wins (out, p);
    }
  return g_steal_pointer (&out);
}

static gboolean
as_double (const AbValue *v, gdouble *out)
{
  switch (v->kind)
    {
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: *out = (gdouble) v->u.i; return TRUE;
      case AB_VALUE_FLOAT32:
      case AB_VALUE_FLOAT64: *out = v->u.f; return TRUE;
      case AB_VALUE_STRING:
        {
          gchar *end = NULL;
          *out = g_ascii_strtod (v->u.s.data, &end);
          return end != v->u.s.data && *end == '\0';
        }
      default: return FALSE;
    }
}

static gboolean
match_one (const AbPredicate *p, const AbValue *v)
{
  const AbValue *vals = (const AbValue *) p->values->data;
  if (p->op == AB_PRED_EQ)
    return v != NULL && ab_value_equal (v, &vals[0]);
  if (p->op == AB_PRED_IN)
    {
      for (guint i = 0; v != NULL && i < p->values->len; i++)
        if (ab_value_equal (v, &vals[i]))
          return TRUE;
      return FALSE;
    }
  gdouble x, a, b = 0;
  if (v == NULL || !as_double (v, &x) || !as_double (&vals[0], &a))
    return FALSE;
  if (p->op == AB_PRED_BT && !as_double (&vals[1], &b))
    return FALSE;
  switch (p->op)
    {
      case AB_PRED_GT: return x > a;
      case AB_PRED_GTE: return x >= a;
      case AB_PRED_LT: return x < a;
      case AB_PRED_LTE: return x <= a;
      case AB_PRED_BT: return x >= a && x <= b;
      default: return FALSE;
    }
}

gboolean
ab_filters_match (GPtrArray *filters, AbFieldLookup lookup, gpointer data)
{
  for (guint i = 0; filters != NULL && i < filters->len; i++)
    {
      const AbPredicate *p = filters->pdata[i];
      if (!match_one (p, lookup (p->field, data)))
        return FALSE;
    }
  return TRUE;
}
