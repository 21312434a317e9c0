/* Row frames of the query document: named columns and rows of values, the
 * post-processors that reshape them (JSON_OBJECT, SPLIT_EXPLODE) and the
 * aggregators that fold them (FLATTEN, COUNT, SUM), as upstream's executor. */
#include <string.h>
#include "engine/doc/doc.h"
#include "engine/core/core.h"

static GArray *
values_new (guint n)
{
  GArray *a = g_array_sized_new (FALSE, TRUE, sizeof (AbValue), n);
  g_array_set_clear_func (a, (GDestroyNotify) ab_value_clear);
  g_array_set_size (a, n);
  return a;
}

AbRows *
ab_rows_new (const gchar *const *columns, guint n)
{
  AbRows *r = g_new0 (AbRows, 1);
  r->columns = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (r->columns, g_strdup (columns[i]));
  r->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  return r;
}

void
ab_rows_free (AbRows *r)
{
  if (r == NULL)
    return;
  g_free (r->name);
  g_ptr_array_unref (r->columns);
  g_ptr_array_unref (r->rows);
  g_free (r->offset);
  g_free (r);
}

gint
ab_rows_column (const AbRows *r, const gchar *name)
{
  for (guint i = 0; i < r->columns->len; i++)
    if (g_str_equal (r->columns->pdata[i], name))
      return (gint) i;
  return -1;
}

GArray *
ab_rows_add (AbRows *r)
{
  GArray *row = values_new (r->columns->len);
  g_ptr_array_add (r->rows, row);
  return row;
}

/* A hashable text for a value: kind and text, so 1 and "1" differ. */
static gchar *
value_key (const AbValue *v)
{
  g_autofree gchar *text = ab_value_to_string (v);
  gboolean number = v->kind >= AB_VALUE_INT8 && v->kind <= AB_VALUE_FLOAT64;
  return g_strdup_printf ("%c%s", ab_value_is_null (v) ? 'n' : number ? '#' : 's', text);
}

GArray *
ab_rows_distinct (const AbRows *r, guint column)
{
  GArray *out = values_new (0);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < r->rows->len; i++)
    {
      const AbValue *v = &g_array_index ((GArray *) r->rows->pdata[i], AbValue, column);
      if (ab_value_is_null (v) || !g_hash_table_add (seen, value_key (v)))
        continue;
      AbValue c = AB_VALUE_INIT;
      ab_value_copy (&c, v);
      g_array_append_val (out, c);
    }
  return out;
}

static gboolean
fail_column (const gchar *what, const gchar *column, GError **error)
{
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                         "%s: `%s` is not a column of the item's rows.", what, column);
}

/* ---- post-processors ---- */

/* The output frame of a post-processor: the input's columns (less `drop`
 * when asked) plus the new ones; map[i] = input column of output column i,
 * -1 for a new one. */
static AbRows *
reshaped (const AbRows *in, gint dropped, const gchar *const *extra, guint n_extra, GArray *map)
{
  AbRows *out = ab_rows_new (NULL, 0);
  for (guint c = 0; c < in->columns->len; c++)
    if ((gint) c != dropped)
      {
        gint src = (gint) c;
        g_ptr_array_add (out->columns, g_strdup (in->columns->pdata[c]));
        g_array_append_val (map, src);
      }
  for (guint e = 0; e < n_extra; e++)
    {
      gint src = -1, at = ab_rows_column (out, extra[e]);
      if (at >= 0) /* an alias naming an existing column replaces it */
        {
          g_array_index (map, gint, at) = -1;
          continue;
        }
      g_ptr_array_add (out->columns, g_strdup (extra[e]));
      g_array_append_val (map, src);
    }
  return out;
}

static GArray *
copy_row (AbRows *out, const GArray *in, const GArray *map)
{
  GArray *row = ab_rows_add (out);
  for (guint c = 0; c < map->len; c++)
    if (g_array_index (map, gint, c) >= 0)
      ab_value_copy (&g_array_index (row, AbValue, c),
                     &g_array_index (in, AbValue, g_array_index (map, gint, c)));
  return row;
}

/* A JSON node as a value: booleans, integers, doubles, text; arrays and
 * objects as their JSON text; null as null. */
static void
json_to_value (JsonNode *n, AbValue *out)
{
  if (n == NULL || JSON_NODE_HOLDS_NULL (n))
    return;
  if (!JSON_NODE_HOLDS_VALUE (n))
    {
      g_autofree gchar *text = json_to_string (n, FALSE);
      ab_value_set_string (out, AB_VALUE_STRING, text, strlen (text));
      return;
    }
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_BOOLEAN)
    ab_value_set_bool (out, json_node_get_boolean (n));
  else if (t == G_TYPE_INT64)
    ab_value_set_int (out, AB_VALUE_INT64, json_node_get_int (n));
  else if (t == G_TYPE_DOUBLE)
    ab_value_set_float (out, AB_VALUE_FLOAT64, json_node_get_double (n));
  else
    {
      const gchar *s = json_node_get_string (n);
      ab_value_set_string (out, AB_VALUE_STRING, s, strlen (s));
    }
}

static JsonNode *
traverse (JsonNode *root, const gchar *path)
{
  g_auto (GStrv) keys = g_strsplit (path, ".", -1);
  JsonNode *cur = root;
  for (guint i = 0; keys[i] != NULL; i++)
    {
      if (cur == NULL || !JSON_NODE_HOLDS_OBJECT (cur))
        return NULL;
      cur = json_object_get_member (json_node_get_object (cur), keys[i]);
    }
  return cur;
}

static gboolean
post_json_object (AbRows **r, const AbPostProc *p, gint col, GError **error)
{
  AbRows *in = *r;
  guint n = p->paths->len;
  g_autofree const gchar **aliases = g_new0 (const gchar *, n + 1);
  for (guint i = 0; i < n; i++)
    aliases[i] = g_array_index (p->paths, AbJsonPath, i).alias;
  g_autoptr (GArray) map = g_array_new (FALSE, FALSE, sizeof (gint));
  g_autoptr (AbRows) out = reshaped (in, p->drop ? col : -1, aliases, n, map);
  for (guint i = 0; i < in->rows->len; i++)
    {
      GArray *src = in->rows->pdata[i];
      GArray *row = copy_row (out, src, map);
      const AbValue *v = &g_array_index (src, AbValue, col);
      if (ab_value_is_null (v))
        continue;
      g_autofree gchar *text = ab_value_to_string (v);
      g_autoptr (GError) bad = NULL;
      g_autoptr (JsonNode) root = ab_model_json_parse (text, -1, &bad);
      if (root == NULL)
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                               "JSON_OBJECT: `%s` of row %u is not JSON: %s", p->field, i,
                               bad->message);
      for (guint k = 0; k < n; k++)
        {
          gint at = ab_rows_column (out, aliases[k]);
          AbValue *slot = &g_array_index (row, AbValue, at);
          ab_value_clear (slot);
          json_to_value (traverse (root, g_array_index (p->paths, AbJsonPath, k).path), slot);
        }
    }
  ab_rows_free (in);
  *r = g_steal_pointer (&out);
  return TRUE;
}

static gboolean
post_split (AbRows **r, const AbPostProc *p, gint col, GError **error)
{
  AbRows *in = *r;
  const gchar *extra[] = { p->alias };
  g_autoptr (GArray) map = g_array_new (FALSE, FALSE, sizeof (gint));
  g_autoptr (AbRows) out = reshaped (in, p->drop ? col : -1, extra, 1, map);
  gint at = ab_rows_column (out, p->alias);
  for (guint i = 0; i < in->rows->len; i++)
    {
      GArray *src = in->rows->pdata[i];
      const AbValue *v = &g_array_index (src, AbValue, col);
      if (v->kind != AB_VALUE_STRING || v->u.s.len == 0)
        continue; /* upstream: only non-empty text explodes */
      g_auto (GStrv) pieces
          = g_regex_split_full (p->regex, v->u.s.data, (gssize) v->u.s.len, 0, 0, p->limit, NULL);
      for (guint k = 0; pieces != NULL && pieces[k] != NULL; k++)
        {
          if (pieces[k][0] == '\0')
            continue;
          AbValue cast = AB_VALUE_INIT;
          g_autoptr (GError) bad = NULL;
          if (!ab_model_cast_text (pieces[k], p->type, p->alias, &cast, &bad))
            return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "SPLIT_EXPLODE: %s",
                                   bad->message);
          GArray *row = copy_row (out, src, map);
          ab_value_clear (&g_array_index (row, AbValue, at));
          g_array_index (row, AbValue, at) = cast;
        }
    }
  ab_rows_free (in);
  *r = g_steal_pointer (&out);
  return TRUE;
}

gboolean
ab_rows_post (AbRows **r, const AbPostProc *p, GError **error)
{
  const gchar *what = p->kind == AB_POST_JSON_OBJECT ? "JSON_OBJECT" : "SPLIT_EXPLODE";
  gint col = ab_rows_column (*r, p->field);
  if (col < 0)
    return fail_column (what, p->field, error);
  return p->kind == AB_POST_JSON_OBJECT ? post_json_object (r, p, col, error)
                                        : post_split (r, p, col, error);
}

/* ---- aggregators ---- */

typedef struct {
  guint first_row; /* the group's first row: its key values */
  gdouble value;   /* count or sum */
  guint seen;      /* first-seen order, the tie-break */
} Group;

static gint
by_value (gconstpointer a, gconstpointer b, gpointer desc)
{
  const Group *x = a, *y = b;
  gint c = x->value < y->value ? -1 : x->value > y->value;
  if (GPOINTER_TO_INT (desc))
    c = -c;
  return c != 0 ? c : (x->seen > y->seen) - (x->seen < y->seen);
}

static gboolean
numeric (const AbValue *v, gdouble *out)
{
  if (v->kind >= AB_VALUE_INT8 && v->kind <= AB_VALUE_INT64)
    return *out = (gdouble) v->u.i, TRUE;
  if (v->kind == AB_VALUE_FLOAT32 || v->kind == AB_VALUE_FLOAT64)
    return *out = v->u.f, TRUE;
  return FALSE;
}

/* Groups rows by the key columns, counting them or summing `value_col`. */
static GArray *
group_rows (const AbRows *in, const gint *keys, guint n_keys, gint value_col, GError **error)
{
  GArray *groups = g_array_new (FALSE, FALSE, sizeof (Group));
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < in->rows->len; i++)
    {
      GArray *row = in->rows->pdata[i];
      g_autoptr (GString) key = g_string_new (NULL);
      for (guint k = 0; k < n_keys; k++)
        {
          g_autofree gchar *part = value_key (&g_array_index (row, AbValue, keys[k]));
          g_string_append_printf (key, "%zu:%s", strlen (part), part);
        }
      gdouble add = 1;
      if (value_col >= 0)
        {
          const AbValue *v = &g_array_index (row, AbValue, value_col);
          if (ab_value_is_null (v))
            add = 0; /* a null adds nothing, as SQL's SUM */
          else if (!numeric (v, &add))
            {
              g_array_unref (groups);
              return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                                     "SUM: `%s` of row %u is not a number.",
                                     (const gchar *) in->columns->pdata[value_col], i),
                     NULL;
            }
        }
      gpointer at;
      if (g_hash_table_lookup_extended (index, key->str, NULL, &at))
        {
          g_array_index (groups, Group, GPOINTER_TO_UINT (at)).value += add;
          continue;
        }
      Group g = { .first_row = i, .value = add, .seen = groups->len };
      g_hash_table_insert (index, g_string_free (g_steal_pointer (&key), FALSE),
                           GUINT_TO_POINTER (groups->len));
      g_array_append_val (groups, g);
    }
  return groups;
}

gboolean
ab_rows_aggregate (AbRows **r, const AbAggregator *a, GError **error)
{
  if (a->kind == AB_AGGR_FLATTEN)
    return TRUE;
  AbRows *in = *r;
  const gchar *what = a->kind == AB_AGGR_COUNT ? "COUNT" : "SUM";
  guint n_keys = g_strv_length (a->keys);
  g_autofree gint *keys = g_new0 (gint, n_keys + 1);
  for (guint k = 0; k < n_keys; k++)
    if ((keys[k] = ab_rows_column (in, a->keys[k])) < 0)
      return fail_column (what, a->keys[k], error);
  gint value_col = -1;
  if (a->kind == AB_AGGR_SUM && (value_col = ab_rows_column (in, a->value)) < 0)
    return fail_column (what, a->value, error);
  g_autoptr (GArray) groups = group_rows (in, keys, n_keys, value_col, error);
  if (groups == NULL)
    return FALSE;
  g_array_sort_with_data (groups, by_value, GINT_TO_POINTER (a->desc));
  g_autofree const gchar **names = g_new0 (const gchar *, n_keys + 2);
  memcpy (names, a->keys, n_keys * sizeof *names);
  names[n_keys] = a->kind == AB_AGGR_COUNT ? "count" : a->value;
  g_autoptr (AbRows) out = ab_rows_new (names, n_keys + 1);
  for (guint i = 0; i < MIN (groups->len, a->limit); i++)
    {
      const Group *g = &g_array_index (groups, Group, i);
      GArray *src = in->rows->pdata[g->first_row];
      GArray *row = ab_rows_add (out);
      for (guint k = 0; k < n_keys; k++)
        ab_value_copy (&g_array_index (row, AbValue, k), &g_array_index (src, AbValue, keys[k]));
      if (a->kind == AB_AGGR_COUNT)
        ab_value_set_int (&g_array_index (row, AbValue, n_keys), AB_VALUE_INT64, (gint64) g->value);
      else
        ab_value_set_float (&g_array_index (row, AbValue, n_keys), AB_VALUE_FLOAT64, g->value);
    }
  ab_rows_free (in);
  *r = g_steal_pointer (&out);
  return TRUE;
}
