/* Parsing of the query document (upstream's ActionbaseQuery JSON) into
 * AbDocItem trees: types by their upper-case names, defaults as upstream's,
 * and every error a 400 naming the member's path ("query[1].source.ref"). */
#include <string.h>
#include "engine/doc/doc.h"
#include "engine/core/core.h"
#include "model/json_get.h"

#define DOC_MAX_ITEMS 64 /* items in a document, nested STEP items included */
#define DOC_MAX_DEPTH 8  /* STEP items inside STEP items */
#define SCAN_DEFAULT_LIMIT 10

typedef struct {
  guint items;
} Budget;

/* A required member naming one of `names` (exact case); *out = its index. */
static gboolean
enum_member (JsonObject *o, const gchar *path, const gchar *member, const gchar *const *names,
             guint n, guint *out, GError **error)
{
  g_autofree gchar *text = NULL;
  if (!ab_model_json_string (o, path, member, TRUE, NULL, &text, error))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (g_str_equal (text, names[i]))
      return *out = i, TRUE;
  g_autofree gchar *where = ab_model_json_path (path, member);
  g_autoptr (GString) list = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (list, "%s%s", i > 0 ? ", " : "", names[i]);
  return ab_model_invalid (error, "'%s' must be one of %s; got \"%s\".", where, list->str, text);
}

static JsonObject *
element_object (JsonArray *a, guint i, const gchar *path, gchar **elem_path, GError **error)
{
  *elem_path = g_strdup_printf ("%s[%u]", path, i);
  return ab_model_json_object (json_array_get_element (a, i), *elem_path, error);
}

/* A required member naming one of two values: *second = it names the second. */
static gboolean
two_way (JsonObject *o, const gchar *path, const gchar *member, const gchar *first,
         const gchar *second_name, gboolean *second, GError **error)
{
  const gchar *const names[] = { first, second_name };
  guint k;
  if (!enum_member (o, path, member, names, 2, &k, error))
    return FALSE;
  *second = k == 1;
  return TRUE;
}

static gboolean
direction_member (JsonObject *o, const gchar *path, AbQueryDirection *out, GError **error)
{
  gboolean in;
  if (!two_way (o, path, "direction", "OUT", "IN", &in, error))
    return FALSE;
  *out = in ? AB_QDIR_IN : AB_QDIR_OUT;
  return TRUE;
}

static gboolean
limit_member (JsonObject *o, const gchar *path, gboolean required, gint def, gint *out,
              GError **error)
{
  if (required && json_object_get_member (o, "limit") == NULL)
    return ab_model_json_missing (path, "limit", error);
  gint64 v;
  if (!ab_model_json_int (o, path, "limit", def, &v, error))
    return FALSE;
  if (v != def && (v < 0 || v > G_MAXINT32))
    {
      g_autofree gchar *where = ab_model_json_path (path, "limit");
      return ab_model_invalid (error, "'%s' must be a non-negative integer.", where);
    }
  *out = (gint) v;
  return TRUE;
}

static gboolean
type_member (JsonObject *o, const gchar *path, AbType *out, GError **error)
{
  g_autofree gchar *text = NULL;
  if (!ab_model_json_string (o, path, "dataType", TRUE, NULL, &text, error))
    return FALSE;
  if (g_ascii_strcasecmp (text, "DECIMAL") == 0)
    return *out = AB_TYPE_DOUBLE, TRUE;
  if (ab_type_parse (text, out))
    return TRUE;
  g_autofree gchar *where = ab_model_json_path (path, "dataType");
  return ab_model_invalid (error, "'%s': unknown data type \"%s\".", where, text);
}

static gboolean parse_item (JsonObject *o, const gchar *path, guint depth, Budget *b,
                            AbDocItem **out, GError **error);

/* A JSON scalar as a value (numbers as long or double, text, booleans). */
static gboolean
scalar_value (JsonNode *n, const gchar *path, AbValue *out, GError **error)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n))
    return ab_model_invalid (error, "'%s' must be a number, a string or a boolean.", path);
  GType t = json_node_get_value_type (n);
  if (t == G_TYPE_INT64)
    ab_value_set_int (out, AB_VALUE_INT64, json_node_get_int (n));
  else if (t == G_TYPE_DOUBLE)
    ab_value_set_float (out, AB_VALUE_FLOAT64, json_node_get_double (n));
  else if (t == G_TYPE_BOOLEAN)
    ab_value_set_bool (out, json_node_get_boolean (n));
  else
    {
      const gchar *s = json_node_get_string (n);
      ab_value_set_string (out, AB_VALUE_STRING, s, strlen (s));
    }
  return TRUE;
}

static gboolean
parse_vertex (JsonObject *parent, const gchar *ppath, const gchar *member, guint depth, Budget *b,
              AbDocVertex *v, GError **error)
{
  static const gchar *const kinds[] = { "VALUE", "REF", "STEP" };
  JsonObject *o;
  guint kind;
  g_autofree gchar *path = ab_model_json_path (ppath, member);
  if (!ab_model_json_child (parent, ppath, member, TRUE, &o, error)
      || !enum_member (o, path, "type", kinds, 3, &kind, error))
    return FALSE;
  v->kind = (AbVertexKind) kind;
  if (v->kind == AB_VERTEX_VALUE)
    {
      JsonArray *a;
      if (!ab_model_json_array (o, path, "value", TRUE, &a, error))
        return FALSE;
      v->values = g_array_new (FALSE, TRUE, sizeof (AbValue));
      g_array_set_clear_func (v->values, (GDestroyNotify) ab_value_clear);
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          g_autofree gchar *ep = g_strdup_printf ("%s.value[%u]", path, i);
          AbValue x = AB_VALUE_INIT;
          if (!scalar_value (json_array_get_element (a, i), ep, &x, error))
            return FALSE;
          g_array_append_val (v->values, x);
        }
      return TRUE;
    }
  if (!ab_model_json_string (o, path, "field", TRUE, NULL, &v->field, error))
    return FALSE;
  if (v->kind == AB_VERTEX_REF)
    return ab_model_json_string (o, path, "ref", TRUE, NULL, &v->ref, error);
  JsonObject *step;
  g_autofree gchar *spath = ab_model_json_path (path, "step");
  if (depth + 1 > DOC_MAX_DEPTH)
    return ab_model_invalid (error, "'%s': STEP items nest at most %u deep.", spath, DOC_MAX_DEPTH);
  return ab_model_json_child (o, path, "step", TRUE, &step, error)
         && parse_item (step, spath, depth + 1, b, &v->step, error);
}

static void
post_free (AbPostProc *p)
{
  g_free (p->field);
  g_free (p->alias);
  if (p->paths != NULL)
    g_array_unref (p->paths);
  if (p->regex != NULL)
    g_regex_unref (p->regex);
  g_free (p);
}

static void
json_path_clear (AbJsonPath *p)
{
  g_free (p->path);
  g_free (p->alias);
}

static gboolean
parse_json_object (JsonObject *o, const gchar *path, AbPostProc *p, GError **error)
{
  JsonArray *a;
  if (!ab_model_json_array (o, path, "paths", TRUE, &a, error))
    return FALSE;
  p->paths = g_array_new (FALSE, TRUE, sizeof (AbJsonPath));
  g_array_set_clear_func (p->paths, (GDestroyNotify) json_path_clear);
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      g_autofree gchar *ep = NULL;
      JsonObject *e = element_object (a, i, path, &ep, error);
      AbJsonPath jp = { 0 };
      AbType ignored;
      if (e == NULL)
        return FALSE;
      gboolean ok = ab_model_json_string (e, ep, "path", TRUE, NULL, &jp.path, error)
                    && ab_model_json_string (e, ep, "alias", TRUE, NULL, &jp.alias, error)
                    && type_member (e, ep, &ignored, error);
      g_array_append_val (p->paths, jp);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static gboolean
parse_split (JsonObject *o, const gchar *path, AbPostProc *p, GError **error)
{
  g_autofree gchar *regex = NULL;
  if (!ab_model_json_string (o, path, "regex", TRUE, NULL, &regex, error)
      || !ab_model_json_string (o, path, "alias", TRUE, NULL, &p->alias, error)
      || !type_member (o, path, &p->type, error))
    return FALSE;
  gint64 limit;
  if (!ab_model_json_int (o, path, "limit", 0, &limit, error))
    return FALSE;
  p->limit = (gint) CLAMP (limit, 0, G_MAXINT32);
  g_autoptr (GError) bad = NULL;
  p->regex = g_regex_new (regex, G_REGEX_OPTIMIZE, 0, &bad);
  if (p->regex == NULL)
    {
      g_autofree gchar *where = ab_model_json_path (path, "regex");
      return ab_model_invalid (error, "'%s' is not a regular expression: %s", where, bad->message);
    }
  return TRUE;
}

typedef gboolean (*ParseOne) (JsonObject *o, const gchar *path, GPtrArray *out, GError **error);

/* An optional array member of objects, each parsed by one() into out. */
static gboolean
parse_list (JsonObject *item, const gchar *ipath, const gchar *member, ParseOne one, GPtrArray *out,
            GError **error)
{
  JsonArray *a;
  g_autofree gchar *path = ab_model_json_path (ipath, member);
  if (!ab_model_json_array (item, ipath, member, FALSE, &a, error))
    return FALSE;
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      g_autofree gchar *ep = NULL;
      JsonObject *o = element_object (a, i, path, &ep, error);
      if (o == NULL || !one (o, ep, out, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
parse_post (JsonObject *o, const gchar *path, GPtrArray *out, GError **error)
{
  static const gchar *const kinds[] = { "JSON_OBJECT", "SPLIT_EXPLODE" };
  AbPostProc *p = g_new0 (AbPostProc, 1);
  guint kind;
  g_ptr_array_add (out, p);
  if (!enum_member (o, path, "type", kinds, 2, &kind, error))
    return FALSE;
  p->kind = (AbPostKind) kind;
  if (!ab_model_json_string (o, path, "field", TRUE, NULL, &p->field, error)
      || !ab_model_json_bool (o, path, "drop", TRUE, &p->drop, error))
    return FALSE;
  return p->kind == AB_POST_JSON_OBJECT ? parse_json_object (o, path, p, error)
                                        : parse_split (o, path, p, error);
}

static void
aggregator_free (AbAggregator *a)
{
  g_strfreev (a->keys);
  g_free (a->value);
  g_free (a);
}

static gboolean
parse_sum_keys (JsonObject *o, const gchar *path, AbAggregator *ag, GError **error)
{
  JsonArray *keys;
  if (!ab_model_json_string (o, path, "valueField", TRUE, NULL, &ag->value, error)
      || !ab_model_json_array (o, path, "keyFields", TRUE, &keys, error))
    return FALSE;
  guint n = json_array_get_length (keys);
  ag->keys = g_new0 (gchar *, n + 1);
  for (guint k = 0; k < n; k++)
    {
      JsonNode *e = json_array_get_element (keys, k);
      if (!JSON_NODE_HOLDS_VALUE (e) || json_node_get_value_type (e) != G_TYPE_STRING)
        return ab_model_invalid (error, "'%s.keyFields[%u]' must be a string.", path, k);
      ag->keys[k] = g_strdup (json_node_get_string (e));
    }
  return TRUE;
}

static gboolean
parse_aggregator (JsonObject *o, const gchar *path, GPtrArray *out, GError **error)
{
  static const gchar *const kinds[] = { "FLATTEN", "COUNT", "SUM" };
  AbAggregator *ag = g_new0 (AbAggregator, 1);
  g_ptr_array_add (out, ag);
  gint limit;
  guint kind;
  if (!enum_member (o, path, "type", kinds, 3, &kind, error))
    return FALSE;
  ag->kind = (AbAggrKind) kind;
  if (ag->kind == AB_AGGR_FLATTEN)
    return TRUE;
  if (!two_way (o, path, "order", "ASC", "DESC", &ag->desc, error)
      || !limit_member (o, path, TRUE, -1, &limit, error))
    return FALSE;
  ag->limit = (guint) limit;
  if (ag->kind == AB_AGGR_SUM)
    return parse_sum_keys (o, path, ag, error);
  ag->keys = g_new0 (gchar *, 2);
  return ab_model_json_string (o, path, "field", TRUE, NULL, &ag->keys[0], error);
}

void
ab_doc_item_free (AbDocItem *item)
{
  if (item == NULL)
    return;
  AbDocVertex *vs[] = { &item->source, &item->target };
  for (guint i = 0; i < G_N_ELEMENTS (vs); i++)
    {
      if (vs[i]->values != NULL)
        g_array_unref (vs[i]->values);
      g_free (vs[i]->ref);
      g_free (vs[i]->field);
      ab_doc_item_free (vs[i]->step);
    }
  g_free (item->name);
  g_free (item->database);
  g_free (item->table);
  g_free (item->index);
  g_free (item->cache);
  g_free (item->offset);
  g_free (item->ranges);
  g_free (item->filters);
  g_free (item->sql);
  g_free (item->topk);
  if (item->dims != NULL)
    g_hash_table_unref (item->dims);
  if (item->sql_args != NULL)
    g_array_unref (item->sql_args);
  g_ptr_array_unref (item->post);
  g_ptr_array_unref (item->aggs);
  g_free (item);
}

/* The members only some types have. */
static gboolean
parse_window (JsonObject *o, const gchar *path, guint depth, Budget *b, AbDocItem *it,
              GError **error)
{
  if (it->kind == AB_ITEM_GET)
    return parse_vertex (o, path, "target", depth, b, &it->target, error);
  if (it->kind == AB_ITEM_SELF)
    return TRUE;
  if (!direction_member (o, path, &it->direction, error))
    return FALSE;
  if (it->kind == AB_ITEM_COUNT)
    return TRUE;
  gboolean scan = it->kind == AB_ITEM_SCAN;
  return ab_model_json_string (o, path, scan ? "index" : "cache", TRUE, NULL,
                               scan ? &it->index : &it->cache, error)
         && limit_member (o, path, FALSE, scan ? SCAN_DEFAULT_LIMIT : -1, &it->limit, error)
         && ab_model_json_string (o, path, "offset", FALSE, NULL, &it->offset, error)
         && ab_model_json_string (o, path, "ranges", FALSE, NULL, &it->ranges, error)
         && ab_model_json_string (o, path, "filters", FALSE, NULL, &it->filters, error);
}

/* TOPK: {topk, entity?, dimensionValues?: {field: value}, limit? (10), offset?} */
static gboolean
parse_topk_item (JsonObject *o, const gchar *path, guint depth, Budget *b, AbDocItem *it,
                 GError **error)
{
  JsonObject *dims = NULL;
  if (!ab_model_json_string (o, path, "topk", TRUE, NULL, &it->topk, error)
      || !ab_model_json_child (o, path, "dimensionValues", FALSE, &dims, error)
      || !limit_member (o, path, FALSE, SCAN_DEFAULT_LIMIT, &it->limit, error)
      || !ab_model_json_string (o, path, "offset", FALSE, NULL, &it->offset, error))
    return FALSE;
  it->direction = AB_QDIR_OUT;
  it->dims = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr (GList) names = dims != NULL ? json_object_get_members (dims) : NULL;
  for (GList *m = names; m != NULL; m = m->next)
    {
      JsonNode *v = json_object_get_member (dims, m->data);
      g_autofree gchar *vp = g_strdup_printf ("%s.dimensionValues.%s", path, (gchar *) m->data);
      AbValue x = AB_VALUE_INIT;
      if (!scalar_value (v, vp, &x, error))
        return FALSE;
      g_hash_table_insert (it->dims, g_strdup (m->data), ab_value_to_string (&x));
      ab_value_clear (&x);
    }
  if (json_object_has_member (o, "entity"))
    return parse_vertex (o, path, "entity", depth, b, &it->source, error);
  it->source.kind = AB_VERTEX_VALUE; /* no entity: the one ranking keyed "" */
  it->source.values = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (it->source.values, (GDestroyNotify) ab_value_clear);
  AbValue none = AB_VALUE_INIT;
  ab_value_set_string (&none, AB_VALUE_STRING, "", 0);
  g_array_append_val (it->source.values, none);
  return TRUE;
}

static gboolean
parse_item (JsonObject *o, const gchar *path, guint depth, Budget *b, AbDocItem **out,
            GError **error)
{
  static const gchar *const kinds[] = { "SELF", "GET", "COUNT", "SCAN", "CACHE", "SQL", "TOPK" };
  if (++b->items > DOC_MAX_ITEMS)
    return ab_model_invalid (error, "a query has at most %u items, STEP items included.",
                             DOC_MAX_ITEMS);
  g_autoptr (AbDocItem) it = g_new0 (AbDocItem, 1);
  it->post = g_ptr_array_new_with_free_func ((GDestroyNotify) post_free);
  it->aggs = g_ptr_array_new_with_free_func ((GDestroyNotify) aggregator_free);
  it->limit = -1;
  guint kind;
  if (!enum_member (o, path, "type", kinds, G_N_ELEMENTS (kinds), &kind, error))
    return FALSE;
  it->kind = (AbItemKind) kind;
  if (it->kind == AB_ITEM_SQL)
    return ab_model_invalid (error, "'%s.type': SQL steps go in `transform`.", path);
  gboolean topk = it->kind == AB_ITEM_TOPK;
  if (!ab_model_json_string (o, path, "name", FALSE, NULL, &it->name, error)
      || !ab_model_json_string (o, path, "database", TRUE, NULL, &it->database, error)
      || !ab_model_json_string (o, path, "table", TRUE, NULL, &it->table, error)
      || !(topk ? parse_topk_item (o, path, depth, b, it, error)
                : parse_vertex (o, path, "source", depth, b, &it->source, error)
                      && parse_window (o, path, depth, b, it, error))
      || !ab_model_json_bool (o, path, "include", FALSE, &it->include, error)
      || !ab_model_json_bool (o, path, "memoize", FALSE, &it->memoize, error)
      || !parse_list (o, path, "post", parse_post, it->post, error)
      || !parse_list (o, path, "aggregators", parse_aggregator, it->aggs, error))
    return FALSE;
  if (it->name == NULL)
    it->name = g_uuid_string_random ();
  *out = g_steal_pointer (&it);
  return TRUE;
}

static gboolean
parse_stats (JsonObject *body, GError **error)
{
  static const gchar *const keys[] = { "WITH_ALL", "SRC_DEGREE",   "TGT_DEGREE",      "EDGE_ID",
                                       "OFFSET",   "IGNORE_PHASE", "INVALIDATE_CACHE" };
  JsonArray *a;
  if (!ab_model_json_array (body, NULL, "stats", FALSE, &a, error))
    return FALSE;
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      gboolean known = FALSE;
      for (guint k = 0; k < G_N_ELEMENTS (keys) && !known; k++)
        known = JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING
                && g_str_equal (json_node_get_string (n), keys[k]);
      if (!known)
        return ab_model_invalid (error,
                                 "'stats[%u]' must be one of WITH_ALL, SRC_DEGREE, TGT_DEGREE, "
                                 "EDGE_ID, OFFSET, IGNORE_PHASE, INVALIDATE_CACHE.",
                                 i);
    }
  return TRUE;
}

/* A transform step: {"type":"SQL","name","sql","arguments"}; always in
 * the answer (a transform is what a query is for). */
static gboolean
parse_transform (JsonObject *o, const gchar *path, Budget *b, AbDocItem **out, GError **error)
{
  static const gchar *const kinds[] = { "SQL" };
  if (++b->items > DOC_MAX_ITEMS)
    return ab_model_invalid (error, "a query has at most %u items, STEP items included.",
                             DOC_MAX_ITEMS);
  g_autoptr (AbDocItem) it = g_new0 (AbDocItem, 1);
  it->kind = AB_ITEM_SQL;
  it->include = TRUE;
  it->post = g_ptr_array_new ();
  it->aggs = g_ptr_array_new ();
  it->sql_args = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (it->sql_args, (GDestroyNotify) ab_value_clear);
  guint kind;
  JsonArray *args = NULL;
  if (!enum_member (o, path, "type", kinds, G_N_ELEMENTS (kinds), &kind, error)
      || !ab_model_json_string (o, path, "name", TRUE, NULL, &it->name, error)
      || !ab_model_json_string (o, path, "sql", TRUE, NULL, &it->sql, error)
      || !ab_model_json_array (o, path, "arguments", FALSE, &args, error))
    return FALSE;
  for (guint i = 0; args != NULL && i < json_array_get_length (args); i++)
    {
      g_autofree gchar *ap = g_strdup_printf ("%s.arguments[%u]", path, i);
      AbValue v = AB_VALUE_INIT;
      JsonNode *n = json_array_get_element (args, i);
      if (!JSON_NODE_HOLDS_NULL (n) && !scalar_value (n, ap, &v, error))
        return FALSE;
      g_array_append_val (it->sql_args, v);
    }
  *out = g_steal_pointer (&it);
  return TRUE;
}

/* The items of array `member` of body (absent: none unless required). */
static gboolean
parse_items (JsonObject *body, const gchar *member, gboolean required, Budget *b, GPtrArray *items,
             GError **error)
{
  JsonArray *a = NULL;
  if (!ab_model_json_array (body, NULL, member, required, &a, error))
    return FALSE;
  gboolean transform = g_str_equal (member, "transform");
  for (guint i = 0; a != NULL && i < json_array_get_length (a); i++)
    {
      g_autofree gchar *ep = NULL;
      JsonObject *e = element_object (a, i, member, &ep, error);
      AbDocItem *it = NULL;
      if (e == NULL
          || !(transform ? parse_transform (e, ep, b, &it, error)
                         : parse_item (e, ep, 0, b, &it, error)))
        return FALSE;
      g_ptr_array_add (items, it);
    }
  return TRUE;
}

GPtrArray *
ab_doc_parse (JsonNode *body, GError **error)
{
  GError *local = NULL;
  JsonObject *o = ab_model_json_object (body, "the request body", &local);
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_doc_item_free);
  Budget b = { 0 };
  /* upstream's earlier form (query) or its current one (fetch, transform:
   * one of them at least) */
  gboolean earlier = o != NULL && json_object_has_member (o, "query");
  gboolean some = o != NULL && json_object_has_member (o, "transform");
  if (o != NULL && parse_stats (o, &local))
    {
      if (earlier)
        parse_items (o, "query", TRUE, &b, items, &local);
      else if (parse_items (o, "fetch", !some, &b, items, &local))
        parse_items (o, "transform", FALSE, &b, items, &local);
    }
  if (local != NULL)
    return ab_engine_propagate (error, local), NULL;
  return g_steal_pointer (&items);
}
