/* REST suite for multi-edge tables (the upstream gift example), immutable
 * tables with scan-delete (scenarios 19 and 35) and queue/v1 (scenario 34,
 * the paged consumer life cycle, concurrent consumers). */
#include <string.h>
#include "rest_harness.h"
#include "ab_check.h"

#define DB "/graph/v3/databases"
#define QNS "/queue/v1/namespaces/ns/queues"

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

static guint
status_of (const gchar *method, const gchar *path, const gchar *body)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, method, body, "%s", path);
  guint s = r.status;
  if (s >= 400)
    ab_assert_error_reply (&r, s);
  ab_reply_clear (&r);
  return s;
}

static gint64
count_of (const gchar *table, const gchar *start, const gchar *dir)
{
  g_autofree gchar *path
      = g_strdup_printf (DB "/shop/tables/%s/edges/count?start=%s&direction=%s", table, start, dir);
  g_autoptr (JsonNode) n = ok ("GET", path, NULL);
  return ab_json_int (n, "count");
}

static const gchar *ORDERS
    = "{\"table\":\"order_v1\",\"storage\":\"datastore://shop/order_v1\",\"comment\":\"gifts\","
      "\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"string\",\"comment\":\"order\"},"
      "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":\"string\","
      "\"comment\":\"\"},"
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"direction\":\"BOTH\",\"indexes\":[{\"index\":\"created_at_desc\",\"fields\":[{\"field\":"
      "\"created_at\",\"order\":\"DESC\"}]}]}}";

static void
gift (const gchar *type, gint v, const gchar *id, const gchar *src, const gchar *tgt)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%d,\"id\":\"%s\"%s%s%s%s%s,"
      "\"properties\":{\"created_at\":%d}}}]}",
      type, v, id, src ? ",\"source\":\"" : "", src ? src : "", src ? "\"" : "",
      tgt ? ",\"target\":\"" : "", tgt ? tgt : "\"", v);
  if (tgt)
    {
      g_free (body);
      body = g_strdup_printf (
          "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%d,\"id\":\"%s\","
          "\"source\":\"%s\",\"target\":\"%s\",\"properties\":{\"created_at\":%d}}}]}",
          type, v, id, src, tgt, v);
    }
  else
    {
      g_free (body);
      body = g_strdup_printf (
          "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%d,\"id\":\"%s\","
          "\"properties\":{}}}]}",
          type, v, id);
    }
  g_autoptr (JsonNode) n = ok ("POST", DB "/shop/tables/order_v1/multi-edges", body);
  ck_assert_str_eq (ab_json_str (n, "results.0.id"), id);
  ck_assert_str_ne (ab_json_str (n, "results.0.status"), "ERROR");
}

START_TEST (multi_edge_gift_example)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"shop\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t = ok ("POST", DB "/shop/tables", ORDERS);
  ck_assert_str_eq (ab_json_str (t, "type"), "multiEdge");
  gift ("INSERT", 1, "ORD_1000", "A", "B");
  ck_assert_int_eq (count_of ("order_v1", "A", "OUT"), 1);
  ck_assert_int_eq (count_of ("order_v1", "C", "IN"), 0);
  gift ("INSERT", 2, "ORD_2000", "A", "C");
  ck_assert_int_eq (count_of ("order_v1", "A", "OUT"), 2);
  ck_assert_int_eq (count_of ("order_v1", "C", "IN"), 1);
  gift ("DELETE", 3, "ORD_2000", NULL, NULL);
  ck_assert_int_eq (count_of ("order_v1", "A", "OUT"), 1);
  ck_assert_int_eq (count_of ("order_v1", "C", "IN"), 0);
  gift ("INSERT", 4, "ORD_2000", "A", "C");
  ck_assert_int_eq (count_of ("order_v1", "A", "OUT"), 2);
  ck_assert_int_eq (count_of ("order_v1", "C", "IN"), 1);
  ck_assert_int_eq (count_of ("order_v1", "B", "IN"), 1);
  /* scans on a multi-edge index return the id as target, newest first */
  g_autoptr (JsonNode) s = ok (
      "GET", DB "/shop/tables/order_v1/edges/scan/created_at_desc?start=A&direction=OUT", NULL);
  ck_assert_uint_eq (ab_json_len (s, "edges"), 2);
  ck_assert_str_eq (ab_json_str (s, "edges.0.target"), "ORD_2000");
  ck_assert_str_eq (ab_json_str (s, "edges.1.target"), "ORD_1000");
  g_autoptr (JsonNode) ids
      = ok ("GET", DB "/shop/tables/order_v1/multi-edges/ids?ids=ORD_1000,ORD_2000,ORD_9", NULL);
  ck_assert_uint_eq (ab_json_len (ids, "edges"), 2);
  ck_assert_str_eq (ab_json_str (ids, "edges.0.source"), "ORD_1000");
  ck_assert_int_eq (ab_json_int (ids, "edges.1.properties.created_at"), 4);
  /* moving an order to another receiver moves the counts */
  gift ("UPDATE", 5, "ORD_1000", "A", "D");
  ck_assert_int_eq (count_of ("order_v1", "B", "IN"), 0);
  ck_assert_int_eq (count_of ("order_v1", "D", "IN"), 1);
  ck_assert_int_eq (count_of ("order_v1", "A", "OUT"), 2);
  /* wrong endpoint kinds are refused */
  ck_assert_uint_eq (status_of ("POST", DB "/shop/tables/order_v1/edges",
                                "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,"
                                "\"source\":\"a\",\"target\":\"b\"}}]}"),
                     400);
  ck_assert_uint_eq (
      status_of ("GET",
                 DB "/shop/tables/order_v1/multi-edges/"
                    "ids?ids=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26",
                 NULL),
      400);
}
END_TEST

static const gchar *EVENTS
    = "{\"table\":\"events\",\"storage\":\"datastore://shop/events\",\"comment\":\"log\","
      "\"schema\":{\"type\":\"IMMUTABLE_EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"seq_asc\",\"fields\":[{\"field\":\"seq\",\"order\":\"ASC\"}]}]}}";

static void
event (const gchar *type, gint partition, gint seq)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%d,\"source\":%d,\"target\":\"m%d\","
      "\"properties\":{\"seq\":%d}}}]}",
      type, seq, partition, seq, seq);
  g_autoptr (JsonNode) n = ok ("POST", DB "/shop/tables/events/edges", body);
  ck_assert_str_eq (ab_json_str (n, "results.0.status"), "CREATED");
}

START_TEST (immutable_and_scan_delete)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"shop\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t = ok ("POST", DB "/shop/tables", EVENTS);
  for (gint s = 1000; s <= 1002; s++)
    event ("INSERT", 1, s);
  for (gint s = 2000; s <= 2002; s++)
    event ("INSERT", 2, s);
  g_autoptr (JsonNode) p1
      = ok ("GET", DB "/shop/tables/events/edges/scan/seq_asc?start=1&direction=OUT", NULL);
  ck_assert_uint_eq (ab_json_len (p1, "edges"), 3);
  ck_assert_int_eq (ab_json_int (p1, "edges.0.properties.seq"), 1000);
  ck_assert_int_eq (ab_json_int (p1, "edges.2.properties.seq"), 1002);
  g_autoptr (JsonNode) del = ok (
      "DELETE",
      DB
      "/shop/tables/events/edges/scan/seq_asc?start=2&direction=OUT&limit=100&ranges=seq:lte:2001",
      NULL);
  ck_assert_int_eq (ab_json_int (del, "deleted"), 2);
  ck_assert_str_eq (ab_json_str (del, "index"), "seq_asc");
  ck_assert_str_eq (ab_json_str (del, "table"), "events");
  g_autoptr (JsonNode) p2
      = ok ("GET", DB "/shop/tables/events/edges/scan/seq_asc?start=2&direction=OUT", NULL);
  ck_assert_uint_eq (ab_json_len (p2, "edges"), 1);
  ck_assert_int_eq (ab_json_int (p2, "edges.0.properties.seq"), 2002);
  ck_assert_uint_eq (
      status_of ("DELETE",
                 DB "/shop/tables/events/edges/scan/seq_asc?start=2&direction=OUT&limit=1001",
                 NULL),
      400);
  ck_assert_uint_eq (
      status_of ("DELETE", DB "/shop/tables/events/edges/scan/seq_asc?start=2&direction=OUT", NULL),
      400);
  ck_assert_uint_eq (
      status_of ("GET", DB "/shop/tables/events/edges/get?source=1&target=m1000", NULL), 400);
  ck_assert_uint_eq (
      status_of ("GET", DB "/shop/tables/events/edges/count?start=1&direction=OUT", NULL), 400);
  ck_assert_uint_eq (status_of ("POST", DB "/shop/tables/events/edges",
                                "{\"mutations\":[{\"type\":\"UPDATE\",\"edge\":{\"version\":1,"
                                "\"source\":1,\"target\":\"m1000\",\"properties\":{\"seq\":1}}}]}"),
                     400);
  ck_assert_uint_eq (status_of ("POST", DB "/shop/tables/events/edges",
                                "{\"mutations\":[{\"type\":\"DELETE\",\"edge\":{\"version\":1,"
                                "\"source\":1,\"target\":\"m1000\"}}]}"),
                     400);
  /* create rules: two indexes or BOTH are refused */
  g_autofree gchar *two = g_strdup (EVENTS);
  gchar *both = strstr (two, "\"OUT\"");
  memcpy (both, "\"IN\" ", 5);
  g_autofree gchar *dir_both
      = g_strdup_printf ("%.*s\"BOTH\"%s", (int) (strstr (EVENTS, "\"OUT\"") - EVENTS), EVENTS,
                         strstr (EVENTS, "\"OUT\"") + 5);
  gchar *name = strstr (dir_both, "events\",\"storage");
  memcpy (name, "evboth", 6);
  ck_assert_uint_eq (status_of ("POST", DB "/shop/tables", dir_both), 400);
  /* scan-delete on a mutable table */
  ck_assert_uint_eq (status_of ("POST", DB "/shop/tables",
                                "{\"table\":\"m\",\"storage\":\"datastore://shop/"
                                "m\",\"comment\":\"c\",\"schema\":{\"type\":\"EDGE\","
                                "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{"
                                "\"type\":\"string\",\"comment\":\"\"},"
                                "\"direction\":\"OUT\",\"properties\":[],\"indexes\":[{\"index\":"
                                "\"v\",\"fields\":[{\"field\":\"version\",\"order\":\"ASC\"}]}]}}"),
                     200);
  ck_assert_uint_eq (
      status_of ("DELETE", DB "/shop/tables/m/edges/scan/v?start=a&direction=OUT&limit=10", NULL),
      400);
}
END_TEST

START_TEST (queue_scenario)
{
  g_autoptr (JsonNode) q = ok ("POST", QNS, "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\"}");
  ck_assert_int_eq (ab_json_int (q, "partitions"), 30);
  ck_assert_str_eq (ab_json_str (q, "namespace"), "ns");
  g_autoptr (JsonNode) e
      = ok ("POST", QNS "/q/messages",
            "{\"messages\":[{\"key\":\"user1\",\"seq\":1000,\"value\":{\"body\":\"hello\"}},"
            "{\"key\":\"user1\",\"seq\":1001,\"value\":{\"body\":\"world\"}}]}");
  ck_assert_int_eq (ab_json_int (e, "accepted"), 2);
  ck_assert_int_eq (ab_json_int (e, "results.0.partition"), 25); /* floorMod(xxh32("user1"), 30) */
  ck_assert_int_eq (ab_json_int (e, "results.1.partition"), 25);
  ck_assert_str_eq (ab_json_str (e, "results.0.status"), "CREATED");
  ck_assert_int_eq (strlen (ab_json_str (e, "results.0.id")), 26);
  ck_assert_str_ne (ab_json_str (e, "results.0.id"), ab_json_str (e, "results.1.id"));
  ck_assert_int_lt (strcmp (ab_json_str (e, "results.0.id"), ab_json_str (e, "results.1.id")), 0);
  g_autoptr (JsonNode) p = ok ("GET", QNS "/q/partitions/25/poll?offset=1000", NULL);
  ck_assert_uint_eq (ab_json_len (p, "messages"), 1);
  ck_assert_int_eq (ab_json_int (p, "messages.0.seq"), 1001);
  ck_assert_str_eq (ab_json_str (p, "messages.0.value.body"), "world");
  ck_assert_int_eq (ab_json_int (p, "offset"), 1001);
  ck_assert (!ab_json_bool (p, "hasNext"));
  g_autoptr (JsonNode) c = ok ("DELETE", QNS "/q/partitions/25/messages?offset=1001", NULL);
  ck_assert_int_eq (ab_json_int (c, "committed"), 2);
  g_autoptr (JsonNode) p2 = ok ("GET", QNS "/q/partitions/25/poll", NULL);
  ck_assert_uint_eq (ab_json_len (p2, "messages"), 0);
  ck_assert (!ab_json_bool (p2, "hasNext"));
  ck_assert (ab_json_is_null (p2, "offset"));
  ck_assert_uint_eq (status_of ("GET", QNS "/q/partitions/25/poll?limit=1001", NULL), 400);
  ck_assert_uint_eq (status_of ("GET", QNS "/q/partitions/30/poll", NULL), 400);
  ck_assert_uint_eq (status_of ("GET", QNS "/nope", NULL), 404);
  g_autoptr (JsonNode) parts = ok ("GET", QNS "/q/partitions", NULL);
  ck_assert_int_eq (ab_json_int (parts, "partitions"), 30);
  ck_assert_uint_eq (status_of ("DELETE", QNS "/q", NULL), 409);
  g_autoptr (JsonNode) dis = ok ("PUT", QNS "/q/disable", NULL);
  ck_assert_uint_eq (status_of ("POST", QNS "/q/messages", "{\"messages\":[]}"), 409);
  ck_assert_uint_eq (status_of ("DELETE", QNS "/q", NULL), 204);
  ck_assert_uint_eq (status_of ("GET", QNS "/q", NULL), 404);
  ck_assert_uint_eq (
      status_of ("POST", QNS,
                 "{\"queue\":\"z\",\"storage\":\"datastore://ns/z\",\"partitions\":0}"),
      400);
  /* names are values, never JSON text (Schemathesis found a 500 and an
   * injected member), and a refused queue leaves no namespace behind */
  ck_assert_uint_eq (status_of ("POST", "/queue/v1/namespaces/fresh/queues",
                                "{\"queue\":\"a\\\"b\",\"storage\":\"datastore://fresh/q\"}"),
                     400);
  AbReply none = { 0 }; /* a missing v3 database: 404 without a body */
  ab_http (&srv, &none, "GET", NULL, "/graph/v3/databases/fresh");
  ck_assert_uint_eq (none.status, 404);
  ab_reply_clear (&none);
  ck_assert_uint_eq (
      status_of ("POST", QNS,
                 "{\"queue\":\"odd\",\"storage\":\"datastore://ns/o\\\",\\\"mode\\\":\\\"ASYNC\"}"),
      400);
  ck_assert_uint_eq (status_of ("GET", QNS "/odd", NULL), 404);
}
END_TEST

/* 10 keys x 100 messages with shuffled seqs; a consumer per partition pages
 * by 7 and commits after each page; every message is read once in order. */
typedef struct {
  gint64 partition;
  GHashTable *seen; /* seq -> count */
  gint64 last;
  gboolean ordered;
} Consumer;

static gpointer
consume (gpointer data)
{
  Consumer *c = data;
  gint64 offset = -1;
  for (;;)
    {
      g_autofree gchar *path
          = offset < 0 ? g_strdup_printf (QNS "/life/partitions/%" G_GINT64_FORMAT "/poll?limit=7",
                                          c->partition)
                       : g_strdup_printf (QNS "/life/partitions/%" G_GINT64_FORMAT
                                              "/poll?limit=7&offset=%" G_GINT64_FORMAT,
                                          c->partition, offset);
      g_autoptr (JsonNode) p = ok ("GET", path, NULL);
      guint n = ab_json_len (p, "messages");
      for (guint i = 0; i < n; i++)
        {
          g_autofree gchar *sp = g_strdup_printf ("messages.%u.seq", i);
          gint64 seq = ab_json_int (p, sp);
          c->ordered &= seq > c->last;
          c->last = seq;
          g_hash_table_insert (c->seen, GINT_TO_POINTER ((gint) seq),
                               GINT_TO_POINTER (GPOINTER_TO_INT (g_hash_table_lookup (
                                                    c->seen, GINT_TO_POINTER ((gint) seq)))
                                                + 1));
        }
      if (n == 0)
        break;
      offset = ab_json_int (p, "offset");
      g_autofree gchar *cp = g_strdup_printf (QNS "/life/partitions/%" G_GINT64_FORMAT
                                                  "/messages?offset=%" G_GINT64_FORMAT,
                                              c->partition, offset);
      g_autoptr (JsonNode) cm = ok ("DELETE", cp, NULL);
      ck_assert_int_eq (ab_json_int (cm, "committed"), n);
    }
  return NULL;
}

START_TEST (queue_life_cycle)
{
  g_autoptr (JsonNode) q = ok (
      "POST", QNS, "{\"queue\":\"life\",\"storage\":\"datastore://ns/life\",\"partitions\":4}");
  GRand *rand = g_rand_new_with_seed (7);
  gint seqs[1000];
  for (gint i = 0; i < 1000; i++)
    seqs[i] = i + 1;
  for (gint i = 999; i > 0; i--)
    {
      gint j = g_rand_int_range (rand, 0, i + 1), tmp = seqs[i];
      seqs[i] = seqs[j];
      seqs[j] = tmp;
    }
  g_rand_free (rand);
  GHashTable *expected = g_hash_table_new (NULL, NULL); /* seq -> partition + 1 */
  for (gint batch = 0; batch < 10; batch++)
    {
      GString *body = g_string_new ("{\"messages\":[");
      for (gint i = 0; i < 100; i++)
        g_string_append_printf (body, "%s{\"key\":\"key%d\",\"seq\":%d,\"value\":%d}", i ? "," : "",
                                i % 10, seqs[batch * 100 + i], seqs[batch * 100 + i]);
      g_string_append (body, "]}");
      g_autoptr (JsonNode) e = ok ("POST", QNS "/life/messages", body->str);
      g_string_free (body, TRUE);
      ck_assert_int_eq (ab_json_int (e, "accepted"), 100);
      for (gint i = 0; i < 100; i++)
        {
          g_autofree gchar *pp = g_strdup_printf ("results.%d.partition", i);
          g_hash_table_insert (expected, GINT_TO_POINTER (seqs[batch * 100 + i]),
                               GINT_TO_POINTER ((gint) ab_json_int (e, pp) + 1));
        }
    }
  Consumer cs[4];
  GThread *th[4];
  for (gint p = 0; p < 4; p++)
    {
      cs[p] = (Consumer){ p, g_hash_table_new (NULL, NULL), G_MININT64, TRUE };
      th[p] = g_thread_new ("consumer", consume, &cs[p]);
    }
  for (gint p = 0; p < 4; p++)
    g_thread_join (th[p]);
  guint total = 0;
  for (gint p = 0; p < 4; p++)
    {
      ck_assert (cs[p].ordered);
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, cs[p].seen);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          ck_assert_int_eq (GPOINTER_TO_INT (v), 1); /* exactly once */
          ck_assert_int_eq (GPOINTER_TO_INT (g_hash_table_lookup (expected, k)) - 1, p);
          total++;
        }
      g_hash_table_unref (cs[p].seen);
    }
  ck_assert_uint_eq (total, 1000);
  g_hash_table_unref (expected);
  /* after the commits nothing is left; a late message is still delivered */
  g_autoptr (JsonNode) e
      = ok ("POST", QNS "/life/messages", "{\"messages\":[{\"key\":\"late\",\"seq\":5}]}");
  g_autofree gchar *pp = g_strdup_printf (QNS "/life/partitions/%" G_GINT64_FORMAT "/poll?offset=0",
                                          ab_json_int (e, "results.0.partition"));
  g_autoptr (JsonNode) p = ok ("GET", pp, NULL);
  ck_assert_uint_eq (ab_json_len (p, "messages"), 1);
  ck_assert (ab_json_is_null (p, "messages.0.value"));
}
END_TEST

/* upstream's DatastoreTableReferencesE2ETest: a table bound to
 * datastore://refs_ns/<suffix> in database db_<suffix>. */
static void
bind_table (const gchar *suffix)
{
  g_autofree gchar *db = g_strdup_printf ("{\"database\":\"db_%s\",\"comment\":\"refs\"}", suffix);
  g_autoptr (JsonNode) d = ok ("POST", DB, db);
  g_autofree gchar *path = g_strdup_printf (DB "/db_%s/tables", suffix);
  g_autofree gchar *body = g_strdup_printf (
      "{\"table\":\"tbl_%s\",\"storage\":\"datastore://refs_ns/%s\",\"mode\":\"SYNC\","
      "\"comment\":\"refs\",\"schema\":{\"type\":\"EDGE\",\"direction\":\"OUT\",\"source\":{"
      "\"type\":\"long\",\"comment\":\"src\"},\"target\":{\"type\":\"long\",\"comment\":\"tgt\"},"
      "\"properties\":[],\"indexes\":[],\"groups\":[]}}",
      suffix, suffix);
  g_autoptr (JsonNode) t = ok ("POST", path, body);
}

#define REFS "/graph/v3/datastore/hbase"

START_TEST (datastore_references)
{
  bind_table ("bound");
  g_autoptr (JsonNode) one = ok ("GET", REFS "/tables/refs_ns:bound/references", NULL);
  ck_assert_uint_eq (ab_json_len (one, "references"), 1);
  ck_assert_str_eq (ab_json_str (one, "references.0.kind"), "LABEL");
  ck_assert_str_eq (ab_json_str (one, "references.0.name"), "db_bound.tbl_bound");
  ck_assert (ab_json_bool (one, "references.0.active"));
  g_autoptr (JsonNode) none = ok ("GET", REFS "/tables/refs_ns:unbound/references", NULL);
  ck_assert_uint_eq (ab_json_len (none, "references"), 0);
  /* the whole cluster from one call, and narrowed to a namespace */
  bind_table ("bulk");
  g_autoptr (JsonNode) all = ok ("GET", REFS "/references", NULL);
  ck_assert_uint_eq (ab_json_len (all, "references.refs_ns:bulk"), 1);
  ck_assert_str_eq (ab_json_str (all, "references.refs_ns:bulk.0.kind"), "LABEL");
  g_autoptr (JsonNode) mine = ok ("GET", REFS "/references?namespace=refs_ns", NULL);
  ck_assert_ptr_nonnull (ab_json_at (mine, "references.refs_ns:bound"));
  g_autoptr (JsonNode) other = ok ("GET", REFS "/references?namespace=somewhere_else", NULL);
  ck_assert_uint_eq (json_object_get_size (json_node_get_object (ab_json_at (other, "references"))),
                     0);
  /* dropping a table something active is bound to is refused, naming it */
  ab_expect_error (&srv, "DELETE", REFS "/tables/refs_ns:bound", NULL, 400,
                   "is used by LABEL db_bound.tbl_bound");
  /* an alias of the table is listed too, and a v2 storage naming the table */
  g_autoptr (JsonNode) al = ok ("POST", DB "/db_bound/aliases",
                                "{\"alias\":\"latest\",\"table\":\"tbl_bound\",\"comment\":\"\"}");
  g_autoptr (JsonNode) st
      = ok ("POST", "/graph/v2/storage/bound_store",
            "{\"desc\":\"\",\"type\":\"HBASE\",\"conf\":{\"namespace\":\"refs_ns\","
            "\"tableName\":\"bound\"}}");
  g_autoptr (JsonNode) three = ok ("GET", REFS "/tables/refs_ns:bound/references", NULL);
  ck_assert_uint_eq (ab_json_len (three, "references"), 3);
  ck_assert_str_eq (ab_json_str (three, "references.0.kind"), "STORAGE");
  ck_assert_str_eq (ab_json_str (three, "references.0.name"), "bound_store");
  ck_assert_str_eq (ab_json_str (three, "references.2.kind"), "ALIAS");
  ck_assert_str_eq (ab_json_str (three, "references.2.name"), "db_bound.latest");
  /* a deactivated table keeps its binding, inactive; it no longer blocks a drop */
  bind_table ("deactivated");
  g_autoptr (JsonNode) off
      = ok ("PUT", DB "/db_deactivated/tables/tbl_deactivated", "{\"active\":false}");
  g_autoptr (JsonNode) still = ok ("GET", REFS "/tables/refs_ns:deactivated/references", NULL);
  ck_assert_uint_eq (ab_json_len (still, "references"), 1);
  ck_assert (!ab_json_bool (still, "references.0.active"));
  ab_expect_error (&srv, "DELETE", REFS "/tables/refs_ns:deactivated", NULL, 400,
                   "does not drop HBase tables");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("rest-tables");
  TCase *tc = tcase_create ("tables");
  tcase_set_timeout (tc, 180);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, multi_edge_gift_example);
  tcase_add_test (tc, immutable_and_scan_delete);
  tcase_add_test (tc, queue_scenario);
  tcase_add_test (tc, queue_life_cycle);
  tcase_add_test (tc, datastore_references);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
