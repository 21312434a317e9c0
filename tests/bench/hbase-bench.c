/* hbase-bench: figures of the hbase backend against a live gateway.
 *   hbase-bench raw HOST:PORT N      raw Thrift2 put and get calls/s, one connection
 *   hbase-bench engine URI N         single-edge INSERT and GET rate and p50/p99 (INSERT
 *                                    with its calls and ms per Thrift method), and the
 *                                    Thrift round trips of one request of 1, 10, 100 edges */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog.h"
#include "engine/engine-private.h"
#include "model/schema.h"
#include "store/store.h"
#include "../hbase/hbase_raw.h"

static const gchar *LIKES =
  "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"bench\","
  "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
  "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
  "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],"
  "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}]}]}}";

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

/* "NAME  N ops/s  p50 X ms  p99 Y ms" from per-op microseconds. */
static void
report (const gchar *name, GArray *us, gint64 total_us)
{
  g_array_sort (us, cmp_i64);
  printf ("%-22s %8.0f ops/s   p50 %6.2f ms   p99 %6.2f ms   (n=%u)\n", name,
          us->len * 1e6 / (gdouble) MAX (total_us, 1),
          g_array_index (us, gint64, us->len / 2) / 1000.0,
          g_array_index (us, gint64, MIN (us->len - 1, us->len * 99 / 100)) / 1000.0, us->len);
}

static int
run_raw (const gchar *addr, guint n)
{
  GError *error = NULL;
  const gchar *table = g_getenv ("AB_BENCH_RAW_TABLE");
  AbHbRaw *r = ab_hb_raw_connect (addr, FALSE, FALSE, &error);
  g_autoptr (GArray) put_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr (GArray) get_us = g_array_new (FALSE, FALSE, sizeof (gint64));
  gint64 t0;
  g_autofree gchar *uri = g_strdup_printf ("hbase://%s/abbench?table=raw", addr);
  g_autoptr (AbStore) s = ab_store_open (uri, &error);
  if (r == NULL)
    die ("connect", error);
  if (table == NULL)
    table = "abbench:raw";
  if (s == NULL || !ab_store_ping (s, &error)) /* creates the table */
    die ("create abbench:raw", error);
  for (guint pass = 0; pass < 2; pass++) {
    GArray *lat = pass == 0 ? put_us : get_us;
    t0 = g_get_monotonic_time ();
    for (guint i = 0; i < n; i++) {
      gchar key[32];
      gint64 s = g_get_monotonic_time (), d;
      g_autoptr (GByteArray) v = NULL;
      gboolean ok;
      g_snprintf (key, sizeof key, "%02x-raw-%u", (i * 37) & 0xff, i);
      ok = pass == 0 ? ab_hb_raw_put (r, table, (guint8 *) key, strlen (key),
                                      (const guint8 *) "0123456789abcdef0123456789", 26, &error)
                     : ab_hb_raw_get (r, table, (guint8 *) key, strlen (key), &v, &error);
      if (!ok)
        die (pass == 0 ? "put" : "get", error);
      d = g_get_monotonic_time () - s;
      g_array_append_val (lat, d);
    }
    report (pass == 0 ? "raw Thrift put" : "raw Thrift get", lat,
            g_get_monotonic_time () - t0);
  }
  ab_hb_raw_close (r);
  return 0;
}

static guint64
round_trips (AbEngine *e)
{
  AbStoreRpcCount c[AB_STORE_RPC_MAX];
  guint n = ab_store_rpc_counts (e->store, c, AB_STORE_RPC_MAX);
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
  guint n = ab_store_rpc_counts (e->store, now, AB_STORE_RPC_MAX);
  for (guint i = 0; i < n; i++) {
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
  g_autoptr (AbDatabaseDesc) d = ab_catalog_create_database (cat, "likes", "bench", "bench",
                                                             &error);
  if (d == NULL)
    die ("create database", error);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request ("likes", NULL, body, &error);
  g_autoptr (AbTableDesc) t = proto ? ab_catalog_create_table (cat, proto, "bench", &error)
                                    : NULL;
  if (t == NULL)
    die ("create table", error);
}

static void
bench_round_trips (AbEngine *e)
{
  static const guint sizes[] = { 1, 10, 100 };
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++) {
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
  ab_store_rpc_counts (e->store, before, AB_STORE_RPC_MAX);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++) {
    g_autofree gchar *body = edges_body (i, 1, "u");
    gint64 s = g_get_monotonic_time (), d;
    mutate (e, body);
    d = g_get_monotonic_time () - s;
    g_array_append_val (ins, d);
  }
  report ("engine INSERT (1 edge)", ins, g_get_monotonic_time () - t0);
  rpc_breakdown (e, before, n);
  t0 = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++) {
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
  report ("engine GET (1 edge)", get, g_get_monotonic_time () - t0);
  ab_engine_close (e);
  return 0;
}

int
main (int argc, char **argv)
{
  guint n = argc > 3 ? (guint) atoi (argv[3]) : 2000;
  if (argc < 3 || n == 0) {
    fprintf (stderr, "usage: hbase-bench raw HOST:PORT [N] | hbase-bench engine URI [N]\n");
    return 2;
  }
  if (strcmp (argv[1], "raw") == 0)
    return run_raw (argv[2], n);
  if (strcmp (argv[1], "engine") == 0)
    return run_engine (argv[2], n);
  fprintf (stderr, "hbase-bench: unknown mode %s\n", argv[1]);
  return 2;
}
