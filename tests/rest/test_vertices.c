/* REST suite for vertex tables (lmdb and memory; hbase under hbase-suites.sh):
 * schema rules and the v2 label, POST …/vertices with the edge semantics, GET
 * …/vertices/get, modes, WAL and CDC records, and the 400 answers of each. */
#include <string.h>
#include "rest_harness.h"

#define DB "/graph/v3/databases"
#define T DB "/shop/tables"
#define USERS T "/users"

static AbServer srv;
static gchar *cdc_arg;

static void
setup (void)
{
  gchar *dir = g_dir_make_tmp ("ab-vtx-XXXXXX", NULL);
  cdc_arg = g_strdup_printf ("file:%s/cdc", dir);
  const gchar *extra[] = { "--cdc", cdc_arg, NULL };
  ab_server_start (&srv, dir, extra);
  g_free (dir);
}

static void
teardown (void)
{
  ab_server_destroy (&srv);
  g_clear_pointer (&cdc_arg, g_free);
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

static const gchar *USERS_T
    = "{\"table\":\"%s\",\"storage\":\"datastore://shop/%s\",\"comment\":\"profiles\","
      "\"mode\":\"%s\",\"schema\":{\"type\":\"VERTEX\",\"id\":{\"type\":\"%s\",\"comment\":\"user "
      "id\"},\"properties\":[{\"name\":\"name\",\"type\":\"string\",\"nullable\":false,"
      "\"comment\":\"\"},{\"name\":\"age\",\"type\":\"int\",\"nullable\":true,\"comment\":\"\"}]}}";

static void
create_vertex_table (const gchar *name, const gchar *mode, const gchar *id_type)
{
  g_autofree gchar *body = g_strdup_printf (USERS_T, name, name, mode, id_type);
  g_autoptr (JsonNode) t = ok ("POST", T, body);
  ck_assert_str_eq (ab_json_str (t, "type"), "vertex");
}

static void
create_tables (void)
{
  g_autoptr (JsonNode) d = ok ("POST", DB, "{\"database\":\"shop\",\"comment\":\"c\"}");
  create_vertex_table ("users", "SYNC", "string");
  g_autoptr (JsonNode) e
      = ok ("POST", T,
            "{\"table\":\"likes\",\"storage\":\"datastore://shop/likes\",\"comment\":\"\","
            "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
            "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"OUT\","
            "\"properties\":[],\"indexes\":[]}}");
}

/* One mutation item of the vertex form. */
static gchar *
item (const gchar *type, gint64 version, const gchar *id_json, const gchar *props)
{
  return g_strdup_printf (
      "{\"type\":\"%s\",\"vertex\":{\"version\":%" G_GINT64_FORMAT ",\"id\":%s%s%s}}", type,
      version, id_json, props != NULL ? ",\"properties\":" : "", props != NULL ? props : "");
}

static JsonNode *
mutate1 (const gchar *table, const gchar *type, gint64 version, const gchar *id_json,
         const gchar *props)
{
  g_autofree gchar *it = item (type, version, id_json, props);
  g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s]}", it);
  g_autofree gchar *path = g_strdup_printf (T "/%s/vertices", table);
  return ok ("POST", path, body);
}

static JsonNode *
get (const gchar *query)
{
  g_autofree gchar *path = g_strdup_printf (USERS "/vertices/get?%s", query);
  return ok ("GET", path, NULL);
}

START_TEST (schema_and_labels)
{
  create_tables ();
  /* v3: type vertex, an id field, properties; no direction, indexes, groups
   * or caches in the answer (upstream's Vertex schema has none) */
  g_autoptr (JsonNode) t = ok ("GET", USERS, NULL);
  ck_assert_str_eq (ab_json_str (t, "type"), "vertex");
  ck_assert_str_eq (ab_json_str (t, "schema.type"), "vertex");
  ck_assert_str_eq (ab_json_str (t, "schema.id.type"), "string");
  ck_assert_str_eq (ab_json_str (t, "schema.id.comment"), "user id");
  ck_assert_str_eq (ab_json_str (t, "schema.properties.1.name"), "age");
  ck_assert_ptr_null (ab_json_at (t, "schema.direction"));
  ck_assert_ptr_null (ab_json_at (t, "schema.indexes"));
  ck_assert_ptr_null (ab_json_at (t, "schema.source"));
  /* v2: a VERTEX label, OUT, src the id, tgt the marker's string type */
  g_autoptr (JsonNode) l = ok ("GET", "/graph/v2/service/shop/label/users", NULL);
  ck_assert_str_eq (ab_json_str (l, "type"), "VERTEX");
  ck_assert_str_eq (ab_json_str (l, "dirType"), "OUT");
  ck_assert_str_eq (ab_json_str (l, "schema.src.type"), "STRING");
  ck_assert_str_eq (ab_json_str (l, "schema.src.desc"), "user id");
  ck_assert_str_eq (ab_json_str (l, "schema.tgt.type"), "STRING");
  ck_assert_str_eq (ab_json_str (l, "schema.tgt.desc"), "<vertex>");
  ck_assert_uint_eq (ab_json_len (l, "indices"), 0);
  /* a v2 VERTEX label reads back as a v3 vertex table */
  g_autoptr (JsonNode) v2 = ok (
      "POST", "/graph/v2/service/shop/label/items",
      "{\"desc\":\"catalog\",\"type\":\"VERTEX\",\"dirType\":\"OUT\",\"storage\":"
      "\"datastore://shop/items\",\"schema\":{\"src\":{\"type\":\"LONG\",\"desc\":\"item id\"},"
      "\"tgt\":{\"type\":\"STRING\",\"desc\":\"\"},\"fields\":[{\"name\":\"title\",\"type\":"
      "\"STRING\",\"nullable\":true,\"desc\":\"\"}]}}");
  g_autoptr (JsonNode) items = ok ("GET", T "/items", NULL);
  ck_assert_str_eq (ab_json_str (items, "type"), "vertex");
  ck_assert_str_eq (ab_json_str (items, "schema.id.type"), "long");
  ck_assert_str_eq (ab_json_str (items, "schema.properties.0.name"), "title");
  g_autoptr (JsonNode) m = mutate1 ("items", "INSERT", 1, "7", "{\"title\":\"lamp\"}");
  ck_assert_int_eq (ab_json_int (m, "results.0.id"), 7);
  /* the rules: OUT only, no indexes, groups or caches */
  static const struct {
    const gchar *extra;
    const gchar *needle;
  } bad[] = {
    { ",\"direction\":\"BOTH\"", "direction OUT" },
    { ",\"direction\":\"IN\"", "direction OUT" },
    { ",\"indexes\":[{\"index\":\"i\",\"fields\":[{\"field\":\"age\",\"order\":\"ASC\"}]}]",
      "cannot have indexes" },
    { ",\"groups\":[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[]}]", "cannot have groups" },
    { ",\"caches\":[{\"cache\":\"c\",\"fields\":[{\"field\":\"age\",\"order\":\"ASC\"}]}]",
      "cannot have caches" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree gchar *body = g_strdup_printf (
          "{\"table\":\"v%u\",\"storage\":\"datastore://shop/v%u\",\"comment\":\"\","
          "\"schema\":{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\",\"comment\":\"\"},"
          "\"properties\":[{\"name\":\"age\",\"type\":\"int\",\"nullable\":true,\"comment\":\"\"}]"
          "%s}}",
          i, i, bad[i].extra);
      expect_400 ("POST", T, body, bad[i].needle);
    }
  /* explicit OUT and empty lists are accepted */
  g_autoptr (JsonNode) out
      = ok ("POST", T,
            "{\"table\":\"plain\",\"storage\":\"datastore://shop/plain\",\"comment\":\"\","
            "\"schema\":{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\",\"comment\":\"\"},"
            "\"direction\":\"OUT\",\"indexes\":[],\"groups\":[],\"caches\":[]}}");
  expect_400 ("POST", "/graph/v2/service/shop/label/bad",
              "{\"desc\":\"\",\"type\":\"VERTEX\",\"dirType\":\"BOTH\",\"storage\":"
              "\"datastore://shop/bad\",\"schema\":{\"src\":{\"type\":\"LONG\"},\"tgt\":{\"type\":"
              "\"STRING\"},\"fields\":[]}}",
              "direction OUT");
}
END_TEST

START_TEST (mutate_and_get)
{
  create_tables ();
  /* INSERT: results carry the id, not source/target */
  g_autoptr (JsonNode) a
      = mutate1 ("users", "INSERT", 10, "\"alice\"", "{\"name\":\"Alice\",\"age\":30}");
  ck_assert_uint_eq (ab_json_len (a, "results"), 1);
  ck_assert_str_eq (ab_json_str (a, "results.0.id"), "alice");
  ck_assert_str_eq (ab_json_str (a, "results.0.status"), "CREATED");
  ck_assert_int_eq (ab_json_int (a, "results.0.count"), 1);
  ck_assert_ptr_null (ab_json_at (a, "results.0.source"));
  ck_assert_ptr_null (ab_json_at (a, "results.0.target"));
  g_autoptr (JsonNode) g = get ("id=alice");
  ck_assert_uint_eq (ab_json_len (g, "vertices"), 1);
  ck_assert_int_eq (ab_json_int (g, "vertices.0.version"), 10);
  ck_assert_str_eq (ab_json_str (g, "vertices.0.id"), "alice");
  ck_assert_str_eq (ab_json_str (g, "vertices.0.properties.name"), "Alice");
  ck_assert_int_eq (ab_json_int (g, "vertices.0.properties.age"), 30);
  JsonNode *ctx = ab_json_at (g, "vertices.0.context");
  ck_assert (ctx != NULL && JSON_NODE_HOLDS_OBJECT (ctx));
  ck_assert_uint_eq (json_object_get_size (json_node_get_object (ctx)), 0);
  ck_assert_ptr_null (ab_json_at (g, "vertices.0.target"));
  ck_assert_int_eq (ab_json_int (g, "count"), 1);
  ck_assert_int_eq (ab_json_int (g, "total"), 1);
  ck_assert_ptr_null (ab_json_at (g, "hasNext"));
  /* UPDATE merges; an older event changes nothing (IDLE) */
  g_autoptr (JsonNode) u = mutate1 ("users", "UPDATE", 11, "\"alice\"", "{\"age\":31}");
  ck_assert_str_eq (ab_json_str (u, "results.0.status"), "UPDATED");
  g_autoptr (JsonNode) old = mutate1 ("users", "UPDATE", 9, "\"alice\"", "{\"age\":99}");
  ck_assert_str_eq (ab_json_str (old, "results.0.status"), "IDLE");
  g_autoptr (JsonNode) g2 = get ("id=alice");
  ck_assert_int_eq (ab_json_int (g2, "vertices.0.version"), 11);
  ck_assert_int_eq (ab_json_int (g2, "vertices.0.properties.age"), 31);
  ck_assert_str_eq (ab_json_str (g2, "vertices.0.properties.name"), "Alice");
  /* a request of several ids: answered sorted by the id's text, the events
   * of one id folded by version whatever their order in the request */
  g_autoptr (JsonNode) many = ok (
      "POST", USERS "/vertices",
      "{\"mutations\":["
      "{\"type\":\"INSERT\",\"vertex\":{\"version\":5,\"id\":\"carol\",\"properties\":{\"name\":"
      "\"Carol\"}}},"
      "{\"type\":\"UPDATE\",\"vertex\":{\"version\":7,\"id\":\"bob\",\"properties\":{\"age\":40}}},"
      "{\"type\":\"INSERT\",\"vertex\":{\"version\":6,\"id\":\"bob\",\"properties\":{\"name\":"
      "\"Bob\",\"age\":20}}},"
      "{\"type\":\"INSERT\",\"vertex\":{\"version\":5,\"id\":\"a!\",\"properties\":{\"name\":"
      "\"X\"}}},"
      "{\"type\":\"INSERT\",\"vertex\":{\"version\":5,\"id\":\"a\",\"properties\":{\"name\":"
      "\"Y\"}}}]}");
  /* "a" before "a!" (by the id alone, not by "a:-" and "a!:-") */
  ck_assert_uint_eq (ab_json_len (many, "results"), 4);
  ck_assert_str_eq (ab_json_str (many, "results.0.id"), "a");
  ck_assert_str_eq (ab_json_str (many, "results.1.id"), "a!");
  ck_assert_str_eq (ab_json_str (many, "results.2.id"), "bob");
  ck_assert_int_eq (ab_json_int (many, "results.2.count"), 2);
  ck_assert_str_eq (ab_json_str (many, "results.2.status"), "CREATED");
  ck_assert_str_eq (ab_json_str (many, "results.3.id"), "carol");
  /* get: request order, repeatable and comma lists, duplicates once,
   * missing ids absent */
  g_autoptr (JsonNode) m = get ("id=carol&id=nobody,bob&id=carol");
  ck_assert_int_eq (ab_json_int (m, "count"), 2);
  ck_assert_str_eq (ab_json_str (m, "vertices.0.id"), "carol");
  ck_assert_ptr_null (ab_json_at (m, "vertices.0.properties.age")); /* null: absent */
  ck_assert_str_eq (ab_json_str (m, "vertices.1.id"), "bob");
  ck_assert_int_eq (ab_json_int (m, "vertices.1.version"), 7);
  ck_assert_int_eq (ab_json_int (m, "vertices.1.properties.age"), 40);
  /* filters on properties */
  g_autoptr (JsonNode) f = get ("id=alice,bob,carol&filters=age:gt:35");
  ck_assert_int_eq (ab_json_int (f, "count"), 1);
  ck_assert_str_eq (ab_json_str (f, "vertices.0.id"), "bob");
  /* DELETE hides the vertex; an INSERT older than the delete stays IDLE */
  g_autoptr (JsonNode) del = mutate1 ("users", "DELETE", 20, "\"alice\"", NULL);
  ck_assert_str_eq (ab_json_str (del, "results.0.status"), "DELETED");
  g_autoptr (JsonNode) gone = get ("id=alice");
  ck_assert_int_eq (ab_json_int (gone, "count"), 0);
  ck_assert_uint_eq (ab_json_len (gone, "vertices"), 0);
  g_autoptr (JsonNode) late
      = mutate1 ("users", "INSERT", 19, "\"alice\"", "{\"name\":\"Late\",\"age\":1}");
  ck_assert_str_eq (ab_json_str (late, "results.0.status"), "IDLE");
  g_autoptr (JsonNode) again
      = mutate1 ("users", "INSERT", 21, "\"alice\"", "{\"name\":\"Again\",\"age\":2}");
  ck_assert_str_eq (ab_json_str (again, "results.0.status"), "CREATED");
  /* /vertices/sync and the edge-form read of the same row, (id, "-") */
  g_autoptr (JsonNode) s = ok ("POST", USERS "/vertices/sync?force=true",
                               "{\"mutations\":[{\"type\":\"UPDATE\",\"vertex\":{\"version\":"
                               "22,\"id\":\"alice\",\"properties\":{\"age\":3}}}]}");
  ck_assert_str_eq (ab_json_str (s, "results.0.status"), "UPDATED");
  g_autoptr (JsonNode) e = ok ("GET", USERS "/edges/get?source=alice&target=-", NULL);
  ck_assert_str_eq (ab_json_str (e, "edges.0.source"), "alice");
  ck_assert_str_eq (ab_json_str (e, "edges.0.target"), "-");
  ck_assert_int_eq (ab_json_int (e, "edges.0.properties.age"), 3);
  /* the query document's SELF item reads the same row */
  g_autoptr (JsonNode) q
      = ok ("POST", "/graph/v3/query",
            "{\"query\":[{\"type\":\"SELF\",\"name\":\"me\",\"database\":\"shop\",\"table\":"
            "\"users\",\"source\":{\"type\":\"VALUE\",\"value\":[\"alice\",\"bob\"]},"
            "\"include\":true}]}");
  ck_assert_int_eq (ab_json_int (q, "items.0.rows"), 2);
  /* long ids: cast from text and JSON numbers alike */
  create_vertex_table ("nums", "SYNC", "long");
  g_autoptr (JsonNode) n = mutate1 ("nums", "INSERT", 1, "\"42\"", "{\"name\":\"n\"}");
  ck_assert_int_eq (ab_json_int (n, "results.0.id"), 42);
  g_autoptr (JsonNode) ng = ok ("GET", T "/nums/vertices/get?id=42", NULL);
  ck_assert_int_eq (ab_json_int (ng, "vertices.0.id"), 42);
  expect_400 ("GET", T "/nums/vertices/get?id=x", NULL, "id");
}
END_TEST

START_TEST (bad_requests)
{
  create_tables ();
  /* each table kind has its endpoints */
  expect_400 ("POST", T "/likes/vertices",
              "{\"mutations\":[{\"type\":\"INSERT\",\"vertex\":{\"version\":1,\"id\":\"a\"}}]}",
              "is not a vertex table: use the /edges endpoints");
  expect_400 ("POST", USERS "/edges",
              "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\","
              "\"target\":\"-\",\"properties\":{\"name\":\"A\"}}}]}",
              "is a vertex table: use the /vertices endpoints");
  expect_400 ("POST", USERS "/multi-edges",
              "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"id\":\"a\"}}]}",
              "use the /vertices endpoints");
  expect_400 ("GET", T "/likes/vertices/get?id=a", NULL, "vertices/get needs a vertex table");
  /* items */
  static const struct {
    const gchar *item;
    const gchar *needle;
  } bad[] = {
    { "{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\"}}",
      "mutations[1]: vertex must be an object" },
    { "{\"type\":\"INSERT\",\"vertex\":{\"version\":1,\"properties\":{\"name\":\"A\"}}}",
      "vertex.id is required" },
    { "{\"type\":\"INSERT\",\"vertex\":{\"id\":\"a\",\"properties\":{\"name\":\"A\"}}}",
      "vertex.version is required" },
    { "{\"type\":\"INSERT\",\"vertex\":{\"version\":1,\"id\":\"-\",\"properties\":{\"name\":"
      "\"A\"}}}",
      "reserved marker" },
    { "{\"type\":\"INSERT\",\"vertex\":{\"version\":1,\"id\":\"a\",\"properties\":{\"age\":1}}}",
      "Property 'name' is required" },
    { "{\"type\":\"UPDATE\",\"vertex\":{\"version\":1,\"id\":\"a\",\"properties\":{\"name\":null}}"
      "}",
      "Property 'name' cannot be null" },
    { "{\"type\":\"INSERT\",\"vertex\":{\"version\":1,\"id\":\"a\",\"properties\":[]}}",
      "vertex.properties must be an object" },
    { "{\"type\":\"UPSERT\",\"vertex\":{\"version\":1,\"id\":\"a\"}}",
      "type must be INSERT, UPDATE or DELETE" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      /* a good item first: nothing of the request is written */
      g_autofree gchar *body = g_strdup_printf (
          "{\"mutations\":[{\"type\":\"INSERT\",\"vertex\":{\"version\":1,\"id\":\"good\","
          "\"properties\":{\"name\":\"G\"}}},%s]}",
          bad[i].item);
      expect_400 ("POST", USERS "/vertices", body, bad[i].needle);
    }
  g_autoptr (JsonNode) none = get ("id=good");
  ck_assert_int_eq (ab_json_int (none, "count"), 0);
  expect_400 ("POST", USERS "/vertices", "{\"vertices\":[]}", "mutations");
  /* get: id required, capped like mget */
  expect_400 ("GET", USERS "/vertices/get", NULL, "id is required");
  GString *many = g_string_new (USERS "/vertices/get?id=v0");
  for (guint i = 1; i <= 25; i++)
    g_string_append_printf (many, "&id=v%u", i);
  expect_400 ("GET", many->str, NULL, "too many vertices requested: 26 ids > 25");
  g_string_free (many, TRUE);
  g_autoptr (JsonNode) cap = get ("id=v1,v2,v3,v4,v5,v6,v7,v8,v9,v10,v11,v12,v13,v14,v15,v16,v17,"
                                  "v18,v19,v20,v21,v22,v23,v24,v25");
  ck_assert_int_eq (ab_json_int (cap, "count"), 0);
  /* an unknown table is a bad request on the data endpoints, as for edges */
  expect_400 ("GET", T "/nope/vertices/get?id=a", NULL, "No such label shop.nope");
  expect_400 ("POST", T "/nope/vertices", "{\"mutations\":[]}", "No such label shop.nope");
}
END_TEST

/* Every JSON line of every segment under srv.dir/sub, in order. */
static GPtrArray *
read_lines (const gchar *sub)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  g_autofree gchar *d = g_build_filename (srv.dir, sub, NULL);
  GDir *gd = g_dir_open (d, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const gchar *name;
  while (gd != NULL && (name = g_dir_read_name (gd)) != NULL)
    if (g_str_has_suffix (name, ".jsonl"))
      g_ptr_array_add (names, g_strdup (name));
  if (gd != NULL)
    g_dir_close (gd);
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree gchar *p = g_build_filename (d, (gchar *) names->pdata[i], NULL);
      g_autofree gchar *text = NULL;
      ck_assert (g_file_get_contents (p, &text, NULL, NULL));
      g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
      for (guint l = 0; lines[l] != NULL; l++)
        if (lines[l][0] != '\0')
          {
            JsonNode *n = json_from_string (lines[l], NULL);
            ck_assert (n != NULL);
            g_ptr_array_add (out, n);
          }
    }
  return out;
}

START_TEST (modes_wal_and_cdc)
{
  create_tables ();
  g_autoptr (JsonNode) a
      = mutate1 ("users", "INSERT", 10, "\"alice\"", "{\"name\":\"Alice\",\"age\":30}");
  g_autoptr (JsonNode) d = mutate1 ("users", "DELETE", 11, "\"alice\"", NULL);
  /* WAL: the edge (id, "-") of the v2 record form */
  g_autoptr (GPtrArray) wal = read_lines ("wal");
  ck_assert_uint_ge (wal->len, 2);
  JsonNode *w0 = wal->pdata[0];
  ck_assert_str_eq (ab_json_str (w0, "op"), "INSERT");
  ck_assert_str_eq (ab_json_str (w0, "label"), "shop.users");
  ck_assert_int_eq (ab_json_int (w0, "edge.ts"), 10);
  ck_assert_str_eq (ab_json_str (w0, "edge.src"), "alice");
  ck_assert_str_eq (ab_json_str (w0, "edge.tgt"), "-");
  ck_assert_str_eq (ab_json_str (w0, "edge.props.name"), "Alice");
  /* CDC: before/after states and acc, one record per applied key */
  g_autoptr (GPtrArray) cdc = NULL;
  for (guint attempt = 0; attempt < 50; attempt++)
    {
      g_clear_pointer (&cdc, g_ptr_array_unref);
      cdc = read_lines ("cdc");
      if (cdc->len >= 2)
        break;
      g_usleep (100000);
    }
  ck_assert_uint_eq (cdc->len, 2);
  ck_assert_str_eq (ab_json_str (cdc->pdata[0], "status"), "CREATED");
  ck_assert_int_eq (ab_json_int (cdc->pdata[0], "acc"), 1);
  ck_assert (ab_json_is_null (cdc->pdata[0], "before"));
  ck_assert_str_eq (ab_json_str (cdc->pdata[0], "after.src"), "alice");
  ck_assert_str_eq (ab_json_str (cdc->pdata[0], "after.tgt"), "-");
  ck_assert (ab_json_bool (cdc->pdata[0], "after.active"));
  ck_assert_str_eq (ab_json_str (cdc->pdata[1], "status"), "DELETED");
  ck_assert_int_eq (ab_json_int (cdc->pdata[1], "acc"), -1);
  ck_assert (!ab_json_bool (cdc->pdata[1], "after.active"));
  /* ASYNC: QUEUED, then applied from the WAL by the applier */
  create_vertex_table ("queued", "ASYNC", "string");
  g_autoptr (JsonNode) q = mutate1 ("queued", "INSERT", 1, "\"zed\"", "{\"name\":\"Zed\"}");
  ck_assert_str_eq (ab_json_str (q, "results.0.id"), "zed");
  ck_assert_str_eq (ab_json_str (q, "results.0.status"), "QUEUED");
  gint64 seen = 0;
  for (guint attempt = 0; attempt < 100 && seen == 0; attempt++)
    {
      g_autoptr (JsonNode) g = ok ("GET", T "/queued/vertices/get?id=zed", NULL);
      seen = ab_json_int (g, "count");
      if (seen == 0)
        g_usleep (100000);
    }
  ck_assert_int_eq (seen, 1);
  /* DROP: accepted, never applied; DENY: 400 */
  create_vertex_table ("dropped", "DROP", "string");
  g_autoptr (JsonNode) dr = mutate1 ("dropped", "INSERT", 1, "\"x\"", "{\"name\":\"X\"}");
  ck_assert_str_eq (ab_json_str (dr, "results.0.status"), "QUEUED");
  create_vertex_table ("denied", "DENY", "string");
  expect_400 ("POST", T "/denied/vertices",
              "{\"mutations\":[{\"type\":\"INSERT\",\"vertex\":{\"version\":1,\"id\":\"x\","
              "\"properties\":{\"name\":\"X\"}}}]}",
              "denies mutations");
  g_usleep (300000);
  g_autoptr (JsonNode) never = ok ("GET", T "/dropped/vertices/get?id=x", NULL);
  ck_assert_int_eq (ab_json_int (never, "count"), 0);
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, schema_and_labels);
  tcase_add_test (tc, mutate_and_get);
  tcase_add_test (tc, bad_requests);
  tcase_add_test (tc, modes_wal_and_cdc);
}

int
main (void)
{
  return ab_rest_main_stores ("vertices", add_tests, setup, teardown, 60);
}
