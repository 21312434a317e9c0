/* REST suite porting upstream's graph/v3 edge and vertex server tests (EdgeMutationValidation,
 * ImmutableEdge, EdgeMutationInsertMerge, VertexIntegration, EdgeCacheQuery, ActionbaseQueryCache):
 * the same requests and asserted answers, one fresh server per case, on every store. */
#include "rest_harness.h"

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

static JsonNode *
ok (const gchar *method, const gchar *path, const gchar *body)
{
  return ab_http_ok (&srv, method, path, body);
}

/* Upstream asserts only the 400; the needle makes sure it is for the reason
 * the case is about (not, say, a missing table). */
static void
bad_request (const gchar *method, const gchar *path, const gchar *body, const gchar *needle)
{
  ab_expect_error (&srv, method, path, body, 400, needle);
}

static void
create_database (const gchar *db, const gchar *comment)
{
  g_autofree gchar *body
      = g_strdup_printf ("{\"database\":\"%s\",\"comment\":\"%s\"}", db, comment);
  g_autoptr (JsonNode) n = ok ("POST", DB, body);
}

/* The table create body upstream sends: schema is JSON text. */
static gchar *
table_body (const gchar *table, const gchar *schema, const gchar *storage, const gchar *mode,
            const gchar *comment)
{
  return g_strdup_printf ("{\"table\":\"%s\",\"schema\":%s,\"storage\":\"%s\",\"mode\":\"%s\","
                          "\"comment\":\"%s\"}",
                          table, schema, storage, mode, comment);
}

static void
create_table (const gchar *db, const gchar *table, const gchar *schema, const gchar *storage,
              const gchar *mode, const gchar *comment)
{
  g_autofree gchar *path = g_strdup_printf (DB "/%s/tables", db);
  g_autofree gchar *body = table_body (table, schema, storage, mode, comment);
  g_autoptr (JsonNode) n = ok ("POST", path, body);
}

/* One mutation; id, source and target are JSON text, NULL when the kind has none. */
typedef struct {
  const gchar *type;
  gint64 version;
  const gchar *id;
  const gchar *source;
  const gchar *target;
  const gchar *properties;
} Mutation;

/* {"mutations":[…]} with each item's payload under `what` ("edge" or "vertex"). */
static gchar *
mutations_body (const gchar *what, const Mutation *m, guint n)
{
  GString *s = g_string_new ("{\"mutations\":[");
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (s, "%s{\"type\":\"%s\",\"%s\":{\"version\":%" G_GINT64_FORMAT,
                              i > 0 ? "," : "", m[i].type, what, m[i].version);
      if (m[i].id != NULL)
        g_string_append_printf (s, ",\"id\":%s", m[i].id);
      if (m[i].source != NULL)
        g_string_append_printf (s, ",\"source\":%s,\"target\":%s", m[i].source, m[i].target);
      g_string_append_printf (s, ",\"properties\":%s}}", m[i].properties);
    }
  g_string_append (s, "]}");
  return g_string_free (s, FALSE);
}

/* POST of n mutations to path (answer 200; owned). */
static JsonNode *
mutate (const gchar *path, const gchar *what, const Mutation *m, guint n)
{
  g_autofree gchar *body = mutations_body (what, m, n);
  return ok ("POST", path, body);
}

static void
mutate_bad (const gchar *path, const Mutation *m, const gchar *needle)
{
  g_autofree gchar *body = mutations_body ("edge", m, 1);
  bad_request ("POST", path, body, needle);
}

/* ---- EdgeMutationValidationTest ---- */

#define VDB DB "/validation-test-db/tables"
#define VSYNC VDB "/validation-sync-edge/edges/sync"
#define VASYNC VDB "/validation-async-edge/edges"
static const gchar *SCORE_TAG_SCHEMA
    = "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"src\"},\"target\":{"
      "\"type\":\"string\",\"comment\":\"tgt\"},\"properties\":[{\"name\":\"score\",\"type\":"
      "\"long\",\"comment\":\"score\",\"nullable\":false},{\"name\":\"tag\",\"type\":\"string\","
      "\"comment\":\"tag\",\"nullable\":true}],\"direction\":\"OUT\",\"indexes\":[],\"groups\":[]}";

/* Upstream's setup: a SYNC and an ASYNC table with `score` (long, not null) and `tag`. */
static void
validation_tables (void)
{
  create_database ("validation-test-db", "validation test db");
  create_table ("validation-test-db", "validation-sync-edge", SCORE_TAG_SCHEMA,
                "datastore://test_namespace/validation_sync_edge", "SYNC",
                "sync edge for validation test");
  create_table ("validation-test-db", "validation-async-edge", SCORE_TAG_SCHEMA,
                "datastore://test_namespace/validation_async_edge", "ASYNC",
                "async edge for validation test");
}

/* EdgeMutationValidationTest: sync INSERT missing non-nullable field returns 400 */
START_TEST (sync_insert_missing_required_400)
{
  validation_tables ();
  Mutation m = { "INSERT", 1, NULL, "\"A\"", "\"B\"", "{\"tag\":\"hello\"}" };
  mutate_bad (VSYNC, &m, "'score' is required");
}
END_TEST

/* EdgeMutationValidationTest: sync INSERT with explicit null for non-nullable field returns 400 */
START_TEST (sync_insert_null_required_400)
{
  validation_tables ();
  Mutation m = { "INSERT", 2, NULL, "\"A\"", "\"B\"", "{\"score\":null,\"tag\":\"hello\"}" };
  mutate_bad (VSYNC, &m, "Property 'score'");
}
END_TEST

/* EdgeMutationValidationTest: sync UPDATE with explicit null for non-nullable field returns 400 */
START_TEST (sync_update_null_required_400)
{
  validation_tables ();
  Mutation m = { "UPDATE", 3, NULL, "\"A\"", "\"B\"", "{\"score\":null}" };
  mutate_bad (VSYNC, &m, "'score' cannot be null");
}
END_TEST

/* EdgeMutationValidationTest: sync INSERT with all required fields returns 200 */
START_TEST (sync_insert_complete_created)
{
  validation_tables ();
  Mutation m = { "INSERT", 10, NULL, "\"X\"", "\"Y\"", "{\"score\":42}" };
  g_autoptr (JsonNode) r = mutate (VSYNC, "edge", &m, 1);
  ck_assert_str_eq (ab_json_str (r, "results.0.status"), "CREATED");
}
END_TEST

/* EdgeMutationValidationTest: async INSERT missing non-nullable field returns 400 (not QUEUED) */
START_TEST (async_insert_missing_required_400)
{
  validation_tables ();
  Mutation m = { "INSERT", 1, NULL, "\"A\"", "\"B\"", "{\"tag\":\"hello\"}" };
  mutate_bad (VASYNC, &m, "'score' is required");
}
END_TEST

/* EdgeMutationValidationTest: async INSERT with all required fields returns 200 with QUEUED
 * status */
START_TEST (async_insert_complete_queued)
{
  validation_tables ();
  Mutation m = { "INSERT", 10, NULL, "\"X\"", "\"Y\"", "{\"score\":99}" };
  g_autoptr (JsonNode) r = mutate (VASYNC, "edge", &m, 1);
  ck_assert_str_eq (ab_json_str (r, "results.0.status"), "QUEUED");
}
END_TEST

/* ---- ImmutableEdgeE2ETest ---- */

#define IDB DB "/immutable_db/tables"
#define ILOG IDB "/immutable_log/edges"
#define SEQ_ASC "{\"index\":\"seq_asc\",\"fields\":[{\"field\":\"seq\",\"order\":\"ASC\"}]}"

/* An IMMUTABLE_EDGE schema (long partition -> string message id, `seq` not
 * null) with the given extra properties, direction and indexes (owned). */
static gchar *
immutable_schema (const gchar *more_props, const gchar *direction, const gchar *indexes)
{
  return g_strdup_printf (
      "{\"type\":\"IMMUTABLE_EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"partition\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"message id\"},\"properties\":[{\"name\":"
      "\"seq\",\"type\":\"long\",\"comment\":\"sequence\",\"nullable\":false}%s],"
      "\"direction\":\"%s\",\"indexes\":[%s],\"groups\":[]}",
      more_props, direction, indexes);
}

static void
immutable_table (void)
{
  create_database ("immutable_db", "immutable edge e2e db");
  g_autofree gchar *schema = immutable_schema (
      ",{\"name\":\"payload\",\"type\":\"string\",\"comment\":\"payload\",\"nullable\":true}",
      "OUT", SEQ_ASC);
  create_table ("immutable_db", "immutable_log", schema, "datastore://immutable_ns/immutable_log",
                "SYNC", "append-only log");
}

/* Appends three messages (seq and version base, base + 1, base + 2) to a partition. */
static JsonNode *
append (const gchar *partition, gint64 base, const gchar *const targets[3],
        const gchar *const payloads[3])
{
  Mutation m[3];
  gchar *props[3], *target[3];
  for (guint i = 0; i < 3; i++)
    {
      props[i] = g_strdup_printf ("{\"seq\":%" G_GINT64_FORMAT ",\"payload\":\"%s\"}", base + i,
                                  payloads[i]);
      target[i] = g_strdup_printf ("\"%s\"", targets[i]);
      m[i] = (Mutation){ "INSERT", base + i, NULL, partition, target[i], props[i] };
    }
  JsonNode *r = mutate (ILOG, "edge", m, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_free (props[i]);
      g_free (target[i]);
    }
  return r;
}

/* Upstream's append(): partition 1 gets m1, m2, m3 (seq 1000..1002, payloads a, b, c). */
static void
append_partition1 (void)
{
  const gchar *targets[] = { "m1", "m2", "m3" }, *payloads[] = { "a", "b", "c" };
  g_autoptr (JsonNode) r = append ("1", 1000, targets, payloads);
  ck_assert_uint_eq (ab_json_len (r, "results"), 3);
  ck_assert_str_eq (ab_json_str (r, "results.0.status"), "CREATED");
}

/* ImmutableEdgeE2ETest: append then scan returns edges in index order */
START_TEST (immutable_append_then_scan)
{
  immutable_table ();
  append_partition1 ();
  g_autoptr (JsonNode) s = ok ("GET", ILOG "/scan/seq_asc?start=1&direction=OUT&limit=10", NULL);
  ck_assert_uint_eq (ab_json_len (s, "edges"), 3);
  ck_assert_str_eq (ab_json_str (s, "edges.0.target"), "m1");
  ck_assert_str_eq (ab_json_str (s, "edges.0.properties.payload"), "a");
  ck_assert_str_eq (ab_json_str (s, "edges.2.target"), "m3");
}
END_TEST

/* ImmutableEdgeE2ETest: scanDelete evicts matching rows and leaves the rest */
START_TEST (immutable_scan_delete_evicts)
{
  immutable_table ();
  const gchar *targets[] = { "d1", "d2", "d3" }, *payloads[] = { "x", "y", "z" };
  g_autoptr (JsonNode) a = append ("2", 2000, targets, payloads);
  g_autoptr (JsonNode) d = ok (
      "DELETE", ILOG "/scan/seq_asc?start=2&direction=OUT&limit=100&ranges=seq:lte:2001", NULL);
  ck_assert_int_eq (ab_json_int (d, "deleted"), 2);
  g_autoptr (JsonNode) s = ok ("GET", ILOG "/scan/seq_asc?start=2&direction=OUT&limit=10", NULL);
  ck_assert_uint_eq (ab_json_len (s, "edges"), 1);
  ck_assert_str_eq (ab_json_str (s, "edges.0.target"), "d3");
}
END_TEST

/* ImmutableEdgeE2ETest: scanDelete over the max limit is rejected with 400 */
START_TEST (immutable_scan_delete_over_max_limit)
{
  immutable_table ();
  bad_request ("DELETE", ILOG "/scan/seq_asc?start=2&direction=OUT&limit=1001", NULL,
               "between 1 and 1000");
}
END_TEST

/* ImmutableEdgeE2ETest: creating an immutable table with two indexes is rejected with 400 */
START_TEST (immutable_two_indexes_refused)
{
  immutable_table ();
  g_autofree gchar *schema = immutable_schema (
      "", "OUT",
      SEQ_ASC ",{\"index\":\"seq_desc\",\"fields\":[{\"field\":\"seq\",\"order\":\"DESC\"}]}");
  g_autofree gchar *body
      = table_body ("two_index_log", schema, "datastore://immutable_ns/two_index_log", "SYNC",
                    "two indexes should be rejected");
  bad_request ("POST", IDB, body, "at most one index");
}
END_TEST

/* ImmutableEdgeE2ETest: creating an immutable table with BOTH direction is rejected with 400 */
START_TEST (immutable_both_direction_refused)
{
  immutable_table ();
  g_autofree gchar *schema = immutable_schema ("", "BOTH", SEQ_ASC);
  g_autofree gchar *body
      = table_body ("both_dir_log", schema, "datastore://immutable_ns/both_dir_log", "SYNC",
                    "BOTH direction should be rejected");
  bad_request ("POST", IDB, body, "not BOTH");
}
END_TEST

/* ImmutableEdgeE2ETest: point get is rejected with 400 */
START_TEST (immutable_point_get_refused)
{
  immutable_table ();
  append_partition1 ();
  bad_request ("POST", ILOG "/get", "{\"source\":[1],\"target\":[\"m1\"]}",
               "not supported on immutable");
}
END_TEST

/* ImmutableEdgeE2ETest: UPDATE mutation is rejected with 400 */
START_TEST (immutable_update_refused)
{
  immutable_table ();
  Mutation m = { "UPDATE", 2000, NULL, "1", "\"m1\"", "{\"seq\":2000}" };
  mutate_bad (ILOG, &m, "INSERT only");
}
END_TEST

/* ImmutableEdgeE2ETest: DELETE mutation is rejected with 400 */
START_TEST (immutable_delete_refused)
{
  immutable_table ();
  Mutation m = { "DELETE", 2000, NULL, "1", "\"m1\"", "{}" };
  mutate_bad (ILOG, &m, "INSERT only");
}
END_TEST

/* ---- EdgeMutationInsertMergeTest ---- */

#define MSYNC DB "/merge_test_db/tables/merge_sync_edge/edges/sync"

/* Upstream's INSERT_MERGE feature flag scoped to merge_test_db is this
 * server's `insert-merge-databases` ([engine]): the fresh server is restarted
 * with it on its own directory, then upstream's setup runs. */
static void
insert_merge_server (void)
{
  ab_server_stop (&srv);
  g_autofree gchar *conf = g_build_filename (srv.dir, "insert-merge.conf", NULL);
  ck_assert (
      g_file_set_contents (conf, "[engine]\ninsert-merge-databases=merge_test_db\n", -1, NULL));
  const gchar *args[] = { "--config", conf, NULL };
  ab_server_restart (&srv, args);
  create_database ("merge_test_db", "insert-merge test db");
  create_table ("merge_test_db", "merge_sync_edge",
                "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"src\"},"
                "\"target\":{\"type\":\"string\",\"comment\":\"tgt\"},\"properties\":[{\"name\":"
                "\"required\",\"type\":\"long\",\"comment\":\"required\",\"nullable\":false},{"
                "\"name\":\"optional\",\"type\":\"string\",\"comment\":\"optional\",\"nullable\":"
                "true}],\"direction\":\"OUT\",\"indexes\":[],\"groups\":[]}",
                "datastore://test_namespace/merge_sync_edge", "SYNC",
                "SYNC edge for insert-merge test");
}

static const gchar *
merge_status (gint64 version, const gchar *source, const gchar *target, const gchar *props,
              JsonNode **answer)
{
  Mutation m = { "INSERT", version, NULL, source, target, props };
  *answer = mutate (MSYNC, "edge", &m, 1);
  return ab_json_str (*answer, "results.0.status");
}

/* EdgeMutationInsertMergeTest: sync INSERT missing non-nullable field on an empty row is reported
 * as INVALID */
START_TEST (merge_insert_missing_required_invalid)
{
  insert_merge_server ();
  g_autoptr (JsonNode) r = NULL;
  ck_assert_str_eq (merge_status (1, "\"A\"", "\"B\"", "{\"optional\":\"hello\"}", &r), "INVALID");
}
END_TEST

/* EdgeMutationInsertMergeTest: sync INSERT with explicit null for non-nullable field still
 * returns 400 */
START_TEST (merge_insert_null_required_400)
{
  insert_merge_server ();
  Mutation m = { "INSERT", 1, NULL, "\"A\"", "\"B\"", "{\"required\":null}" };
  mutate_bad (MSYNC, &m, "'required' cannot be null");
}
END_TEST

/* EdgeMutationInsertMergeTest: sync partial INSERTs merge into one row (fan-in) */
START_TEST (merge_partial_inserts_fan_in)
{
  insert_merge_server ();
  g_autoptr (JsonNode) first = NULL, second = NULL;
  ck_assert_str_eq (merge_status (1, "\"C\"", "\"D\"", "{\"required\":7}", &first), "CREATED");
  /* without `required`: legal under merge, the stored value stays */
  ck_assert_str_eq (merge_status (2, "\"C\"", "\"D\"", "{\"optional\":\"hello\"}", &second),
                    "UPDATED");
}
END_TEST

/* ---- VertexIntegrationTest ---- */

#define USERS DB "/vertex_db/tables/users/vertices"
#define USERS_LONG DB "/vertex_db/tables/users_long/vertices"

static void
vertex_tables (void)
{
  create_database ("vertex_db", "vertex integration test db");
  create_table ("vertex_db", "users",
                "{\"type\":\"VERTEX\",\"id\":{\"type\":\"string\",\"comment\":\"user unique "
                "key\"},\"properties\":[{\"name\":\"name\",\"type\":\"string\",\"comment\":\"user "
                "name\"},{\"name\":\"age\",\"type\":\"long\",\"comment\":\"user age\",\"nullable\":"
                "true}]}",
                "datastore://vertex_ns/users", "SYNC", "users vertex table");
  create_table ("vertex_db", "users_long",
                "{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\",\"comment\":\"numeric user "
                "id\"},\"properties\":[{\"name\":\"name\",\"type\":\"string\",\"comment\":\"user "
                "name\"}]}",
                "datastore://vertex_ns/users_long", "SYNC", "users vertex table with numeric id");
}

/* VertexIntegrationTest: test vertex mutations and get queries */
START_TEST (vertex_mutations_and_get)
{
  vertex_tables ();
  const Mutation ins[] = {
    { "INSERT", 1, "\"user1\"", NULL, NULL, "{\"name\":\"Alice\",\"age\":20}" },
    { "INSERT", 1, "\"user2\"", NULL, NULL, "{\"name\":\"Bob\",\"age\":25}" },
  };
  g_autoptr (JsonNode) r = mutate (USERS, "vertex", ins, 2);
  ck_assert_uint_eq (ab_json_len (r, "results"), 2);
  ck_assert_str_eq (ab_json_str (r, "results.0.status"), "CREATED");
  ck_assert_str_eq (ab_json_str (r, "results.0.id"), "user1");
  ck_assert_str_eq (ab_json_str (r, "results.1.status"), "CREATED");
  ck_assert_str_eq (ab_json_str (r, "results.1.id"), "user2");

  g_autoptr (JsonNode) g = ok ("GET", USERS "/get?id=user1,user2,user3", NULL);
  ck_assert_uint_eq (ab_json_len (g, "vertices"), 2);
  ck_assert_str_eq (ab_json_str (g, "vertices.0.id"), "user1");
  ck_assert_str_eq (ab_json_str (g, "vertices.0.properties.name"), "Alice");
  ck_assert_int_eq (ab_json_int (g, "vertices.0.properties.age"), 20);
  ck_assert_str_eq (ab_json_str (g, "vertices.1.id"), "user2");
  ck_assert_str_eq (ab_json_str (g, "vertices.1.properties.name"), "Bob");
  ck_assert_int_eq (ab_json_int (g, "vertices.1.properties.age"), 25);

  const Mutation upd
      = { "UPDATE", 2, "\"user1\"", NULL, NULL, "{\"name\":\"Alice In Wonderland\",\"age\":21}" };
  g_autoptr (JsonNode) u = mutate (USERS, "vertex", &upd, 1);
  ck_assert_uint_eq (ab_json_len (u, "results"), 1);
  ck_assert_str_eq (ab_json_str (u, "results.0.status"), "UPDATED");

  g_autoptr (JsonNode) g2 = ok ("GET", USERS "/get?id=user1", NULL);
  ck_assert_uint_eq (ab_json_len (g2, "vertices"), 1);
  ck_assert_str_eq (ab_json_str (g2, "vertices.0.id"), "user1");
  ck_assert_str_eq (ab_json_str (g2, "vertices.0.properties.name"), "Alice In Wonderland");
  ck_assert_int_eq (ab_json_int (g2, "vertices.0.properties.age"), 21);

  const Mutation del = { "DELETE", 3, "\"user1\"", NULL, NULL, "{}" };
  g_autoptr (JsonNode) d = mutate (USERS, "vertex", &del, 1);
  ck_assert_uint_eq (ab_json_len (d, "results"), 1);
  ck_assert_str_eq (ab_json_str (d, "results.0.status"), "DELETED");

  g_autoptr (JsonNode) g3 = ok ("GET", USERS "/get?id=user1", NULL);
  ck_assert_uint_eq (ab_json_len (g3, "vertices"), 0);
}
END_TEST

/* VertexIntegrationTest: test vertex with LONG id type */
START_TEST (vertex_long_id)
{
  vertex_tables ();
  const Mutation ins[] = {
    { "INSERT", 1, "100", NULL, NULL, "{\"name\":\"Alice\"}" },
    { "INSERT", 1, "200", NULL, NULL, "{\"name\":\"Bob\"}" },
  };
  g_autoptr (JsonNode) r = mutate (USERS_LONG, "vertex", ins, 2);
  ck_assert_uint_eq (ab_json_len (r, "results"), 2);
  g_autoptr (JsonNode) g = ok ("GET", USERS_LONG "/get?id=100,200,300", NULL);
  ck_assert_uint_eq (ab_json_len (g, "vertices"), 2);
  ck_assert_int_eq (ab_json_int (g, "vertices.0.id"), 100);
  ck_assert_int_eq (ab_json_int (g, "vertices.1.id"), 200);
}
END_TEST

/* ---- EdgeCacheQueryE2ETest (its dimension case is test_query.c's cache_dimensions) ---- */

#define WISHLIST DB "/test_db/tables/wishlist/edges/seek"
/* The one-field cache on createdAt, newest first, as upstream declares it. */
#define RECENT_WISHLIST                                                                       \
  "{\"cache\":\"recent_wishlist\",\"fields\":[{\"field\":\"createdAt\",\"order\":\"DESC\"}]," \
  "\"limit\":100}"

/* Upstream's setup: test_db.wishlist with three caches, source 1000's two
 * edges without permission, source 1's five with one; test_db.orders, a
 * multi-edge table with one cache, and two orders 1000 -> 2000. */
static void
cache_tables (void)
{
  create_database ("test_db", "test db");
  create_table (
      "test_db", "wishlist",
      "{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"src\"},\"target\":{"
      "\"type\":\"long\",\"comment\":\"tgt\"},\"properties\":[{\"name\":\"createdAt\",\"type\":"
      "\"long\",\"comment\":\"ts\",\"nullable\":true},{\"name\":\"permission\",\"type\":"
      "\"string\",\"comment\":\"perm\",\"nullable\":true}],\"direction\":\"BOTH\",\"indexes\":"
      "[],\"groups\":[],\"caches\":[" RECENT_WISHLIST ",{\"cache\":\"permission_created_at_desc\","
      "\"fields\":[{\"field\":\"permission\",\"order\":\"ASC\"},{\"field\":\"createdAt\","
      "\"order\":\"DESC\"}],\"limit\":100},{\"cache\":\"whitelisted_permission\",\"fields\":[{"
      "\"field\":\"permission\",\"order\":\"ASC\",\"dimension\":[\"me\"]},{\"field\":"
      "\"createdAt\",\"order\":\"DESC\"}],\"limit\":100}]}",
      "datastore://test_namespace/wishlist", "SYNC", "edge with cache");
  const gchar *path = DB "/test_db/tables/wishlist/edges";
  const Mutation single[] = {
    { "INSERT", 1, NULL, "1000", "2000", "{\"createdAt\":100}" },
    { "INSERT", 1, NULL, "1000", "2001", "{\"createdAt\":101}" },
  };
  g_autoptr (JsonNode) a = mutate (path, "edge", single, G_N_ELEMENTS (single));
  const Mutation compound[] = {
    { "INSERT", 1, NULL, "1", "2", "{\"permission\":\"me\",\"createdAt\":200}" },
    { "INSERT", 1, NULL, "1", "3", "{\"permission\":\"others\",\"createdAt\":500}" },
    { "INSERT", 1, NULL, "1", "4", "{\"permission\":\"others\",\"createdAt\":400}" },
    { "INSERT", 1, NULL, "1", "5", "{\"permission\":\"others\",\"createdAt\":300}" },
    { "INSERT", 1, NULL, "1", "6", "{\"permission\":\"others\",\"createdAt\":100}" },
  };
  g_autoptr (JsonNode) b = mutate (path, "edge", compound, G_N_ELEMENTS (compound));
  create_table (
      "test_db", "orders",
      "{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"long\",\"comment\":\"order id\"},"
      "\"source\":{\"type\":\"long\",\"comment\":\"buyer\"},\"target\":{\"type\":\"long\","
      "\"comment\":\"seller\"},\"properties\":[{\"name\":\"paidAt\",\"type\":\"long\","
      "\"comment\":\"payment time\",\"nullable\":false}],\"direction\":\"BOTH\",\"indexes\":"
      "[],\"groups\":[],\"caches\":[{\"cache\":\"paid_at_desc\",\"fields\":[{\"field\":"
      "\"paidAt\",\"order\":\"DESC\"}],\"limit\":100}]}",
      "datastore://test_namespace/orders", "SYNC", "multi edge with cache");
  const Mutation orders[] = {
    { "INSERT", 1, "100", "1000", "2000", "{\"paidAt\":300}" },
    { "INSERT", 1, "101", "1000", "2000", "{\"paidAt\":200}" },
  };
  g_autoptr (JsonNode) c
      = mutate (DB "/test_db/tables/orders/multi-edges", "edge", orders, G_N_ELEMENTS (orders));
}

/* EdgeCacheQueryE2ETest: seek OUT returns edges in DESC order */
START_TEST (seek_out_desc_order)
{
  cache_tables ();
  g_autoptr (JsonNode) s = ok ("GET", WISHLIST "/recent_wishlist?start=1000&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (s, "count"), 2);
  ck_assert_uint_eq (ab_json_len (s, "edges"), 2);
  ck_assert_int_eq (ab_json_int (s, "edges.0.target"), 2001);
  ck_assert_int_eq (ab_json_int (s, "edges.0.properties.createdAt"), 101);
  ck_assert_int_eq (ab_json_int (s, "edges.1.target"), 2000);
  ck_assert_int_eq (ab_json_int (s, "edges.1.properties.createdAt"), 100);
  ck_assert (!ab_json_bool (s, "hasNext"));
}
END_TEST

/* EdgeCacheQueryE2ETest: seek OUT with offset paginates results */
START_TEST (seek_out_offset_pages)
{
  cache_tables ();
  g_autoptr (JsonNode) p1
      = ok ("GET", WISHLIST "/recent_wishlist?start=1000&direction=OUT&limit=1", NULL);
  ck_assert_int_eq (ab_json_int (p1, "count"), 1);
  ck_assert_int_eq (ab_json_int (p1, "edges.0.target"), 2001);
  ck_assert (ab_json_bool (p1, "hasNext"));
  ck_assert_str_ne (ab_json_str (p1, "offset"), "");
  g_autofree gchar *offset = g_uri_escape_string (ab_json_str (p1, "offset"), NULL, FALSE);
  g_autofree gchar *page2 = g_strdup_printf (
      WISHLIST "/recent_wishlist?start=1000&direction=OUT&limit=1&offset=%s", offset);
  g_autoptr (JsonNode) p2 = ok ("GET", page2, NULL);
  ck_assert_int_eq (ab_json_int (p2, "count"), 1);
  ck_assert_int_eq (ab_json_int (p2, "edges.0.target"), 2000);
  ck_assert_int_eq (ab_json_int (p2, "edges.0.properties.createdAt"), 100);
  ck_assert (!ab_json_bool (p2, "hasNext"));
  /* upstream's doesNotExist: absent, or null (a JSON path reading null) */
  JsonNode *last = ab_json_at (p2, "offset");
  ck_assert (last == NULL || JSON_NODE_HOLDS_NULL (last));
}
END_TEST

/* EdgeCacheQueryE2ETest: seek IN returns edges for target vertex */
START_TEST (seek_in_for_target)
{
  cache_tables ();
  g_autoptr (JsonNode) s = ok ("GET", WISHLIST "/recent_wishlist?start=2000&direction=IN", NULL);
  ck_assert_int_eq (ab_json_int (s, "count"), 1);
  ck_assert_int_eq (ab_json_int (s, "edges.0.source"), 1000);
  ck_assert_int_eq (ab_json_int (s, "edges.0.target"), 2000);
  ck_assert_int_eq (ab_json_int (s, "edges.0.properties.createdAt"), 100);
}
END_TEST

/* EdgeCacheQueryE2ETest: seek with single-field range filter excludes rows below the bound */
START_TEST (seek_single_field_range)
{
  cache_tables ();
  g_autoptr (JsonNode) s = ok (
      "GET", WISHLIST "/recent_wishlist?start=1000&direction=OUT&ranges=createdAt:gte:101", NULL);
  ck_assert_int_eq (ab_json_int (s, "count"), 1);
  ck_assert_int_eq (ab_json_int (s, "edges.0.target"), 2001);
  ck_assert_int_eq (ab_json_int (s, "edges.0.properties.createdAt"), 101);
  ck_assert (!ab_json_bool (s, "hasNext"));
}
END_TEST

/* EdgeCacheQueryE2ETest: seek with compound Eq filter returns only the matching permission group */
START_TEST (seek_compound_eq)
{
  cache_tables ();
  g_autoptr (JsonNode) s = ok (
      "GET",
      WISHLIST "/permission_created_at_desc?start=1&direction=OUT&ranges=permission:eq:others",
      NULL);
  ck_assert_int_eq (ab_json_int (s, "count"), 4);
  ck_assert_int_eq (ab_json_int (s, "edges.0.target"), 3);
  ck_assert_int_eq (ab_json_int (s, "edges.0.properties.createdAt"), 500);
  ck_assert_int_eq (ab_json_int (s, "edges.3.target"), 6);
  ck_assert_int_eq (ab_json_int (s, "edges.3.properties.createdAt"), 100);
}
END_TEST

/* EdgeCacheQueryE2ETest: seek with compound Eq plus trailing range filters within the group */
START_TEST (seek_compound_eq_trailing_range)
{
  cache_tables ();
  g_autoptr (JsonNode) s = ok ("GET",
                               WISHLIST "/permission_created_at_desc?start=1&direction=OUT"
                                        "&ranges=permission:eq:others;createdAt:lt:300",
                               NULL);
  ck_assert_int_eq (ab_json_int (s, "count"), 1);
  ck_assert_int_eq (ab_json_int (s, "edges.0.target"), 6);
  ck_assert_int_eq (ab_json_int (s, "edges.0.properties.createdAt"), 100);
}
END_TEST

/* EdgeCacheQueryE2ETest: seek MultiEdge OUT returns edges with id as target */
START_TEST (seek_multi_edge_id_as_target)
{
  cache_tables ();
  g_autoptr (JsonNode) s = ok (
      "GET", DB "/test_db/tables/orders/edges/seek/paid_at_desc?start=1000&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (s, "count"), 2);
  ck_assert_int_eq (ab_json_int (s, "edges.0.target"), 100);
  ck_assert_int_eq (ab_json_int (s, "edges.0.properties.paidAt"), 300);
  ck_assert_int_eq (ab_json_int (s, "edges.1.target"), 101);
  ck_assert_int_eq (ab_json_int (s, "edges.1.properties.paidAt"), 200);
}
END_TEST

/* ---- ActionbaseQueryCacheE2ETest (its first case asserts an old stub's empty CACHE hop) ---- */

/* EDGE long -> long with createdAt and its created_at_desc index, then `caches` (owned). */
static gchar *
hop_schema (const gchar *caches)
{
  return g_strdup_printf (
      "{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"source\"},\"target\":"
      "{\"type\":\"long\",\"comment\":\"target\"},\"properties\":[{\"name\":\"createdAt\","
      "\"type\":\"long\",\"comment\":\"ts\",\"nullable\":true}],\"direction\":\"BOTH\","
      "\"indexes\":[{\"index\":\"created_at_desc\",\"fields\":[{\"field\":\"createdAt\","
      "\"order\":\"DESC\"}]}],\"groups\":[]%s}",
      caches);
}

/* Upstream's setup: multihop-db1.follows (1000 -> 2000, 2001) and
 * multihop-db2.wishlist with a cache (2000 -> 3000, 3001; 2001 -> 3002). */
static void
multihop_tables (void)
{
  create_database ("multihop-db1", "test db");
  create_database ("multihop-db2", "test db");
  g_autofree gchar *follows_schema = hop_schema ("");
  g_autofree gchar *wishlist_schema = hop_schema (",\"caches\":[" RECENT_WISHLIST "]");
  create_table ("multihop-db1", "follows", follows_schema, "datastore://multihop_ns/follows",
                "SYNC", "hop1");
  create_table ("multihop-db2", "wishlist", wishlist_schema, "datastore://multihop_ns/wishlist",
                "SYNC", "hop2 with cache");
  const Mutation follows[] = {
    { "INSERT", 1, NULL, "1000", "2000", "{\"createdAt\":100}" },
    { "INSERT", 1, NULL, "1000", "2001", "{\"createdAt\":101}" },
  };
  g_autoptr (JsonNode) a
      = mutate (DB "/multihop-db1/tables/follows/edges", "edge", follows, G_N_ELEMENTS (follows));
  const Mutation wishes[] = {
    { "INSERT", 1, NULL, "2000", "3000", "{\"createdAt\":200}" },
    { "INSERT", 1, NULL, "2000", "3001", "{\"createdAt\":201}" },
    { "INSERT", 1, NULL, "2001", "3002", "{\"createdAt\":202}" },
  };
  g_autoptr (JsonNode) b
      = mutate (DB "/multihop-db2/tables/wishlist/edges", "edge", wishes, G_N_ELEMENTS (wishes));
}

/* ActionbaseQueryCacheE2ETest: scan-only query returns real data */
START_TEST (scan_only_query_real_data)
{
  multihop_tables ();
  g_autoptr (JsonNode) q = ok (
      "POST", "/graph/v3/query",
      "{\"query\":[{\"type\":\"SCAN\",\"name\":\"follows_scan\",\"database\":\"multihop-db1\","
      "\"table\":\"follows\",\"source\":{\"type\":\"VALUE\",\"value\":[1000]},\"direction\":"
      "\"OUT\",\"index\":\"created_at_desc\",\"limit\":100,\"include\":true}]}");
  ck_assert_uint_eq (ab_json_len (q, "items"), 1);
  ck_assert_str_eq (ab_json_str (q, "items.0.name"), "follows_scan");
  ck_assert_uint_eq (ab_json_len (q, "items.0.data"), 2);
}
END_TEST

static void
add_tests (TCase *tc)
{
  tcase_add_test (tc, sync_insert_missing_required_400);
  tcase_add_test (tc, sync_insert_null_required_400);
  tcase_add_test (tc, sync_update_null_required_400);
  tcase_add_test (tc, sync_insert_complete_created);
  tcase_add_test (tc, async_insert_missing_required_400);
  tcase_add_test (tc, async_insert_complete_queued);
  tcase_add_test (tc, immutable_append_then_scan);
  tcase_add_test (tc, immutable_scan_delete_evicts);
  tcase_add_test (tc, immutable_scan_delete_over_max_limit);
  tcase_add_test (tc, immutable_two_indexes_refused);
  tcase_add_test (tc, immutable_both_direction_refused);
  tcase_add_test (tc, immutable_point_get_refused);
  tcase_add_test (tc, immutable_update_refused);
  tcase_add_test (tc, immutable_delete_refused);
  tcase_add_test (tc, merge_insert_missing_required_invalid);
  tcase_add_test (tc, merge_insert_null_required_400);
  tcase_add_test (tc, merge_partial_inserts_fan_in);
  tcase_add_test (tc, vertex_mutations_and_get);
  tcase_add_test (tc, vertex_long_id);
  tcase_add_test (tc, seek_out_desc_order);
  tcase_add_test (tc, seek_out_offset_pages);
  tcase_add_test (tc, seek_in_for_target);
  tcase_add_test (tc, seek_single_field_range);
  tcase_add_test (tc, seek_compound_eq);
  tcase_add_test (tc, seek_compound_eq_trailing_range);
  tcase_add_test (tc, seek_multi_edge_id_as_target);
  tcase_add_test (tc, scan_only_query_real_data);
}

int
main (void)
{
  return ab_rest_main_stores ("upstream-edges", add_tests, setup, teardown, 60);
}
