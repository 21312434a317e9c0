/* REST suite for groups, caches and multihop on the real server: schema
 * round trip of groups/caches, GET …/edges/agg/{group} (day buckets, SUM,
 * ranges, __count__), GET …/edges/seek/{cache} against scan, POST
 * …/edges/multihop, and the 400 answers of each. */
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
  g_autoptr (JsonNode) a = ok ("GET", T "/likes/edges/agg/by_day?start=alice&direction=OUT", NULL);
  ck_assert_str_eq (ab_json_str (a, "group"), "by_day");
  ck_assert_str_eq (ab_json_str (a, "start"), "alice");
  ck_assert_str_eq (ab_json_str (a, "direction"), "OUT");
  ck_assert_uint_eq (ab_json_len (a, "cells"), 2);
  ck_assert_str_eq (ab_json_str (a, "cells.0.key.created_at"), "20250102"); /* DESC */
  ck_assert_int_eq (ab_json_int (a, "cells.0.value"), 1);
  ck_assert_str_eq (ab_json_str (a, "cells.1.key.created_at"), "20250101");
  ck_assert_int_eq (ab_json_int (a, "cells.1.value"), 1);
  ck_assert_int_eq (ab_json_int (a, "count"), 2);
  ck_assert_int_eq (ab_json_int (a, "sum"), 2);
  ck_assert (!ab_json_bool (a, "hasNext"));
  g_autoptr (JsonNode) in = ok ("GET",
                                T "/likes/edges/agg/by_day?start=p1&direction=IN"
                                  "&ranges=created_at:bt:20250101,20250103",
                                NULL);
  ck_assert_int_eq (ab_json_int (in, "sum"), 2);
  g_autoptr (JsonNode) eq = ok ("GET",
                                T "/likes/edges/agg/by_day?start=p1&direction=IN"
                                  "&ranges=created_at:eq:20250103",
                                NULL);
  ck_assert_int_eq (ab_json_int (eq, "sum"), 1);
  g_autoptr (JsonNode) pts
      = ok ("GET", T "/likes/edges/agg/points?start=alice&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (pts, "cells.0.value"), 8);
  ck_assert_uint_eq (json_object_get_size (json_node_get_object (ab_json_at (pts, "cells.0.key"))),
                     0);
  g_autoptr (JsonNode) c
      = ok ("GET", T "/likes/edges/agg/__count__?start=alice&direction=OUT", NULL);
  g_autoptr (JsonNode) n = ok ("GET", T "/likes/edges/count?start=alice&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c, "cells.0.value"), ab_json_int (n, "count"));
  ck_assert_int_eq (ab_json_int (c, "cells.0.value"), 2);
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
  ck_assert_int_eq (ab_json_int (all, "sum"), 3);
  ck_assert_str_eq (ab_json_str (all, "cells.0.key.purchasedAt"), "2024-03-12");
  g_autoptr (JsonNode) two = ok ("GET",
                                 DB "/shop/tables/purchases/edges/agg/purchased?start=u1"
                                    "&direction=OUT&ranges=category:eq:grocery;day:bt:2024-03-09,"
                                    "2024-03-10",
                                 NULL);
  ck_assert_int_eq (ab_json_int (two, "sum"), 2);
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
  expect_400 ("GET", T "/likes/edges/seek/recent?start=alice&direction=OUT&limit=6", NULL,
              "between 1 and 5");
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
              "\"limit\":11},{\"table\":\"likes\",\"cache\":\"recent\",\"direction\":\"OUT\"}]}",
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
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
