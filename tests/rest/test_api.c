/* REST suite against the real actionbased on LMDB: the upstream Quick Start
 * end to end (v2 DDL, v3 data), v3 metadata success/failure cases, ranges
 * and pagination, restart durability, and hostile input. */
#include <string.h>
#include "rest_harness.h"
#include "ab_check.h"

#define DB "/graph/v3/databases"

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

static guint
call (const gchar *method, const gchar *path, const gchar *body)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, method, body, "%s", path);
  guint status = r.status;
  ck_assert_msg (status < 500, "%s %s -> %u %s", method, path, status, r.body);
  ab_reply_clear (&r);
  return status;
}

static const gchar *QUICK_LABEL
    = "{\"desc\":\"Like\",\"type\":\"INDEXED\","
      "\"schema\":{\"src\":{\"type\":\"STRING\"},\"tgt\":{\"type\":\"STRING\"},"
      "\"fields\":[{\"name\":\"created_at\",\"type\":\"LONG\",\"nullable\":false}]},"
      "\"dirType\":\"BOTH\",\"storage\":\"datastore://likes/likes\","
      "\"indices\":[{\"name\":\"recent\",\"fields\":[{\"name\":\"created_at\",\"order\":\"DESC\"}]}"
      "]}";

static const gchar *QUICK_EDGES
    = "{\"mutations\":["
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1737377177245,\"source\":\"Alice\",\"target\":"
      "\"Phone\",\"properties\":{\"created_at\":1737377177245}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1737377177297,\"source\":\"Bob\",\"target\":"
      "\"Phone\",\"properties\":{\"created_at\":1737377177297}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1737377177350,\"source\":\"Bob\",\"target\":"
      "\"Laptop\",\"properties\":{\"created_at\":1737377177350}}}]}";

#define T "/graph/v3/databases/likes/tables/likes"

static void
quick_start_setup (void)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST", "{\"desc\":\"Likes\"}", "/graph/v2/service/likes");
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (ab_json_str (r.json, "status"), "CREATED");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "POST", QUICK_LABEL, "/graph/v2/service/likes/label/likes");
  ck_assert_msg (r.status == 200, "%s", r.body);
  ck_assert_str_eq (ab_json_str (r.json, "result.name"), "likes.likes");
  ck_assert_str_eq (ab_json_str (r.json, "result.schema.src.desc"), "");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "POST", QUICK_EDGES, T "/edges");
  ck_assert_msg (r.status == 200, "%s", r.body);
  ck_assert_uint_eq (ab_json_len (r.json, "results"), 3);
  ck_assert_str_eq (ab_json_str (r.json, "results.0.source"), "Alice");
  ck_assert_str_eq (ab_json_str (r.json, "results.1.target"), "Laptop");
  ck_assert_str_eq (ab_json_str (r.json, "results.2.target"), "Phone");
  for (guint i = 0; i < 3; i++)
    {
      g_autofree gchar *st = g_strdup_printf ("results.%u.status", i);
      g_autofree gchar *ct = g_strdup_printf ("results.%u.count", i);
      ck_assert_str_eq (ab_json_str (r.json, st), "CREATED");
      ck_assert_int_eq (ab_json_int (r.json, ct), 1);
    }
  ab_reply_clear (&r);
}

START_TEST (quick_start)
{
  quick_start_setup ();
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, T "/edges/get?source=Alice&target=Phone");
  ck_assert_uint_eq (r.status, 200);
  ck_assert_uint_eq (ab_json_len (r.json, "edges"), 1);
  ck_assert_int_eq (ab_json_int (r.json, "edges.0.version"), 1737377177245);
  ck_assert_int_eq (ab_json_int (r.json, "edges.0.properties.created_at"), 1737377177245);
  ck_assert_int_eq (ab_json_int (r.json, "count"), 1);
  ck_assert_int_eq (ab_json_int (r.json, "total"), 1);
  ck_assert (ab_json_is_null (r.json, "offset"));
  ck_assert (!ab_json_bool (r.json, "hasNext"));
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/scan/recent?start=Bob&direction=OUT");
  ck_assert_uint_eq (ab_json_len (r.json, "edges"), 2);
  ck_assert_str_eq (ab_json_str (r.json, "edges.0.target"), "Laptop");
  ck_assert_str_eq (ab_json_str (r.json, "edges.1.target"), "Phone");
  ck_assert_int_eq (ab_json_int (r.json, "total"), -1);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/scan/recent?start=Phone&direction=IN");
  ck_assert_uint_eq (ab_json_len (r.json, "edges"), 2);
  ck_assert_str_eq (ab_json_str (r.json, "edges.0.source"), "Bob");
  ck_assert_str_eq (ab_json_str (r.json, "edges.0.target"), "Phone");
  ck_assert_str_eq (ab_json_str (r.json, "edges.1.source"), "Alice");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/count?start=Alice&direction=OUT");
  ck_assert_str_eq (ab_json_str (r.json, "start"), "Alice");
  ck_assert_str_eq (ab_json_str (r.json, "direction"), "OUT");
  ck_assert_int_eq (ab_json_int (r.json, "count"), 1);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/count?start=Phone&direction=IN");
  ck_assert_int_eq (ab_json_int (r.json, "count"), 2);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/counts?start=Phone&start=Laptop&direction=IN");
  ck_assert_int_eq (ab_json_int (r.json, "count"), 2);
  ck_assert_int_eq (ab_json_int (r.json, "counts.0.count"), 2);
  ck_assert_int_eq (ab_json_int (r.json, "counts.1.count"), 1);
  ab_reply_clear (&r);
  /* POST form of get, and the v2 entity the upstream console reads */
  ab_http (&srv, &r, "POST", "{\"source\":[\"Bob\"],\"target\":[\"Phone\",\"Laptop\"]}",
           T "/edges/get");
  ck_assert_uint_eq (ab_json_len (r.json, "edges"), 2);
  ck_assert_str_eq (ab_json_str (r.json, "edges.0.target"), "Phone");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, "/graph/v2/service/likes/label");
  ck_assert_int_eq (ab_json_int (r.json, "count"), 1);
  ck_assert_str_eq (ab_json_str (r.json, "content.0.indices.0.name"), "recent");
  ab_reply_clear (&r);
}
END_TEST

/* The access log: one INFO line per request in the documented format, the
 * client's request id, and every line written by a graceful stop. */
START_TEST (access_log_lines)
{
  AbReply r = { 0 };
  static const gchar *const hdr[] = { "X-Request-ID", "acc-test-1", NULL };
  static const gchar *const hdr2[] = { "X-Request-ID", "acc-test-2", NULL };
  ab_http_raw (&srv, &r, "GET", NULL, "/graph/v3", hdr);
  ck_assert_uint_eq (r.status, 200);
  ab_reply_clear (&r);
  ab_http_raw (&srv, &r, "GET", NULL,
               "/graph/v3/databases/nope/tables/x/edges/count?start=a&direction=OUT", hdr2);
  ck_assert_uint_ge (r.status, 400);
  ab_reply_clear (&r);
  ab_server_stop (&srv);
  g_autofree gchar *log = NULL;
  ck_assert (g_file_get_contents (srv.log_path, &log, NULL, NULL));
  g_autoptr (GRegex) ok = g_regex_new (
      "^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO ab-http: method=GET "
      "route=/graph/v3 status=200 duration_ms=\\d+\\.\\d{3} request_id=acc-test-1$",
      G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GRegex) nf
      = g_regex_new ("INFO ab-http: method=GET "
                     "route=/graph/v3/databases/\\{database\\}/tables/\\{table\\}/edges/count "
                     "status=4\\d\\d duration_ms=\\d+\\.\\d{3} request_id=acc-test-2$",
                     G_REGEX_MULTILINE, 0, NULL);
  ck_assert_msg (g_regex_match (ok, log, 0, NULL), "log:\n%s", log);
  ck_assert_msg (g_regex_match (nf, log, 0, NULL), "log:\n%s", log);
}
END_TEST

START_TEST (pagination_ranges_and_restart)
{
  quick_start_setup ();
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, T "/edges/scan/recent?start=Bob&direction=OUT&limit=1");
  ck_assert_str_eq (ab_json_str (r.json, "edges.0.target"), "Laptop");
  ck_assert (ab_json_bool (r.json, "hasNext"));
  g_autofree gchar *offset = g_strdup (ab_json_str (r.json, "offset"));
  ck_assert_str_eq (offset, "iToeeaCUntzOAk2ApbQbhVo");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/scan/recent?start=Bob&direction=OUT&limit=1&offset=%s",
           offset);
  ck_assert_str_eq (ab_json_str (r.json, "edges.0.target"), "Phone");
  ck_assert (!ab_json_bool (r.json, "hasNext"));
  ck_assert (ab_json_is_null (r.json, "offset"));
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL,
           T "/edges/scan/recent?start=Bob&direction=OUT&ranges=created_at:lt:1737377177350");
  ck_assert_uint_eq (ab_json_len (r.json, "edges"), 1);
  ck_assert_str_eq (ab_json_str (r.json, "edges.0.target"), "Phone");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/scan/recent?start=Bob&direction=OUT&features=total");
  ck_assert_int_eq (ab_json_int (r.json, "total"), 2);
  ab_reply_clear (&r);
  /* restart on the same directory keeps data and metadata */
  ab_server_stop (&srv);
  ab_server_restart (&srv, NULL);
  ab_http (&srv, &r, "GET", NULL, T "/edges/count?start=Phone&direction=IN");
  ck_assert_int_eq (ab_json_int (r.json, "count"), 2);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, DB "/likes/tables/likes");
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (ab_json_str (r.json, "table"), "likes");
  ab_reply_clear (&r);
}
END_TEST

static const gchar *TABLE_BODY = "{\"table\":\"follows\",\"schema\":{\"type\":\"EDGE\",\"source\":{"
                                 "\"type\":\"string\",\"comment\":\"user id\"},"
                                 "\"target\":{\"type\":\"string\",\"comment\":\"user "
                                 "id\"},\"properties\":[],\"direction\":\"OUT\","
                                 "\"indexes\":[],\"groups\":[]},\"storage\":\"datastore://hbase/"
                                 "follows_table\",\"mode\":\"SYNC\","
                                 "\"comment\":\"User follows relationship\"}";

START_TEST (metadata_v3)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST", "{\"database\":\"mydb\",\"comment\":\"My database\"}", DB);
  ck_assert_msg (r.status == 200, "%s", r.body);
  ck_assert_str_eq (ab_json_str (r.json, "database"), "mydb");
  ck_assert_str_eq (ab_json_str (r.json, "tenant"), "default");
  ck_assert (ab_json_bool (r.json, "active"));
  ck_assert_int_eq (ab_json_int (r.json, "revision"), 1);
  ab_reply_clear (&r);
  ck_assert_uint_eq (call ("POST", DB, "{\"database\":\"mydb\",\"comment\":\"again\"}"), 400);
  ck_assert_uint_eq (call ("POST", DB, "{\"database\":\"9bad\",\"comment\":\"x\"}"), 400);
  ck_assert_uint_eq (call ("POST", DB, "{\"database\":\"nocomment\"}"), 400);
  ab_http (&srv, &r, "GET", NULL, DB "/nope");
  ck_assert_uint_eq (r.status, 404);
  ck_assert_str_eq (r.body, "");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "POST", TABLE_BODY, DB "/mydb/tables");
  ck_assert_msg (r.status == 200, "%s", r.body);
  ck_assert_str_eq (ab_json_str (r.json, "type"), "edge");
  ck_assert_str_eq (ab_json_str (r.json, "schema.type"), "edge");
  ck_assert_str_eq (ab_json_str (r.json, "mode"), "SYNC");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, DB "/mydb/tables");
  ck_assert_uint_eq (ab_json_len (r.json, ""), 1);
  ab_reply_clear (&r);
  ck_assert_uint_eq (call ("POST", DB "/mydb/tables", TABLE_BODY), 400); /* duplicate */
  ck_assert_uint_eq (call ("POST", DB "/nodb/tables", TABLE_BODY), 400);
  ck_assert_uint_eq (call ("GET", DB "/mydb/tables/nope", NULL), 404);
  /* listing inside a missing database: 404 with an empty body, like GET of it */
  static const gchar *const lists[] = { DB "/nodb/tables", DB "/nodb/aliases" };
  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    {
      ab_http (&srv, &r, "GET", NULL, "%s", lists[i]);
      ck_assert_uint_eq (r.status, 404);
      ck_assert_str_eq (r.body, "");
      ab_reply_clear (&r);
    }
  /* aliases */
  ck_assert_uint_eq (call ("POST", DB "/mydb/aliases",
                           "{\"alias\":\"f\",\"table\":\"follows\",\"comment\":\"c\"}"),
                     200);
  ck_assert_uint_eq (
      call ("POST", DB "/mydb/aliases", "{\"alias\":\"g\",\"table\":\"nope\",\"comment\":\"c\"}"),
      400);
  ab_http (&srv, &r, "GET", NULL, DB "/mydb/aliases/f");
  ck_assert_str_eq (ab_json_str (r.json, "table"), "follows");
  ab_reply_clear (&r);
  /* data through the alias */
  ck_assert_uint_eq (call ("POST", DB "/mydb/tables/f/edges",
                           "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,"
                           "\"source\":\"a\",\"target\":\"b\"}}]}"),
                     200);
  ab_http (&srv, &r, "GET", NULL, DB "/mydb/tables/follows/edges/count?start=a&direction=OUT");
  ck_assert_int_eq (ab_json_int (r.json, "count"), 1);
  ab_reply_clear (&r);
  /* delete rules: active objects are refused, inactive ones go */
  ck_assert_uint_eq (call ("DELETE", DB "/mydb/tables/follows", NULL), 400);
  ck_assert_uint_eq (call ("PUT", DB "/mydb/tables/follows", "{\"active\":false}"),
                     400); /* alias active */
  ck_assert_uint_eq (call ("PUT", DB "/mydb/aliases/f", "{\"active\":false}"), 200);
  ck_assert_uint_eq (call ("DELETE", DB "/mydb/aliases/f", NULL), 204);
  ck_assert_uint_eq (
      call ("PUT", DB "/mydb/tables/follows", "{\"active\":false,\"comment\":\"off\"}"), 200);
  ck_assert_uint_eq (call ("DELETE", DB "/mydb/tables/follows", NULL), 204);
  ck_assert_uint_eq (call ("DELETE", DB "/mydb/tables/follows", NULL), 404);
  ck_assert_uint_eq (call ("PUT", DB "/mydb", "{\"active\":false}"), 200);
  ck_assert_uint_eq (call ("DELETE", DB "/mydb", NULL), 204);
  ck_assert_uint_eq (call ("GET", DB "/mydb", NULL), 404);
}
END_TEST

START_TEST (schema_update_rules)
{
  ck_assert_uint_eq (call ("POST", DB, "{\"database\":\"d\",\"comment\":\"c\"}"), 200);
  ck_assert_uint_eq (call ("POST", DB "/d/tables", TABLE_BODY), 200);
  const gchar *add_nullable = "{\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\","
                              "\"comment\":\"\"},\"target\":{\"type\":\"string\",\"comment\":\"\"},"
                              "\"properties\":[{\"name\":\"w\",\"type\":\"double\",\"nullable\":"
                              "true,\"comment\":\"\"}],\"direction\":\"OUT\",\"indexes\":[]}}";
  const gchar *add_required
      = "{\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
        "\"target\":{\"type\":\"string\",\"comment\":\"\"},"
        "\"properties\":[{\"name\":\"w\",\"type\":\"double\",\"nullable\":true,\"comment\":\"\"},{"
        "\"name\":\"x\",\"type\":\"int\",\"nullable\":false,\"comment\":\"\"}],\"direction\":"
        "\"OUT\",\"indexes\":[]}}";
  ck_assert_uint_eq (call ("PUT", DB "/d/tables/follows", add_nullable), 200);
  ck_assert_uint_eq (call ("PUT", DB "/d/tables/follows", add_required), 400);
  ck_assert_uint_eq (call ("PUT", DB "/d/tables/follows", "{\"mode\":\"SIDEWAYS\"}"), 400);
  ck_assert_uint_eq (call ("PUT", DB "/d/tables/follows", "{\"mode\":\"DENY\"}"), 200);
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST",
           "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\","
           "\"target\":\"b\"}}]}",
           DB "/d/tables/follows/edges");
  ab_assert_error_reply (&r, 400);
  ab_reply_clear (&r);
  ck_assert_uint_eq (call ("PUT", DB "/d/tables/follows", "{\"mode\":\"ASYNC\"}"), 200);
  ab_http (&srv, &r, "POST",
           "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\","
           "\"target\":\"b\"}}]}",
           DB "/d/tables/follows/edges");
  ck_assert_str_eq (ab_json_str (r.json, "results.0.status"), "QUEUED");
  ab_reply_clear (&r);
}
END_TEST

START_TEST (malformed_requests_answer_400_404_405)
{
  quick_start_setup ();
  static const struct {
    const gchar *method, *path, *body;
    guint status;
  } cases[] = {
    { "POST", T "/edges", "{not json", 400 },
    { "POST", T "/edges", "", 400 },
    { "POST", T "/edges", "[]", 400 },
    { "POST", T "/edges",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":\"x\",\"source\":\"a\","
      "\"target\":\"b\",\"properties\":{\"created_at\":1}}}]}",
      400 },
    { "POST", T "/edges",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\",\"target\":"
      "\"b\",\"properties\":{\"created_at\":\"soon\"}}}]}",
      400 },
    { "POST", T "/edges?lock=maybe", "{\"mutations\":[]}", 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=SIDEWAYS", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&ranges=created_at", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&ranges=created_at:zz:1", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&offset=%25%25%25", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&limit=abc", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&limit=5000", NULL, 400 },
    /* no unbounded reads: limit below 1 is refused, -1 included */
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&limit=-1", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&limit=0", NULL, 400 },
    /* well-formed base64url, but not a position in the index */
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&offset=AAAA", NULL, 400 },
    { "GET", T "/edges/scan/recent?start=Bob&direction=OUT&offset=zzz", NULL, 400 },
    { "GET", T "/edges/scan/nope?start=Bob&direction=OUT", NULL, 400 },
    { "GET", DB "/likes/tables/nope/edges/count?start=a&direction=OUT", NULL, 400 },
    { "GET", DB "/nodb/tables/likes/edges/count?start=a&direction=OUT", NULL, 400 },
    { "GET", T "/edges/count?start=a&direction=OUT&ranges=created_at:gt:1", NULL, 400 },
    { "GET", T "/edges/get?source=a&target=b&ranges=x:eq:1", NULL, 400 },
    { "GET", T "/edges/get?source=a,b,c,d,e&target=1,2,3,4,5,6", NULL, 400 },
    { "GET", "/no/such/route", NULL, 404 },
    { "DELETE", T "/edges/count", NULL, 405 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      AbReply r = { 0 };
      ab_http (&srv, &r, cases[i].method, cases[i].body, "%s", cases[i].path);
      ck_assert_msg (r.status == cases[i].status, "case %u %s %s: %u %s", i, cases[i].method,
                     cases[i].path, r.status, r.body);
      ab_assert_error_reply (&r, cases[i].status);
      ab_reply_clear (&r);
    }
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, DB "/likes/tables/nope/edges/count?start=a&direction=OUT");
  ck_assert_str_eq (ab_json_str (r.json, "message"), "No such label likes.nope.");
  ab_reply_clear (&r);
  /* invalid UTF-8 and a body over the limit */
  g_autoptr (GBytes) bad = g_bytes_new_static ("{\"mutations\":\"\xff\xfe\"}", 19);
  ab_http_raw (&srv, &r, "POST", bad, T "/edges", NULL);
  ab_assert_error_reply (&r, 400);
  ab_reply_clear (&r);
  gsize huge_len = 11u * 1024 * 1024;
  gchar *huge = g_malloc (huge_len);
  memset (huge, ' ', huge_len);
  g_autoptr (GBytes) hb = g_bytes_new_take (huge, huge_len);
  static const gchar *const expect[] = { "Expect", "100-continue", NULL };
  ab_http_raw (&srv, &r, "POST", hb, T "/edges", expect);
  ab_assert_error_reply (&r, 413);
  ab_reply_clear (&r);
  /* still serving, nothing written by the rejected requests */
  ab_http (&srv, &r, "GET", NULL, T "/edges/count?start=a&direction=OUT");
  ck_assert_uint_eq (r.status, 200);
  ck_assert_int_eq (ab_json_int (r.json, "count"), 0);
  ab_reply_clear (&r);
  /* request ids are echoed */
  static const gchar *const hdr[] = { "X-Request-ID", "req-123", NULL };
  ab_http_raw (&srv, &r, "GET", NULL, "/health", hdr);
  ck_assert_str_eq (r.request_id, "req-123");
  ab_reply_clear (&r);
}
END_TEST

/* Ids longer than the store's key limit: refused per key with the reason,
 * the other keys of the request applied, nothing of the long one written,
 * and reads of such ids answer "absent" (no such key can exist), not 503.
 * lmdb keys stop at 511 bytes, HBase (and memory, rocksdb) keys at 32767. */
static gchar *
long_insert (const gchar *target)
{
  return g_strdup_printf ("{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"L\","
                          "\"target\":\"%s\",\"properties\":{\"created_at\":1}}}",
                          target);
}

START_TEST (long_ids)
{
  quick_start_setup ();
  /* the stores with HBase's key limit; lmdb's is 511 bytes */
  const gchar *kind = g_getenv ("AB_REST_STORE");
  gboolean wide = g_strcmp0 (kind, "hbase") == 0 || g_strcmp0 (kind, "rocksdb") == 0;
  g_autofree gchar *url600 = g_strnfill (600, 'u'); /* a long URL as a target */
  g_autofree gchar *huge = g_strnfill (33000, 'h'); /* over HBase's row key limit */
  g_autofree gchar *a = long_insert (url600);
  g_autofree gchar *b = long_insert ("short");
  g_autofree gchar *c = long_insert (huge);
  g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s,%s,%s]}", a, b, c);
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST", body, T "/edges");
  ck_assert_msg (r.status == 200, "%u %s", r.status, r.body);
  guint created = 0;
  for (guint i = 0; i < 3; i++)
    {
      g_autofree gchar *p = g_strdup_printf ("results.%u.", i);
      g_autofree gchar *pt = g_strconcat (p, "target", NULL);
      g_autofree gchar *ps = g_strconcat (p, "status", NULL);
      g_autofree gchar *pm = g_strconcat (p, "message", NULL);
      const gchar *target = ab_json_str (r.json, pt);
      gboolean fits = strlen (target) < (wide ? 32000 : 500);
      ck_assert_str_eq (ab_json_str (r.json, ps), fits ? "CREATED" : "ERROR");
      created += fits;
      if (!fits)
        {
          const gchar *m = ab_json_str (r.json, pm);
          ck_assert_msg (m != NULL && strstr (m, "too long") != NULL
                             && strstr (m, wide ? "32767" : "511") != NULL,
                         "reason: %s", m != NULL ? m : "(none)");
        }
      else
        ck_assert (ab_json_at (r.json, pm) == NULL); /* upstream's shape when it worked */
    }
  ab_reply_clear (&r);
  /* the refused keys left nothing: the source counts only what was created */
  ab_http (&srv, &r, "GET", NULL, T "/edges/count?start=L&direction=OUT");
  ck_assert_int_eq (ab_json_int (r.json, "count"), created);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, T "/edges/scan/recent?start=L&direction=OUT");
  ck_assert_int_eq (ab_json_int (r.json, "count"), created);
  ab_reply_clear (&r);
  /* reads of ids no key can hold: absent, not an error */
  const gchar *ids[] = { url600, huge };
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      gboolean stored = wide && i == 0;
      ab_http (&srv, &r, "GET", NULL, T "/edges/get?source=L&target=%s", ids[i]);
      ck_assert_msg (r.status == 200, "%u %s", r.status, r.body);
      ck_assert_int_eq (ab_json_int (r.json, "count"), stored ? 1 : 0);
      ab_reply_clear (&r);
      ab_http (&srv, &r, "GET", NULL, T "/edges/count?start=%s&direction=IN", ids[i]);
      ck_assert_msg (r.status == 200, "%u %s", r.status, r.body);
      ck_assert_int_eq (ab_json_int (r.json, "count"), stored ? 1 : 0);
      ab_reply_clear (&r);
    }
}
END_TEST

/* v2 storages (the upstream console's `create storage`): persisted in the
 * catalog, so they survive a restart; a label naming a storage needs it. */
START_TEST (v2_storages)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, "POST", "{\"desc\":\"Likes\"}", "/graph/v2/service/likes");
  ck_assert_uint_eq (r.status, 200);
  ab_reply_clear (&r);
  /* QUICK_LABEL with the storage given by name */
  g_autoptr (GString) label = g_string_new (QUICK_LABEL);
  g_string_replace (label, "datastore://likes/likes", "main", 1);
  ab_http (&srv, &r, "POST", label->str, "/graph/v2/service/likes/label/named");
  ab_assert_error_reply (&r, 400);
  ck_assert_msg (strstr (ab_json_str (r.json, "message"), "storage main is not found") != NULL,
                 "%s", r.body);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "POST",
           "{\"comment\":\"c\",\"storageType\":\"hbase\","
           "\"hbaseNamespace\":\"ns\",\"hbaseTable\":\"t\"}",
           "/graph/v2/storage/main");
  ck_assert_msg (r.status == 200, "%s", r.body);
  ck_assert_str_eq (ab_json_str (r.json, "status"), "CREATED");
  ck_assert_str_eq (ab_json_str (r.json, "result.name"), "main");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "POST", label->str, "/graph/v2/service/likes/label/named");
  ck_assert_msg (r.status == 200, "%s", r.body);
  ab_reply_clear (&r);
  /* a restart keeps it */
  ab_server_stop (&srv);
  ab_server_restart (&srv, NULL);
  ab_http (&srv, &r, "GET", NULL, "/graph/v2/storages");
  ck_assert_int_eq (ab_json_int (r.json, "count"), 1);
  ck_assert_str_eq (ab_json_str (r.json, "content.0.name"), "main");
  ck_assert_str_eq (ab_json_str (r.json, "content.0.hbaseTable"), "t");
  ab_reply_clear (&r);
  /* one storage read and changed */
  g_autoptr (JsonNode) one = ab_http_ok (&srv, "GET", "/graph/v2/storage/main", NULL);
  ck_assert_str_eq (ab_json_str (one, "name"), "main");
  g_autoptr (JsonNode) put = ab_http_ok (&srv, "PUT", "/graph/v2/storage/main",
                                         "{\"desc\":\"main cluster\",\"active\":false}");
  ck_assert_str_eq (ab_json_str (put, "status"), "UPDATED");
  ck_assert_str_eq (ab_json_str (put, "result.desc"), "main cluster");
  ck_assert (!ab_json_bool (put, "result.active"));
  ck_assert_str_eq (ab_json_str (put, "result.hbaseTable"), "t"); /* the rest stays */
  ab_expect_error (&srv, "PUT", "/graph/v2/storage/main", "{\"active\":\"no\"}", 400,
                   "'active' must be a boolean.");
  ab_expect_error (&srv, "GET", "/graph/v2/storage/other", NULL, 404, "No such storage.");
  ab_expect_error (&srv, "PUT", "/graph/v2/storage/other", "{}", 404, "No such storage.");
}
END_TEST

/* --read-only: every write answers 403 with upstream's message naming the
 * method and path; reads, /health and /metrics keep working and say so. */
/* Upstream's list filter (status=ACTIVE default | INACTIVE | ALL, exact
 * case) and its name rule on every metadata path, not only on create. */
START_TEST (status_filters_and_names)
{
  ck_assert_uint_eq (call ("POST", DB, "{\"database\":\"on\",\"comment\":\"c\"}"), 200);
  ck_assert_uint_eq (call ("POST", DB, "{\"database\":\"off\",\"comment\":\"c\"}"), 200);
  ck_assert_uint_eq (call ("PUT", DB "/off", "{\"active\":false}"), 200);
  ck_assert_uint_eq (call ("POST", DB "/on/tables", TABLE_BODY), 200);
  ck_assert_uint_eq (
      call ("POST", DB "/on/aliases", "{\"alias\":\"f\",\"table\":\"follows\",\"comment\":\"c\"}"),
      200);
  ck_assert_uint_eq (call ("PUT", DB "/on/aliases/f", "{\"active\":false}"), 200);
  static const struct {
    const gchar *path;
    const gchar *first;
    guint n;
  } lists[] = {
    { DB, "on", 1 },
    { DB "?status=ACTIVE", "on", 1 },
    { DB "?status=INACTIVE", "off", 1 },
    { DB "?status=ALL", "off", 2 },
    { DB "/on/tables", "follows", 1 },
    { DB "/on/tables?status=INACTIVE", NULL, 0 },
    { DB "/on/aliases", NULL, 0 },
    { DB "/on/aliases?status=INACTIVE", "f", 1 },
    { DB "/on/aliases?status=ALL", "f", 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    {
      g_autoptr (JsonNode) l = ab_http_ok (&srv, "GET", lists[i].path, NULL);
      ck_assert_msg (ab_json_len (l, "") == lists[i].n, "%s", lists[i].path);
      if (lists[i].first != NULL)
        {
          const gchar *name = ab_json_str (l, strstr (lists[i].path, "/tables")    ? "0.table"
                                              : strstr (lists[i].path, "/aliases") ? "0.alias"
                                                                                   : "0.database");
          ck_assert_str_eq (name, lists[i].first);
        }
    }
  static const gchar *const bad[] = { DB "?status=BOGUS", DB "?status=active",
                                      DB "/on/tables?status=all", DB "/on/aliases?status=" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      AbReply r = { 0 };
      ab_http (&srv, &r, "GET", NULL, "%s", bad[i]);
      ab_assert_error_reply (&r, 400);
      ab_reply_clear (&r);
    }
  /* names breaking ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$ answer 400 on every method */
  g_autofree gchar *long_name = g_strnfill (65, 'a');
  g_autofree gchar *p65 = g_strconcat (DB "/", long_name, NULL);
  static const struct {
    const gchar *method, *path;
    const gchar *what;
  } names[] = {
    { "GET", DB "/9lives", "database" },        { "PUT", DB "/a.b", "database" },
    { "DELETE", DB "/a:b", "database" },        { "GET", DB "/on/tables/1t", "table" },
    { "PUT", DB "/on/tables/t.x", "table" },    { "DELETE", DB "/on/aliases/_a", "alias" },
    { "GET", DB "/on/aliases/a%20b", "alias" }, { "GET", DB "/9lives/tables", "database" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (names) + 1; i++)
    {
      AbReply r = { 0 };
      const gchar *method = i < G_N_ELEMENTS (names) ? names[i].method : "GET";
      const gchar *path = i < G_N_ELEMENTS (names) ? names[i].path : p65;
      ab_http (&srv, &r, method, method[0] == 'P' ? "{}" : NULL, "%s", path);
      ab_assert_error_reply (&r, 400);
      g_autofree gchar *want
          = g_strdup_printf ("Invalid %s:", i < G_N_ELEMENTS (names) ? names[i].what : "database");
      ck_assert_msg (g_str_has_prefix (ab_json_str (r.json, "message"), want), "%s %s: %s", method,
                     path, r.body);
      ab_reply_clear (&r);
    }
  /* a valid name of 64 characters is merely not found */
  g_autofree gchar *p64 = g_strndup (p65, strlen (p65) - 1);
  ck_assert_uint_eq (call ("GET", p64, NULL), 404);
}
END_TEST

START_TEST (read_only_mode)
{
  quick_start_setup ();
  ab_server_stop (&srv);
  const gchar *ro[] = { "--read-only", NULL };
  ab_server_restart (&srv, ro);
  static const struct {
    const gchar *method, *path, *body;
  } writes[] = {
    { "POST", T "/edges", "{\"mutations\":[]}" },
    { "POST", T "/edges/sync", "{\"mutations\":[]}" },
    { "POST", DB, "{\"database\":\"other\",\"comment\":\"c\"}" },
    { "PUT", DB "/likes/tables/likes", "{\"comment\":\"c\"}" },
    { "DELETE", DB "/likes/tables/likes", NULL },
    { "POST", "/graph/v2/service/other", "{\"desc\":\"d\"}" },
    { "POST", "/queue/v1/namespaces/ns/queues",
      "{\"queue\":\"q\",\"storage\":\"datastore://ns/q\"}" },
    { "POST", "/admin/v1/keys", "{\"name\":\"k\",\"grants\":[]}" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (writes); i++)
    {
      AbReply r = { 0 };
      ab_http (&srv, &r, writes[i].method, writes[i].body, "%s", writes[i].path);
      ab_assert_error_reply (&r, 403);
      g_autofree gchar *want = g_strdup_printf (
          "Write operation not allowed in read-only mode: %s %s", writes[i].method, writes[i].path);
      ck_assert_str_eq (ab_json_str (r.json, "message"), want);
      ab_reply_clear (&r);
    }
  /* reads still work, the data is all there */
  g_autoptr (JsonNode) c
      = ab_http_ok (&srv, "GET", T "/edges/count?start=Phone&direction=IN", NULL);
  ck_assert_int_eq (ab_json_int (c, "count"), 2);
  g_autoptr (JsonNode) v2 = ab_http_ok (
      &srv, "GET", "/graph/v2/service/likes/label/likes/edge?src=Phone&dir=IN&select=COUNT(1)",
      NULL);
  ck_assert_int_eq (ab_json_int (v2, "data.0.COUNT(1)"), 2);
  g_autoptr (JsonNode) h = ab_http_ok (&srv, "GET", "/health", NULL);
  ck_assert (ab_json_bool (h, "readOnly"));
  /* draining a read-only node is not a write; running a prepared query is a read */
  g_autoptr (JsonNode) drained
      = ab_http_ok (&srv, "PUT", "/graph/health/readiness", "{\"ready\":true}");
  ab_expect_error (&srv, "POST", "/graph/v3/query/no_such_query", "{}", 404, "no_such_query");
  ab_expect_error (&srv, "POST", "/graph/v3/prepared-queries", "{}", 403, "read-only");
  /* upstream's engine information, as its graph controller answers it */
  g_autoptr (JsonNode) g2 = ab_http_ok (&srv, "GET", "/graph/v2", NULL);
  ck_assert_str_eq (ab_json_str (g2, "engine"), "Graph");
  AbReply m = { 0 };
  ab_http (&srv, &m, "GET", NULL, "/metrics");
  ck_assert_ptr_nonnull (strstr (m.body, "\nactionbase_read_only 1\n"));
  ab_reply_clear (&m);
}
END_TEST

/* A supervisor may stop a node the moment it announces its port. The stop
 * must be the graceful one (exit 0), not SIGTERM's default action: under
 * valgrind the main thread once reached its signal handlers only after the
 * HTTP threads had announced the port and answered. */
START_TEST (stop_as_soon_as_listening)
{
  ab_server_stop (&srv);
  for (guint round = 0; round < 5; round++)
    {
      g_autofree gchar *dir = g_steal_pointer (&srv.dir);
      g_free (srv.log_path);
      g_free (srv.base);
      g_free (srv.ca_file);
      ab_server_spawn (&srv, dir, NULL);
      ab_server_stop (&srv); /* asserts exit status 0 */
    }
  ab_server_restart (&srv, NULL);
}
END_TEST

START_TEST (health_and_metrics)
{
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, "/health");
  ck_assert_str_eq (ab_json_str (r.json, "status"), "UP");
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, "/graph/v3");
  ck_assert_uint_eq (r.status, 200);
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, "/metrics");
  ck_assert_uint_eq (r.status, 200);
  ck_assert_ptr_nonnull (strstr (r.body, "/health"));
  /* nothing waits on the worker pool between requests (/metrics is inline) */
  ck_assert_ptr_nonnull (strstr (r.body, "\nactionbase_http_requests_in_flight 0\n"));
  ab_reply_clear (&r);
}
END_TEST

/* The probes: `/` as upstream's root answers it, /graph/health like
 * /health, liveness, and readiness drained and back by PUT (shown on
 * /metrics); all answered without a key (test_auth checks the PUT needs one). */
START_TEST (probes)
{
  g_autoptr (JsonNode) root = ab_http_ok (&srv, "GET", "/", NULL);
  ck_assert_str_eq (ab_json_str (root, "status"), "UP");
  ck_assert_str_eq (ab_json_str (root, "message"), "Actionbase is running");
  ck_assert_str_eq (ab_json_str (root, "version"), PACKAGE_VERSION);
  g_autoptr (GDateTime) stamp
      = g_date_time_new_from_iso8601 (ab_json_str (root, "timestamp"), NULL);
  ck_assert_ptr_nonnull (stamp);
  static const gchar *const up[]
      = { "/graph/health", "/graph/health/liveness", "/graph/health/readiness" };
  for (guint i = 0; i < G_N_ELEMENTS (up); i++)
    {
      g_autoptr (JsonNode) n = ab_http_ok (&srv, "GET", up[i], NULL);
      ck_assert_str_eq (ab_json_str (n, "status"), "UP");
    }
  AbReply r = { 0 };
  ab_http (&srv, &r, "PUT", "{\"ready\":false}", "/graph/health/readiness");
  ck_assert_uint_eq (r.status, 503);
  ck_assert_str_eq (ab_json_str (r.json, "status"), "OUT_OF_SERVICE");
  ck_assert_ptr_nonnull (strstr (ab_json_str (r.json, "reason"), "drained"));
  ab_reply_clear (&r);
  ab_http (&srv, &r, "GET", NULL, "/graph/health/readiness");
  ck_assert_uint_eq (r.status, 503);
  ab_reply_clear (&r);
  /* drained, the node still serves everything else */
  g_autoptr (JsonNode) live = ab_http_ok (&srv, "GET", "/graph/health/liveness", NULL);
  g_autoptr (JsonNode) health = ab_http_ok (&srv, "GET", "/graph/health", NULL);
  g_autoptr (JsonNode) dbs = ab_http_ok (&srv, "GET", DB, NULL);
  ab_http (&srv, &r, "GET", NULL, "/metrics");
  ck_assert_ptr_nonnull (strstr (r.body, "\nactionbase_ready 0\n"));
  ab_reply_clear (&r);
  ab_expect_error (&srv, "PUT", "/graph/health/readiness", "{\"ready\":\"no\"}", 400, "ready");
  ab_expect_error (&srv, "PUT", "/graph/health/readiness", "{}", 400, "ready");
  g_autoptr (JsonNode) back
      = ab_http_ok (&srv, "PUT", "/graph/health/readiness", "{\"ready\":true}");
  ck_assert_str_eq (ab_json_str (back, "status"), "UP");
  ab_http (&srv, &r, "GET", NULL, "/metrics");
  ck_assert_ptr_nonnull (strstr (r.body, "\nactionbase_ready 1\n"));
  ab_reply_clear (&r);
}
END_TEST

/* The label-based v2 edge writes (upstream's V2EdgeStorageOpsSpec and
 * what a v2 client sends): POST/PUT/DELETE /graph/v2/edge with a label, the
 * service/label routes, /sync, the mutation context opt-in and the 400s. */
START_TEST (v2_edges)
{
  g_autoptr (JsonNode) d = ab_http_ok (&srv, "POST", DB, "{\"database\":\"svc\",\"comment\":\"\"}");
  g_autoptr (JsonNode) t = ab_http_ok (
      &srv, "POST", DB "/svc/tables",
      "{\"table\":\"lbl\",\"storage\":\"datastore://s/l\",\"mode\":\"SYNC\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\",\"properties\":"
      "[{\"name\":\"score\",\"type\":\"long\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[]}}");
  g_autoptr (JsonNode) a = ab_http_ok (
      &srv, "POST", "/graph/v2/edge",
      "{\"label\":\"svc.lbl\",\"edges\":[{\"ts\":1,\"src\":\"a\",\"tgt\":\"b\",\"props\":{"
      "\"score\":1}}]}");
  ck_assert_str_eq (ab_json_str (a, "result.0.status"), "CREATED");
  ck_assert_str_eq (ab_json_str (a, "result.0.edge.src"), "a");
  ck_assert_int_eq (ab_json_int (a, "result.0.edge.props.score"), 1);
  ck_assert (ab_json_bool (a, "result.0.edge.active"));
  ck_assert_ptr_nonnull (ab_json_str (a, "result.0.traceId"));
  ck_assert_ptr_null (ab_json_at (a, "result.0.context"));
  /* the opt-in header adds the storage operations (upstream's spec) */
  AbReply r = { 0 };
  static const gchar *const hdr[] = { "AB-Include-Mutation-Context", "true", NULL };
  const gchar *xy = "{\"label\":\"svc.lbl\",\"edges\":[{\"ts\":1,\"src\":\"x\",\"tgt\":"
                    "\"y\",\"props\":{\"score\":2}}]}";
  g_autoptr (GBytes) body = g_bytes_new_static (xy, strlen (xy));
  ab_http_raw (&srv, &r, "POST", body, "/graph/v2/edge", hdr);
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (ab_json_str (r.json, "result.0.status"), "CREATED");
  ck_assert_str_eq (ab_json_str (r.json, "result.0.context.storageOps.0.kind"), "Put");
  ck_assert_str_eq (ab_json_str (r.json, "result.0.context.storageOps.0.table"), "edges");
  ck_assert_str_eq (ab_json_str (r.json, "result.0.context.storageOps.0.cells.0.family"), "Zg==");
  ck_assert_str_eq (ab_json_str (r.json, "result.0.context.storageOps.0.cells.0.qualifier"),
                    "ZQ==");
  ab_reply_clear (&r);
  /* the service/label routes: update through /sync, delete with ?mode=SYNC */
  g_autoptr (JsonNode) u
      = ab_http_ok (&srv, "PUT", "/graph/v2/service/svc/label/lbl/edge/sync",
                    "{\"edges\":[{\"ts\":2,\"src\":\"a\",\"tgt\":\"b\",\"props\":{\"score\":5}}]}");
  ck_assert_str_eq (ab_json_str (u, "result.0.status"), "UPDATED");
  g_autoptr (JsonNode) got
      = ab_http_ok (&srv, "GET", DB "/svc/tables/lbl/edges/get?source=a&target=b", NULL);
  ck_assert_int_eq (ab_json_int (got, "edges.0.properties.score"), 5);
  g_autoptr (JsonNode) del
      = ab_http_ok (&srv, "POST", "/graph/v2/service/svc/label/lbl/edge/delete?mode=SYNC",
                    "{\"edges\":[{\"ts\":3,\"src\":\"a\",\"tgt\":\"b\"}]}");
  ck_assert_str_eq (ab_json_str (del, "result.0.status"), "DELETED");
  ck_assert (!ab_json_bool (del, "result.0.edge.active"));
  g_autoptr (JsonNode) c
      = ab_http_ok (&srv, "GET", DB "/svc/tables/lbl/edges/count?start=a&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c, "count"), 0);
  ab_expect_error (&srv, "POST", "/graph/v2/edge", "{\"label\":\"svclbl\",\"edges\":[]}", 400,
                   "service.label");
  ab_expect_error (&srv, "POST", "/graph/v2/edge",
                   "{\"label\":\"svc.lbl\",\"edges\":[{\"src\":1}]}", 400, "edges[0]");
  ab_expect_error (&srv, "POST", "/graph/v2/edge?mode=LATER",
                   "{\"label\":\"svc.lbl\",\"edges\":[]}", 400, "mode");
  ab_expect_error (&srv, "POST", "/graph/v2/edge", "{\"label\":\"svc.nope\",\"edges\":[]}", 400,
                   "nope");
}
END_TEST

/* GET /graph/v2/service/{s}/label/{l}/edge: the v2 edge read. */
#define V2_READ "/graph/v2/service/rd/label/likes/edge?"

static JsonNode *
v2_read (const gchar *query)
{
  g_autofree gchar *path = g_strconcat (V2_READ, query, NULL);
  return ab_http_ok (&srv, "GET", path, NULL);
}

/* Edges written through the v2 POST, then read back as upstream's v2
 * DataFrame: a scan paged by offset/hasNext, point reads both ways,
 * COUNT(1), self edges, select, jsoncompact, filter, stats and the 400s. */
START_TEST (v2_edge_reads)
{
  g_autoptr (JsonNode) svc = ab_http_ok (&srv, "POST", "/graph/v2/service/rd", "{\"desc\":\"\"}");
  g_autoptr (JsonNode) lbl
      = ab_http_ok (&srv, "POST", "/graph/v2/service/rd/label/likes", QUICK_LABEL);
  g_autoptr (JsonNode) w = ab_http_ok (
      &srv, "POST", "/graph/v2/service/rd/label/likes/edge?mode=SYNC",
      "{\"edges\":[{\"ts\":10,\"src\":\"u1\",\"tgt\":\"p1\",\"props\":{\"created_at\":10}},"
      "{\"ts\":11,\"src\":\"u1\",\"tgt\":\"p2\",\"props\":{\"created_at\":11}},"
      "{\"ts\":12,\"src\":\"u1\",\"tgt\":\"p3\",\"props\":{\"created_at\":12}},"
      "{\"ts\":13,\"src\":\"u2\",\"tgt\":\"p1\",\"props\":{\"created_at\":13}},"
      "{\"ts\":14,\"src\":\"u1\",\"tgt\":\"u1\",\"props\":{\"created_at\":14}}]}");
  ck_assert_uint_eq (ab_json_len (w, "result"), 5);
  /* a scan of the index, newest first, in pages of 3 */
  g_autoptr (JsonNode) p1 = v2_read ("src=u1&index=recent&limit=3");
  ck_assert_int_eq (ab_json_int (p1, "rows"), 3);
  ck_assert_str_eq (ab_json_str (p1, "data.0.target"), "u1");
  ck_assert_str_eq (ab_json_str (p1, "data.2.target"), "p2");
  ck_assert_str_eq (ab_json_str (p1, "data.0.direction"), "OUT");
  ck_assert_int_eq (ab_json_int (p1, "data.0.version"), 14);
  ck_assert_int_eq (ab_json_int (p1, "data.0.created_at"), 14);
  ck_assert_uint_eq (ab_json_len (p1, "stats"), 0);
  ck_assert (ab_json_bool (p1, "hasNext"));
  g_autofree gchar *offset = g_uri_escape_string (ab_json_str (p1, "offset"), NULL, TRUE);
  g_autofree gchar *next = g_strdup_printf ("src=u1&index=recent&limit=3&offset=%s", offset);
  g_autoptr (JsonNode) p2 = v2_read (next);
  ck_assert_int_eq (ab_json_int (p2, "rows"), 1);
  ck_assert_str_eq (ab_json_str (p2, "data.0.target"), "p1");
  ck_assert (!ab_json_bool (p2, "hasNext"));
  ck_assert (ab_json_is_null (p2, "offset"));
  /* src with tgt: point reads in request order; dir=IN from the tgt side */
  g_autoptr (JsonNode) got = v2_read ("src=u1&tgt=p1,p2,p9");
  ck_assert_int_eq (ab_json_int (got, "rows"), 2);
  ck_assert_str_eq (ab_json_str (got, "data.1.target"), "p2");
  g_autoptr (JsonNode) in = v2_read ("src=p1&tgt=u1,u2&dir=IN&stats=TGT_DEGREE");
  ck_assert_int_eq (ab_json_int (in, "rows"), 2);
  ck_assert_str_eq (ab_json_str (in, "data.1.source"), "u2");
  ck_assert_str_eq (ab_json_str (in, "data.1.target"), "p1");
  ck_assert_uint_eq (ab_json_len (in, "stats"), 0); /* TGT_DEGREE: with one tgt only */
  /* select=COUNT(1) alone: a count per src, answered whole */
  g_autoptr (JsonNode) counts = v2_read ("src=u1,u2&select=COUNT(1)");
  ck_assert_int_eq (ab_json_int (counts, "data.0.COUNT(1)"), 4);
  ck_assert_int_eq (ab_json_int (counts, "data.1.COUNT(1)"), 1);
  ck_assert_str_eq (ab_json_str (counts, "data.1.source"), "u2");
  /* self: the edge from a vertex to itself */
  g_autoptr (JsonNode) self = v2_read ("self=u1,u2");
  ck_assert_int_eq (ab_json_int (self, "rows"), 1);
  ck_assert_str_eq (ab_json_str (self, "data.0.target"), "u1");
  /* select, repeated or comma separated, in its order */
  g_autoptr (JsonNode) sel
      = v2_read ("src=u1&index=recent&limit=1&select=created_at&select=target");
  ck_assert_uint_eq (json_object_get_size (json_node_get_object (ab_json_at (sel, "data.0"))), 2);
  ck_assert_int_eq (ab_json_int (sel, "data.0.created_at"), 14);
  g_autoptr (JsonNode) compact
      = v2_read ("src=u1&index=recent&select=target,created_at&format=jsoncompact");
  ck_assert_str_eq (ab_json_str (compact, "meta.0.name"), "target");
  ck_assert_str_eq (ab_json_str (compact, "meta.0.type"), "STRING");
  ck_assert_str_eq (ab_json_str (compact, "meta.1.type"), "LONG");
  ck_assert_str_eq (ab_json_str (compact, "data.1.0"), "p3");
  ck_assert_int_eq (ab_json_int (compact, "data.1.1"), 12);
  ck_assert_int_eq (ab_json_int (compact, "rows"), 4);
  /* filter keeps the edges of the page that match; stats count the src */
  g_autoptr (JsonNode) f = v2_read ("src=u1&index=recent&filter=created_at:bt:11,12;target:in:"
                                    "p1,p3&stats=SRC_DEGREE");
  ck_assert_int_eq (ab_json_int (f, "rows"), 1);
  ck_assert_str_eq (ab_json_str (f, "data.0.target"), "p3");
  ck_assert_str_eq (ab_json_str (f, "stats.0.name"), "SRC_DEGREE");
  ck_assert_int_eq (ab_json_int (f, "stats.0.value"), 4);
  ab_expect_error (&srv, "GET", V2_READ "index=recent", NULL, 400, "src is required");
  ab_expect_error (&srv, "GET", V2_READ "src=u1,u2&tgt=p1", NULL, 400, "tgt should be null");
  ab_expect_error (&srv, "GET", V2_READ "src=u1&index=recent&select=nope", NULL, 400, "`nope`");
  ab_expect_error (&srv, "GET", V2_READ "src=u1&index=recent&filter=created_at:zz:1", NULL, 400,
                   "operator");
  ab_expect_error (&srv, "GET", V2_READ "src=u1&index=recent&filter=mood:eq:1", NULL, 400, "mood");
  ab_expect_error (&srv, "GET", V2_READ "src=u1&index=recent&dir=BOTH", NULL, 400, "BOTH");
  ab_expect_error (&srv, "GET", V2_READ "src=u1", NULL, 400, "index");
  ab_expect_error (&srv, "GET", V2_READ "src=u1&index=recent&stats=MANY", NULL, 400, "MANY");
}
END_TEST

/* …/label/{l}/edge/purge: upstream's v2 hard delete. */
#define PURGE_LABEL "/graph/v2/service/pg/label/likes/edge"

static JsonNode *
v3_count (const gchar *table, const gchar *start, const gchar *direction)
{
  g_autofree gchar *path = g_strdup_printf (DB "/pg/tables/%s/edges/count?start=%s&direction=%s",
                                            table, start, direction);
  return ab_http_ok (&srv, "GET", path, NULL);
}

/* Written through the v2 POST, purged (DELETE and POST) whatever their
 * version: gone from reads, counts and the State row, so that an INSERT
 * older than the purged edge creates it again (a DELETE's tombstone makes
 * that IDLE); a missing edge IDLE, a deleted one DELETED with no count
 * moved; the 400s; an ASYNC label queues the purge and the applier runs it. */
START_TEST (v2_edge_purge)
{
  g_autoptr (JsonNode) svc = ab_http_ok (&srv, "POST", "/graph/v2/service/pg", "{\"desc\":\"\"}");
  g_autoptr (JsonNode) lbl
      = ab_http_ok (&srv, "POST", "/graph/v2/service/pg/label/likes", QUICK_LABEL);
  g_autoptr (JsonNode) w = ab_http_ok (
      &srv, "POST", PURGE_LABEL "?mode=SYNC",
      "{\"edges\":[{\"ts\":10,\"src\":\"u1\",\"tgt\":\"p1\",\"props\":{\"created_at\":10}},"
      "{\"ts\":11,\"src\":\"u1\",\"tgt\":\"p2\",\"props\":{\"created_at\":11}},"
      "{\"ts\":12,\"src\":\"u1\",\"tgt\":\"p3\",\"props\":{\"created_at\":12}}]}");
  ck_assert_uint_eq (ab_json_len (w, "result"), 3);
  g_autoptr (JsonNode) d = ab_http_ok (&srv, "DELETE", PURGE_LABEL "/sync",
                                       "{\"edges\":[{\"ts\":13,\"src\":\"u1\",\"tgt\":\"p3\"}]}");
  ck_assert_str_eq (ab_json_str (d, "result.0.status"), "DELETED");
  /* versions older than the stored ones, props neither cast nor kept */
  g_autoptr (JsonNode) p
      = ab_http_ok (&srv, "DELETE", PURGE_LABEL "/purge",
                    "{\"edges\":[{\"ts\":1,\"src\":\"u1\",\"tgt\":\"p9\"},"
                    "{\"ts\":1,\"src\":\"u1\",\"tgt\":\"p3\"},"
                    "{\"ts\":1,\"src\":\"u1\",\"tgt\":\"p1\",\"props\":{\"created_at\":\"soon\"}}],"
                    "\"audit\":{\"actor\":\"ops\"}}");
  ck_assert_uint_eq (ab_json_len (p, "result"), 3);
  ck_assert_str_eq (ab_json_str (p, "result.0.edge.tgt"), "p1");
  ck_assert_str_eq (ab_json_str (p, "result.0.status"), "DELETED");
  ck_assert_str_eq (ab_json_str (p, "result.0.edge.props.created_at"), "soon");
  ck_assert (!ab_json_bool (p, "result.0.edge.active"));
  ck_assert_int_eq (ab_json_int (p, "result.0.edge.ts"), 1);
  ck_assert_str_eq (ab_json_str (p, "result.1.edge.tgt"), "p3");
  ck_assert_str_eq (ab_json_str (p, "result.1.status"), "DELETED"); /* its tombstone */
  ck_assert_str_eq (ab_json_str (p, "result.2.edge.tgt"), "p9");
  ck_assert_str_eq (ab_json_str (p, "result.2.status"), "IDLE");
  /* gone from the v2 and v3 reads; counts dropped by the active edge only */
  g_autoptr (JsonNode) got = ab_http_ok (&srv, "GET", PURGE_LABEL "?src=u1&tgt=p1,p2,p3", NULL);
  ck_assert_int_eq (ab_json_int (got, "rows"), 1);
  ck_assert_str_eq (ab_json_str (got, "data.0.target"), "p2");
  g_autoptr (JsonNode) scan = ab_http_ok (&srv, "GET", PURGE_LABEL "?src=u1&index=recent", NULL);
  ck_assert_int_eq (ab_json_int (scan, "rows"), 1);
  g_autoptr (JsonNode) in
      = ab_http_ok (&srv, "GET", PURGE_LABEL "?src=p1&dir=IN&index=recent", NULL);
  ck_assert_int_eq (ab_json_int (in, "rows"), 0);
  g_autoptr (JsonNode) v3
      = ab_http_ok (&srv, "GET", DB "/pg/tables/likes/edges/get?source=u1&target=p1", NULL);
  ck_assert_uint_eq (ab_json_len (v3, "edges"), 0);
  g_autoptr (JsonNode) c1 = v3_count ("likes", "u1", "OUT");
  ck_assert_int_eq (ab_json_int (c1, "count"), 1);
  g_autoptr (JsonNode) c2 = v3_count ("likes", "p1", "IN");
  ck_assert_int_eq (ab_json_int (c2, "count"), 0);
  /* no State row left: an older INSERT creates the edge again, where a
   * DELETE's tombstone answers IDLE */
  g_autoptr (JsonNode) again = ab_http_ok (
      &srv, "POST", PURGE_LABEL "?mode=SYNC",
      "{\"edges\":[{\"ts\":5,\"src\":\"u1\",\"tgt\":\"p1\",\"props\":{\"created_at\":5}},"
      "{\"ts\":5,\"src\":\"u1\",\"tgt\":\"p3\",\"props\":{\"created_at\":5}}]}");
  ck_assert_str_eq (ab_json_str (again, "result.0.status"), "CREATED");
  ck_assert_str_eq (ab_json_str (again, "result.1.status"), "CREATED");
  g_autoptr (JsonNode) d2 = ab_http_ok (&srv, "DELETE", PURGE_LABEL "/sync",
                                        "{\"edges\":[{\"ts\":20,\"src\":\"u1\",\"tgt\":\"p2\"}]}");
  g_autoptr (JsonNode) older = ab_http_ok (
      &srv, "POST", PURGE_LABEL "?mode=SYNC",
      "{\"edges\":[{\"ts\":15,\"src\":\"u1\",\"tgt\":\"p2\",\"props\":{\"created_at\":15}}]}");
  ck_assert_str_eq (ab_json_str (older, "result.0.status"), "IDLE");
  g_autoptr (JsonNode) c3 = v3_count ("likes", "u1", "OUT");
  ck_assert_int_eq (ab_json_int (c3, "count"), 2);
  g_autoptr (JsonNode) back = ab_http_ok (&srv, "GET", PURGE_LABEL "?src=u1&tgt=p1", NULL);
  ck_assert_int_eq (ab_json_int (back, "data.0.version"), 5);
  /* POST does the same; the context shows the State row deleted; a second
   * purge finds nothing */
  AbReply r = { 0 };
  static const gchar *const hdr[] = { "AB-Include-Mutation-Context", "true", NULL };
  const gchar *one = "{\"edges\":[{\"ts\":0,\"src\":\"u1\",\"tgt\":\"p1\"}]}";
  g_autoptr (GBytes) body = g_bytes_new_static (one, strlen (one));
  ab_http_raw (&srv, &r, "POST", body, PURGE_LABEL "/purge", hdr);
  ck_assert_uint_eq (r.status, 200);
  ck_assert_str_eq (ab_json_str (r.json, "result.0.status"), "DELETED");
  ck_assert_str_eq (ab_json_str (r.json, "result.0.context.storageOps.0.kind"), "Delete");
  ab_reply_clear (&r);
  g_autoptr (JsonNode) twice = ab_http_ok (&srv, "POST", PURGE_LABEL "/purge", one);
  ck_assert_str_eq (ab_json_str (twice, "result.0.status"), "IDLE");
  g_autoptr (JsonNode) c4 = v3_count ("likes", "u1", "OUT");
  ck_assert_int_eq (ab_json_int (c4, "count"), 1);
  /* the EdgesRequest's 400s; PURGE is no v3 mutation type */
  ab_expect_error (&srv, "DELETE", PURGE_LABEL "/purge", "{\"edges\":[{\"src\":\"u1\"}]}", 400,
                   "edges[0]");
  ab_expect_error (&srv, "POST", PURGE_LABEL "/purge", "{\"edge\":[]}", 400, "'edges'");
  ab_expect_error (&srv, "POST", PURGE_LABEL "/purge", "[]", 400, "");
  ab_expect_error (&srv, "POST", "/graph/v2/service/pg/label/nope/edge/purge", "{\"edges\":[]}",
                   400, "nope");
  ab_expect_error (&srv, "POST", DB "/pg/tables/likes/edges/sync",
                   "{\"mutations\":[{\"type\":\"PURGE\",\"edge\":{\"version\":1,\"source\":"
                   "\"u1\",\"target\":\"p2\"}}]}",
                   400, "type must be INSERT, UPDATE or DELETE");
  /* an ASYNC label: QUEUED, then applied from the WAL */
  g_autoptr (JsonNode) later
      = ab_http_ok (&srv, "POST", "/graph/v2/service/pg/label/later",
                    "{\"desc\":\"\",\"type\":\"INDEXED\",\"schema\":{\"src\":{\"type\":\"STRING\"},"
                    "\"tgt\":{\"type\":\"STRING\"},\"fields\":[]},\"dirType\":\"OUT\","
                    "\"storage\":\"datastore://pg/later\",\"indices\":[],\"mode\":\"ASYNC\"}");
  g_autoptr (JsonNode) aw
      = ab_http_ok (&srv, "POST", "/graph/v2/service/pg/label/later/edge?mode=SYNC",
                    "{\"edges\":[{\"ts\":9,\"src\":\"a\",\"tgt\":\"b\"}]}");
  ck_assert_str_eq (ab_json_str (aw, "result.0.status"), "CREATED");
  g_autoptr (JsonNode) ap
      = ab_http_ok (&srv, "DELETE", "/graph/v2/service/pg/label/later/edge/purge",
                    "{\"edges\":[{\"ts\":1,\"src\":\"a\",\"tgt\":\"b\"}]}");
  ck_assert_str_eq (ab_json_str (ap, "result.0.status"), "QUEUED");
  gint64 n = 1;
  for (guint i = 0; i < 200 && n != 0; i++)
    {
      g_autoptr (JsonNode) c = v3_count ("later", "a", "OUT");
      n = ab_json_int (c, "count");
      if (n != 0)
        g_usleep (50000);
    }
  ck_assert_int_eq (n, 0);
  g_autoptr (JsonNode) re
      = ab_http_ok (&srv, "POST", "/graph/v2/service/pg/label/later/edge?mode=SYNC",
                    "{\"edges\":[{\"ts\":2,\"src\":\"a\",\"tgt\":\"b\"}]}");
  ck_assert_str_eq (ab_json_str (re, "result.0.status"), "CREATED");
}
END_TEST

/* The value of series `name` on a /metrics page, after its HELP and TYPE
 * lines (TYPE `type`); the value must be a number ending its line. */
static gdouble
series_value (const gchar *page, const gchar *name, const gchar *type)
{
  g_autofree gchar *help = g_strdup_printf ("\n# HELP %s ", name);
  g_autofree gchar *typed = g_strdup_printf ("\n# TYPE %s %s\n", name, type);
  g_autofree gchar *sample = g_strdup_printf ("\n%s ", name);
  const gchar *h = strstr (page, help);
  const gchar *t = strstr (page, typed);
  const gchar *v = strstr (page, sample);
  ck_assert_msg (h != NULL && t != NULL && v != NULL && h < t && t < v,
                 "%s: no HELP, TYPE %s and sample in that order", name, type);
  gchar *end = NULL;
  const gchar *number = v + strlen (sample);
  gdouble value = g_ascii_strtod (number, &end);
  ck_assert_msg (end != number && *end == '\n', "%s: value '%.20s'", name, number);
  return value;
}

/* The store's own health on /metrics: rocksdb's figures (its block cache is
 * half the default 256 MiB budget, the memtables hold the edges just written,
 * no write stall), and none on the other stores. */
START_TEST (store_health_metrics)
{
  quick_start_setup ();
  AbReply r = { 0 };
  ab_http (&srv, &r, "GET", NULL, "/metrics");
  ck_assert_uint_eq (r.status, 200);
  if (g_strcmp0 (g_getenv ("AB_REST_STORE"), "rocksdb") != 0)
    {
      ck_assert_msg (strstr (r.body, "_rocksdb_") == NULL, "%s", r.body);
      ab_reply_clear (&r);
      return;
    }
#define ROCKS(x) "actionbase_store_rocksdb_" x
  ck_assert_double_ge (series_value (r.body, ROCKS ("pending_compaction_bytes"), "gauge"), 0);
  ck_assert_double_eq (series_value (r.body, ROCKS ("write_stopped"), "gauge"), 0);
  ck_assert_double_eq (series_value (r.body, ROCKS ("write_delayed"), "gauge"), 0);
  ck_assert_double_eq (
      series_value (r.body, ROCKS ("delayed_write_rate_bytes_per_second"), "gauge"), 0);
  ck_assert_double_eq (series_value (r.body, ROCKS ("write_stall_seconds_total"), "counter"), 0);
  ck_assert_double_gt (series_value (r.body, ROCKS ("memtable_bytes"), "gauge"), 0);
  gdouble capacity = series_value (r.body, ROCKS ("block_cache_capacity_bytes"), "gauge");
  ck_assert_double_eq (capacity, 128 << 20);
  gdouble usage = series_value (r.body, ROCKS ("block_cache_usage_bytes"), "gauge");
  ck_assert_double_le (usage, capacity);
  ck_assert_double_le (series_value (r.body, ROCKS ("block_cache_pinned_bytes"), "gauge"), usage);
  ck_assert_double_ge (series_value (r.body, ROCKS ("block_cache_hits_total"), "counter"), 0);
  ck_assert_double_ge (series_value (r.body, ROCKS ("block_cache_misses_total"), "counter"), 0);
#undef ROCKS
  ab_reply_clear (&r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("rest-api");
  TCase *tc = tcase_create ("api");
  tcase_set_timeout (tc, 120);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, quick_start);
  tcase_add_test (tc, access_log_lines);
  tcase_add_test (tc, pagination_ranges_and_restart);
  tcase_add_test (tc, metadata_v3);
  tcase_add_test (tc, schema_update_rules);
  tcase_add_test (tc, malformed_requests_answer_400_404_405);
  tcase_add_test (tc, long_ids);
  tcase_add_test (tc, probes);
  tcase_add_test (tc, v2_edges);
  tcase_add_test (tc, v2_edge_reads);
  tcase_add_test (tc, v2_edge_purge);
  tcase_add_test (tc, v2_storages);
  tcase_add_test (tc, read_only_mode);
  tcase_add_test (tc, status_filters_and_names);
  tcase_add_test (tc, stop_as_soon_as_listening);
  tcase_add_test (tc, health_and_metrics);
  tcase_add_test (tc, store_health_metrics);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
