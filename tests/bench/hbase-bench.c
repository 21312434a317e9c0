/* hbase-bench: figures of the hbase backend against a live gateway.
 *   hbase-bench raw HOST:PORT N [C]  raw Thrift2 put and get calls/s over C connections
 *                                    (default 1), each a thread making calls one at a time,
 *                                    then N/6 single-edge INSERTs' calls, nothing shared,
 *                                    and N/6 of their protocol floor (4 calls each); with
 *                                    AB_HBASE_DIR set, each with HBase's CPU per op
 *   hbase-bench engine URI N         single-edge INSERT and GET rate and p50/p99 (INSERT
 *                                    with its calls and ms per Thrift method), and the
 *                                    Thrift round trips of one request of 1, 10, 100 edges */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "engine/derive.h"
#include "model/schema.h"
#include "store/store.h"
#include "../hbase/hbase_raw.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"bench\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

static void
die (const gchar *what, GError *error)
{
  fprintf (stderr, "hbase-bench: %s: %s\n", what, error ? error->message : "failed");
  exit (1);
}

static gint
cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* "NAME  N ops/s  p50 X ms  p99 Y ms" from per-op microseconds, then HBase's
 * CPU per operation (cpu_ms) when it is >= 0. */
static void
report (const gchar *name, GArray *us, gint64 total_us, gdouble cpu_ms)
{
  g_array_sort (us, cmp_i64);
  printf ("%-22s %8.0f ops/s   p50 %6.2f ms   p99 %6.2f ms   (n=%u)", name,
          us->len * 1e6 / (gdouble) MAX (total_us, 1),
          g_array_index (us, gint64, us->len / 2) / 1000.0,
          g_array_index (us, gint64, MIN (us->len - 1, us->len * 99 / 100)) / 1000.0, us->len);
  if (cpu_ms >= 0)
    printf ("   hbase cpu %.3f ms/op", cpu_ms);
  printf ("\n");
}

/* CPU seconds HBase's JVMs (the master with its region server, and the
 * gateway) have used, from the pid files of AB_HBASE_DIR (hbase/start.sh's
 * instance directory); -1 when that is not known. */
static gdouble
hbase_cpu_seconds (void)
{
  const gchar *dir = g_getenv ("AB_HBASE_DIR");
  gdouble sum = 0;
  for (guint i = 0; dir != NULL && *dir != '\0' && i < 2; i++)
    {
      g_autofree gchar *pidfile
          = g_build_filename (dir, i == 0 ? "master.pid" : "thrift.pid", NULL);
      g_autofree gchar *pid = NULL, *stat = NULL, *path = NULL;
      if (!g_file_get_contents (pidfile, &pid, NULL, NULL))
        return -1;
      path = g_strdup_printf ("/proc/%s/stat", g_strstrip (pid));
      const gchar *after;
      if (!g_file_get_contents (path, &stat, NULL, NULL) || (after = strrchr (stat, ')')) == NULL)
        return -1;
      /* after the name: state is field 3, utime and stime are 14 and 15 */
      g_auto (GStrv) f = g_strsplit (after + 2, " ", 14);
      if (g_strv_length (f) < 14)
        return -1;
      sum += (g_ascii_strtod (f[11], NULL) + g_ascii_strtod (f[12], NULL)) / sysconf (_SC_CLK_TCK);
    }
  return dir != NULL && *dir != '\0' ? sum : -1;
}

/* What one raw op is: a put, a get, the calls of one single-edge INSERT
 * made one after another with nothing shared (lock, State read, the three
 * rows, two Count increments, release: 6 calls), or only its protocol floor
 * (lock, two increments, release: 4 calls; docs/hbase-adapter.md §3.9). */
typedef enum { RAW_PUT, RAW_GET, RAW_MIX, RAW_FLOOR } RawOp;
#define RAW_MIX_CALLS 6

typedef struct {
  AbHbRaw *raw;
  const gchar *table;
  guint first, step, n; /* keys first, first + step, ... below n */
  RawOp op;
  GArray *us; /* per-op microseconds */
  GError *error;
} RawJob;

static gboolean
raw_mix (RawJob *j, const gchar *key, gboolean floor_only)
{
  g_autofree gchar *lock = g_strconcat (key, "-lock", NULL);
  g_autofree gchar *state = g_strconcat (key, "-state", NULL);
  g_autofree gchar *out = g_strconcat (key, "-out", NULL), *in = g_strconcat (key, "-in", NULL);
  g_autofree gchar *c_out = g_strconcat (key, "-cout", NULL);
  g_autofree gchar *c_in = g_strconcat (key, "-cin", NULL);
  const guint8 *rows[] = { (guint8 *) state, (guint8 *) out, (guint8 *) in };
  const gsize lens[] = { strlen (state), strlen (out), strlen (in) };
  const guint8 stamp[9] = { 0x80, 0, 0, 0x01, 0x8c, 0x12, 0x34, 0x56, 0x78 };
  g_autoptr (GByteArray) v = NULL;
  gboolean applied = FALSE;
  return ab_hb_raw_check_and_put (j->raw, j->table, (guint8 *) lock, strlen (lock), stamp,
                                  sizeof stamp, &applied, &j->error)
         && (floor_only
             || (ab_hb_raw_get (j->raw, j->table, (guint8 *) state, strlen (state), &v, &j->error)
                 && ab_hb_raw_put_rows (j->raw, j->table, rows, lens, 3,
                                        (const guint8 *) "0123456789abcdef0123456789", 26,
                                        &j->error)))
         && ab_hb_raw_increment (j->raw, j->table, (guint8 *) c_out, strlen (c_out), 1, &j->error)
         && ab_hb_raw_increment (j->raw, j->table, (guint8 *) c_in, strlen (c_in), 1, &j->error)
         && ab_hb_raw_check_and_delete (j->raw, j->table, (guint8 *) lock, strlen (lock), stamp,
                                        sizeof stamp, &applied, &j->error);
}

static gpointer
raw_job (gpointer data)
{
  RawJob *j = data;
  for (guint i = j->first; i < j->n; i += j->step)
    {
      gchar key[32];
      gint64 s = g_get_monotonic_time (), d;
      g_autoptr (GByteArray) v = NULL;
      gboolean ok;
      g_snprintf (key, sizeof key, "%02x-raw-%u", (i * 37) & 0xff, i);
      if (j->op == RAW_MIX || j->op == RAW_FLOOR)
        ok = raw_mix (j, key, j->op == RAW_FLOOR);
      else
        ok = j->op == RAW_PUT
                 ? ab_hb_raw_put (j->raw, j->table, (guint8 *) key, strlen (key),
                                  (const guint8 *) "0123456789abcdef0123456789", 26, &j->error)
                 : ab_hb_raw_get (j->raw, j->table, (guint8 *) key, strlen (key), &v, &j->error);
      if (!ok)
        break;
      d = g_get_monotonic_time () - s;
      g_array_append_val (j->us, d);
    }
  return NULL;
}

static int
run_raw (const gchar *addr, guint n, guint conns)
{
  GError *error = NULL;
  const gchar *table = g_getenv ("AB_BENCH_RAW_TABLE");
  g_autofree RawJob *jobs = g_new0 (RawJob, conns);
  g_autofree GThread **threads = g_new0 (GThread *, conns);
  g_autofree gchar *uri = g_strdup_printf ("hbase://%s/abbench?table=raw", addr);
  g_autoptr (AbStore) s = ab_store_open (uri, &error);
  if (table == NULL)
    table = "abbench:raw";
  if (s == NULL || !ab_store_ping (s, &error)) /* creates the table */
    die ("create abbench:raw", error);
  for (guint c = 0; c < conns; c++)
    if ((jobs[c].raw = ab_hb_raw_connect (addr, FALSE, FALSE, &error)) == NULL)
      die ("connect", error);
  for (RawOp pass = RAW_PUT; pass <= RAW_FLOOR; pass++)
    {
      g_autoptr (GArray) lat = g_array_new (FALSE, FALSE, sizeof (gint64));
      static const gchar *const names[] = { "put", "get", "INSERT mix", "INSERT floor" };
      const gchar *op = names[pass];
      g_autofree gchar *name = conns > 1 ? g_strdup_printf ("raw Thrift %s x%u", op, conns)
                                         : g_strdup_printf ("raw Thrift %s", op);
      gdouble cpu0 = hbase_cpu_seconds ();
      gint64 t0 = g_get_monotonic_time ();
      for (guint c = 0; c < conns; c++)
        {
          jobs[c] = (RawJob){ .raw = jobs[c].raw,
                              .table = table,
                              .first = c,
                              .step = conns,
                              .n = pass >= RAW_MIX ? n / RAW_MIX_CALLS : n,
                              .op = pass,
                              .us = g_array_new (FALSE, FALSE, sizeof (gint64)) };
          threads[c] = g_thread_new ("raw", raw_job, &jobs[c]);
        }
      for (guint c = 0; c < conns; c++)
        g_thread_join (threads[c]);
      gint64 total = g_get_monotonic_time () - t0;
      for (guint c = 0; c < conns; c++)
        {
          if (jobs[c].error != NULL)
            die (op, jobs[c].error);
          g_array_append_vals (lat, jobs[c].us->data, jobs[c].us->len);
          g_array_unref (jobs[c].us);
        }
      gdouble cpu1 = hbase_cpu_seconds ();
      report (name, lat, total,
              cpu0 >= 0 && cpu1 >= cpu0 && lat->len > 0 ? (cpu1 - cpu0) * 1000 / lat->len : -1);
    }
  for (guint c = 0; c < conns; c++)
    ab_hb_raw_close (jobs[c].raw);
  return 0;
}

static guint64
round_trips (AbEngine *e)
{
  AbStoreRpcCount c[AB_STORE_RPC_MAX];
  guint n = ab_store_rpc_counts (ab_engine_store (e), c, AB_STORE_RPC_MAX);
  guint64 sum = 0;
  for (guint i = 0; i < n; i++)
    if (strcmp (c[i].name, "connect") != 0)
      sum += c[i].calls;
  return sum;
}

/* Per Thrift method during a run: calls per request and mean ms per call,
 * from the backend's counters before (snapshot) and now. */
static void
rpc_breakdown (AbEngine *e, const AbStoreRpcCount *before, guint requests)
{
  AbStoreRpcCount now[AB_STORE_RPC_MAX];
  guint n = ab_store_rpc_counts (ab_engine_store (e), now, AB_STORE_RPC_MAX);
  for (guint i = 0; i < n; i++)
    {
      guint64 calls = now[i].calls - before[i].calls;
      if (calls == 0 || strcmp (now[i].name, "connect") == 0)
        continue;
      printf ("    %-20s %5.2f calls/request   %6.3f ms/call\n", now[i].name,
              calls / (gdouble) requests, (now[i].micros - before[i].micros) / 1000.0 / calls);
    }
}

static void
mutate (AbEngine *e, const gchar *body)
{
  g_autoptr (JsonNode) n = json_from_string (body, NULL);
  g_autoptr (GError) error = NULL;
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "likes";
  o.table = "likes";
  g_autoptr (GArray) r = ab_engine_mutate (e, &o, n, &error);
  if (r == NULL)
    die ("mutate", error);
}

static gchar *
edges_body (guint first, guint count, const gchar *source)
{
  GString *b = g_string_new ("{\"mutations\":[");
  for (guint i = first; i < first + count; i++)
    g_string_append_printf (b,
                            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"%s%u\","
                            "\"target\":\"i%u\",\"properties\":{\"created_at\":%u}}}",
                            i > first ? "," : "", i + 1, source, i % 100, i, i + 1);
  g_string_append (b, "]}");
  return g_string_free (b, FALSE);
}

static void
setup (AbEngine *e)
{
  AbCatalog *cat = ab_engine_catalog (e);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) body = json_from_string (LIKES, NULL);
  g_autoptr (AbDatabaseDesc) d
      = ab_catalog_create_database (cat, "likes", "bench", "bench", &error);
  if (d == NULL)
    die ("create database", error);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request ("likes", NULL, body, &error);
  g_autoptr (AbTableDesc) t = proto ? ab_catalog_create_table (cat, proto, "bench", &error) : NULL;
  if (t == NULL)
    die ("create table", error);
}

static void
bench_round_trips (AbEngine *e)
{
  static const guint sizes[] = { 1, 10, 100 };
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autofree gchar *body = edges_body (1000000 + s * 1000, sizes[s], "rt");
      guint64 before = round_trips (e);
      mutate (e, body);
      printf ("round trips, request of %3u edges: %" G_GUINT64_FORMAT "\n", sizes[s],
              round_trips (e) - before);
    }
}

static int
run_engine (const gchar *uri, guint n)
{
  g_autoptr (GError) error = NULL;
  AbEngineConfig cfg;
  AbEngine *e;
  g_autoptr (GArray) ins = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) get = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 t0;
  ab_engine_config_init (&cfg);
  if ((e = ab_engine_open (uri, &cfg, &error)) == NULL)
    die ("open", error);
  setup (e);
  bench_round_trips (e);
  AbStoreRpcCount before[AB_STORE_RPC_MAX];
  ab_store_rpc_counts (ab_engine_store (e), before, AB_STORE_RPC_MAX);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      g_autofree gchar *body = edges_body (i, 1, "u");
      gint64 s = g_get_monotonic_time (), d;
      mutate (e, body);
      d = g_get_monotonic_time () - s;
      g_array_append_val (ins, d);
    }
  report ("engine INSERT (1 edge)", ins, g_get_monotonic_time () - t0, -1);
  rpc_breakdown (e, before, n);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GPtrArray) src = g_ptr_array_new_with_free_func (g_free);
      g_autoptr (GPtrArray) tgt = g_ptr_array_new_with_free_func (g_free);
      gint64 s = g_get_monotonic_time (), d;
      g_ptr_array_add (src, g_strdup_printf ("u%u", i % 100));
      g_ptr_array_add (tgt, g_strdup_printf ("i%u", i));
      g_autoptr (AbEdgeFrame) f = ab_engine_get (e, "likes", "likes", src, tgt, NULL, &error);
      if (f == NULL || f->edges->len != 1)
        die ("get", error);
      d = g_get_monotonic_time () - s;
      g_array_append_val (get, d);
    }
  report ("engine GET (1 edge)", get, g_get_monotonic_time () - t0, -1);
  ab_engine_close (e);
  return 0;
}

int
main (int argc, char **argv)
{
  guint n = argc > 3 ? (guint) atoi (argv[3]) : 2000;
  guint conns = argc > 4 ? (guint) atoi (argv[4]) : 1;
  if (argc < 3 || n == 0 || conns == 0 || conns > 1024)
    {
      fprintf (stderr,
               "usage: hbase-bench raw HOST:PORT [N [CONNECTIONS]] | hbase-bench engine URI [N]\n");
      return 2;
    }
  /* A gateway that hangs up must cost a failed call, not the process. */
  signal (SIGPIPE, SIG_IGN);
  if (strcmp (argv[1], "raw") == 0)
    return run_raw (argv[2], n, conns);
  if (strcmp (argv[1], "engine") == 0)
    return run_engine (argv[2], n);
  fprintf (stderr, "hbase-bench: unknown mode %s\n", argv[1]);
  return 2;
}
