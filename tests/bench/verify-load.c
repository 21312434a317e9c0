/* verify-load: fills a store with N edges of one table (db "bench", table
 * "likes": string ids, BOTH directions, one DESC index) through the engine's
 * write path, 1000 edges per request, for tests/bench/verify-bench.sh.
 * Usage: verify-load STORE_URI N */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include "engine/engine.h"
#include "catalog/catalog.h"
#include "model/schema.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://bench/likes\",\"comment\":\"bench\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

#define PER_REQUEST 1000
#define USERS 100000
#define ITEMS 200003

static void
create_table (AbEngine *engine)
{
  AbCatalog *cat = ab_engine_catalog (engine);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbDatabaseDesc) d
      = ab_catalog_create_database (cat, "bench", "bench", "bench", &error);
  if (d == NULL)
    g_error ("create database: %s", error->message);
  g_autoptr (JsonNode) body = json_from_string (LIKES, NULL);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request ("bench", NULL, body, &error);
  g_autoptr (AbTableDesc) t = proto ? ab_catalog_create_table (cat, proto, "bench", &error) : NULL;
  if (t == NULL)
    g_error ("create table: %s", error->message);
}

static void
insert_range (AbEngine *engine, guint first, guint n)
{
  g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
  AbMutateOptions o;
  g_autoptr (GError) error = NULL;
  for (guint i = first; i < first + n; i++)
    g_string_append_printf (body,
                            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%u,"
                            "\"source\":\"user%u\",\"target\":\"item%u\","
                            "\"properties\":{\"created_at\":%u}}}",
                            i > first ? "," : "", i + 1, i % USERS,
                            (guint) (((guint64) i * 7919) % ITEMS), i + 1);
  g_string_append (body, "]}");
  ab_mutate_options_init (&o);
  o.database = "bench";
  o.table = "likes";
  o.lock = FALSE; /* a single loader: no contention to guard against */
  g_autoptr (JsonNode) node = json_from_string (body->str, NULL);
  g_autoptr (GArray) r = ab_engine_mutate (engine, &o, node, &error);
  if (r == NULL)
    g_error ("mutate: %s", error->message);
  for (guint k = 0; k < r->len; k++)
    if (g_array_index (r, AbKeyResult, k).status == AB_STATUS_ERROR)
      g_error ("insert failed: %s", g_array_index (r, AbKeyResult, k).message);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  AbEngineConfig cfg;
  guint64 n;
  if (argc != 3 || !g_ascii_string_to_unsigned (argv[2], 10, 1, G_MAXUINT32, &n, NULL))
    {
      fprintf (stderr, "usage: verify-load STORE_URI N\n");
      return 2;
    }
  signal (SIGPIPE, SIG_IGN); /* on hbase://, a gateway hanging up fails a call */
  ab_engine_config_init (&cfg);
  AbEngine *engine = ab_engine_open (argv[1], &cfg, &error);
  if (engine == NULL)
    g_error ("open %s: %s", argv[1], error->message);
  create_table (engine);
  gint64 start = g_get_monotonic_time ();
  for (guint64 i = 0; i < n; i += PER_REQUEST)
    insert_range (engine, (guint) i, (guint) MIN (PER_REQUEST, n - i));
  printf ("loaded %" G_GUINT64_FORMAT " edges in %.1f s\n", n,
          (g_get_monotonic_time () - start) / 1e6);
  ab_engine_close (engine);
  return 0;
}
