/* queue/v1 over the engine: queue metadata lives in the backing table's
 * descriptor (comment carries the partition count, active = enabled);
 * enqueue is a lock-free INSERT per message, poll an index scan, commit a
 * loop of scan-deletes. */
#include <string.h>
#include "engine/queue/queue-private.h"
#include "model/types.h"

#define QUEUE_PREFIX "queue/v1 "

void
ab_queue_info_clear (AbQueueInfo *q)
{
  g_free (q->ns);
  g_free (q->queue);
  g_free (q->storage);
  memset (q, 0, sizeof *q);
}

gint64
ab_queue_partition_of (const gchar *key, gint64 partitions)
{
  gint64 code = ab_codec_hash (key, strlen (key));
  gint64 m = code % partitions;
  return m < 0 ? m + partitions : m;
}

static gboolean
info_from_table (const AbTableDesc *t, gpointer info)
{
  AbQueueInfo *out = info;
  if (t->schema->kind != AB_TABLE_IMMUTABLE_EDGE || t->comment == NULL
      || !g_str_has_prefix (t->comment, QUEUE_PREFIX))
    return FALSE;
  g_autoptr (JsonNode) n = json_from_string (t->comment + strlen (QUEUE_PREFIX), NULL);
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return FALSE;
  out->partitions
      = json_object_get_int_member_with_default (json_node_get_object (n), "partitions", 0);
  if (out->partitions < 1)
    return FALSE;
  out->ns = g_strdup (t->database);
  out->queue = g_strdup (t->table);
  out->storage = g_strdup (t->storage);
  out->enabled = t->active;
  return TRUE;
}

AbTableDesc *
ab_queue_lookup (AbEngine *engine, const gchar *db, const gchar *table)
{
  AbTableDesc *t = ab_catalog_get_table (engine->catalog, db, table);
  if (t == NULL)
    {
      ab_catalog_refresh (engine->catalog, NULL);
      t = ab_catalog_get_table (engine->catalog, db, table);
    }
  return t;
}

AbTableDesc *
ab_queue_table (AbEngine *engine, const gchar *db, const gchar *table, AbQueueParse parse,
                gpointer info, gboolean *found)
{
  AbTableDesc *t = ab_queue_lookup (engine, db, table);
  *found = t != NULL;
  if (t == NULL || parse (t, info))
    return t;
  ab_table_desc_unref (t);
  return NULL;
}

gboolean
ab_queue_create_table (AbEngine *engine, AbTableDesc *proto, const gchar *actor, AbQueueParse parse,
                       gpointer info, GError **error)
{
  GError *local = NULL;
  g_autoptr (AbTableDesc) t = ab_catalog_create_table (engine->catalog, proto, actor, &local);
  if (t == NULL)
    return ab_engine_propagate (error, local), FALSE;
  parse (t, info);
  return TRUE;
}

/* The backing table of a queue, or NOT_FOUND (for a table that is not such
 * a queue too). */
static AbTableDesc *
queue_table (AbEngine *engine, const gchar *ns, const gchar *queue, AbQueueInfo *info,
             GError **error)
{
  AbQueueInfo tmp = { 0 };
  gboolean found;
  AbTableDesc *t
      = ab_queue_table (engine, ns, queue, info_from_table, info != NULL ? info : &tmp, &found);
  ab_queue_info_clear (&tmp);
  if (t == NULL)
    ab_engine_fail (error, AB_ENGINE_ERROR_NOT_FOUND, "No such queue %s/%s.", ns, queue);
  return t;
}

gboolean
ab_queue_get (AbEngine *engine, const gchar *ns, const gchar *queue, AbQueueInfo *out,
              GError **error)
{
  g_autoptr (AbTableDesc) t = queue_table (engine, ns, queue, out, error);
  return t != NULL;
}

gboolean
ab_queue_create (AbEngine *engine, const gchar *ns, const gchar *queue, const gchar *storage,
                 gint64 partitions, const gchar *actor, AbQueueInfo *out, GError **error)
{
  if (partitions < 1)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "partitions must be at least 1");
  GError *local = NULL;
  /* The names go in as JSON values, never pasted into the text, and the
   * table is checked before the namespace is made, so a refused queue
   * leaves nothing behind. */
  g_autoptr (JsonNode) node = json_from_string (
      "{\"table\":\"\",\"storage\":\"\",\"mode\":\"SYNC\",\"comment\":\"\","
      "\"schema\":{\"type\":\"IMMUTABLE_EDGE\",\"direction\":\"OUT\","
      "\"source\":{\"type\":\"long\",\"comment\":\"partition\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"message id\"},"
      "\"properties\":[{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"value\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"seq\",\"fields\":[{\"field\":\"seq\",\"order\":\"ASC\"}]}]}}",
      NULL);
  json_object_set_string_member (json_node_get_object (node), "table", queue);
  json_object_set_string_member (json_node_get_object (node), "storage", storage);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request (ns, NULL, node, &local);
  if (proto == NULL)
    return ab_engine_propagate (error, local), FALSE;
  g_free (proto->comment);
  proto->comment
      = g_strdup_printf (QUEUE_PREFIX "{\"partitions\":%" G_GINT64_FORMAT "}", partitions);
  g_autoptr (AbDatabaseDesc) db = ab_catalog_get_database (engine->catalog, ns);
  if (db == NULL)
    {
      /* The namespace is created with its first queue. */
      g_autoptr (AbDatabaseDesc) made
          = ab_catalog_create_database (engine->catalog, ns, "queue/v1 namespace", actor, &local);
      if (made == NULL)
        return ab_engine_propagate (error, local), FALSE;
    }
  return ab_queue_create_table (engine, proto, actor, info_from_table, out, error);
}

gboolean
ab_queue_set_enabled (AbEngine *engine, const gchar *ns, const gchar *queue, gboolean enabled,
                      const gchar *actor, AbQueueInfo *out, GError **error)
{
  g_autoptr (AbTableDesc) t = queue_table (engine, ns, queue, NULL, error);
  if (t == NULL)
    return FALSE;
  GError *local = NULL;
  g_autoptr (AbTableDesc) u = ab_catalog_update_table (engine->catalog, ns, queue, &enabled, NULL,
                                                       NULL, NULL, actor, &local);
  if (u == NULL)
    return ab_engine_propagate (error, local), FALSE;
  info_from_table (u, out);
  return TRUE;
}

gboolean
ab_queue_delete (AbEngine *engine, const gchar *ns, const gchar *queue, GError **error)
{
  AbQueueInfo info = { 0 };
  g_autoptr (AbTableDesc) t = queue_table (engine, ns, queue, &info, error);
  if (t == NULL)
    return FALSE;
  gboolean enabled = info.enabled;
  ab_queue_info_clear (&info);
  if (enabled)
    return ab_engine_fail (error, AB_ENGINE_ERROR_CONFLICT,
                           "Queue %s/%s is enabled; disable it before deleting.", ns, queue);
  GError *local = NULL;
  if (!ab_catalog_delete_table (engine->catalog, ns, queue, &local))
    return ab_engine_propagate (error, local), FALSE;
  return TRUE;
}

/* An enabled queue and a partition inside it. */
static AbTableDesc *
usable_queue (AbEngine *engine, const gchar *ns, const gchar *queue, const gint64 *partition,
              AbQueueInfo *info, GError **error)
{
  AbTableDesc *t = queue_table (engine, ns, queue, info, error);
  if (t == NULL)
    return NULL;
  const gchar *why = NULL;
  AbEngineError code = AB_ENGINE_ERROR_BAD_REQUEST;
  if (!info->enabled)
    why = "is disabled", code = AB_ENGINE_ERROR_CONFLICT;
  else if (partition != NULL && (*partition < 0 || *partition >= info->partitions))
    why = "has no such partition";
  if (why == NULL)
    return t;
  ab_engine_fail (error, code, "Queue %s/%s %s (partitions 0..%" G_GINT64_FORMAT ").", ns, queue,
                  why, info->partitions - 1);
  ab_table_desc_unref (t);
  return NULL;
}

static void
enqueued_clear (gpointer p)
{
  g_free (((AbEnqueued *) p)->id);
}

GArray *
ab_enqueued_array_new (guint n)
{
  GArray *a = g_array_sized_new (FALSE, TRUE, sizeof (AbEnqueued), n);
  g_array_set_clear_func (a, enqueued_clear);
  return a;
}

JsonNode *
ab_queue_body (JsonArray *messages, AbQueueItem item, gconstpointer ctx, GArray **items,
               GError **error)
{
  guint n = json_array_get_length (messages);
  *items = ab_enqueued_array_new (n);
  g_array_set_size (*items, n);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mutations");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    if (!item (json_array_get_element (messages, i), i, ctx, b,
               &g_array_index (*items, AbEnqueued, i), error))
      return NULL;
  json_builder_end_array (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

void
ab_queue_add_insert (JsonBuilder *b, gint64 version, gint64 partition, const gchar *id,
                     JsonNode *properties)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "INSERT");
  json_builder_set_member_name (b, "edge");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, version);
  json_builder_set_member_name (b, "source");
  json_builder_add_int_value (b, partition);
  json_builder_set_member_name (b, "target");
  json_builder_add_string_value (b, id);
  json_builder_set_member_name (b, "properties");
  json_builder_add_value (b, properties);
  json_builder_end_object (b);
  json_builder_end_object (b);
}

GArray *
ab_queue_append (AbEngine *engine, const gchar *db, const gchar *table, JsonNode *body,
                 const gchar *actor, GError **error)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = db;
  o.table = table;
  o.lock = FALSE;
  o.sync_request = TRUE;
  o.actor = actor;
  return ab_engine_mutate (engine, &o, body, error);
}

/* One message {key, seq, value?}; ctx is the queue's partition count. */
static gboolean
message_item (JsonNode *m, guint i, gconstpointer ctx, JsonBuilder *b, AbEnqueued *out,
              GError **error)
{
  const gint64 *partitions = ctx;
  JsonObject *o = m != NULL && JSON_NODE_HOLDS_OBJECT (m) ? json_node_get_object (m) : NULL;
  JsonNode *key = o != NULL ? json_object_get_member (o, "key") : NULL;
  JsonNode *seq = o != NULL ? json_object_get_member (o, "seq") : NULL;
  if (key == NULL || !JSON_NODE_HOLDS_VALUE (key)
      || json_node_get_value_type (key) != G_TYPE_STRING)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "messages[%u].key must be a string",
                           i);
  AbValue sv = AB_VALUE_INIT;
  g_autoptr (GError) local = NULL;
  if (seq == NULL || !ab_model_cast_json (seq, AB_TYPE_LONG, "seq", &sv, &local)
      || sv.kind == AB_VALUE_NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "messages[%u].seq must be a long%s%s", i, local ? ": " : "",
                           local ? local->message : "");
  out->partition = ab_queue_partition_of (json_node_get_string (key), *partitions);
  out->id = g_malloc (27);
  ab_ulid_new (out->id);
  /* properties {seq, value}: the value as its JSON text, or null */
  JsonNode *value = json_object_get_member (o, "value");
  g_autofree gchar *text
      = value != NULL && !JSON_NODE_HOLDS_NULL (value) ? json_to_string (value, FALSE) : NULL;
  g_autoptr (JsonObject) props = json_object_new ();
  json_object_set_int_member (props, "seq", sv.u.i);
  if (text != NULL)
    json_object_set_string_member (props, "value", text);
  else
    json_object_set_null_member (props, "value");
  ab_queue_add_insert (b, sv.u.i, out->partition, out->id,
                       json_node_init_object (json_node_alloc (), props));
  return TRUE;
}

GArray *
ab_queue_enqueue (AbEngine *engine, const gchar *ns, const gchar *queue, JsonArray *messages,
                  guint *accepted, GError **error)
{
  AbQueueInfo info = { 0 };
  g_autoptr (AbTableDesc) t = usable_queue (engine, ns, queue, NULL, &info, error);
  gint64 partitions = info.partitions;
  ab_queue_info_clear (&info);
  if (t == NULL)
    return NULL;
  g_autoptr (GArray) out = NULL;
  g_autoptr (JsonNode) body = ab_queue_body (messages, message_item, &partitions, &out, error);
  if (body == NULL)
    return NULL;
  g_autoptr (GArray) results = ab_queue_append (engine, ns, queue, body, NULL, error);
  if (results == NULL)
    return NULL;
  /* results are sorted by key: map them back to request order by id */
  g_autoptr (GHashTable) by_id = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < results->len; i++)
    {
      AbKeyResult *r = &g_array_index (results, AbKeyResult, i);
      g_hash_table_insert (by_id, r->target.u.s.data, GINT_TO_POINTER (r->status + 1));
    }
  *accepted = 0;
  for (guint i = 0; i < out->len; i++)
    {
      AbEnqueued *e = &g_array_index (out, AbEnqueued, i);
      e->status = (AbKeyStatus) (GPOINTER_TO_INT (g_hash_table_lookup (by_id, e->id)) - 1);
      *accepted += e->status == AB_STATUS_CREATED;
    }
  return g_steal_pointer (&out);
}

static void
message_free (AbQueueMessage *m)
{
  g_free (m->id);
  if (m->value != NULL)
    json_node_unref (m->value);
  g_free (m);
}

void
ab_queue_page_free (AbQueuePage *p)
{
  if (p == NULL)
    return;
  g_ptr_array_unref (p->messages);
  g_free (p);
}

static gchar *
poll_ranges (const gint64 *offset, const gint64 *until)
{
  if (offset != NULL && until != NULL)
    return g_strdup_printf ("seq:bt:%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                            *offset == G_MAXINT64 ? *offset : *offset + 1, *until);
  if (offset != NULL)
    return g_strdup_printf ("seq:gt:%" G_GINT64_FORMAT, *offset);
  if (until != NULL)
    return g_strdup_printf ("seq:lte:%" G_GINT64_FORMAT, *until);
  return NULL;
}

static AbQueueMessage *
message_of (const AbEdgeOut *e)
{
  AbQueueMessage *m = g_new0 (AbQueueMessage, 1);
  m->id = ab_value_to_string (&e->target);
  m->seq = e->version;
  for (guint i = 0; i < e->n_props; i++)
    {
      const AbValue *v = &e->values[i];
      if (g_str_equal (e->names[i], "seq"))
        m->seq = v->u.i;
      else if (g_str_equal (e->names[i], "value") && v->kind == AB_VALUE_STRING)
        {
          m->value = json_from_string (v->u.s.data, NULL);
          if (m->value == NULL) /* raw string if it does not parse */
            {
              m->value = json_node_new (JSON_NODE_VALUE);
              json_node_set_string (m->value, v->u.s.data);
            }
        }
    }
  if (m->value == NULL)
    m->value = json_node_new (JSON_NODE_NULL);
  return m;
}

AbQueuePage *
ab_queue_poll (AbEngine *engine, const gchar *ns, const gchar *queue, gint64 partition,
               const gint64 *offset, const gint64 *until, gint limit, GError **error)
{
  AbQueueInfo info = { 0 };
  g_autoptr (AbTableDesc) t = usable_queue (engine, ns, queue, &partition, &info, error);
  ab_queue_info_clear (&info);
  if (t == NULL)
    return NULL;
  if (limit < 0)
    limit = 100;
  if (limit < 1 || limit > 1000)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "limit must be between 1 and 1000"),
           NULL;
  g_autofree gchar *start = g_strdup_printf ("%" G_GINT64_FORMAT, partition);
  g_autofree gchar *ranges = poll_ranges (offset, until);
  AbScanParams p = {
    .index = "seq", .start = start, .direction = AB_QDIR_OUT, .limit = limit, .ranges = ranges
  };
  g_autoptr (AbEdgeFrame) f = ab_engine_scan (engine, ns, queue, &p, error);
  if (f == NULL)
    return NULL;
  AbQueuePage *page = g_new0 (AbQueuePage, 1);
  page->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) message_free);
  page->has_next = f->has_next;
  page->has_offset = offset != NULL;
  page->offset = offset != NULL ? *offset : 0;
  for (guint i = 0; i < f->edges->len; i++)
    {
      AbQueueMessage *m = message_of (f->edges->pdata[i]);
      if (!page->has_offset || m->seq > page->offset)
        page->offset = m->seq;
      page->has_offset = TRUE;
      g_ptr_array_add (page->messages, m);
    }
  return page;
}

gboolean
ab_queue_commit (AbEngine *engine, const gchar *ns, const gchar *queue, gint64 partition,
                 gint64 offset, guint64 *committed, GError **error)
{
  AbQueueInfo info = { 0 };
  g_autoptr (AbTableDesc) t = usable_queue (engine, ns, queue, &partition, &info, error);
  ab_queue_info_clear (&info);
  if (t == NULL)
    return FALSE;
  g_autofree gchar *start = g_strdup_printf ("%" G_GINT64_FORMAT, partition);
  g_autofree gchar *ranges = g_strdup_printf ("seq:lte:%" G_GINT64_FORMAT, offset);
  AbScanParams p = {
    .index = "seq", .start = start, .direction = AB_QDIR_OUT, .limit = 1000, .ranges = ranges
  };
  *committed = 0;
  guint deleted;
  do
    {
      if (!ab_engine_scan_delete (engine, ns, queue, &p, &deleted, error))
        return FALSE;
      *committed += deleted;
    }
  while (deleted == 1000);
  return TRUE;
}
