/* Two actionbased processes on the same HBase table: 8 client threads each
 * toggling the same 20 edges (the lock protocol across nodes), DDL on one
 * node seen by the other within the catalog's bound T (README, Catalog),
 * and one node killed -9 mid-write while the other writes the same edges
 * (its cut writes replayed from their intents, engine/write/heal.c). Skipped
 * without a gateway. */
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "rest_harness.h"
#include "ab_check.h"

#define T "/graph/v3/databases/d/tables/t"
#define EDGES 20
#define PER_CLIENT 30

static AbServer nodes[2];

typedef struct {
  AbServer *node;
  guint id; /* 0..15 */
} Client;

/* Version v toggles edge v % EDGES; INSERT when (v / EDGES) is even. */
static gpointer
client (gpointer data)
{
  Client *c = data;
  for (guint k = 0; k < PER_CLIENT; k++)
    {
      guint v = k * 16 + c->id + 1;
      g_autofree gchar *body
          = g_strdup_printf ("{\"mutations\":[{\"type\":\"%s\",\"edge\":{\"version\":%u,\"source\":"
                             "\"s\",\"target\":\"e%u\"}}]}",
                             (v / EDGES) % 2 == 0 ? "INSERT" : "DELETE", v, v % EDGES);
      g_autoptr (JsonNode) r = ab_http_ok (c->node, "POST", T "/edges", body);
      ck_assert_str_ne (ab_json_str (r, "results.0.status"), "ERROR");
    }
  return NULL;
}

/* The body creating table `name` in database d (no properties, no index). */
static gchar *
table_body (const gchar *name)
{
  return g_strdup_printf ("{\"table\":\"%s\",\"storage\":\"datastore://d/"
                          "%s\",\"comment\":\"c\",\"schema\":{\"type\":\"EDGE\","
                          "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":"
                          "\"string\",\"comment\":\"\"},"
                          "\"direction\":\"BOTH\",\"properties\":[],\"indexes\":[]}}",
                          name, name);
}

/* Node 0 on the harness's HBase with database d, then node 1 on the same
 * HBase table (same directory name gives the same table; it gets its own
 * WAL directory). */
static void
start_two_nodes_with (const gchar *const *extra)
{
  g_setenv ("AB_REST_STORE", "hbase", TRUE);
  ab_server_start (&nodes[0], NULL, extra);
  g_autofree gchar *twin = g_strconcat (nodes[0].dir, "/twin", NULL);
  g_autoptr (JsonNode) d = ab_http_ok (&nodes[0], "POST", "/graph/v3/databases",
                                       "{\"database\":\"d\",\"comment\":\"c\"}");
  g_autofree gchar *store = ab_server_hbase_store (nodes[0].dir);
  const gchar *args[]
      = { "--store", store, extra ? extra[0] : NULL, extra ? extra[1] : NULL, NULL };
  g_mkdir_with_parents (twin, 0755);
  ab_server_start (&nodes[1], twin, args);
  /* a shared store with a node-local file WAL (the harness's): warned at start */
  g_autofree gchar *log = NULL;
  ck_assert (g_file_get_contents (nodes[1].log_path, &log, NULL, NULL));
  ck_assert_msg (strstr (log, "is LOST if this node's disk goes away") != NULL, "%s", log);
}

static void
start_two_nodes (void)
{
  start_two_nodes_with (NULL);
}

static void
stop_two_nodes (void)
{
  ab_server_destroy (&nodes[1]);
  ab_server_destroy (&nodes[0]);
  g_unsetenv ("AB_REST_STORE");
}

START_TEST (two_nodes_one_table)
{
  start_two_nodes ();
  g_autofree gchar *tb = table_body ("t");
  g_autoptr (JsonNode) t = ab_http_ok (&nodes[0], "POST", "/graph/v3/databases/d/tables", tb);
  GThread *th[16];
  Client cs[16];
  for (guint i = 0; i < 16; i++)
    {
      cs[i] = (Client){ &nodes[i % 2], i };
      th[i] = g_thread_new ("client", client, &cs[i]);
    }
  for (guint i = 0; i < 16; i++)
    g_thread_join (th[i]);
  guint active = 0;
  for (guint e = 0; e < EDGES; e++)
    {
      guint best = 0;
      for (guint v = 1; v <= 16 * PER_CLIENT; v++)
        if (v % EDGES == e)
          best = v;
      gboolean on = (best / EDGES) % 2 == 0;
      active += on;
      g_autofree gchar *path = g_strdup_printf (T "/edges/get?source=s&target=e%u", e);
      g_autoptr (JsonNode) g = ab_http_ok (&nodes[e % 2], "GET", path, NULL);
      ck_assert_uint_eq (ab_json_len (g, "edges"), on ? 1 : 0);
      if (on)
        ck_assert_int_eq (ab_json_int (g, "edges.0.version"), best);
    }
  g_autoptr (JsonNode) c
      = ab_http_ok (&nodes[1], "GET", T "/edges/count?start=s&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c, "count"), active);
  stop_two_nodes ();
}
END_TEST

/* ---- DDL on node 0, writes on node 1 ---- */

#define CREATES 200
#define ALTERS 50           /* c0..c49 get mode DENY */
#define DROPS 50            /* c50..c99 are deactivated and deleted */
#define T_US G_USEC_PER_SEC /* the documented bound T = 1 s */

typedef enum { DDL_CREATED, DDL_DENIED, DDL_DROPPED, DDL_END } DdlKind;

typedef struct {
  DdlKind kind;
  guint table;
  gint64 acked_us; /* monotonic time node 0 answered */
} Ddl;

static void
announce (GAsyncQueue *q, DdlKind kind, guint table)
{
  Ddl *d = g_new (Ddl, 1);
  *d = (Ddl){ kind, table, g_get_monotonic_time () };
  g_async_queue_push (q, d);
}

/* Node 0: every DDL in a tight loop, each announced once acknowledged. */
static gpointer
ddl_node (gpointer q)
{
  for (guint i = 0; i < CREATES; i++)
    {
      g_autofree gchar *name = g_strdup_printf ("c%u", i);
      g_autofree gchar *body = table_body (name);
      g_autoptr (JsonNode) r = ab_http_ok (&nodes[0], "POST", "/graph/v3/databases/d/tables", body);
      announce (q, DDL_CREATED, i);
    }
  for (guint i = 0; i < ALTERS + DROPS; i++)
    {
      g_autofree gchar *path = g_strdup_printf ("/graph/v3/databases/d/tables/c%u", i);
      if (i < ALTERS)
        {
          g_autoptr (JsonNode) r = ab_http_ok (&nodes[0], "PUT", path, "{\"mode\":\"DENY\"}");
          announce (q, DDL_DENIED, i);
          continue;
        }
      g_autoptr (JsonNode) off = ab_http_ok (&nodes[0], "PUT", path, "{\"active\":false}");
      AbReply del = { 0 };
      ab_http (&nodes[0], &del, "DELETE", NULL, "%s", path);
      ck_assert_uint_eq (del.status, 204);
      ab_reply_clear (&del);
      announce (q, DDL_DROPPED, i);
    }
  announce (q, DDL_END, 0);
  return NULL;
}

/* One write on node 1: TRUE when the edge was applied. */
static gboolean
write_on_node1 (guint table, guint n)
{
  g_autofree gchar *body
      = g_strdup_printf ("{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":"
                         "\"s\",\"target\":\"t%u\"}}]}",
                         n + 1, n);
  AbReply r = { 0 };
  ab_http (&nodes[1], &r, "POST", body, "/graph/v3/databases/d/tables/c%u/edges", table);
  gboolean applied
      = r.status == 200 && g_strcmp0 (ab_json_str (r.json, "results.0.status"), "CREATED") == 0;
  if (r.status != 200)
    ab_assert_error_reply (&r, r.status); /* refused with the standard error body */
  ab_reply_clear (&r);
  return applied;
}

static gint
cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

START_TEST (ddl_seen_across_nodes)
{
  start_two_nodes ();
  GAsyncQueue *q = g_async_queue_new_full (g_free);
  GThread *th = g_thread_new ("ddl", ddl_node, q);
  /* Per kind, how long after node 0's answer node 1 first behaved accordingly. */
  GArray *lag[DDL_END];
  guint late_first[DDL_END] = { 0 };
  for (guint k = 0; k < DDL_END; k++)
    lag[k] = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint writes = 0;
  for (;;)
    {
      g_autofree Ddl *d = g_async_queue_pop (q);
      if (d->kind == DDL_END)
        break;
      gboolean want = d->kind == DDL_CREATED;
      gint64 seen;
      for (guint attempt = 0;; attempt++)
        {
          gboolean applied = write_on_node1 (d->table, writes++);
          seen = g_get_monotonic_time () - d->acked_us;
          if (applied == want)
            break;
          late_first[d->kind] += attempt == 0;
          ck_assert_msg (seen <= T_US,
                         "node 1 still %s table c%u %" G_GINT64_FORMAT " ms after node 0 "
                         "acknowledged its %s",
                         want ? "refuses" : "accepts writes to", d->table, seen / 1000,
                         want ? "creation" : "change");
          g_usleep (2000); /* the lag is what is measured: poll at 2 ms */
        }
      g_array_append_val (lag[d->kind], seen);
    }
  g_thread_join (th);
  static const gchar *const names[] = { "create", "alter (mode DENY)", "drop" };
  for (guint k = 0; k < DDL_END; k++)
    {
      g_array_sort (lag[k], cmp_i64);
      ck_assert_uint_eq (lag[k]->len, k == DDL_CREATED  ? CREATES
                                      : k == DDL_DENIED ? ALTERS
                                                        : DROPS);
      g_print ("%s on node 0 -> seen on node 1: p50 %.1f ms, max %.1f ms (T = %d ms); first write "
               "on the old catalog: %u of %u\n",
               names[k], g_array_index (lag[k], gint64, lag[k]->len / 2) / 1000.0,
               g_array_index (lag[k], gint64, lag[k]->len - 1) / 1000.0, (int) (T_US / 1000),
               late_first[k], lag[k]->len);
    }
  /* Created tables are usable at once: a miss reloads the catalog. */
  ck_assert_uint_eq (late_first[DDL_CREATED], 0);
  /* A v2 storage created on node 0 is listed by node 1 within T. */
  g_autoptr (JsonNode) st
      = ab_http_ok (&nodes[0], "POST", "/graph/v2/storage/shared", "{\"comment\":\"c\"}");
  gint64 acked = g_get_monotonic_time ();
  for (;;)
    {
      g_autoptr (JsonNode) l = ab_http_ok (&nodes[1], "GET", "/graph/v2/storages", NULL);
      if (ab_json_int (l, "count") == 1)
        {
          ck_assert_str_eq (ab_json_str (l, "content.0.name"), "shared");
          break;
        }
      ck_assert_msg (g_get_monotonic_time () - acked <= T_US, "node 1 lists no storage after T");
      g_usleep (2000);
    }
  for (guint k = 0; k < DDL_END; k++)
    g_array_unref (lag[k]);
  g_async_queue_unref (q);
  stop_two_nodes ();
}
END_TEST

/* ---- a node killed mid-write, the other writing the same keys ---- */

#define HOT 32  /* edges s -> h0..h31, written by both nodes */
#define COLD 16 /* edges s -> h32..h47, written by node 0 alone */
#define STALE_MS 1000
#define SWEEP_MS 500

static atomic_int next_version;
static atomic_int stop_writers;
static atomic_int node0_alive;
static atomic_int acked_version[HOT + COLD]; /* highest version acknowledged per edge */

typedef struct {
  AbServer *node;
  gboolean doomed; /* its node is killed: failures expected */
  guint first, n;  /* the edges it writes: h<first>.. */
  guint pause_us;  /* between two requests */
} Writer;

static gpointer
hot_writer (gpointer data)
{
  Writer *w = data;
  do /* at least one request */
    {
      gint v = atomic_fetch_add (&next_version, 1) + 1;
      g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
      for (guint e = w->first; e < w->first + w->n; e++)
        g_string_append_printf (body,
                                "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%d,\"source\":"
                                "\"s\",\"target\":\"h%u\"}}",
                                e > w->first ? "," : "", v, e);
      g_string_append (body, "]}");
      AbReply r = { 0 };
      if (!ab_http_try (w->node, &r, "POST", body->str, T "/edges"))
        {
          ck_assert_msg (w->doomed, "node 1 stopped answering");
          return NULL; /* the node is gone */
        }
      ck_assert_msg (r.status == 200, "POST answered %u: %s", r.status, r.body);
      for (guint j = 0; j < w->n; j++) /* results in key order */
        {
          g_autofree gchar *st = g_strdup_printf ("results.%u.status", j);
          g_autofree gchar *tg = g_strdup_printf ("results.%u.target", j);
          if (strcmp (ab_json_str (r.json, st), "ERROR") == 0)
            continue;
          guint e = (guint) g_ascii_strtoull (ab_json_str (r.json, tg) + 1, NULL, 10);
          gint seen = atomic_load (&acked_version[e]);
          while (seen < v && !atomic_compare_exchange_weak (&acked_version[e], &seen, v))
            ;
        }
      ab_reply_clear (&r);
      g_usleep (atomic_load (&node0_alive) ? w->pause_us : 20000);
    }
  while (!atomic_load (&stop_writers));
  return NULL;
}

/* The verifier run until it is clean, at most 20 s: seconds it took. */
static gdouble
until_clean (const gchar *store)
{
  gint64 from = g_get_monotonic_time ();
  gint found = 1;
  while ((found = ab_verify_store (store, FALSE)) != 0
         && g_get_monotonic_time () - from < 20 * G_USEC_PER_SEC)
    g_usleep (200000);
  ck_assert_msg (found == 0, "the verifier still finds damage 20 s after the writers stopped");
  return (gdouble) (g_get_monotonic_time () - from) / G_USEC_PER_SEC;
}

/* Node 0 is killed (-9) while both nodes write the same 32 edges, and node
 * 0 alone 16 more: its cut writes keep their locks and intents. Node 1
 * finds the shared edges' locks stale after lock-stale-ms, replays the
 * intents and writes on; its sweep (every heal-sweep-ms) finds the others',
 * which nobody writes again. Afterwards, without any repair: every edge
 * holds at least the version last acknowledged for it by either node,
 * counts equal scans, and the verifier is clean. */
START_TEST (node_killed_mid_write)
{
  gchar *cfg_path = NULL;
  gint fd = g_file_open_tmp ("ab-nodes-XXXXXX.conf", &cfg_path, NULL);
  ck_assert (fd >= 0);
  close (fd);
  g_autofree gchar *conf
      = g_strdup_printf ("[engine]\nlock-stale-ms=%d\nlock-retries=10\nlock-backoff-ms=100\n"
                         "heal-sweep-ms=%d\n",
                         STALE_MS, SWEEP_MS);
  ck_assert (g_file_set_contents (cfg_path, conf, -1, NULL));
  const gchar *extra[] = { "--config", cfg_path, NULL };
  start_two_nodes_with (extra);
  g_autofree gchar *tb = table_body ("t");
  g_autoptr (JsonNode) t = ab_http_ok (&nodes[0], "POST", "/graph/v3/databases/d/tables", tb);
  /* every edge exists before the kill: the count below is exact */
  atomic_store (&stop_writers, 1);
  Writer first = { &nodes[1], FALSE, 0, HOT + COLD, 0 };
  hot_writer (&first);
  atomic_store (&stop_writers, 0);
  /* node 0: two writers on the two halves of the shared edges (they never
   * wait for each other) and one on its own; node 1: one on the shared
   * edges, pausing 1 s between requests while node 0 lives (node 0 then
   * seldom waits for its locks, so the kill often lands inside its waves,
   * after its intents), 20 ms after */
  atomic_store (&node0_alive, 1);
  Writer ws[] = { { &nodes[0], TRUE, 0, HOT / 2, 0 },
                  { &nodes[0], TRUE, HOT / 2, HOT / 2, 0 },
                  { &nodes[0], TRUE, HOT, COLD / 4, 0 },
                  { &nodes[0], TRUE, HOT + COLD / 4, COLD / 4, 0 },
                  { &nodes[0], TRUE, HOT + COLD / 2, COLD / 4, 0 },
                  { &nodes[0], TRUE, HOT + 3 * COLD / 4, COLD / 4, 0 },
                  { &nodes[1], FALSE, 0, HOT, 1000000 } };
  GThread *th[G_N_ELEMENTS (ws)];
  for (guint i = 0; i < G_N_ELEMENTS (ws); i++)
    th[i] = g_thread_new ("writer", hot_writer, &ws[i]);
  g_usleep (1500000);
  ab_server_kill (&nodes[0]);
  atomic_store (&node0_alive, 0);
  /* node 1 writes on past the stale bound and the lock retries */
  g_usleep ((STALE_MS + 3000) * 1000);
  atomic_store (&stop_writers, 1);
  for (guint i = 0; i < G_N_ELEMENTS (ws); i++)
    g_thread_join (th[i]);

  g_autofree gchar *store = ab_server_hbase_store (nodes[0].dir);
  gdouble clean = until_clean (store);
  for (guint e = 0; e < HOT + COLD; e++)
    {
      g_autofree gchar *path = g_strdup_printf (T "/edges/get?source=s&target=h%u", e);
      g_autoptr (JsonNode) g = ab_http_ok (&nodes[1], "GET", path, NULL);
      ck_assert_uint_eq (ab_json_len (g, "edges"), 1);
      ck_assert_msg (ab_json_int (g, "edges.0.version") >= atomic_load (&acked_version[e]),
                     "h%u holds version %" G_GINT64_FORMAT ", below the acknowledged %d", e,
                     ab_json_int (g, "edges.0.version"), atomic_load (&acked_version[e]));
    }
  g_autoptr (JsonNode) c
      = ab_http_ok (&nodes[1], "GET", T "/edges/count?start=s&direction=OUT", NULL);
  ck_assert_int_eq (ab_json_int (c, "count"), HOT + COLD);
  ck_assert_double_gt (ab_server_metric (&nodes[1], "actionbase_heal_sweeps_total"), 0);
  g_printerr ("node killed mid-write: node 1 replayed %.0f of its cut writes (after %.0f"
              " sweeps); verifier clean %.1f s after the writers stopped, no repair\n",
              ab_server_metric (&nodes[1], "actionbase_heal_replays_total"),
              ab_server_metric (&nodes[1], "actionbase_heal_sweeps_total"), clean);
  stop_two_nodes ();
  g_unlink (cfg_path);
  g_free (cfg_path);
}
END_TEST

int
main (void)
{
  if (g_getenv ("AB_HBASE_ADDR") == NULL)
    {
      g_printerr ("SKIP: AB_HBASE_ADDR is not set (no HBase gateway in this run)\n");
      return 77;
    }
  Suite *s = suite_create ("rest-nodes");
  TCase *tc = tcase_create ("nodes");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, two_nodes_one_table);
  tcase_add_test (tc, ddl_seen_across_nodes);
  tcase_add_test (tc, node_killed_mid_write);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
