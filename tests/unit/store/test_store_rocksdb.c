/* Suite of what only the rocksdb backend promises: its URIs, reopening, handles
 * of one process sharing one database, a clear error when another process holds
 * the directory, durability across SIGKILL, checkpoint backups that open as
 * stores, plan views that see their group, its health figures for /metrics. */
#include "store_test_util.h"
#include "store/backend.h"                 /* the backend's name */
#include "store/rocksdb/rocksdb-private.h" /* its statistics, for the operands a read folded */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

START_TEST (test_uris)
{
  g_autofree gchar *dir = st_fresh_dir ("uri");
  g_autofree gchar *good = st_uri ("rocksdb", dir, "memory=64m&sync=0");
  g_autofree gchar *bad_size = st_uri ("rocksdb", dir, "memory=lots");
  g_autofree gchar *bad_param = st_uri ("rocksdb", dir, "mapsize=1g");
  g_autofree gchar *bad_flag = st_uri ("rocksdb", dir, "sync=yes");
  st_assert_open_fails (bad_size, AB_STORE_ERROR_URI, "memory=lots");
  st_assert_open_fails (bad_param, AB_STORE_ERROR_URI, "mapsize=1g");
  st_assert_open_fails (bad_flag, AB_STORE_ERROR_URI, "sync=yes");
  st_assert_open_fails ("rocksdb:", AB_STORE_ERROR_URI, "needs a directory");
  g_autofree gchar *bad_ro = st_uri ("rocksdb", dir, "readonly=2");
  st_assert_open_fails (bad_ro, AB_STORE_ERROR_URI, "readonly=2");
  st_assert_open_fails ("rocksdb:/proc/forbidden/db", AB_STORE_ERROR_IO, "/proc/forbidden/db");
  st_assert_open_fails ("nosuch:x", AB_STORE_ERROR_URI, "rocksdb:DIR");
  g_autoptr (AbStore) s = st_open (good);
  ck_assert_str_eq (s->vt->name, "rocksdb");
  ck_assert (ab_store_batch_is_atomic (s));
  ck_assert (ab_store_can_transact (s));
  ck_assert_uint_eq (ab_store_max_key (s), AB_STORE_HBASE_MAX_KEY);
}
END_TEST

START_TEST (test_reopen_keeps_data)
{
  g_autofree gchar *dir = st_fresh_dir ("reopen");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, NULL);
  gint64 v = 0;
  AbStore *s = st_open (uri);
  st_put (s, ST_S ("k"), ST_S ("v"));
  ck_assert (ab_store_increment (s, ST_S ("n"), 41, &v, NULL));
  /* adds are merge operands in the files until a compaction folds them */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (AbBatch) b = ab_batch_new ();
      ab_batch_add (b, ST_S ("n"), 1);
      ab_batch_add (b, ST_S ("m"), -2);
      ck_assert (ab_store_batch (s, b, NULL));
    }
  ab_store_close (s);
  s = st_open (uri);
  st_assert_value (s, ST_S ("k"), ST_S ("v"));
  st_assert_counter (s, ST_S ("n"), 44);
  st_assert_counter (s, ST_S ("m"), -6);
  ab_store_close (s);
}
END_TEST

START_TEST (test_handles_share_db)
{
  g_autofree gchar *dir = st_fresh_dir ("share");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "sync=0");
  g_autofree gchar *alias = g_strdup_printf ("rocksdb:%s/./?sync=0", dir);
  g_autoptr (AbStore) a = st_open (uri);
  AbStore *b = st_open (alias); /* RocksDB locks a directory once: the handles share it */
  st_put (a, ST_S ("from-a"), ST_S ("1"));
  st_assert_value (b, ST_S ("from-a"), ST_S ("1"));
  st_put (b, ST_S ("from-b"), ST_S ("2"));
  ab_store_close (b);
  st_assert_value (a, ST_S ("from-b"), ST_S ("2"));
}
END_TEST

/* A second process gets a message that names the cause, not RocksDB's
 * LOCK file error alone; beside the writer it may read (readonly=1): the
 * rows as they were when it opened, its own writes refused. */
static gboolean
refuse_nothing (AbStore *view, AbBatch *batch, gpointer user, GError **error)
{
  (void) view;
  (void) user;
  (void) error;
  ab_batch_put (batch, ST_S ("planned"), ST_S ("x"));
  return TRUE;
}

START_TEST (test_other_process_holds_it)
{
  g_autofree gchar *dir = st_fresh_dir ("held");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "sync=0");
  int ready[2], hold[2], status;
  ck_assert_int_eq (pipe (ready), 0);
  ck_assert_int_eq (pipe (hold), 0);
  pid_t pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0)
    {
      close (hold[1]); /* so that the parent's close ends the read */
      AbStore *s = ab_store_open (uri, NULL);
      gboolean put = s != NULL && ab_store_put (s, ST_S ("theirs"), ST_S ("1"), NULL)
                     && ab_store_sync (s, NULL);
      char c = put ? 'y' : 'n';
      if (write (ready[1], &c, 1) != 1 || read (hold[0], &c, 1) < 0)
        _exit (3);
      _exit (0); /* no close: the lock goes with the process */
    }
  char c = 0;
  close (hold[0]);
  ck_assert_int_eq (read (ready[0], &c, 1), 1);
  ck_assert_int_eq (c, 'y');
  st_assert_open_fails (uri, AB_STORE_ERROR_IO, "in use by another process");
  {
    g_autofree gchar *ro = st_uri ("rocksdb", dir, "readonly=1");
    g_autoptr (AbStore) r = st_open (ro);
    GError *error = NULL;
    st_assert_value (r, ST_S ("theirs"), ST_S ("1"));
    ck_assert (!ab_store_put (r, ST_S ("mine"), ST_S ("no"), &error));
    ck_assert_int_eq (error->code, AB_STORE_ERROR_UNAVAILABLE);
    g_clear_error (&error);
    g_autoptr (AbBatch) b = ab_batch_new ();
    ab_batch_add (b, ST_S ("n"), 1);
    ck_assert (!ab_store_batch (r, b, &error));
    g_clear_error (&error);
    ck_assert (!ab_store_transact (r, refuse_nothing, NULL, &error));
    ck_assert (strstr (error->message, "read-only") != NULL);
    g_clear_error (&error);
  }
  close (hold[1]);
  ck_assert_int_eq (waitpid (pid, &status, 0), pid);
  g_autoptr (AbStore) s = st_open (uri); /* free again */
  st_put (s, ST_S ("mine"), ST_S ("now"));
  st_assert_value (s, ST_S ("planned"), NULL, 0);
}
END_TEST

START_TEST (test_durable_after_sigkill)
{
  g_autofree gchar *dir = st_fresh_dir ("dur");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, NULL);
  st_check_durable_after_sigkill (uri);
}
END_TEST

/* A checkpoint into a missing or empty directory opens as a store of its
 * own holding what was written before it, and nothing after. */
START_TEST (test_native_backup)
{
  g_autofree gchar *dir = st_fresh_dir ("live");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "sync=0");
  g_autofree gchar *missing = st_fresh_dir ("copy");
  g_autofree gchar *empty = st_fresh_dir ("copy");
  g_autoptr (AbStore) s = st_open (uri);
  GError *error = NULL;
  gint64 v;
  st_put (s, ST_S ("row"), ST_S ("before"));
  ck_assert (ab_store_increment (s, ST_S ("n"), 7, &v, NULL));
  ck_assert_int_eq (g_mkdir_with_parents (empty, 0755), 0);
  ck_assert_msg (ab_store_native_backup (s, missing, &error), "%s", error ? error->message : "");
  ck_assert_msg (ab_store_native_backup (s, empty, &error), "%s", error ? error->message : "");
  ck_assert (!ab_store_native_backup (s, missing, &error)); /* no longer empty */
  ck_assert (strstr (error->message, "not empty") != NULL);
  g_clear_error (&error);
  st_put (s, ST_S ("row"), ST_S ("after"));
  const gchar *copies[] = { missing, empty };
  for (guint i = 0; i < G_N_ELEMENTS (copies); i++)
    {
      g_autofree gchar *cu = st_uri ("rocksdb", copies[i], NULL);
      g_autoptr (AbStore) c = st_open (cu);
      st_assert_value (c, ST_S ("row"), ST_S ("before"));
      st_assert_counter (c, ST_S ("n"), 7);
    }
}
END_TEST

/* Scans inside one salt use the prefix filters, scans across salts read in
 * total order: both see every row of their range, on disk or in memory. */
START_TEST (test_scans_across_prefixes)
{
  g_autofree gchar *dir = st_fresh_dir ("prefix");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "sync=0");
  AbStore *s = st_open (uri);
  static const gchar *salts[] = { "AAAA", "AAAB", "BBBB" };
  for (guint i = 0; i < G_N_ELEMENTS (salts); i++)
    for (guint r = 0; r < 10; r++)
      {
        g_autofree gchar *k = g_strdup_printf ("%s/%02u", salts[i], r);
        st_put (s, ST_S (k), ST_S ("v"));
      }
  const struct {
    const gchar *start, *stop;
    guint rows;
  } cases[] = {
    { "AAAA/03", "AAAA/07", 4 },  /* one salt */
    { "AAAA/05", "AAAB/05", 10 }, /* two salts */
    { "AAAA", "BBBB/99", 30 },    /* all */
    { "AAAC", "BBBB", 0 },        /* between */
  };
  /* first from the memtable, then from the table file the reopen flushed */
  for (guint pass = 0; pass < 2; pass++, ab_store_close (s), s = pass < 2 ? st_open (uri) : NULL)
    for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
      {
        g_autoptr (GArray) out = ab_kv_array_new ();
        AbScanRange r = { .start = (const guint8 *) cases[i].start,
                          .start_len = strlen (cases[i].start),
                          .start_inclusive = TRUE,
                          .stop = (const guint8 *) cases[i].stop,
                          .stop_len = strlen (cases[i].stop) };
        ck_assert (ab_store_scan (s, &r, out, NULL));
        ck_assert_msg (out->len == cases[i].rows, "%s..%s: %u rows", cases[i].start, cases[i].stop,
                       out->len);
      }
}
END_TEST

/* ---- the health figures of /metrics (rocksdb_health.c) ---- */

#define FIGURE(x) "actionbase_store_rocksdb_" x

/* The value of the figure called name, which must be there exactly once. */
static gdouble
figure (AbStore *s, const gchar *name)
{
  AbStoreGauge g[AB_STORE_GAUGE_MAX];
  guint n = ab_store_gauges (s, g, AB_STORE_GAUGE_MAX);
  gint found = -1;
  for (guint i = 0; i < n; i++)
    if (strcmp (g[i].name, name) == 0)
      {
        ck_assert_msg (found < 0, "%s twice", name);
        found = (gint) i;
      }
  ck_assert_msg (found >= 0, "%s missing", name);
  return g[found].value;
}

/* A value of 1 KiB under key "row%04u". */
static void
put_rows (AbStore *s, guint n)
{
  guint8 value[1024];
  memset (value, 'v', sizeof value);
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *k = g_strdup_printf ("row%04u", i);
      st_put (s, ST_S (k), value, sizeof value);
    }
}

/* A hot counter: 300 adds, each its own write, leave at most 64 merge
 * operands for a read to fold (the committer writes the value as a put
 * every 64: fold_counter), and the value is every add. */
static gdouble
most_operands_folded (AbStore *s)
{
  g_autofree gchar *stats = rocksdb_options_statistics_get_string (ab_rocks_env_of (s)->options);
  const gchar *line = strstr (stats, "rocksdb.read.num.merge_operands ");
  ck_assert_ptr_nonnull (line);
  const gchar *p100 = strstr (line, "P100 : ");
  ck_assert_ptr_nonnull (p100);
  return g_ascii_strtod (p100 + strlen ("P100 : "), NULL);
}

START_TEST (test_hot_counter_folded)
{
  g_autofree gchar *dir = st_fresh_dir ("hot");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "sync=0");
  AbStore *s = st_open (uri);
  for (guint i = 0; i < 300; i++)
    {
      g_autoptr (AbBatch) b = ab_batch_new ();
      ab_batch_add (b, ST_S ("hot"), 1);
      ck_assert (ab_store_batch (s, b, NULL));
    }
  st_assert_counter (s, ST_S ("hot"), 300);
  gdouble most = most_operands_folded (s);
  ck_assert_msg (most > 0 && most <= 64, "a read folded %g operands", most);
  ab_store_close (s);
}
END_TEST

/* Every figure once with its type and help; the block cache is half the
 * memory budget and holds no more than that; the memtables hold what was
 * written until a reopen flushes it; an idle store has no write stall. */
START_TEST (test_health_figures)
{
  static const struct {
    const gchar *name;
    AbStoreGaugeType type;
  } want[] = {
    { FIGURE ("pending_compaction_bytes"), AB_STORE_GAUGE },
    { FIGURE ("write_stopped"), AB_STORE_GAUGE },
    { FIGURE ("write_delayed"), AB_STORE_GAUGE },
    { FIGURE ("delayed_write_rate_bytes_per_second"), AB_STORE_GAUGE },
    { FIGURE ("write_stall_seconds_total"), AB_STORE_COUNTER },
    { FIGURE ("memtable_bytes"), AB_STORE_GAUGE },
    { FIGURE ("block_cache_usage_bytes"), AB_STORE_GAUGE },
    { FIGURE ("block_cache_pinned_bytes"), AB_STORE_GAUGE },
    { FIGURE ("block_cache_capacity_bytes"), AB_STORE_GAUGE },
    { FIGURE ("block_cache_hits_total"), AB_STORE_COUNTER },
    { FIGURE ("block_cache_misses_total"), AB_STORE_COUNTER },
  };
  g_autofree gchar *dir = st_fresh_dir ("health");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "memory=64m&sync=0");
  AbStore *s = st_open (uri);
  AbStoreGauge g[AB_STORE_GAUGE_MAX];
  guint n = ab_store_gauges (s, g, AB_STORE_GAUGE_MAX);
  ck_assert_uint_eq (n, G_N_ELEMENTS (want));
  for (guint i = 0; i < n; i++)
    {
      ck_assert_str_eq (g[i].name, want[i].name);
      ck_assert_int_eq (g[i].type, want[i].type);
      ck_assert_msg (g[i].help != NULL && *g[i].help != '\0' && strchr (g[i].help, '\n') == NULL,
                     "%s: help", g[i].name);
      ck_assert_msg (g[i].value >= 0, "%s = %g", g[i].name, g[i].value);
    }
  ck_assert_uint_eq (ab_store_gauges (s, g, 3), 3); /* max is honoured */
  ck_assert_double_eq (figure (s, FIGURE ("block_cache_capacity_bytes")), 32 << 20);
  gdouble empty = figure (s, FIGURE ("memtable_bytes"));
  put_rows (s, 1000);
  ck_assert_double_ge (figure (s, FIGURE ("memtable_bytes")), empty + 1000 * 1024);
  gdouble usage = figure (s, FIGURE ("block_cache_usage_bytes"));
  ck_assert_double_le (usage, 32 << 20);
  ck_assert_double_le (figure (s, FIGURE ("block_cache_pinned_bytes")), usage);
  static const gchar *const idle[] = {
    FIGURE ("write_stopped"),
    FIGURE ("write_delayed"),
    FIGURE ("delayed_write_rate_bytes_per_second"),
    FIGURE ("write_stall_seconds_total"),
  };
  for (guint i = 0; i < G_N_ELEMENTS (idle); i++)
    ck_assert_msg (figure (s, idle[i]) == 0, "%s = %g", idle[i], figure (s, idle[i]));
  ab_store_close (s);
  /* the reopen flushed the rows into a table file */
  s = st_open (uri);
  ck_assert_double_lt (figure (s, FIGURE ("memtable_bytes")), 1000 * 1024);
  ab_store_close (s);
}
END_TEST

/* Reads of a table file: the first read of a block misses the cache, the
 * same read again hits it. */
START_TEST (test_cache_hits_and_misses)
{
  g_autofree gchar *dir = st_fresh_dir ("hits");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "memory=64m&sync=0");
  AbStore *s = st_open (uri);
  put_rows (s, 1000);
  ab_store_close (s);
  s = st_open (uri); /* the rows are in a table file now, the cache is new */
  gdouble hits = figure (s, FIGURE ("block_cache_hits_total"));
  gdouble misses = figure (s, FIGURE ("block_cache_misses_total"));
  g_autoptr (GBytes) v = NULL;
  ck_assert (ab_store_get (s, ST_S ("row0500"), &v, NULL));
  ck_assert_uint_eq (g_bytes_get_size (v), 1024);
  gdouble misses1 = figure (s, FIGURE ("block_cache_misses_total"));
  ck_assert_double_gt (misses1, misses);
  gdouble hits1 = figure (s, FIGURE ("block_cache_hits_total"));
  g_clear_pointer (&v, g_bytes_unref);
  ck_assert (ab_store_get (s, ST_S ("row0500"), &v, NULL));
  ck_assert_double_gt (figure (s, FIGURE ("block_cache_hits_total")), hits1);
  ck_assert_double_eq (figure (s, FIGURE ("block_cache_misses_total")), misses1);
  ck_assert_double_ge (hits1, hits);
  ab_store_close (s);
}
END_TEST

/* A full disk: a write that could meet it fails as unavailable with the
 * reason, before RocksDB's log append does (RocksDB 7.8 aborts the process
 * there); 1 MiB memtables keep a 6 MiB reserve (store_disk_full.c). */
START_TEST (test_disk_full)
{
  st_check_disk_full ("rocksdb", "memory=8m");
}
END_TEST

/* The write log behind plans made ahead: RocksDB lets no other process
 * write, so from the first commit on the log vouches for what it saw. */
START_TEST (test_write_log)
{
  g_autofree gchar *dir = st_fresh_dir ("wlog");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, "sync=0");
  g_autoptr (AbStore) s = st_open (uri);
  gboolean a, b;
  guint64 before_any = ab_store_write_seq (s);
  st_put (s, ST_S ("x"), ST_S ("1"));
  st_ask (s, before_any, "untouched", "x", &a, &b);
  ck_assert (!a);
  ck_assert (b);
  st_check_write_log (s);
}
END_TEST

/* A sorted load: rows put in key order are neither seen nor kept until the
 * commit ingests their table file; a key out of order fails; a load freed
 * without its commit leaves nothing; an ingested put overrides a counter's
 * adds and later adds go on from it; plans made before a commit re-read
 * every row; no file of the load stays in the directory. */
static gboolean
dir_has_load_files (const gchar *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const gchar *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "load-"))
      return TRUE;
  return FALSE;
}

START_TEST (test_sorted_load)
{
  g_autofree gchar *dir = st_fresh_dir ("load");
  g_autofree gchar *uri = st_uri ("rocksdb", dir, NULL);
  AbStore *s = st_open (uri);
  GError *error = NULL;
  gint64 v;
  ck_assert (ab_store_increment (s, ST_S ("c/count"), 5, &v, NULL));
  guint64 seq = ab_store_write_seq (s);
  AbStoreLoad *l = ab_store_load_new (s);
  ck_assert_ptr_nonnull (l);
  guint8 eight[8] = { 0, 0, 0, 0, 0, 0, 0, 40 }; /* a counter of 40, big-endian */
  ck_assert (ab_store_load_put (l, ST_S ("a/1"), ST_S ("one"), NULL));
  ck_assert (ab_store_load_put (l, ST_S ("b/2"), ST_S ("two"), NULL));
  ck_assert (ab_store_load_put (l, ST_S ("c/count"), eight, sizeof eight, NULL));
  st_assert_value (s, ST_S ("a/1"), NULL, 0); /* not before the commit */
  ck_assert (!ab_store_load_put (l, ST_S ("b/0"), ST_S ("late"), &error));
  ck_assert_msg (strstr (error->message, "increasing order") != NULL, "%s", error->message);
  g_clear_error (&error);
  ck_assert_msg (ab_store_load_commit (l, &error), "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_store_load_files (l), 1);
  st_assert_value (s, ST_S ("a/1"), ST_S ("one"));
  st_assert_value (s, ST_S ("b/2"), ST_S ("two"));
  st_assert_value (s, ST_S ("b/0"), NULL, 0);
  st_assert_counter (s, ST_S ("c/count"), 40);
  ck_assert (ab_store_increment (s, ST_S ("c/count"), 2, &v, NULL));
  ck_assert_int_eq (v, 42);
  gboolean a;
  st_ask (s, seq, "zz/never-loaded", NULL, &a, NULL);
  ck_assert (a); /* the log cannot say which keys the file held */
  /* the load goes on after a commit; freed uncommitted, its rows are gone */
  ck_assert (ab_store_load_put (l, ST_S ("d/4"), ST_S ("four"), NULL));
  ab_store_load_free (l);
  st_assert_value (s, ST_S ("d/4"), NULL, 0);
  ab_store_close (s);
  ck_assert (!dir_has_load_files (dir));
  s = st_open (uri);
  st_assert_value (s, ST_S ("a/1"), ST_S ("one"));
  st_assert_counter (s, ST_S ("c/count"), 42);
  ab_store_close (s);
  /* read-only: no load (its batches say why) */
  g_autofree gchar *ro = st_uri ("rocksdb", dir, "readonly=1");
  s = st_open (ro);
  ck_assert_ptr_null (ab_store_load_new (s));
  ab_store_close (s);
}
END_TEST

static Suite *
rocks_suite (void)
{
  Suite *suite = suite_create ("store-rocksdb");
  TCase *tc = tcase_create ("rocksdb");
  tcase_add_test (tc, test_uris);
  tcase_add_test (tc, test_reopen_keeps_data);
  tcase_add_test (tc, test_handles_share_db);
  tcase_add_test (tc, test_other_process_holds_it);
  tcase_add_test (tc, test_durable_after_sigkill);
  tcase_add_test (tc, test_native_backup);
  tcase_add_test (tc, test_scans_across_prefixes);
  tcase_add_test (tc, test_disk_full);
  tcase_add_test (tc, test_write_log);
  tcase_add_test (tc, test_sorted_load);
  tcase_add_test (tc, test_health_figures);
  tcase_add_test (tc, test_hot_counter_folded);
  tcase_add_test (tc, test_cache_hits_and_misses);
  tcase_set_timeout (tc, 60);
  suite_add_tcase (suite, tc);
  return suite;
}

int
main (void)
{
  return st_run (rocks_suite ());
}
