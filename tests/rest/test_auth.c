/* Access control over HTTP: 401 without a valid key, 403 without the grant,
 * keys created/listed/revoked by the admin endpoints, grants scoped to a
 * database or a table, /health open and /metrics guarded. */
#include <string.h>
#include "rest_harness.h"
#include "ab_check.h"

#define ADMIN "admin-secret-for-tests"
static AbServer srv;

static void
setup (void)
{
  static const gchar *const args[] = { "--auth", NULL };
  g_setenv ("ACTIONBASE_ADMIN_KEY", ADMIN, TRUE);
  ab_server_start (&srv, NULL, args);
  g_unsetenv ("ACTIONBASE_ADMIN_KEY");
}

static void
teardown (void)
{
  ab_server_destroy (&srv);
}

static guint
as (const gchar *key, const gchar *method, const gchar *path, const gchar *body, JsonNode **out)
{
  AbReply r = { 0 };
  g_autofree gchar *bearer = key != NULL ? g_strdup_printf ("Bearer %s", key) : NULL;
  const gchar *const hdr[] = { "Authorization", bearer, NULL };
  g_autoptr (GBytes) b = body != NULL ? g_bytes_new (body, strlen (body)) : NULL;
  ab_http_raw (&srv, &r, method, b, path, key != NULL ? hdr : NULL);
  guint status = r.status;
  if (status == 401 || status == 403)
    ab_assert_error_reply (&r, status);
  if (out != NULL)
    *out = g_steal_pointer (&r.json);
  ab_reply_clear (&r);
  return status;
}

static gchar *
make_key (const gchar *grants)
{
  g_autofree gchar *body = g_strdup_printf ("{\"name\":\"k\",\"grants\":%s}", grants);
  JsonNode *n = NULL;
  ck_assert_uint_eq (as (ADMIN, "POST", "/admin/v1/keys", body, &n), 200);
  gchar *key = g_strdup (ab_json_str (n, "key"));
  ck_assert_int_ge (strlen (key), 64);
  json_node_unref (n);
  return key;
}

static const gchar *TABLE = "{\"table\":\"%s\",\"storage\":\"datastore://d/"
                            "t\",\"comment\":\"c\",\"schema\":{\"type\":\"EDGE\","
                            "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{"
                            "\"type\":\"string\",\"comment\":\"\"},"
                            "\"direction\":\"OUT\",\"properties\":[],\"indexes\":[]}}";
static const gchar *INSERT = "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,"
                             "\"source\":\"a\",\"target\":\"b\"}}]}";

START_TEST (keys_and_grants)
{
  ck_assert_uint_eq (as (NULL, "GET", "/health", NULL, NULL), 200);
  /* the API's description is as open as the console that links it */
  ck_assert_uint_eq (as (NULL, "GET", "/openapi.json", NULL, NULL), 200);
  ck_assert_uint_eq (as (NULL, "GET", "/openapi.yaml", NULL, NULL), 200);
  ck_assert_uint_eq (as (NULL, "GET", "/graph/v3/databases", NULL, NULL), 401);
  ck_assert_uint_eq (as ("wrong", "GET", "/graph/v3/databases", NULL, NULL), 401);
  ck_assert_uint_eq (as (ADMIN, "GET", "/graph/v3/databases", NULL, NULL), 200);
  /* bare key, as the upstream console sends it */
  AbReply r = { 0 };
  static const gchar *const bare[] = { "Authorization", ADMIN, NULL };
  ab_http_raw (&srv, &r, "GET", NULL, "/graph/v3/databases", bare);
  ck_assert_uint_eq (r.status, 200);
  ab_reply_clear (&r);
  ck_assert_uint_eq (
      as (ADMIN, "POST", "/graph/v3/databases", "{\"database\":\"d\",\"comment\":\"c\"}", NULL),
      200);
  g_autofree gchar *t1 = g_strdup_printf (TABLE, "t");
  g_autofree gchar *t2 = g_strdup_printf (TABLE, "u");
  ck_assert_uint_eq (as (ADMIN, "POST", "/graph/v3/databases/d/tables", t1, NULL), 200);
  ck_assert_uint_eq (as (ADMIN, "POST", "/graph/v3/databases/d/tables", t2, NULL), 200);
  g_autofree gchar *reader = make_key ("[{\"scope\":\"d\",\"permissions\":\"r\"}]");
  g_autofree gchar *writer = make_key ("[{\"scope\":\"d.t\",\"permissions\":\"rw\"}]");
  ck_assert_uint_eq (as (reader, "GET",
                         "/graph/v3/databases/d/tables/t/edges/count?start=a&direction=OUT", NULL,
                         NULL),
                     200);
  ck_assert_uint_eq (as (reader, "POST", "/graph/v3/databases/d/tables/t/edges", INSERT, NULL),
                     403);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v3/databases/d/tables/t/edges", INSERT, NULL),
                     200);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v3/databases/d/tables/u/edges", INSERT, NULL),
                     403);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v3/databases/d/tables", t1, NULL), 403);
  /* the query document needs r on every table it names, STEP items included */
  static const gchar *QDOC
      = "{\"query\":[{\"type\":\"COUNT\",\"database\":\"d\",\"table\":\"t\",\"direction\":\"OUT\","
        "\"source\":{\"type\":\"STEP\",\"field\":\"target\",\"step\":{\"type\":\"GET\","
        "\"database\":\"d\",\"table\":\"%s\",\"source\":{\"type\":\"VALUE\",\"value\":[\"a\"]},"
        "\"target\":{\"type\":\"VALUE\",\"value\":[\"b\"]}}},\"include\":true}]}";
  g_autofree gchar *q_t = g_strdup_printf (QDOC, "t");
  g_autofree gchar *q_u = g_strdup_printf (QDOC, "u");
  JsonNode *counted = NULL;
  ck_assert_uint_eq (as (writer, "POST", "/graph/v3/query", q_t, &counted), 200);
  ck_assert_int_eq (ab_json_int (counted, "items.0.data.0.COUNT(1)"), 0); /* b has no edges */
  json_node_unref (counted);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v3/query", q_u, NULL), 403);
  ck_assert_uint_eq (as (reader, "POST", "/graph/v3/query", q_u, NULL), 200);
  /* a prepared query: registering needs c on *, running r on its tables */
  g_autofree gchar *reg = g_strdup_printf ("{\"fetch\":%s", strchr (q_u, '[')); /* q_u's items */
  ck_assert_uint_eq (as (writer, "POST", "/graph/v3/prepared-queries", reg, NULL), 403);
  JsonNode *pq = NULL;
  ck_assert_uint_eq (as (ADMIN, "POST", "/graph/v3/prepared-queries", reg, &pq), 200);
  g_autofree gchar *run = g_strdup_printf ("/graph/v3/query/%s", ab_json_str (pq, "id"));
  json_node_unref (pq);
  ck_assert_uint_eq (as (writer, "POST", run, "{}", NULL), 403);
  ck_assert_uint_eq (as (reader, "POST", run, "{}", NULL), 200);
  ck_assert_uint_eq (as (NULL, "POST", run, "{}", NULL), 401);
  /* v2 edge writes need w on the label's table */
  static const gchar *V2
      = "{\"label\":\"d.%s\",\"edges\":[{\"ts\":1,\"src\":\"a\",\"tgt\":\"b\"}]}";
  g_autofree gchar *v2_t = g_strdup_printf (V2, "t");
  g_autofree gchar *v2_u = g_strdup_printf (V2, "u");
  ck_assert_uint_eq (as (writer, "POST", "/graph/v2/edge", v2_t, NULL), 200);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v2/edge", v2_u, NULL), 403);
  ck_assert_uint_eq (as (reader, "POST", "/graph/v2/edge", v2_t, NULL), 403);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v2/service/d/label/t/edge",
                         "{\"edges\":[{\"ts\":2,\"src\":\"a\",\"tgt\":\"b\"}]}", NULL),
                     200);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v2/service/d/label/u/edge",
                         "{\"edges\":[{\"ts\":2,\"src\":\"a\",\"tgt\":\"b\"}]}", NULL),
                     403);
  /* ... and reading them back r: a read-only key can GET, not POST */
  ck_assert_uint_eq (as (reader, "GET", "/graph/v2/service/d/label/t/edge?src=a&tgt=b", NULL, NULL),
                     200);
  ck_assert_uint_eq (as (reader, "POST", "/graph/v2/service/d/label/t/edge",
                         "{\"edges\":[{\"ts\":3,\"src\":\"a\",\"tgt\":\"b\"}]}", NULL),
                     403);
  ck_assert_uint_eq (as (writer, "GET", "/graph/v2/service/d/label/u/edge?src=a&tgt=b", NULL, NULL),
                     403);
  /* the probes are open; draining a node is an admin's */
  ck_assert_uint_eq (as (NULL, "GET", "/", NULL, NULL), 200);
  ck_assert_uint_eq (as (NULL, "GET", "/graph/health/readiness", NULL, NULL), 200);
  ck_assert_uint_eq (as (NULL, "GET", "/graph/health/liveness", NULL, NULL), 200);
  ck_assert_uint_eq (as (NULL, "PUT", "/graph/health/readiness", "{\"ready\":true}", NULL), 401);
  ck_assert_uint_eq (as (reader, "PUT", "/graph/health/readiness", "{\"ready\":true}", NULL), 403);
  ck_assert_uint_eq (as (ADMIN, "PUT", "/graph/health/readiness", "{\"ready\":true}", NULL), 200);
  ck_assert_uint_eq (as (reader, "GET", "/metrics", NULL, NULL), 403);
  ck_assert_uint_eq (as (ADMIN, "GET", "/metrics", NULL, NULL), 200);
  ck_assert_uint_eq (as (reader, "GET", "/admin/v1/keys", NULL, NULL), 403);
  /* datastore references are metadata reads; a drop is an admin's; a sweep writes rank tables */
  ck_assert_uint_eq (as (reader, "GET", "/graph/v3/datastore/hbase/references", NULL, NULL), 403);
  ck_assert_uint_eq (as (ADMIN, "GET", "/graph/v3/datastore/hbase/references", NULL, NULL), 200);
  ck_assert_uint_eq (as (writer, "DELETE", "/graph/v3/datastore/hbase/tables/ns:x", NULL, NULL),
                     403);
  ck_assert_uint_eq (as (writer, "POST", "/aggregations/v1/sweep", "{\"items\":[]}", NULL), 403);
  ck_assert_uint_eq (as (ADMIN, "POST", "/aggregations/v1/sweep", "{\"items\":[]}", NULL), 200);
  ck_assert_uint_eq (as (ADMIN, "POST", "/admin/v1/keys",
                         "{\"name\":\"x\",\"grants\":[{\"scope\":\"d\",\"permissions\":\"rz\"}]}",
                         NULL),
                     400);
  JsonNode *list = NULL;
  ck_assert_uint_eq (as (ADMIN, "GET", "/admin/v1/keys", NULL, &list), 200);
  ck_assert_uint_eq (ab_json_len (list, ""), 2);
  g_autofree gchar *text = json_to_string (list, FALSE);
  ck_assert_ptr_null (strstr (text, writer)); /* never the secret */
  ck_assert_ptr_null (strstr (text, "\"hash\""));
  g_autofree gchar *writer_id = NULL;
  for (guint i = 0; i < 2; i++)
    {
      g_autofree gchar *p = g_strdup_printf ("%u.grants.0.scope", i);
      g_autofree gchar *idp = g_strdup_printf ("%u.id", i);
      if (g_str_equal (ab_json_str (list, p), "d.t"))
        writer_id = g_strdup (ab_json_str (list, idp));
    }
  json_node_unref (list);
  ck_assert_ptr_nonnull (writer_id);
  g_autofree gchar *path = g_strdup_printf ("/admin/v1/keys/%s", writer_id);
  ck_assert_uint_eq (as (ADMIN, "DELETE", path, NULL, NULL), 204);
  ck_assert_uint_eq (as (writer, "POST", "/graph/v3/databases/d/tables/t/edges", INSERT, NULL),
                     401);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("rest-auth");
  TCase *tc = tcase_create ("auth");
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, keys_and_grants);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
