/* POST /graph/v3/query: upstream's query document (ActionbaseQuery), run by
 * the engine; the answer is {"items":[{name, data, rows, stats, offset,
 * hasNext}]}, one entry per included item, in query order. */
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
query (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autoptr (JsonNode) body = ab_api_body (req, resp);
  if (body == NULL)
    return;
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) items = ab_engine_query_doc (ENGINE (ud), body, &error);
  if (items == NULL)
    return ab_api_error (resp, error);
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
}

void
ab_api_register_query (AbRouter *r, AbEngine *e)
{
  ab_router_add (r, "POST", "/graph/v3/query", AB_ROUTE_BLOCKING, query, e);
}
