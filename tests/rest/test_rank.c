/* REST suite for the refreshes of upstream's top-K (TopkScenarioTest's
 * scheduling and sweeping cases): what POST /aggregations/v1/aggregate
 * queues on topk/refresh, and POST /aggregations/v1/sweep recomputing it. */
#include <string.h>
#include "rest_harness.h"

#define DAY_MS G_GINT64_CONSTANT (86400000)
#define YEAR_MS (365 * DAY_MS)
#define POLL "/queue/v1/namespaces/topk/queues/refresh/partitions/0/poll?limit=100"
#define TOPKS "/aggregations/v1/databases/shop/tables/purchases/topks/top_recent"

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

/* shop.purchases (user -> item by order id, category, purchasedAt) ranking
 * a user's items of a category over the last 365 days, refreshed
 * `refresh` ms after a purchase's day; shop.ranks holds the rankings. */
static void
tables (gint64 refresh)
{
  g_autoptr (JsonNode) d
      = ok ("POST", "/graph/v3/databases", "{\"database\":\"shop\",\"comment\":\"\"}");
  g_autoptr (JsonNode) rank
      = ok ("POST", "/graph/v3/databases/shop/tables",
            "{\"table\":\"ranks\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\","
            "\"comment\":\"\"},\"target\":{\"type\":\"string\",\"comment\":\"\"},\"properties\":[{"
            "\"name\":\"metric\",\"type\":\"long\",\"comment\":\"\",\"nullable\":false},{\"name\":"
            "\"additionalProperties\",\"type\":\"string\",\"comment\":\"\",\"nullable\":true}],"
            "\"direction\":\"OUT\",\"indexes\":[{\"index\":\"metric_desc\",\"fields\":[{\"field\":"
            "\"metric\",\"order\":\"DESC\"}]}],\"groups\":[],\"caches\":[]},\"storage\":"
            "\"datastore://ns/ranks\",\"mode\":\"SYNC\",\"comment\":\"\"}");
  g_autofree gchar *purchases = g_strdup_printf (
      "{\"table\":\"purchases\",\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"long\","
      "\"comment\":\"\"},\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":"
      "\"string\",\"comment\":\"\"},\"properties\":[{\"name\":\"category\",\"type\":\"string\","
      "\"comment\":\"\",\"nullable\":false},{\"name\":\"purchasedAt\",\"type\":\"long\","
      "\"comment\":\"\",\"nullable\":false}],\"direction\":\"OUT\",\"indexes\":[],\"groups\":[{"
      "\"group\":\"bought\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"_target\"},{\"name\":"
      "\"category\"},{\"name\":\"purchasedAt\",\"bucket\":{\"type\":\"date\",\"name\":\"day\","
      "\"unit\":\"MILLISECOND\",\"timezone\":\"UTC\",\"format\":\"yyyy-MM-dd\"}}],"
      "\"directionType\":\"OUT\",\"aggregations\":{\"topk\":[{\"topk\":\"top_recent\",\"entity\":"
      "\"source\",\"ranges\":\"_target:eq:{_target};category:eq:{category};day:bt:now-365d,now\","
      "\"dimension\":\"target\",\"rank\":\"shop.ranks\",\"refreshAfterMillis\":%" G_GINT64_FORMAT
      ",\"additionalProperties\":[\"category\"]}]}}],\"caches\":[]},\"storage\":"
      "\"datastore://ns/purchases\",\"mode\":\"SYNC\",\"comment\":\"\"}",
      refresh);
  g_autoptr (JsonNode) t = ok ("POST", "/graph/v3/databases/shop/tables", purchases);
}

static void
refresh_queue (void)
{
  g_autoptr (JsonNode) q = ok ("POST", "/queue/v1/namespaces/topk/queues",
                               "{\"queue\":\"refresh\",\"storage\":\"datastore://topk/refresh\","
                               "\"partitions\":1}");
}

/* Order `id`: user1 bought `item` at `at` (ms); version `version`. */
static void
purchase (const gchar *type, gint64 version, gint64 id, const gchar *item, gint64 at)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
      ",\"id\":%" G_GINT64_FORMAT ",\"source\":\"user1\",\"target\":\"%s\",\"properties\":{"
      "\"category\":\"fruit\",\"purchasedAt\":%" G_GINT64_FORMAT "}}}]}",
      type, version, id, item, at);
  g_autoptr (JsonNode) m
      = ok ("POST", "/graph/v3/databases/shop/tables/purchases/multi-edges", body);
}

static JsonNode *
aggregate (const gchar *item, gint64 at)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"items\":[{\"database\":\"shop\",\"table\":\"purchases\",\"edge\":{\"source\":"
      "\"user1\",\"target\":\"%s\",\"properties\":{\"category\":\"fruit\",\"purchasedAt\":"
      "%" G_GINT64_FORMAT "}}}]}",
      item, at);
  return ok ("POST", "/aggregations/v1/aggregate", body);
}

static gint64
metric_of_first (void)
{
  g_autoptr (JsonNode) r
      = ok ("POST", TOPKS, "{\"entity\":\"user1\",\"dimensionValues\":{\"category\":\"fruit\"}}");
  ck_assert_int_eq (ab_json_int (r, "count"), 1);
  return ab_json_int (r, "topks.0.metric");
}

/* Midnight UTC of the day holding `ms`, computed here, not by the server. */
static gint64
day_start (gint64 ms)
{
  return ms - ms % DAY_MS;
}

static gint64
now_ms (void)
{
  return g_get_real_time () / 1000;
}

START_TEST (refresh_queued_at_due_time)
{
  tables (YEAR_MS);
  refresh_queue ();
  gint64 at = now_ms () - 10 * DAY_MS;
  purchase ("INSERT", 1, 1, "apple", at);
  g_autoptr (JsonNode) a = aggregate ("apple", at);
  ck_assert_str_eq (ab_json_str (a, "items.0.status"), "SUCCESS");
  g_autoptr (JsonNode) p = ok ("GET", POLL, NULL);
  ck_assert_uint_eq (ab_json_len (p, "messages"), 1);
  gint64 due = day_start (at) + YEAR_MS + DAY_MS;
  ck_assert_int_eq (ab_json_int (p, "messages.0.seq"), due);
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.type"), "TOPK");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.database"), "shop");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.table"), "purchases");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.topk"), "top_recent");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.entity"), "user1");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.topkDimensionValue"), "apple");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.dimensionValues"), "fruit");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.direction"), "OUT");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.ranges"),
                    "_target:eq:apple;category:eq:fruit;day:bt:now-365d,now");
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.item.properties.category"), "fruit");
  ck_assert_int_eq (ab_json_int (p, "messages.0.value.item.refreshAt"), due);
  /* a second purchase in the same day: a second message, the same due time */
  purchase ("INSERT", 1, 2, "apple", at + 1000);
  g_autoptr (JsonNode) a2 = aggregate ("apple", at + 1000);
  g_autoptr (JsonNode) p2 = ok ("GET", POLL, NULL);
  ck_assert_uint_eq (ab_json_len (p2, "messages"), 2);
  ck_assert_int_eq (ab_json_int (p2, "messages.1.seq"), due);
  ck_assert_int_eq (metric_of_first (), 2);
}
END_TEST

START_TEST (refresh_delay_as_declared)
{
  tables (DAY_MS);
  refresh_queue ();
  gint64 at = now_ms () - 3 * DAY_MS;
  purchase ("INSERT", 1, 1, "pear", at);
  g_autoptr (JsonNode) a = aggregate ("pear", at);
  g_autoptr (JsonNode) p = ok ("GET", POLL, NULL);
  ck_assert_int_eq (ab_json_int (p, "messages.0.seq"), day_start (at) + 2 * DAY_MS);
}
END_TEST

START_TEST (sweep_recomputes_and_queues_nothing)
{
  tables (YEAR_MS);
  refresh_queue ();
  gint64 at = now_ms () - 10 * DAY_MS;
  purchase ("INSERT", 1, 1, "grape", at);
  g_autoptr (JsonNode) a = aggregate ("grape", at);
  ck_assert_int_eq (metric_of_first (), 1);
  g_autoptr (JsonNode) p = ok ("GET", POLL, NULL);
  g_autoptr (JsonNode) value = json_node_copy (ab_json_at (p, "messages.0.value"));
  /* the purchase is cancelled; only a recompute lowers the ranking */
  purchase ("DELETE", 2, 1, "grape", at);
  ck_assert_int_eq (metric_of_first (), 1);
  g_autofree gchar *text = json_to_string (value, FALSE);
  g_autofree gchar *body = g_strdup_printf ("{\"items\":[%s]}", text);
  g_autoptr (JsonNode) s = ok ("POST", "/aggregations/v1/sweep", body);
  ck_assert_uint_eq (ab_json_len (s, "items"), 1);
  ck_assert_str_eq (ab_json_str (s, "items.0.status"), "SUCCESS");
  ck_assert_str_eq (ab_json_str (s, "items.0.topk"), "top_recent");
  ck_assert_str_eq (ab_json_str (s, "items.0.entity"), "user1");
  ck_assert (ab_json_is_null (s, "items.0.error"));
  ck_assert_int_eq (metric_of_first (), 0); /* the row stays, at 0 */
  g_autoptr (JsonNode) p2 = ok ("GET", POLL, NULL);
  ck_assert_uint_eq (ab_json_len (p2, "messages"), 1); /* a sweep queues nothing */
}
END_TEST

START_TEST (sweep_skips_what_is_no_longer_declared)
{
  tables (YEAR_MS);
  const gchar *item = "{\"items\":[{\"type\":\"TOPK\",\"item\":{\"database\":\"shop\",\"table\":"
                      "\"%s\",\"topk\":\"%s\",\"source\":\"user1\",\"target\":\"kiwi\","
                      "\"direction\":\"OUT\",\"entity\":\"user1\",\"topkDimensionValue\":\"kiwi\","
                      "\"dimensionValues\":\"fruit\",\"ranges\":\"\",\"properties\":{}}}]}";
  g_autofree gchar *gone = g_strdup_printf (item, "purchases", "top_gone");
  g_autoptr (JsonNode) s = ok ("POST", "/aggregations/v1/sweep", gone);
  ck_assert_str_eq (ab_json_str (s, "items.0.status"), "SKIPPED");
  ck_assert (strstr (ab_json_str (s, "items.0.error"), "no longer declared") != NULL);
  g_autofree gchar *no_table = g_strdup_printf (item, "dropped", "top_recent");
  g_autoptr (JsonNode) s2 = ok ("POST", "/aggregations/v1/sweep", no_table);
  ck_assert_str_eq (ab_json_str (s2, "items.0.status"), "SKIPPED");
  ab_expect_error (&srv, "POST", "/aggregations/v1/sweep",
                   "{\"items\":[{\"type\":\"SCORE\",\"item\":{\"database\":\"shop\",\"table\":"
                   "\"purchases\",\"topk\":\"t\",\"source\":\"a\",\"target\":\"b\",\"entity\":"
                   "\"a\",\"topkDimensionValue\":\"b\"}}]}",
                   400, "unknown refresh type");
  ab_expect_error (&srv, "POST", "/aggregations/v1/sweep", "{\"items\":[{\"type\":\"TOPK\"}]}", 400,
                   "item");
  ab_expect_error (&srv, "POST", "/aggregations/v1/sweep", "{}", 400, "items");
}
END_TEST

START_TEST (no_refresh_queue_is_an_error_of_the_item)
{
  tables (YEAR_MS); /* the queue topk/refresh was never created */
  gint64 at = now_ms () - DAY_MS;
  purchase ("INSERT", 1, 1, "plum", at);
  g_autoptr (JsonNode) a = aggregate ("plum", at);
  ck_assert_str_eq (ab_json_str (a, "items.0.status"), "ERROR");
  ck_assert (strstr (ab_json_str (a, "items.0.error"), "refresh was not queued") != NULL);
  ck_assert_int_eq (metric_of_first (), 1); /* the ranking itself was written */
}
END_TEST

START_TEST (nothing_queued_without_a_delay)
{
  tables (-1);
  refresh_queue ();
  gint64 at = now_ms () - DAY_MS;
  purchase ("INSERT", 1, 1, "fig", at);
  g_autoptr (JsonNode) a = aggregate ("fig", at);
  ck_assert_str_eq (ab_json_str (a, "items.0.status"), "SUCCESS");
  g_autoptr (JsonNode) p = ok ("GET", POLL, NULL);
  ck_assert_uint_eq (ab_json_len (p, "messages"), 0);
}
END_TEST

START_TEST (metadata_lists_the_rankings)
{
  tables (YEAR_MS);
  g_autoptr (JsonNode) m = ok ("GET", "/aggregations/v1/metadata", NULL);
  ck_assert_uint_eq (ab_json_len (m, "items"), 1); /* shop.ranks declares none */
  ck_assert_str_eq (ab_json_str (m, "items.0.type"), "TOPK");
  ck_assert_str_eq (ab_json_str (m, "items.0.database"), "shop");
  ck_assert_str_eq (ab_json_str (m, "items.0.table"), "purchases");
  ck_assert_str_eq (ab_json_str (m, "items.0.dedupes.0.name"), "top_recent");
  /* per entity going OUT: the source, then the group's fields without a bucket */
  ck_assert_uint_eq (ab_json_len (m, "items.0.dedupes.0.fields"), 3);
  ck_assert_str_eq (ab_json_str (m, "items.0.dedupes.0.fields.0"), "source");
  ck_assert_str_eq (ab_json_str (m, "items.0.dedupes.0.fields.1"), "_target");
  ck_assert_str_eq (ab_json_str (m, "items.0.dedupes.0.fields.2"), "category");
  g_autoptr (JsonNode) typed = ok ("GET", "/aggregations/v1/metadata?type=TOPK", NULL);
  ck_assert_uint_eq (ab_json_len (typed, "items"), 1);
  ab_expect_error (&srv, "GET", "/aggregations/v1/metadata?type=SCORE", NULL, 400, "TOPK");
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, metadata_lists_the_rankings);
  tcase_add_test (tc, refresh_queued_at_due_time);
  tcase_add_test (tc, refresh_delay_as_declared);
  tcase_add_test (tc, sweep_recomputes_and_queues_nothing);
  tcase_add_test (tc, sweep_skips_what_is_no_longer_declared);
  tcase_add_test (tc, no_refresh_queue_is_an_error_of_the_item);
  tcase_add_test (tc, nothing_queued_without_a_delay);
}

int
main (void)
{
  return ab_rest_main_stores ("rank", add_tests, setup, teardown, 60);
}
