/* Mutation bodies to events: every item ({type, edge} or, on the /vertices
 * endpoints, {type, vertex}) is cast against the schema and validated
 * (docs/data-model.md §3.3, §11) before anything is written; one malformed
 * item rejects the whole request. Events are grouped by key. */
#include <string.h>
#include "engine/write/write.h"
#include "model/types.h"
#include "model/json_get.h"

static void
event_free (AbEvent *ev)
{
  ab_event_clear (ev);
  g_free (ev);
}

void
ab_key_group_free (AbKeyGroup *g)
{
  ab_value_clear (&g->source);
  ab_value_clear (&g->target);
  g_ptr_array_unref (g->events);
  g_free (g->sort_key);
  g_free (g);
}

static gboolean bad (GError **error, guint item, const gchar *fmt, ...) G_GNUC_PRINTF (3, 4);

static gboolean
bad (GError **error, guint item, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "mutations[%u]: %s", item, msg);
}

/* Casts one value; prefixes the item position to the model's message. */
static gboolean
cast (JsonNode *node, AbType type, const gchar *name, AbValue *out, guint item, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (ab_model_cast_json (node, type, name, out, &local))
    return TRUE;
  return bad (error, item, "%s", local->message);
}

/* what: the item's member holding obj ("edge" or "vertex"). */
static gboolean
cast_required (JsonObject *obj, const gchar *what, const gchar *member, AbType type, AbValue *out,
               guint item, GError **error)
{
  JsonNode *node = json_object_get_member (obj, member);
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return bad (error, item, "%s.%s is required", what, member);
  return cast (node, type, member, out, item, error);
}

static gboolean check_required (const AbTableDesc *t, const AbEvent *ev, gboolean insert_merge,
                                guint item, GError **error);

/* Properties: unknown names dropped, values cast, null kept as explicit null
 * (multi-edge drops nulls). Then the per-operation rules. */
static gboolean
parse_props (const AbTableDesc *t, JsonObject *edge, const gchar *what, AbEvent *ev,
             gboolean insert_merge, guint item, GError **error)
{
  JsonNode *pn = json_object_get_member (edge, "properties");
  if (pn != NULL && !JSON_NODE_HOLDS_NULL (pn) && !JSON_NODE_HOLDS_OBJECT (pn))
    return bad (error, item, "%s.properties must be an object", what);
  JsonObject *props = pn != NULL && JSON_NODE_HOLDS_OBJECT (pn) ? json_node_get_object (pn) : NULL;
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  for (guint f = 0; props != NULL && f < t->schema->fields->len; f++)
    {
      const AbField *field = t->schema->fields->pdata[f];
      if (field->name[0] == '_')
        continue; /* _source/_target come from the edge, never from properties */
      JsonNode *v = json_object_get_member (props, field->name);
      if (v == NULL || (multi && JSON_NODE_HOLDS_NULL (v)))
        continue;
      if (ev->type != AB_OP_DELETE
          && !cast (v, field->type, field->name, &ev->props[f].value, item, error))
        return FALSE;
      ev->props[f].present = TRUE;
    }
  return check_required (t, ev, insert_merge, item, error);
}

/* The per-operation rules on the properties of an event already cast. */
static gboolean
check_required (const AbTableDesc *t, const AbEvent *ev, gboolean insert_merge, guint item,
                GError **error)
{
  if (ev->type == AB_OP_DELETE)
    return TRUE;
  for (guint f = 0; f < t->schema->fields->len; f++)
    {
      const AbField *field = t->schema->fields->pdata[f];
      const AbEventProp *p = &ev->props[f];
      if (field->nullable || field->name[0] == '_')
        continue;
      gboolean is_null = p->present && ab_value_is_null (&p->value);
      if (ev->type == AB_OP_INSERT && !insert_merge && (!p->present || is_null))
        return bad (error, item, "Property '%s' is required and cannot be null", field->name);
      if (is_null)
        return bad (error, item, "Property '%s' cannot be null", field->name);
    }
  return TRUE;
}

static const gchar *const endpoint_members[] = { "source", "target" };
static const gchar *const endpoint_slots[] = { "_source", "_target" };

/* Multi-edge INSERT: both endpoints are required. */
static gboolean
check_endpoints (const AbTableDesc *t, const AbEvent *ev, guint item, GError **error)
{
  if (ev->type == AB_OP_INSERT)
    for (guint i = 0; i < 2; i++)
      {
        gint pos = ab_schema_field_pos (t->schema, endpoint_slots[i]);
        if (pos >= 0 && !ev->props[pos].present)
          return bad (error, item, "edge.%s is required for INSERT on a multi-edge table",
                      endpoint_members[i]);
      }
  return TRUE;
}

/* Multi-edge: the edge's source/target become the _source/_target slots. */
static gboolean
parse_endpoints (const AbTableDesc *t, JsonObject *edge, AbEvent *ev, guint item, GError **error)
{
  for (guint i = 0; i < 2; i++)
    {
      JsonNode *v = json_object_get_member (edge, endpoint_members[i]);
      gint pos = ab_schema_field_pos (t->schema, endpoint_slots[i]);
      if (pos < 0 || v == NULL || JSON_NODE_HOLDS_NULL (v) || ev->type == AB_OP_DELETE)
        continue;
      const AbField *field = t->schema->fields->pdata[pos];
      if (!cast (v, field->type, endpoint_members[i], &ev->props[pos].value, item, error))
        return FALSE;
      ev->props[pos].present = TRUE;
    }
  return check_endpoints (t, ev, item, error);
}

static gboolean vertex_marker (const AbValue *source, AbValue *target, guint item, GError **error);

/* A vertex's id: source = the id, target = the marker "-", which an id
 * may not be (its text would collide with the marker, as upstream says). */
static gboolean
vertex_key (const AbTableDesc *t, JsonObject *obj, const gchar *what, const gchar *member,
            AbValue *source, AbValue *target, guint item, GError **error)
{
  if (!cast_required (obj, what, member, t->schema->source_type, source, item, error))
    return FALSE;
  return vertex_marker (source, target, item, error);
}

/* source holds a vertex id: refused when it is the marker, else target = marker. */
static gboolean
vertex_marker (const AbValue *source, AbValue *target, guint item, GError **error)
{
  g_autofree gchar *text = ab_value_to_string (source);
  if (strcmp (text, AB_VERTEX_MARKER) == 0)
    return bad (error, item, "Vertex id cannot be '%s' (reserved marker)", AB_VERTEX_MARKER);
  ab_value_set_string (target, AB_VALUE_STRING, AB_VERTEX_MARKER, strlen (AB_VERTEX_MARKER));
  return TRUE;
}

static AbEvent *
parse_item (const AbTableDesc *t, JsonNode *node, guint item, gboolean vertex_items,
            gboolean insert_merge, AbValue *source, AbValue *target, GError **error)
{
  const gchar *what = vertex_items ? "vertex" : "edge";
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return bad (error, item, "each mutation must be an object"), NULL;
  JsonObject *m = json_node_get_object (node);
  const gchar *type = ab_model_json_get_string (m, "type");
  JsonNode *en = json_object_get_member (m, what);
  AbOpType op;
  if (type == NULL || !ab_op_parse (type, &op))
    return bad (error, item, "type must be INSERT, UPDATE or DELETE"), NULL;
  if (en == NULL || !JSON_NODE_HOLDS_OBJECT (en))
    return bad (error, item, "%s must be an object", what), NULL;
  if (t->schema->kind == AB_TABLE_IMMUTABLE_EDGE && op != AB_OP_INSERT)
    return bad (error, item, "%s is not allowed on an immutable table (INSERT only)", type), NULL;
  JsonObject *edge = json_node_get_object (en);
  AbEvent *ev = g_new0 (AbEvent, 1);
  ab_event_init (ev, t->schema->fields->len);
  ev->type = op;
  ev->seq = item;
  AbValue version = AB_VALUE_INIT;
  gboolean ok = cast_required (edge, what, "version", AB_TYPE_LONG, &version, item, error);
  ev->version = version.u.i;
  if (ok && t->schema->kind == AB_TABLE_MULTI_EDGE)
    ok = cast_required (edge, what, "id", t->schema->id_type, source, item, error)
         && parse_endpoints (t, edge, ev, item, error);
  else if (ok && t->schema->kind == AB_TABLE_VERTEX)
    ok = vertex_key (t, edge, what, vertex_items ? "id" : "source", source, target, item, error);
  else if (ok)
    ok = cast_required (edge, what, "source", t->schema->source_type, source, item, error)
         && cast_required (edge, what, "target", t->schema->target_type, target, item, error);
  if (ok)
    ok = parse_props (t, edge, what, ev, insert_merge, item, error);
  if (!ok)
    {
      event_free (ev);
      return NULL;
    }
  return ev;
}

/* Multi-edges and vertices are answered sorted by their id's text, edges by
 * "<source>:<target>". */
static gchar *
sort_key_of (const AbValue *source, const AbValue *target, gboolean by_id)
{
  GString *s = g_string_sized_new (64);
  ab_value_append_string (s, source);
  if (!by_id)
    {
      g_string_append_c (s, ':');
      ab_value_append_string (s, target);
    }
  return g_string_free (s, FALSE);
}

gchar *
ab_key_group_record_key (const AbTableDesc *t, const AbKeyGroup *g)
{
  if (t->schema->kind == AB_TABLE_VERTEX)
    return g_strconcat (g->sort_key, ":", AB_VERTEX_MARKER, NULL);
  return g_strdup (g->sort_key);
}

/* Identity of a key: its encoded elements (type-exact, unlike the text). */
static GBytes *
identity (const AbValue *source, const AbValue *target)
{
  g_auto (AbBuf) b;
  ab_buf_init (&b);
  ab_buf_put_value (&b, source, AB_ORDER_ASC, NULL);
  ab_buf_put_value (&b, target, AB_ORDER_ASC, NULL);
  return ab_buf_to_bytes (&b);
}

static void
group_event (GHashTable *by_key, GPtrArray *groups, AbValue *source, AbValue *target, AbEvent *ev,
             gboolean by_id)
{
  g_autoptr (GBytes) id = identity (source, target);
  AbKeyGroup *g = g_hash_table_lookup (by_key, id);
  if (g == NULL)
    {
      g = g_new0 (AbKeyGroup, 1);
      g->source = *source;
      g->target = *target;
      memset (source, 0, sizeof *source);
      memset (target, 0, sizeof *target);
      g->events = g_ptr_array_new_with_free_func ((GDestroyNotify) event_free);
      g->sort_key = sort_key_of (&g->source, &g->target, by_id);
      g_hash_table_insert (by_key, g_bytes_ref (id), g);
      g_ptr_array_add (groups, g);
    }
  g_ptr_array_add (g->events, ev);
}

/* ---- typed items (the library) ---- */

static gboolean
cast_typed (const AbValue *v, AbType type, const gchar *name, AbValue *out, guint item,
            GError **error)
{
  g_autoptr (GError) local = NULL;
  if (ab_model_cast_value (v, type, name, out, &local))
    return TRUE;
  return bad (error, item, "%s", local->message);
}

static gboolean
cast_typed_required (const AbValue *v, AbType type, const gchar *name, AbValue *out, guint item,
                     GError **error)
{
  if (ab_value_is_null (v))
    return bad (error, item, "%s is required", name);
  return cast_typed (v, type, name, out, item, error);
}

static gboolean
typed_props (const AbTableDesc *t, const AbMutationItem *m, AbEvent *ev, guint item, GError **error)
{
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  for (guint i = 0; i < m->n_props; i++)
    {
      const gchar *name = m->names[i];
      gint f = name != NULL && name[0] != '_' ? ab_schema_field_pos (t->schema, name) : -1;
      if (f < 0)
        return bad (error, item, "Property '%s' is not in the schema of %s.%s",
                    name != NULL ? name : "(null)", t->database, t->table);
      const AbField *field = t->schema->fields->pdata[f];
      if (multi && ab_value_is_null (&m->values[i]))
        continue;
      if (ev->type != AB_OP_DELETE
          && !cast_typed (&m->values[i], field->type, field->name, &ev->props[f].value, item,
                          error))
        return FALSE;
      ev->props[f].present = TRUE;
    }
  return TRUE;
}

static gboolean
typed_key (const AbTableDesc *t, const AbMutationItem *m, AbEvent *ev, guint item, AbValue *source,
           AbValue *target, GError **error)
{
  const AbSchema *schema = t->schema;
  if (schema->kind == AB_TABLE_VERTEX)
    {
      const AbValue *id = ab_value_is_null (&m->id) ? &m->source : &m->id;
      return cast_typed_required (id, schema->source_type, "id", source, item, error)
             && vertex_marker (source, target, item, error);
    }
  if (schema->kind != AB_TABLE_MULTI_EDGE)
    return cast_typed_required (&m->source, schema->source_type, "source", source, item, error)
           && cast_typed_required (&m->target, schema->target_type, "target", target, item, error);
  if (!cast_typed_required (&m->id, schema->id_type, "id", source, item, error))
    return FALSE;
  const AbValue *ends[] = { &m->source, &m->target };
  for (guint i = 0; i < 2; i++)
    {
      gint pos = ab_schema_field_pos (schema, endpoint_slots[i]);
      if (pos < 0 || ab_value_is_null (ends[i]) || ev->type == AB_OP_DELETE)
        continue;
      const AbField *field = schema->fields->pdata[pos];
      if (!cast_typed (ends[i], field->type, endpoint_members[i], &ev->props[pos].value, item,
                       error))
        return FALSE;
      ev->props[pos].present = TRUE;
    }
  return check_endpoints (t, ev, item, error);
}

static AbEvent *
typed_item (const AbTableDesc *t, const AbMutationItem *m, guint item, gboolean insert_merge,
            AbValue *source, AbValue *target, GError **error)
{
  if ((guint) m->type > AB_OP_DELETE)
    return bad (error, item, "type must be INSERT, UPDATE or DELETE"), NULL;
  if (t->schema->kind == AB_TABLE_IMMUTABLE_EDGE && m->type != AB_OP_INSERT)
    return bad (error, item, "%s is not allowed on an immutable table (INSERT only)",
                ab_op_name (m->type)),
           NULL;
  if (m->n_props > 0 && (m->names == NULL || m->values == NULL))
    return bad (error, item, "n_props is %u but names or values is NULL", m->n_props), NULL;
  AbEvent *ev = g_new0 (AbEvent, 1);
  ab_event_init (ev, t->schema->fields->len);
  ev->type = m->type;
  ev->seq = item;
  ev->version = m->version;
  if (typed_key (t, m, ev, item, source, target, error) && typed_props (t, m, ev, item, error)
      && check_required (t, ev, insert_merge, item, error))
    return ev;
  event_free (ev);
  return NULL;
}

/* ---- both kinds of item as key groups ---- */

static gboolean
too_many (guint n, guint max_items, GError **error)
{
  if (n <= max_items)
    return FALSE;
  return !ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                          "too many mutations in one request: %u (limit %u)", n, max_items);
}

/* The n items, JSON ones (json) or typed ones (typed), as their keys'
 * groups in the order the keys first come; NULL at the first bad item. */
static GPtrArray *
group_items (const AbTableDesc *t, JsonArray *json, const AbMutationItem *typed, guint n,
             gboolean vertex_items, gboolean insert_merge, guint max_items, GError **error)
{
  if (too_many (n, max_items, error))
    return NULL;
  gboolean by_id = t->schema->kind == AB_TABLE_MULTI_EDGE || t->schema->kind == AB_TABLE_VERTEX;
  g_autoptr (GHashTable) by_key
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  g_autoptr (GPtrArray) groups
      = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_key_group_free);
  for (guint i = 0; i < n; i++)
    {
      AbValue source = AB_VALUE_INIT, target = AB_VALUE_INIT;
      AbEvent *ev = json != NULL
                        ? parse_item (t, json_array_get_element (json, i), i, vertex_items,
                                      insert_merge, &source, &target, error)
                        : typed_item (t, &typed[i], i, insert_merge, &source, &target, error);
      if (ev != NULL)
        group_event (by_key, groups, &source, &target, ev, by_id);
      ab_value_clear (&source);
      ab_value_clear (&target);
      if (ev == NULL)
        return NULL;
    }
  return g_steal_pointer (&groups);
}

GPtrArray *
ab_engine_parse_mutations (const AbTableDesc *t, JsonNode *body, gboolean vertex_items,
                           gboolean insert_merge, guint max_items, GError **error)
{
  JsonObject *root
      = body != NULL && JSON_NODE_HOLDS_OBJECT (body) ? json_node_get_object (body) : NULL;
  JsonNode *mn = root != NULL ? json_object_get_member (root, "mutations") : NULL;
  if (mn == NULL || !JSON_NODE_HOLDS_ARRAY (mn))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "request body must be {\"mutations\": [...]}"),
           NULL;
  JsonArray *items = json_node_get_array (mn);
  return group_items (t, items, NULL, json_array_get_length (items), vertex_items, insert_merge,
                      max_items, error);
}

GPtrArray *
ab_engine_group_items (const AbTableDesc *t, const AbMutationItem *items, guint n_items,
                       gboolean insert_merge, guint max_items, GError **error)
{
  return group_items (t, NULL, items, n_items, FALSE, insert_merge, max_items, error);
}
