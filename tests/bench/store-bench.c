/* Write benchmark of the lmdb backend with fsync on: writer threads each
 * commit one-key batches of a few rows, for 1, 4 and 16 writers; prints ops/s,
 * batches per commit and the 16-writer / 1-writer ratio. Not a test. */
#include "store/store.h"

#include <lmdb.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  AbStore *s;
  guint id, rows;
  gint64 deadline;
  guint64 ops, failures;
} BenchWriter;

typedef struct {
  gdouble ops_per_s;
  gdouble per_commit; /* batches per write transaction */
} BenchResult;

static gpointer
bench_writer (gpointer p)
{
  BenchWriter *w = p;
  guint8 val[64];
  memset (val, 0x5a, sizeof val);
  while (g_get_monotonic_time () < w->deadline)
    {
      g_autoptr (AbBatch) b = ab_batch_new ();
      for (guint r = 0; r < w->rows; r++)
        {
          gchar key[48];
          g_snprintf (key, sizeof key, "bench/%02u/%010" G_GUINT64_FORMAT "/%u", w->id, w->ops, r);
          ab_batch_put (b, (const guint8 *) key, strlen (key), val, sizeof val);
        }
      if (ab_store_batch (w->s, b, NULL))
        w->ops++;
      else
        w->failures++;
    }
  return NULL;
}

/* Write transactions committed so far in dir (lmdb's last transaction id),
 * read after the store is closed: lmdb allows one env per process. */
static guint64
commits_in (const gchar *dir)
{
  MDB_env *env;
  MDB_envinfo info = { 0 };
  if (mdb_env_create (&env) != 0)
    return 0;
  if (mdb_env_open (env, dir, MDB_RDONLY, 0644) == 0)
    mdb_env_info (env, &info);
  mdb_env_close (env);
  return info.me_last_txnid;
}

static void
run_writers (AbStore *s, guint n, guint rows, gdouble seconds, guint64 *ops, guint64 *failures)
{
  g_autofree BenchWriter *w = g_new0 (BenchWriter, n);
  g_autofree GThread **t = g_new0 (GThread *, n);
  gint64 deadline = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);
  for (guint i = 0; i < n; i++)
    {
      w[i] = (BenchWriter){ s, i, rows, deadline, 0, 0 };
      t[i] = g_thread_new ("bench", bench_writer, &w[i]);
    }
  for (guint i = 0; i < n; i++)
    {
      g_thread_join (t[i]);
      *ops += w[i].ops;
      *failures += w[i].failures;
    }
}

/* One run: n writers for `seconds` on a fresh store. */
static BenchResult
bench_run (const gchar *root, guint round, guint n, guint rows, gdouble seconds)
{
  g_autofree gchar *dir = g_strdup_printf ("%s/r%u-w%u", root, round, n);
  g_autofree gchar *uri = g_strdup_printf ("lmdb:%s", dir);
  g_autoptr (GError) error = NULL;
  AbStore *s = ab_store_open (uri, &error);
  gint64 start = g_get_monotonic_time ();
  guint64 ops = 0, failures = 0, commits;
  gdouble elapsed;
  BenchResult r;
  if (s == NULL)
    {
      g_printerr ("store-bench: %s\n", error->message);
      exit (1);
    }
  run_writers (s, n, rows, seconds, &ops, &failures);
  elapsed = (gdouble) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
  ab_store_close (s);
  commits = commits_in (dir);
  r.ops_per_s = ops / elapsed;
  r.per_commit = commits > 1 ? (gdouble) ops / (gdouble) (commits - 1) : 0; /* -1: setup */
  g_print ("round %u writers=%-2u rows/batch=%u batches=%" G_GUINT64_FORMAT
           " failures=%" G_GUINT64_FORMAT
           " %.0f batches/s  %.1f batches/commit  mean latency %.2f ms\n",
           round, n, rows, ops, failures, r.ops_per_s, r.per_commit,
           ops ? elapsed * n * 1e3 / ops : 0.0);
  return r;
}

static gint
cmp_double (gconstpointer a, gconstpointer b)
{
  gdouble x = *(const gdouble *) a, y = *(const gdouble *) b;
  return x < y ? -1 : x > y;
}

static gdouble
median (GArray *values)
{
  if (values->len == 0)
    return 0;
  g_array_sort (values, cmp_double);
  return g_array_index (values, gdouble, values->len / 2);
}

typedef struct {
  gdouble seconds;
  gint rows, rounds;
  gchar *dir, *writer_list;
} BenchOptions;

static void
bench_all (const BenchOptions *o, const gchar *dir)
{
  g_auto (GStrv) counts = g_strsplit (o->writer_list ? o->writer_list : "1,4,16", ",", -1);
  guint nc = g_strv_length (counts);
  g_autofree GArray **rates = g_new0 (GArray *, nc);
  gdouble single = 0, sixteen = 0;
  for (guint c = 0; c < nc; c++)
    rates[c] = g_array_new (FALSE, FALSE, sizeof (gdouble));
  /* rounds alternate the writer counts so that disk noise hits them alike */
  for (gint round = 0; round < o->rounds; round++)
    for (guint c = 0; c < nc; c++)
      {
        guint n = (guint) g_ascii_strtoull (counts[c], NULL, 10);
        BenchResult r = bench_run (dir, (guint) round, MAX (n, 1), (guint) o->rows, o->seconds);
        g_array_append_val (rates[c], r.ops_per_s);
      }
  for (guint c = 0; c < nc; c++)
    {
      guint n = (guint) g_ascii_strtoull (counts[c], NULL, 10);
      gdouble m = median (rates[c]);
      g_print ("median writers=%-2u %.0f batches/s\n", n, m);
      single = n == 1 ? m : single;
      sixteen = n == 16 ? m : sixteen;
      g_array_unref (rates[c]);
    }
  if (single > 0 && sixteen > 0)
    g_print ("ratio 16 writers / 1 writer (medians): %.1fx (goal >= 5x)\n", sixteen / single);
}

int
main (int argc, char **argv)
{
  BenchOptions o = { .seconds = 2.0, .rows = 5, .rounds = 3 };
  g_autoptr (GError) error = NULL;
  GOptionEntry entries[] = {
    { "seconds", 's', 0, G_OPTION_ARG_DOUBLE, &o.seconds, "seconds per run (2)", "S" },
    { "rows", 'r', 0, G_OPTION_ARG_INT, &o.rows, "rows per batch (5)", "N" },
    { "rounds", 'n', 0, G_OPTION_ARG_INT, &o.rounds, "rounds, medians reported (3)", "N" },
    { "writers", 'w', 0, G_OPTION_ARG_STRING, &o.writer_list, "writer counts (1,4,16)", "LIST" },
    { "dir", 'd', 0, G_OPTION_ARG_FILENAME, &o.dir, "scratch directory (a fresh temp dir)", "D" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- lmdb group-commit benchmark");
  gchar *dir;
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || o.rows < 1 || o.rounds < 1
      || o.seconds <= 0)
    {
      g_printerr ("store-bench: %s\n",
                  error ? error->message : "bad --rows, --rounds or --seconds");
      return 2;
    }
  dir = o.dir ? o.dir : g_dir_make_tmp ("ab-store-bench-XXXXXX", &error);
  if (dir == NULL)
    {
      g_printerr ("store-bench: %s\n", error->message);
      return 1;
    }
  bench_all (&o, dir);
  if (o.dir == NULL)
    {
      g_autofree gchar *cmd = g_strdup_printf ("rm -rf '%s'", dir);
      if (system (cmd) != 0)
        g_printerr ("store-bench: could not remove %s\n", dir);
      g_free (dir);
    }
  g_free (o.dir);
  g_free (o.writer_list);
  return 0;
}
