/* Suite of what only the lmdb backend promises: store URIs, reopening,
 * handles sharing one environment, the key size limit, map growth under load,
 * group commit isolating a failing request, durability across SIGKILL, and
 * the write log that lets plans made ahead skip their re-reads. */
#include <stdatomic.h>
#include "store_test_util.h"
#include "store/backend.h" /* the handle's uri and backend name */

#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

START_TEST (test_uris)
{
  g_autofree gchar *dir = st_fresh_dir ("uri");
  g_autofree gchar *good = st_uri ("lmdb", dir, "mapsize=1m&sync=0");
  g_autofree gchar *bad_size = st_uri ("lmdb", dir, "mapsize=lots");
  g_autofree gchar *bad_param = st_uri ("lmdb", dir, "fsync=yes");
  g_autofree gchar *bad_flag = st_uri ("lmdb", dir, "writemap=yes");
  g_autoptr (AbStore) s = NULL;
  st_assert_open_fails ("", AB_STORE_ERROR_URI, "unknown store URI");
  st_assert_open_fails ("redis://x", AB_STORE_ERROR_URI, "unknown store URI");
  st_assert_open_fails ("memory:x", AB_STORE_ERROR_URI, "unknown store URI");
  st_assert_open_fails ("lmdb:", AB_STORE_ERROR_URI, "needs a directory");
  st_assert_open_fails (bad_size, AB_STORE_ERROR_URI, "mapsize=lots");
  st_assert_open_fails (bad_param, AB_STORE_ERROR_URI, "fsync=yes");
  st_assert_open_fails (bad_flag, AB_STORE_ERROR_URI, "writemap=yes");
  st_assert_open_fails ("hbase://localhost:9090/bad-ns", AB_STORE_ERROR_URI, "namespace");
  st_assert_open_fails ("lmdb:/proc/forbidden/db", AB_STORE_ERROR_IO, "/proc/forbidden/db");
  s = st_open (good);
  ck_assert_str_eq (s->uri, good);
  ck_assert_str_eq (s->vt->name, "lmdb");
}
END_TEST

START_TEST (test_reopen_keeps_data)
{
  g_autofree gchar *dir = st_fresh_dir ("reopen");
  g_autofree gchar *uri = st_uri ("lmdb", dir, NULL);
  AbStore *s = st_open (uri);
  st_put (s, ST_S ("k"), ST_S ("v"));
  ck_assert (ab_store_increment (s, ST_S ("n"), 41, NULL, NULL));
  ab_store_close (s);
  s = st_open (uri);
  st_assert_value (s, ST_S ("k"), ST_S ("v"));
  st_assert_counter (s, ST_S ("n"), 41);
  ab_store_close (s);
}
END_TEST

START_TEST (test_handles_share_env)
{
  g_autofree gchar *dir = st_fresh_dir ("share");
  g_autofree gchar *uri = st_uri ("lmdb", dir, "sync=0");
  g_autofree gchar *alias = g_strdup_printf ("lmdb:%s/./?sync=0", dir);
  AbStore *a = st_open (uri);
  AbStore *b = st_open (alias);
  st_put (a, ST_S ("k"), ST_S ("from a"));
  st_assert_value (b, ST_S ("k"), ST_S ("from a"));
  ab_store_close (a);
  st_put (b, ST_S ("k2"), ST_S ("from b"));
  st_assert_value (b, ST_S ("k"), ST_S ("from a"));
  ab_store_close (b);
  a = st_open (uri);
  st_assert_value (a, ST_S ("k2"), ST_S ("from b"));
  ab_store_close (a);
}
END_TEST

/* Each reader thread keeps its own read transaction: a thread outliving
 * the store it read, then reading another store (its slot binds anew) and a
 * third while bound (the shared pool), then ending; and threads ending while
 * the store stays open. ASan/valgrind catch a transaction used or freed
 * after its environment. */
typedef struct {
  GMutex lock;
  GCond cond;
  gint step; /* main -> reader: 1 read a, 2 read b and c, 3 exit */
  gint done; /* reader -> main: the last step finished */
  AbStore *a, *b, *c;
} Relay;

static void
relay_wait (Relay *r, gint step)
{
  g_mutex_lock (&r->lock);
  while (r->step < step)
    g_cond_wait (&r->cond, &r->lock);
  g_mutex_unlock (&r->lock);
}

static void
relay_set (Relay *r, gint *field, gint value)
{
  g_mutex_lock (&r->lock);
  *field = value;
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
}

static gpointer
relay_reader (gpointer data)
{
  Relay *r = data;
  relay_wait (r, 1);
  for (guint i = 0; i < 50; i++)
    st_assert_value (r->a, ST_S ("k"), ST_S ("a"));
  relay_set (r, &r->done, 1);
  relay_wait (r, 2); /* meanwhile a was closed */
  for (guint i = 0; i < 50; i++)
    {
      st_assert_value (r->b, ST_S ("k"), ST_S ("b"));
      st_assert_value (r->c, ST_S ("k"), ST_S ("c"));
    }
  relay_set (r, &r->done, 2);
  relay_wait (r, 3);
  return NULL;
}

static gpointer
plain_reader (gpointer store)
{
  for (guint i = 0; i < 200; i++)
    st_assert_value (store, ST_S ("k"), ST_S ("b"));
  return NULL;
}

START_TEST (test_reader_threads_outlive_stores)
{
  g_autofree gchar *da = st_fresh_dir ("slot-a");
  g_autofree gchar *db = st_fresh_dir ("slot-b");
  g_autofree gchar *dc = st_fresh_dir ("slot-c");
  g_autofree gchar *ua = st_uri ("lmdb", da, "sync=0");
  g_autofree gchar *ub = st_uri ("lmdb", db, "sync=0");
  g_autofree gchar *uc = st_uri ("lmdb", dc, "sync=0");
  Relay r = { .a = st_open (ua), .b = st_open (ub), .c = st_open (uc) };
  g_mutex_init (&r.lock);
  g_cond_init (&r.cond);
  st_put (r.a, ST_S ("k"), ST_S ("a"));
  st_put (r.b, ST_S ("k"), ST_S ("b"));
  st_put (r.c, ST_S ("k"), ST_S ("c"));
  GThread *t = g_thread_new ("relay", relay_reader, &r);
  relay_set (&r, &r.step, 1);
  g_mutex_lock (&r.lock);
  while (r.done < 1)
    g_cond_wait (&r.cond, &r.lock);
  g_mutex_unlock (&r.lock);
  ab_store_close (r.a); /* the reader's transaction of a goes with it */
  relay_set (&r, &r.step, 2);
  g_mutex_lock (&r.lock);
  while (r.done < 2)
    g_cond_wait (&r.cond, &r.lock);
  g_mutex_unlock (&r.lock);
  GThread *more[4];
  for (guint i = 0; i < G_N_ELEMENTS (more); i++)
    more[i] = g_thread_new ("plain", plain_reader, r.b);
  for (guint i = 0; i < G_N_ELEMENTS (more); i++)
    g_thread_join (more[i]); /* their transactions of b end with them */
  st_assert_value (r.b, ST_S ("k"), ST_S ("b"));
  relay_set (&r, &r.step, 3);
  g_thread_join (t); /* the relay's transaction of b ends with it */
  ab_store_close (r.b);
  ab_store_close (r.c);
  g_mutex_clear (&r.lock);
  g_cond_clear (&r.cond);
}
END_TEST

START_TEST (test_key_too_long)
{
  g_autofree gchar *dir = st_fresh_dir ("long");
  g_autofree gchar *uri = st_uri ("lmdb", dir, "sync=0");
  g_autoptr (AbStore) s = st_open (uri);
  g_autoptr (GBytes) v = NULL;
  g_autoptr (GArray) out = ab_kv_array_new ();
  guint8 key[600];
  GError *error = NULL;
  memset (key, 'k', sizeof key);
  st_put (s, key, 511, ST_S ("max"));
  st_put (s, ST_S ("z"), ST_S ("after"));
  ck_assert (!ab_store_put (s, key, 512, ST_S ("v"), &error));
  ck_assert_int_eq (error->code, AB_STORE_ERROR_IO);
  ck_assert_msg (strstr (error->message, "511") != NULL, "%s", error->message);
  g_clear_error (&error);
  /* no such key can be stored, so reads of one answer absent (not an error) */
  ck_assert_uint_eq (ab_store_max_key (s), 511);
  ck_assert (ab_store_get (s, key, 600, &v, &error));
  ck_assert_ptr_null (v);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (keys, g_bytes_new (key, 600));
  g_ptr_array_add (keys, g_bytes_new (key, 511));
  g_autoptr (GArray) got = ab_kv_array_new ();
  ck_assert (ab_store_multi_get (s, keys, got, &error));
  ck_assert_uint_eq (got->len, 2);
  ck_assert_ptr_null (g_array_index (got, AbKv, 0).value);
  st_assert_bytes_eq (g_array_index (got, AbKv, 1).value, ST_S ("max"));
  /* the same among many keys, with empty ones */
  for (guint i = 0; i < 40; i++)
    g_ptr_array_add (keys, i % 3 == 0   ? g_bytes_new (key, 600)
                           : i % 3 == 1 ? g_bytes_new (key, 511)
                                        : g_bytes_new (key, 0));
  g_array_set_size (got, 0);
  ck_assert (ab_store_multi_get (s, keys, got, &error));
  ck_assert_uint_eq (got->len, 42);
  for (guint i = 0; i < got->len; i++)
    {
      gsize len = g_bytes_get_size (keys->pdata[i]);
      if (len == 511)
        st_assert_bytes_eq (g_array_index (got, AbKv, i).value, ST_S ("max"));
      else
        ck_assert_ptr_null (g_array_index (got, AbKv, i).value);
    }
  ck_assert (!ab_store_increment (s, key, 512, 1, NULL, &error));
  g_clear_error (&error);
  /* A start bound longer than any key still scans from the right place. */
  AbScanRange r = { .start = key, .start_len = 600, .start_inclusive = TRUE };
  ck_assert (ab_store_scan (s, &r, out, &error));
  ck_assert_uint_eq (out->len, 1);
  st_assert_bytes_eq (g_array_index (out, AbKv, 0).key, ST_S ("z"));
  r.start_len = 511;
  r.start_inclusive = FALSE;
  g_array_set_size (out, 0);
  ck_assert (ab_store_scan (s, &r, out, &error));
  ck_assert_uint_eq (out->len, 1);
}
END_TEST

/* ---- map growth ---- */

#define ROW_BYTES 1024

typedef struct {
  AbStore *s;
  guint id, batches, rows;
  guint failures;
  atomic_int *stop;
} Loader;

static void
row_key (gchar *buf, gsize n, guint id, guint b, guint r)
{
  g_snprintf (buf, n, "t%02u/b%06u/r%u", id, b, r);
}

static gpointer
load_worker (gpointer p)
{
  Loader *l = p;
  guint8 val[ROW_BYTES];
  for (guint b = 0; b < l->batches; b++)
    {
      g_autoptr (AbBatch) batch = ab_batch_new ();
      GError *error = NULL;
      for (guint r = 0; r < l->rows; r++)
        {
          gchar key[32];
          row_key (key, sizeof key, l->id, b, r);
          memset (val, (int) (b + r), sizeof val);
          ab_batch_put (batch, ST_S (key), val, sizeof val);
        }
      if (!ab_store_batch (l->s, batch, &error))
        {
          g_printerr ("loader %u batch %u: %s\n", l->id, b, error->message);
          g_clear_error (&error);
          l->failures++;
        }
    }
  return NULL;
}

/* Scans while the map is being grown under it. */
static gpointer
read_worker (gpointer p)
{
  Loader *l = p;
  while (!atomic_load (l->stop))
    {
      g_autoptr (GArray) out = ab_kv_array_new ();
      AbScanRange r = { .limit = 50 };
      if (!ab_store_scan (l->s, &r, out, NULL))
        l->failures++;
    }
  return NULL;
}

static guint64
file_size (const gchar *dir, const gchar *name)
{
  g_autofree gchar *p = g_build_filename (dir, name, NULL);
  struct stat st;
  ck_assert_int_eq (stat (p, &st), 0);
  return (guint64) st.st_size;
}

static void
assert_loaded (AbStore *s, guint id, guint batches, guint rows)
{
  guint8 val[ROW_BYTES];
  for (guint b = 0; b < batches; b++)
    for (guint r = 0; r < rows; r++)
      {
        gchar key[32];
        row_key (key, sizeof key, id, b, r);
        memset (val, (int) (b + r), sizeof val);
        st_assert_value (s, ST_S (key), val, sizeof val);
      }
}

START_TEST (test_map_grows_concurrently)
{
  g_autofree gchar *dir = st_fresh_dir ("grow");
  g_autofree gchar *uri = st_uri ("lmdb", dir, "mapsize=256k&sync=0");
  g_autoptr (AbStore) s = st_open (uri);
  atomic_int stop = 0;
  Loader l[6];
  GThread *t[6];
  for (guint i = 0; i < 6; i++)
    {
      l[i] = (Loader){ .s = s, .id = i, .batches = 300, .rows = 5, .stop = &stop };
      t[i] = g_thread_new ("load", i < 4 ? load_worker : read_worker, &l[i]);
    }
  for (guint i = 0; i < 4; i++)
    g_thread_join (t[i]);
  atomic_store (&stop, 1);
  for (guint i = 4; i < 6; i++)
    g_thread_join (t[i]);
  for (guint i = 0; i < 6; i++)
    ck_assert_uint_eq (l[i].failures, 0);
  for (guint i = 0; i < 4; i++)
    assert_loaded (s, i, 300, 5);
  /* 4 x 300 x 5 rows of 1 KiB: the data file is far past the 256 KiB map */
  ck_assert_uint_gt (file_size (dir, "data.mdb"), 4u << 20);
}
END_TEST

START_TEST (test_map_grows_for_one_big_batch)
{
  g_autofree gchar *dir = st_fresh_dir ("bigbatch");
  g_autofree gchar *uri = st_uri ("lmdb", dir, "mapsize=128k&sync=0");
  g_autoptr (AbStore) s = st_open (uri);
  Loader l = { .s = s, .id = 0, .batches = 1, .rows = 3000 };
  load_worker (&l);
  ck_assert_uint_eq (l.failures, 0);
  assert_loaded (s, 0, 1, 3000);
}
END_TEST

/* ---- group commit: a failing request does not poison its group ---- */

#define ISO_THREADS 16
#define ISO_ROUNDS 40

typedef struct {
  AbStore *s;
  guint id;
  guint unexpected;
} IsoWorker;

static gpointer
iso_worker (gpointer p)
{
  IsoWorker *w = p;
  for (guint r = 0; r < ISO_ROUNDS; r++)
    {
      g_autoptr (AbBatch) b = ab_batch_new ();
      GError *error = NULL;
      gchar key[32];
      g_snprintf (key, sizeof key, "iso/%02u/%03u", w->id, r);
      ab_batch_put (b, ST_S (key), ST_S ("x"));
      ab_batch_increment (b, ST_S ("good"), 1);
      if (w->id % 2)
        ab_batch_increment (b, ST_S ("bad"), 1); /* 3-byte value: WIDTH */
      if (ab_store_batch (w->s, b, &error) == (w->id % 2 != 0))
        w->unexpected++;
      if (error && error->code != AB_STORE_ERROR_WIDTH)
        w->unexpected++;
      g_clear_error (&error);
    }
  return NULL;
}

/* _i = 1: under writemap=1, which has no nested transactions, the group
 * is redone one transaction per request instead. */
START_TEST (test_group_isolates_failures)
{
  g_autofree gchar *dir = st_fresh_dir ("iso");
  /* fsync on: real groups */
  g_autofree gchar *uri = st_uri ("lmdb", dir, _i == 1 ? "writemap=1" : NULL);
  g_autoptr (AbStore) s = st_open (uri);
  IsoWorker w[ISO_THREADS];
  GThread *t[ISO_THREADS];
  st_put (s, ST_S ("bad"), ST_S ("3by"));
  for (guint i = 0; i < ISO_THREADS; i++)
    {
      w[i] = (IsoWorker){ .s = s, .id = i };
      t[i] = g_thread_new ("iso", iso_worker, &w[i]);
    }
  for (guint i = 0; i < ISO_THREADS; i++)
    {
      g_thread_join (t[i]);
      ck_assert_uint_eq (w[i].unexpected, 0);
    }
  st_assert_counter (s, ST_S ("good"), ISO_THREADS / 2 * ISO_ROUNDS);
  for (guint i = 0; i < ISO_THREADS; i++)
    {
      gchar key[32];
      g_snprintf (key, sizeof key, "iso/%02u/%03u", i, ISO_ROUNDS - 1);
      st_assert_value (s, ST_S (key), i % 2 ? NULL : (const guint8 *) "x", i % 2 ? 0 : 1);
    }
}
END_TEST

/* ---- the write log behind plans made ahead (ab_store_written_since) ---- */

START_TEST (test_write_log)
{
  g_autofree gchar *dir = st_fresh_dir ("wlog");
  g_autofree gchar *uri = st_uri ("lmdb", dir, "sync=0");
  g_autoptr (AbStore) s = st_open (uri);
  gboolean a;
  guint64 before_any = ab_store_write_seq (s);
  ck_assert_uint_gt (before_any, 0); /* lmdb keeps the log */
  st_put (s, ST_S ("x"), ST_S ("1"));
  /* reads taken before the first commit of this process may have missed
   * another process's: everything counts as written */
  st_ask (s, before_any, "untouched", NULL, &a, NULL);
  ck_assert (a);
  ck_assert_uint_gt (ab_store_write_seq (s), before_any);
  st_check_write_log (s);
  /* a commit that put nothing keeps the chain of transaction ids */
  guint64 seq;
  g_autoptr (AbBatch) none = ab_batch_new ();
  ab_batch_delete (none, ST_S ("absent"));
  ck_assert (ab_store_batch (s, none, NULL));
  seq = ab_store_write_seq (s);
  st_ask (s, seq, "untouched", NULL, &a, NULL);
  ck_assert (!a);
}
END_TEST

/* Another process's commit voids every plan made before it: lmdb's
 * transaction ids no longer follow this process's own commits. The child is
 * forked before this process opens the store (an environment must not cross
 * a fork) and commits when told. */
START_TEST (test_write_log_other_process)
{
  g_autofree gchar *dir = st_fresh_dir ("wlog2");
  g_autofree gchar *uri = st_uri ("lmdb", dir, "sync=0");
  int go[2], status;
  ck_assert_int_eq (pipe (go), 0);
  pid_t pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0)
    {
      char c;
      close (go[1]);
      if (read (go[0], &c, 1) != 1)
        _exit (2);
      AbStore *other = ab_store_open (uri, NULL);
      if (other == NULL || !ab_store_put (other, ST_S ("theirs"), ST_S ("1"), NULL))
        _exit (3);
      ab_store_close (other);
      _exit (0);
    }
  close (go[0]);
  g_autoptr (AbStore) s = st_open (uri);
  gboolean a;
  st_put (s, ST_S ("mine"), ST_S ("1"));
  guint64 seq = ab_store_write_seq (s);
  st_ask (s, seq, "untouched", NULL, &a, NULL);
  ck_assert (!a); /* nothing committed since, by anyone */
  ck_assert_int_eq (write (go[1], "g", 1), 1);
  ck_assert_int_eq (waitpid (pid, &status, 0), pid);
  ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  close (go[1]);
  st_ask (s, seq, "untouched", NULL, &a, NULL);
  ck_assert (a);
  st_ask (s, ab_store_write_seq (s), "untouched", NULL, &a, NULL);
  ck_assert (!a); /* a plan made after it is trusted again */
}
END_TEST

/* writemap=1 refuses a store another process has open (LMDB: processes
 * with and without MDB_WRITEMAP do not cooperate), and takes it once that
 * process is gone. The child opens the store and holds it until told. */
START_TEST (test_writemap_alone)
{
  g_autofree gchar *dir = st_fresh_dir ("wmap");
  g_autofree gchar *plain = st_uri ("lmdb", dir, NULL);
  g_autofree gchar *uri = st_uri ("lmdb", dir, "writemap=1&sync=0");
  int up[2], go[2], status;
  char c;
  ck_assert_int_eq (pipe (up), 0);
  ck_assert_int_eq (pipe (go), 0);
  pid_t pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0)
    {
      close (up[0]);
      close (go[1]);
      AbStore *other = ab_store_open (plain, NULL);
      if (other == NULL || !ab_store_put (other, ST_S ("k"), ST_S ("v"), NULL)
          || write (up[1], "u", 1) != 1 || read (go[0], &c, 1) != 1)
        _exit (2);
      ab_store_close (other);
      _exit (0);
    }
  close (up[1]);
  close (go[0]);
  ck_assert_int_eq (read (up[0], &c, 1), 1);
  g_autofree gchar *who = g_strdup_printf ("process %ld has it open", (long) pid);
  st_assert_open_fails (uri, AB_STORE_ERROR_IO, who);
  ck_assert_int_eq (write (go[1], "g", 1), 1);
  ck_assert_int_eq (waitpid (pid, &status, 0), pid);
  ck_assert (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  g_autoptr (AbStore) s = st_open (uri);
  st_assert_value (s, ST_S ("k"), ST_S ("v"));
  st_put (s, ST_S ("k2"), ST_S ("v2"));
  st_assert_value (s, ST_S ("k2"), ST_S ("v2"));
}
END_TEST

/* ---- durability: SIGKILL a writer, every acknowledged batch survives ---- */

/* A full disk: the commit that meets it fails as unavailable, nothing of
 * it written (its meta page is never reached); writes resume once space is
 * freed (store_disk_full.c). */
START_TEST (test_disk_full)
{
  st_check_disk_full ("lmdb", NULL);
}
END_TEST

START_TEST (test_durable_after_sigkill)
{
  g_autofree gchar *dir = st_fresh_dir ("dur");
  g_autofree gchar *uri = st_uri ("lmdb", dir, NULL);
  st_check_durable_after_sigkill (uri);
}
END_TEST

static Suite *
lmdb_suite (void)
{
  Suite *suite = suite_create ("store-lmdb");
  TCase *tc = tcase_create ("lmdb");
  tcase_add_test (tc, test_uris);
  tcase_add_test (tc, test_reopen_keeps_data);
  tcase_add_test (tc, test_handles_share_env);
  tcase_add_test (tc, test_reader_threads_outlive_stores);
  tcase_add_test (tc, test_key_too_long);
  tcase_add_test (tc, test_map_grows_concurrently);
  tcase_add_test (tc, test_map_grows_for_one_big_batch);
  tcase_add_loop_test (tc, test_group_isolates_failures, 0, 2);
  tcase_add_test (tc, test_writemap_alone);
  tcase_add_test (tc, test_durable_after_sigkill);
  tcase_add_test (tc, test_disk_full);
  tcase_add_test (tc, test_write_log);
  tcase_add_test (tc, test_write_log_other_process);
  tcase_set_timeout (tc, 240);
  suite_add_tcase (suite, tc);
  return suite;
}

int
main (void)
{
  return st_run (lmdb_suite ());
}
