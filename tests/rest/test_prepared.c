/* REST suite for prepared queries and SQL transforms on the real server:
 * upstream's PreparedQueryE2ETest cases (on a SCAN fetch step), the query
 * sent whole with its arguments, aliases, amend/delete, the SQL step's
 * limits (one SELECT, no writes, parameters) and a restart; run on lmdb and
 * memory (and on HBase by hbase-suites.sh). */
#include <string.h>
#include "rest_harness.h"

#define PQ "/graph/v3/prepared-queries"
#define Q "/graph/v3/query"

static AbServer srv;

static void
setup (void)
{
  ab_server_start (&srv, NULL, NULL);
}
static void
teardown (void)
{
  ab_server_destroy (&srv);
}

static JsonNode *
ok (const gchar *method, const gchar *path, const gchar *body)
{
  return ab_http_ok (&srv, method, path, body);
}

/* shop.purchases: user -> item, category and purchasedAt; user1 bought
 * item1 (twice as recently as item2) and item2, user2 bought item3. */
static void
load (void)
{
  g_autoptr (JsonNode) d
      = ok ("POST", "/graph/v3/databases", "{\"database\":\"shop\",\"comment\":\"\"}");
  g_autoptr (JsonNode) t = ok (
      "POST", "/graph/v3/databases/shop/tables",
      "{\"table\":\"purchases\",\"storage\":\"datastore://ns/purchases\",\"comment\":\"\","
      "\"mode\":\"SYNC\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\","
      "\"comment\":\"\"},\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"category\",\"type\":\"string\",\"nullable\":false,"
      "\"comment\":\"\"},{\"name\":\"purchasedAt\",\"type\":\"long\",\"nullable\":false,"
      "\"comment\":\"\"}],\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":"
      "\"purchasedAt\",\"order\":\"DESC\"}]}],\"groups\":[],\"caches\":[]}}");
  g_autoptr (JsonNode) m = ok (
      "POST", "/graph/v3/databases/shop/tables/purchases/edges",
      "{\"mutations\":["
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"user1\",\"target\":\"item1\","
      "\"properties\":{\"category\":\"grocery\",\"purchasedAt\":300}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"user1\",\"target\":\"item2\","
      "\"properties\":{\"category\":\"grocery\",\"purchasedAt\":200}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"user1\",\"target\":\"item9\","
      "\"properties\":{\"category\":\"toys\",\"purchasedAt\":100}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"user2\",\"target\":\"item3\","
      "\"properties\":{\"category\":\"grocery\",\"purchasedAt\":400}}}]}");
}

/* The fetch step: the `{limit}` most recent purchases of `{entity}`. */
#define FETCH                                                                             \
  "\"fetch\":[{\"type\":\"SCAN\",\"name\":\"recent\",\"database\":\"shop\",\"table\":"    \
  "\"purchases\",\"source\":{\"type\":\"VALUE\",\"value\":[\"{entity}\"]},\"direction\":" \
  "\"OUT\",\"index\":\"recent\",\"limit\":\"{limit}\"%s}]"
#define ARGS                                                                       \
  "\"arguments\":[{\"name\":\"entity\",\"type\":\"string\",\"comment\":\"user\"}," \
  "{\"name\":\"limit\",\"type\":\"int\",\"comment\":\"rows\"}]"

/* Registers the grocery query (SQL `sql`); returns its id (owned). */
static gchar *
register_sql (const gchar *sql)
{
  g_autofree gchar *fetch = g_strdup_printf (FETCH, "");
  g_autofree gchar *body = g_strdup_printf ("{\"comment\":\"grocery purchases of one user\"," ARGS
                                            ",%s,\"transform\":[{\"type\":"
                                            "\"SQL\",\"name\":\"result\",\"sql\":\"%s\"}]}",
                                            fetch, sql);
  g_autoptr (JsonNode) n = ok ("POST", PQ, body);
  ck_assert_str_eq (ab_json_str (n, "comment"), "grocery purchases of one user");
  ck_assert_uint_eq (ab_json_len (n, "arguments"), 2);
  ck_assert_str_eq (ab_json_str (n, "arguments.1.name"), "limit");
  ck_assert_str_eq (ab_json_str (n, "arguments.1.type"), "int");
  ck_assert (!ab_json_bool (n, "arguments.1.nullable"));
  /* the body comes back as registered, placeholders and all */
  ck_assert_str_eq (ab_json_str (n, "fetch.0.limit"), "{limit}");
  ck_assert (ab_json_bool (n, "active"));
  ck_assert_uint_eq (strlen (ab_json_str (n, "id")), 36); /* a UUID */
  return g_strdup (ab_json_str (n, "id"));
}

#define GROCERY                                                                        \
  "SELECT target AS itemId, purchasedAt FROM recent WHERE category = 'grocery' ORDER " \
  "BY purchasedAt DESC"

static JsonNode *
run (const gchar *id, const gchar *args)
{
  g_autofree gchar *path = g_strdup_printf (Q "/%s", id);
  g_autofree gchar *body = g_strdup_printf ("{\"arguments\":%s}", args);
  return ok ("POST", path, body);
}

START_TEST (runs_by_id)
{
  load ();
  g_autofree gchar *id = register_sql (GROCERY);
  g_autoptr (JsonNode) n = run (id, "{\"entity\":\"user1\",\"limit\":100}");
  /* the fetch step is not included: the transform is the answer */
  ck_assert_uint_eq (ab_json_len (n, "items"), 1);
  ck_assert_str_eq (ab_json_str (n, "items.0.name"), "result");
  ck_assert_int_eq (ab_json_int (n, "items.0.rows"), 2);
  ck_assert_str_eq (ab_json_str (n, "items.0.data.0.itemId"), "item1");
  ck_assert_int_eq (ab_json_int (n, "items.0.data.0.purchasedAt"), 300);
  ck_assert_str_eq (ab_json_str (n, "items.0.data.1.itemId"), "item2");
  ck_assert (!ab_json_bool (n, "items.0.hasNext"));
  /* a value sent as text is read as the declared int */
  g_autoptr (JsonNode) one = run (id, "{\"entity\":\"user1\",\"limit\":\"1\"}");
  ck_assert_int_eq (ab_json_int (one, "items.0.rows"), 1);
  ck_assert_str_eq (ab_json_str (one, "items.0.data.0.itemId"), "item1");
  /* another user: other rows through the same registration */
  g_autoptr (JsonNode) other = run (id, "{\"entity\":\"user2\",\"limit\":10}");
  ck_assert_str_eq (ab_json_str (other, "items.0.data.0.itemId"), "item3");
  /* GET reads it back */
  g_autofree gchar *path = g_strdup_printf (PQ "/%s", id);
  g_autoptr (JsonNode) got = ok ("GET", path, NULL);
  ck_assert_str_eq (ab_json_str (got, "id"), id);
  ck_assert_str_eq (ab_json_str (got, "transform.0.sql"), GROCERY);
}
END_TEST

START_TEST (bad_calls)
{
  load ();
  g_autofree gchar *id = register_sql (GROCERY);
  g_autofree gchar *path = g_strdup_printf (Q "/%s", id);
  ab_expect_error (&srv, "POST", path, "{\"arguments\":{\"entity\":\"user1\"}}", 400,
                   "missing limit");
  ab_expect_error (&srv, "POST", path,
                   "{\"arguments\":{\"entity\":\"user1\",\"limit\":1,\"extra\":2}}", 400,
                   "no argument named extra");
  ab_expect_error (&srv, "POST", path, "{\"arguments\":{\"entity\":\"user1\",\"limit\":\"abc\"}}",
                   400, "arguments.limit");
  ab_expect_error (&srv, "POST", path, "{\"arguments\":[1]}", 400, "arguments");
  ab_expect_error (&srv, "POST", Q "/no_such_query", "{\"arguments\":{}}", 404, "no_such_query");
  ab_expect_error (&srv, "POST", Q "/00000000-0000-0000-0000-000000000000", "{}", 404,
                   "No prepared query");
  ab_expect_error (&srv, "GET", PQ "/no_such_query", NULL, 404, "no_such_query");
  /* registrations: placeholders must be exactly the declared arguments */
  g_autofree gchar *fetch = g_strdup_printf (FETCH, "");
  g_autofree gchar *undeclared
      = g_strdup_printf ("{\"arguments\":[{\"name\":\"entity\",\"type\":\"string\"}],%s}", fetch);
  ab_expect_error (&srv, "POST", PQ, undeclared, 400, "limit");
  g_autofree gchar *unused = g_strdup_printf (
      "{" ARGS ",\"fetch\":[{\"type\":\"SCAN\",\"name\":\"r\",\"database\":\"shop\",\"table\":"
      "\"purchases\",\"source\":{\"type\":\"VALUE\",\"value\":[\"{entity}\"]},\"direction\":"
      "\"OUT\",\"index\":\"recent\"}]}");
  ab_expect_error (&srv, "POST", PQ, unused, 400, "limit");
  g_autofree gchar *badtype = g_strdup_printf (
      "{\"arguments\":[{\"name\":\"entity\",\"type\":\"text\"},{\"name\":\"limit\",\"type\":"
      "\"int\"}],%s}",
      fetch);
  ab_expect_error (&srv, "POST", PQ, badtype, 400, "unknown argument type");
  ab_expect_error (&srv, "POST", PQ, "{\"fetch\":[{\"type\":\"NOPE\"}]}", 400, "fetch[0].type");
  ab_expect_error (&srv, "POST", PQ, "{\"fetch\":{}}", 400, "fetch");
  ab_expect_error (&srv, "GET", PQ "?status=SOME", NULL, 400, "status");
}
END_TEST

START_TEST (aliases)
{
  load ();
  g_autofree gchar *id = register_sql (GROCERY);
  g_autofree gchar *alias = g_strdup_printf (
      "{\"alias\":\"top_grocery\",\"target\":\"%s\",\"comment\":\"홈 화면 추천\"}", id);
  g_autoptr (JsonNode) a = ok ("POST", PQ "/aliases", alias);
  ck_assert_str_eq (ab_json_str (a, "target"), id);
  ck_assert_str_eq (ab_json_str (a, "comment"), "홈 화면 추천");
  /* read and run under its alias */
  g_autoptr (JsonNode) got = ok ("GET", PQ "/top_grocery", NULL);
  ck_assert_str_eq (ab_json_str (got, "id"), id);
  ck_assert (ab_json_bool (got, "active"));
  g_autoptr (JsonNode) n = run ("top_grocery", "{\"entity\":\"user1\",\"limit\":100}");
  ck_assert_str_eq (ab_json_str (n, "items.0.data.0.itemId"), "item1");
  /* listed on their own paths */
  g_autoptr (JsonNode) qs = ok ("GET", PQ, NULL);
  ck_assert_uint_eq (ab_json_len (qs, ""), 1);
  ck_assert_str_eq (ab_json_str (qs, "0.id"), id);
  g_autoptr (JsonNode) as = ok ("GET", PQ "/aliases", NULL);
  ck_assert_str_eq (ab_json_str (as, "0.alias"), "top_grocery");
  ck_assert_str_eq (ab_json_str (as, "0.target"), id);
  g_autoptr (JsonNode) one = ok ("GET", PQ "/aliases/top_grocery", NULL);
  ck_assert_str_eq (ab_json_str (one, "target"), id);
  /* names: an id-shaped one, the reserved one, a duplicate, a missing target */
  g_autofree gchar *idshaped = g_strdup_printf ("{\"alias\":\"%s\",\"target\":\"%s\"}", id, id);
  ab_expect_error (&srv, "POST", PQ "/aliases", idshaped, 400, "alias");
  g_autofree gchar *reserved = g_strdup_printf ("{\"alias\":\"aliases\",\"target\":\"%s\"}", id);
  ab_expect_error (&srv, "POST", PQ "/aliases", reserved, 400, "aliases");
  ab_expect_error (&srv, "POST", PQ "/aliases", alias, 400, "already exists");
  ab_expect_error (&srv, "POST", PQ "/aliases", "{\"alias\":\"other\",\"target\":\"nope\"}", 404,
                   "nope");
  /* an inactive alias resolves nothing; INACTIVE lists it */
  g_autoptr (JsonNode) off = ok ("PUT", PQ "/aliases/top_grocery", "{\"active\":false}");
  ck_assert (!ab_json_bool (off, "active"));
  ab_expect_error (&srv, "POST", Q "/top_grocery", "{\"arguments\":{}}", 404, "top_grocery");
  g_autoptr (JsonNode) inactive = ok ("GET", PQ "/aliases?status=INACTIVE", NULL);
  ck_assert_uint_eq (ab_json_len (inactive, ""), 1);
  g_autoptr (JsonNode) active = ok ("GET", PQ "/aliases", NULL);
  ck_assert_uint_eq (ab_json_len (active, ""), 0);
  /* a query named by an alias is not deleted; once the alias is gone it is */
  g_autofree gchar *qpath = g_strdup_printf (PQ "/%s", id);
  ab_expect_error (&srv, "DELETE", qpath, NULL, 400, "top_grocery");
  AbReply r = { 0 };
  ab_http (&srv, &r, "DELETE", NULL, PQ "/aliases/top_grocery");
  ck_assert_uint_eq (r.status, 204);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "DELETE", NULL, "%s", qpath);
  ck_assert_uint_eq (r.status, 204);
  ab_reply_clear (&r);
  ab_expect_error (&srv, "GET", qpath, NULL, 404, id);
  ab_expect_error (&srv, "DELETE", qpath, NULL, 404, id);
}
END_TEST

START_TEST (sent_whole)
{
  load ();
  /* the same document, never registered, with its values alongside */
  g_autofree gchar *fetch = g_strdup_printf (FETCH, ",\"include\":true");
  g_autofree gchar *body = g_strdup_printf (
      "{\"arguments\":{\"entity\":\"user1\",\"limit\":100},%s,\"transform\":[{\"type\":\"SQL\","
      "\"name\":\"by_category\",\"sql\":\"SELECT category, COUNT(*) AS n FROM recent GROUP BY "
      "category ORDER BY n DESC\"}]}",
      fetch);
  g_autoptr (JsonNode) n = ok ("POST", Q, body);
  ck_assert_uint_eq (ab_json_len (n, "items"), 2);
  ck_assert_str_eq (ab_json_str (n, "items.0.name"), "recent");
  ck_assert_uint_eq (ab_json_len (n, "items.0.data"), 3);
  ck_assert_str_eq (ab_json_str (n, "items.1.name"), "by_category");
  ck_assert_str_eq (ab_json_str (n, "items.1.data.0.category"), "grocery");
  ck_assert_int_eq (ab_json_int (n, "items.1.data.0.n"), 2);
  /* a placeholder without its value */
  g_autofree gchar *missing = g_strdup_printf ("{\"arguments\":{\"entity\":\"user1\"},%s}", fetch);
  ab_expect_error (&srv, "POST", Q, missing, 400, "limit");
  /* upstream's earlier form still runs */
  g_autoptr (JsonNode) old = ok (
      "POST", Q,
      "{\"query\":[{\"type\":\"SCAN\",\"name\":\"s\",\"database\":\"shop\",\"table\":"
      "\"purchases\",\"source\":{\"type\":\"VALUE\",\"value\":[\"user2\"]},\"direction\":\"OUT\","
      "\"index\":\"recent\",\"include\":true}]}");
  ck_assert_str_eq (ab_json_str (old, "items.0.data.0.target"), "item3");
}
END_TEST

/* Sends a whole query whose transform is `sql` over the recent purchases
 * of user1; expects a 400 whose message holds needle. */
static void
sql_refused (const gchar *sql, const gchar *needle)
{
  g_autofree gchar *fetch = g_strdup_printf (FETCH, "");
  g_autofree gchar *body = g_strdup_printf (
      "{\"arguments\":{\"entity\":\"user1\",\"limit\":10},%s,\"transform\":[{\"type\":\"SQL\","
      "\"name\":\"t\",\"sql\":\"%s\"}]}",
      fetch, sql);
  ab_expect_error (&srv, "POST", Q, body, 400, needle);
}

START_TEST (sql_steps)
{
  load ();
  sql_refused ("DELETE FROM recent", "SQL");
  sql_refused ("SELECT 1; SELECT 2", "one SELECT");
  sql_refused ("CREATE TABLE x (a)", "SQL");
  sql_refused ("PRAGMA table_info(recent)", "SQL");
  sql_refused ("ATTACH DATABASE '/tmp/x.db' AS x", "SQL");
  sql_refused ("SELECT nope FROM recent", "no such column");
  sql_refused ("SELECT * FROM other_step", "no such table");
  /* bounded in time (a statement that never ends) and in rows (beyond the
   * multihop cap); the row cap only where the server runs at full speed:
   * under valgrind (AB_SERVER_WRAPPER) 100k rows outlast the 2 s bound */
  sql_refused ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) "
               "FROM c",
               "ran longer than 2000 ms");
  if (g_getenv ("AB_SERVER_WRAPPER") == NULL)
    sql_refused ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
                 "more than 100000 rows");
  /* a transform may read an earlier one; names are unique across steps */
  g_autofree gchar *fetch = g_strdup_printf (FETCH, "");
  g_autofree gchar *chain = g_strdup_printf (
      "{\"arguments\":{\"entity\":\"user1\",\"limit\":10},%s,\"transform\":["
      "{\"type\":\"SQL\",\"name\":\"g\",\"sql\":\"SELECT target FROM recent WHERE category = "
      "'grocery'\"},"
      "{\"type\":\"SQL\",\"name\":\"n\",\"sql\":\"SELECT COUNT(*) AS c, json_object('k', 1) AS "
      "j FROM g\"}]}",
      fetch);
  g_autoptr (JsonNode) n = ok ("POST", Q, chain);
  ck_assert_uint_eq (ab_json_len (n, "items"), 2);
  ck_assert_int_eq (ab_json_int (n, "items.1.data.0.c"), 2);
  ck_assert_str_eq (ab_json_str (n, "items.1.data.0.j"), "{\"k\":1}");
  g_autofree gchar *dup = g_strdup_printf (
      "{\"arguments\":{\"entity\":\"user1\",\"limit\":10},%s,\"transform\":[{\"type\":\"SQL\","
      "\"name\":\"recent\",\"sql\":\"SELECT 1\"}]}",
      fetch);
  ab_expect_error (&srv, "POST", Q, dup, 400, "recent");
}
END_TEST

START_TEST (sql_parameters)
{
  load ();
  /* {since} in SQL is a bound parameter: the statement never changes */
  g_autofree gchar *fetch = g_strdup_printf (FETCH, "");
  g_autofree gchar *body = g_strdup_printf (
      "{\"comment\":\"\",\"arguments\":[{\"name\":\"entity\",\"type\":\"string\"},{\"name\":"
      "\"limit\",\"type\":\"int\"},{\"name\":\"since\",\"type\":\"long\"},{\"name\":\"cat\","
      "\"type\":\"string\"}],%s,\"transform\":[{\"type\":\"SQL\",\"name\":\"result\",\"sql\":"
      "\"SELECT target FROM recent WHERE purchasedAt >= {since} AND category = {cat} AND "
      "target <> '{since}' ORDER BY purchasedAt\"}]}",
      fetch);
  g_autoptr (JsonNode) reg = ok ("POST", PQ, body);
  const gchar *id = ab_json_str (reg, "id");
  g_autoptr (JsonNode) a
      = run (id, "{\"entity\":\"user1\",\"limit\":10,\"since\":\"150\",\"cat\":\"grocery\"}");
  ck_assert_int_eq (ab_json_int (a, "items.0.rows"), 2);
  ck_assert_str_eq (ab_json_str (a, "items.0.data.0.target"), "item2");
  g_autoptr (JsonNode) b = run (id, "{\"entity\":\"user1\",\"limit\":10,\"since\":250,\"cat\":"
                                    "\"grocery' OR '1'='1\"}");
  ck_assert_int_eq (ab_json_int (b, "items.0.rows"), 0); /* a value, never SQL */
  /* amend: the transform alone is replaced, the fetch is kept */
  g_autofree gchar *path = g_strdup_printf (PQ "/%s", id);
  g_autoptr (JsonNode) am = ok (
      "PUT", path,
      "{\"comment\":\"amended\",\"transform\":[{\"type\":\"SQL\",\"name\":\"result\",\"sql\":"
      "\"SELECT COUNT(*) AS n FROM recent WHERE purchasedAt >= {since} AND category = {cat}\"}]}");
  ck_assert_str_eq (ab_json_str (am, "comment"), "amended");
  ck_assert_str_eq (ab_json_str (am, "fetch.0.limit"), "{limit}");
  g_autoptr (JsonNode) c
      = run (id, "{\"entity\":\"user1\",\"limit\":10,\"since\":0,\"cat\":\"toys\"}");
  ck_assert_int_eq (ab_json_int (c, "items.0.data.0.n"), 1);
  /* an amendment that leaves a declared argument unused is refused */
  ab_expect_error (&srv, "PUT", path,
                   "{\"transform\":[{\"type\":\"SQL\",\"name\":\"result\",\"sql\":\"SELECT 1\"}]}",
                   400, "since");
  ab_expect_error (&srv, "PUT", PQ "/no_such_query", "{}", 404, "no_such_query");
}
END_TEST

START_TEST (kept_across_restarts)
{
  load ();
  g_autofree gchar *id = register_sql (GROCERY);
  g_autofree gchar *alias
      = g_strdup_printf ("{\"alias\":\"kept\",\"target\":\"%s\",\"comment\":\"\"}", id);
  g_autoptr (JsonNode) a = ok ("POST", PQ "/aliases", alias);
  if (g_getenv ("AB_REST_STORE") == NULL || strcmp (g_getenv ("AB_REST_STORE"), "memory") != 0)
    {
      ab_server_stop (&srv);
      ab_server_restart (&srv, NULL);
    }
  g_autoptr (JsonNode) n = run ("kept", "{\"entity\":\"user1\",\"limit\":100}");
  ck_assert_str_eq (ab_json_str (n, "items.0.data.0.itemId"), "item1");
}
END_TEST

/* upstream's PreparedQueryE2ETest as it is: a MULTI_EDGE table whose COUNT
 * group declares a top-K with a rank table, /aggregations/v1/aggregate, and
 * a registered TOPK fetch with an SQL transform; then a purchase cancelled
 * and aggregated again lowers the metric (upstream's TopkScenarioTest). */
#define AGG_ITEM(t)                                                                          \
  "{\"database\":\"shop\",\"table\":\"purchases_table\",\"edge\":{\"version\":1,\"source\":" \
  "\"user1\",\"target\":\"" t "\",\"properties\":{\"category\":\"grocery\",\"purchasedAt\":" \
  "1710000000000},\"context\":{}}}"

static void
upstream_topk_setup (void)
{
  g_autoptr (JsonNode) d
      = ok ("POST", "/graph/v3/databases", "{\"database\":\"shop\",\"comment\":\"test\"}");
  g_autoptr (JsonNode) rank = ok (
      "POST", "/graph/v3/databases/shop/tables",
      "{\"table\":\"purchases_table__topk\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":"
      "\"string\",\"comment\":\"database|table|topk|entity|dimensionValues\"},\"target\":{"
      "\"type\":\"string\",\"comment\":\"topkDimensionValue\"},\"properties\":[{\"name\":"
      "\"metric\",\"type\":\"long\",\"comment\":\"aggregated metric\",\"nullable\":false},{"
      "\"name\":\"additionalProperties\",\"type\":\"string\",\"comment\":\"carried "
      "properties as JSON\",\"nullable\":true}],\"direction\":\"OUT\",\"indexes\":[{\"index\":"
      "\"metric_desc\",\"fields\":[{\"field\":\"metric\",\"order\":\"DESC\"}]}],\"groups\":[],"
      "\"caches\":[]},\"storage\":\"datastore://test_namespace/purchases_table__topk\",\"mode\":"
      "\"SYNC\",\"comment\":\"topk rank rows\"}");
  g_autoptr (JsonNode) t = ok (
      "POST", "/graph/v3/databases/shop/tables",
      "{\"table\":\"purchases_table\",\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":"
      "\"long\",\"comment\":\"order id\"},\"source\":{\"type\":\"string\",\"comment\":\"user\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"item\"},\"properties\":[{\"name\":"
      "\"category\",\"type\":\"string\",\"comment\":\"item category\",\"nullable\":false},{"
      "\"name\":\"purchasedAt\",\"type\":\"long\",\"comment\":\"purchase time ms\",\"nullable\":"
      "false}],\"direction\":\"OUT\",\"indexes\":[],\"groups\":[{\"group\":\"purchased_count\","
      "\"type\":\"COUNT\",\"fields\":[{\"name\":\"_target\"},{\"name\":\"category\"},{\"name\":"
      "\"purchasedAt\",\"bucket\":{\"type\":\"date\",\"name\":\"day\",\"unit\":\"MILLISECOND\","
      "\"timezone\":\"UTC\",\"format\":\"yyyy-MM-dd\"}}],\"directionType\":\"OUT\","
      "\"aggregations\":{\"topk\":[{\"topk\":\"top_purchased\",\"entity\":\"source\",\"ranges\":"
      "\"_target:eq:{_target};category:eq:{category};day:bt:2023-11-14,2024-11-13\",\"dimension\":"
      "\"target\",\"rank\":\"shop.purchases_table__topk\",\"additionalProperties\":["
      "\"category\"]}]}}],\"caches\":[]},\"storage\":\"datastore://test_namespace/"
      "purchases_table\",\"mode\":\"SYNC\",\"comment\":\"user-to-item purchase edges\"}");
  g_autoptr (JsonNode) m = ok (
      "POST", "/graph/v3/databases/shop/tables/purchases_table/multi-edges",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":1,\"source\":"
      "\"user1\",\"target\":\"item1\",\"properties\":{\"category\":\"grocery\",\"purchasedAt\":"
      "1710000000000}}},{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":2,\"source\":"
      "\"user1\",\"target\":\"item1\",\"properties\":{\"category\":\"grocery\",\"purchasedAt\":"
      "1710000000000}}},{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":3,\"source\":"
      "\"user1\",\"target\":\"item2\",\"properties\":{\"category\":\"grocery\",\"purchasedAt\":"
      "1710000000000}}}]}");
  g_autoptr (JsonNode) a = ok ("POST", "/aggregations/v1/aggregate",
                               "{\"items\":[" AGG_ITEM ("item1") "," AGG_ITEM ("item2") "]}");
  ck_assert_uint_eq (ab_json_len (a, "items"), 2);
  ck_assert_str_eq (ab_json_str (a, "items.0.status"), "SUCCESS");
  ck_assert_str_eq (ab_json_str (a, "items.0.source"),
                    "shop|purchases_table|top_purchased|user1|grocery");
  ck_assert_str_eq (ab_json_str (a, "items.0.target"), "item1");
}

START_TEST (upstream_topk)
{
  upstream_topk_setup ();
  const gchar *topk_fetch
      = "\"fetch\":[{\"type\":\"TOPK\",\"name\":\"ranked\",\"database\":\"shop\",\"table\":"
        "\"purchases_table\",\"topk\":\"top_purchased\",\"entity\":{\"type\":\"VALUE\","
        "\"value\":[\"{entity}\"]},\"dimensionValues\":{\"category\":\"grocery\"},\"limit\":"
        "\"{limit}\"%s}]";
  g_autofree gchar *fetch = g_strdup_printf (topk_fetch, "");
  g_autofree gchar *reg_body = g_strdup_printf (
      "{\"comment\":\"top purchased grocery items for one user\",\"arguments\":[{\"name\":"
      "\"entity\",\"type\":\"string\",\"comment\":\"the user asked about\"},{\"name\":"
      "\"limit\",\"type\":\"int\",\"comment\":\"how many ranked rows to read\"}],%s,"
      "\"transform\":[{\"type\":\"SQL\",\"name\":\"result\",\"sql\":\"SELECT target AS itemId, "
      "metric FROM ranked ORDER BY metric DESC\"}]}",
      fetch);
  g_autoptr (JsonNode) reg = ok ("POST", PQ, reg_body);
  const gchar *id = ab_json_str (reg, "id");
  g_autoptr (JsonNode) n = run (id, "{\"entity\":\"user1\",\"limit\":100}");
  ck_assert_uint_eq (ab_json_len (n, "items"), 1);
  ck_assert_str_eq (ab_json_str (n, "items.0.name"), "result");
  ck_assert_uint_eq (ab_json_len (n, "items.0.data"), 2);
  ck_assert_str_eq (ab_json_str (n, "items.0.data.0.itemId"), "item1");
  ck_assert_int_eq (ab_json_int (n, "items.0.data.0.metric"), 2);
  ck_assert_str_eq (ab_json_str (n, "items.0.data.1.itemId"), "item2");
  g_autoptr (JsonNode) one = run (id, "{\"entity\":\"user1\",\"limit\":\"1\"}");
  ck_assert_uint_eq (ab_json_len (one, "items.0.data"), 1);
  ck_assert_str_eq (ab_json_str (one, "items.0.data.0.itemId"), "item1");
  /* sent whole, the TOPK step included: the rank rows themselves */
  g_autofree gchar *whole_fetch = g_strdup_printf (topk_fetch, ",\"include\":true");
  g_autofree gchar *whole
      = g_strdup_printf ("{\"arguments\":{\"entity\":\"user1\",\"limit\":100},%s}", whole_fetch);
  g_autoptr (JsonNode) w = ok ("POST", Q, whole);
  ck_assert_str_eq (ab_json_str (w, "items.0.name"), "ranked");
  ck_assert_uint_eq (ab_json_len (w, "items.0.data"), 2);
  ck_assert_str_eq (ab_json_str (w, "items.0.data.0.additionalProperties"),
                    "{\"category\":\"grocery\"}");
  /* the REST read of a ranking (upstream's MetadataAggQueryControllerE2ETest) */
#define TOPKS "/aggregations/v1/databases/shop/tables/purchases_table/topks/top_purchased"
  g_autoptr (JsonNode) tk
      = ok ("POST", TOPKS, "{\"entity\":\"user1\",\"dimensionValues\":{\"category\":\"grocery\"}}");
  ck_assert_int_eq (ab_json_int (tk, "count"), 2);
  ck_assert_str_eq (ab_json_str (tk, "topks.0.value"), "item1");
  ck_assert_int_eq (ab_json_int (tk, "topks.0.metric"), 2);
  ck_assert_str_eq (ab_json_str (tk, "topks.0.properties.category"), "grocery");
  g_autoptr (JsonNode) top1
      = ok ("POST", TOPKS,
            "{\"entity\":\"user1\",\"dimensionValues\":{\"category\":\"grocery\"},\"limit\":1}");
  ck_assert_int_eq (ab_json_int (top1, "count"), 1);
  g_autoptr (JsonNode) unsplit = ok ("POST", TOPKS, "{\"entity\":\"user1\"}");
  ck_assert_int_eq (ab_json_int (unsplit, "count"), 0); /* the unsplit key holds nothing */
  ab_expect_error (&srv, "POST",
                   "/aggregations/v1/databases/shop/tables/purchases_table/topks/nope", "{}", 400,
                   "Unknown topk");
#undef TOPKS
  /* a cancelled purchase, aggregated again: the metric is recomputed, not decremented */
  g_autoptr (JsonNode) del
      = ok ("POST", "/graph/v3/databases/shop/tables/purchases_table/multi-edges",
            "{\"mutations\":[{\"type\":\"DELETE\",\"edge\":{\"version\":2,\"id\":1,\"source\":"
            "\"user1\",\"target\":\"item1\",\"properties\":{}}}]}");
  g_autoptr (JsonNode) again
      = ok ("POST", "/aggregations/v1/aggregate", "{\"items\":[" AGG_ITEM ("item1") "]}");
  g_autoptr (JsonNode) after = run (id, "{\"entity\":\"user1\",\"limit\":100}");
  ck_assert_int_eq (ab_json_int (after, "items.0.data.0.metric"), 1);
  /* refused: an unknown top-K, an entity that is not a VALUE, a bad item */
  ab_expect_error (&srv, "POST", Q,
                   "{\"fetch\":[{\"type\":\"TOPK\",\"name\":\"r\",\"database\":\"shop\","
                   "\"table\":\"purchases_table\",\"topk\":\"nope\"}]}",
                   400, "Unknown topk `nope` for shop.purchases_table.");
  ab_expect_error (&srv, "POST", Q,
                   "{\"fetch\":[{\"type\":\"TOPK\",\"name\":\"r\",\"database\":\"shop\","
                   "\"table\":\"purchases_table\",\"topk\":\"top_purchased\",\"entity\":{\"type\":"
                   "\"REF\",\"ref\":\"x\",\"field\":\"y\"}}]}",
                   400, "VALUE");
  ab_expect_error (&srv, "POST", "/aggregations/v1/aggregate",
                   "{\"items\":[{\"database\":\"shop\"}]}", 400, "table");
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, runs_by_id);
  tcase_add_test (tc, bad_calls);
  tcase_add_test (tc, aliases);
  tcase_add_test (tc, sent_whole);
  tcase_add_test (tc, sql_steps);
  tcase_add_test (tc, sql_parameters);
  tcase_add_test (tc, kept_across_restarts);
  tcase_add_test (tc, upstream_topk);
}

int
main (void)
{
  return ab_rest_main_stores ("prepared", add_tests, setup, teardown, 60);
}
