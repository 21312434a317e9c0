/* actionbased: settings, logging, then engine -> router (/health, /metrics, the
 * Actionbase API) -> HTTP server, with a GMainLoop in the main thread that turns
 * SIGTERM/SIGINT into a graceful drain before the engine closes. */
#define G_LOG_DOMAIN "actionbased"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <glib-unix.h>
#include "engine/engine.h"
#include "rest/api.h"
#include "rest/auth.h"
#include "rest/http.h"
#include "rest/metrics.h"
#include "rest/router.h"
#include "server/config.h"
#include "server/health.h"
#include "server/probes.h"
#include "server/log.h"
#include "server/slices.h"

static GLogLevelFlags log_threshold = G_LOG_LEVEL_INFO;
static gint64 started_at_us;
static gboolean serving_read_only; /* --read-only: shown on /health and /metrics */
static AbProbes *probes;           /* the readiness on /metrics */

/* ---- built-in routes (the probes: probes.c) ---- */

static void
metrics_handler (const AbHttpRequest *req, AbHttpResponse *resp, gpointer data)
{
  gchar *page = ab_metrics_render (data);
  ab_http_response_bytes (resp, 200, "text/plain; version=0.0.4; charset=utf-8",
                          g_bytes_new_take (page, strlen (page)));
}

static gchar *
process_metrics (gpointer data)
{
  gdouble start
      = (gdouble) (g_get_real_time () - (g_get_monotonic_time () - started_at_us)) / G_USEC_PER_SEC;
  return g_strdup_printf ("# HELP actionbase_up Whether the server is running.\n"
                          "# TYPE actionbase_up gauge\n"
                          "actionbase_up 1\n"
                          "# HELP actionbase_start_time_seconds Start time of the process.\n"
                          "# TYPE actionbase_start_time_seconds gauge\n"
                          "actionbase_start_time_seconds %.3f\n"
                          "# HELP actionbase_read_only Whether writes are refused (--read-only).\n"
                          "# TYPE actionbase_read_only gauge\n"
                          "actionbase_read_only %d\n"
                          "# HELP actionbase_ready Whether /graph/health/readiness answers UP.\n"
                          "# TYPE actionbase_ready gauge\n"
                          "actionbase_ready %d\n",
                          start, serving_read_only ? 1 : 0,
                          probes != NULL && ab_probes_ready (probes, NULL) ? 1 : 0);
}

/* ---- life cycle ---- */

static gboolean
on_signal (gpointer data)
{
  g_message ("signal received: draining in-flight requests");
  g_main_loop_quit (data);
  return G_SOURCE_CONTINUE;
}

/* Every connection costs a descriptor: lift the soft limit to the hard one
 * (as nginx's worker_rlimit_nofile would) and say when the cap cannot be met. */
static void
raise_fd_limit (guint max_connections)
{
  struct rlimit rl;
  if (getrlimit (RLIMIT_NOFILE, &rl) != 0)
    return;
  if (rl.rlim_cur < rl.rlim_max)
    {
      rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_NOFILE, &rl);
      getrlimit (RLIMIT_NOFILE, &rl);
    }
  if (max_connections > 0 && rl.rlim_cur != RLIM_INFINITY
      && (rlim_t) max_connections + 256 > rl.rlim_cur)
    g_warning ("max-connections %u is close to the descriptor limit (%llu): connections "
               "beyond the limit are refused by the kernel, not answered 503",
               max_connections, (unsigned long long) rl.rlim_cur);
}

static gchar *
engine_metrics (gpointer engine)
{
  return ab_engine_metrics_text (engine);
}

/* Requests handed to the worker pool and not answered yet: the queue depth
 * the web console and alerts watch (a store that stalls piles them up). */
static gchar *
server_metrics (gpointer server)
{
  return g_strdup_printf (
      "# HELP actionbase_http_requests_in_flight Requests on the worker pool not answered yet.\n"
      "# TYPE actionbase_http_requests_in_flight gauge\n"
      "actionbase_http_requests_in_flight %u\n",
      ab_http_server_in_flight (server));
}

static gboolean
engine_healthy (gpointer engine, gchar **reason)
{
  return ab_engine_healthy (engine, reason);
}

/* /health is answered from the probe's last verdict: a probe every 250 ms, and
 * a probe still waiting after 1 s reads as DOWN (the store stalls). The probe
 * also refreshes the catalog (ab_engine_healthy), off the main loop: what
 * another node changed is picked up within one probe plus one reload. */
#define HEALTH_PROBE_MS 250
#define HEALTH_TIMEOUT_MS 1000

/* Every route the server serves; --routes lists them without a store. */
static void
add_routes (AbRouter *router, AbEngine *engine, AbMetrics *metrics, AbProbes *p)
{
  ab_probes_register (p, router);
  /* It does not touch the store: it answers on the loop even when every worker waits on it. */
  ab_router_add (router, "GET", "/metrics", AB_ROUTE_ALWAYS_INLINE, metrics_handler, metrics);
  ab_api_register (router, engine);
}

static void
print_route (const gchar *method, const gchar *pattern, gpointer unused)
{
  g_print ("%s %s\n", method, pattern);
}

/* docs/openapi.yaml is checked against this list (tests/rest/check-openapi.sh). */
static int
print_routes (void)
{
  AbRouter *router = ab_router_new ();
  add_routes (router, NULL, NULL, NULL);
  ab_router_foreach (router, print_route, NULL);
  ab_router_free (router);
  return 0;
}

static int
run (AbServerConfig *cfg, const AbEngineConfig *ecfg)
{
  g_autoptr (GError) error = NULL;
  serving_read_only = cfg->http.read_only;
  g_autofree gchar *wal = ab_server_config_wal_uri (cfg);
  AbEngineConfig with_sinks = *ecfg;
  with_sinks.wal_uri = wal;
  with_sinks.cdc_uri = cfg->cdc_uri;
  with_sinks.system_mode = cfg->system_mode;
  gboolean file_wal = g_str_has_prefix (wal, "file:");
  g_autofree gchar *refused = NULL;
  if (cfg->wal_ephemeral && file_wal)
    with_sinks.async_refused = refused = g_strdup_printf (
        "ASYNC mutations need a WAL that outlives this node, and its WAL (%s) is marked "
        "ephemeral (wal-ephemeral): send the request as SYNC (/edges/sync) or run the server "
        "with --wal kafka://HOST:PORT/TOPIC",
        wal);
  AbEngine *engine = ab_engine_open (cfg->store_uri, &with_sinks, &error);
  if (engine == NULL)
    {
      g_critical ("cannot open store %s: %s", cfg->store_uri, error->message);
      return 1;
    }
  /* A shared remote store with a node-local WAL: an acknowledged ASYNC write
   * lives only on this node's disk until its applier ran. */
  if (file_wal && !cfg->wal_ephemeral && !ab_engine_reads_inline (engine))
    g_warning ("the WAL is a local file (%s) while the store is shared (%s): an ASYNC write is "
               "acknowledged once that file is synced and is LOST if this node's disk goes "
               "away before its applier ran. Stateless nodes need --wal kafka://HOST:PORT/TOPIC "
               "(any node applies); --wal-ephemeral refuses ASYNC writes instead",
               wal, cfg->store_uri);
  AbRouter *router = ab_router_new ();
  AbMetrics *metrics = ab_metrics_new ();
  ab_metrics_add_provider (metrics, process_metrics, NULL, NULL);
  ab_metrics_add_provider (metrics, engine_metrics, engine, NULL);
  AbHealth *health = ab_health_new (engine_healthy, engine, HEALTH_PROBE_MS, HEALTH_TIMEOUT_MS);
  probes = ab_probes_new (health, cfg->http.read_only);
  add_routes (router, engine, metrics, probes);
  AbAuth *auth = NULL;
  if (cfg->auth)
    {
      const gchar *env = g_getenv ("ACTIONBASE_ADMIN_KEY");
      auth = ab_auth_new (engine, env != NULL ? env : cfg->admin_key);
      ab_auth_install (auth, router);
      if (env == NULL && cfg->admin_key == NULL)
        g_warning ("access control is on but no admin key is set (ACTIONBASE_ADMIN_KEY)");
    }

  cfg->http.metrics = metrics;
  cfg->http.inline_reads = ab_engine_reads_inline (engine);
  raise_fd_limit (cfg->http.max_connections);
  cfg->http.access_log = cfg->http.access_log && log_threshold >= G_LOG_LEVEL_INFO;
  cfg->http.access_writer = ab_log_info_line;
  /* SIGTERM and SIGINT are caught before the port is announced: a supervisor
   * may stop a node as soon as it listens, and a signal met before the loop
   * runs is handled once it does (a clean stop), not by the default action. */
  g_autoptr (GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  guint term = g_unix_signal_add (SIGTERM, on_signal, loop);
  guint intr = g_unix_signal_add (SIGINT, on_signal, loop);
  AbHttpServer *server = ab_http_server_new (router, &cfg->http, &error);
  if (server != NULL)
    ab_metrics_add_provider (metrics, server_metrics, server, NULL);
  int rc = 0;
  if (server == NULL || !ab_http_server_start (server, &error))
    {
      g_critical ("cannot start HTTP server: %s", error->message);
      rc = 1;
    }
  else
    {
      g_message ("serving store %s with %u HTTP thread(s) and %u worker(s) over %s; reads on %s",
                 cfg->store_uri, cfg->http.http_threads, cfg->http.workers,
                 cfg->http.tls_cert != NULL ? "HTTPS (HTTP/1.1, HTTP/2)" : "HTTP/1.1",
                 cfg->http.inline_reads ? "the HTTP loops" : "the workers (the store can block)");
      g_main_loop_run (loop);
      ab_http_server_stop (server);
    }
  g_source_remove (term);
  g_source_remove (intr);
  g_clear_pointer (&server, ab_http_server_free);
  g_clear_pointer (&probes, ab_probes_free);
  ab_health_free (health);
  ab_engine_close (engine);
  ab_router_free (router);
  ab_auth_free (auth);
  ab_metrics_free (metrics);
  if (rc == 0)
    g_message ("stopped");
  return rc;
}

static gboolean
load_settings (AbServerConfig *cfg, AbEngineConfig *ecfg, int *argc, char ***argv, GError **error)
{
  AbServerFlags flags;
  gboolean ok = ab_server_flags_parse (&flags, argc, argv, error)
                && (flags.config_file == NULL
                    || ab_server_config_load_file (cfg, ecfg, flags.config_file, error))
                && ab_server_config_apply_flags (cfg, &flags, error);
  ab_server_flags_clear (&flags);
  return ok;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  AbServerConfig cfg;
  AbEngineConfig ecfg;

  ab_slices_from_malloc (argv);
  started_at_us = g_get_monotonic_time ();
  signal (SIGPIPE, SIG_IGN);
  /* Installed first so that warnings about the settings use it too. */
  ab_log_install (log_threshold, 2);
  ab_server_config_init (&cfg);
  ab_engine_config_init (&ecfg);
  if (!load_settings (&cfg, &ecfg, &argc, &argv, &error))
    {
      g_printerr ("actionbased: %s\n", error->message);
      ab_server_config_clear (&cfg);
      ab_log_shutdown ();
      return 2;
    }
  log_threshold = cfg.log_threshold;
  ab_log_set_threshold (log_threshold);
  int rc = cfg.print_routes ? print_routes () : run (&cfg, &ecfg);
  ab_server_config_clear (&cfg);
  /* Nothing buffered is lost at a graceful stop. */
  ab_log_shutdown ();
  return rc;
}
