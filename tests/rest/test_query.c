/* REST suite for POST /graph/v3/query (upstream's query document) on the real
 * server: upstream's 2-hop SCAN+CACHE scenario, a REF and a STEP chain, GET,
 * COUNT and SELF rows, paging a SCAN item, post-processors and aggregators,
 * fan-out caps and the 400 answers; run on lmdb and memory (and on HBase by
 * hbase-suites.sh). */
#include <string.h>
#include "rest_harness.h"

#define DB "/graph/v3/databases"
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

static JsonNode *
query (const gchar *items)
{
  g_autofree gchar *body = g_strdup_printf ("{\"query\":[%s]}", items);
  return ok ("POST", Q, body);
}

static void
expect_400 (const gchar *items, const gchar *needle)
{
  g_autofree gchar *body = g_strdup_printf ("{\"query\":[%s]}", items);
  ab_expect_error (&srv, "POST", Q, body, 400, needle);
}

static const gchar *EDGE_TABLE
    = "{\"table\":\"%s\",\"storage\":\"datastore://ns/%s\",\"comment\":\"\",\"mode\":\"SYNC\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"createdAt\",\"type\":\"long\",\"nullable\":true,\"comment\":"
      "\"\"},"
      "{\"name\":\"tags\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"},"
      "{\"name\":\"meta\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"created_at_desc\",\"fields\":[{\"field\":\"createdAt\",\"order\":"
      "\"DESC\"}]}],"
      "\"groups\":[],\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"createdAt\","
      "\"order\":\"DESC\"}],\"limit\":100}]}}";

static void
insert (const gchar *db, const gchar *table, gint64 src, gint64 tgt, gint64 at, const gchar *props)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":%" G_GINT64_FORMAT
      ",\"source\":%" G_GINT64_FORMAT ",\"target\":%" G_GINT64_FORMAT
      ",\"properties\":{\"createdAt\":%" G_GINT64_FORMAT "%s}}}]}",
      at, src, tgt, at, props != NULL ? props : "");
  g_autofree gchar *path = g_strdup_printf (DB "/%s/tables/%s/edges", db, table);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
  ck_assert_str_eq (ab_json_str (n, "results.0.status"), "CREATED");
}

/* Upstream's E2E data: 1000 follows 2000 and 2001; 2000 wishes 3000 and
 * 3001, 2001 wishes 3002. */
static void
load (void)
{
  const gchar *dbs[] = { "db1", "db2" }, *tables[] = { "follows", "wishlist" };
  for (guint i = 0; i < 2; i++)
    {
      g_autofree gchar *d = g_strdup_printf ("{\"database\":\"%s\",\"comment\":\"\"}", dbs[i]);
      g_autoptr (JsonNode) dn = ok ("POST", DB, d);
      g_autofree gchar *t = g_strdup_printf (EDGE_TABLE, tables[i], tables[i]);
      g_autofree gchar *path = g_strdup_printf (DB "/%s/tables", dbs[i]);
      g_autoptr (JsonNode) tn = ok ("POST", path, t);
    }
  insert ("db1", "follows", 1000, 2000, 100,
          ",\"tags\":\"a,b,,c\",\"meta\":\"{\\\"k\\\":{\\\"x\\\":5},\\\"s\\\":\\\"hi\\\"}\"");
  insert ("db1", "follows", 1000, 2001, 101, ",\"tags\":\"b\"");
  insert ("db2", "wishlist", 2000, 3000, 200, NULL);
  insert ("db2", "wishlist", 2000, 3001, 201, NULL);
  insert ("db2", "wishlist", 2001, 3002, 202, NULL);
}

static const gchar *HOP1
    = "{\"type\":\"SCAN\",\"name\":\"hop1\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
      "\"index\":\"created_at_desc\",\"limit\":100,\"include\":true}";

START_TEST (two_hops)
{
  load ();
  /* upstream's ActionbaseQueryE2ETest: hop2 reads the caches of hop1's targets */
  g_autofree gchar *items = g_strdup_printf (
      "%s,{\"type\":\"CACHE\",\"name\":\"hop2\",\"database\":\"db2\",\"table\":\"wishlist\","
      "\"source\":{\"type\":\"REF\",\"ref\":\"hop1\",\"field\":\"target\"},\"direction\":\"OUT\","
      "\"cache\":\"recent\",\"limit\":10,\"include\":true}",
      HOP1);
  g_autoptr (JsonNode) n = query (items);
  ck_assert_uint_eq (ab_json_len (n, "items"), 2);
  ck_assert_str_eq (ab_json_str (n, "items.0.name"), "hop1");
  ck_assert_int_eq (ab_json_int (n, "items.0.rows"), 2);
  ck_assert_uint_eq (ab_json_len (n, "items.0.data"), 2);
  ck_assert_int_eq (ab_json_int (n, "items.0.data.0.target"), 2001); /* createdAt DESC */
  ck_assert_int_eq (ab_json_int (n, "items.0.data.0.createdAt"), 101);
  ck_assert_str_eq (ab_json_str (n, "items.0.data.0.direction"), "OUT");
  ck_assert (ab_json_is_null (n, "items.0.data.0.meta"));
  ck_assert_uint_eq (ab_json_len (n, "items.0.stats"), 0);
  ck_assert (!ab_json_bool (n, "items.0.hasNext"));
  ck_assert_str_eq (ab_json_str (n, "items.1.name"), "hop2");
  ck_assert_int_eq (ab_json_int (n, "items.1.rows"), 3);
  gint64 sum = 0;
  for (guint i = 0; i < 3; i++)
    {
      g_autofree gchar *p = g_strdup_printf ("items.1.data.%u.target", i);
      sum += ab_json_int (n, p);
    }
  ck_assert_int_eq (sum, 3000 + 3001 + 3002);

  /* the same through a STEP, hop1 not included: only hop2 answers */
  g_autoptr (JsonNode) s
      = query ("{\"type\":\"CACHE\",\"name\":\"hop2\",\"database\":\"db2\",\"table\":\"wishlist\","
               "\"source\":{\"type\":\"STEP\",\"field\":\"target\",\"step\":{\"type\":\"SCAN\","
               "\"database\":\"db1\",\"table\":\"follows\",\"source\":{\"type\":\"VALUE\","
               "\"value\":[\"1000\"]},"
               "\"direction\":\"OUT\",\"index\":\"created_at_desc\"}},\"direction\":\"OUT\","
               "\"cache\":\"recent\",\"include\":true}");
  ck_assert_uint_eq (ab_json_len (s, "items"), 1);
  ck_assert_int_eq (ab_json_int (s, "items.0.rows"), 3);

  /* IN: the neighbours are the sources (rows keep each edge's own ends) */
  g_autoptr (JsonNode) in
      = query ("{\"type\":\"SCAN\",\"name\":\"in\",\"database\":\"db2\",\"table\":\"wishlist\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[3001]},\"direction\":\"IN\","
               "\"index\":\"created_at_desc\",\"include\":true}");
  ck_assert_int_eq (ab_json_int (in, "items.0.data.0.source"), 2000);
  ck_assert_int_eq (ab_json_int (in, "items.0.data.0.target"), 3001);
  ck_assert_str_eq (ab_json_str (in, "items.0.data.0.direction"), "IN");

  /* filters keep the matching edges of each page read, on SCAN and CACHE items */
  g_autoptr (JsonNode) f
      = query ("{\"type\":\"SCAN\",\"name\":\"f\",\"database\":\"db1\",\"table\":\"follows\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
               "\"index\":\"created_at_desc\",\"filters\":\"tags:eq:b\",\"include\":true},"
               "{\"type\":\"CACHE\",\"name\":\"c\",\"database\":\"db2\",\"table\":\"wishlist\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[2000]},\"direction\":\"OUT\","
               "\"cache\":\"recent\",\"filters\":\"createdAt:lt:201\",\"include\":true}");
  ck_assert_int_eq (ab_json_int (f, "items.0.rows"), 1);
  ck_assert_int_eq (ab_json_int (f, "items.0.data.0.target"), 2001);
  ck_assert_int_eq (ab_json_int (f, "items.1.rows"), 1);
  ck_assert_int_eq (ab_json_int (f, "items.1.data.0.target"), 3000);
  expect_400 ("{\"type\":\"SCAN\",\"name\":\"f\",\"database\":\"db1\",\"table\":\"follows\","
              "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
              "\"index\":\"created_at_desc\",\"filters\":\"nope:eq:1\"}",
              "nope");
}
END_TEST

/* upstream's EdgeCacheQueryE2ETest and ActionbaseQueryE2ETest: a cache
 * field's `dimension` list keeps only the edges with one of its values. */
START_TEST (cache_dimensions)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"dims\",\"comment\":\"\"}");
  g_autoptr (JsonNode) t = ok (
      "POST", DB "/dims/tables",
      "{\"table\":\"wishlist\",\"storage\":\"datastore://ns/dims\",\"comment\":\"\",\"mode\":"
      "\"SYNC\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"BOTH\",\"properties\":["
      "{\"name\":\"createdAt\",\"type\":\"long\",\"nullable\":true,\"comment\":\"\"},"
      "{\"name\":\"permission\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"by_permission\",\"fields\":[{\"field\":\"permission\",\"order\":"
      "\"ASC\"},{\"field\":\"createdAt\",\"order\":\"DESC\"}]}],\"groups\":[],\"caches\":["
      "{\"cache\":\"whitelisted\",\"fields\":[{\"field\":\"permission\",\"order\":\"ASC\","
      "\"dimension\":[\"me\"]},{\"field\":\"createdAt\",\"order\":\"DESC\"}],\"limit\":100}]}}");
  ck_assert_str_eq (ab_json_str (t, "schema.caches.0.fields.0.dimension.0"), "me");
  const gchar *perms[] = { "me", "others", "others", "others", "others" };
  for (guint i = 0; i < G_N_ELEMENTS (perms); i++)
    {
      g_autofree gchar *props = g_strdup_printf (",\"permission\":\"%s\"", perms[i]);
      insert ("dims", "wishlist", 1, 2 + i, 500 - 100 * (gint64) i, props);
    }
  g_autoptr (JsonNode) all
      = ok ("GET", DB "/dims/tables/wishlist/edges/seek/whitelisted?start=1&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (all, "count"), 1);
  ck_assert_int_eq (ab_json_int (all, "edges.0.target"), 2);
  ck_assert_str_eq (ab_json_str (all, "edges.0.properties.permission"), "me");
  /* the table's index with the same fields does not stand in for the cache */
  g_autoptr (JsonNode) others
      = ok ("GET",
            DB "/dims/tables/wishlist/edges/seek/"
               "whitelisted?start=1&direction=OUT&ranges=permission:eq:others",
            NULL);
  ck_assert_int_eq (ab_json_int (others, "count"), 0);
  /* an edge changed into the list enters it, one changed out of it leaves */
  g_autoptr (JsonNode) mv = ok (
      "POST", DB "/dims/tables/wishlist/edges",
      "{\"mutations\":[{\"type\":\"UPDATE\",\"edge\":{\"version\":600,\"source\":1,\"target\":3,"
      "\"properties\":{\"permission\":\"me\"}}},{\"type\":\"UPDATE\",\"edge\":{\"version\":700,"
      "\"source\":1,\"target\":2,\"properties\":{\"permission\":\"others\"}}}]}");
  ck_assert_str_eq (ab_json_str (mv, "results.0.status"), "UPDATED");
  g_autoptr (JsonNode) moved
      = ok ("GET", DB "/dims/tables/wishlist/edges/seek/whitelisted?start=1&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (moved, "count"), 1);
  ck_assert_int_eq (ab_json_int (moved, "edges.0.target"), 3);
  /* a CACHE item of the query document reads the same */
  g_autoptr (JsonNode) q
      = query ("{\"type\":\"CACHE\",\"name\":\"c\",\"database\":\"dims\",\"table\":\"wishlist\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[1]},\"direction\":\"OUT\","
               "\"cache\":\"whitelisted\",\"include\":true}");
  ck_assert_int_eq (ab_json_int (q, "items.0.rows"), 1);
  ck_assert_int_eq (ab_json_int (q, "items.0.data.0.target"), 3);
  g_autoptr (JsonNode) none
      = query ("{\"type\":\"CACHE\",\"name\":\"c\",\"database\":\"dims\",\"table\":\"wishlist\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[1]},\"direction\":\"OUT\","
               "\"cache\":\"whitelisted\",\"ranges\":\"permission:eq:others\",\"include\":true}");
  ck_assert_int_eq (ab_json_int (none, "items.0.rows"), 0);
  ab_expect_error (
      &srv, "POST", DB "/dims/tables",
      "{\"table\":\"bad\",\"storage\":\"datastore://ns/bad\",\"comment\":\"\",\"schema\":{"
      "\"type\":\"EDGE\",\"source\":{\"type\":\"long\"},\"target\":{\"type\":\"long\"},"
      "\"direction\":\"OUT\",\"properties\":[{\"name\":\"p\",\"type\":\"string\",\"nullable\":true}"
      "],"
      "\"caches\":[{\"cache\":\"c\",\"fields\":[{\"field\":\"p\",\"order\":\"ASC\",\"dimension\":"
      "[{\"x\":1}]}],\"limit\":10}]}}",
      400, "dimension[0] must be a value");
}
END_TEST

START_TEST (get_count_self_and_pages)
{
  load ();
  /* GET: sources x targets, 1000 and "1000" are one vertex, missing edges absent */
  g_autoptr (JsonNode) g
      = query ("{\"type\":\"GET\",\"name\":\"g\",\"database\":\"db1\",\"table\":\"follows\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[1000,\"1000\"]},"
               "\"target\":{\"type\":\"VALUE\",\"value\":[2000,2002]},\"include\":true}");
  ck_assert_int_eq (ab_json_int (g, "items.0.rows"), 1);
  ck_assert_str_eq (ab_json_str (g, "items.0.data.0.tags"), "a,b,,c");
  /* COUNT rows: source, COUNT(1), direction; a missing Count row is 0 */
  g_autoptr (JsonNode) c
      = query ("{\"type\":\"COUNT\",\"name\":\"c\",\"database\":\"db2\",\"table\":\"wishlist\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[2000,2001,2002]},\"direction\":\"OUT\","
               "\"include\":true}");
  ck_assert_int_eq (ab_json_int (c, "items.0.rows"), 3);
  ck_assert_int_eq (ab_json_int (c, "items.0.data.0.source"), 2000);
  ck_assert_int_eq (ab_json_int (c, "items.0.data.0.COUNT(1)"), 2);
  ck_assert_str_eq (ab_json_str (c, "items.0.data.0.direction"), "OUT");
  ck_assert_int_eq (ab_json_int (c, "items.0.data.1.COUNT(1)"), 1);
  ck_assert_int_eq (ab_json_int (c, "items.0.data.2.COUNT(1)"), 0);
  /* SELF on an edge table reads (s, s): a self-loop */
  insert ("db1", "follows", 7, 7, 5, NULL);
  g_autoptr (JsonNode) self
      = query ("{\"type\":\"SELF\",\"name\":\"me\",\"database\":\"db1\",\"table\":\"follows\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[7,8]},\"include\":true}");
  ck_assert_int_eq (ab_json_int (self, "items.0.rows"), 1);
  ck_assert_int_eq (ab_json_int (self, "items.0.data.0.createdAt"), 5);
  /* a SCAN item of one start pages like the scan endpoint */
  const gchar *page
      = "{\"type\":\"SCAN\",\"name\":\"p\",\"database\":\"db2\",\"table\":\"wishlist\","
        "\"source\":{\"type\":\"VALUE\",\"value\":[2000]},\"direction\":\"OUT\","
        "\"index\":\"created_at_desc\",\"limit\":1,\"include\":true%s}";
  g_autofree gchar *first = g_strdup_printf (page, "");
  g_autoptr (JsonNode) p1 = query (first);
  ck_assert (ab_json_bool (p1, "items.0.hasNext"));
  ck_assert_int_eq (ab_json_int (p1, "items.0.data.0.target"), 3001);
  g_autofree gchar *more
      = g_strdup_printf (",\"offset\":\"%s\"", ab_json_str (p1, "items.0.offset"));
  g_autofree gchar *second = g_strdup_printf (page, more);
  g_autoptr (JsonNode) p2 = query (second);
  ck_assert_int_eq (ab_json_int (p2, "items.0.data.0.target"), 3000);
  ck_assert (!ab_json_bool (p2, "items.0.hasNext"));
  ck_assert (ab_json_is_null (p2, "items.0.offset"));
  /* an empty document answers no items */
  g_autoptr (JsonNode) none = query ("");
  ck_assert_uint_eq (ab_json_len (none, "items"), 0);
}
END_TEST

START_TEST (post_and_aggregators)
{
  load ();
  /* tags "a,b,,c" and "b" explode into a, b, c, b (empty pieces dropped),
   * then COUNT by tag, most first, ties in first-seen order */
  g_autoptr (JsonNode) n = query (
      "{\"type\":\"SCAN\",\"name\":\"t\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
      "\"index\":\"created_at_desc\",\"include\":true,"
      "\"post\":[{\"type\":\"SPLIT_EXPLODE\",\"field\":\"tags\",\"regex\":\",\",\"alias\":\"tag\","
      "\"dataType\":\"STRING\"}],"
      "\"aggregators\":[{\"type\":\"FLATTEN\"},{\"type\":\"COUNT\",\"field\":\"tag\",\"order\":"
      "\"DESC\",\"limit\":2}]}");
  ck_assert_int_eq (ab_json_int (n, "items.0.rows"), 2);
  ck_assert_str_eq (ab_json_str (n, "items.0.data.0.tag"), "b");
  ck_assert_int_eq (ab_json_int (n, "items.0.data.0.count"), 2);
  ck_assert_int_eq (ab_json_int (n, "items.0.data.1.count"), 1);
  /* JSON_OBJECT: nested paths become columns, the field is dropped by default */
  g_autoptr (JsonNode) j
      = query ("{\"type\":\"GET\",\"name\":\"j\",\"database\":\"db1\",\"table\":\"follows\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"target\":{\"type\":\"VALUE\","
               "\"value\":[2000]},"
               "\"include\":true,\"post\":[{\"type\":\"JSON_OBJECT\",\"field\":\"meta\",\"paths\":["
               "{\"path\":\"k.x\",\"alias\":\"kx\",\"dataType\":\"LONG\"},"
               "{\"path\":\"nope.y\",\"alias\":\"ny\",\"dataType\":\"STRING\"}]}]}");
  ck_assert_int_eq (ab_json_int (j, "items.0.data.0.kx"), 5);
  ck_assert (ab_json_is_null (j, "items.0.data.0.ny"));
  ck_assert (ab_json_at (j, "items.0.data.0.meta") == NULL);
  /* SUM over the COUNT rows of hop1's targets: 2 + 1 wishes, as a double */
  g_autofree gchar *items = g_strdup_printf (
      "%s,{\"type\":\"COUNT\",\"name\":\"s\",\"database\":\"db2\",\"table\":\"wishlist\","
      "\"source\":{\"type\":\"REF\",\"ref\":\"hop1\",\"field\":\"target\"},\"direction\":\"OUT\","
      "\"include\":true,\"aggregators\":[{\"type\":\"SUM\",\"valueField\":\"COUNT(1)\","
      "\"keyFields\":[\"direction\"],\"order\":\"ASC\",\"limit\":5}]}",
      HOP1);
  g_autoptr (JsonNode) s = query (items);
  ck_assert_uint_eq (ab_json_len (s, "items"), 2);
  ck_assert_str_eq (ab_json_str (s, "items.1.data.0.direction"), "OUT");
  ck_assert (json_node_get_double (ab_json_at (s, "items.1.data.0.COUNT(1)")) == 3.0);
}
END_TEST

START_TEST (bad_documents)
{
  load ();
  expect_400 ("{\"type\":\"BOGUS\"}", "query[0].type");
  expect_400 ("{\"type\":\"SCAN\",\"database\":\"db1\",\"table\":\"follows\","
              "\"source\":{\"type\":\"VALUE\",\"value\":[1]},\"index\":\"created_at_desc\"}",
              "direction");
  expect_400 (
      "{\"type\":\"COUNT\",\"name\":\"c\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"REF\",\"ref\":\"nope\",\"field\":\"target\"},\"direction\":\"OUT\"}",
      "ref `nope` names no earlier item");
  g_autofree gchar *typo = g_strdup_printf (
      "%s,{\"type\":\"COUNT\",\"name\":\"c\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"REF\",\"ref\":\"hop1\",\"field\":\"targte\"},\"direction\":\"OUT\"}",
      HOP1);
  expect_400 (typo, "`targte` is not a column of `hop1`");
  g_autofree gchar *twice = g_strdup_printf ("%s,%s", HOP1, HOP1);
  expect_400 (twice, "two items are named `hop1`");
  expect_400 ("{\"type\":\"COUNT\",\"database\":\"db1\",\"table\":\"follows\","
              "\"source\":{\"type\":\"VALUE\",\"value\":[\"abc\"]},\"direction\":\"OUT\"}",
              "must be a long");
  expect_400 (
      "{\"type\":\"SCAN\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1]},\"direction\":\"OUT\",\"index\":\"nope\"}",
      "index `nope` is not found");
  expect_400 (
      "{\"type\":\"CACHE\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1]},\"direction\":\"OUT\",\"cache\":\"recent\","
      "\"limit\":0}",
      "limit must be between 1 and 100");
  /* above the cache's bound (limit + tolerance) a CACHE item is cut to it, as seek is */
  g_autoptr (JsonNode) cut
      = query ("{\"type\":\"CACHE\",\"name\":\"c\",\"database\":\"db1\",\"table\":\"follows\","
               "\"source\":{\"type\":\"VALUE\",\"value\":[1]},\"direction\":\"OUT\","
               "\"cache\":\"recent\",\"limit\":101,\"include\":true}");
  ck_assert_int_eq (ab_json_int (cut, "items.0.rows"), 0);
  /* fan-out: up to 1000 vertices x 1000 rows is refused before any read */
  g_autofree gchar *wide = g_strdup_printf (
      "{\"type\":\"SCAN\",\"name\":\"a\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
      "\"index\":\"created_at_desc\",\"limit\":1000},"
      "{\"type\":\"SCAN\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"REF\",\"ref\":\"a\",\"field\":\"target\"},\"direction\":\"OUT\","
      "\"index\":\"created_at_desc\",\"limit\":1000}");
  expect_400 (wide, "fan-out too large");
  expect_400 (
      "{\"type\":\"SCAN\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
      "\"index\":\"created_at_desc\",\"post\":[{\"type\":\"SPLIT_EXPLODE\",\"field\":\"tags\","
      "\"regex\":\"(\",\"alias\":\"t\",\"dataType\":\"STRING\"}]}",
      "not a regular expression");
  expect_400 (
      "{\"type\":\"SCAN\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
      "\"index\":\"created_at_desc\",\"post\":[{\"type\":\"JSON_OBJECT\",\"field\":\"tags\","
      "\"paths\":[{\"path\":\"a\",\"alias\":\"a\",\"dataType\":\"STRING\"}]}]}",
      "is not JSON");
  expect_400 (
      "{\"type\":\"SCAN\",\"database\":\"db1\",\"table\":\"follows\","
      "\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":\"OUT\","
      "\"index\":\"created_at_desc\",\"aggregators\":[{\"type\":\"SUM\",\"valueField\":\"tags\","
      "\"keyFields\":[],\"order\":\"ASC\",\"limit\":1}]}",
      "is not a number");
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST", "{\"query\":[],\"stats\":[\"NOPE\"]}", "%s", Q);
  ab_assert_error_reply (&r, 400);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "POST", "[1]", "%s", Q);
  ab_assert_error_reply (&r, 400);
  ab_reply_clear (&r);
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, two_hops);
  tcase_add_test (tc, cache_dimensions);
  tcase_add_test (tc, get_count_self_and_pages);
  tcase_add_test (tc, post_and_aggregators);
  tcase_add_test (tc, bad_documents);
}

int
main (void)
{
  return ab_rest_main_stores ("query", add_tests, setup, teardown, 60);
}
