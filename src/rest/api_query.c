/* POST /graph/v3/query: upstream's query document (ActionbaseQuery), run by
 * the engine, and POST /graph/v3/query/{id}: a prepared query run by id or
 * alias; the answer is {"items":[{name, data, rows, stats, offset, hasNext}]}. */
#include "rest/api-private.h"

#define ENGINE(ud) ((AbEngine *) (ud))

static void
write_rows (AbJsonw *w, const AbRows *r)
{
  ab_jsonw_begin_object (w);
  ab_jsonw_member_string (w, "name", r->name);
  ab_jsonw_key (w, "data");
  ab_jsonw_begin_array (w);
  for (guint i = 0; i < r->rows->len; i++)
    {
      GArray *row = r->rows->pdata[i];
      ab_jsonw_begin_object (w);
      for (guint c = 0; c < r->columns->len; c++)
        {
          ab_jsonw_key (w, r->columns->pdata[c]);
          ab_jsonw_value (w, &g_array_index (row, AbValue, c));
        }
      ab_jsonw_end_object (w);
    }
  ab_jsonw_end_array (w);
  ab_jsonw_member_int (w, "rows", r->rows->len);
  ab_jsonw_key (w, "stats");
  ab_jsonw_begin_array (w);
  ab_jsonw_end_array (w);
  ab_jsonw_member_string (w, "offset", r->offset);
  ab_jsonw_member_bool (w, "hasNext", r->has_next);
  ab_jsonw_end_object (w);
}

static void
answer_items (AbHttpResponse *resp, GPtrArray *items, GError *error)
{
  if (items == NULL)
    {
      ab_api_error (resp, error);
      g_error_free (error);
      return;
    }
  AbJsonw w;
  ab_jsonw_init (&w, 256);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "items");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < items->len; i++)
    write_rows (&w, items->pdata[i]);
  ab_jsonw_end_array (&w);
  ab_jsonw_end_object (&w);
  ab_http_response_bytes (resp, 200, NULL, ab_jsonw_finish (&w));
  g_ptr_array_unref (items);
}

static void
query (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = ab_api_body (req, resp);
  if (body == NULL)
    return;
  GError *error = NULL;
  GPtrArray *r = ab_engine_query_doc (ENGINE (ud), body, &error);
  answer_items (resp, r, error);
}

/* {"arguments": {name: value...}} (an empty body: no arguments). */
static void
query_prepared (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = NULL;
  JsonObject *args = NULL;
  if (g_bytes_get_size (req->body) > 0)
    {
      body = ab_api_body (req, resp);
      JsonObject *o = body != NULL ? ab_api_object (body, resp) : NULL;
      if (o == NULL)
        return;
      JsonNode *a = json_object_get_member (o, "arguments");
      if (a != NULL && !JSON_NODE_HOLDS_OBJECT (a) && !JSON_NODE_HOLDS_NULL (a))
        return ab_http_response_error (resp, 400,
                                       "'arguments' must be an object of values by name.");
      args = a != NULL && JSON_NODE_HOLDS_OBJECT (a) ? json_node_get_object (a) : NULL;
    }
  GError *error = NULL;
  GPtrArray *r = ab_engine_prepared_run (ENGINE (ud), ab_http_param (req, "id"), args, &error);
  answer_items (resp, r, error);
}

void
ab_api_register_query (AbRouter *r, AbEngine *e)
{
  ab_router_add (r, "POST", "/graph/v3/query", AB_ROUTE_BLOCKING, query, e);
  ab_router_add (r, "POST", "/graph/v3/query/{id}", AB_ROUTE_BLOCKING, query_prepared, e);
}
