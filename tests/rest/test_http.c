/* Transport tests: the router and URL decoding on their own, then a real
 * AbHttpServer on a random port driven by libsoup: statuses, JSON errors,
 * request ids, limits, concurrency of blocking routes, disconnects, graceful stop. */
#include <arpa/inet.h>
#include <check.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "rest/http.h"

/* ---- router and decoding (no server) ---- */

static void
noop (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
}

START_TEST (test_percent_decode)
{
  g_autofree gchar *a = ab_http_percent_decode ("a%20b%2Fc+d", -1, FALSE);
  g_autofree gchar *b = ab_http_percent_decode ("a%20b+d", -1, TRUE);
  g_autofree gchar *c = ab_http_percent_decode ("bad%zz%4", -1, FALSE);
  g_autofree gchar *d = ab_http_percent_decode ("%E2%9C%93", -1, FALSE);
  g_autofree gchar *e = ab_http_percent_decode ("%ff%00x", -1, FALSE);
  ck_assert_str_eq (a, "a b/c+d");
  ck_assert_str_eq (b, "a b d");
  ck_assert_str_eq (c, "bad%zz%4");
  ck_assert_str_eq (d, "\xe2\x9c\x93");
  ck_assert (g_utf8_validate (e, -1, NULL));
  ck_assert (g_str_has_suffix (e, "%00x"));
}
END_TEST

START_TEST (test_query_parse)
{
  g_autoptr (GHashTable) q = ab_http_query_parse ("x=1&y=a+b&x=2&flag&&z=%26%3D&x=");
  GPtrArray *x = g_hash_table_lookup (q, "x");
  ck_assert_ptr_nonnull (x);
  ck_assert_uint_eq (x->len, 3);
  ck_assert_str_eq (g_ptr_array_index (x, 0), "1");
  ck_assert_str_eq (g_ptr_array_index (x, 1), "2");
  ck_assert_str_eq (g_ptr_array_index (x, 2), "");
  ck_assert_str_eq (g_ptr_array_index ((GPtrArray *) g_hash_table_lookup (q, "y"), 0), "a b");
  ck_assert_str_eq (g_ptr_array_index ((GPtrArray *) g_hash_table_lookup (q, "flag"), 0), "");
  ck_assert_str_eq (g_ptr_array_index ((GPtrArray *) g_hash_table_lookup (q, "z"), 0), "&=");
  ck_assert_uint_eq (g_hash_table_size (q), 4);
  g_autoptr (GHashTable) empty = ab_http_query_parse (NULL);
  ck_assert_uint_eq (g_hash_table_size (empty), 0);
}
END_TEST

START_TEST (test_router_match)
{
  AbRouter *r = ab_router_new ();
  const gchar *pattern = NULL;
  GHashTable *params = NULL;
  ab_router_add (r, "GET", "/db/{database}/tables/{table}", AB_ROUTE_INLINE, noop, NULL);
  ab_router_add (r, "GET", "/db/{database}/tables/special", AB_ROUTE_INLINE, noop, NULL);
  ab_router_add (r, "POST", "/db/{database}", AB_ROUTE_BLOCKING, noop, NULL);
  ab_router_add (r, "GET", "/", AB_ROUTE_INLINE, noop, NULL);

  ck_assert_int_eq (
      ab_router_match (r, "GET", "/db/a%2Fb/tables/t%20x", NULL, NULL, NULL, &pattern, &params),
      AB_ROUTE_FOUND);
  ck_assert_str_eq (pattern, "/db/{database}/tables/{table}");
  ck_assert_str_eq (g_hash_table_lookup (params, "database"), "a/b");
  ck_assert_str_eq (g_hash_table_lookup (params, "table"), "t x");
  g_clear_pointer (&params, g_hash_table_unref);

  ck_assert_int_eq (
      ab_router_match (r, "GET", "/db/x/tables/special", NULL, NULL, NULL, &pattern, &params),
      AB_ROUTE_FOUND);
  ck_assert_str_eq (pattern, "/db/{database}/tables/special");
  g_clear_pointer (&params, g_hash_table_unref);

  AbRouteFlags flags = AB_ROUTE_INLINE;
  ck_assert_int_eq (ab_router_match (r, "post", "/db/x/", NULL, &flags, NULL, NULL, NULL),
                    AB_ROUTE_FOUND);
  ck_assert_int_eq (flags, AB_ROUTE_BLOCKING);
  ck_assert_int_eq (ab_router_match (r, "GET", "/db/x", NULL, NULL, NULL, NULL, NULL),
                    AB_ROUTE_NO_METHOD);
  g_autofree gchar *allow = ab_router_allowed_methods (r, "/db/x");
  ck_assert_str_eq (allow, "POST");
  ck_assert_int_eq (ab_router_match (r, "GET", "/db", NULL, NULL, NULL, NULL, NULL),
                    AB_ROUTE_NO_PATH);
  ck_assert_int_eq (ab_router_match (r, "HEAD", "/db/x/tables/y", NULL, NULL, NULL, NULL, NULL),
                    AB_ROUTE_FOUND);
  ck_assert_int_eq (ab_router_match (r, "HEAD", "/db/x", NULL, NULL, NULL, NULL, NULL),
                    AB_ROUTE_NO_METHOD);
  ck_assert_int_eq (ab_router_match (r, "GET", "/", NULL, NULL, NULL, &pattern, NULL),
                    AB_ROUTE_FOUND);
  ck_assert_str_eq (pattern, "/");
  ab_router_free (r);
}
END_TEST

START_TEST (test_error_body)
{
  AbHttpResponse resp;
  ab_http_response_init (&resp);
  ab_http_response_error (&resp, 409, "it \"conflicts\"");
  ck_assert_uint_eq (resp.status, 409);
  gsize len = 0;
  const gchar *data = g_bytes_get_data (resp.body, &len);
  g_autofree gchar *text = g_strndup (data, len);
  g_autoptr (JsonNode) node = json_from_string (text, NULL);
  JsonObject *o = json_node_get_object (node);
  ck_assert_int_eq (json_object_get_int_member (o, "status"), 409);
  ck_assert_str_eq (json_object_get_string_member (o, "error"), "Conflict");
  ck_assert_str_eq (json_object_get_string_member (o, "message"), "it \"conflicts\"");
  ck_assert_int_gt (json_object_get_int_member (o, "timestamp"), 1600000000000);
  ab_http_response_clear (&resp);
}
END_TEST

START_TEST (test_metrics_render)
{
  AbMetrics *m = ab_metrics_new ();
  ab_metrics_observe (m, "/a/{x}", "GET", 200, 0.002);
  ab_metrics_observe (m, "/a/{x}", "GET", 200, 0.2);
  ab_metrics_observe (m, "/a/{x}", "GET", 404, 0.0001);
  ab_metrics_add_provider (m, (AbMetricsProvider) g_strdup, (gpointer) "extra_metric 7", NULL);
  g_autofree gchar *page = ab_metrics_render (m);
  ck_assert_ptr_nonnull (strstr (
      page, "actionbase_http_requests_total{route=\"/a/{x}\",method=\"GET\",status=\"200\"} 2\n"));
  ck_assert_ptr_nonnull (strstr (page, "status=\"404\"} 1\n"));
  ck_assert_ptr_nonnull (
      strstr (page, "_bucket{route=\"/a/{x}\",method=\"GET\",le=\"0.001\"} 1\n"));
  ck_assert_ptr_nonnull (strstr (page, "_bucket{route=\"/a/{x}\",method=\"GET\",le=\"0.25\"} 3\n"));
  /* Bounds and sums in their shortest round-trip form, as client libraries print them. */
  ck_assert_ptr_nonnull (
      strstr (page, "_bucket{route=\"/a/{x}\",method=\"GET\",le=\"0.0005\"} 1\n"));
  ck_assert_ptr_nonnull (
      strstr (page, "_bucket{route=\"/a/{x}\",method=\"GET\",le=\"0.005\"} 2\n"));
  ck_assert_ptr_nonnull (strstr (page, "_sum{route=\"/a/{x}\",method=\"GET\"} 0.2021\n"));
  ck_assert_ptr_null (strstr (page, "00000"));
  ck_assert_ptr_nonnull (strstr (page, "le=\"+Inf\"} 3\n"));
  /* integral bounds print as integers, as Prometheus clients do (not %g's "1e+01") */
  ck_assert_ptr_nonnull (strstr (page, "_bucket{route=\"/a/{x}\",method=\"GET\",le=\"10\"} 3\n"));
  ck_assert_ptr_null (strstr (page, "e+"));
  ck_assert_ptr_nonnull (strstr (page, "_count{route=\"/a/{x}\",method=\"GET\"} 3\n"));
  ck_assert (g_str_has_suffix (page, "extra_metric 7\n"));
  ab_metrics_free (m);
}
END_TEST

/* ---- the server under test ---- */

static AbRouter *router;
static AbHttpServer *server;
static AbMetrics *metrics;
static gchar *base_url;

static void
h_inline (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  ab_http_response_json (resp, 200, json_from_string ("{\"ok\":true}", NULL));
}

static void
h_slow (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  g_usleep (200 * 1000);
  ab_http_response_json (resp, 200, json_from_string ("{\"slow\":true}", NULL));
}

static void
h_fail (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  ab_http_response_error (resp, 400, "bad thing happened");
}

static void
h_empty (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  ab_http_response_empty (resp, 204);
  ab_http_response_add_header (resp, "X-Extra", "yes");
}

static void
add_table (JsonBuilder *b, const gchar *name, GHashTable *t, gboolean arrays)
{
  GHashTableIter it;
  gpointer k, v;
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  g_hash_table_iter_init (&it, t);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      json_builder_set_member_name (b, k);
      if (!arrays)
        {
          json_builder_add_string_value (b, v);
          continue;
        }
      json_builder_begin_array (b);
      for (guint i = 0; i < ((GPtrArray *) v)->len; i++)
        json_builder_add_string_value (b, g_ptr_array_index ((GPtrArray *) v, i));
      json_builder_end_array (b);
    }
  json_builder_end_object (b);
}

static void
h_echo (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  gsize len = 0;
  const gchar *body = g_bytes_get_data (req->body, &len);
  g_autofree gchar *body_text = g_strndup (body, len);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "method");
  json_builder_add_string_value (b, req->method);
  json_builder_set_member_name (b, "path");
  json_builder_add_string_value (b, req->path);
  json_builder_set_member_name (b, "route");
  json_builder_add_string_value (b, req->route);
  json_builder_set_member_name (b, "request_id");
  json_builder_add_string_value (b, req->request_id);
  json_builder_set_member_name (b, "body");
  json_builder_add_string_value (b, body_text);
  add_table (b, "params", req->params, FALSE);
  add_table (b, "query", req->query, TRUE);
  add_table (b, "headers", req->headers, FALSE);
  json_builder_end_object (b);
  ab_http_response_json (resp, 201, json_builder_get_root (b));
}

/* A gate that holds /gate requests until opened. */
static GMutex gate_lock;
static GCond gate_cond;
static gboolean gate_open;

static void
h_gate (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  g_mutex_lock (&gate_lock);
  while (!gate_open)
    g_cond_wait (&gate_cond, &gate_lock);
  g_mutex_unlock (&gate_lock);
  ab_http_response_json (resp, 200, json_from_string ("{\"gate\":true}", NULL));
}

static gboolean inline_reads = TRUE;

static void
start_server (guint http_threads, guint workers, gsize max_body)
{
  GError *error = NULL;
  AbHttpConfig cfg;
  router = ab_router_new ();
  metrics = ab_metrics_new ();
  ab_router_add (router, "GET", "/inline", AB_ROUTE_INLINE, h_inline, NULL);
  ab_router_add (router, "GET", "/slow", AB_ROUTE_BLOCKING, h_slow, NULL);
  ab_router_add (router, "GET", "/fail", AB_ROUTE_BLOCKING, h_fail, NULL);
  ab_router_add (router, "DELETE", "/empty", AB_ROUTE_INLINE, h_empty, NULL);
  ab_router_add (router, "GET", "/echo/{a}/{b}", AB_ROUTE_BLOCKING, h_echo, NULL);
  ab_router_add (router, "POST", "/echo/{a}/{b}", AB_ROUTE_BLOCKING, h_echo, NULL);
  ab_router_add (router, "GET", "/echo/literal/{b}", AB_ROUTE_INLINE, h_echo, NULL);
  ab_router_add (router, "GET", "/gate", AB_ROUTE_INLINE, h_gate, NULL);
  ab_router_add (router, "GET", "/always", AB_ROUTE_ALWAYS_INLINE, h_inline, NULL);
  ab_http_config_init (&cfg);
  cfg.inline_reads = inline_reads;
  g_free (cfg.host);
  cfg.host = g_strdup ("127.0.0.1");
  cfg.port = 0;
  cfg.http_threads = http_threads;
  cfg.workers = workers;
  cfg.max_body = max_body;
  cfg.metrics = metrics;
  server = ab_http_server_new (router, &cfg, &error);
  ab_http_config_clear (&cfg);
  ck_assert_msg (server != NULL, "server_new: %s", error ? error->message : "?");
  ck_assert_uint_gt (ab_http_server_get_port (server), 0);
  ck_assert (ab_http_server_start (server, &error));
  base_url = g_strdup_printf ("http://127.0.0.1:%u", ab_http_server_get_port (server));
}

static void
setup (void)
{
  start_server (2, 16, 1024);
}

static void
teardown (void)
{
  g_clear_pointer (&server, ab_http_server_free);
  g_clear_pointer (&router, ab_router_free);
  g_clear_pointer (&metrics, ab_metrics_free);
  g_clear_pointer (&base_url, g_free);
}

typedef struct {
  guint status;
  gchar *body;
  gchar *content_type;
  gchar *request_id;
  gchar *allow;
  gchar *extra;
  gint64 elapsed_us;
} Reply;

static void
reply_clear (Reply *r)
{
  g_free (r->body);
  g_free (r->content_type);
  g_free (r->request_id);
  g_free (r->allow);
  g_free (r->extra);
  memset (r, 0, sizeof *r);
}

static gchar *
header_dup (SoupMessage *msg, const gchar *name)
{
  return g_strdup (soup_message_headers_get_one (soup_message_get_response_headers (msg), name));
}

/* One request on a fresh session; transport failures fail the test. */
static void
call (const gchar *method, const gchar *path, const gchar *body, gsize body_len,
      const gchar *request_id, Reply *out)
{
  g_autoptr (SoupSession) session = soup_session_new_with_options ("timeout", 20, NULL);
  g_autofree gchar *url = g_strconcat (base_url, path, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new (method, url);
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_nonnull (msg);
  if (body != NULL)
    {
      g_autoptr (GBytes) bytes = g_bytes_new (body, body_len);
      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }
  if (request_id != NULL)
    soup_message_headers_append (soup_message_get_request_headers (msg), "X-Request-ID",
                                 request_id);
  soup_message_headers_append (soup_message_get_request_headers (msg), "X-Custom", "v1");
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GBytes) resp = soup_session_send_and_read (session, msg, NULL, &error);
  ck_assert_msg (resp != NULL, "%s %s: %s", method, path, error ? error->message : "?");
  memset (out, 0, sizeof *out);
  out->elapsed_us = g_get_monotonic_time () - t0;
  out->status = soup_message_get_status (msg);
  out->body = g_bytes_get_size (resp) > 0
                  ? g_strndup (g_bytes_get_data (resp, NULL), g_bytes_get_size (resp))
                  : g_strdup ("");
  out->content_type = header_dup (msg, "Content-Type");
  out->request_id = header_dup (msg, "X-Request-ID");
  out->allow = header_dup (msg, "Allow");
  out->extra = header_dup (msg, "X-Extra");
}

static JsonObject *
parse_object (const gchar *text, JsonNode **holder)
{
  g_autoptr (GError) error = NULL;
  *holder = json_from_string (text, &error);
  ck_assert_msg (*holder != NULL, "bad JSON '%s': %s", text, error ? error->message : "");
  ck_assert (JSON_NODE_HOLDS_OBJECT (*holder));
  return json_node_get_object (*holder);
}

static void
assert_error_body (const Reply *r, guint status, const gchar *reason)
{
  g_autoptr (JsonNode) node = NULL;
  JsonObject *o = parse_object (r->body, &node);
  ck_assert_uint_eq (r->status, status);
  ck_assert_str_eq (r->content_type, "application/json");
  ck_assert_int_eq (json_object_get_int_member (o, "status"), status);
  ck_assert_str_eq (json_object_get_string_member (o, "error"), reason);
  ck_assert (json_object_has_member (o, "message"));
  ck_assert_int_gt (json_object_get_int_member (o, "timestamp"), 1600000000000);
}

START_TEST (test_inline_route)
{
  Reply r;
  call ("GET", "/inline", NULL, 0, NULL, &r);
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (r.body, "{\"ok\":true}");
  ck_assert_str_eq (r.content_type, "application/json");
  ck_assert_ptr_nonnull (r.request_id);
  ck_assert_uint_eq (strlen (r.request_id), 16);
  for (const gchar *c = r.request_id; *c; c++)
    ck_assert (g_ascii_isxdigit (*c));
  reply_clear (&r);
}
END_TEST

START_TEST (test_request_id_echo)
{
  Reply r;
  g_autoptr (JsonNode) node = NULL;
  call ("GET", "/echo/x/y", NULL, 0, "req-42", &r);
  ck_assert_uint_eq (r.status, 201);
  ck_assert_str_eq (r.request_id, "req-42");
  JsonObject *o = parse_object (r.body, &node);
  ck_assert_str_eq (json_object_get_string_member (o, "request_id"), "req-42");
  reply_clear (&r);
}
END_TEST

START_TEST (test_not_found_and_method)
{
  Reply r;
  call ("GET", "/nope/nothing", NULL, 0, "rid-404", &r);
  assert_error_body (&r, 404, "Not Found");
  ck_assert_str_eq (r.request_id, "rid-404");
  reply_clear (&r);
  call ("POST", "/inline", "{}", 2, NULL, &r);
  assert_error_body (&r, 405, "Method Not Allowed");
  ck_assert_str_eq (r.allow, "GET");
  reply_clear (&r);
}
END_TEST

START_TEST (test_handler_error_and_empty)
{
  Reply r;
  call ("GET", "/fail", NULL, 0, NULL, &r);
  assert_error_body (&r, 400, "Bad Request");
  reply_clear (&r);
  call ("DELETE", "/empty", NULL, 0, NULL, &r);
  ck_assert_uint_eq (r.status, 204);
  ck_assert_str_eq (r.body, "");
  ck_assert_str_eq (r.extra, "yes");
  reply_clear (&r);
}
END_TEST

START_TEST (test_decoding_and_query)
{
  Reply r;
  g_autoptr (JsonNode) node = NULL;
  call ("GET", "/echo/a%20b/c%2Fd?x=1&y=hello+world&x=2&z=%E2%9C%93", NULL, 0, NULL, &r);
  ck_assert_uint_eq (r.status, 201);
  JsonObject *o = parse_object (r.body, &node);
  JsonObject *params = json_object_get_object_member (o, "params");
  JsonObject *query = json_object_get_object_member (o, "query");
  JsonObject *headers = json_object_get_object_member (o, "headers");
  ck_assert_str_eq (json_object_get_string_member (o, "route"), "/echo/{a}/{b}");
  ck_assert_str_eq (json_object_get_string_member (params, "a"), "a b");
  ck_assert_str_eq (json_object_get_string_member (params, "b"), "c/d");
  JsonArray *x = json_object_get_array_member (query, "x");
  ck_assert_uint_eq (json_array_get_length (x), 2);
  ck_assert_str_eq (json_array_get_string_element (x, 0), "1");
  ck_assert_str_eq (json_array_get_string_element (x, 1), "2");
  ck_assert_str_eq (json_array_get_string_element (json_object_get_array_member (query, "y"), 0),
                    "hello world");
  ck_assert_str_eq (json_array_get_string_element (json_object_get_array_member (query, "z"), 0),
                    "\xe2\x9c\x93");
  ck_assert_str_eq (json_object_get_string_member (headers, "x-custom"), "v1");
  ck_assert (json_object_has_member (headers, "host"));
  reply_clear (&r);
}
END_TEST

START_TEST (test_literal_wins)
{
  Reply r;
  g_autoptr (JsonNode) node = NULL;
  call ("GET", "/echo/literal/zz", NULL, 0, NULL, &r);
  JsonObject *o = parse_object (r.body, &node);
  ck_assert_str_eq (json_object_get_string_member (o, "route"), "/echo/literal/{b}");
  ck_assert_str_eq (
      json_object_get_string_member (json_object_get_object_member (o, "params"), "b"), "zz");
  reply_clear (&r);
}
END_TEST

START_TEST (test_body_and_limit)
{
  Reply r;
  g_autoptr (JsonNode) node = NULL;
  g_autofree gchar *exact = g_strnfill (1024, 'a');
  g_autofree gchar *over = g_strnfill (2048, 'b');

  call ("POST", "/echo/p/q", exact, 1024, NULL, &r);
  ck_assert_uint_eq (r.status, 201);
  JsonObject *o = parse_object (r.body, &node);
  ck_assert_str_eq (json_object_get_string_member (o, "body"), exact);
  ck_assert_str_eq (json_object_get_string_member (o, "method"), "POST");
  reply_clear (&r);

  call ("POST", "/echo/p/q", over, 2048, "big-1", &r);
  assert_error_body (&r, 413, "Payload Too Large");
  ck_assert_str_eq (r.request_id, "big-1");
  reply_clear (&r);

  /* the server is still fine afterwards */
  call ("GET", "/inline", NULL, 0, NULL, &r);
  ck_assert_uint_eq (r.status, 200);
  reply_clear (&r);
}
END_TEST

static gpointer
slow_client (gpointer data)
{
  Reply *r = data;
  call ("GET", "/slow", NULL, 0, NULL, r);
  return NULL;
}

START_TEST (test_blocking_does_not_block_loops)
{
  enum { N = 50 };
  Reply replies[N];
  GThread *threads[N];
  gint64 t0 = g_get_monotonic_time ();
  for (guint i = 0; i < N; i++)
    threads[i] = g_thread_new ("client", slow_client, &replies[i]);
  while (ab_http_server_in_flight (server) < 8)
    g_usleep (1000);
  /* The burst occupies every worker; the loops must still answer inline. */
  Reply quick;
  call ("GET", "/inline", NULL, 0, NULL, &quick);
  ck_assert_uint_eq (quick.status, 200);
  ck_assert_msg (quick.elapsed_us < G_USEC_PER_SEC, "inline took %" G_GINT64_FORMAT " us",
                 quick.elapsed_us);
  reply_clear (&quick);
  for (guint i = 0; i < N; i++)
    {
      g_thread_join (threads[i]);
      ck_assert_uint_eq (replies[i].status, 200);
      ck_assert_str_eq (replies[i].body, "{\"slow\":true}");
      reply_clear (&replies[i]);
    }
  gint64 total = g_get_monotonic_time () - t0;
  ck_assert_msg (total < 5 * G_USEC_PER_SEC, "burst took %" G_GINT64_FORMAT " us", total);
  g_autofree gchar *page = ab_metrics_render (metrics);
  ck_assert_ptr_nonnull (strstr (page, "{route=\"/slow\",method=\"GET\",status=\"200\"} 50\n"));
}
END_TEST

static gpointer
gate_client (gpointer data)
{
  call ("GET", "/gate", NULL, 0, NULL, data);
  return NULL;
}

/* A store that can block: inline routes go to the pool (counted in flight),
 * so one loop keeps serving; always-inline routes still answer on the loop
 * while every worker is held. */
START_TEST (test_inline_routes_on_pool_when_store_blocks)
{
  teardown ();
  inline_reads = FALSE;
  start_server (1, 2, 1024);
  Reply held[2];
  GThread *threads[2];
  for (guint i = 0; i < 2; i++)
    threads[i] = g_thread_new ("gate", gate_client, &held[i]);
  while (ab_http_server_in_flight (server) < 2)
    g_usleep (1000);
  /* If /always went to the pool it would wait for the gate, which opens only
   * after it answered: the call would time out and fail the test. */
  Reply quick;
  call ("GET", "/always", NULL, 0, NULL, &quick);
  ck_assert_uint_eq (quick.status, 200);
  reply_clear (&quick);
  g_mutex_lock (&gate_lock);
  gate_open = TRUE;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_lock);
  for (guint i = 0; i < 2; i++)
    {
      g_thread_join (threads[i]);
      ck_assert_uint_eq (held[i].status, 200);
      reply_clear (&held[i]);
    }
}
END_TEST

START_TEST (test_client_disconnects_during_job)
{
  struct sockaddr_in sa = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  const gchar *req = "GET /slow HTTP/1.1\r\nHost: t\r\n\r\n";
  sa.sin_family = AF_INET;
  sa.sin_port = htons (ab_http_server_get_port (server));
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  ck_assert_int_eq (connect (fd, (struct sockaddr *) &sa, sizeof sa), 0);
  ck_assert_int_eq (write (fd, req, strlen (req)), (gssize) strlen (req));
  while (ab_http_server_in_flight (server) == 0)
    g_usleep (1000);
  close (fd);
  while (ab_http_server_in_flight (server) > 0)
    g_usleep (5000);
  g_usleep (50 * 1000);
  Reply r;
  call ("GET", "/inline", NULL, 0, NULL, &r);
  ck_assert_uint_eq (r.status, 200);
  reply_clear (&r);
}
END_TEST

START_TEST (test_graceful_stop_finishes_in_flight)
{
  Reply r;
  GThread *t = g_thread_new ("client", slow_client, &r);
  while (ab_http_server_in_flight (server) == 0)
    g_usleep (1000);
  ab_http_server_stop (server);
  g_thread_join (t);
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (r.body, "{\"slow\":true}");
  reply_clear (&r);
  ck_assert_uint_eq (ab_http_server_in_flight (server), 0);

  /* nothing listens any more */
  struct sockaddr_in sa = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  sa.sin_family = AF_INET;
  sa.sin_port = htons (ab_http_server_get_port (server));
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  ck_assert_int_ne (connect (fd, (struct sockaddr *) &sa, sizeof sa), 0);
  close (fd);
}
END_TEST

/* Sends raw bytes, returns everything the server answers until it closes. */
static gchar *
raw_exchange (const gchar *request)
{
  struct sockaddr_in sa = { 0 };
  GString *out = g_string_new (NULL);
  gchar buf[4096];
  gssize n;
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  sa.sin_family = AF_INET;
  sa.sin_port = htons (ab_http_server_get_port (server));
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  ck_assert_int_eq (connect (fd, (struct sockaddr *) &sa, sizeof sa), 0);
  ck_assert_int_eq (write (fd, request, strlen (request)), (gssize) strlen (request));
  while ((n = read (fd, buf, sizeof buf)) > 0)
    g_string_append_len (out, buf, n);
  close (fd);
  return g_string_free (out, FALSE);
}

START_TEST (test_h2o_errors_are_json)
{
  g_autofree gchar *bad_chunk = raw_exchange (
      "POST /echo/a/b HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n");
  ck_assert_msg (g_str_has_prefix (bad_chunk, "HTTP/1.1 400 Bad Request\r\n"), "%s", bad_chunk);
  ck_assert_ptr_nonnull (strstr (bad_chunk, "content-type: application/json\r\n"));
  ck_assert_ptr_nonnull (strstr (bad_chunk, "\"status\":400"));
  ck_assert_ptr_nonnull (strstr (bad_chunk, "x-request-id: "));

  g_autofree gchar *big = raw_exchange (
      "POST /echo/a/b HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\nX-Request-ID: raw-9\r\n\r\n");
  ck_assert_msg (g_str_has_prefix (big, "HTTP/1.1 413 Payload Too Large\r\n"), "%s", big);
  ck_assert_ptr_nonnull (strstr (big, "x-request-id: raw-9\r\n"));
  ck_assert_ptr_nonnull (strstr (big, "\"error\":\"Payload Too Large\""));
}
END_TEST

START_TEST (test_head_uses_get)
{
  Reply r;
  call ("HEAD", "/inline", NULL, 0, NULL, &r);
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (r.body, "");
  ck_assert_str_eq (r.content_type, "application/json");
  reply_clear (&r);
}
END_TEST

START_TEST (test_port_in_use)
{
  AbHttpConfig cfg;
  g_autoptr (GError) error = NULL;
  ab_http_config_init (&cfg);
  cfg.port = ab_http_server_get_port (server);
  cfg.http_threads = 1;
  AbHttpServer *other = ab_http_server_new (router, &cfg, &error);
  ab_http_config_clear (&cfg);
  ck_assert_ptr_null (other);
  ck_assert_int_eq (error->code, AB_HTTP_ERROR_BIND);
  ck_assert_ptr_nonnull (strstr (error->message, "in use"));
}
END_TEST

START_TEST (test_stop_with_idle_keepalive)
{
  /* A session keeps its connection open; stop must still return promptly. */
  g_autoptr (SoupSession) session = soup_session_new ();
  g_autofree gchar *url = g_strconcat (base_url, "/inline", NULL);
  for (int i = 0; i < 3; i++)
    {
      g_autoptr (SoupMessage) msg = soup_message_new ("GET", url);
      g_autoptr (GBytes) body = soup_session_send_and_read (session, msg, NULL, NULL);
      ck_assert_uint_eq (soup_message_get_status (msg), 200);
    }
  gint64 t0 = g_get_monotonic_time ();
  ab_http_server_stop (server);
  ck_assert_int_lt (g_get_monotonic_time () - t0, 2 * G_USEC_PER_SEC);
}
END_TEST

static Suite *
http_suite (void)
{
  Suite *s = suite_create ("http");
  TCase *unit = tcase_create ("router");
  tcase_add_test (unit, test_percent_decode);
  tcase_add_test (unit, test_query_parse);
  tcase_add_test (unit, test_router_match);
  tcase_add_test (unit, test_error_body);
  tcase_add_test (unit, test_metrics_render);
  suite_add_tcase (s, unit);

  TCase *srv = tcase_create ("server");
  tcase_add_checked_fixture (srv, setup, teardown);
  tcase_set_timeout (srv, 60);
  tcase_add_test (srv, test_inline_route);
  tcase_add_test (srv, test_request_id_echo);
  tcase_add_test (srv, test_not_found_and_method);
  tcase_add_test (srv, test_handler_error_and_empty);
  tcase_add_test (srv, test_decoding_and_query);
  tcase_add_test (srv, test_literal_wins);
  tcase_add_test (srv, test_body_and_limit);
  tcase_add_test (srv, test_blocking_does_not_block_loops);
  tcase_add_test (srv, test_client_disconnects_during_job);
  tcase_add_test (srv, test_inline_routes_on_pool_when_store_blocks);
  tcase_add_test (srv, test_graceful_stop_finishes_in_flight);
  tcase_add_test (srv, test_stop_with_idle_keepalive);
  tcase_add_test (srv, test_port_in_use);
  tcase_add_test (srv, test_h2o_errors_are_json);
  tcase_add_test (srv, test_head_uses_get);
  suite_add_tcase (s, srv);
  return s;
}

int
main (void)
{
  /* As actionbased's main: a client that resets mid-response costs the
   * server an EPIPE, not the process (test_client_disconnects_during_job). */
  signal (SIGPIPE, SIG_IGN);
  SRunner *sr = srunner_create (http_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
