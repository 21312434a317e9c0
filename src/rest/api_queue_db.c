/* queue/v1 endpoints of upstream's other form (docs/rest-api.md §6.1): create,
 * get and delete a queue, enqueue, and poll a shard under
 * /queue/v1/databases/{database}/queues. */
#include <string.h>
#include "rest/api-private.h"
#include "engine/queue/queue.h"

#define ENGINE(ud) ((AbEngine *) (ud))
#define Q "/queue/v1/databases/{database}/queues"

static void
answer_info (AbHttpResponse *resp, AbQueueDbInfo *q)
{
  AbJsonw w;
  ab_jsonw_init (&w, 256);
  ab_jsonw_begin_object (&w);
  ab_jsonw_member_string (&w, "database", q->database);
  ab_jsonw_member_string (&w, "queue", q->queue);
  ab_jsonw_member_int (&w, "partitionCount", q->partition_count);
  ab_jsonw_member_string (&w, "orderBy", q->order_by);
  ab_jsonw_member_string (&w, "storage", q->storage);
  ab_jsonw_end_object (&w);
  ab_queue_db_info_clear (q);
  ab_api_answer (resp, &w);
}

static void
queue_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  if (o == NULL)
    return;
  AbQueueDbInfo q = { 0 };
  GError *error = NULL;
  if (!ab_queue_db_create (ENGINE (ud), ab_http_param (req, "database"), o, ab_api_actor (req), &q,
                           &error))
    return ab_api_fail (resp, error);
  answer_info (resp, &q);
}

static const AbApiQueueForm DATABASES = {
  "database",
  (AbApiQueueGet) ab_queue_db_get,
  (AbApiQueueAnswer) answer_info,
  ab_queue_db_delete,
  ab_queue_db_enqueue,
};

/* "index/count" (default 0/1): FALSE (400 answered) when it is not two
 * integers; the engine checks their ranges. */
static gboolean
parse_shard (const gchar *text, gint64 *index, gint64 *count, AbHttpResponse *resp)
{
  *index = 0, *count = 1;
  if (text == NULL)
    return TRUE;
  g_auto (GStrv) parts = g_strsplit (text, "/", -1);
  g_autofree gchar *msg = NULL;
  if (g_strv_length (parts) != 2)
    msg = g_strdup_printf ("shard must be formatted as `index/count`, got `%s`", text);
  else if (!g_ascii_string_to_signed (parts[0], 10, G_MININT32, G_MAXINT32, index, NULL))
    msg = g_strdup_printf ("shard index must be an integer, got `%s`", parts[0]);
  else if (!g_ascii_string_to_signed (parts[1], 10, G_MININT32, G_MAXINT32, count, NULL))
    msg = g_strdup_printf ("shard count must be an integer, got `%s`", parts[1]);
  if (msg != NULL)
    ab_http_response_error (resp, 400, msg);
  return msg == NULL;
}

static void
queue_poll (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  gint64 index, count, limit = 100;
  const gchar *l = ab_http_query_get (req, "limit");
  if (!parse_shard (ab_http_query_get (req, "shard"), &index, &count, resp))
    return;
  if (l != NULL && !g_ascii_string_to_signed (l, 10, G_MININT64, G_MAXINT64, &limit, NULL))
    return ab_http_response_error (resp, 400, "'limit' must be an integer.");
  GError *error = NULL;
  AbQueueDbPage *page = ab_queue_db_poll (ENGINE (ud), ab_http_param (req, "database"),
                                          ab_http_param (req, "queue"), index, count, limit,
                                          ab_http_query_get (req, "cursor"), &error);
  if (page == NULL)
    return ab_api_fail (resp, error);
  AbJsonw w;
  ab_jsonw_init (&w, 64 + 160 * (gsize) page->messages->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "messages");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < page->messages->len; i++)
    {
      const AbQueueDbMessage *m = &g_array_index (page->messages, AbQueueDbMessage, i);
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_int (&w, "partition", m->partition);
      ab_jsonw_member_value (&w, "id", &m->edge->target);
      ab_jsonw_member_int (&w, "orderBy", m->order);
      ab_jsonw_key (&w, "payload");
      ab_jsonw_begin_object (&w);
      for (guint p = 0; p < m->edge->n_props; p++)
        ab_jsonw_member_value (&w, m->edge->names[p], &m->edge->values[p]);
      ab_jsonw_end_object (&w);
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_member_string (&w, "cursor", page->cursor);
  ab_jsonw_member_bool (&w, "hasNext", page->has_next);
  ab_jsonw_end_object (&w);
  ab_queue_db_page_free (page);
  ab_api_answer (resp, &w);
}

void
ab_api_register_queue_db (AbRouter *r, AbEngine *e)
{
  ab_router_add (r, "POST", Q, AB_ROUTE_BLOCKING, queue_create, e);
  ab_api_queue_routes (r, e, Q, &DATABASES);
  /* one scan per partition of the shard (480 by default): not inline */
  ab_router_add (r, "GET", Q "/{queue}/poll", AB_ROUTE_BLOCKING, queue_poll, e);
}
