/* actionbase-admin backup and restore on real stores, lmdb and rocksdb each: a backup
 * taken while a writer writes restores to exactly its snapshot and verifies clean; the
 * binary's round trip, corruption, non-empty targets, resume, native copy; HBase. */
#include <check.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <stdatomic.h>
#include <string.h>
#include "../hbase/hbase_test_uri.h"
#include "../unit/engine/engine_fixture.h"
#include "admin/dump.h"
#include "codec/digest.h"
#include "verify/verify.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"likes\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

/* ---- helpers ---- */

static const gchar *
bin (const gchar *name)
{
  static gchar *paths[2];
  guint i = g_str_equal (name, "actionbase-admin") ? 0 : 1;
  if (paths[i] == NULL)
    {
      const gchar *dir = g_getenv ("AB_BIN_DIR");
      paths[i] = g_build_filename (dir != NULL ? dir : "src", name, NULL);
    }
  return paths[i];
}

typedef struct {
  gint status;
  gchar *out, *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Runs a binary of the build (NULL-terminated arguments) and collects it. */
static void
run (Run *r, const gchar *program, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  va_list ap;
  const gchar *a;
  g_ptr_array_add (argv, (gpointer) bin (program));
  va_start (ap, program);
  while ((a = va_arg (ap, const gchar *)) != NULL)
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GSubprocess) p
      = g_subprocess_newv ((const gchar *const *) argv->pdata,
                           G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  ck_assert_msg (p != NULL, "spawn %s: %s", bin (program), error ? error->message : "");
  ck_assert (g_subprocess_communicate_utf8 (p, NULL, NULL, &r->out, &r->err, &error));
  r->status = g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
  ck_assert_msg (strstr (r->err, "Sanitizer") == NULL, "sanitizer report:\n%s", r->err);
}

#define assert_contains(hay, needle) \
  ck_assert_msg (strstr ((hay), (needle)) != NULL, "expected '%s' in:\n%s", (needle), (hay))

/* An engine on a fresh store (AB_TEST_LMDB, AB_TEST_ROCKSDB) with likes.likes
 * and n edges. */
static void
seed_on (AbTestEnv *env, guint n, int store)
{
  ab_test_env_open (env, store);
  ab_test_create_table (env, "likes", LIKES);
  for (guint i = 0; i < n; i += 100)
    {
      g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
      for (guint j = i; j < MIN (n, i + 100); j++)
        g_string_append_printf (
            body,
            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"u%u\","
            "\"target\":\"i%u\",\"properties\":{\"created_at\":%u}}}",
            j > i ? "," : "", 1000 + j, j % 37, j, 1000 + j);
      g_string_append (body, "]}");
      g_array_unref (ab_test_mutate (env, "likes", "likes", body->str));
    }
}

/* The URI the env's store (or a native copy) is read by, in this process
 * and in another: lmdb's as it is; rocksdb read-only beside the test's own
 * writer (in this process every open of a directory shares the first). */
static gchar *
reader_uri (int store, const gchar *dir)
{
  return store == AB_TEST_LMDB ? g_strdup_printf ("lmdb:%s?sync=0", dir)
                               : g_strdup_printf ("rocksdb:%s?readonly=1", dir);
}

/* A store of the kind of store in dir, as the binary is given it. */
static gchar *
local_uri (int store, const gchar *dir)
{
  return g_strdup_printf ("%s:%s", ab_test_store_kind (store), dir);
}

static gchar *
new_dir (const gchar *tag)
{
  g_autofree gchar *pattern = g_strdup_printf ("ab-%s-XXXXXX", tag);
  return g_dir_make_tmp (pattern, NULL);
}

static void
rm_rf (const gchar *path)
{
  g_autoptr (GFile) f = g_file_new_for_path (path);
  g_autoptr (GFileEnumerator) e = g_file_enumerate_children (
      f, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFileInfo *info;
  while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
    {
      g_autofree gchar *child = g_build_filename (path, g_file_info_get_name (info), NULL);
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
        rm_rf (child);
      else
        g_remove (child);
      g_object_unref (info);
    }
  g_rmdir (path);
}

/* Rows: GBytes key, value, key, value... in key order. */
static gboolean
collect_row (const guint8 *key, gsize klen, const guint8 *value, gsize vlen, gpointer user)
{
  g_ptr_array_add (user, g_bytes_new (key, klen));
  g_ptr_array_add (user, g_bytes_new (value, vlen));
  return TRUE;
}

static GPtrArray *
snapshot_rows (AbSnapshot *snap)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  AbScanRange all = { 0 };
  g_autoptr (GError) error = NULL;
  ck_assert_msg (ab_snapshot_scan (snap, &all, collect_row, rows, &error), "scan: %s",
                 error ? error->message : "");
  return rows;
}

static GPtrArray *
store_rows (AbStore *s)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbSnapshot) snap = ab_store_snapshot_open (s, &error);
  ck_assert_msg (snap != NULL, "snapshot: %s", error ? error->message : "");
  return snapshot_rows (snap);
}

static GPtrArray *
uri_rows (const gchar *uri)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbStore) s = ab_store_open (uri, &error);
  ck_assert_msg (s != NULL, "open %s: %s", uri, error ? error->message : "");
  return store_rows (s);
}

static void
assert_same_rows (GPtrArray *want, GPtrArray *got)
{
  ck_assert_msg (want->len > 0, "no rows to compare");
  ck_assert_msg (want->len == got->len, "%u rows expected, %u found", want->len / 2, got->len / 2);
  for (guint i = 0; i < want->len; i++)
    ck_assert_msg (g_bytes_equal (want->pdata[i], got->pdata[i]), "row %u differs (%s)", i / 2,
                   i % 2 ? "value" : "key");
}

static guint
count_chunks (const gchar *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  guint n = 0;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    n += g_str_has_prefix (name, "chunk-");
  return n;
}

/* The verifier over an engine on the store: clean, with states checked. */
static void
assert_verifies_clean (AbEngine *engine)
{
  AbVerifyOptions o;
  AbVerifyStats st;
  g_autoptr (GError) error = NULL;
  ab_verify_options_init (&o);
  ab_verify_stats_init (&st);
  ck_assert_msg (ab_verify_run (engine, &o, &st, &error), "verify: %s",
                 error ? error->message : "");
  ck_assert_msg (st.state_rows > 0, "the verifier saw no State rows");
  ck_assert_msg (ab_verify_stats_mismatches (&st) == 0, "%" G_GUINT64_FORMAT " mismatches",
                 ab_verify_stats_mismatches (&st));
  ab_verify_stats_clear (&st);
}

static void
restore_into (AbStore *target, const gchar *target_uri, const gchar *dir)
{
  AbDumpRestoreOptions o = { .target_uri = target_uri, .batch_rows = 97 };
  AbDumpStats st = { 0 };
  g_autoptr (GError) error = NULL;
  ck_assert_msg (ab_dump_restore (target, dir, &o, &st, &error), "restore: %s",
                 error ? error->message : "");
  /* RocksDB takes each chunk as one table file, ingested; the others batches */
  gboolean rocks = g_str_equal (ab_store_kind (target), "rocksdb");
  ck_assert_uint_eq (st.table_files, rocks ? st.chunks : 0);
}

/* ---- a backup while a writer writes ---- */

typedef struct {
  AbEngine *engine;
  atomic_int stop;
  atomic_int writes;
  atomic_int failures;
} Writer;

static gpointer
writer_main (gpointer data)
{
  Writer *w = data;
  for (guint n = 0; !atomic_load (&w->stop); n++)
    {
      /* updates (new created_at moves the index row), deletes and inserts */
      const gchar *type = n % 5 == 4 ? "DELETE" : n % 5 == 3 ? "INSERT" : "UPDATE";
      g_autofree gchar *body = g_strdup_printf (
          "{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%u,\"source\":\"u%u\","
          "\"target\":\"i%u\",\"properties\":{\"created_at\":%u}}},"
          "{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"w%u\",\"target\":\"x%u\","
          "\"properties\":{\"created_at\":%u}}}]}",
          type, 100000 + n, n % 37, (n * 7) % 400, 100000 + n, 100000 + n, n % 11, n, 100000 + n);
      g_autoptr (JsonNode) node = json_from_string (body, NULL);
      AbMutateOptions o;
      ab_mutate_options_init (&o);
      o.database = "likes";
      o.table = "likes";
      g_autoptr (GError) error = NULL;
      GArray *r = ab_engine_mutate (w->engine, &o, node, &error);
      if (r == NULL)
        atomic_fetch_add (&w->failures, 1);
      else
        g_array_unref (r);
      atomic_fetch_add (&w->writes, 1);
    }
  return NULL;
}

START_TEST (test_backup_while_writing)
{
  AbTestEnv env = { 0 };
  seed_on (&env, 400, _i);
  g_autofree gchar *uri = reader_uri (_i, env.tmpdir);
  g_autofree gchar *dir = new_dir ("bk");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbStore) src = ab_store_open (uri, &error);
  ck_assert (src != NULL);
  Writer w = { .engine = env.engine };
  GThread *t = g_thread_new ("writer", writer_main, &w);
  while (atomic_load (&w.writes) < 20)
    g_usleep (1000);
  AbSnapshot *snap = ab_store_snapshot_open (src, &error);
  ck_assert (snap != NULL);
  int at_snapshot = atomic_load (&w.writes);
  /* Let writes land between the snapshot and the end of the backup. */
  while (atomic_load (&w.writes) < at_snapshot + 20)
    g_usleep (1000);
  AbDumpBackupOptions bo = { .source_uri = uri, .chunk_bytes = 8192 };
  AbDumpStats bs = { 0 };
  ck_assert_msg (ab_dump_write_snapshot (snap, dir, &bo, &bs, &error), "backup: %s",
                 error ? error->message : "");
  g_autoptr (GPtrArray) at_snap = snapshot_rows (snap);
  ab_snapshot_close (snap);
  while (atomic_load (&w.writes) < at_snapshot + 60)
    g_usleep (1000);
  atomic_store (&w.stop, 1);
  g_thread_join (t);
  ck_assert_int_eq (atomic_load (&w.failures), 0);
  ck_assert_uint_eq (bs.rows * 2, at_snap->len);
  ck_assert_uint_gt (bs.chunks, 3);
  ck_assert_uint_eq (bs.chunks, count_chunks (dir));
  /* The live store moved on: the backup is the snapshot, not the end state. */
  g_autoptr (GPtrArray) live = store_rows (src);
  gboolean differs = live->len != at_snap->len;
  for (guint i = 0; !differs && i < live->len; i++)
    differs = !g_bytes_equal (live->pdata[i], at_snap->pdata[i]);
  ck_assert_msg (differs, "no write landed after the snapshot");
  ck_assert (ab_dump_check (dir, NULL, &error));

  /* into a store of the same kind: the same rows, and the verifier finds nothing */
  g_autofree gchar *tdir = NULL;
  g_autofree gchar *turi = ab_test_store_uri (_i, &tdir);
  {
    g_autoptr (AbStore) target = ab_store_open (turi, &error);
    ck_assert (target != NULL);
    restore_into (target, turi, dir);
    g_autoptr (GPtrArray) got = store_rows (target);
    assert_same_rows (at_snap, got);
  }
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  AbEngine *te = ab_engine_open (turi, &cfg, &error);
  ck_assert_msg (te != NULL, "engine on the restored store: %s", error ? error->message : "");
  assert_verifies_clean (te);
  ab_engine_close (te);

  /* into memory: the same */
  AbStore *mem = ab_store_open ("memory:", &error);
  restore_into (mem, "memory:", dir);
  {
    g_autoptr (GPtrArray) got = store_rows (mem);
    assert_same_rows (at_snap, got);
  }
  AbEngine *me = ab_engine_open_store (mem, &cfg, &error);
  ck_assert (me != NULL);
  assert_verifies_clean (me);
  ab_engine_close (me);

  g_clear_pointer (&src, ab_store_close);
  ab_test_env_close (&env);
  rm_rf (dir);
  rm_rf (tdir);
}
END_TEST

/* ---- the binary ---- */

START_TEST (test_cli_round_trip)
{
  AbTestEnv env = { 0 };
  seed_on (&env, 300, _i);
  /* a prepared query and its alias are catalog rows: they travel too */
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) req = json_from_string (
      "{\"comment\":\"kept\",\"transform\":[{\"type\":\"SQL\",\"name\":\"one\",\"sql\":"
      "\"SELECT 1 AS x\"}]}",
      NULL);
  g_autoptr (JsonNode) pq
      = ab_engine_prepared_register (env.engine, json_node_get_object (req), "test", &error);
  ck_assert_msg (pq != NULL, "register: %s", error ? error->message : "");
  g_autofree gchar *alias_body
      = g_strdup_printf ("{\"alias\":\"kept\",\"target\":\"%s\"}",
                         json_object_get_string_member (json_node_get_object (pq), "id"));
  g_autoptr (JsonNode) areq = json_from_string (alias_body, NULL);
  g_autoptr (JsonNode) alias
      = ab_engine_prepared_alias_create (env.engine, json_node_get_object (areq), "test", &error);
  ck_assert_msg (alias != NULL, "alias: %s", error ? error->message : "");
  g_autofree gchar *uri = reader_uri (_i, env.tmpdir);
  g_autofree gchar *parent = new_dir ("cli");
  g_autofree gchar *dir = g_build_filename (parent, "backup", NULL);
  g_autofree gchar *tdir = new_dir ("tgt");
  g_autofree gchar *turi = local_uri (_i, tdir);
  Run r = { 0 };

  run (&r, "actionbase-admin", "backup", "--help", NULL);
  ck_assert_int_eq (r.status, 0);
  assert_contains (r.out, "--native");
  run_clear (&r);
  run (&r, "actionbase-admin", "restore", "--help", NULL);
  ck_assert_int_eq (r.status, 0);
  assert_contains (r.out, "--resume");
  run_clear (&r);
  run (&r, "actionbase-admin", "backup", "--store", uri, NULL);
  ck_assert_int_eq (r.status, 2);
  run_clear (&r);
  run (&r, "actionbase-admin", "restore", "--in", dir, "--bogus", NULL);
  ck_assert_int_eq (r.status, 2);
  run_clear (&r);

  run (&r, "actionbase-admin", "backup", "--store", uri, "--out", dir, "--chunk-size", "8k", NULL);
  ck_assert_msg (r.status == 0, "backup: %s", r.err);
  run_clear (&r);
  g_autofree gchar *manifest = g_build_filename (dir, AB_DUMP_MANIFEST, NULL);
  g_autofree gchar *text = NULL;
  ck_assert (g_file_get_contents (manifest, &text, NULL, NULL));
  assert_contains (text, "\"format\" : \"actionbase-dump\"");
  assert_contains (text, "\"sha256\"");
  assert_contains (text, "\"firstKey\"");
  ck_assert_uint_gt (count_chunks (dir), 2);

  /* a second backup into the same directory is refused */
  run (&r, "actionbase-admin", "backup", "--store", uri, "--out", dir, NULL);
  ck_assert_int_eq (r.status, 1);
  assert_contains (r.err, "not empty");
  run_clear (&r);

  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", turi, NULL);
  ck_assert_msg (r.status == 0, "restore: %s", r.err);
  assert_contains (r.out, "restored");
  ck_assert_int_eq (strstr (r.out, "ingested as a table file") != NULL, _i == AB_TEST_ROCKSDB);
  run_clear (&r);
  g_autofree gchar *checkpoint = g_build_filename (dir, AB_DUMP_CHECKPOINT, NULL);
  ck_assert (!g_file_test (checkpoint, G_FILE_TEST_EXISTS));
  {
    g_autoptr (GPtrArray) want = uri_rows (uri);
    g_autoptr (GPtrArray) got = uri_rows (turi);
    assert_same_rows (want, got);
  }
  run (&r, "actionbase-verify", "--store", turi, NULL);
  ck_assert_msg (r.status == 0, "verify: %s%s", r.out, r.err);
  run_clear (&r);
  {
    AbEngineConfig cfg;
    ab_engine_config_init (&cfg);
    AbEngine *restored = ab_engine_open (turi, &cfg, &error);
    ck_assert_msg (restored != NULL, "open %s: %s", turi, error ? error->message : "");
    g_autoptr (JsonNode) got = ab_engine_prepared_get (restored, "kept", &error);
    ck_assert_msg (got != NULL, "the prepared query after restore: %s",
                   error ? error->message : "");
    ck_assert_str_eq (json_object_get_string_member (json_node_get_object (got), "comment"),
                      "kept");
    g_autoptr (GPtrArray) items = ab_engine_prepared_run (restored, "kept", NULL, &error);
    ck_assert_msg (items != NULL, "run: %s", error ? error->message : "");
    ck_assert_uint_eq (items->len, 1);
    ab_engine_close (restored);
  }
  /* the dump is the same whatever store it came from: into the other kind too */
  g_autofree gchar *odir = new_dir ("other");
  g_autofree gchar *ouri = local_uri (_i == AB_TEST_LMDB ? AB_TEST_ROCKSDB : AB_TEST_LMDB, odir);
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", ouri, NULL);
  ck_assert_msg (r.status == 0, "restore into %s: %s", ouri, r.err);
  run_clear (&r);
  {
    g_autoptr (GPtrArray) want = uri_rows (uri);
    g_autoptr (GPtrArray) got = uri_rows (ouri);
    assert_same_rows (want, got);
  }

  ab_test_env_close (&env);
  rm_rf (parent);
  rm_rf (tdir);
  rm_rf (odir);
}
END_TEST

/* A backup of a seeded store in a new directory (in-process), small chunks. */
static gchar *
backup_of (AbTestEnv *env, int store, GPtrArray **rows)
{
  g_autofree gchar *uri = reader_uri (store, env->tmpdir);
  gchar *dir = new_dir ("bk");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbStore) src = ab_store_open (uri, &error);
  AbDumpBackupOptions o = { .source_uri = uri, .chunk_bytes = 4096 };
  ck_assert_msg (ab_dump_backup (src, dir, &o, NULL, &error), "backup: %s",
                 error ? error->message : "");
  *rows = store_rows (src);
  return dir;
}

START_TEST (test_corrupt_chunk)
{
  AbTestEnv env = { 0 };
  seed_on (&env, 200, _i);
  g_autoptr (GPtrArray) rows = NULL;
  g_autofree gchar *dir = backup_of (&env, _i, &rows);
  g_autofree gchar *chunk = g_build_filename (dir, "chunk-000002.bin", NULL);
  g_autofree gchar *data = NULL;
  gsize len;
  ck_assert (g_file_get_contents (chunk, &data, &len, NULL));
  data[len / 2] ^= 0x40;
  ck_assert (g_file_set_contents (chunk, data, (gssize) len, NULL));

  g_autofree gchar *tdir = new_dir ("tgt");
  g_autofree gchar *turi = local_uri (_i, tdir);
  Run r = { 0 };
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", turi, NULL);
  ck_assert_int_eq (r.status, 1);
  assert_contains (r.err, "chunk-000002.bin");
  assert_contains (r.err, "nothing was written");
  run_clear (&r);
  {
    g_autoptr (GPtrArray) got = uri_rows (turi);
    ck_assert_uint_eq (got->len, 0);
  }
  run (&r, "actionbase-admin", "restore", "--check", "--in", dir, NULL);
  ck_assert_int_eq (r.status, 1);
  run_clear (&r);

  /* a length that runs past the end (with a manifest matching it) is caught too */
  g_autoptr (GError) error = NULL;
  AbStore *mem = ab_store_open ("memory:", &error);
  data[len / 2] ^= 0x40;
  data[AB_DUMP_CHUNK_MAGIC_LEN] = (gchar) 0x7f; /* first key length: ~2 GiB */
  ck_assert (g_file_set_contents (chunk, data, (gssize) len, NULL));
  AbDumpRestoreOptions o = { .target_uri = "memory:" };
  ck_assert (!ab_dump_restore (mem, dir, &o, NULL, &error));
  assert_contains (error->message, "chunk-000002.bin");
  {
    g_autoptr (GPtrArray) got = store_rows (mem);
    ck_assert_uint_eq (got->len, 0);
  }
  ab_store_close (mem);
  ab_test_env_close (&env);
  rm_rf (dir);
  rm_rf (tdir);
}
END_TEST

START_TEST (test_non_empty_target)
{
  AbTestEnv env = { 0 };
  seed_on (&env, 150, _i);
  g_autoptr (GPtrArray) rows = NULL;
  g_autofree gchar *dir = backup_of (&env, _i, &rows);
  g_autofree gchar *tdir = new_dir ("tgt");
  g_autofree gchar *turi = local_uri (_i, tdir);
  static const guint8 extra[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (AbStore) t = ab_store_open (turi, &error);
    ck_assert (ab_store_put (t, extra, sizeof extra, (const guint8 *) "v", 1, &error));
  }
  Run r = { 0 };
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", turi, NULL);
  ck_assert_int_eq (r.status, 1);
  assert_contains (r.err, "not empty");
  assert_contains (r.err, "--force");
  run_clear (&r);
  {
    g_autoptr (GPtrArray) got = uri_rows (turi);
    ck_assert_uint_eq (got->len, 2);
  }
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", turi, "--force", NULL);
  ck_assert_msg (r.status == 0, "restore --force: %s", r.err);
  run_clear (&r);
  g_autoptr (GPtrArray) got = uri_rows (turi);
  /* the backup's rows, then the extra row (0xff sorts last) */
  ck_assert_uint_eq (got->len, rows->len + 2);
  g_ptr_array_set_size (got, rows->len);
  assert_same_rows (rows, got);
  ab_test_env_close (&env);
  rm_rf (dir);
  rm_rf (tdir);
}
END_TEST

START_TEST (test_resume)
{
  AbTestEnv env = { 0 };
  seed_on (&env, 250, _i);
  g_autoptr (GPtrArray) rows = NULL;
  g_autofree gchar *dir = backup_of (&env, _i, &rows);
  g_autofree gchar *tdir = new_dir ("tgt");
  g_autofree gchar *turi = local_uri (_i, tdir);
  g_autoptr (GError) error = NULL;
  {
    g_autoptr (AbStore) t = ab_store_open (turi, &error);
    AbDumpRestoreOptions o = { .target_uri = turi, .stop_after_chunks = 2 };
    ck_assert (!ab_dump_restore (t, dir, &o, NULL, &error));
    ck_assert (g_error_matches (error, AB_DUMP_ERROR, AB_DUMP_ERROR_INTERRUPTED));
    assert_contains (error->message, "--resume");
    assert_contains (error->message, "chunks 1..2");
    g_clear_error (&error);
  }
  g_autofree gchar *checkpoint = g_build_filename (dir, AB_DUMP_CHECKPOINT, NULL);
  ck_assert (g_file_test (checkpoint, G_FILE_TEST_EXISTS));
  Run r = { 0 };
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", turi, NULL);
  ck_assert_int_eq (r.status, 1);
  assert_contains (r.err, "--resume");
  run_clear (&r);
  /* --resume into another store than the checkpoint's: refused */
  g_autofree gchar *edir = new_dir ("else");
  g_autofree gchar *elsewhere = local_uri (_i, edir);
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", elsewhere, "--resume", NULL);
  ck_assert_int_eq (r.status, 1);
  assert_contains (r.err, "is of a restore into");
  run_clear (&r);
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", turi, "--resume", NULL);
  ck_assert_msg (r.status == 0, "restore --resume: %s", r.err);
  assert_contains (r.out, "after the 2 chunks");
  run_clear (&r);
  ck_assert (!g_file_test (checkpoint, G_FILE_TEST_EXISTS));
  g_autoptr (GPtrArray) got = uri_rows (turi);
  assert_same_rows (rows, got);
  ab_test_env_close (&env);
  rm_rf (dir);
  rm_rf (tdir);
  rm_rf (edir);
}
END_TEST

/* backup --native on lmdb (a compacted copy) and rocksdb (a checkpoint,
 * taken beside the test's own writer): the copy opens as a store holding
 * the rows the chunks hold, its directory holds the files the manifest lists
 * with their SHA-256 and nothing else, and the chunks restore the same rows. */
START_TEST (test_native)
{
  const gchar *kind = ab_test_store_kind (_i);
  AbTestEnv env = { 0 };
  seed_on (&env, 300, _i);
  g_autofree gchar *uri = reader_uri (_i, env.tmpdir);
  g_autofree gchar *parent = new_dir ("nat");
  g_autofree gchar *dir = g_build_filename (parent, "b", NULL);
  Run r = { 0 };
  run (&r, "actionbase-admin", "backup", "--store", uri, "--out", dir, "--native", NULL);
  ck_assert_msg (r.status == 0, "backup --native: %s", r.err);
  run_clear (&r);
  g_autoptr (GPtrArray) want = uri_rows (uri);
  g_autofree gchar *native = g_build_filename (dir, kind, NULL);
  g_autofree gchar *nuri = reader_uri (_i, native);
  /* The manifest's SHA-256 of each file of the copy is the file's (GLib's
   * own hash); reading the copy left no file of its own there (a lock file,
   * an info log). */
  {
    g_autofree gchar *manifest = NULL;
    g_autofree gchar *mpath = g_build_filename (dir, AB_DUMP_MANIFEST, NULL);
    ck_assert (g_file_get_contents (mpath, &manifest, NULL, NULL));
    g_autoptr (GDir) d = g_dir_open (native, 0, NULL);
    guint files = 0;
    for (const gchar *n; d != NULL && (n = g_dir_read_name (d)) != NULL;)
      {
        g_autofree gchar *file = g_build_filename (native, n, NULL);
        g_autofree gchar *data = NULL;
        gsize len = 0;
        ck_assert (g_file_get_contents (file, &data, &len, NULL));
        g_autofree gchar *sum
            = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (guchar *) data, len);
        assert_contains (manifest, sum);
        ck_assert_msg (!g_str_equal (n, "lock.mdb") && !g_str_equal (n, "LOCK")
                           && !g_str_has_prefix (n, "LOG"),
                       "%s left", n);
        files++;
      }
    ck_assert_uint_ge (files, 1);
  }
  {
    g_autoptr (GPtrArray) got = uri_rows (nuri);
    assert_same_rows (want, got);
  }
  g_autoptr (GError) error = NULL;
  AbStore *mem = ab_store_open ("memory:", &error);
  restore_into (mem, "memory:", dir);
  {
    g_autoptr (GPtrArray) got = store_rows (mem);
    assert_same_rows (want, got);
  }
  /* a store without a native form says so */
  g_autofree gchar *dir2 = g_build_filename (parent, "m", NULL);
  AbDumpBackupOptions o = { .native = TRUE };
  ck_assert (!ab_dump_backup (mem, dir2, &o, NULL, &error));
  assert_contains (error->message, "no native backup");
  ab_store_close (mem);
  ab_test_env_close (&env);
  rm_rf (parent);
}
END_TEST

START_TEST (test_hbase)
{
  g_autofree gchar *huri = ab_hbase_test_uri ("backup", 2);
  if (huri == NULL)
    {
      printf ("SKIP: test_hbase (AB_HBASE_ADDR is not set: no backup from / restore into HBase)\n");
      return;
    }
  AbTestEnv env = { 0 };
  seed_on (&env, 300, AB_TEST_LMDB);
  g_autofree gchar *uri = reader_uri (AB_TEST_LMDB, env.tmpdir);
  g_autofree gchar *parent = new_dir ("hb");
  g_autofree gchar *dir = g_build_filename (parent, "from-lmdb", NULL);
  g_autofree gchar *dir2 = g_build_filename (parent, "from-hbase", NULL);
  Run r = { 0 };
  run (&r, "actionbase-admin", "backup", "--store", uri, "--out", dir, "--chunk-size", "16k", NULL);
  ck_assert_msg (r.status == 0, "backup: %s", r.err);
  run_clear (&r);
  run (&r, "actionbase-admin", "restore", "--in", dir, "--store", huri, "--batch", "100", NULL);
  ck_assert_msg (r.status == 0, "restore into hbase: %s", r.err);
  run_clear (&r);
  g_autoptr (GPtrArray) want = uri_rows (uri);
  {
    g_autoptr (GPtrArray) got = uri_rows (huri);
    assert_same_rows (want, got);
  }
  run (&r, "actionbase-verify", "--store", huri, NULL);
  ck_assert_msg (r.status == 0, "verify hbase: %s%s", r.out, r.err);
  run_clear (&r);
  run (&r, "actionbase-admin", "backup", "--store", huri, "--out", dir2, NULL);
  ck_assert_msg (r.status == 0, "backup from hbase: %s", r.err);
  run_clear (&r);
  g_autoptr (GError) error = NULL;
  AbStore *mem = ab_store_open ("memory:", &error);
  restore_into (mem, "memory:", dir2);
  {
    g_autoptr (GPtrArray) got = store_rows (mem);
    assert_same_rows (want, got);
  }
  ab_store_close (mem);
  ab_test_env_close (&env);
  rm_rf (parent);
}
END_TEST

/* The backups' SHA-256 (OpenSSL's EVP) against GLib's, over every length
 * around the block and padding boundaries, fed in pieces. */
START_TEST (test_sha256)
{
  gsize n = (gsize) 3 << 20;
  g_autofree guint8 *data = g_malloc (n);
  GRand *r = g_rand_new_with_seed (5);
  for (gsize i = 0; i < n; i++)
    data[i] = (guint8) g_rand_int (r);
  for (guint t = 0; t < 400; t++)
    {
      gsize len = t < 300 ? t : n - g_rand_int_range (r, 0, 1000);
      gsize off = g_rand_int_range (r, 0, 64), at = 0;
      len = MIN (len, n - off);
      AbSha256 s;
      gchar got[65];
      ab_sha256_init (&s);
      while (at < len)
        {
          gsize piece = (gsize) g_rand_int_range (r, 1, t < 300 ? 80 : 300000);
          piece = MIN (piece, len - at);
          ab_sha256_update (&s, data + off + at, piece);
          at += piece;
        }
      ab_sha256_hex (&s, got);
      g_autofree gchar *want = g_compute_checksum_for_data (G_CHECKSUM_SHA256, data + off, len);
      ck_assert_msg (strcmp (got, want) == 0, "%zu bytes: %s, want %s", len, got, want);
    }
  /* a stream given up is freed without a digest (ASan and valgrind check) */
  AbSha256 dropped;
  ab_sha256_init (&dropped);
  ab_sha256_update (&dropped, data, 100);
  ab_sha256_clear (&dropped);
  ab_sha256_clear (&dropped);
  g_rand_free (r);
}
END_TEST

static Suite *
backup_suite (void)
{
  Suite *s = suite_create ("backup");
  TCase *tc = tcase_create ("core");
  tcase_set_timeout (tc, 120);
  /* each on lmdb and on rocksdb */
  tcase_add_loop_test (tc, test_backup_while_writing, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_loop_test (tc, test_cli_round_trip, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_loop_test (tc, test_corrupt_chunk, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_loop_test (tc, test_non_empty_target, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_loop_test (tc, test_resume, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_loop_test (tc, test_native, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_test (tc, test_sha256);
  tcase_add_test (tc, test_hbase);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (backup_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
