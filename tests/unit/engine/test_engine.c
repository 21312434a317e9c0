/* Engine acceptance scenarios of docs/data-model.md §16 that concern unique edges
 * (17, 18, 23-33) plus pagination, out-of-order folding, concurrency and the
 * bytes of a vertex's row, each run on the memory: and lmdb: stores. */
#include <string.h>
#include "engine_fixture.h"
#include "codec/bytes.h"
#include "engine/read/read.h" /* the output edges' reuse */
#include "ab_check.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"likes\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

static const gchar *QUICK
    = "{\"mutations\":["
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1737377177245,\"source\":\"Alice\",\"target\":"
      "\"Phone\",\"properties\":{\"created_at\":1737377177245}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1737377177297,\"source\":\"Bob\",\"target\":"
      "\"Phone\",\"properties\":{\"created_at\":1737377177297}}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":1737377177350,\"source\":\"Bob\",\"target\":"
      "\"Laptop\",\"properties\":{\"created_at\":1737377177350}}}]}";

static AbTestEnv env;

static void
open_likes (int i)
{
  ab_test_env_open (&env, i);
  ab_test_create_table (&env, "likes", LIKES);
}

static const AbKeyResult *
result (GArray *r, guint i)
{
  ck_assert_uint_lt (i, r->len);
  return &g_array_index (r, AbKeyResult, i);
}

static gchar *
edge_text (const AbEdgeOut *e)
{
  g_autofree gchar *s = ab_value_to_string (&e->source);
  g_autofree gchar *t = ab_value_to_string (&e->target);
  return g_strdup_printf ("%s->%s", s, t);
}

static AbEdgeFrame *
scan (const gchar *start, AbQueryDirection dir, gint limit, const gchar *offset,
      const gchar *ranges, const gchar *features, GError **error)
{
  AbScanParams p = { .index = "recent",
                     .start = start,
                     .direction = dir,
                     .limit = limit,
                     .offset = offset,
                     .ranges = ranges,
                     .features = features };
  return ab_engine_scan (env.engine, "likes", "likes", &p, error);
}

static void
assert_edges (const AbEdgeFrame *f, const gchar *const *expected)
{
  guint n = g_strv_length ((gchar **) expected);
  ck_assert_uint_eq (f->edges->len, n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *t = edge_text (f->edges->pdata[i]);
      ck_assert_str_eq (t, expected[i]);
    }
}

static gchar *
hex_of (GBytes *b)
{
  gsize n;
  const guint8 *d = g_bytes_get_data (b, &n);
  GString *out = g_string_new (NULL);
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (out, "%02x", d[i]);
  return g_string_free (out, FALSE);
}

/* The value stored under a hex key, or NULL. */
static GBytes *
stored (const gchar *hex)
{
  g_autoptr (GByteArray) key = g_byte_array_new ();
  for (const gchar *p = hex; p[0] != '\0' && p[1] != '\0'; p += 2)
    {
      guint8 b = (guint8) ((g_ascii_xdigit_value (p[0]) << 4) | g_ascii_xdigit_value (p[1]));
      g_byte_array_append (key, &b, 1);
    }
  GBytes *value = NULL;
  g_autoptr (GError) error = NULL;
  ck_assert_msg (ab_store_get (env.engine->store, key->data, key->len, &value, &error), "%s",
                 error != NULL ? error->message : "");
  return value;
}

/* A vertex written through the /vertices form leaves exactly the State row
 * (id, "-") of docs/storage-format.md §3, with the bytes of an edge's State
 * value (vectors derived independently, as test_keys.c's), and no Lock or
 * Count row. */
START_TEST (vertex_rows)
{
  ab_test_env_open (&env, _i);
  ab_test_create_table (
      &env, "shop",
      "{\"table\":\"users\",\"storage\":\"datastore://shop/users\",\"comment\":\"\","
      "\"schema\":{\"type\":\"VERTEX\",\"id\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"properties\":[{\"name\":\"name\",\"type\":\"string\",\"nullable\":false,\"comment\":"
      "\"\"}]}}");
  ab_test_create_table (
      &env, "shop",
      "{\"table\":\"items\",\"storage\":\"datastore://shop/items\",\"comment\":\"\","
      "\"schema\":{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\",\"comment\":\"\"}}}");
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "shop";
  o.table = "users";
  o.vertex = TRUE;
  g_autoptr (JsonNode) body = ab_test_json (
      "{\"mutations\":[{\"type\":\"INSERT\",\"vertex\":{\"version\":1700000000000,\"id\":"
      "\"alice\",\"properties\":{\"name\":\"Alice\"}}}]}");
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) r = ab_engine_mutate (env.engine, &o, body, &error);
  ck_assert_msg (r != NULL, "%s", error != NULL ? error->message : "");
  ck_assert_int_eq (result (r, 0)->status, AB_STATUS_CREATED);
  g_autofree gchar *id = ab_value_to_string (&result (r, 0)->source);
  g_autofree gchar *marker = ab_value_to_string (&result (r, 0)->target);
  ck_assert_str_eq (id, "alice");
  ck_assert_str_eq (marker, "-");
  g_autoptr (GBytes) state = stored ("f42d09ec34616c696365002b1e18a9ff297d342d00");
  ck_assert_ptr_nonnull (state);
  g_autofree gchar *hex = hex_of (state);
  ck_assert_str_eq (hex, "2981"
                         "2c8000018bcfe56800"
                         "2b4c0bc31f"
                         "34416c69636500"
                         "2c8000018bcfe56800"
                         "2b9241de31"
                         "2c8000018bcfe56800"
                         "2c8000018bcfe56800");
  g_autoptr (GBytes) lock = stored ("9f2a35b734616c696365002b1e18a9ff297f342d00");
  ck_assert_ptr_null (lock);
  ck_assert_int_eq (ab_test_count (&env, "shop", "users", "alice", AB_QDIR_OUT), 0);
  /* a long id, and the edge form of the engine's own writers (the WAL
   * applier, import): the same row */
  AbMutateOptions e;
  ab_mutate_options_init (&e);
  e.database = "shop";
  e.table = "items";
  g_autoptr (JsonNode) eb
      = ab_test_json ("{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":42,"
                      "\"target\":\"ignored\"}}]}");
  g_autoptr (GArray) er = ab_engine_mutate (env.engine, &e, eb, &error);
  ck_assert_msg (er != NULL, "%s", error != NULL ? error->message : "");
  ck_assert_int_eq (result (er, 0)->status, AB_STATUS_CREATED);
  g_autoptr (GBytes) nstate = stored ("849bb8302c800000000000002a2b1d536d10297d342d00");
  ck_assert_ptr_nonnull (nstate);
  /* ...but REST's /edges (edges_endpoint) refuses a vertex table */
  e.edges_endpoint = TRUE;
  g_autoptr (GArray) refused = ab_engine_mutate (env.engine, &e, eb, &error);
  ck_assert_ptr_null (refused);
  ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
  ab_test_env_close (&env);
}
END_TEST

/* 24: quick start. */
START_TEST (quick_start)
{
  open_likes (_i);
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", QUICK);
  ck_assert_uint_eq (r->len, 3);
  static const gchar *order[] = { "Alice", "Bob", "Bob" };
  static const gchar *targets[] = { "Phone", "Laptop", "Phone" };
  for (guint i = 0; i < 3; i++)
    {
      ck_assert_str_eq (result (r, i)->source.u.s.data, order[i]);
      ck_assert_str_eq (result (r, i)->target.u.s.data, targets[i]);
      ck_assert_int_eq (result (r, i)->status, AB_STATUS_CREATED);
      ck_assert_uint_eq (result (r, i)->count, 1);
    }
  g_autoptr (GPtrArray) s = g_ptr_array_new ();
  g_autoptr (GPtrArray) t = g_ptr_array_new ();
  g_ptr_array_add (s, "Alice");
  g_ptr_array_add (t, "Phone");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) got = ab_engine_get (env.engine, "likes", "likes", s, t, NULL, &error);
  ck_assert_ptr_nonnull (got);
  ck_assert_uint_eq (got->edges->len, 1);
  const AbEdgeOut *e = got->edges->pdata[0];
  ck_assert_int_eq (e->version, 1737377177245);
  ck_assert_uint_eq (e->n_props, 1);
  ck_assert_str_eq (e->names[0], "created_at");
  ck_assert_int_eq (e->values[0].u.i, 1737377177245);
  ck_assert_int_eq (got->total, 1);
  ck_assert (!got->has_next);
  ck_assert_ptr_null (got->offset);
  g_autoptr (AbEdgeFrame) out = scan ("Bob", AB_QDIR_OUT, -1, NULL, NULL, NULL, &error);
  static const gchar *bob_out[] = { "Bob->Laptop", "Bob->Phone", NULL };
  assert_edges (out, bob_out);
  ck_assert_int_eq (out->total, -1);
  ck_assert (!out->has_next);
  g_autoptr (AbEdgeFrame) in = scan ("Phone", AB_QDIR_IN, -1, NULL, NULL, NULL, &error);
  static const gchar *phone_in[] = { "Bob->Phone", "Alice->Phone", NULL };
  assert_edges (in, phone_in);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "Alice", AB_QDIR_OUT), 1);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "Phone", AB_QDIR_IN), 2);
  ab_test_env_close (&env);
}
END_TEST

/* 25 + 26: pagination and ranges on the DESC index. */
START_TEST (pagination_and_ranges)
{
  open_likes (_i);
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", QUICK);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) p1 = scan ("Bob", AB_QDIR_OUT, 1, NULL, NULL, NULL, &error);
  static const gchar *first[] = { "Bob->Laptop", NULL };
  assert_edges (p1, first);
  ck_assert (p1->has_next);
  ck_assert_str_eq (p1->offset, "iToeeaCUntzOAk2ApbQbhVo"); /* docs/storage-format.md §9 */
  g_autoptr (AbEdgeFrame) p2 = scan ("Bob", AB_QDIR_OUT, 1, p1->offset, NULL, NULL, &error);
  static const gchar *second[] = { "Bob->Phone", NULL };
  assert_edges (p2, second);
  ck_assert (!p2->has_next);
  ck_assert_ptr_null (p2->offset);
  g_autoptr (AbEdgeFrame) lt
      = scan ("Bob", AB_QDIR_OUT, -1, NULL, "created_at:lt:1737377177350", NULL, &error);
  assert_edges (lt, second);
  g_autoptr (AbEdgeFrame) gte
      = scan ("Bob", AB_QDIR_OUT, -1, NULL, "created_at:gte:1737377177350", NULL, &error);
  assert_edges (gte, first);
  g_autoptr (AbEdgeFrame) bt = scan ("Bob", AB_QDIR_OUT, -1, NULL,
                                     "created_at:bt:1737377177297,1737377177350", NULL, &error);
  static const gchar *both[] = { "Bob->Laptop", "Bob->Phone", NULL };
  assert_edges (bt, both);
  ab_test_env_close (&env);
}
END_TEST

static void
expect_scan_error (const gchar *start, const gchar *offset, const gchar *ranges,
                   const gchar *features, gint limit)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) f = scan (start, AB_QDIR_OUT, limit, offset, ranges, features, &error);
  ck_assert_ptr_null (f);
  ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
}

/* 30, 33 and the bad-input cases of scans. */
START_TEST (scan_errors_and_total)
{
  open_likes (_i);
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", QUICK);
  expect_scan_error ("Bob", NULL, "created_at:gt:1", "total", -1);
  expect_scan_error ("Bob", NULL, NULL, "bogus", -1);
  expect_scan_error ("Bob", NULL, "created_at:in:1,2", NULL, -1);
  expect_scan_error ("Bob", NULL, "nope:eq:1", NULL, -1);
  expect_scan_error ("Bob", NULL, "created_at:eq", NULL, -1);
  expect_scan_error ("Bob", NULL, "created_at:eq:abc", NULL, -1);
  expect_scan_error ("Bob", "!!!garbage!!!", NULL, NULL, -1);
  expect_scan_error ("Bob", NULL, NULL, NULL, 0);
  expect_scan_error ("Bob", NULL, NULL, NULL, 1001);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) t = scan ("Bob", AB_QDIR_OUT, -1, NULL, NULL, "total", &error);
  ck_assert_int_eq (t->total, 2);
  AbScanParams p = { .index = "nope", .start = "Bob", .direction = AB_QDIR_OUT, .limit = -1 };
  g_autoptr (AbEdgeFrame) f = ab_engine_scan (env.engine, "likes", "likes", &p, &error);
  ck_assert_ptr_null (f);
  ck_assert_str_eq (error->message, "index `nope` is not found in label `likes.likes`.");
  g_clear_error (&error);
  p.index = "recent";
  g_autoptr (AbEdgeFrame) g = ab_engine_scan (env.engine, "likes", "missing", &p, &error);
  ck_assert_ptr_null (g);
  ck_assert_str_eq (error->message, "No such label likes.missing.");
  ab_test_env_close (&env);
}
END_TEST

static gchar *
one (const gchar *type, gint64 version, const gchar *src, const gchar *tgt, const gchar *props)
{
  return g_strdup_printf ("{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                          ",\"source\":\"%s\",\"target\":\"%s\",\"properties\":%s}}]}",
                          type, version, src, tgt, props);
}

static AbKeyStatus
mutate_one (const gchar *type, gint64 version, const gchar *src, const gchar *tgt,
            const gchar *props)
{
  g_autofree gchar *body = one (type, version, src, tgt, props);
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", body);
  return result (r, 0)->status;
}

/* 23, 27, 28, 29. */
START_TEST (out_of_order_idempotent_and_missing)
{
  open_likes (_i);
  ck_assert_int_eq (mutate_one ("INSERT", 100, "a", "b", "{\"created_at\":100}"),
                    AB_STATUS_CREATED);
  ck_assert_int_eq (mutate_one ("INSERT", 300, "a", "b", "{\"created_at\":300}"),
                    AB_STATUS_UPDATED);
  ck_assert_int_eq (mutate_one ("DELETE", 200, "a", "b", "{}"), AB_STATUS_UPDATED);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "a", AB_QDIR_OUT), 1);
  ck_assert_int_eq (mutate_one ("INSERT", 300, "a", "b", "{\"created_at\":300}"), AB_STATUS_IDLE);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "a", AB_QDIR_OUT), 1);
  ck_assert_int_eq (mutate_one ("DELETE", 5, "x", "y", "{}"), AB_STATUS_IDLE);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "x", AB_QDIR_OUT), 0);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "nobody", AB_QDIR_IN), 0);
  g_autoptr (GPtrArray) s = g_ptr_array_new ();
  g_autoptr (GPtrArray) t = g_ptr_array_new ();
  g_ptr_array_add (s, "x");
  g_ptr_array_add (t, "y");
  g_autoptr (AbEdgeFrame) got = ab_engine_get (env.engine, "likes", "likes", s, t, NULL, NULL);
  ck_assert_uint_eq (got->edges->len, 0);
  ck_assert_int_eq (got->total, 0);
  /* The old index row of version 100 is gone: one row for a->b only. */
  g_autoptr (AbEdgeFrame) f = scan ("a", AB_QDIR_OUT, -1, NULL, NULL, NULL, NULL);
  ck_assert_uint_eq (f->edges->len, 1);
  ck_assert_int_eq (((AbEdgeOut *) f->edges->pdata[0])->version, 300);
  ab_test_env_close (&env);
}
END_TEST

static void
expect_mutation_error (const gchar *body, const gchar *message_part)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "likes";
  o.table = "likes";
  g_autoptr (JsonNode) n = ab_test_json (body);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) r = ab_engine_mutate (env.engine, &o, n, &error);
  ck_assert_ptr_null (r);
  ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
  ck_assert_msg (strstr (error->message, message_part) != NULL, "message was: %s", error->message);
}

/* 14, 17 and malformed items: nothing is written when one item is bad. */
START_TEST (validation_rejects_whole_request)
{
  open_likes (_i);
  expect_mutation_error ("{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":"
                         "\"a\",\"target\":\"b\",\"properties\":{}}}]}",
                         "Property 'created_at' is required and cannot be null");
  expect_mutation_error ("{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":"
                         "\"a\",\"target\":\"b\",\"properties\":{\"created_at\":null}}}]}",
                         "Property 'created_at' is required and cannot be null");
  expect_mutation_error ("{\"mutations\":[{\"type\":\"UPDATE\",\"edge\":{\"version\":1,\"source\":"
                         "\"a\",\"target\":\"b\",\"properties\":{\"created_at\":null}}}]}",
                         "Property 'created_at' cannot be null");
  expect_mutation_error ("{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":"
                         "\"a\",\"target\":\"b\",\"properties\":{\"created_at\":\"abc\"}}}]}",
                         "created_at");
  expect_mutation_error (
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\",\"target\":"
      "\"b\",\"properties\":{\"created_at\":1}}},"
      "{\"type\":\"UPSERT\",\"edge\":{\"version\":1,\"source\":\"a\",\"target\":\"c\"}}]}",
      "mutations[1]");
  expect_mutation_error (
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"source\":\"a\",\"target\":\"b\"}}]}",
      "version");
  expect_mutation_error ("{\"muts\":[]}", "mutations");
  expect_mutation_error ("[1,2]", "mutations");
  /* a type that is an object or an array is refused like any other bad
   * type, without a GLib critical (json-glib's string getters warn on
   * them; fatal here) */
  GLogLevelFlags fatal
      = g_log_set_always_fatal (G_LOG_FATAL_MASK | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  expect_mutation_error ("{\"mutations\":[{\"type\":{},\"edge\":{\"version\":1,\"source\":"
                         "\"a\",\"target\":\"b\"}}]}",
                         "type must be INSERT, UPDATE or DELETE");
  expect_mutation_error ("{\"mutations\":[{\"type\":[\"INSERT\"],\"edge\":{\"version\":1,"
                         "\"source\":\"a\",\"target\":\"b\"}}]}",
                         "type must be INSERT, UPDATE or DELETE");
  g_log_set_always_fatal (fatal);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "a", AB_QDIR_OUT), 0);
  /* Unknown properties are dropped, valid insert is CREATED. */
  ck_assert_int_eq (mutate_one ("INSERT", 1, "a", "b", "{\"created_at\":1,\"zzz\":true}"),
                    AB_STATUS_CREATED);
  ab_test_env_close (&env);
}
END_TEST

/* The State row of likes.likes (src, tgt), or NULL when there is none. */
static GBytes *
state_row (const gchar *src, const gchar *tgt)
{
  g_autoptr (AbTableDesc) t = ab_engine_resolve (env.engine, "likes", "likes", NULL, NULL);
  AbValue s = AB_VALUE_INIT, d = AB_VALUE_INIT;
  ab_value_set_string (&s, AB_VALUE_STRING, src, strlen (src));
  ab_value_set_string (&d, AB_VALUE_STRING, tgt, strlen (tgt));
  g_auto (AbBuf) key;
  ab_buf_init (&key);
  ck_assert (ab_key_state (&key, &s, &d, t->code, NULL));
  ab_value_clear (&s);
  ab_value_clear (&d);
  GBytes *value = NULL;
  ck_assert (ab_store_get (env.engine->store, key.data, key.len, &value, NULL));
  return value;
}

/* A request with PURGE items, as the v2 purge route sends it. */
static GArray *
purge_request (const gchar *items)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "likes";
  o.table = "likes";
  o.purge = TRUE;
  g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s]}", items);
  g_autoptr (JsonNode) n = ab_test_json (body);
  g_autoptr (GError) error = NULL;
  GArray *r = ab_engine_mutate (env.engine, &o, n, &error);
  ck_assert_msg (r != NULL, "purge: %s", error != NULL ? error->message : "");
  return r;
}

#define PURGE_ITEM(src, tgt)                                                             \
  "{\"type\":\"PURGE\",\"edge\":{\"version\":1,\"source\":\"" src "\",\"target\":\"" tgt \
  "\",\"properties\":{}}}"
#define ITEM(type, v, src, tgt)                                                                  \
  "{\"type\":\"" type "\",\"edge\":{\"version\":" #v ",\"source\":\"" src "\",\"target\":\"" tgt \
  "\",\"properties\":{\"created_at\":" #v "}}}"

/* docs/data-model.md §2.5: PURGE removes the State row of an active or
 * deleted edge whatever the versions (DELETED), writes nothing for a
 * missing one (IDLE), drops the Index rows and the count of an active edge
 * only; an older INSERT then creates the edge again. In one request the last
 * PURGE wins over the events before it, whatever their versions. Only the
 * purge option admits PURGE items. */
START_TEST (purge_hard_deletes)
{
  open_likes (_i);
  g_autoptr (GArray) w
      = ab_test_mutate (&env, "likes", "likes",
                        "{\"mutations\":[" ITEM ("INSERT", 100, "a", "b") "," ITEM (
                            "INSERT", 101, "a", "c") "," ITEM ("INSERT", 102, "d", "b") "]}");
  ck_assert_int_eq (mutate_one ("DELETE", 6, "x", "y", "{}"), AB_STATUS_IDLE); /* a tombstone */
  g_autoptr (GBytes) tomb = state_row ("x", "y");
  ck_assert_ptr_nonnull (tomb);
  g_autoptr (GArray) p
      = purge_request (PURGE_ITEM ("a", "b") "," PURGE_ITEM ("x", "y") "," PURGE_ITEM ("m", "n"));
  ck_assert_int_eq (result (p, 0)->status, AB_STATUS_DELETED); /* a:b */
  ck_assert_int_eq (result (p, 1)->status, AB_STATUS_IDLE);    /* m:n */
  ck_assert_int_eq (result (p, 2)->status, AB_STATUS_DELETED); /* x:y, its tombstone */
  ck_assert_uint_eq (result (p, 0)->count, 1);
  g_autoptr (GBytes) ab = state_row ("a", "b");
  g_autoptr (GBytes) xy = state_row ("x", "y");
  g_autoptr (GBytes) mn = state_row ("m", "n");
  ck_assert_ptr_null (ab);
  ck_assert_ptr_null (xy);
  ck_assert_ptr_null (mn);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "a", AB_QDIR_OUT), 1);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "b", AB_QDIR_IN), 1);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "x", AB_QDIR_OUT), 0);
  g_autoptr (AbEdgeFrame) out = scan ("a", AB_QDIR_OUT, -1, NULL, NULL, NULL, NULL);
  assert_edges (out, (const gchar *const[]){ "a->c", NULL });
  g_autoptr (AbEdgeFrame) in = scan ("b", AB_QDIR_IN, -1, NULL, NULL, NULL, NULL);
  assert_edges (in, (const gchar *const[]){ "d->b", NULL });
  /* no tombstone: older INSERTs create both again */
  ck_assert_int_eq (mutate_one ("INSERT", 1, "a", "b", "{\"created_at\":1}"), AB_STATUS_CREATED);
  ck_assert_int_eq (mutate_one ("INSERT", 1, "x", "y", "{\"created_at\":1}"), AB_STATUS_CREATED);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "a", AB_QDIR_OUT), 2);
  /* one request: events before the last PURGE are dropped, those after fold
   * onto nothing (the applier replays the WAL so) */
  g_autoptr (GArray) mixed
      = purge_request (ITEM ("INSERT", 500, "a", "b") "," PURGE_ITEM ("a", "b") "," ITEM (
          "INSERT", 7, "a", "b") "," ITEM ("INSERT", 900, "a", "c") "," PURGE_ITEM ("a", "c"));
  ck_assert_int_eq (result (mixed, 0)->status, AB_STATUS_UPDATED); /* a:b, at 7 now */
  ck_assert_int_eq (result (mixed, 1)->status, AB_STATUS_DELETED); /* a:c */
  g_autoptr (AbEdgeFrame) left = scan ("a", AB_QDIR_OUT, -1, NULL, NULL, NULL, NULL);
  assert_edges (left, (const gchar *const[]){ "a->b", NULL });
  ck_assert_int_eq (((AbEdgeOut *) left->edges->pdata[0])->version, 7);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "a", AB_QDIR_OUT), 1);
  /* PURGE is no type of the other routes, nor of typed items */
  expect_mutation_error (
      "{\"mutations\":[" ITEM ("INSERT", 3, "q", "r") "," PURGE_ITEM ("a", "b") "]}",
      "mutations[1]: type must be INSERT, UPDATE or DELETE");
  AbMutationItem item = { .type = AB_OP_PURGE, .version = 1 };
  ab_value_set_string (&item.source, AB_VALUE_STRING, "a", 1);
  ab_value_set_string (&item.target, AB_VALUE_STRING, "b", 1);
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "likes";
  o.table = "likes";
  o.purge = TRUE;
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) typed = ab_engine_mutate_items (env.engine, &o, &item, 1, &error);
  ck_assert_ptr_null (typed);
  ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
  ab_value_clear (&item.source);
  ab_value_clear (&item.target);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "q", AB_QDIR_OUT), 0);
  ab_test_env_close (&env);
}
END_TEST

/* 31: mget cap. */
START_TEST (mget_cap)
{
  open_likes (_i);
  g_autoptr (GPtrArray) s = g_ptr_array_new ();
  g_autoptr (GPtrArray) t = g_ptr_array_new ();
  static const gchar *names[] = { "a", "b", "c", "d", "e", "f" };
  for (guint i = 0; i < 5; i++)
    g_ptr_array_add (s, (gpointer) names[i]);
  for (guint i = 0; i < 6; i++)
    g_ptr_array_add (t, (gpointer) names[i]);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) f = ab_engine_get (env.engine, "likes", "likes", s, t, NULL, &error);
  ck_assert_ptr_null (f);
  ab_assert_error (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST);
  ab_test_env_close (&env);
}
END_TEST

/* 32: a fresh foreign lock makes the key fail with ERROR; once the engine's
 * (fake) clock is past lock_stale_ms (300 s by default) it is swept. */
START_TEST (lock_contention_and_stale_sweep)
{
  AbTestClock clock;
  ab_test_env_open_clocked (&env, _i, &clock);
  ab_test_create_table (&env, "likes", LIKES);
  AbValue s = AB_VALUE_INIT, t = AB_VALUE_INIT;
  ab_value_set_string (&s, AB_VALUE_STRING, "a", 1);
  ab_value_set_string (&t, AB_VALUE_STRING, "b", 1);
  g_autoptr (GByteArray) k
      = ab_codec_lock_key (&s, &t, ab_codec_table_code ("likes", "likes"), NULL);
  g_autoptr (GByteArray) fresh = g_byte_array_new ();
  ab_codec_encode_lock_value (fresh, ab_engine_now_ms (env.engine));
  gboolean applied;
  ck_assert (ab_store_check_and_put (env.engine->store, k->data, k->len, NULL, 0, fresh->data,
                                     fresh->len, &applied, NULL));
  g_autofree gchar *body = one ("INSERT", 1, "a", "b", "{\"created_at\":1}");
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", body);
  ck_assert_int_eq (result (r, 0)->status, AB_STATUS_ERROR);
  ck_assert_uint_eq (result (r, 0)->count, 0);
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "a", AB_QDIR_OUT), 0);
  ab_test_clock_advance (&clock, 300000);
  g_autoptr (GArray) held = ab_test_mutate (&env, "likes", "likes", body);
  ck_assert_int_eq (result (held, 0)->status, AB_STATUS_ERROR); /* exactly lock_stale_ms old */
  ab_test_clock_advance (&clock, 1);
  AbStoreStats before, after;
  ab_store_stats (env.engine->store, &before);
  g_autoptr (GArray) r2 = ab_test_mutate (&env, "likes", "likes", body);
  ck_assert_int_eq (result (r2, 0)->status, AB_STATUS_CREATED);
  ab_engine_heal_flush (env.engine); /* the receipts' deletes, queued */
  ab_store_stats (env.engine->store, &after);
  g_autoptr (GBytes) left = NULL;
  ck_assert (ab_store_get (env.engine->store, k->data, k->len, &left, NULL));
  ck_assert_ptr_null (left); /* released */
  /* With transactions (lmdb, memory) the whole mutation is one batch, the
   * stale lock row deleted inside it, and no lock calls at all. Otherwise
   * the put-if-absent is refused by the stale row, one check-and-delete
   * sweeps it and the retried put-if-absent takes the lock; on an atomic
   * store the release rides in the data batch, elsewhere it is one more call.
   * Where writes heal (hbase), the sweep reads the lock row's intent with it
   * (a multi_get), and the intents and the receipts' deletes are two more
   * batches (engine/write/heal.c). */
  gboolean heals = ab_engine_heals (env.engine);
  guint64 unlocks
      = after.ops[AB_STORE_VERB_CHECK_AND_DELETE] - before.ops[AB_STORE_VERB_CHECK_AND_DELETE];
  guint64 locks = after.ops[AB_STORE_VERB_CHECK_AND_PUT] - before.ops[AB_STORE_VERB_CHECK_AND_PUT];
  gboolean txn = ab_store_can_transact (env.engine->store);
  guint64 want = txn ? 0 : ab_store_batch_is_atomic (env.engine->store) ? 1 : 2;
  ck_assert_uint_eq (unlocks, want);
  ck_assert_uint_eq (locks, txn ? 0 : 2);
  ck_assert_uint_eq (after.ops[AB_STORE_VERB_BATCH] - before.ops[AB_STORE_VERB_BATCH],
                     heals ? 3 : 1);
  ck_assert_uint_eq (after.ops[AB_STORE_VERB_MULTI_GET] - before.ops[AB_STORE_VERB_MULTI_GET],
                     txn     ? 0
                     : heals ? 2
                             : 1);
  /* a lock row whose value is not a lock time counts as stale */
  ck_assert (ab_store_check_and_put (env.engine->store, k->data, k->len, NULL, 0,
                                     (const guint8 *) "bad", 3, &applied, NULL));
  ck_assert (applied);
  g_autofree gchar *body3 = one ("INSERT", 2, "a", "b", "{\"created_at\":2}");
  g_autoptr (GArray) r3 = ab_test_mutate (&env, "likes", "likes", body3);
  ck_assert_int_eq (result (r3, 0)->status, AB_STATUS_UPDATED);
  g_autoptr (GBytes) left3 = NULL;
  ck_assert (ab_store_get (env.engine->store, k->data, k->len, &left3, NULL));
  ck_assert_ptr_null (left3);
  ab_value_clear (&s);
  ab_value_clear (&t);
  ab_test_env_close (&env);
}
END_TEST

/* Pagination of 1,000 edges with limits 25, 7 and 1, with and without a range. */
START_TEST (pagination_thousand)
{
  open_likes (_i);
  GString *body = g_string_new ("{\"mutations\":[");
  for (guint i = 0; i < 1000; i++)
    g_string_append_printf (body,
                            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"u\","
                            "\"target\":\"t%04u\",\"properties\":{\"created_at\":%u}}}",
                            i ? "," : "", 1000 + i, i, 1000 + i);
  g_string_append (body, "]}");
  g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", body->str);
  g_string_free (body, TRUE);
  ck_assert_uint_eq (r->len, 1000);
  static const gint limits[] = { 25, 7, 1 };
  static const gchar *ranges[] = { NULL, "created_at:bt:1100,1299" };
  for (guint ri = 0; ri < 2; ri++)
    for (guint li = 0; li < 3; li++)
      {
        g_autofree gchar *offset = NULL;
        gint64 expect = ri == 0 ? 1999 : 1299;
        guint seen = 0;
        gboolean more = TRUE;
        while (more)
          {
            g_autoptr (GError) error = NULL;
            g_autoptr (AbEdgeFrame) f
                = scan ("u", AB_QDIR_OUT, limits[li], offset, ranges[ri], NULL, &error);
            ck_assert_msg (f != NULL, "%s", error ? error->message : "");
            for (guint i = 0; i < f->edges->len; i++, seen++, expect--)
              ck_assert_int_eq (((AbEdgeOut *) f->edges->pdata[i])->version, expect);
            more = f->has_next;
            g_free (offset);
            offset = g_strdup (f->offset);
          }
        ck_assert_uint_eq (seen, ri == 0 ? 1000 : 200);
      }
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "u", AB_QDIR_OUT), 1000);
  ab_test_env_close (&env);
}
END_TEST

/* Random event sequences for one edge in random permutations end in the same
 * State and Count, and the Index rows match what State implies. */
START_TEST (out_of_order_property)
{
  open_likes (_i);
  GRand *rand = g_rand_new_with_seed (42 + _i);
  for (guint round = 0; round < 30; round++)
    {
      guint n = g_rand_int_range (rand, 1, 8);
      gchar **items = g_new0 (gchar *, n + 1);
      for (guint i = 0; i < n; i++)
        {
          gint64 v = g_rand_int_range (rand, 1, 1000) * 10 + i; /* distinct versions */
          const gchar *type = g_rand_boolean (rand) ? "INSERT" : "DELETE";
          items[i] = g_strdup_printf ("{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                                      ",\"source\":\"S%u\",\"target\":\"T\",\"properties\":{"
                                      "\"created_at\":%" G_GINT64_FORMAT "}}}",
                                      type, v, round, v);
        }
      gint64 final_count = -1;
      g_autofree gchar *final_scan = NULL;
      for (guint perm = 0; perm < 3; perm++)
        {
          for (guint i = n; i > 1; i--) /* shuffle */
            {
              guint j = g_rand_int_range (rand, 0, i);
              gchar *tmp = items[i - 1];
              items[i - 1] = items[j];
              items[j] = tmp;
            }
          /* each permutation replays on a fresh table name */
          g_autofree gchar *tname = g_strdup_printf ("p%u_%u", round, perm);
          g_autofree gchar *create2
              = g_strdup_printf ("{\"table\":\"%s\",%s", tname, strstr (LIKES, "\"storage"));
          ab_test_create_table (&env, "likes", create2);
          for (guint i = 0; i < n; i++) /* one request per event */
            {
              g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s]}", items[i]);
              g_autoptr (GArray) r = ab_test_mutate (&env, "likes", tname, body);
              ck_assert_int_ne (result (r, 0)->status, AB_STATUS_ERROR);
            }
          g_autofree gchar *src = g_strdup_printf ("S%u", round);
          gint64 c = ab_test_count (&env, "likes", tname, src, AB_QDIR_OUT);
          AbScanParams p
              = { .index = "recent", .start = src, .direction = AB_QDIR_OUT, .limit = -1 };
          g_autoptr (AbEdgeFrame) f = ab_engine_scan (env.engine, "likes", tname, &p, NULL);
          ck_assert_int_eq ((gint64) f->edges->len, c); /* index matches count */
          g_autofree gchar *desc
              = f->edges->len ? g_strdup_printf ("%" G_GINT64_FORMAT,
                                                 ((AbEdgeOut *) f->edges->pdata[0])->version)
                              : g_strdup ("none");
          if (perm == 0)
            {
              final_count = c;
              final_scan = g_steal_pointer (&desc);
            }
          else
            {
              ck_assert_int_eq (c, final_count);
              ck_assert_str_eq (desc, final_scan);
            }
        }
      g_strfreev (items);
    }
  g_rand_free (rand);
  ab_test_env_close (&env);
}
END_TEST

/* Edge src -> e<e> is live at version `version`, or absent. */
static void
assert_latest (const gchar *src, guint e, gboolean live, gint64 version)
{
  g_autofree gchar *tgt = g_strdup_printf ("e%u", e);
  g_autoptr (GPtrArray) s = g_ptr_array_new ();
  g_autoptr (GPtrArray) t = g_ptr_array_new ();
  g_ptr_array_add (s, (gpointer) src);
  g_ptr_array_add (t, tgt);
  g_autoptr (AbEdgeFrame) f = ab_engine_get (env.engine, "likes", "likes", s, t, NULL, NULL);
  ck_assert_uint_eq (f->edges->len, live ? 1 : 0);
  if (live)
    ck_assert_int_eq (((AbEdgeOut *) f->edges->pdata[0])->version, version);
}

typedef struct {
  guint id;
} Writer;

static gpointer
writer_thread (gpointer data)
{
  Writer *w = data;
  for (guint k = 0; k < 40; k++)
    {
      guint edge = (w->id + k) % 5;
      gint64 version = (gint64) k * 8 + w->id + 1; /* distinct across threads */
      g_autofree gchar *tgt = g_strdup_printf ("e%u", edge);
      g_autofree gchar *props = g_strdup_printf ("{\"created_at\":%" G_GINT64_FORMAT "}", version);
      g_autofree gchar *body
          = one ((k + w->id) % 3 == 0 ? "DELETE" : "INSERT", version, "c", tgt, props);
      g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", body);
      ck_assert_int_ne (result (r, 0)->status, AB_STATUS_ERROR);
    }
  return NULL;
}

/* 8 threads on the same 5 edges: state = highest version, count = actives. */
START_TEST (concurrent_writers)
{
  ab_test_env_open (&env, _i);
  env.engine->cfg.lock_retries = 200;
  ab_test_create_table (&env, "likes", LIKES);
  GThread *threads[8];
  Writer w[8];
  for (guint i = 0; i < 8; i++)
    {
      w[i].id = i;
      threads[i] = g_thread_new ("writer", writer_thread, &w[i]);
    }
  for (guint i = 0; i < 8; i++)
    g_thread_join (threads[i]);
  gint64 active = 0;
  for (guint e = 0; e < 5; e++)
    {
      /* highest version written to edge e and whether it was an INSERT */
      gint64 best = -1;
      gboolean best_insert = FALSE;
      for (guint id = 0; id < 8; id++)
        for (guint k = 0; k < 40; k++)
          if ((id + k) % 5 == e && (gint64) k * 8 + id + 1 > best)
            {
              best = (gint64) k * 8 + id + 1;
              best_insert = (k + id) % 3 != 0;
            }
      assert_latest ("c", e, best_insert, best);
      active += best_insert;
    }
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "c", AB_QDIR_OUT), active);
  ab_test_env_close (&env);
}
END_TEST

/* Batches large enough to be planned ahead of their transaction (64 keys
 * and more), from 4 threads at once, all on the same 96 edges: a plan made
 * ahead goes stale whenever another batch commits one of its keys first (in
 * an earlier group, or earlier in the same group), and must then be planned
 * again inside the transaction. Edge e of round k from thread id has version
 * (k * 96 + e) * 4 + id: the highest one of each edge is known. */
#define BIG_THREADS 4
#define BIG_ROUNDS 12
#define BIG_EDGES 96

static gboolean
big_insert (guint id, guint k, guint e)
{
  return (id + k + e) % 4 != 0;
}

static gpointer
big_writer (gpointer data)
{
  guint id = GPOINTER_TO_UINT (data);
  for (guint k = 0; k < BIG_ROUNDS; k++)
    {
      g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
      for (guint e = 0; e < BIG_EDGES; e++)
        {
          guint j = (e + id * 17) % BIG_EDGES; /* each thread in its own order */
          gint64 version = ((gint64) k * BIG_EDGES + j) * BIG_THREADS + id;
          g_string_append_printf (body,
                                  "%s{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                                  ",\"source\":\"big\",\"target\":\"e%u\",\"properties\":{"
                                  "\"created_at\":%" G_GINT64_FORMAT "}}}",
                                  e ? "," : "", big_insert (id, k, j) ? "INSERT" : "DELETE",
                                  version, j, version);
        }
      g_string_append (body, "]}");
      g_autoptr (GArray) r = ab_test_mutate (&env, "likes", "likes", body->str);
      ck_assert_uint_eq (r->len, BIG_EDGES);
      for (guint i = 0; i < r->len; i++)
        ck_assert_int_ne (result (r, i)->status, AB_STATUS_ERROR);
    }
  return NULL;
}

START_TEST (concurrent_large_batches)
{
  ab_test_env_open (&env, _i);
  ab_test_create_table (&env, "likes", LIKES);
  GThread *threads[BIG_THREADS];
  for (guint i = 0; i < BIG_THREADS; i++)
    threads[i] = g_thread_new ("big", big_writer, GUINT_TO_POINTER (i));
  for (guint i = 0; i < BIG_THREADS; i++)
    g_thread_join (threads[i]);
  gint64 active = 0;
  for (guint e = 0; e < BIG_EDGES; e++)
    {
      /* the last round's thread 3 holds the highest version of every edge */
      guint k = BIG_ROUNDS - 1, id = BIG_THREADS - 1;
      gint64 best = ((gint64) k * BIG_EDGES + e) * BIG_THREADS + id;
      gboolean live = big_insert (id, k, e);
      assert_latest ("big", e, live, best);
      active += live;
    }
  ck_assert_int_eq (ab_test_count (&env, "likes", "likes", "big", AB_QDIR_OUT), active);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbEdgeFrame) index = scan ("big", AB_QDIR_OUT, BIG_EDGES, NULL, NULL, NULL, &error);
  ck_assert_ptr_nonnull (index);
  ck_assert_int_eq (index->edges->len, active); /* one Index row per live edge */
  ab_test_env_close (&env);
}
END_TEST

/* Output edges are kept per thread for reuse: a freed edge comes back
 * empty (no properties, no offset, no endpoints, version 0), and a thread
 * keeps at most a few hundred of them. */
static AbEdgeOut *
filled_edge (void)
{
  AbEdgeOut *e = ab_edge_out_new ();
  AbValue v = AB_VALUE_INIT;
  e->version = 7;
  ab_value_set_string (&e->source, AB_VALUE_STRING, "s", 1);
  ab_value_set_string (&e->target, AB_VALUE_STRING, "t", 1);
  for (guint i = 0; i < 6; i++)
    {
      ab_value_set_string (&v, AB_VALUE_STRING, "value", 5);
      ab_edge_out_push (e, "p", &v); /* past the first room of 4: grows */
      ck_assert (ab_value_is_null (&v));
    }
  e->offset = g_strdup ("token");
  return e;
}

START_TEST (edges_come_back_empty)
{
  AbEdgeOut *first = filled_edge ();
  ab_edge_out_free (first);
  AbEdgeOut *e = ab_edge_out_new ();
  ck_assert_int_eq (e->version, 0);
  ck_assert (ab_value_is_null (&e->source) && ab_value_is_null (&e->target));
  ck_assert_uint_eq (e->n_props, 0);
  ck_assert_uint_ge (e->props_room, 6); /* its room kept */
  ck_assert_ptr_null (e->offset);
  ab_edge_out_free (e);
  /* more than a thread keeps: the rest are destroyed (leak-free under ASan) */
  g_autoptr (GPtrArray) many = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_edge_out_free);
  for (guint i = 0; i < 1000; i++)
    g_ptr_array_add (many, filled_edge ());
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("engine");
  TCase *tc = tcase_create ("scenarios");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, quick_start, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, pagination_and_ranges, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, scan_errors_and_total, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, out_of_order_idempotent_and_missing, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, validation_rejects_whole_request, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, purge_hard_deletes, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, mget_cap, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, vertex_rows, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, lock_contention_and_stale_sweep, 0, AB_TEST_N_STORES);
  /* memory and lmdb: the stores with transactions, where plans are made
   * ahead (on hbase concurrent batches of the same edges fight over their
   * lock rows, and a key that loses says ERROR, as designed) */
  tcase_add_loop_test (tc, concurrent_large_batches, 0, 2);
  tcase_add_test (tc, edges_come_back_empty);
  tcase_add_loop_test (tc, pagination_thousand, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, out_of_order_property, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, concurrent_writers, 0, AB_TEST_N_STORES);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
