/* REST suite for groups, caches and multihop on the real server: schema
 * round trip of groups/caches, GET …/edges/agg/{group} (day buckets, SUM,
 * ranges, __count__, several starts; upstream's agg suites), GET …/edges/seek/{cache} against scan, POST
 * …/edges/prune (on every store), POST …/edges/multihop, and their 400s. */
#include <string.h>
#include "rest_harness.h"
#include "ab_check.h"

#define DB "/graph/v3/databases"
#define T DB "/sns/tables"

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

static void
expect_400 (const gchar *method, const gchar *path, const gchar *body, const gchar *needle)
{
  ab_expect_error (&srv, method, path, body, 400, needle);
}

static const gchar *GROUPS
    = "[{\"group\":\"by_day\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"created_at\","
      "\"bucket\":{\"type\":\"date\",\"unit\":\"day\",\"timezone\":\"Asia/"
      "Seoul\",\"format\":\"yyyyMMdd\"}}],"
      "\"directionType\":\"BOTH\",\"ttl\":-1,\"comment\":\"likes per day\"},"
      "{\"group\":\"points\",\"type\":\"SUM\",\"valueField\":\"points\",\"directionType\":\"OUT\","
      "\"fields\":[]}]";
static const gchar *CACHES = "[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\","
                             "\"order\":\"DESC\"}],\"limit\":5,"
                             "\"comment\":\"\"}]";

static void
create_tables (void)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"sns\",\"comment\":\"c\"}");
  g_autofree gchar *likes = g_strdup_printf (
      "{\"table\":\"likes\",\"storage\":\"datastore://sns/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"},"
      "{\"name\":\"points\",\"type\":\"int\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}],"
      "\"groups\":%s,\"caches\":%s}}",
      GROUPS, CACHES);
  g_autoptr (JsonNode) t = ok ("POST", T, likes);
  /* the schema keeps groups and caches as given */
  g_autoptr (JsonNode) got = ok ("GET", T "/likes", NULL);
  g_autoptr (JsonNode) want = json_from_string (GROUPS, NULL);
  ck_assert (json_node_equal (ab_json_at (got, "schema.groups"), want));
  ck_assert_int_eq (ab_json_int (got, "schema.caches.0.limit"), 5);
  g_autoptr (JsonNode) f = ok (
      "POST", T,
      "{\"table\":\"follows\",\"storage\":\"datastore://sns/follows\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[],\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\","
      "\"order\":\"DESC\"}],\"limit\":10}]}}");
}

static void
mutate (const gchar *table, const gchar *type, const gchar *src, const gchar *tgt, gint64 at,
        gint points)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
      ",\"source\":\"%s\","
      "\"target\":\"%s\",\"properties\":{\"created_at\":%" G_GINT64_FORMAT ",\"points\":%d}}}]}",
      type, at, src, tgt, at, points);
  if (g_str_equal (table, "follows"))
    {
      g_free (body);
      body = g_strdup_printf (
          "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
          ",\"source\":\"%s\",\"target\":\"%s\",\"properties\":{\"created_at\":%" G_GINT64_FORMAT
          "}}}]}",
          type, at, src, tgt, at);
    }
  g_autofree gchar *path = g_strdup_printf (T "/%s/edges", table);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
  ck_assert_str_ne (ab_json_str (n, "results.0.status"), "ERROR");
}

#define DAY 86400000LL
#define JAN1 1735657200000LL /* 2025-01-01 00:00 in Seoul */

START_TEST (agg_endpoint)
{
  create_tables ();
  mutate ("likes", "INSERT", "alice", "p1", JAN1 + 10, 3);
  mutate ("likes", "INSERT", "alice", "p2", JAN1 + 20, 4);
  mutate ("likes", "INSERT", "alice", "p3", JAN1 + DAY + 5, 5);
  mutate ("likes", "INSERT", "bob", "p1", JAN1 + 2 * DAY, 1);
  mutate ("likes", "DELETE", "alice", "p2", JAN1 + 30, 0);
  /* one group per start, in request order; a start without cells is value 0 */
  g_autoptr (JsonNode) a = ok ("GET",
                               T "/likes/edges/agg/by_day?start=alice&start=nobody&start=bob"
                                 "&direction=OUT&ranges=created_at:bt:20250101,20250103",
                               NULL);
  ck_assert_str_eq (ab_json_str (a, "group"), "by_day");
  ck_assert_int_eq (ab_json_int (a, "count"), 3);
  ck_assert_uint_eq (ab_json_len (a, "groups"), 3);
  ck_assert (ab_json_at (a, "start") == NULL && ab_json_at (a, "sum") == NULL
             && ab_json_at (a, "cells") == NULL);
  ck_assert (JSON_NODE_HOLDS_OBJECT (ab_json_at (a, "context")));
  ck_assert_str_eq (ab_json_str (a, "groups.0.start"), "alice");
  ck_assert_str_eq (ab_json_str (a, "groups.0.direction"), "OUT");
  ck_assert_int_eq (ab_json_int (a, "groups.0.value"), 2);
  ck_assert_uint_eq (ab_json_len (a, "groups.0.cells"), 2);
  ck_assert_str_eq (ab_json_str (a, "groups.0.cells.0.key.created_at"), "20250102"); /* DESC */
  ck_assert_int_eq (ab_json_int (a, "groups.0.cells.0.value"), 1);
  ck_assert_str_eq (ab_json_str (a, "groups.0.cells.1.key.created_at"), "20250101");
  ck_assert_int_eq (ab_json_int (a, "groups.0.cells.1.value"), 1);
  ck_assert (!ab_json_bool (a, "groups.0.hasNext"));
  ck_assert (JSON_NODE_HOLDS_OBJECT (ab_json_at (a, "groups.0.context")));
  ck_assert_str_eq (ab_json_str (a, "groups.1.start"), "nobody");
  ck_assert_int_eq (ab_json_int (a, "groups.1.value"), 0);
  ck_assert_uint_eq (ab_json_len (a, "groups.1.cells"), 0);
  ck_assert_str_eq (ab_json_str (a, "groups.2.start"), "bob");
  ck_assert_int_eq (ab_json_int (a, "groups.2.value"), 1);
  /* limit counts the cells of each start */
  g_autoptr (JsonNode) one = ok ("GET",
                                 T "/likes/edges/agg/by_day?start=alice&start=bob&direction=OUT"
                                   "&ranges=created_at:bt:20250101,20250103&limit=1",
                                 NULL);
  ck_assert_uint_eq (ab_json_len (one, "groups.0.cells"), 1);
  ck_assert_int_eq (ab_json_int (one, "groups.0.value"), 1);
  ck_assert (ab_json_bool (one, "groups.0.hasNext"));
  ck_assert_uint_eq (ab_json_len (one, "groups.1.cells"), 1);
  ck_assert (!ab_json_bool (one, "groups.1.hasNext"));
  g_autoptr (JsonNode) in = ok ("GET",
                                T "/likes/edges/agg/by_day?start=p1&direction=IN"
                                  "&ranges=created_at:bt:20250101,20250103",
                                NULL);
  ck_assert_int_eq (ab_json_int (in, "groups.0.value"), 2);
  g_autoptr (JsonNode) eq = ok ("GET",
                                T "/likes/edges/agg/by_day?start=p1&direction=IN"
                                  "&ranges=created_at:eq:20250103",
                                NULL);
  ck_assert_int_eq (ab_json_int (eq, "groups.0.value"), 1);
  g_autoptr (JsonNode) pts
      = ok ("GET", T "/likes/edges/agg/points?start=alice&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (pts, "groups.0.value"), 8);
  ck_assert_int_eq (ab_json_int (pts, "groups.0.cells.0.value"), 8);
  ck_assert_uint_eq (
      json_object_get_size (json_node_get_object (ab_json_at (pts, "groups.0.cells.0.key"))), 0);
  g_autoptr (JsonNode) c
      = ok ("GET", T "/likes/edges/agg/__count__?start=alice&start=nobody&direction=OUT", NULL);
  g_autoptr (JsonNode) n = ok ("GET", T "/likes/edges/count?start=alice&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c, "groups.0.value"), ab_json_int (n, "count"));
  ck_assert_int_eq (ab_json_int (c, "groups.0.value"), 2);
  ck_assert_int_eq (ab_json_int (c, "groups.0.cells.0.value"), 2);
  ck_assert_int_eq (ab_json_int (c, "count"), 2);
  ck_assert_int_eq (ab_json_int (c, "groups.1.value"), 0); /* its one cell stays, at 0 */
  ck_assert_uint_eq (ab_json_len (c, "groups.1.cells"), 1);
  /* a group with fields needs ranges here (internal readers take whole rows) */
  expect_400 ("GET", T "/likes/edges/agg/by_day?start=alice&direction=OUT", NULL,
              "`ranges` is required for group `by_day`.");
  expect_400 ("GET", T "/likes/edges/agg/by_day?start=alice&direction=OUT&ranges=", NULL,
              "`ranges` is required");
  expect_400 ("GET", T "/likes/edges/agg/points?start=alice&direction=OUT&ranges=points:eq:1", NULL,
              "unknown field");
  expect_400 ("GET",
              T "/likes/edges/agg/by_day?start=alice&start=p1&direction=IN"
                "&ranges=created_at:eq:20250103&limit=0",
              NULL, "limit");
  expect_400 ("GET", T "/likes/edges/agg/nope?start=alice&direction=OUT", NULL, "not found");
  expect_400 ("GET", T "/likes/edges/agg/by_day?start=alice", NULL, "direction");
  expect_400 ("GET", T "/likes/edges/agg/by_day?direction=OUT", NULL, "start");
  expect_400 ("GET", T "/likes/edges/agg/points?start=p1&direction=IN", NULL, "OUT only");
  expect_400 ("GET", T "/likes/edges/agg/by_day?start=a&direction=OUT&ranges=points:eq:1", NULL,
              "unknown field");
  expect_400 ("GET", T "/likes/edges/agg/by_day?start=a&direction=OUT&limit=x", NULL, "limit");
  expect_400 ("POST", T,
              "{\"table\":\"bad\",\"storage\":\"datastore://sns/bad\",\"comment\":\"\","
              "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":"
              "\"string\"},\"direction\":\"OUT\",\"groups\":[{\"group\":\"__count__\",\"type\":"
              "\"COUNT\"}]}}",
              "reserved");
}
END_TEST

/* Upstream's newer bucket: the unit is what the value counts (MILLISECOND),
 * the format makes the day, and ranges call the field by the bucket's name. */
START_TEST (upstream_buckets)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"shop\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t
      = ok ("POST", DB "/shop/tables",
            "{\"table\":\"purchases\",\"storage\":\"datastore://shop/purchases\",\"comment\":\"\","
            "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
            "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
            "\"properties\":[{\"name\":\"category\",\"type\":\"string\",\"nullable\":false,"
            "\"comment\":\"\"},{\"name\":\"purchasedAt\",\"type\":\"long\",\"nullable\":false,"
            "\"comment\":\"\"}],\"indexes\":[],\"caches\":[],"
            "\"groups\":[{\"group\":\"purchased\",\"type\":\"COUNT\",\"directionType\":\"OUT\","
            "\"fields\":[{\"name\":\"category\"},{\"name\":\"purchasedAt\",\"bucket\":{\"type\":"
            "\"date\",\"name\":\"day\",\"unit\":\"MILLISECOND\",\"timezone\":\"UTC\",\"format\":"
            "\"yyyy-MM-dd\"}}]}]}}");
  static const gint64 at[] = { 1710000000000LL, 1710000000000LL + DAY, 1710000000000LL + 3 * DAY };
  for (guint i = 0; i < G_N_ELEMENTS (at); i++)
    {
      g_autofree gchar *body = g_strdup_printf (
          "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"u1\","
          "\"target\":\"i%u\",\"properties\":{\"category\":\"grocery\",\"purchasedAt\":"
          "%" G_GINT64_FORMAT "}}}]}",
          i, at[i]);
      g_autoptr (JsonNode) m = ok ("POST", DB "/shop/tables/purchases/edges", body);
      ck_assert_str_eq (ab_json_str (m, "results.0.status"), "CREATED");
    }
  g_autoptr (JsonNode) all = ok ("GET",
                                 DB "/shop/tables/purchases/edges/agg/purchased?start=u1"
                                    "&direction=OUT&ranges=category:eq:grocery",
                                 NULL);
  ck_assert_int_eq (ab_json_int (all, "groups.0.value"), 3);
  ck_assert_str_eq (ab_json_str (all, "groups.0.cells.0.key.purchasedAt"), "2024-03-12");
  g_autoptr (JsonNode) two = ok ("GET",
                                 DB "/shop/tables/purchases/edges/agg/purchased?start=u1"
                                    "&direction=OUT&ranges=category:eq:grocery;day:bt:2024-03-09,"
                                    "2024-03-10",
                                 NULL);
  ck_assert_int_eq (ab_json_int (two, "groups.0.value"), 2);
  expect_400 ("POST", DB "/shop/tables",
              "{\"table\":\"bad\",\"storage\":\"datastore://shop/bad\",\"comment\":\"\","
              "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{"
              "\"type\":\"string\"},\"direction\":\"OUT\",\"properties\":[{\"name\":\"at\","
              "\"type\":\"long\",\"nullable\":false}],\"groups\":[{\"group\":\"g\",\"type\":"
              "\"COUNT\",\"fields\":[{\"name\":\"at\",\"bucket\":{\"type\":\"date\",\"unit\":"
              "\"MILLISECOND\",\"format\":\"yyyy-MM-dd HH:mm:ss\"}}]}]}}",
              "Second units are not supported");
}
END_TEST

/* upstream's MultiEdgeCountE2ETest: multi-edges from a source to a target
 * counted through a COUNT group (Long.MAX_VALUE ttl = never), and within a
 * window of the bucket called `time`. */
START_TEST (multi_edge_count)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"count-test-db\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t
      = ok ("POST", DB "/count-test-db/tables",
            "{\"table\":\"count-multi-edge\",\"storage\":\"datastore://test_namespace/"
            "agg_count_multi_edge\",\"mode\":\"SYNC\",\"comment\":\"\",\"schema\":{\"type\":"
            "\"MULTI_EDGE\",\"id\":{\"type\":\"string\",\"comment\":\"\"},\"source\":{\"type\":"
            "\"string\",\"comment\":\"\"},\"target\":{\"type\":\"string\",\"comment\":\"\"},"
            "\"properties\":[{\"name\":\"paidAt\",\"type\":\"long\",\"nullable\":false,\"comment\":"
            "\"\"}],\"direction\":\"BOTH\",\"indexes\":[],\"groups\":[{\"group\":\"_count\","
            "\"type\":\"COUNT\",\"fields\":[{\"name\":\"_target\"}],\"directionType\":\"OUT\","
            "\"ttl\":9223372036854775807},{\"group\":\"day\",\"type\":\"COUNT\",\"fields\":[{"
            "\"name\":\"_target\"},{\"name\":\"paidAt\",\"bucket\":{\"type\":\"date\",\"name\":"
            "\"time\",\"unit\":\"MILLISECOND\",\"timezone\":\"+09:00\",\"format\":\"yyyyMMdd\"}}],"
            "\"directionType\":\"OUT\",\"ttl\":31536000000}]}}");
  g_autoptr (JsonNode) m
      = ok ("POST", DB "/count-test-db/tables/count-multi-edge/multi-edges",
            "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":\"e1\",\"source\":"
            "\"userA\",\"target\":\"postB\",\"properties\":{\"paidAt\":1718380800000}}},{\"type\":"
            "\"INSERT\",\"edge\":{\"version\":2,\"id\":\"e2\",\"source\":\"userA\",\"target\":"
            "\"postB\",\"properties\":{\"paidAt\":1718380800000}}},{\"type\":\"INSERT\",\"edge\":{"
            "\"version\":3,\"id\":\"e3\",\"source\":\"userA\",\"target\":\"postC\",\"properties\":{"
            "\"paidAt\":1718380800000}}}]}");
#define MC DB "/count-test-db/tables/count-multi-edge/multi-edges/count"
  g_autoptr (JsonNode) all
      = ok ("GET", MC "?group=_count&start=userA&start=userZ&target=postB&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (all, "count"), 2);
  ck_assert_str_eq (ab_json_str (all, "counts.0.start"), "userA");
  ck_assert_str_eq (ab_json_str (all, "counts.0.direction"), "OUT");
  ck_assert_int_eq (ab_json_int (all, "counts.0.count"), 2);
  ck_assert_int_eq (ab_json_int (all, "counts.1.count"), 0);
  g_autoptr (JsonNode) dflt = ok ("GET", MC "?start=userA&target=postC&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (dflt, "counts.0.count"), 1); /* group _count by default */
  g_autoptr (JsonNode) june
      = ok ("GET",
            MC "?group=day&start=userA&target=postB&direction=OUT&ranges=time:bt:20240601,20240630",
            NULL);
  ck_assert_int_eq (ab_json_int (june, "counts.0.count"), 2);
  g_autoptr (JsonNode) july
      = ok ("GET",
            MC "?group=day&start=userA&target=postB&direction=OUT&ranges=time:bt:20240701,20240731",
            NULL);
  ck_assert_int_eq (ab_json_int (july, "counts.0.count"), 0);
  expect_400 ("GET", MC "?start=userA&direction=OUT", NULL, "target");
  expect_400 ("GET", MC "?target=postB&direction=OUT", NULL, "start");
  expect_400 ("GET", MC "?start=userA&target=postB", NULL, "direction");
  expect_400 ("GET", MC "?start=userA&target=postB&direction=IN", NULL, "OUT only");
  expect_400 ("GET", MC "?group=nope&start=userA&target=postB&direction=OUT", NULL, "nope");
#undef MC
}
END_TEST

START_TEST (seek_endpoint)
{
  create_tables ();
  for (gint i = 0; i < 8; i++)
    {
      g_autofree gchar *tgt = g_strdup_printf ("p%d", i);
      mutate ("likes", "INSERT", "alice", tgt, JAN1 + i * 1000, i);
    }
  mutate ("likes", "DELETE", "alice", "p7", JAN1 + 9000, 0);
  g_autoptr (JsonNode) s = ok ("GET", T "/likes/edges/seek/recent?start=alice&direction=OUT", NULL);
  g_autoptr (JsonNode) i
      = ok ("GET", T "/likes/edges/scan/recent?start=alice&direction=OUT&limit=5", NULL);
  ck_assert_uint_eq (ab_json_len (s, "edges"), 5);
  for (guint k = 0; k < 5; k++)
    {
      g_autofree gchar *p = g_strdup_printf ("edges.%u.target", k);
      ck_assert_str_eq (ab_json_str (s, p), ab_json_str (i, p));
    }
  ck_assert_str_eq (ab_json_str (s, "edges.0.target"), "p6");
  ck_assert_int_eq (ab_json_int (s, "edges.0.properties.points"), 6);
  ck_assert_int_eq (ab_json_int (s, "total"), -1);
  /* an offset comes with hasNext, as for scan (the row may hold untrimmed cells) */
  ck_assert (ab_json_is_null (s, "offset") == !ab_json_bool (s, "hasNext"));
  g_autoptr (JsonNode) r = ok ("GET",
                               T "/likes/edges/seek/recent?start=alice&direction=OUT&limit=2"
                                 "&ranges=created_at:lt:1735657203000",
                               NULL);
  ck_assert_uint_eq (ab_json_len (r, "edges"), 2);
  ck_assert_str_eq (ab_json_str (r, "edges.0.target"), "p2");
  ck_assert (ab_json_bool (r, "hasNext"));
  /* page 2 from its offset: the rest of the window, then the end */
  g_autofree gchar *page2
      = g_strdup_printf (T "/likes/edges/seek/recent?start=alice&direction=OUT"
                           "&limit=2&ranges=created_at:lt:1735657203000&offset=%s",
                         ab_json_str (r, "offset"));
  g_autoptr (JsonNode) r2 = ok ("GET", page2, NULL);
  ck_assert_uint_eq (ab_json_len (r2, "edges"), 1);
  ck_assert_str_eq (ab_json_str (r2, "edges.0.target"), "p0");
  ck_assert (!ab_json_bool (r2, "hasNext"));
  ck_assert (ab_json_is_null (r2, "offset"));
  expect_400 ("GET", T "/likes/edges/seek/recent?start=alice&direction=OUT&offset=AAAA", NULL,
              "invalid offset");
  g_autoptr (JsonNode) in = ok ("GET", T "/likes/edges/seek/recent?start=p3&direction=IN", NULL);
  ck_assert_str_eq (ab_json_str (in, "edges.0.source"), "alice");
  ck_assert_str_eq (ab_json_str (in, "edges.0.target"), "p3");
  expect_400 ("GET", T "/likes/edges/seek/nope?start=alice&direction=OUT", NULL, "not found");
  /* a limit over the cache's reads what a trimmed row keeps (limit + tolerance) */
  g_autoptr (JsonNode) big
      = ok ("GET", T "/likes/edges/seek/recent?start=alice&direction=OUT&limit=6", NULL);
  ck_assert_uint_eq (ab_json_len (big, "edges"), 5);
  expect_400 ("GET", T "/likes/edges/seek/recent?start=alice&direction=OUT&limit=0", NULL,
              "at least 1");
  expect_400 ("GET", T "/likes/edges/seek/recent?start=alice&direction=OUT&filters=points:eq:1",
              NULL, "not supported");
}
END_TEST

START_TEST (multihop_endpoint)
{
  create_tables ();
  mutate ("follows", "INSERT", "me", "f1", 100, 0);
  mutate ("follows", "INSERT", "me", "f2", 200, 0);
  mutate ("follows", "INSERT", "f1", "me", 300, 0);
  mutate ("likes", "INSERT", "f1", "book", 10, 0);
  mutate ("likes", "INSERT", "f1", "film", 20, 0);
  mutate ("likes", "INSERT", "f2", "book", 30, 0);
  mutate ("likes", "INSERT", "f2", "game", 40, 0);
  const gchar *body = "{\"start\":\"me\",\"hops\":[{\"table\":\"follows\",\"cache\":\"recent\","
                      "\"direction\":\"OUT\","
                      "\"limit\":10},{\"table\":\"likes\",\"cache\":\"recent\",\"direction\":"
                      "\"OUT\",\"limit\":5}],"
                      "\"order\":\"hits\"}";
  g_autoptr (JsonNode) m = ok ("POST", DB "/sns/edges/multihop", body);
  ck_assert_uint_eq (ab_json_len (m, "edges"), 3);
  ck_assert_str_eq (ab_json_str (m, "edges.0.target"), "book");
  ck_assert_int_eq (ab_json_int (m, "edges.0.context.hits"), 2);
  ck_assert_str_eq (ab_json_str (m, "edges.0.context.via.0"), "f2"); /* f2 followed last */
  ck_assert_str_eq (ab_json_str (m, "edges.0.context.via.1"), "f1");
  ck_assert_str_eq (ab_json_str (m, "edges.1.target"), "game");
  ck_assert_str_eq (ab_json_str (m, "edges.2.target"), "film");
  ck_assert_int_eq (ab_json_int (m, "count"), 3);
  ck_assert_int_eq (ab_json_int (m, "context.secondHopNodes"), 2);
  ck_assert_int_eq (ab_json_int (m, "context.secondHopEdges"), 4);
  /* friends of friends, starts excluded by default */
  g_autoptr (JsonNode) fof
      = ok ("POST", DB "/sns/edges/multihop",
            "{\"start\":[\"me\"],\"hops\":[{\"table\":\"follows\",\"cache\":\"recent\","
            "\"direction\":\"OUT\"},"
            "{\"table\":\"follows\",\"cache\":\"recent\",\"direction\":\"OUT\"}],\"dedup\":false}");
  ck_assert_uint_eq (ab_json_len (fof, "edges"), 0);
  expect_400 ("POST", DB "/sns/edges/multihop", "{\"start\":\"me\"}", "hops");
  expect_400 ("POST", DB "/sns/edges/multihop",
              "{\"start\":\"me\",\"hops\":[{\"table\":\"follows\",\"cache\":\"recent\"},"
              "{\"table\":\"likes\",\"cache\":\"recent\",\"direction\":\"OUT\"}]}",
              "direction");
  expect_400 ("POST", DB "/sns/edges/multihop",
              "{\"start\":\"me\",\"hops\":[{\"table\":\"follows\",\"cache\":\"recent\","
              "\"direction\":\"OUT\","
              "\"limit\":0},{\"table\":\"likes\",\"cache\":\"recent\",\"direction\":\"OUT\"}]}",
              "between 1 and 10");
  g_autoptr (GString) many = g_string_new ("{\"start\":[");
  for (guint i = 0; i < 200; i++)
    g_string_append_printf (many, "%s\"u%u\"", i ? "," : "", i);
  g_string_append (many,
                   "],\"hops\":[{\"table\":\"follows\",\"cache\":\"recent\",\"direction\":\"OUT\"},"
                   "{\"table\":\"likes\",\"cache\":\"recent\",\"direction\":\"OUT\"}]}");
  expect_400 ("POST", DB "/sns/edges/multihop", many->str, "too many start nodes");
  expect_400 ("POST", DB "/sns/edges/multihop", "{\"start\":\"me\",\"hops\":[1,2]}", "hops[0]");
  expect_400 ("POST", DB "/sns/edges/multihop", "not json", "Malformed");
}
END_TEST

/* ---- upstream's EdgeAggQueryE2ETest: the `groups` answer of a group row ---- */

#define AGG_T DB "/agg-test-db/tables/agg-test-table"
#define DATE_BUCKET                                                                       \
  "{\"type\":\"date\",\"name\":\"day\",\"unit\":\"MILLISECOND\",\"timezone\":\"+00:00\"," \
  "\"format\":\"yyyy-MM-dd\"}"
#define AGG_TS "1704067200000" /* 2024-01-01 00:00:00 UTC */

/* Upstream's setup: three COUNT groups with a day bucket on createdAt, and
 * three edges from 100 on 2024-01-01 (read/1, read/1, write/2). */
static void
agg_query_setup (void)
{
  g_autoptr (JsonNode) d
      = ok ("POST", DB, "{\"database\": \"agg-test-db\", \"comment\": \"test db\"}");
  g_autoptr (JsonNode) t = ok (
      "POST", DB "/agg-test-db/tables",
      "{\"table\":\"agg-test-table\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":"
      "\"long\",\"comment\":\"source\"},\"target\":{\"type\":\"long\",\"comment\":\"target\"},"
      "\"properties\":[{\"name\":\"permission\",\"type\":\"string\",\"comment\":\"perm\","
      "\"nullable\":false},{\"name\":\"categoryId\",\"type\":\"long\",\"comment\":"
      "\"category\",\"nullable\":false},{\"name\":\"createdAt\",\"type\":\"long\","
      "\"comment\":\"ts\",\"nullable\":false}],\"direction\":\"BOTH\",\"indexes\":[{"
      "\"index\":\"created_at_desc\",\"fields\":[{\"field\":\"createdAt\",\"order\":"
      "\"DESC\"}]}],\"groups\":[{\"group\":\"count_by_day\",\"type\":\"COUNT\",\"fields\":"
      "[{\"name\":\"createdAt\",\"bucket\":" DATE_BUCKET "}]},{\"group\":"
      "\"count_by_permission_day\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"permission\"},"
      "{\"name\":\"createdAt\",\"bucket\":" DATE_BUCKET "}]},{\"group\":"
      "\"count_by_category_day\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"categoryId\"},"
      "{\"name\":\"createdAt\",\"bucket\":" DATE_BUCKET "}]}]},\"storage\":"
      "\"datastore://test_namespace/agg_test_hbase_table\",\"mode\":\"SYNC\",\"comment\":"
      "\"test table\"}");
  g_autoptr (JsonNode) m = ok (
      "POST", AGG_T "/edges",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":100,\"target\":"
      "1000,\"properties\":{\"permission\":\"read\",\"categoryId\":1,\"createdAt\":" AGG_TS
      "}}},{\"type\":\"INSERT\",\"edge\":{\"version\":2,\"source\":100,\"target\":1001,"
      "\"properties\":{\"permission\":\"read\",\"categoryId\":1,\"createdAt\":" AGG_TS "}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":3,\"source\":100,\"target\":1002,"
      "\"properties\":{\"permission\":\"write\",\"categoryId\":2,\"createdAt\":" AGG_TS "}}}]}");
}

/* GET …/edges/agg/{group}?start=100&direction=OUT&ranges=…: 200, `count`
 * and `groups[0].value` as upstream asserts them. */
static void
expect_agg (const gchar *group, const gchar *ranges, gint64 count, gint64 value)
{
  g_autofree gchar *path
      = g_strdup_printf (AGG_T "/edges/agg/%s?start=100&direction=OUT&ranges=%s", group, ranges);
  g_autoptr (JsonNode) a = ok ("GET", path, NULL);
  ck_assert_int_eq (ab_json_int (a, "count"), count);
  ck_assert_int_eq (ab_json_int (a, "groups.0.value"), value);
}

START_TEST (upstream_agg_bucket_field_only)
{
  agg_query_setup ();
  expect_agg ("count_by_day", "day:eq:2024-01-01", 1, 3);
}
END_TEST

START_TEST (upstream_agg_string_field_matching)
{
  agg_query_setup ();
  expect_agg ("count_by_permission_day", "permission:eq:read;day:eq:2024-01-01", 1, 2);
}
END_TEST

START_TEST (upstream_agg_string_field_other)
{
  agg_query_setup ();
  expect_agg ("count_by_permission_day", "permission:eq:write;day:eq:2024-01-01", 1, 1);
}
END_TEST

START_TEST (upstream_agg_long_field_matching)
{
  agg_query_setup ();
  expect_agg ("count_by_category_day", "categoryId:eq:1;day:eq:2024-01-01", 1, 2);
}
END_TEST

START_TEST (upstream_agg_long_field_other)
{
  agg_query_setup ();
  expect_agg ("count_by_category_day", "categoryId:eq:2;day:eq:2024-01-01", 1, 1);
}
END_TEST

/* ---- upstream's EdgeAggCountSentinelE2ETest: `__count__` against count ---- */

#define SENT_T DB "/test-agg-count-db/tables/follows"

/* Upstream's setup: `follows` with one SUM group without valueField, edges
 * 1->2 (A), 1->3 (A), 1->4 (B), then 5->1 (A), 6->1 (B). */
static void
sentinel_setup (void)
{
  g_autoptr (JsonNode) d
      = ok ("POST", DB, "{\"database\": \"test-agg-count-db\", \"comment\": \"test\"}");
  g_autoptr (JsonNode) t
      = ok ("POST", DB "/test-agg-count-db/tables",
            "{\"table\":\"follows\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\","
            "\"comment\":\"src\"},\"target\":{\"type\":\"long\",\"comment\":\"tgt\"},"
            "\"properties\":[{\"name\":\"category\",\"type\":\"string\",\"comment\":\"cat\","
            "\"nullable\":true}],\"direction\":\"BOTH\",\"indexes\":[],\"groups\":[{\"group\":"
            "\"by_category\",\"type\":\"SUM\",\"fields\":[{\"name\":\"category\"}]}],\"caches\":"
            "[]},\"storage\":\"datastore://test_namespace/follows\",\"mode\":\"SYNC\",\"comment\":"
            "\"test\"}");
  g_autoptr (JsonNode) out = ok (
      "POST", SENT_T "/edges",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":1,\"target\":2,"
      "\"properties\":{\"category\":\"A\"}}},{\"type\":\"INSERT\",\"edge\":{\"version\":1,"
      "\"source\":1,\"target\":3,\"properties\":{\"category\":\"A\"}}},{\"type\":\"INSERT\","
      "\"edge\":{\"version\":1,\"source\":1,\"target\":4,\"properties\":{\"category\":\"B\"}}}"
      "]}");
  g_autoptr (JsonNode) in = ok (
      "POST", SENT_T "/edges",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":5,\"target\":1,"
      "\"properties\":{\"category\":\"A\"}}},{\"type\":\"INSERT\",\"edge\":{\"version\":1,"
      "\"source\":6,\"target\":1,\"properties\":{\"category\":\"B\"}}}]}");
}

/* The count endpoint's answer, upstream's ground truth for `__count__`. */
static gint64
native_count (gint64 start, const gchar *direction)
{
  g_autofree gchar *path = g_strdup_printf (
      SENT_T "/edges/count?start=%" G_GINT64_FORMAT "&direction=%s", start, direction);
  g_autoptr (JsonNode) n = ok ("GET", path, NULL);
  return ab_json_int (n, "count");
}

static void
expect_sentinel (const gchar *direction)
{
  gint64 expected = native_count (1, direction);
  g_autofree gchar *path
      = g_strdup_printf (SENT_T "/edges/agg/__count__?start=1&direction=%s", direction);
  g_autoptr (JsonNode) a = ok ("GET", path, NULL);
  ck_assert_int_eq (ab_json_int (a, "count"), 1);
  ck_assert_uint_eq (ab_json_len (a, "groups"), 1);
  ck_assert_int_eq (ab_json_int (a, "groups.0.start"), 1);
  ck_assert_str_eq (ab_json_str (a, "groups.0.direction"), direction);
  ck_assert_int_eq (ab_json_int (a, "groups.0.value"), expected);
}

START_TEST (upstream_sentinel_out)
{
  sentinel_setup ();
  expect_sentinel ("OUT");
}
END_TEST

START_TEST (upstream_sentinel_in)
{
  sentinel_setup ();
  expect_sentinel ("IN");
}
END_TEST

START_TEST (upstream_sentinel_ranges)
{
  sentinel_setup ();
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, "%s",
           SENT_T "/edges/agg/__count__?start=1&direction=OUT&ranges=foo%3Dbar");
  ab_assert_error_reply (&r, 400);
  ab_reply_clear (&r);
}
END_TEST

START_TEST (upstream_sentinel_starts)
{
  sentinel_setup ();
  gint64 expected1 = native_count (1, "OUT"), expected5 = native_count (5, "OUT");
  g_autoptr (JsonNode) a
      = ok ("GET", SENT_T "/edges/agg/__count__?start=1&start=5&direction=OUT", NULL);
  ck_assert_uint_eq (ab_json_len (a, "groups"), 2);
  ck_assert_int_eq (ab_json_int (a, "count"), 2);
  JsonNode *group1 = NULL, *group5 = NULL;
  for (guint i = 0; i < 2; i++)
    {
      g_autofree gchar *at = g_strdup_printf ("groups.%u", i);
      JsonNode *g = ab_json_at (a, at);
      if (ab_json_int (g, "start") == 1)
        group1 = g;
      else if (ab_json_int (g, "start") == 5)
        group5 = g;
    }
  ck_assert_msg (group1 != NULL, "group for start=1 not found");
  ck_assert_msg (group5 != NULL, "group for start=5 not found");
  ck_assert_int_eq (ab_json_int (group1, "value"), expected1);
  ck_assert_int_eq (ab_json_int (group5, "value"), expected5);
  /* the same starts comma separated, in request order; too many is 400 */
  g_autoptr (JsonNode) c = ok ("GET", SENT_T "/edges/agg/__count__?start=5,1&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c, "groups.0.start"), 5);
  ck_assert_int_eq (ab_json_int (c, "groups.1.value"), expected1);
  g_autoptr (GString) many = g_string_new (SENT_T "/edges/agg/__count__?direction=OUT&start=0");
  for (guint i = 1; i <= 1000; i++)
    g_string_append_printf (many, ",%u", i);
  ab_expect_error (&srv, "GET", many->str, NULL, 400, "at most 1000");
}
END_TEST

START_TEST (upstream_sentinel_regular_group_needs_ranges)
{
  sentinel_setup ();
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, "%s", SENT_T "/edges/agg/by_category?start=1&direction=OUT");
  ab_assert_error_reply (&r, 400);
  ab_reply_clear (&r);
}
END_TEST

/* Ours on upstream's fixture: a SUM group without valueField adds 1 per
 * edge, and a delete or an update moves it back. */
START_TEST (sum_without_value_field)
{
  sentinel_setup ();
  g_autoptr (JsonNode) a = ok (
      "GET", SENT_T "/edges/agg/by_category?start=1&start=5&direction=OUT&ranges=category:eq:A",
      NULL);
  ck_assert_int_eq (ab_json_int (a, "groups.0.value"), 2);
  ck_assert_str_eq (ab_json_str (a, "groups.0.cells.0.key.category"), "A");
  ck_assert_int_eq (ab_json_int (a, "groups.1.value"), 1);
  g_autoptr (JsonNode) in
      = ok ("GET", SENT_T "/edges/agg/by_category?start=1&direction=IN&ranges=category:eq:B", NULL);
  ck_assert_int_eq (ab_json_int (in, "groups.0.value"), 1);
  g_autoptr (JsonNode) m = ok (
      "POST", SENT_T "/edges",
      "{\"mutations\":[{\"type\":\"DELETE\",\"edge\":{\"version\":2,\"source\":1,\"target\":2,"
      "\"properties\":{}}},{\"type\":\"UPDATE\",\"edge\":{\"version\":2,\"source\":1,"
      "\"target\":4,\"properties\":{\"category\":\"A\"}}}]}");
  g_autoptr (JsonNode) after = ok (
      "GET", SENT_T "/edges/agg/by_category?start=1&direction=OUT&ranges=category:bt:A,B", NULL);
  ck_assert_uint_eq (ab_json_len (after, "groups.0.cells"), 1);
  ck_assert_int_eq (ab_json_int (after, "groups.0.value"), 2);
}
END_TEST

/* The upstream agg suites and ours on their fixture, on every store. */
static void
add_upstream_agg_tests (TCase *tc)
{
  tcase_add_test (tc, upstream_agg_bucket_field_only);
  tcase_add_test (tc, upstream_agg_string_field_matching);
  tcase_add_test (tc, upstream_agg_string_field_other);
  tcase_add_test (tc, upstream_agg_long_field_matching);
  tcase_add_test (tc, upstream_agg_long_field_other);
  tcase_add_test (tc, upstream_sentinel_out);
  tcase_add_test (tc, upstream_sentinel_in);
  tcase_add_test (tc, upstream_sentinel_ranges);
  tcase_add_test (tc, upstream_sentinel_starts);
  tcase_add_test (tc, upstream_sentinel_regular_group_needs_ranges);
  tcase_add_test (tc, sum_without_value_field);
}

/* ---- POST …/edges/prune: upstream's EdgeCachePruneE2ETest, then ours ---- */

#define PDB DB "/prune-test-db"
#define WISHLIST PDB "/tables/wishlist"
#define PRUNE_1000 "{\"type\":\"CACHE\",\"targets\":[{\"start\":1000,\"direction\":\"OUT\"}]}"

/* Upstream's wishlist schema with its one cache declared as `cache`. */
static gchar *
wishlist_schema (const gchar *cache)
{
  return g_strdup_printf (
      "{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"src\"},\"target\":{"
      "\"type\":\"long\",\"comment\":\"tgt\"},\"properties\":[{\"name\":\"createdAt\",\"type\":"
      "\"long\",\"comment\":\"ts\",\"nullable\":true}],\"direction\":\"BOTH\",\"indexes\":[],"
      "\"groups\":[],\"caches\":[%s]}",
      cache);
}

/* Upstream's setup: the database, the wishlist table with `cache`, and
 * source 1000 to targets 2000..2004 with createdAt 100..500. */
static void
wishlist_setup (const gchar *cache)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"prune-test-db\",\"comment\":\"c\"}");
  g_autofree gchar *schema = wishlist_schema (cache);
  g_autofree gchar *table = g_strdup_printf (
      "{\"table\":\"wishlist\",\"schema\":%s,\"storage\":\"datastore://test_namespace/"
      "wishlist\",\"mode\":\"SYNC\",\"comment\":\"edge with cache\"}",
      schema);
  g_autoptr (JsonNode) t = ok ("POST", PDB "/tables", table);
  g_autoptr (GString) m = g_string_new ("{\"mutations\":[");
  for (guint i = 0; i < 5; i++)
    g_string_append_printf (m,
                            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":1000,"
                            "\"target\":%u,\"properties\":{\"createdAt\":%u}}}",
                            i ? "," : "", 2000 + i, 100 * (i + 1));
  g_string_append (m, "]}");
  g_autoptr (JsonNode) w = ok ("POST", WISHLIST "/edges", m->str);
  ck_assert_str_eq (ab_json_str (w, "results.4.status"), "CREATED");
}

#define UPSTREAM_CACHE                                                                        \
  "{\"cache\":\"recent_wishlist\",\"fields\":[{\"field\":\"createdAt\",\"order\":\"DESC\"}]," \
  "\"limit\":2,\"tolerance\":1}"

/* upstream's active case: the route answers the results envelope */
START_TEST (prune_envelope)
{
  wishlist_setup (UPSTREAM_CACHE);
  g_autoptr (JsonNode) r = ok ("POST", WISHLIST "/edges/prune", PRUNE_1000);
  ck_assert (JSON_NODE_HOLDS_ARRAY (ab_json_at (r, "results")));
}
END_TEST

/* upstream's disabled case, active here: entries beyond limit + tolerance
 * evicted, the newest three kept. Upstream has no background trimming; here
 * it runs every second and would race the prune for a row written with the
 * final declaration, so the rows are written under limit 5 (within bound,
 * nothing to trim) and the cache is narrowed to upstream's declaration
 * before the prune: rows written before a narrowing stay long until pruned. */
START_TEST (prune_evicts)
{
  wishlist_setup ("{\"cache\":\"recent_wishlist\",\"fields\":[{\"field\":\"createdAt\","
                  "\"order\":\"DESC\"}],\"limit\":5}");
  g_autofree gchar *schema = wishlist_schema (UPSTREAM_CACHE);
  g_autofree gchar *put = g_strdup_printf ("{\"schema\":%s}", schema);
  g_autoptr (JsonNode) u = ok ("PUT", WISHLIST, put);
  ck_assert_int_eq (ab_json_int (u, "schema.caches.0.tolerance"), 1);
  g_autoptr (JsonNode) r = ok ("POST", WISHLIST "/edges/prune", PRUNE_1000);
  ck_assert_uint_eq (ab_json_len (r, "results"), 1);
  ck_assert_str_eq (ab_json_str (r, "results.0.type"), "CACHE");
  ck_assert_str_eq (ab_json_str (r, "results.0.name"), "recent_wishlist");
  ck_assert_str_eq (ab_json_str (r, "results.0.status"), "PRUNED");
  ck_assert_int_eq (ab_json_int (r, "results.0.start"), 1000);
  ck_assert_str_eq (ab_json_str (r, "results.0.direction"), "OUT");
  g_autoptr (JsonNode) s
      = ok ("GET", WISHLIST "/edges/seek/recent_wishlist?start=1000&direction=OUT&limit=10", NULL);
  ck_assert_int_eq (ab_json_int (s, "count"), 3);
  ck_assert_int_eq (ab_json_int (s, "edges.0.target"), 2004);
  ck_assert_int_eq (ab_json_int (s, "edges.2.target"), 2002);
  ck_assert (!ab_json_bool (s, "hasNext"));
  /* ours: nothing beyond the bound any more; a BOTH table's cache serves IN
   * too (one cell per target row: within bound) */
  g_autoptr (JsonNode) again
      = ok ("POST", WISHLIST "/edges/prune",
            "{\"type\":\"CACHE\",\"targets\":[{\"start\":\"1000\",\"direction\":\"OUT\"},"
            "{\"start\":2004,\"direction\":\"IN\"}]}");
  ck_assert_uint_eq (ab_json_len (again, "results"), 2);
  ck_assert_str_eq (ab_json_str (again, "results.0.status"), "SKIPPED");
  ck_assert_int_eq (ab_json_int (again, "results.0.start"), 1000); /* cast to the source type */
  ck_assert_str_eq (ab_json_str (again, "results.1.direction"), "IN");
  ck_assert_str_eq (ab_json_str (again, "results.1.status"), "SKIPPED");
  /* the default page is the cache's limit; the spare cell comes next */
  g_autoptr (JsonNode) page
      = ok ("GET", WISHLIST "/edges/seek/recent_wishlist?start=1000&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (page, "count"), 2);
  ck_assert (ab_json_bool (page, "hasNext"));
}
END_TEST

/* tolerance in the schema (v3 and v2 answers, the rule), the route's 400s,
 * a table without caches, and read-only mode */
START_TEST (prune_requests)
{
  wishlist_setup (UPSTREAM_CACHE);
  g_autoptr (JsonNode) v3 = ok ("GET", WISHLIST, NULL);
  ck_assert_int_eq (ab_json_int (v3, "schema.caches.0.limit"), 2);
  ck_assert_int_eq (ab_json_int (v3, "schema.caches.0.tolerance"), 1);
  g_autoptr (JsonNode) v2 = ok ("GET", "/graph/v2/service/prune-test-db/label/wishlist", NULL);
  ck_assert_int_eq (ab_json_int (v2, "caches.0.tolerance"), 1);
  g_autofree gchar *neg = wishlist_schema (
      "{\"cache\":\"c\",\"fields\":[{\"field\":\"createdAt\",\"order\":\"DESC\"}],"
      "\"limit\":2,\"tolerance\":-1}");
  g_autofree gchar *bad_table = g_strdup_printf (
      "{\"table\":\"bad\",\"schema\":%s,\"storage\":\"datastore://test_namespace/bad\","
      "\"comment\":\"\"}",
      neg);
  expect_400 ("POST", PDB "/tables", bad_table,
              "schema.caches[0].tolerance: -1 is not between 0 and 10000");
  expect_400 ("POST", WISHLIST "/edges/prune", "{\"type\":\"INDEX\",\"targets\":[]}",
              "'INDEX' is not a prune type");
  expect_400 ("POST", WISHLIST "/edges/prune", "{\"type\":\"CACHE\"}", "targets");
  expect_400 ("POST", WISHLIST "/edges/prune", "{\"targets\":[]}", "type");
  expect_400 ("POST", WISHLIST "/edges/prune",
              "{\"type\":\"CACHE\",\"targets\":[{\"start\":1000,\"direction\":\"BOTH\"}]}",
              "targets[0].direction: 'BOTH' is not OUT or IN");
  expect_400 ("POST", WISHLIST "/edges/prune",
              "{\"type\":\"CACHE\",\"targets\":[{\"start\":\"x\",\"direction\":\"OUT\"}]}",
              "targets[0].start");
  expect_400 ("POST", WISHLIST "/edges/prune", "[]", "JSON object");
  expect_400 ("POST", PDB "/tables/nope/edges/prune", "{\"type\":\"CACHE\",\"targets\":[]}",
              "nope");
  /* a table without caches: nothing to prune */
  g_autofree gchar *plain = wishlist_schema ("");
  g_autofree gchar *plain_table = g_strdup_printf (
      "{\"table\":\"plain\",\"schema\":%s,\"storage\":\"datastore://test_namespace/plain\","
      "\"comment\":\"\"}",
      plain);
  g_autoptr (JsonNode) pt = ok ("POST", PDB "/tables", plain_table);
  g_autoptr (JsonNode) none = ok ("POST", PDB "/tables/plain/edges/prune", PRUNE_1000);
  ck_assert_uint_eq (ab_json_len (none, "results"), 0);
  /* it writes: refused in read-only mode */
  const gchar *ro[] = { "--read-only", NULL };
  ab_server_stop (&srv);
  ab_server_restart (&srv, ro);
  ab_expect_error (&srv, "POST", WISHLIST "/edges/prune", PRUNE_1000, 403, "read-only");
}
END_TEST

static void
add_prune_tests (TCase *tc)
{
  tcase_add_test (tc, prune_envelope);
  tcase_add_test (tc, prune_evicts);
  tcase_add_test (tc, prune_requests);
}

/* The agg cases on the store of AB_REST_STORE (lmdb; store-suites.sh runs
 * them on rocksdb and hbase); the prune and upstream agg cases there too
 * when it is set, else on lmdb, rocksdb and memory in turn. */
int
main (void)
{
  Suite *s = suite_create ("rest-agg");
  TCase *tc = tcase_create ("agg");
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, agg_endpoint);
  tcase_add_test (tc, upstream_buckets);
  tcase_add_test (tc, multi_edge_count);
  tcase_add_test (tc, seek_endpoint);
  tcase_add_test (tc, multihop_endpoint);
  gboolean one_store = g_getenv ("AB_REST_STORE") != NULL;
  if (one_store)
    {
      add_prune_tests (tc);
      add_upstream_agg_tests (tc);
    }
  suite_add_tcase (s, tc);
  int failed = ab_check_run (s);
  if (!one_store)
    {
      failed |= ab_rest_main_stores ("prune", add_prune_tests, setup, teardown, 120);
      failed |= ab_rest_main_stores ("upstream-agg", add_upstream_agg_tests, setup, teardown, 120);
    }
  return failed;
}
