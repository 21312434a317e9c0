/* The REST router of src/rest/router.c on its own: {param} capture with
 * per-segment percent-decoding, literal-over-param precedence, 404 vs 405
 * (NO_PATH vs NO_METHOD), HEAD, slashes, the Allow list and the guard. */
#include <check.h>
#include <string.h>
#include "rest/router.h"
#include "ab_check.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbRouter, ab_router_free)

/* Handlers are told apart by their user_data (a static name). */
static void
noop (const AbHttpRequest *req, AbHttpResponse *resp, gpointer user_data)
{
}

typedef struct {
  AbRouteMatch result;
  const gchar *route; /* the user_data of the winning route */
  const gchar *pattern;
  AbRouteFlags flags;
  GHashTable *params;
} Match;

static void
match_clear (Match *m)
{
  g_clear_pointer (&m->params, g_hash_table_unref);
}

static Match
match (AbRouter *r, const gchar *method, const gchar *path)
{
  Match m = { 0 };
  AbRouteHandler handler = NULL;
  gpointer user = NULL;
  m.result = ab_router_match (r, method, path, &handler, &m.flags, &user, &m.pattern, &m.params);
  m.route = user;
  if (m.result == AB_ROUTE_FOUND)
    ck_assert (handler == noop);
  else
    ck_assert_ptr_null (m.params);
  return m;
}

/* Asserts that method path lands on the route named `route`. */
static void
assert_route (AbRouter *r, const gchar *method, const gchar *path, const gchar *route)
{
  Match m = match (r, method, path);
  ck_assert_msg (m.result == AB_ROUTE_FOUND, "%s %s: not routed (%d)", method, path, m.result);
  ck_assert_msg (g_strcmp0 (m.route, route) == 0, "%s %s went to %s, not %s", method, path, m.route,
                 route);
  match_clear (&m);
}

static void
assert_miss (AbRouter *r, const gchar *method, const gchar *path, AbRouteMatch want)
{
  Match m = match (r, method, path);
  ck_assert_msg (m.result == want, "%s %s: %d, expected %d", method, path, m.result, want);
  match_clear (&m);
}

static AbRouter *
data_router (void)
{
  AbRouter *r = ab_router_new ();
  ab_router_add (r, "GET", "/graph/v3/databases/{database}/tables/{table}/edges/get",
                 AB_ROUTE_INLINE, noop, "edges-get");
  ab_router_add (r, "POST", "/graph/v3/databases/{database}/tables/{table}/edges",
                 AB_ROUTE_BLOCKING, noop, "edges-post");
  ab_router_add (r, "GET", "/graph/v3/databases/{database}", AB_ROUTE_INLINE, noop, "db-get");
  ab_router_add (r, "delete", "/graph/v3/databases/{database}", AB_ROUTE_BLOCKING, noop,
                 "db-delete");
  ab_router_add (r, "GET", "/graph/v3/databases", AB_ROUTE_INLINE, noop, "db-list");
  ab_router_add (r, "GET", "/health", AB_ROUTE_ALWAYS_INLINE, noop, "health");
  return r;
}

START_TEST (params_are_captured_and_decoded)
{
  g_autoptr (AbRouter) r = data_router ();
  Match m = match (r, "GET", "/graph/v3/databases/my%20db/tables/a%2Fb%25c/edges/get");
  ck_assert_int_eq (m.result, AB_ROUTE_FOUND);
  ck_assert_str_eq (m.route, "edges-get");
  ck_assert_str_eq (m.pattern, "/graph/v3/databases/{database}/tables/{table}/edges/get");
  ck_assert_int_eq (m.flags, AB_ROUTE_INLINE);
  ck_assert_uint_eq (g_hash_table_size (m.params), 2);
  ck_assert_str_eq (g_hash_table_lookup (m.params, "database"), "my db");
  /* decoded after splitting: an encoded '/' stays inside its segment */
  ck_assert_str_eq (g_hash_table_lookup (m.params, "table"), "a/b%c");
  match_clear (&m);

  /* '+' is a plus in a path (only query strings turn it into a space);
   * %00 stays verbatim; bytes that are not UTF-8 become U+FFFD */
  m = match (r, "GET", "/graph/v3/databases/a+b%00%ff");
  ck_assert_int_eq (m.result, AB_ROUTE_FOUND);
  ck_assert_str_eq (g_hash_table_lookup (m.params, "database"), "a+b%00\xef\xbf\xbd");
  match_clear (&m);

  /* literal segments are matched after decoding too, and case-sensitively */
  assert_route (r, "GET", "/graph/v3/data%62ases", "db-list");
  assert_miss (r, "GET", "/Graph/v3/databases", AB_ROUTE_NO_PATH);
}
END_TEST

START_TEST (no_path_versus_no_method)
{
  g_autoptr (AbRouter) r = data_router ();
  assert_miss (r, "GET", "/graph/v3/nothing", AB_ROUTE_NO_PATH);
  assert_miss (r, "GET", "/graph/v3/databases/db/tables", AB_ROUTE_NO_PATH);
  assert_miss (r, "GET", "/graph/v3/databases/db/tables/t/edges/get/more", AB_ROUTE_NO_PATH);
  /* the path exists, the method does not: 405 */
  assert_miss (r, "PUT", "/graph/v3/databases/db", AB_ROUTE_NO_METHOD);
  assert_miss (r, "GET", "/graph/v3/databases/db/tables/t/edges", AB_ROUTE_NO_METHOD);
  assert_miss (r, "POST", "/health", AB_ROUTE_NO_METHOD);
  /* methods compare without case, both when added and when matched */
  assert_route (r, "DELETE", "/graph/v3/databases/db", "db-delete");
  assert_route (r, "post", "/graph/v3/databases/db/tables/t/edges", "edges-post");

  g_autofree gchar *allow = ab_router_allowed_methods (r, "/graph/v3/databases/db");
  ck_assert_str_eq (allow, "GET, DELETE");
  g_autofree gchar *one = ab_router_allowed_methods (r, "/graph/v3/databases/db/tables/t/edges");
  ck_assert_str_eq (one, "POST");
  ck_assert_ptr_null (ab_router_allowed_methods (r, "/graph/v3/nothing"));
}
END_TEST

/* HEAD is served by the GET route; without one it is a 405 like any method. */
START_TEST (head_uses_get)
{
  g_autoptr (AbRouter) r = data_router ();
  assert_route (r, "HEAD", "/health", "health");
  assert_route (r, "head", "/graph/v3/databases/db", "db-get");
  assert_miss (r, "HEAD", "/graph/v3/databases/db/tables/t/edges", AB_ROUTE_NO_METHOD);
}
END_TEST

/* Leading slashes and one trailing slash are forgiven; an empty segment in
 * the middle (or before a last slash) is a segment of its own, which a
 * param captures as "" (handlers validate names). */
START_TEST (slashes)
{
  g_autoptr (AbRouter) r = data_router ();
  assert_route (r, "GET", "/graph/v3/databases/", "db-list");
  assert_route (r, "GET", "graph/v3/databases", "db-list");
  assert_route (r, "GET", "//graph/v3/databases", "db-list");
  assert_route (r, "GET", "/graph/v3/databases/db/", "db-get");
  assert_miss (r, "GET", "/graph//v3/databases", AB_ROUTE_NO_PATH);
  assert_miss (r, "GET", "/graph/v3/databases/db//", AB_ROUTE_NO_PATH);
  Match m = match (r, "GET", "/graph/v3/databases//");
  ck_assert_int_eq (m.result, AB_ROUTE_FOUND);
  ck_assert_str_eq (m.route, "db-get");
  ck_assert_str_eq (g_hash_table_lookup (m.params, "database"), "");
  match_clear (&m);

  g_autoptr (AbRouter) root = ab_router_new ();
  ab_router_add (root, "GET", "/", AB_ROUTE_INLINE, noop, "root");
  assert_route (root, "GET", "/", "root");
  assert_route (root, "GET", "", "root");
  assert_miss (root, "GET", "/x", AB_ROUTE_NO_PATH);
}
END_TEST

/* At the first position where two matching routes differ, a literal beats a
 * param, whichever was added first; between equals the first added wins. */
START_TEST (literal_beats_param)
{
  static const gchar *patterns[][2] = {
    { "/t/{table}/edges/{op}", "param-param" },
    { "/t/special/edges/{op}", "literal-param" },
    { "/t/{table}/edges/count", "param-literal" },
  };
  /* every insertion order gives the same answers */
  static const guint orders[][3] = { { 0, 1, 2 }, { 2, 1, 0 }, { 1, 0, 2 }, { 2, 0, 1 } };
  for (guint o = 0; o < G_N_ELEMENTS (orders); o++)
    {
      g_autoptr (AbRouter) r = ab_router_new ();
      for (guint i = 0; i < 3; i++)
        ab_router_add (r, "GET", patterns[orders[o][i]][0], AB_ROUTE_INLINE, noop,
                       (gpointer) patterns[orders[o][i]][1]);
      assert_route (r, "GET", "/t/likes/edges/scan", "param-param");
      assert_route (r, "GET", "/t/special/edges/scan", "literal-param");
      assert_route (r, "GET", "/t/likes/edges/count", "param-literal");
      /* both literal routes match: the earlier literal position decides */
      assert_route (r, "GET", "/t/special/edges/count", "literal-param");
    }

  g_autoptr (AbRouter) twins = ab_router_new ();
  ab_router_add (twins, "GET", "/x/{a}", AB_ROUTE_INLINE, noop, "first");
  ab_router_add (twins, "GET", "/x/{b}", AB_ROUTE_BLOCKING, noop, "second");
  Match m = match (twins, "GET", "/x/1");
  ck_assert_str_eq (m.route, "first");
  ck_assert_str_eq (g_hash_table_lookup (m.params, "a"), "1");
  ck_assert_ptr_null (g_hash_table_lookup (m.params, "b"));
  match_clear (&m);

  /* a literal route of another method does not shadow the param route */
  g_autoptr (AbRouter) mixed = ab_router_new ();
  ab_router_add (mixed, "POST", "/db/special", AB_ROUTE_BLOCKING, noop, "post-literal");
  ab_router_add (mixed, "GET", "/db/{name}", AB_ROUTE_INLINE, noop, "get-param");
  m = match (mixed, "GET", "/db/special");
  ck_assert_str_eq (m.route, "get-param");
  ck_assert_str_eq (g_hash_table_lookup (m.params, "name"), "special");
  match_clear (&m);
}
END_TEST

/* Only a whole "{...}" segment is a param: braces inside text are literal. */
START_TEST (braces_inside_a_segment_are_literal)
{
  g_autoptr (AbRouter) r = ab_router_new ();
  ab_router_add (r, "GET", "/v{version}/x", AB_ROUTE_INLINE, noop, "literal");
  assert_route (r, "GET", "/v{version}/x", "literal");
  assert_route (r, "GET", "/v%7Bversion%7D/x", "literal");
  assert_miss (r, "GET", "/v3/x", AB_ROUTE_NO_PATH);
}
END_TEST

static gboolean
deny_writes (const AbHttpRequest *req, AbHttpResponse *resp, gpointer user_data)
{
  (*(guint *) user_data)++;
  if (g_strcmp0 (req->method, "GET") == 0)
    return TRUE;
  ab_http_response_error (resp, 403, "read-only");
  return FALSE;
}

START_TEST (guard)
{
  g_autoptr (AbRouter) r = data_router ();
  AbHttpRequest req = { .method = "POST", .path = "/x" };
  AbHttpResponse resp;
  ab_http_response_init (&resp);
  ck_assert (ab_router_check_guard (r, &req, &resp)); /* no guard: everything passes */
  ck_assert_uint_eq (resp.status, 200);
  guint calls = 0;
  ab_router_set_guard (r, deny_writes, &calls);
  ck_assert (!ab_router_check_guard (r, &req, &resp));
  ck_assert_uint_eq (resp.status, 403);
  gsize len;
  const gchar *body = g_bytes_get_data (resp.body, &len);
  ck_assert (g_strstr_len (body, (gssize) len, "\"message\":\"read-only\"") != NULL);
  req.method = "GET";
  ck_assert (ab_router_check_guard (r, &req, &resp));
  ck_assert_uint_eq (calls, 2);
  ab_http_response_clear (&resp);
}
END_TEST

/* Every route, in the order added (actionbased --routes). */
static void
collect (const gchar *method, const gchar *pattern, gpointer data)
{
  g_ptr_array_add (data, g_strdup_printf ("%s %s", method, pattern));
}

START_TEST (foreach_lists_every_route)
{
  g_autoptr (AbRouter) r = data_router ();
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  ab_router_foreach (r, collect, seen);
  ck_assert_uint_gt (seen->len, 0);
  AbRouteHandler h;
  AbRouteFlags flags;
  gpointer ud;
  const gchar *pattern;
  for (guint i = 0; i < seen->len; i++)
    {
      g_auto (GStrv) mp = g_strsplit (seen->pdata[i], " ", 2);
      GHashTable *params = NULL;
      /* each listed pattern routes to itself (a {param} segment matches its own text) */
      ck_assert_int_eq (ab_router_match (r, mp[0], mp[1], &h, &flags, &ud, &pattern, &params),
                        AB_ROUTE_FOUND);
      ck_assert_str_eq (pattern, mp[1]);
      g_clear_pointer (&params, g_hash_table_unref);
    }
}
END_TEST

/* json-glib writes U+001F raw, which is not JSON: answers go through our writer. */
START_TEST (json_answers_escape_every_control_character)
{
  AbHttpResponse resp;
  ab_http_response_init (&resp);
  JsonNode *n = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (n, "a\x1f\001b"); /* octal: at most three digits */
  ab_http_response_json (&resp, 200, n);
  gsize len;
  const gchar *body = g_bytes_get_data (resp.body, &len);
  g_autofree gchar *text = g_strndup (body, len);
  ck_assert_str_eq (text, "\"a\\u001f\\u0001b\"");
  ck_assert_str_eq (resp.content_type, "application/json");
  ab_http_response_clear (&resp);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("router");
  TCase *tc = tcase_create ("router");
  tcase_add_test (tc, params_are_captured_and_decoded);
  tcase_add_test (tc, no_path_versus_no_method);
  tcase_add_test (tc, head_uses_get);
  tcase_add_test (tc, slashes);
  tcase_add_test (tc, literal_beats_param);
  tcase_add_test (tc, braces_inside_a_segment_are_literal);
  tcase_add_test (tc, guard);
  tcase_add_test (tc, foreach_lists_every_route);
  tcase_add_test (tc, json_answers_escape_every_control_character);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
