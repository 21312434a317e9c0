/* The engine as one: configuration defaults, opening the store, catalog and
 * sinks, starting and stopping the threads of every folder (key pool, healer,
 * applier, maintenance), health, sync and the engine's /metrics text. */
#include "engine/write/write.h"
#include "engine/upkeep/upkeep.h"
#include "model/types.h"
#include "codec/fail.h"

void
ab_engine_config_init (AbEngineConfig *cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->lock_retries = 50;
  cfg->lock_backoff_ms = 100;
  cfg->lock_stale_ms = 300000;
  cfg->insert_merge_databases = NULL;
  cfg->max_mutations = 1000;
  cfg->max_get_pairs = 25;
  cfg->max_scan_limit = 1000;
  cfg->mutation_threads = 8;
  cfg->wal_uri = "none";
  cfg->cdc_uri = "none";
  cfg->system_mode = -1;
  cfg->run_applier = TRUE;
  cfg->phase = "local";
  cfg->tenant = "default";
  cfg->cache_prune_ms = 1000;
  cfg->ttl_sweep_ms = 10000;
  cfg->max_hop_starts = 100;
  cfg->max_hop_nodes = 1000;
  cfg->max_hop_edges = 100000;
  cfg->now_ms = NULL; /* real time */
  cfg->now_data = NULL;
  cfg->heal = TRUE;
  cfg->heal_retry_ms = 1000;
  cfg->heal_sweep_ms = 600000;
  cfg->write_budget_ms = 4000;
}

static gboolean
open_sinks (AbEngine *engine, GError **error)
{
  engine->wal = ab_sink_open (engine->cfg.wal_uri, error);
  if (engine->wal == NULL)
    return FALSE;
  engine->cdc = ab_sink_open (engine->cfg.cdc_uri, error);
  if (engine->cdc == NULL)
    return FALSE;
  if (engine->cfg.run_applier && !ab_sink_is_none (engine->wal))
    return ab_engine_applier_start (engine, error);
  return TRUE;
}

AbEngine *
ab_engine_open (const gchar *store_uri, const AbEngineConfig *cfg, GError **error)
{
  GError *local = NULL;
  AbStore *store = ab_store_open (store_uri, &local);
  if (store == NULL)
    {
      ab_engine_propagate (error, local);
      return NULL;
    }
  return ab_engine_open_store (store, cfg, error);
}

AbEngine *
ab_engine_open_store (AbStore *store, const AbEngineConfig *cfg, GError **error)
{
  GError *local = NULL;
  AbCatalog *cat = ab_catalog_open (store, &local);
  if (cat == NULL)
    {
      ab_store_close (store);
      ab_engine_propagate (error, local);
      return NULL;
    }
  AbEngine *engine = g_new0 (AbEngine, 1);
  engine->store = store;
  engine->catalog = cat;
  if (cfg != NULL)
    engine->cfg = *cfg;
  else
    ab_engine_config_init (&engine->cfg);
  engine->cfg.insert_merge_databases = g_strdupv (engine->cfg.insert_merge_databases);
  engine->cfg.wal_uri = engine->owned_wal_uri = g_strdup (engine->cfg.wal_uri);
  engine->cfg.cdc_uri = engine->owned_cdc_uri = g_strdup (engine->cfg.cdc_uri);
  engine->cfg.phase = engine->owned_phase = g_strdup (engine->cfg.phase);
  engine->cfg.tenant = engine->owned_tenant = g_strdup (engine->cfg.tenant);
  /* Without a WAL nothing would ever apply a queued ASYNC mutation: refuse
   * it (503) rather than acknowledge a write that is then lost. */
  gboolean no_wal = engine->cfg.wal_uri == NULL || g_str_equal (engine->cfg.wal_uri, "none");
  engine->cfg.async_refused = engine->owned_async_refused = g_strdup (
      engine->cfg.async_refused != NULL || !no_wal
          ? engine->cfg.async_refused
          : "ASYNC mutations need a WAL and this server runs without one (--wal none): send "
            "the request as SYNC (/edges/sync) or start the server with --wal file:DIR or "
            "--wal kafka://HOST:PORT/TOPIC");
  ab_engine_pools_start (engine);
  ab_engine_maint_start (engine);
  ab_engine_heal_start (engine);
  if (!open_sinks (engine, &local))
    {
      ab_engine_close (engine);
      ab_engine_propagate (error, local);
      return NULL;
    }
  return engine;
}

void
ab_engine_close (AbEngine *engine)
{
  if (engine == NULL)
    return;
  ab_engine_applier_stop (engine);
  ab_engine_maint_stop (engine);
  ab_engine_pools_stop (engine);
  ab_engine_heal_stop (engine);
  g_clear_pointer (&engine->wal, ab_sink_close);
  g_clear_pointer (&engine->cdc, ab_sink_close);
  g_free (engine->owned_wal_uri);
  g_free (engine->owned_cdc_uri);
  g_free (engine->owned_phase);
  g_free (engine->owned_tenant);
  g_free (engine->owned_async_refused);
  ab_catalog_free (engine->catalog);
  ab_store_close (engine->store);
  g_strfreev (engine->cfg.insert_merge_databases);
  g_free (engine);
}

gboolean
ab_engine_healthy (AbEngine *engine, gchar **reason)
{
  g_autoptr (GError) error = NULL;
  if (!ab_catalog_refresh (engine->catalog, &error))
    {
      if (reason != NULL)
        *reason = g_strdup_printf ("store: %s", error->message);
      return FALSE;
    }
  g_autofree gchar *why = NULL;
  if (engine->wal != NULL && !ab_sink_healthy (engine->wal, &why))
    {
      if (reason != NULL)
        *reason = g_strdup_printf ("WAL sink: %s", why);
      return FALSE;
    }
  if (engine->cdc != NULL && !ab_sink_healthy (engine->cdc, &why))
    {
      if (reason != NULL)
        *reason = g_strdup_printf ("CDC sink: %s", why);
      return FALSE;
    }
  return TRUE;
}

gboolean
ab_engine_reads_inline (AbEngine *engine)
{
  return ab_store_never_blocks (engine->store);
}

gboolean
ab_engine_sync (AbEngine *engine, GError **error)
{
  g_autoptr (GError) local = NULL;
  if (ab_store_sync (engine->store, &local))
    return TRUE;
  return ab_engine_fail (error, AB_ENGINE_ERROR_UNAVAILABLE, "the store did not sync: %s",
                         local->message);
}

/* The sinks' record counters, the applier's and the healer's lines. */
static void
append_sink_metrics (AbEngine *engine, GString *out)
{
  static const gchar *const names[] = { "wal", "cdc" };
  AbSink *sinks[] = { engine->wal, engine->cdc };
  g_string_append (out, "# HELP actionbase_sink_records_total Records by sink and outcome.\n"
                        "# TYPE actionbase_sink_records_total counter\n");
  for (guint i = 0; i < 2; i++)
    {
      if (sinks[i] == NULL)
        continue;
      AbSinkStats st;
      ab_sink_stats (sinks[i], &st);
      g_string_append_printf (
          out,
          "actionbase_sink_records_total{sink=\"%s\",outcome=\"appended\"} %" G_GUINT64_FORMAT "\n"
          "actionbase_sink_records_total{sink=\"%s\",outcome=\"dropped\"} %" G_GUINT64_FORMAT "\n"
          "actionbase_sink_records_total{sink=\"%s\",outcome=\"failed\"} %" G_GUINT64_FORMAT "\n",
          names[i], st.appended, names[i], st.dropped, names[i], st.errors);
    }
  ab_engine_applier_metrics (engine, out);
  ab_engine_heal_metrics (engine, out);
}

/* The store's own health figures, as the backend names them (none on most). */
static void
append_store_gauges (GString *out, AbStore *store)
{
  AbStoreGauge g[AB_STORE_GAUGE_MAX];
  guint n = ab_store_gauges (store, g, AB_STORE_GAUGE_MAX);
  for (guint i = 0; i < n; i++)
    {
      gdouble v = g[i].value;
      gchar value[G_ASCII_DTOSTR_BUF_SIZE];
      gboolean whole = v >= 0 && v < 1e15 && v == (gdouble) (guint64) v;
      g_ascii_formatd (value, sizeof value, whole ? "%.0f" : "%.6f", v);
      g_string_append_printf (out, "# HELP %s %s\n# TYPE %s %s\n%s %s\n", g[i].name, g[i].help,
                              g[i].name, g[i].type == AB_STORE_COUNTER ? "counter" : "gauge",
                              g[i].name, value);
    }
}

/* Calls of each method per mutated edge since the start (the mutation
 * results of every status summed): the call budget as it runs, reads for
 * queries included (docs/hbase-adapter.md §3.9, §9). */
static void
append_rpc_per_mutation (GString *out, AbEngine *engine, const AbStoreRpcCount *rpc, guint n_rpc)
{
  guint64 edges = 0;
  for (AbKeyStatus s = AB_STATUS_CREATED; s <= AB_STATUS_INVALID; s++)
    edges += (guint64) atomic_load (&engine->statuses[s]);
  if (n_rpc == 0 || edges == 0)
    return;
  g_string_append (out, "# HELP actionbase_store_rpc_per_mutation Remote calls by method per "
                        "mutated edge since the start.\n"
                        "# TYPE actionbase_store_rpc_per_mutation gauge\n");
  for (guint i = 0; i < n_rpc; i++)
    g_string_append_printf (out, "actionbase_store_rpc_per_mutation{method=\"%s\"} %.4f\n",
                            rpc[i].name, (gdouble) rpc[i].calls / (gdouble) edges);
}

gchar *
ab_engine_metrics_text (AbEngine *engine)
{
  GString *out = g_string_new ("# HELP actionbase_mutations_total Mutation results by key status.\n"
                               "# TYPE actionbase_mutations_total counter\n");
  for (AbKeyStatus s = AB_STATUS_CREATED; s <= AB_STATUS_INVALID; s++)
    g_string_append_printf (out, "actionbase_mutations_total{status=\"%s\"} %" G_GINT64_FORMAT "\n",
                            ab_key_status_name (s), (gint64) atomic_load (&engine->statuses[s]));
  AbStoreStats st;
  ab_store_stats (engine->store, &st);
  AbStoreRpcCount rpc[AB_STORE_RPC_MAX];
  guint n_rpc = ab_store_rpc_counts (engine->store, rpc, AB_STORE_RPC_MAX);
  if (n_rpc > 0)
    g_string_append (out,
                     "# HELP actionbase_store_rpc_total Remote calls by method (HBase Thrift).\n"
                     "# TYPE actionbase_store_rpc_total counter\n");
  for (guint i = 0; i < n_rpc; i++)
    g_string_append_printf (out,
                            "actionbase_store_rpc_total{method=\"%s\"} %" G_GUINT64_FORMAT "\n",
                            rpc[i].name, rpc[i].calls);
  if (n_rpc > 0)
    g_string_append (out,
                     "# HELP actionbase_store_rpc_errors_total Failed remote calls by method.\n"
                     "# TYPE actionbase_store_rpc_errors_total counter\n");
  for (guint i = 0; i < n_rpc; i++)
    g_string_append_printf (
        out, "actionbase_store_rpc_errors_total{method=\"%s\"} %" G_GUINT64_FORMAT "\n",
        rpc[i].name, rpc[i].errors);
  if (n_rpc > 0)
    g_string_append (
        out, "# HELP actionbase_store_rpc_seconds_total Time spent in remote calls by method.\n"
             "# TYPE actionbase_store_rpc_seconds_total counter\n");
  for (guint i = 0; i < n_rpc; i++)
    g_string_append_printf (out, "actionbase_store_rpc_seconds_total{method=\"%s\"} %.6f\n",
                            rpc[i].name, rpc[i].micros / 1e6);
  append_rpc_per_mutation (out, engine, rpc, n_rpc);
  g_string_append (out, "# HELP actionbase_store_operations_total Datastore calls by verb.\n"
                        "# TYPE actionbase_store_operations_total counter\n");
  for (guint v = 0; v < AB_STORE_VERB_COUNT; v++)
    g_string_append_printf (
        out, "actionbase_store_operations_total{verb=\"%s\"} %" G_GUINT64_FORMAT "\n",
        ab_store_verb_name (v), st.ops[v]);
  g_string_append (out, "# HELP actionbase_store_errors_total Failed datastore calls by verb.\n"
                        "# TYPE actionbase_store_errors_total counter\n");
  for (guint v = 0; v < AB_STORE_VERB_COUNT; v++)
    g_string_append_printf (out,
                            "actionbase_store_errors_total{verb=\"%s\"} %" G_GUINT64_FORMAT "\n",
                            ab_store_verb_name (v), st.errors[v]);
  append_store_gauges (out, engine->store);
  append_sink_metrics (engine, out);
  return g_string_free (out, FALSE);
}
