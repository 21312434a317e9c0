/* REST suite for /queue/v1/databases/{database}/queues on the real server:
 * upstream's QueueAdminE2ETest, enqueue and poll cases, the create rules,
 * cursor and shard answers, access control and read-only mode; run on lmdb,
 * rocksdb and memory (and on HBase by hbase-suites.sh). */
#include <string.h>
#include "rest_harness.h"

#define QDB "/queue/v1/databases"
#define ADMIN "admin-secret-for-queue-tests"

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
expect (guint status, const gchar *method, const gchar *path, const gchar *body,
        const gchar *needle)
{
  ab_expect_error (&srv, method, path, body, status, needle);
}

static void
create_database (const gchar *db)
{
  g_autofree gchar *body = g_strdup_printf ("{\"database\":\"%s\",\"comment\":\"queue e2e\"}", db);
  g_autoptr (JsonNode) n = ok ("POST", "/graph/v3/databases", body);
}

/* QueueE2ESupport's body: orderBy (long, non-null) and payload (string). */
static gchar *
queue_body (const gchar *db, const gchar *queue, gint partitions, const gchar *order_by)
{
  return g_strdup_printf (
      "{\"queue\":\"%s\",\"storage\":\"datastore://%s_ns/%s\",\"partitionCount\":%d,"
      "\"orderBy\":\"%s\",\"properties\":["
      "{\"name\":\"%s\",\"type\":\"long\",\"nullable\":false,\"comment\":\"order\"},"
      "{\"name\":\"payload\",\"type\":\"string\",\"nullable\":true,\"comment\":\"payload\"}],"
      "\"comment\":\"queue e2e\"}",
      queue, db, queue, partitions, order_by, order_by);
}

static void
create_queue (const gchar *db, const gchar *queue, gint partitions)
{
  g_autofree gchar *body = queue_body (db, queue, partitions, "seq");
  g_autofree gchar *path = g_strdup_printf (QDB "/%s/queues", db);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
  ck_assert_int_eq (ab_json_int (n, "partitionCount"), partitions);
}

static JsonNode *
enqueue (const gchar *db, const gchar *queue, const gchar *messages)
{
  g_autofree gchar *path = g_strdup_printf (QDB "/%s/queues/%s/messages", db, queue);
  g_autofree gchar *body = g_strdup_printf ("{\"messages\":%s}", messages);
  return ok ("POST", path, body);
}

static JsonNode *
poll (const gchar *db, const gchar *queue, const gchar *shard, gint limit, const gchar *cursor)
{
  g_autofree gchar *path
      = g_strdup_printf (QDB "/%s/queues/%s/poll?shard=%s&limit=%d%s%s", db, queue, shard, limit,
                         cursor != NULL ? "&cursor=" : "", cursor != NULL ? cursor : "");
  return ok ("GET", path, NULL);
}

/* The ids of a poll answer, comma-joined. */
static gchar *
ids_of (JsonNode *page)
{
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < ab_json_len (page, "messages"); i++)
    {
      g_autofree gchar *p = g_strdup_printf ("messages.%u.id", i);
      g_string_append_printf (s, "%s%s", i > 0 ? "," : "", ab_json_str (page, p));
    }
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- QueueAdminE2ETest ---- */

START_TEST (create_then_get_then_delete)
{
  create_database ("queue_admin_db");
  g_autofree gchar *body = queue_body ("queue_admin_db", "orders", 12, "seq");
  g_autoptr (JsonNode) c = ok ("POST", QDB "/queue_admin_db/queues", body);
  ck_assert_str_eq (ab_json_str (c, "database"), "queue_admin_db");
  ck_assert_str_eq (ab_json_str (c, "queue"), "orders");
  ck_assert_int_eq (ab_json_int (c, "partitionCount"), 12);
  ck_assert_str_eq (ab_json_str (c, "orderBy"), "seq");
  ck_assert_str_eq (ab_json_str (c, "storage"), "datastore://queue_admin_db_ns/orders");
  g_autoptr (JsonNode) g = ok ("GET", QDB "/queue_admin_db/queues/orders", NULL);
  ck_assert_int_eq (ab_json_int (g, "partitionCount"), 12);
  ck_assert_str_eq (ab_json_str (g, "orderBy"), "seq");
  /* the backing table: immutable, partition -> message id, index "order" */
  g_autoptr (JsonNode) t = ok ("GET", "/graph/v3/databases/queue_admin_db/tables/orders", NULL);
  ck_assert_str_eq (ab_json_str (t, "comment"),
                    "queue/v1 {\"partitionCount\":12,\"orderBy\":\"seq\"}");
  ck_assert_str_eq (ab_json_str (t, "mode"), "SYNC");
  ck_assert_str_eq (ab_json_str (t, "schema.source.type"), "long");
  ck_assert_str_eq (ab_json_str (t, "schema.target.type"), "string");
  ck_assert_str_eq (ab_json_str (t, "schema.direction"), "OUT");
  ck_assert_uint_eq (ab_json_len (t, "schema.properties"), 2);
  ck_assert (!ab_json_bool (t, "schema.properties.0.nullable"));
  ck_assert_str_eq (ab_json_str (t, "schema.indexes.0.index"), "order");
  ck_assert_str_eq (ab_json_str (t, "schema.indexes.0.fields.0.field"), "seq");
  ck_assert_str_eq (ab_json_str (t, "schema.indexes.0.fields.0.order"), "ASC");
  AbReply r = { 0 };
  ab_http (&srv, &r, "DELETE", NULL, QDB "/queue_admin_db/queues/orders");
  ck_assert_uint_eq (r.status, 204);
  ck_assert_ptr_null (r.json);
  ab_reply_clear (&r);
  expect (404, "GET", QDB "/queue_admin_db/queues/orders", NULL,
          "No such queue queue_admin_db.orders.");
  ab_http (&srv, &r, "GET", NULL, "/graph/v3/databases/queue_admin_db/tables/orders");
  ck_assert_uint_eq (r.status, 404);
  ab_reply_clear (&r);
}
END_TEST

START_TEST (undeclared_order_by_is_rejected)
{
  create_database ("queue_admin_db");
  /* orderBy names no declared property */
  const gchar *missing = ("{\"queue\":\"bad\",\"storage\":\"datastore://ns/bad\","
                          "\"partitionCount\":12,\"orderBy\":\"missing\",\"properties\":["
                          "{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false},"
                          "{\"name\":\"payload\",\"type\":\"string\"}]}");
  expect (400, "POST", QDB "/queue_admin_db/queues", missing,
          "orderBy `missing` must name one of the declared properties [seq, payload]");
  expect (404, "GET", QDB "/queue_admin_db/queues/bad", NULL, "No such queue");
}
END_TEST

START_TEST (non_long_order_by_is_rejected)
{
  create_database ("queue_admin_db");
  expect (400, "POST", QDB "/queue_admin_db/queues",
          "{\"queue\":\"bad\",\"storage\":\"datastore://ns/bad\",\"partitionCount\":12,"
          "\"orderBy\":\"payload\",\"properties\":[{\"name\":\"payload\",\"type\":\"string\","
          "\"nullable\":false}]}",
          "orderBy field `payload` must be LONG, got STRING");
}
END_TEST

/* ---- the other create rules ---- */

START_TEST (create_rules)
{
  create_database ("qdb");
  const gchar *P = QDB "/qdb/queues";
  expect (400, "POST", P,
          "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\",\"partitionCount\":0,"
          "\"properties\":[{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false}]}",
          "partitionCount must be positive, got 0");
  expect (400, "POST", P,
          "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\",\"partitionCount\":10001,"
          "\"properties\":[{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false}]}",
          "partitionCount must be at most 10000, got 10001");
  expect (400, "POST", P,
          "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\",\"properties\":["
          "{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false},"
          "{\"name\":\"ts\",\"type\":\"long\"}]}",
          "property `ts` collides with a reserved field name [ts, src, tgt]");
  expect (400, "POST", P,
          "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\",\"properties\":["
          "{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false},"
          "{\"name\":\"source\",\"type\":\"long\"}]}",
          "property `source` collides with a system field name [version, source, target]");
  /* the default orderBy is "seq", which must be declared too */
  expect (400, "POST", P, "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\"}",
          "orderBy `seq` must name one of the declared properties []");
  /* nullable defaults to true */
  expect (400, "POST", P,
          "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\",\"properties\":["
          "{\"name\":\"seq\",\"type\":\"long\"}]}",
          "orderBy field `seq` must be non-nullable");
  expect (400, "POST", P,
          "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\",\"properties\":["
          "{\"name\":\"seq\",\"type\":\"longer\",\"nullable\":false}]}",
          "Unknown type 'longer' at 'properties[0].type'");
  expect (400, "POST", P, "{\"storage\":\"datastore://ns/q\"}", "queue");
  expect (400, "POST", P, "{\"queue\":\"q\"}", "storage");
  expect (400, "POST", P,
          "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\",\"partitionCount\":\"4\"}",
          "partitionCount");
  expect (400, "POST", P, "{\"queue\":\"9q\",\"storage\":\"datastore://ns/q\"}", "queue name");
  expect (400, "POST", P, "[]", "JSON object");
  /* the database must exist */
  g_autofree gchar *body = queue_body ("nodb", "q", 4, "seq");
  expect (400, "POST", QDB "/nodb/queues", body, "nodb");
  /* a name is taken once */
  create_queue ("qdb", "q", 4);
  g_autofree gchar *again = queue_body ("qdb", "q", 4, "seq");
  expect (400, "POST", P, again, "already exists");
  /* any orderBy name that is a declared LONG works; partitionCount defaults to 480 */
  g_autoptr (JsonNode) n
      = ok ("POST", P,
            "{\"queue\":\"r\",\"storage\":\"datastore://ns/r\",\"orderBy\":\"at\","
            "\"properties\":[{\"name\":\"at\",\"type\":\"LONG\",\"nullable\":false}]}");
  ck_assert_int_eq (ab_json_int (n, "partitionCount"), 480);
  ck_assert_str_eq (ab_json_str (n, "orderBy"), "at");
}
END_TEST

/* A table that is not such a queue: 400 on every route; no table: 404. */
START_TEST (not_a_queue_and_unknown)
{
  create_database ("qdb");
  g_autoptr (JsonNode) t
      = ok ("POST", "/graph/v3/databases/qdb/tables",
            "{\"table\":\"plain\",\"storage\":\"datastore://ns/plain\",\"comment\":\"c\","
            "\"mode\":\"SYNC\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\","
            "\"comment\":\"\"},\"target\":{\"type\":\"string\",\"comment\":\"\"},"
            "\"direction\":\"OUT\",\"properties\":[],\"indexes\":[]}}");
  const gchar *msg = "`qdb.plain` is not a queue/v1 table";
  expect (400, "GET", QDB "/qdb/queues/plain", NULL, msg);
  expect (400, "DELETE", QDB "/qdb/queues/plain", NULL, msg);
  expect (400, "POST", QDB "/qdb/queues/plain/messages", "{\"messages\":[]}", msg);
  expect (400, "GET", QDB "/qdb/queues/plain/poll", NULL, msg);
  /* the table is still there */
  g_autoptr (JsonNode) still = ok ("GET", "/graph/v3/databases/qdb/tables/plain", NULL);
  /* a queue of the namespaces form is not one of this form, nor the reverse */
  g_autoptr (JsonNode) nsq
      = ok ("POST", "/queue/v1/namespaces/qdb/queues",
            "{\"queue\":\"jobs\",\"storage\":\"datastore://ns/jobs\",\"partitions\":4}");
  expect (400, "GET", QDB "/qdb/queues/jobs", NULL, "`qdb.jobs` is not a queue/v1 table");
  create_queue ("qdb", "q", 4);
  expect (404, "GET", "/queue/v1/namespaces/qdb/queues/q", NULL, "No such queue");
  expect (404, "GET", QDB "/qdb/queues/nope", NULL, "No such queue qdb.nope.");
  expect (404, "DELETE", QDB "/qdb/queues/nope", NULL, "No such queue");
  expect (404, "POST", QDB "/qdb/queues/nope/messages", "{\"messages\":[]}", "No such queue");
  expect (404, "GET", QDB "/qdb/queues/nope/poll", NULL, "No such queue");
  expect (404, "GET", QDB "/nodb/queues/nope", NULL, "No such queue");
}
END_TEST

/* ---- enqueue ---- */

START_TEST (enqueue_appends_messages)
{
  create_database ("queue_enqueue_db");
  create_queue ("queue_enqueue_db", "events", 8);
  g_autoptr (JsonNode) n
      = enqueue ("queue_enqueue_db", "events",
                 "[{\"key\":\"user-1\",\"id\":\"m1\",\"payload\":{\"seq\":1000,\"payload\":\"a\"}},"
                 "{\"key\":\"user-1\",\"id\":\"m2\",\"payload\":{\"seq\":1001,\"payload\":\"b\"}},"
                 "{\"key\":\"user-2\",\"id\":\"m3\",\"payload\":{\"seq\":1002}}]");
  ck_assert_int_eq (ab_json_int (n, "accepted"), 3);
  ck_assert_uint_eq (ab_json_len (n, "results"), 3);
  ck_assert_str_eq (ab_json_str (n, "results.0.status"), "CREATED");
  ck_assert_str_eq (ab_json_str (n, "results.0.id"), "m1");
  ck_assert_str_eq (ab_json_str (n, "results.1.id"), "m2");
  ck_assert_str_eq (ab_json_str (n, "results.2.id"), "m3");
  /* one key, one partition */
  gint64 p = ab_json_int (n, "results.0.partition");
  ck_assert (p >= 0 && p < 8);
  ck_assert_int_eq (ab_json_int (n, "results.1.partition"), p);
  /* the message is an edge partition -> id of version seq, on the index "order" */
  g_autofree gchar *scan = g_strdup_printf (
      "/graph/v3/databases/queue_enqueue_db/tables/events/edges/scan/order?start=%" G_GINT64_FORMAT
      "&direction=OUT",
      p);
  g_autoptr (JsonNode) e = ok ("GET", scan, NULL);
  ck_assert_str_eq (ab_json_str (e, "edges.1.target"), "m2");
  ck_assert_int_eq (ab_json_int (e, "edges.1.version"), 1001);
  ck_assert_str_eq (ab_json_str (e, "edges.1.properties.payload"), "b");
  /* immutable tables write blind: the same message again is written again,
   * once however often one request names it */
  g_autoptr (JsonNode) again = enqueue (
      "queue_enqueue_db", "events",
      "[{\"key\":\"user-1\",\"id\":\"m1\",\"payload\":{\"seq\":1000,\"payload\":\"a\"}},"
      "{\"key\":\"user-1\",\"id\":\"m1\",\"payload\":{\"seq\":1000,\"payload\":\"a\"}}]");
  ck_assert_int_eq (ab_json_int (again, "accepted"), 1);
  ck_assert_uint_eq (ab_json_len (again, "results"), 1);
  ck_assert_str_eq (ab_json_str (again, "results.0.id"), "m1");
  g_autoptr (JsonNode) none = enqueue ("queue_enqueue_db", "events", "[]");
  ck_assert_int_eq (ab_json_int (none, "accepted"), 0);
  ck_assert_uint_eq (ab_json_len (none, "results"), 0);
  const gchar *M = QDB "/queue_enqueue_db/queues/events/messages";
  expect (400, "POST", M, "{\"messages\":[{\"key\":\"k\",\"id\":\"m9\",\"payload\":{}}]}",
          "message `m9` payload must carry a numeric `seq`");
  expect (400, "POST", M,
          "{\"messages\":[{\"key\":\"k\",\"id\":\"m9\",\"payload\":{\"seq\":\"5\"}}]}",
          "message `m9` payload must carry a numeric `seq`");
  expect (400, "POST", M,
          "{\"messages\":[{\"key\":\"k\",\"id\":\"m9\",\"payload\":{\"seq\":1.5}}]}",
          "message `m9` payload must carry a numeric `seq`");
  expect (400, "POST", M, "{\"messages\":[{\"key\":\"k\",\"id\":\"m9\"}]}",
          "message `m9` payload must carry a numeric `seq`");
  expect (400, "POST", M, "{\"messages\":[{\"id\":\"m9\",\"payload\":{\"seq\":1}}]}",
          "messages[0].key");
  expect (400, "POST", M, "{\"messages\":[{\"key\":\"k\",\"payload\":{\"seq\":1}}]}",
          "messages[0].id");
  expect (400, "POST", M, "{\"messages\":[{\"key\":\"k\",\"id\":\"m9\",\"payload\":[]}]}",
          "messages[0].payload");
  expect (400, "POST", M, "{\"messages\":7}", "'messages' must be an array.");
  /* nothing of a refused request was written */
  g_autoptr (JsonNode) all = poll ("queue_enqueue_db", "events", "0/1", 100, NULL);
  ck_assert_uint_eq (ab_json_len (all, "messages"), 3);
  /* a payload member the queue does not declare is dropped, as on any table */
  g_autoptr (JsonNode) extra
      = enqueue ("queue_enqueue_db", "events",
                 "[{\"key\":\"k\",\"id\":\"m4\",\"payload\":{\"seq\":1003,\"nope\":1}}]");
  ck_assert_int_eq (ab_json_int (extra, "accepted"), 1);
  g_autoptr (JsonNode) last = poll ("queue_enqueue_db", "events", "0/1", 100, NULL);
  ck_assert_uint_eq (ab_json_len (last, "messages"), 4);
  ck_assert_str_eq (ab_json_str (last, "messages.3.id"), "m4");
  ck_assert_ptr_null (ab_json_at (last, "messages.3.payload.nope"));
}
END_TEST

/* ---- QueuePollE2ETest ---- */

START_TEST (poll_ordered_then_drained)
{
  create_database ("queue_poll_db");
  create_queue ("queue_poll_db", "ordered", 4);
  g_autoptr (JsonNode) e
      = enqueue ("queue_poll_db", "ordered",
                 "[{\"key\":\"u\",\"id\":\"m3\",\"payload\":{\"seq\":1002,\"payload\":\"c\"}},"
                 "{\"key\":\"u\",\"id\":\"m1\",\"payload\":{\"seq\":1000,\"payload\":\"a\"}},"
                 "{\"key\":\"u\",\"id\":\"m2\",\"payload\":{\"seq\":1001,\"payload\":\"b\"}}]");
  g_autoptr (JsonNode) page = poll ("queue_poll_db", "ordered", "0/1", 10, NULL);
  g_autofree gchar *ids = ids_of (page);
  ck_assert_str_eq (ids, "m1,m2,m3");
  ck_assert_str_eq (ab_json_str (page, "messages.0.payload.payload"), "a");
  ck_assert_str_eq (ab_json_str (page, "messages.1.payload.payload"), "b");
  ck_assert_str_eq (ab_json_str (page, "messages.2.payload.payload"), "c");
  ck_assert_int_eq (ab_json_int (page, "messages.0.orderBy"), 1000);
  ck_assert_int_eq (ab_json_int (page, "messages.0.payload.seq"), 1000);
  ck_assert_int_eq (ab_json_int (page, "messages.0.partition"),
                    ab_json_int (e, "results.0.partition"));
  ck_assert (!ab_json_bool (page, "hasNext"));
  const gchar *cursor = ab_json_str (page, "cursor");
  ck_assert_ptr_nonnull (cursor);
  /* forward-only: the drained cursor reads nothing again */
  g_autoptr (JsonNode) drained = poll ("queue_poll_db", "ordered", "0/1", 10, cursor);
  ck_assert_uint_eq (ab_json_len (drained, "messages"), 0);
  ck_assert (!ab_json_bool (drained, "hasNext"));
  ck_assert_str_eq (ab_json_str (drained, "cursor"), cursor);
  /* a later message is read from there */
  g_autoptr (JsonNode) e2
      = enqueue ("queue_poll_db", "ordered",
                 "[{\"key\":\"u\",\"id\":\"m4\",\"payload\":{\"seq\":1003,\"payload\":\"d\"}}]");
  g_autoptr (JsonNode) more = poll ("queue_poll_db", "ordered", "0/1", 10, cursor);
  g_autofree gchar *more_ids = ids_of (more);
  ck_assert_str_eq (more_ids, "m4");
  /* an empty queue: no messages and no cursor */
  create_queue ("queue_poll_db", "empty", 4);
  g_autoptr (JsonNode) none = poll ("queue_poll_db", "empty", "0/1", 10, NULL);
  ck_assert_uint_eq (ab_json_len (none, "messages"), 0);
  ck_assert (ab_json_is_null (none, "cursor"));
  ck_assert (!ab_json_bool (none, "hasNext"));
  /* shard and limit default to 0/1 and 100 */
  g_autoptr (JsonNode) dflt = ok ("GET", QDB "/queue_poll_db/queues/ordered/poll", NULL);
  ck_assert_uint_eq (ab_json_len (dflt, "messages"), 4);
}
END_TEST

START_TEST (small_limit_paginates)
{
  create_database ("queue_poll_db");
  create_queue ("queue_poll_db", "paged", 4);
  g_autoptr (JsonNode) e
      = enqueue ("queue_poll_db", "paged",
                 "[{\"key\":\"u\",\"id\":\"m1\",\"payload\":{\"seq\":1,\"payload\":\"a\"}},"
                 "{\"key\":\"u\",\"id\":\"m2\",\"payload\":{\"seq\":2,\"payload\":\"b\"}},"
                 "{\"key\":\"u\",\"id\":\"m3\",\"payload\":{\"seq\":3,\"payload\":\"c\"}},"
                 "{\"key\":\"u\",\"id\":\"m4\",\"payload\":{\"seq\":4,\"payload\":\"d\"}}]");
  g_autoptr (JsonNode) first = poll ("queue_poll_db", "paged", "0/1", 2, NULL);
  g_autofree gchar *a = ids_of (first);
  ck_assert_str_eq (a, "m1,m2");
  ck_assert (ab_json_bool (first, "hasNext"));
  g_autoptr (JsonNode) second
      = poll ("queue_poll_db", "paged", "0/1", 2, ab_json_str (first, "cursor"));
  g_autofree gchar *b = ids_of (second);
  ck_assert_str_eq (b, "m3,m4");
  g_autoptr (JsonNode) third
      = poll ("queue_poll_db", "paged", "0/1", 2, ab_json_str (second, "cursor"));
  ck_assert_uint_eq (ab_json_len (third, "messages"), 0);
  ck_assert (!ab_json_bool (third, "hasNext"));
}
END_TEST

START_TEST (shards_do_not_overlap)
{
  create_database ("queue_poll_db");
  create_queue ("queue_poll_db", "sharded", 4);
  g_autoptr (GString) msgs = g_string_new ("[");
  for (guint i = 0; i < 12; i++)
    g_string_append_printf (
        msgs, "%s{\"key\":\"m%u\",\"id\":\"m%u\",\"payload\":{\"seq\":%u,\"payload\":\"m%u\"}}",
        i > 0 ? "," : "", i, i, i, i);
  g_string_append_c (msgs, ']');
  g_autoptr (JsonNode) e = enqueue ("queue_poll_db", "sharded", msgs->str);
  ck_assert_int_eq (ab_json_int (e, "accepted"), 12);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (gint k = 0; k < 2; k++)
    {
      g_autofree gchar *shard = g_strdup_printf ("%d/2", k);
      g_autoptr (JsonNode) page = poll ("queue_poll_db", "sharded", shard, 100, NULL);
      gint64 last = -1;
      for (guint i = 0; i < ab_json_len (page, "messages"); i++)
        {
          g_autofree gchar *ip = g_strdup_printf ("messages.%u.id", i);
          g_autofree gchar *pp = g_strdup_printf ("messages.%u.partition", i);
          g_autofree gchar *op = g_strdup_printf ("messages.%u.orderBy", i);
          ck_assert_int_eq (ab_json_int (page, pp) % 2, k);
          ck_assert_int_gt (ab_json_int (page, op), last); /* merged by orderBy */
          last = ab_json_int (page, op);
          ck_assert_msg (g_hash_table_add (seen, g_strdup (ab_json_str (page, ip))),
                         "%s read by both shards", ab_json_str (page, ip));
        }
    }
  ck_assert_uint_eq (g_hash_table_size (seen), 12);
}
END_TEST

START_TEST (poll_rejects_bad_parameters)
{
  create_database ("queue_poll_db");
  create_queue ("queue_poll_db", "limited", 4);
  const gchar *P = QDB "/queue_poll_db/queues/limited/poll";
  g_autofree gchar *p0 = g_strdup_printf ("%s?shard=0/1&limit=0", P);
  expect (400, "GET", p0, NULL, "limit must be in 1..1000, got 0");
  g_autofree gchar *p1 = g_strdup_printf ("%s?limit=1001", P);
  expect (400, "GET", p1, NULL, "limit must be in 1..1000, got 1001");
  g_autofree gchar *p2 = g_strdup_printf ("%s?limit=ten", P);
  expect (400, "GET", p2, NULL, "'limit' must be an integer.");
  g_autofree gchar *s0 = g_strdup_printf ("%s?shard=1", P);
  expect (400, "GET", s0, NULL, "shard must be formatted as `index/count`, got `1`");
  g_autofree gchar *s1 = g_strdup_printf ("%s?shard=a/2", P);
  expect (400, "GET", s1, NULL, "shard index must be an integer, got `a`");
  g_autofree gchar *s2 = g_strdup_printf ("%s?shard=0/b", P);
  expect (400, "GET", s2, NULL, "shard count must be an integer, got `b`");
  g_autofree gchar *s3 = g_strdup_printf ("%s?shard=0/0", P);
  expect (400, "GET", s3, NULL, "shard count must be positive, got 0");
  g_autofree gchar *s4 = g_strdup_printf ("%s?shard=2/2", P);
  expect (400, "GET", s4, NULL, "shard index must be in [0, 2), got 2");
  g_autofree gchar *c0 = g_strdup_printf ("%s?cursor=not*base64", P);
  expect (400, "GET", c0, NULL, "is not a queue/v1 poll cursor");
  g_autofree gchar *c1 = g_strdup_printf ("%s?cursor=AQAAAA", P); /* count 0, one byte short */
  expect (400, "GET", c1, NULL, "is not a queue/v1 poll cursor");
  g_autofree gchar *c2 = g_strdup_printf ("%s?cursor=AgAAAAA", P);
  expect (400, "GET", c2, NULL, "unsupported queue cursor version: 2");
  /* version 1 with no position is a valid (empty) cursor */
  g_autofree gchar *c3 = g_strdup_printf ("%s?cursor=AQAAAAA", P);
  g_autoptr (JsonNode) n = ok ("GET", c3, NULL);
  ck_assert (ab_json_is_null (n, "cursor"));
}
END_TEST

/* ---- access control and read-only mode ---- */

static guint
as (const gchar *key, const gchar *method, const gchar *path, const gchar *body)
{
  AbReply r = { 0 };
  g_autofree gchar *bearer = g_strdup_printf ("Bearer %s", key);
  const gchar *const hdr[] = { "Authorization", bearer, NULL };
  g_autoptr (GBytes) b = body != NULL ? g_bytes_new (body, strlen (body)) : NULL;
  ab_http_raw (&srv, &r, method, b, path, hdr);
  guint status = r.status;
  ab_reply_clear (&r);
  return status;
}

static gchar *
make_key (const gchar *grants)
{
  AbReply r = { 0 };
  g_autofree gchar *body = g_strdup_printf ("{\"name\":\"k\",\"grants\":%s}", grants);
  g_autofree gchar *bearer = g_strdup_printf ("Bearer %s", ADMIN);
  const gchar *const hdr[] = { "Authorization", bearer, NULL };
  g_autoptr (GBytes) b = g_bytes_new (body, strlen (body));
  ab_http_raw (&srv, &r, "POST", b, "/admin/v1/keys", hdr);
  ck_assert_uint_eq (r.status, 200);
  gchar *key = g_strdup (ab_json_str (r.json, "key"));
  ab_reply_clear (&r);
  return key;
}

START_TEST (grants_and_read_only)
{
  ab_server_stop (&srv);
  static const gchar *const auth[] = { "--auth", NULL };
  g_setenv ("ACTIONBASE_ADMIN_KEY", ADMIN, TRUE);
  ab_server_restart (&srv, auth);
  g_unsetenv ("ACTIONBASE_ADMIN_KEY");
  ck_assert_uint_eq (
      as (ADMIN, "POST", "/graph/v3/databases", "{\"database\":\"q\",\"comment\":\"\"}"), 200);
  g_autofree gchar *body = queue_body ("q", "jobs", 4, "seq");
  const gchar *msg = "{\"messages\":[{\"key\":\"k\",\"id\":\"m1\",\"payload\":{\"seq\":1}}]}";
  /* metadata: c on the database; messages: w to enqueue, r to poll, on q.jobs */
  g_autofree gchar *reader = make_key ("[{\"scope\":\"q.jobs\",\"permissions\":\"r\"}]");
  g_autofree gchar *writer = make_key ("[{\"scope\":\"q.jobs\",\"permissions\":\"w\"}]");
  g_autofree gchar *control = make_key ("[{\"scope\":\"q\",\"permissions\":\"c\"}]");
  g_autofree gchar *other = make_key ("[{\"scope\":\"other\",\"permissions\":\"rwc\"}]");
  ck_assert_uint_eq (as (reader, "POST", QDB "/q/queues", body), 403);
  ck_assert_uint_eq (as (other, "POST", QDB "/q/queues", body), 403);
  ck_assert_uint_eq (as (control, "POST", QDB "/q/queues", body), 200);
  ck_assert_uint_eq (as (control, "GET", QDB "/q/queues/jobs", NULL), 200);
  ck_assert_uint_eq (as (reader, "POST", QDB "/q/queues/jobs/messages", msg), 403);
  ck_assert_uint_eq (as (writer, "POST", QDB "/q/queues/jobs/messages", msg), 200);
  ck_assert_uint_eq (as (writer, "GET", QDB "/q/queues/jobs/poll", NULL), 403);
  ck_assert_uint_eq (as (reader, "GET", QDB "/q/queues/jobs/poll", NULL), 200);
  ck_assert_uint_eq (as (other, "GET", QDB "/q/queues/jobs/poll", NULL), 403);
  ck_assert_uint_eq (as (writer, "DELETE", QDB "/q/queues/jobs", NULL), 403);
  /* read-only: polling still answers, every write is refused */
  ab_server_stop (&srv);
  static const gchar *const ro[] = { "--read-only", NULL };
  ab_server_restart (&srv, ro);
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, QDB "/q/queues/jobs/poll");
  ck_assert_uint_ne (r.status, 403); /* 404 on the memory store, which restarts empty */
  ab_reply_clear (&r);
  expect (403, "POST", QDB "/q/queues/jobs/messages", msg, "read-only");
  expect (403, "POST", QDB "/q/queues", body, "read-only");
  expect (403, "DELETE", QDB "/q/queues/jobs", NULL, "read-only");
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, create_then_get_then_delete);
  tcase_add_test (tc, undeclared_order_by_is_rejected);
  tcase_add_test (tc, non_long_order_by_is_rejected);
  tcase_add_test (tc, create_rules);
  tcase_add_test (tc, not_a_queue_and_unknown);
  tcase_add_test (tc, enqueue_appends_messages);
  tcase_add_test (tc, poll_ordered_then_drained);
  tcase_add_test (tc, small_limit_paginates);
  tcase_add_test (tc, shards_do_not_overlap);
  tcase_add_test (tc, poll_rejects_bad_parameters);
  tcase_add_test (tc, grants_and_read_only);
}

int
main (void)
{
  return ab_rest_main_stores ("queue_db", add_tests, setup, teardown, 120);
}
