/* Faults of the Thrift2 gateway under a server. Killed (SIGKILL) during a
 * write load (three times) and restarted on the same port: requests in flight fail with a
 * JSON error or a per-key ERROR, the server recovers without a restart, no
 * acknowledged write is lost, and the writes the kill cut heal by
 * themselves: the verifier, with no repair run, is clean within 30 s of the
 * gateway's return (engine/write/heal.c). Stalled (SIGSTOP) under reads: /health and /metrics still answer at
 * once, reads fail with a JSON 503/504 within the request timeout, and all
 * recovers on SIGCONT. Runs on extra gateways of the HBase of tests/run.sh
 * (hbase/gateway.sh), so the shared one is untouched; skipped without it. */
#include <stdatomic.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <libsoup/soup.h>
#include "rest_harness.h"
#include "ab_check.h"

#define T "/graph/v3/databases/d/tables/t"
#define CLIENTS 4
/* Killed this many times, and up to twice as often while no kill has cut
 * a write (one lands in a data wave often, not always) */
#define KILLS 3
#define REPLAYS "actionbase_heal_replays_total"

static AbServer srv;
static const gchar *hbase_dir;
static atomic_int stop_load;

typedef struct {
  guint id;
  GPtrArray *acked; /* targets of acknowledged inserts */
  guint errors;
  guint acked_after; /* acknowledged once the gateway was back */
  gboolean doomed;   /* its server is killed: a request may find it gone */
  guint batches;     /* requests made so far: a later round's targets are new */
} Client;

static atomic_int gateway_back;

static gboolean
is_error_reply (const AbReply *r)
{
  if (r->status != 200)
    {
      /* a failed request is still a JSON error, never a bare status */
      ck_assert_msg (r->json != NULL, "status %u without a JSON body: %s", r->status, r->body);
      ck_assert_int_eq (ab_json_int (r->json, "status"), r->status);
      ck_assert (strlen (ab_json_str (r->json, "message")) > 0);
      return TRUE;
    }
  return strcmp (ab_json_str (r->json, "results.0.status"), "ERROR") == 0;
}

/* Requests of BATCH edges: a kill that cuts a request's data wave leaves
 * some of its rows written and others not (what heal.c finishes). */
#define BATCH 32

static gpointer
client (gpointer data)
{
  Client *c = data;
  while (!atomic_load (&stop_load))
    {
      guint k = ++c->batches;
      g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
      for (guint j = 0; j < BATCH; j++)
        g_string_append_printf (
            body,
            "%s{\"type\":\"INSERT\",\"edge\":{\"version\":%u,\"source\":\"s%u\","
            "\"target\":\"t%u_%u\",\"properties\":{\"at\":%u}}}",
            j > 0 ? "," : "", k, c->id, k, j, k);
      g_string_append (body, "]}");
      AbReply r = { 0 };
      if (!ab_http_try (&srv, &r, "POST", body->str, T "/edges"))
        {
          ck_assert_msg (c->doomed, "the server stopped answering");
          return NULL;
        }
      if (is_error_reply (&r) && r.status != 200)
        c->errors += BATCH;
      else
        for (guint j = 0; j < BATCH; j++) /* results come in key order, not ours */
          {
            g_autofree gchar *at = g_strdup_printf ("results.%u.status", j);
            g_autofree gchar *target = g_strdup_printf ("results.%u.target", j);
            if (strcmp (ab_json_str (r.json, at), "ERROR") == 0)
              c->errors++;
            else
              {
                g_ptr_array_add (c->acked, g_strdup (ab_json_str (r.json, target)));
                c->acked_after += atomic_load (&gateway_back);
              }
          }
      ab_reply_clear (&r);
    }
  return NULL;
}

static gchar *
gateway_named (const gchar *name, const gchar *action, const gchar *port)
{
  g_autofree gchar *script = g_build_filename (AB_HBASE_SCRIPTS, "gateway.sh", NULL);
  const gchar *argv[] = { "bash", script, hbase_dir, action, name, port, NULL };
  g_autofree gchar *out = NULL, *err = NULL;
  gint status = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                           &status, &error));
  ck_assert_msg (g_spawn_check_wait_status (status, NULL), "gateway.sh %s: %s", action, err);
  return g_strdup (g_strstrip (out));
}

static gchar *
gateway (const gchar *action, const gchar *port)
{
  return gateway_named ("gwfault", action, port);
}

/* A server on its own table behind the gateway at addr, with database d and
 * edge table t (index recent on at); returns the store URI. */
static gchar *
start_server_on (const gchar *addr, const gchar *prefix, const gchar *params)
{
  g_autofree gchar *table = g_strdup_printf ("%s_%d_%" G_GINT64_FORMAT, prefix, (int) getpid (),
                                             g_get_real_time () % 1000000000);
  gchar *store = g_strdup_printf ("hbase://%s/ab_rest?table=%s%s", addr, table, params);
  const gchar *args[] = { "--store", store, NULL };
  ab_server_start (&srv, NULL, args);
  g_autoptr (JsonNode) d
      = ab_http_ok (&srv, "POST", "/graph/v3/databases", "{\"database\":\"d\",\"comment\":\"c\"}");
  g_autoptr (JsonNode) t = ab_http_ok (
      &srv, "POST", "/graph/v3/databases/d/tables",
      "{\"table\":\"t\",\"storage\":\"datastore://d/"
      "t\",\"comment\":\"c\",\"schema\":{\"type\":\"EDGE\","
      "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":\"string\","
      "\"comment\":\"\"},"
      "\"direction\":\"BOTH\",\"properties\":[{\"name\":\"at\",\"type\":\"long\",\"nullable\":"
      "false,"
      "\"comment\":\"\"}],\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"at\","
      "\"order\":\"DESC\"}]}]}}");
  return store;
}

/* Waits until a write goes through again; the server was never restarted. */
static void
wait_recovered (void)
{
  for (guint i = 0; i < 600; i++)
    {
      AbReply r = { 0 };
      ab_http (&srv, &r, "POST",
               "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"probe\","
               "\"target\":\"p\",\"properties\":{\"at\":1}}}]}",
               T "/edges");
      gboolean ok = !is_error_reply (&r);
      ab_reply_clear (&r);
      if (ok)
        return;
      g_usleep (100000);
    }
  ck_abort_msg ("writes never succeeded again after the gateway restart");
}

/* Edges of the index scan of s<id>, page by page. */
static guint
scan_all (guint id)
{
  guint n = 0;
  g_autofree gchar *offset = NULL;
  for (;;)
    {
      g_autofree gchar *path
          = g_strdup_printf (T "/edges/scan/recent?start=s%u&direction=OUT"
                               "&limit=1000%s%s",
                             id, offset != NULL ? "&offset=" : "", offset != NULL ? offset : "");
      g_autoptr (JsonNode) page = ab_http_ok (&srv, "GET", path, NULL);
      n += ab_json_len (page, "edges");
      if (!ab_json_bool (page, "hasNext"))
        return n;
      g_free (offset);
      offset = g_uri_escape_string (ab_json_str (page, "offset"), NULL, FALSE);
    }
}

/* Every acknowledged target of source s<id> is read back (multi-target gets
 * of 25, the get limit), and the count equals the edges an index scan lists. */
static void
check_acked (guint id, GPtrArray *targets)
{
  for (guint at = 0; at < targets->len; at += 25)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "source");
      json_builder_begin_array (b);
      g_autofree gchar *source = g_strdup_printf ("s%u", id);
      json_builder_add_string_value (b, source);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "target");
      json_builder_begin_array (b);
      guint n = MIN (25, targets->len - at); /* the get limit */
      for (guint k = 0; k < n; k++)
        json_builder_add_string_value (b, targets->pdata[at + k]);
      json_builder_end_array (b);
      json_builder_end_object (b);
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      g_autofree gchar *body = json_to_string (root, FALSE);
      g_autoptr (JsonNode) got = ab_http_ok (&srv, "POST", T "/edges/get", body);
      ck_assert_uint_eq (ab_json_len (got, "edges"), n);
    }
  g_autofree gchar *count = g_strdup_printf (T "/edges/count?start=s%u&direction=OUT", id);
  g_autoptr (JsonNode) c = ab_http_ok (&srv, "GET", count, NULL);
  ck_assert_int_ge (ab_json_int (c, "count"), targets->len);
  ck_assert_int_eq (ab_json_int (c, "count"), scan_all (id));
}

START_TEST (gateway_killed_under_load)
{
  g_autofree gchar *addr = gateway ("start", NULL);
  const gchar *port = strrchr (addr, ':') + 1;
  g_autofree gchar *store = start_server_on (addr, "gw", "&retries=1");

  Client cs[CLIENTS];
  GThread *th[CLIENTS];
  for (guint i = 0; i < CLIENTS; i++)
    {
      cs[i] = (Client){ i, g_ptr_array_new_with_free_func (g_free), 0, 0, FALSE };
      th[i] = g_thread_new ("load", client, &cs[i]);
    }
  /* Killed KILLS times under the load (more while none has cut a write):
   * each kill may cut a request's data wave. */
  gint64 back = 0;
  gdouble serving = 0;
  guint kills = 0;
  for (; kills < KILLS || (kills < 2 * KILLS && ab_server_metric (&srv, REPLAYS) == 0); kills++)
    {
      g_usleep (1000000);
      g_free (gateway ("kill", NULL));
      g_usleep (1000000);
      /* While it is down the server answers, and says why it is unhealthy. */
      AbReply down = { 0 };
      ab_http (&srv, &down, "GET", NULL, "/health");
      ck_assert_uint_eq (down.status, 503);
      ab_reply_clear (&down);
      g_free (gateway ("start", port));
      back = g_get_monotonic_time ();
      wait_recovered ();
      serving = MAX (serving, (gdouble) (g_get_monotonic_time () - back) / G_USEC_PER_SEC);
    }
  atomic_store (&gateway_back, 1);
  g_usleep (1500000);
  atomic_store (&stop_load, 1);
  guint errors = 0, acked = 0, after = 0;
  for (guint i = 0; i < CLIENTS; i++)
    {
      g_thread_join (th[i]);
      errors += cs[i].errors;
      acked += cs[i].acked->len;
      after += cs[i].acked_after;
    }
  ck_assert_msg (errors > 0, "no request failed while the gateway was down");
  ck_assert_msg (after > 0, "no write acknowledged after the restart");
  AbReply h = { 0 };
  ab_http (&srv, &h, "GET", NULL, "/health");
  ck_assert_uint_eq (h.status, 200);
  ab_reply_clear (&h);

  /* The cut writes heal themselves: no repair, a clean run within 30 s. */
  gint found = 1;
  while (found != 0 && g_get_monotonic_time () - back < 30 * G_USEC_PER_SEC)
    if ((found = ab_verify_store (store, FALSE)) != 0)
      g_usleep (200000);
  gdouble consistent = (gdouble) (g_get_monotonic_time () - back) / G_USEC_PER_SEC;
  ck_assert_msg (found == 0, "the verifier still finds damage 30 s after the gateway's return");
  gdouble replays = ab_server_metric (&srv, REPLAYS);
  ck_assert_msg (replays > 0, "no cut write was replayed: the kills cut none");
  ck_assert_int_eq ((gint) ab_server_metric (&srv, "actionbase_heal_pending"), 0);

  /* No acknowledged write is lost, and queries agree with it. */
  for (guint i = 0; i < CLIENTS; i++)
    {
      check_acked (i, cs[i].acked);
      g_ptr_array_unref (cs[i].acked);
    }
  g_printerr (
      "gateway fault: %u acknowledged, %u failed, %u after the restart; serving again "
      "%.1f s (slowest of %u kills) and consistent %.1f s after the last return (no repair), "
      "%.0f cut writes replayed\n",
      acked, errors, after, serving, kills, consistent, replays);
  ab_server_destroy (&srv);
  g_free (gateway ("kill", NULL));
}
END_TEST

/* ---- the gateway stalled (SIGSTOP) under reads ---- */

#define READERS 8
#define TRIES 5
#define REQUEST_TIMEOUT_MS 10000 /* the server's default request-timeout-ms */
#define GET_AB T "/edges/get?source=a&target=b"

typedef struct {
  guint status; /* 0: no answer (transport failure) */
  gchar *body;
  gint64 took_ms;
  guint kind; /* a stalled reader: its read of STALLED_READS */
} Timed;

/* One GET on a fresh session (the shared one caps connections per host, so
 * stuck readers would hold up the others on the client side), timed. */
static void
timed_get (const gchar *path, Timed *out)
{
  g_autoptr (SoupSession) session = soup_session_new_with_options ("timeout", 60, NULL);
  g_autofree gchar *url = g_strconcat (srv.base, path, NULL);
  g_autoptr (SoupMessage) msg = soup_message_new ("GET", url);
  gint64 t0 = g_get_monotonic_time ();
  g_autoptr (GBytes) body = soup_session_send_and_read (session, msg, NULL, NULL);
  out->took_ms = (g_get_monotonic_time () - t0) / 1000;
  out->status = body != NULL ? soup_message_get_status (msg) : 0;
  out->body = body != NULL ? g_strndup (g_bytes_get_data (body, NULL), g_bytes_get_size (body))
                           : g_strdup ("");
}

/* The stalled reads: each kind's error path (a count once leaked its cast
 * start there, which the server's LeakSanitizer reports at its exit). */
static const gchar *const STALLED_READS[] = { GET_AB, T "/edges/count?start=a&direction=OUT",
                                              T "/edges/scan/recent?start=a&direction=OUT" };

static gpointer
reader (gpointer data)
{
  Timed *t = data;
  timed_get (STALLED_READS[t->kind % G_N_ELEMENTS (STALLED_READS)], t);
  return NULL;
}

/* A JSON error document {timestamp,status,error,message} of this status. */
static gboolean
is_json_error (const Timed *t)
{
  g_autoptr (JsonNode) n = json_from_string (t->body, NULL);
  if (n == NULL || !JSON_NODE_HOLDS_OBJECT (n))
    return FALSE;
  JsonObject *o = json_node_get_object (n);
  return json_object_has_member (o, "timestamp") && json_object_has_member (o, "error")
         && json_object_get_int_member_with_default (o, "status", 0) == t->status
         && strlen (json_object_get_string_member_with_default (o, "message", "")) > 0;
}

/* Polls path until it answers want (deadline timeout_s); FALSE if it never did. */
static gboolean
poll_status (const gchar *path, guint want, gint timeout_s)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_s * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    {
      Timed t = { 0 };
      timed_get (path, &t);
      g_free (t.body);
      if (t.status == want)
        return TRUE;
      g_usleep (50000);
    }
  return FALSE;
}

/* Best and worst time of TRIES GETs of path, each of which must answer 200. */
static void
time_tries (const gchar *path, gint64 *best_ms, gint64 *worst_ms, guint *failed)
{
  *best_ms = G_MAXINT64;
  *worst_ms = 0;
  for (guint i = 0; i < TRIES; i++)
    {
      Timed t = { 0 };
      timed_get (path, &t);
      *failed += t.status != 200 && !(t.status == 503 && g_str_equal (path, "/health"));
      *best_ms = MIN (*best_ms, t.took_ms);
      *worst_ms = MAX (*worst_ms, t.took_ms);
      g_free (t.body);
    }
}

static gint
gateway_pid (const gchar *name)
{
  g_autofree gchar *file = g_strdup_printf ("%s/%s.pid", hbase_dir, name);
  g_autofree gchar *text = NULL;
  ck_assert (g_file_get_contents (file, &text, NULL, NULL));
  gint pid = atoi (text);
  ck_assert_int_gt (pid, 1);
  return pid;
}

START_TEST (gateway_stalled_under_reads)
{
  g_autofree gchar *addr = gateway_named ("gwstall", "start", NULL);
  g_autofree gchar *store = start_server_on (addr, "stall", "");
  g_autoptr (JsonNode) ins
      = ab_http_ok (&srv, "POST", T "/edges",
                    "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":1,\"source\":\"a\","
                    "\"target\":\"b\",\"properties\":{\"at\":1}}}]}");
  g_autoptr (JsonNode) before = ab_http_ok (&srv, "GET", GET_AB, NULL);
  ck_assert_uint_eq (ab_json_len (before, "edges"), 1);

  /* Everything below is recorded and asserted only after SIGCONT, so that a
   * failure never leaves the gateway stopped. */
  gint pid = gateway_pid ("gwstall");
  ck_assert_int_eq (kill (pid, SIGSTOP), 0);
  Timed reads[READERS] = { 0 };
  GThread *th[READERS];
  for (guint i = 0; i < READERS; i++)
    {
      reads[i].kind = i;
      th[i] = g_thread_new ("reader", reader, &reads[i]);
    }
  /* The probe has waited past its bound: the stall is seen (and the readers,
   * started before, are waiting on the store). */
  gboolean seen_down = poll_status ("/health", 503, 30);
  gint64 h_best, h_worst, m_best, m_worst;
  guint failed = 0;
  time_tries ("/health", &h_best, &h_worst, &failed);
  time_tries ("/metrics", &m_best, &m_worst, &failed);
  for (guint i = 0; i < READERS; i++)
    g_thread_join (th[i]);
  ck_assert_int_eq (kill (pid, SIGCONT), 0);

  /* Recovery without a server restart. */
  gboolean read_back = poll_status (GET_AB, 200, 60);
  gboolean healthy = poll_status ("/health", 200, 60);

  ck_assert_msg (seen_down, "/health never answered 503 while the gateway was stopped");
  ck_assert_msg (failed == 0, "%u /health or /metrics request(s) failed", failed);
  ck_assert_msg (h_best <= 100, "/health took %" G_GINT64_FORMAT " ms at best", h_best);
  ck_assert_msg (m_best <= 100, "/metrics took %" G_GINT64_FORMAT " ms at best", m_best);
  gint64 worst_read = 0;
  for (guint i = 0; i < READERS; i++)
    {
      ck_assert_msg (reads[i].status == 503 || reads[i].status == 504,
                     "a read during the stall answered %u: %s", reads[i].status, reads[i].body);
      ck_assert_msg (is_json_error (&reads[i]), "not a JSON error: %s", reads[i].body);
      ck_assert_msg (reads[i].took_ms < REQUEST_TIMEOUT_MS,
                     "a read failed only after %" G_GINT64_FORMAT " ms", reads[i].took_ms);
      worst_read = MAX (worst_read, reads[i].took_ms);
      g_free (reads[i].body);
    }
  ck_assert_msg (read_back, "reads never succeeded again after SIGCONT");
  ck_assert_msg (healthy, "/health never answered 200 again after SIGCONT");
  g_printerr ("gateway stall: /health best %" G_GINT64_FORMAT " ms worst %" G_GINT64_FORMAT
              " ms; /metrics best %" G_GINT64_FORMAT " ms worst %" G_GINT64_FORMAT
              " ms; reads failed after at most %" G_GINT64_FORMAT " ms\n",
              h_best, h_worst, m_best, m_worst, worst_read);
  ab_server_destroy (&srv);
  g_free (gateway_named ("gwstall", "kill", NULL));
}
END_TEST

/* ---- a node killed with writes in flight, their keys never written again ---- */

#define DEAD_CLIENTS 8
#define DEAD_ROUNDS 5

/* Node B's replays so far. */
static gint64
replays_of (AbServer *node)
{
  return (gint64) ab_server_metric (node, "actionbase_heal_replays_total");
}

/* One round of node A (srv): started on the table through its own gateway,
 * written to by the clients for 1.5 s, then the gateway is stalled
 * (SIGSTOP) with A's requests inside their waves, A is killed (-9) and the
 * gateway resumes what it had received. */
static void
node_a_round (const gchar *store, Client *cs)
{
  const gchar *args[] = { "--store", store, NULL };
  if (srv.base == NULL)
    ab_server_start (&srv, NULL, args);
  GThread *th[DEAD_CLIENTS];
  atomic_store (&stop_load, 0);
  for (guint i = 0; i < DEAD_CLIENTS; i++)
    th[i] = g_thread_new ("load", client, &cs[i]);
  g_usleep (1500000);
  gint pid = gateway_pid ("gwdead");
  ck_assert_int_eq (kill (pid, SIGSTOP), 0);
  g_usleep (500000); /* every request of A now waits on a call */
  atomic_store (&stop_load, 1);
  ab_server_kill (&srv);
  ck_assert_int_eq (kill (pid, SIGCONT), 0);
  for (guint i = 0; i < DEAD_CLIENTS; i++)
    g_thread_join (th[i]);
  ab_server_destroy (&srv);
}

/* Node A's writes cut this way hold locks and intents nobody owns, on keys
 * nobody writes again. Node B, on the same table through the shared
 * gateway, finds them with its sweep (heal-sweep-ms) once they are stale
 * and replays them. A round may cut no write (every request of A waiting
 * on its locks): rounds go on until B has replayed some, at most 5. Then
 * the verifier is clean with no repair run, and every write A
 * acknowledged is there. */
START_TEST (dead_node_writes_swept)
{
  g_autofree gchar *addr = gateway_named ("gwdead", "start", NULL);
  g_autofree gchar *store = start_server_on (addr, "dead", "&retries=1");
  g_autofree gchar *store_b = g_strdup_printf ("hbase://%s/%s", g_getenv ("AB_HBASE_ADDR"),
                                               strchr (store + strlen ("hbase://"), '/') + 1);
  gchar *conf = NULL;
  gint fd = g_file_open_tmp ("ab-dead-XXXXXX.conf", &conf, NULL);
  ck_assert (fd >= 0);
  close (fd);
  ck_assert (
      g_file_set_contents (conf, "[engine]\nlock-stale-ms=1000\nheal-sweep-ms=500\n", -1, NULL));
  AbServer b = { 0 };
  const gchar *args[] = { "--store", store_b, "--config", conf, NULL };
  ab_server_start (&b, NULL, args);
  Client cs[DEAD_CLIENTS];
  for (guint i = 0; i < DEAD_CLIENTS; i++)
    cs[i] = (Client){ i, g_ptr_array_new_with_free_func (g_free), 0, 0, TRUE };
  guint rounds = 0;
  gint64 cut = 0;
  while (rounds < DEAD_ROUNDS && replays_of (&b) == 0)
    {
      node_a_round (store, cs);
      rounds++;
      cut = g_get_monotonic_time ();
      /* stale after 1 s, found by a sweep within 0.5 s more */
      while (replays_of (&b) == 0 && g_get_monotonic_time () - cut < 5 * G_USEC_PER_SEC)
        g_usleep (100000);
    }
  gint64 replays = replays_of (&b);
  ck_assert_msg (replays > 0, "node B replayed none of node A's cut writes in %u rounds", rounds);
  gint found = 1;
  while ((found = ab_verify_store (store_b, FALSE)) != 0
         && g_get_monotonic_time () - cut < 30 * G_USEC_PER_SEC)
    g_usleep (200000);
  gdouble consistent = (gdouble) (g_get_monotonic_time () - cut) / G_USEC_PER_SEC;
  ck_assert_msg (found == 0, "the verifier still finds damage 30 s after node A's death");
  ck_assert_int_ge ((gint) ab_server_metric (&b, "actionbase_heal_sweeps_total"), 1);
  srv = b; /* check_acked reads through srv */
  guint acked = 0;
  for (guint i = 0; i < DEAD_CLIENTS; i++)
    {
      acked += cs[i].acked->len;
      check_acked (i, cs[i].acked);
      g_ptr_array_unref (cs[i].acked);
    }
  g_printerr ("dead node: %u writes acknowledged by node A in %u round(s); node B's sweeps "
              "replayed %" G_GINT64_FORMAT " of its cut writes; consistent %.1f s after the last "
              "kill (no repair)\n",
              acked, rounds, replays, consistent);
  ab_server_destroy (&srv);
  g_free (gateway_named ("gwdead", "kill", NULL));
  g_unlink (conf);
  g_free (conf);
}
END_TEST

int
main (void)
{
  /* Without the HBase of tests/run.sh there is no gateway to kill. */
  hbase_dir = g_getenv ("AB_HBASE_DIR");
  if (hbase_dir == NULL || g_getenv ("AB_HBASE_ADDR") == NULL)
    {
      g_printerr ("SKIP: AB_HBASE_DIR or AB_HBASE_ADDR is not set (no HBase of tests/run.sh)\n");
      return 77;
    }
  Suite *s = suite_create ("gateway");
  TCase *tc = tcase_create ("fault");
  tcase_set_timeout (tc, 240);
  tcase_add_test (tc, gateway_killed_under_load);
  tcase_add_test (tc, gateway_stalled_under_reads);
  tcase_add_test (tc, dead_node_writes_swept);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
