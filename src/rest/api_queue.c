/* queue/v1 endpoints (docs/rest-api.md §6): queue life cycle, enqueue, poll and
 * commit under /queue/v1/namespaces/{ns}/queues, and the get, delete and
 * enqueue handlers api_queue_db.c's form shares. Unknown queue 404, a
 * disabled queue 409, partition out of range 400. */
#include <string.h>
#include "rest/api-private.h"
#include "engine/queue/queue.h"

#define ENGINE(ud) ((AbEngine *) (ud))
#define Q "/queue/v1/namespaces/{ns}/queues"

static void
answer_info (AbHttpResponse *resp, AbQueueInfo *q)
{
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "namespace", q->ns);
  json_object_set_string_member (o, "queue", q->queue);
  json_object_set_int_member (o, "partitions", q->partitions);
  json_object_set_string_member (o, "storage", q->storage);
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, o);
  ab_http_response_json (resp, 200, n);
  ab_queue_info_clear (q);
}

static void
queue_create (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  const gchar *name, *storage;
  if (o == NULL || !ab_api_opt_string (o, "queue", &name, resp)
      || !ab_api_opt_string (o, "storage", &storage, resp))
    return;
  if (name == NULL || storage == NULL)
    return ab_http_response_error (resp, 400, "'queue' and 'storage' are required.");
  gint64 partitions = 30;
  JsonNode *pn = json_object_get_member (o, "partitions");
  if (pn != NULL && !JSON_NODE_HOLDS_NULL (pn))
    {
      if (!JSON_NODE_HOLDS_VALUE (pn) || json_node_get_value_type (pn) != G_TYPE_INT64)
        return ab_http_response_error (resp, 400, "'partitions' must be an integer.");
      partitions = json_node_get_int (pn);
    }
  AbQueueInfo q = { 0 };
  GError *error = NULL;
  if (!ab_queue_create (ENGINE (ud), ab_http_param (req, "ns"), name, storage, partitions,
                        ab_api_actor (req), &q, &error))
    return ab_api_fail (resp, error);
  answer_info (resp, &q);
}

/* PUT …/enable or …/disable: the route says which. */
static void
queue_toggle (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  gboolean on = g_str_has_suffix (req->route, "/enable");
  AbQueueInfo q = { 0 };
  GError *error = NULL;
  if (!ab_queue_set_enabled (ENGINE (ud), ab_http_param (req, "ns"), ab_http_param (req, "queue"),
                             on, ab_api_actor (req), &q, &error))
    return ab_api_fail (resp, error);
  answer_info (resp, &q);
}

static void
queue_partitions (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  AbQueueInfo q = { 0 };
  GError *error = NULL;
  if (!ab_queue_get (ENGINE (ud), ab_http_param (req, "ns"), ab_http_param (req, "queue"), &q,
                     &error))
    return ab_api_fail (resp, error);
  JsonObject *o = json_object_new ();
  json_object_set_string_member (o, "namespace", q.ns);
  json_object_set_string_member (o, "queue", q.queue);
  json_object_set_int_member (o, "partitions", q.partitions);
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, o);
  ab_http_response_json (resp, 200, n);
  ab_queue_info_clear (&q);
}

/* ---- what both forms share (AbApiQueueForm) ---- */

static void
queue_get (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const AbApiQueueForm *form = route->kind;
  union {
    AbQueueInfo ns;
    AbQueueDbInfo db;
  } info = { 0 };
  GError *error = NULL;
  if (!form->get (route->engine, ab_http_param (req, form->scope), ab_http_param (req, "queue"),
                  &info, &error))
    return ab_api_fail (resp, error);
  form->answer_info (resp, &info);
}

static void
queue_delete (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const AbApiQueueForm *form = route->kind;
  GError *error = NULL;
  if (!form->remove (route->engine, ab_http_param (req, form->scope), ab_http_param (req, "queue"),
                     ab_api_actor (req), &error))
    return ab_api_fail (resp, error);
  ab_http_response_empty (resp, 204);
}

/* The body of an enqueue: an object whose "messages" is an array (owned),
 * or NULL with 400 answered. */
static JsonNode *
messages_body (const AbHttpRequest *req, AbHttpResponse *resp)
{
  g_autoptr (JsonNode) node = ab_api_body (req, resp);
  JsonObject *o = node != NULL ? ab_api_object (node, resp) : NULL;
  if (o == NULL)
    return NULL;
  JsonNode *mn = json_object_get_member (o, "messages");
  if (mn == NULL || !JSON_NODE_HOLDS_ARRAY (mn))
    return ab_http_response_error (resp, 400, "'messages' must be an array."), NULL;
  return g_steal_pointer (&node);
}

/* {"accepted", "results": [{partition, id, status}]} (res: AbEnqueued). */
static void
enqueue_answer (AbHttpResponse *resp, guint accepted, GArray *res)
{
  AbJsonw w;
  ab_jsonw_init (&w, 64 + 96 * (gsize) res->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_member_int (&w, "accepted", accepted);
  ab_jsonw_key (&w, "results");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < res->len; i++)
    {
      AbEnqueued *e = &g_array_index (res, AbEnqueued, i);
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_int (&w, "partition", e->partition);
      ab_jsonw_member_string (&w, "id", e->id);
      ab_jsonw_member_string (&w, "status", ab_key_status_name (e->status));
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_end_object (&w);
  ab_api_answer (resp, &w);
}

static void
enqueue (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const AbApiRoute *route = ud;
  const AbApiQueueForm *form = route->kind;
  g_autoptr (JsonNode) node = messages_body (req, resp);
  if (node == NULL)
    return;
  JsonArray *messages = json_object_get_array_member (json_node_get_object (node), "messages");
  guint accepted = 0;
  GError *error = NULL;
  g_autoptr (GArray) res = form->enqueue (route->engine, ab_http_param (req, form->scope),
                                          ab_http_param (req, "queue"), messages,
                                          ab_api_actor (req), &accepted, &error);
  if (res == NULL)
    return ab_api_fail (resp, error);
  enqueue_answer (resp, accepted, res);
}

void
ab_api_queue_routes (AbRouter *r, AbEngine *e, const gchar *queues, const AbApiQueueForm *form)
{
  AbApiRoute *route = ab_api_route (r, e, form);
  g_autofree gchar *one = g_strconcat (queues, "/{queue}", NULL);
  g_autofree gchar *messages = g_strconcat (one, "/messages", NULL);
  ab_router_add (r, "GET", one, AB_ROUTE_INLINE, queue_get, route);
  ab_router_add (r, "DELETE", one, AB_ROUTE_BLOCKING, queue_delete, route);
  ab_router_add (r, "POST", messages, AB_ROUTE_BLOCKING, enqueue, route);
}

/* ---- the namespaces form ---- */

/* The engine's calls of this form as AbApiQueueForm has them (no actor). */
static gboolean
delete_ns (AbEngine *e, const gchar *ns, const gchar *queue, const gchar *actor, GError **error)
{
  return ab_queue_delete (e, ns, queue, error);
}

static GArray *
enqueue_ns (AbEngine *e, const gchar *ns, const gchar *queue, JsonArray *messages,
            const gchar *actor, guint *accepted, GError **error)
{
  return ab_queue_enqueue (e, ns, queue, messages, accepted, error);
}

static const AbApiQueueForm NAMESPACES = {
  "ns", (AbApiQueueGet) ab_queue_get, (AbApiQueueAnswer) answer_info, delete_ns, enqueue_ns,
};

/* Integer query/path values: FALSE (400 answered) when malformed. */
static gboolean
int_param (const gchar *text, const gchar *name, gint64 *out, AbHttpResponse *resp)
{
  if (text != NULL && g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, out, NULL))
    return TRUE;
  g_autofree gchar *msg = g_strdup_printf ("'%s' must be an integer.", name);
  ab_http_response_error (resp, 400, msg);
  return FALSE;
}

static void
queue_poll (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  gint64 partition, offset, until, limit = 100;
  const gchar *o = ab_http_query_get (req, "offset"), *u = ab_http_query_get (req, "until");
  const gchar *l = ab_http_query_get (req, "limit");
  if (!int_param (ab_http_param (req, "partition"), "partition", &partition, resp)
      || (o != NULL && !int_param (o, "offset", &offset, resp))
      || (u != NULL && !int_param (u, "until", &until, resp))
      || (l != NULL && !int_param (l, "limit", &limit, resp)))
    return;
  if (limit < 1 || limit > 1000)
    return ab_http_response_error (resp, 400, "'limit' must be between 1 and 1000.");
  GError *error = NULL;
  AbQueuePage *page = ab_queue_poll (
      ENGINE (ud), ab_http_param (req, "ns"), ab_http_param (req, "queue"), partition,
      o != NULL ? &offset : NULL, u != NULL ? &until : NULL, (gint) limit, &error);
  if (page == NULL)
    return ab_api_fail (resp, error);
  AbJsonw w;
  ab_jsonw_init (&w, 64 + 128 * (gsize) page->messages->len);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "messages");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < page->messages->len; i++)
    {
      AbQueueMessage *m = page->messages->pdata[i];
      ab_jsonw_begin_object (&w);
      ab_jsonw_member_int (&w, "partition", partition);
      ab_jsonw_member_string (&w, "id", m->id);
      ab_jsonw_member_int (&w, "seq", m->seq);
      ab_jsonw_key (&w, "value");
      ab_jsonw_node (&w, m->value);
      ab_jsonw_end_object (&w);
    }
  ab_jsonw_end_array (&w);
  ab_jsonw_key (&w, "offset");
  if (page->has_offset)
    ab_jsonw_int (&w, page->offset);
  else
    ab_jsonw_null (&w);
  ab_jsonw_member_bool (&w, "hasNext", page->has_next);
  ab_jsonw_end_object (&w);
  ab_queue_page_free (page);
  ab_api_answer (resp, &w);
}

static void
queue_commit (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  gint64 partition, offset;
  const gchar *o = ab_http_query_get (req, "offset");
  if (o == NULL)
    return ab_http_response_error (resp, 400, "'offset' is required.");
  if (!int_param (ab_http_param (req, "partition"), "partition", &partition, resp)
      || !int_param (o, "offset", &offset, resp))
    return;
  guint64 committed = 0;
  GError *error = NULL;
  if (!ab_queue_commit (ENGINE (ud), ab_http_param (req, "ns"), ab_http_param (req, "queue"),
                        partition, offset, &committed, &error))
    return ab_api_fail (resp, error);
  JsonObject *j = json_object_new ();
  json_object_set_string_member (j, "namespace", ab_http_param (req, "ns"));
  json_object_set_string_member (j, "queue", ab_http_param (req, "queue"));
  json_object_set_int_member (j, "partition", partition);
  json_object_set_int_member (j, "committed", (gint64) committed);
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, j);
  ab_http_response_json (resp, 200, n);
}

void
ab_api_register_queue (AbRouter *r, AbEngine *e)
{
  const AbRouteFlags I = AB_ROUTE_INLINE, B = AB_ROUTE_BLOCKING;
  ab_router_add (r, "POST", Q, B, queue_create, e);
  ab_api_queue_routes (r, e, Q, &NAMESPACES);
  ab_router_add (r, "PUT", Q "/{queue}/enable", B, queue_toggle, e);
  ab_router_add (r, "PUT", Q "/{queue}/disable", B, queue_toggle, e);
  ab_router_add (r, "GET", Q "/{queue}/partitions", I, queue_partitions, e);
  ab_router_add (r, "GET", Q "/{queue}/partitions/{partition}/poll", I, queue_poll, e);
  ab_router_add (r, "DELETE", Q "/{queue}/partitions/{partition}/messages", B, queue_commit, e);
}
