/* engine-bench: the engine's figures on lmdb with fsync on. Inserts N edges
 * (1, 4 and 16 concurrent writers, one edge per request), then measures
 * get, scan (limit 25) and count rates; prints ops/s and the writer ratios. */
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "catalog/catalog.h"
#include "model/schema.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"bench\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

typedef struct {
  AbEngine *engine;
  guint first, count, stride;
  gint64 seconds_us;
  guint done;
} Job;

#define USERS 100

static void
insert_one (AbEngine *engine, guint i)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"u%u\","
      "\"target\":\"i%u\",\"properties\":{\"created_at\":%u}}}]}",
      i + 1, i % USERS, i, i + 1);
  g_autoptr (JsonNode) n = json_from_string (body, NULL);
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "likes";
  o.table = "likes";
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) r = ab_engine_mutate (engine, &o, n, &error);
  if (r == NULL || g_array_index (r, AbKeyResult, 0).status == AB_STATUS_ERROR)
    g_error ("insert failed: %s", error ? error->message : "status ERROR");
}

static gpointer
writer (gpointer data)
{
  Job *j = data;
  for (guint k = 0; k < j->count; k++)
    insert_one (j->engine, j->first + k * j->stride);
  return NULL;
}

static gdouble
run_writers (AbEngine *engine, guint writers, guint per_writer, guint base)
{
  GThread **t = g_new0 (GThread *, writers);
  Job *jobs = g_new0 (Job, writers);
  gint64 start = g_get_monotonic_time ();
  for (guint w = 0; w < writers; w++)
    {
      jobs[w] = (Job){ engine, base + w, per_writer, writers, 0, 0 };
      t[w] = g_thread_new ("writer", writer, &jobs[w]);
    }
  for (guint w = 0; w < writers; w++)
    g_thread_join (t[w]);
  gdouble secs = (g_get_monotonic_time () - start) / 1e6;
  g_free (t);
  g_free (jobs);
  return writers * per_writer / secs;
}

typedef enum { OP_GET, OP_SCAN, OP_COUNT } ReadOp;

static gdouble
run_reads (AbEngine *engine, ReadOp op, guint n, guint max_item)
{
  gint64 start = g_get_monotonic_time ();
  for (guint k = 0; k < n; k++)
    {
      guint i = (k * 7919u) % max_item;
      g_autofree gchar *src = g_strdup_printf ("u%u", i % USERS);
      g_autofree gchar *tgt = g_strdup_printf ("i%u", i);
      g_autoptr (GError) error = NULL;
      gboolean ok = TRUE;
      if (op == OP_GET)
        {
          g_autoptr (GPtrArray) s = g_ptr_array_new ();
          g_autoptr (GPtrArray) t = g_ptr_array_new ();
          g_ptr_array_add (s, src);
          g_ptr_array_add (t, tgt);
          g_autoptr (AbEdgeFrame) f = ab_engine_get (engine, "likes", "likes", s, t, NULL, &error);
          ok = f != NULL && f->edges->len == 1;
        }
      else if (op == OP_SCAN)
        {
          AbScanParams p
              = { .index = "recent", .start = src, .direction = AB_QDIR_OUT, .limit = 25 };
          g_autoptr (AbEdgeFrame) f = ab_engine_scan (engine, "likes", "likes", &p, &error);
          ok = f != NULL && f->edges->len == 25;
        }
      else
        {
          AbValue v = AB_VALUE_INIT;
          gint64 c;
          ok = ab_engine_count (engine, "likes", "likes", src, AB_QDIR_OUT, &v, &c, &error)
               && c > 0;
          ab_value_clear (&v);
        }
      if (!ok)
        g_error ("read failed: %s", error ? error->message : "unexpected result");
    }
  return n / ((g_get_monotonic_time () - start) / 1e6);
}

int
main (int argc, char **argv)
{
  guint per_writer = argc > 1 ? (guint) atoi (argv[1]) : 400;
  g_autofree gchar *dir = g_dir_make_tmp ("ab-engine-bench-XXXXXX", NULL);
  g_autofree gchar *uri = g_strdup_printf ("lmdb:%s", dir); /* durable: fsync on */
  g_autoptr (GError) error = NULL;
  AbEngine *engine = ab_engine_open (uri, NULL, &error);
  if (engine == NULL)
    g_error ("open: %s", error->message);
  AbCatalog *cat = ab_engine_catalog (engine);
  g_autoptr (AbDatabaseDesc) d
      = ab_catalog_create_database (cat, "likes", "bench", "bench", &error);
  if (d == NULL)
    g_error ("create database: %s", error->message);
  g_autoptr (JsonNode) body = json_from_string (LIKES, NULL);
  g_autoptr (AbTableDesc) proto = ab_table_desc_from_create_request ("likes", NULL, body, &error);
  g_autoptr (AbTableDesc) t = proto ? ab_catalog_create_table (cat, proto, "bench", &error) : NULL;
  if (t == NULL)
    g_error ("setup: %s", error->message);
  printf ("engine-bench: lmdb with fsync, one edge per request, %u inserts per writer\n",
          per_writer);
  guint base = 0;
  gdouble w1 = run_writers (engine, 1, per_writer, base);
  base += per_writer;
  gdouble w4 = run_writers (engine, 4, per_writer, base);
  base += 4 * per_writer;
  gdouble w16 = run_writers (engine, 16, per_writer, base);
  base += 16 * per_writer;
  printf ("%-28s %12.0f ops/s\n", "insert, 1 writer", w1);
  printf ("%-28s %12.0f ops/s  (%.2fx one writer)\n", "insert, 4 writers", w4, w4 / w1);
  printf ("%-28s %12.0f ops/s  (%.2fx one writer)\n", "insert, 16 writers", w16, w16 / w1);
  guint reads = 20000;
  printf ("%-28s %12.0f ops/s\n", "get (1 edge)", run_reads (engine, OP_GET, reads, base));
  printf ("%-28s %12.0f ops/s\n", "scan (limit 25)", run_reads (engine, OP_SCAN, reads, base));
  printf ("%-28s %12.0f ops/s\n", "count", run_reads (engine, OP_COUNT, reads, base));
  ab_engine_close (engine);
  g_autofree gchar *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  if (system (cmd) != 0)
    g_warning ("could not remove %s", dir);
  return 0;
}
