/* queue/v1 under /queue/v1/databases/{database}/queues (upstream's other
 * form): the queue table built from a create request and its metadata in the
 * comment, enqueue as lock-free INSERTs, poll over a shard and its cursor. */
#include <string.h>
#include "engine/queue/queue-private.h"
#include "model/json_get.h"

#define MARKER "queue/v1 "
#define ORDER_INDEX "order"
#define DEFAULT_PARTITIONS 480
#define MAX_PARTITIONS 10000
#define MAX_POLL_LIMIT 1000
#define CURSOR_VERSION 1

void
ab_queue_db_info_clear (AbQueueDbInfo *q)
{
  g_free (q->database);
  g_free (q->queue);
  g_free (q->storage);
  g_free (q->order_by);
  memset (q, 0, sizeof *q);
}

/* "queue/v1 {"partitionCount":N,"orderBy":"F"}" */
static gchar *
meta_encode (gint64 partitions, const gchar *order_by)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "partitionCount");
  json_builder_add_int_value (b, partitions);
  json_builder_set_member_name (b, "orderBy");
  json_builder_add_string_value (b, order_by);
  json_builder_end_object (b);
  g_autoptr (JsonNode) n = json_builder_get_root (b);
  g_autofree gchar *text = json_to_string (n, FALSE);
  return g_strconcat (MARKER, text, NULL);
}

/* FALSE when the table is not a queue of this form (the namespaces form's
 * comment has "partitions" and no "orderBy"). */
static gboolean
info_from_table (const AbTableDesc *t, gpointer info)
{
  AbQueueDbInfo *out = info;
  if (t->schema->kind != AB_TABLE_IMMUTABLE_EDGE || ab_schema_index (t->schema, ORDER_INDEX) == NULL
      || t->comment == NULL || !g_str_has_prefix (t->comment, MARKER))
    return FALSE;
  g_autoptr (JsonNode) n = json_from_string (t->comment + strlen (MARKER), NULL);
  JsonObject *o = n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
  const gchar *order_by = o != NULL ? ab_model_json_get_string (o, "orderBy") : NULL;
  gint64 partitions = 0;
  if (order_by == NULL || !ab_model_json_int (o, NULL, "partitionCount", 0, &partitions, NULL)
      || partitions < 1)
    return FALSE;
  out->database = g_strdup (t->database);
  out->queue = g_strdup (t->table);
  out->storage = g_strdup (t->storage);
  out->partition_count = partitions;
  out->order_by = g_strdup (order_by);
  return TRUE;
}

/* The queue's table (a reference) with its metadata in *info; NOT_FOUND
 * without the table, BAD_REQUEST when it is not such a queue. */
static AbTableDesc *
queue_table (AbEngine *engine, const gchar *db, const gchar *queue, AbQueueDbInfo *info,
             GError **error)
{
  gboolean found;
  AbTableDesc *t = ab_queue_table (engine, db, queue, info_from_table, info, &found);
  if (t == NULL && !found)
    ab_engine_fail (error, AB_ENGINE_ERROR_NOT_FOUND, "No such queue %s.%s.", db, queue);
  else if (t == NULL)
    ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "`%s.%s` is not a queue/v1 table", db,
                    queue);
  return t;
}

gboolean
ab_queue_db_get (AbEngine *engine, const gchar *database, const gchar *queue, AbQueueDbInfo *out,
                 GError **error)
{
  g_autoptr (AbTableDesc) t = queue_table (engine, database, queue, out, error);
  return t != NULL;
}

/* QueueField {name, type, nullable (default true), comment}. */
static AbField *
parse_property (JsonNode *node, guint k, GError **error)
{
  g_autofree gchar *path = g_strdup_printf ("properties[%u]", k);
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL, *type_name = NULL, *comment = NULL;
  gboolean nullable;
  AbType type;
  if (o == NULL || !ab_model_json_string (o, path, "name", TRUE, NULL, &name, error)
      || !ab_model_json_string (o, path, "type", TRUE, NULL, &type_name, error)
      || !ab_model_json_bool (o, path, "nullable", TRUE, &nullable, error)
      || !ab_model_json_string (o, path, "comment", FALSE, "", &comment, error))
    return NULL;
  if (!ab_type_parse (type_name, &type))
    return ab_model_invalid (error, "Unknown type '%s' at '%s.type'", type_name, path), NULL;
  return ab_field_new (name, type, nullable, comment);
}

/* Upstream's rules, in its order; then the system names, which would make
 * the index "order" read the partition or the message id instead. */
static gboolean
check_request (gint64 partitions, const AbSchema *s, const gchar *order_by, GError **error)
{
  static const gchar *const reserved[] = { "ts", "src", "tgt", NULL };
  static const gchar *const system[] = { "version", "source", "target", NULL };
  const AbEngineError bad = AB_ENGINE_ERROR_BAD_REQUEST;
  if (partitions < 1)
    return ab_engine_fail (error, bad, "partitionCount must be positive, got %" G_GINT64_FORMAT,
                           partitions);
  if (partitions > MAX_PARTITIONS)
    return ab_engine_fail (error, bad, "partitionCount must be at most %d, got %" G_GINT64_FORMAT,
                           MAX_PARTITIONS, partitions);
  g_autoptr (GString) names = g_string_new ("[");
  for (guint k = 0; k < s->fields->len; k++)
    {
      const AbField *f = s->fields->pdata[k];
      if (g_strv_contains (reserved, f->name))
        return ab_engine_fail (error, bad,
                               "property `%s` collides with a reserved field name [ts, src, tgt]",
                               f->name);
      if (g_strv_contains (system, f->name))
        return ab_engine_fail (
            error, bad, "property `%s` collides with a system field name [version, source, target]",
            f->name);
      g_string_append_printf (names, "%s%s", k > 0 ? ", " : "", f->name);
    }
  g_string_append_c (names, ']');
  const AbField *f = ab_schema_field (s, order_by);
  if (f == NULL)
    return ab_engine_fail (error, bad, "orderBy `%s` must name one of the declared properties %s",
                           order_by, names->str);
  if (f->type != AB_TYPE_LONG)
    return ab_engine_fail (error, bad, "orderBy field `%s` must be LONG, got %s", order_by,
                           ab_type_v2_name (f->type));
  if (f->nullable)
    return ab_engine_fail (error, bad, "orderBy field `%s` must be non-nullable", order_by);
  return TRUE;
}

/* The schema of a queue: partition -> message id, the declared properties,
 * direction OUT and the index "order" on orderBy ASC. */
static AbSchema *
queue_schema (JsonArray *props, gint64 partitions, const gchar *order_by, GError **error)
{
  g_autoptr (AbSchema) s = ab_schema_new ();
  s->kind = AB_TABLE_IMMUTABLE_EDGE;
  s->source_type = AB_TYPE_LONG;
  s->target_type = AB_TYPE_STRING;
  g_free (s->source_comment);
  s->source_comment = g_strdup ("partition");
  g_free (s->target_comment);
  s->target_comment = g_strdup ("message id");
  s->direction = AB_DIRTYPE_OUT;
  GError *local = NULL;
  for (guint k = 0; props != NULL && k < json_array_get_length (props); k++)
    {
      AbField *f = parse_property (json_array_get_element (props, k), k, &local);
      if (f == NULL)
        return ab_engine_propagate (error, local), NULL;
      g_ptr_array_add (s->fields, f);
    }
  if (!check_request (partitions, s, order_by, error))
    return NULL;
  AbIndex *idx = ab_index_new (ORDER_INDEX, NULL);
  ab_index_add_field (idx, order_by, AB_ORDER_ASC);
  g_ptr_array_add (s->indexes, idx);
  if (!ab_schema_finish (s, &local))
    return ab_engine_propagate (error, local), NULL;
  return g_steal_pointer (&s);
}

gboolean
ab_queue_db_create (AbEngine *engine, const gchar *database, JsonObject *request,
                    const gchar *actor, AbQueueDbInfo *out, GError **error)
{
  GError *local = NULL;
  g_autofree gchar *queue = NULL, *storage = NULL, *order_by = NULL, *comment = NULL;
  gint64 partitions;
  JsonArray *props;
  /* the request's comment is accepted and not kept: the table's comment
   * holds the queue's metadata */
  if (!ab_model_json_string (request, NULL, "queue", TRUE, NULL, &queue, &local)
      || !ab_model_json_string (request, NULL, "storage", TRUE, NULL, &storage, &local)
      || !ab_model_json_int (request, NULL, "partitionCount", DEFAULT_PARTITIONS, &partitions,
                             &local)
      || !ab_model_json_string (request, NULL, "orderBy", FALSE, "seq", &order_by, &local)
      || !ab_model_json_array (request, NULL, "properties", FALSE, &props, &local)
      || !ab_model_json_string (request, NULL, "comment", FALSE, "", &comment, &local)
      || !ab_model_validate_name ("queue", queue, &local)
      || !ab_model_validate_storage (storage, &local))
    return ab_engine_propagate (error, local), FALSE;
  AbSchema *schema = queue_schema (props, partitions, order_by, error);
  if (schema == NULL)
    return FALSE;
  g_autoptr (AbTableDesc) proto = ab_table_desc_new ();
  ab_schema_free (proto->schema);
  proto->schema = schema;
  g_free (proto->database);
  proto->database = g_strdup (database);
  g_free (proto->table);
  proto->table = g_strdup (queue);
  g_free (proto->storage);
  proto->storage = g_strdup (storage);
  g_free (proto->comment);
  proto->comment = meta_encode (partitions, order_by);
  proto->mode = AB_MODE_SYNC;
  proto->code = ab_codec_table_code (database, queue);
  return ab_queue_create_table (engine, proto, actor, info_from_table, out, error);
}

gboolean
ab_queue_db_delete (AbEngine *engine, const gchar *database, const gchar *queue, const gchar *actor,
                    GError **error)
{
  AbQueueDbInfo info = { 0 };
  g_autoptr (AbTableDesc) t = queue_table (engine, database, queue, &info, error);
  ab_queue_db_info_clear (&info);
  if (t == NULL)
    return FALSE;
  GError *local = NULL;
  const gboolean inactive = FALSE;
  if (t->active)
    {
      g_autoptr (AbTableDesc) u = ab_catalog_update_table (
          engine->catalog, database, queue, &inactive, NULL, NULL, NULL, actor, &local);
      if (u == NULL)
        return ab_engine_propagate (error, local), FALSE;
    }
  if (!ab_catalog_delete_table (engine->catalog, database, queue, &local))
    return ab_engine_propagate (error, local), FALSE;
  return TRUE;
}

/* ---- enqueue ---- */

/* A JSON number with an integral value (upstream: a Number). */
static gboolean
order_value (JsonNode *n, gint64 *out)
{
  if (n == NULL || !JSON_NODE_HOLDS_VALUE (n)
      || (json_node_get_value_type (n) != G_TYPE_INT64
          && json_node_get_value_type (n) != G_TYPE_DOUBLE))
    return FALSE;
  AbValue v = AB_VALUE_INIT;
  if (!ab_model_cast_json (n, AB_TYPE_LONG, "orderBy", &v, NULL))
    return FALSE;
  *out = v.u.i;
  ab_value_clear (&v);
  return TRUE;
}

/* One message {key, id, payload} as an INSERT item of the mutation body;
 * ctx is the queue's AbQueueDbInfo. */
static gboolean
message_item (JsonNode *m, guint i, gconstpointer ctx, JsonBuilder *b, AbEnqueued *out,
              GError **error)
{
  const AbQueueDbInfo *q = ctx;
  g_autofree gchar *path = g_strdup_printf ("messages[%u]", i);
  g_autofree gchar *key = NULL;
  GError *local = NULL;
  JsonObject *o = ab_model_json_object (m, path, &local), *payload = NULL;
  if (o == NULL || !ab_model_json_string (o, path, "key", TRUE, NULL, &key, &local)
      || !ab_model_json_string (o, path, "id", TRUE, NULL, &out->id, &local)
      || !ab_model_json_child (o, path, "payload", FALSE, &payload, &local))
    return ab_engine_propagate (error, local), FALSE;
  gint64 order;
  if (payload == NULL || !order_value (json_object_get_member (payload, q->order_by), &order))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "message `%s` payload must carry a numeric `%s`", out->id, q->order_by);
  out->partition = ab_queue_partition_of (key, q->partition_count);
  ab_queue_add_insert (b, order, out->partition, out->id,
                       json_node_copy (json_object_get_member (o, "payload")));
  return TRUE;
}

static gchar *
key_text (gint64 partition, const gchar *id)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT ":%s", partition, id);
}

GArray *
ab_queue_db_enqueue (AbEngine *engine, const gchar *database, const gchar *queue,
                     JsonArray *messages, const gchar *actor, guint *accepted, GError **error)
{
  AbQueueDbInfo q = { 0 };
  g_autoptr (AbTableDesc) t = queue_table (engine, database, queue, &q, error);
  if (t == NULL)
    return NULL;
  g_autoptr (GArray) items = NULL;
  g_autoptr (JsonNode) body = ab_queue_body (messages, message_item, &q, &items, error);
  ab_queue_db_info_clear (&q);
  if (body == NULL)
    return NULL;
  g_autoptr (GArray) results = NULL;
  if (items->len > 0)
    {
      results = ab_queue_append (engine, database, queue, body, actor, error);
      if (results == NULL)
        return NULL;
    }
  /* results are one per key, sorted: back to request order, once a key */
  g_autoptr (GHashTable) status = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; results != NULL && i < results->len; i++)
    {
      AbKeyResult *r = &g_array_index (results, AbKeyResult, i);
      g_hash_table_insert (status, key_text (r->source.u.i, r->target.u.s.data),
                           GINT_TO_POINTER (r->status + 1));
    }
  GArray *out = ab_enqueued_array_new (items->len);
  *accepted = 0;
  for (guint i = 0; i < items->len; i++)
    {
      AbEnqueued *e = &g_array_index (items, AbEnqueued, i);
      g_autofree gchar *k = key_text (e->partition, e->id);
      gpointer s = g_hash_table_lookup (status, k);
      if (s == NULL)
        continue; /* a key seen before */
      g_hash_table_remove (status, k);
      AbEnqueued r
          = { e->partition, g_steal_pointer (&e->id), (AbKeyStatus) (GPOINTER_TO_INT (s) - 1) };
      *accepted += r.status == AB_STATUS_CREATED;
      g_array_append_val (out, r);
    }
  return out;
}

/* ---- poll ---- */

/* The cursor: base64url (no padding) of a version byte, a big-endian int32
 * count and that many (int32 partition, int64 position) pairs by partition:
 * the last order value read per partition, as upstream writes it. */
static gint
by_partition (gconstpointer a, gconstpointer b)
{
  gint x = GPOINTER_TO_INT (a), y = GPOINTER_TO_INT (b);
  return (x > y) - (x < y);
}

static void
put_be (GByteArray *out, guint64 v, guint bytes)
{
  for (guint k = bytes; k-- > 0;)
    {
      guint8 c = (guint8) (v >> (8 * k));
      g_byte_array_append (out, &c, 1);
    }
}

static guint64
get_be (const guchar *p, guint bytes)
{
  guint64 v = 0;
  for (guint k = 0; k < bytes; k++)
    v = v << 8 | p[k];
  return v;
}

static gchar *
cursor_encode (GHashTable *positions)
{
  GList *keys = g_list_sort (g_hash_table_get_keys (positions), by_partition);
  g_autoptr (GByteArray) raw = g_byte_array_new ();
  put_be (raw, CURSOR_VERSION, 1);
  put_be (raw, g_hash_table_size (positions), 4);
  for (GList *k = keys; k != NULL; k = k->next)
    {
      put_be (raw, (guint32) GPOINTER_TO_INT (k->data), 4);
      put_be (raw, (guint64) * (gint64 *) g_hash_table_lookup (positions, k->data), 8);
    }
  g_list_free (keys);
  gchar *text = g_base64_encode (raw->data, raw->len);
  for (gchar *c = text; *c != '\0'; c++)
    if (*c == '+')
      *c = '-';
    else if (*c == '/')
      *c = '_';
    else if (*c == '=')
      *c = '\0';
  return text;
}

static void
position_set (GHashTable *positions, gint64 partition, gint64 order)
{
  gint64 *slot = g_hash_table_lookup (positions, GINT_TO_POINTER ((gint) partition));
  if (slot == NULL)
    {
      slot = g_new (gint64, 1);
      *slot = order;
      g_hash_table_insert (positions, GINT_TO_POINTER ((gint) partition), slot);
    }
  else if (order > *slot)
    *slot = order;
}

/* partition -> gint64* position; NULL (BAD_REQUEST) for a malformed cursor. */
static GHashTable *
cursor_decode (const gchar *text, GError **error)
{
  g_autoptr (GHashTable) positions
      = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  if (text == NULL || *text == '\0')
    return g_steal_pointer (&positions);
  gsize len = strlen (text);
  gboolean ok = len % 4 != 1;
  g_autofree gchar *b64 = g_malloc (len + 4);
  for (gsize k = 0; ok && k < len; k++)
    {
      gchar c = text[k];
      ok = g_ascii_isalnum (c) || c == '-' || c == '_';
      b64[k] = c == '-' ? '+' : c == '_' ? '/' : c;
    }
  gsize n = 0;
  g_autofree guchar *raw = NULL;
  if (ok)
    {
      memset (b64 + len, '=', (4 - len % 4) % 4);
      b64[len + (4 - len % 4) % 4] = '\0';
      raw = g_base64_decode (b64, &n);
    }
  if (ok && n >= 1 && raw[0] != CURSOR_VERSION)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "unsupported queue cursor version: %d", raw[0]),
           NULL;
  guint64 count = ok && n >= 5 ? get_be (raw + 1, 4) : 0;
  if (!ok || n < 5 || n != 5 + 12 * count)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "cursor `%s` is not a queue/v1 poll cursor", text),
           NULL;
  for (guint64 k = 0; k < count; k++)
    position_set (positions, (gint32) get_be (raw + 5 + 12 * k, 4),
                  (gint64) get_be (raw + 9 + 12 * k, 8));
  return g_steal_pointer (&positions);
}

static gint64
order_of (const AbEdgeOut *e, const gchar *order_by)
{
  for (guint k = 0; k < e->n_props; k++)
    if (g_str_equal (e->names[k], order_by) && e->values[k].kind == AB_VALUE_INT64)
      return e->values[k].u.i;
  return e->version;
}

static gint
by_order (gconstpointer a, gconstpointer b)
{
  const AbQueueDbMessage *x = a, *y = b;
  if (x->order != y->order)
    return x->order < y->order ? -1 : 1;
  return (x->partition > y->partition) - (x->partition < y->partition);
}

void
ab_queue_db_page_free (AbQueueDbPage *p)
{
  if (p == NULL)
    return;
  g_array_unref (p->messages);
  g_ptr_array_unref (p->frames);
  g_free (p->cursor);
  g_free (p);
}

AbQueueDbPage *
ab_queue_db_poll (AbEngine *engine, const gchar *database, const gchar *queue, gint64 shard_index,
                  gint64 shard_count, gint64 limit, const gchar *cursor, GError **error)
{
  const AbEngineError bad = AB_ENGINE_ERROR_BAD_REQUEST;
  if (shard_count < 1)
    return ab_engine_fail (error, bad, "shard count must be positive, got %" G_GINT64_FORMAT,
                           shard_count),
           NULL;
  if (shard_index < 0 || shard_index >= shard_count)
    return ab_engine_fail (error, bad,
                           "shard index must be in [0, %" G_GINT64_FORMAT
                           "), got %" G_GINT64_FORMAT,
                           shard_count, shard_index),
           NULL;
  if (limit < 1 || limit > MAX_POLL_LIMIT)
    return ab_engine_fail (error, bad, "limit must be in 1..%d, got %" G_GINT64_FORMAT,
                           MAX_POLL_LIMIT, limit),
           NULL;
  g_autoptr (GHashTable) positions = cursor_decode (cursor, error);
  if (positions == NULL)
    return NULL;
  AbQueueDbInfo q = { 0 };
  g_autoptr (AbTableDesc) t = queue_table (engine, database, queue, &q, error);
  if (t == NULL)
    return NULL;
  AbQueueDbPage *page = g_new0 (AbQueueDbPage, 1);
  page->messages = g_array_new (FALSE, FALSE, sizeof (AbQueueDbMessage));
  page->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_edge_frame_free);
  for (gint64 p = shard_index; p < q.partition_count; p += shard_count)
    {
      AbValue start = AB_VALUE_INIT, after = AB_VALUE_INIT;
      ab_value_set_int (&start, AB_VALUE_INT64, p);
      gint64 *pos = g_hash_table_lookup (positions, GINT_TO_POINTER ((gint) p));
      if (pos != NULL)
        ab_value_set_int (&after, AB_VALUE_INT64, *pos);
      /* resume strictly after the partition's position */
      AbRangeSpec gt = { .field = q.order_by, .op = AB_PRED_GT, .values = &after, .n_values = 1 };
      AbScanParams sp = { .index = ORDER_INDEX,
                          .start_value = &start,
                          .direction = AB_QDIR_OUT,
                          .limit = (gint) limit,
                          .range_specs = pos != NULL ? &gt : NULL,
                          .n_range_specs = pos != NULL ? 1 : 0 };
      AbEdgeFrame *f = ab_engine_scan (engine, database, queue, &sp, error);
      if (f == NULL)
        {
          ab_queue_db_info_clear (&q);
          ab_queue_db_page_free (page);
          return NULL;
        }
      g_ptr_array_add (page->frames, f);
      page->has_next |= f->has_next;
      for (guint i = 0; i < f->edges->len; i++)
        {
          AbQueueDbMessage m = { p, order_of (f->edges->pdata[i], q.order_by), f->edges->pdata[i] };
          position_set (positions, p, m.order);
          g_array_append_val (page->messages, m);
        }
    }
  ab_queue_db_info_clear (&q);
  g_array_sort (page->messages, by_order); /* stable: a partition's scan order stays */
  if (g_hash_table_size (positions) > 0)
    page->cursor = cursor_encode (positions);
  return page;
}
