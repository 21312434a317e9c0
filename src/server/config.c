/* actionbased settings: command-line flags, the GKeyFile config file and the
 * defaults, merged in that order of precedence; value parsers shared by all
 * three so a setting means the same wherever it is written. */
#define G_LOG_DOMAIN "actionbased"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "server/config.h"
#include "model/schema.h"

G_DEFINE_QUARK (ab - server - config - error - quark, ab_server_config_error)

static gboolean
invalid (GError **error, const gchar *what, const gchar *text)
{
  g_set_error (error, AB_SERVER_CONFIG_ERROR, AB_SERVER_CONFIG_ERROR_INVALID, "invalid %s: '%s'",
               what, text != NULL ? text : "");
  return FALSE;
}

/* ---- value parsers ---- */

static gboolean
parse_port (const gchar *text, guint16 *port)
{
  guint64 v = 0;
  if (!g_ascii_string_to_unsigned (text, 10, 0, 65535, &v, NULL))
    return FALSE;
  *port = (guint16) v;
  return TRUE;
}

gboolean
ab_server_parse_listen (const gchar *text, gchar **host, guint16 *port, GError **error)
{
  const gchar *colon;
  if (text == NULL || *text == '\0')
    return invalid (error, "listen address", text);
  if (text[0] == '[')
    {
      const gchar *close = strchr (text, ']');
      if (close == NULL || close[1] != ':' || !parse_port (close + 2, port))
        return invalid (error, "listen address", text);
      *host = g_strndup (text + 1, close - text - 1);
      return TRUE;
    }
  colon = strrchr (text, ':');
  if (colon == NULL)
    {
      if (!parse_port (text, port))
        return invalid (error, "listen address", text);
      *host = g_strdup ("127.0.0.1");
      return TRUE;
    }
  if (strchr (text, ':') != colon || !parse_port (colon + 1, port))
    return invalid (error, "listen address (use [v6]:port for IPv6)", text);
  *host = colon == text ? g_strdup ("0.0.0.0") : g_strndup (text, colon - text);
  return TRUE;
}

gboolean
ab_server_parse_size (const gchar *text, gsize *out, GError **error)
{
  static const struct {
    const gchar *suffix;
    guint64 mult;
  } units[] = {
    { "", 1 },          { "b", 1 },        { "k", 1 << 10 },   { "kb", 1 << 10 },
    { "kib", 1 << 10 }, { "m", 1 << 20 },  { "mb", 1 << 20 },  { "mib", 1 << 20 },
    { "g", 1 << 30 },   { "gb", 1 << 30 }, { "gib", 1 << 30 },
  };
  gchar *end = NULL;
  guint64 v;
  if (text == NULL || !g_ascii_isdigit (text[0]))
    return invalid (error, "size", text);
  errno = 0;
  v = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || v == 0)
    return invalid (error, "size", text);
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_ascii_strcasecmp (end, units[i].suffix) == 0)
      {
        if (v > G_MAXSIZE / units[i].mult)
          break;
        *out = (gsize) (v * units[i].mult);
        return TRUE;
      }
  return invalid (error, "size", text);
}

gboolean
ab_server_parse_log_level (const gchar *text, GLogLevelFlags *out, GError **error)
{
  static const struct {
    const gchar *name;
    GLogLevelFlags level;
  } levels[] = {
    { "error", G_LOG_LEVEL_ERROR },     { "critical", G_LOG_LEVEL_CRITICAL },
    { "warning", G_LOG_LEVEL_WARNING }, { "warn", G_LOG_LEVEL_WARNING },
    { "message", G_LOG_LEVEL_MESSAGE }, { "info", G_LOG_LEVEL_INFO },
    { "debug", G_LOG_LEVEL_DEBUG },
  };
  for (guint i = 0; text != NULL && i < G_N_ELEMENTS (levels); i++)
    if (g_ascii_strcasecmp (text, levels[i].name) == 0)
      {
        *out = levels[i].level;
        return TRUE;
      }
  return invalid (error, "log level", text);
}

/* ---- flags ---- */

gboolean
ab_server_flags_parse (AbServerFlags *f, int *argc, char ***argv, GError **error)
{
  GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &f->config_file,
      "Config file (GKeyFile, [server] and [engine] groups)", "FILE" },
    { "listen", 'l', 0, G_OPTION_ARG_STRING, &f->listen, "Listen address (default 127.0.0.1:8080)",
      "HOST:PORT" },
    { "store", 's', 0, G_OPTION_ARG_STRING, &f->store, "Store URI (default lmdb:./actionbase-data)",
      "URI" },
    { "workers", 'w', 0, G_OPTION_ARG_INT, &f->workers, "Worker threads for blocking requests",
      "N" },
    { "http-threads", 't', 0, G_OPTION_ARG_INT, &f->http_threads,
      "HTTP event loops (default: the cores it may use)", "N" },
    { "max-body", 0, 0, G_OPTION_ARG_STRING, &f->max_body, "Request body limit (default 10M)",
      "BYTES" },
    { "log-level", 0, 0, G_OPTION_ARG_STRING, &f->log_level,
      "error|warning|message|info|debug (default info)", "LEVEL" },
    { "drain-timeout-ms", 0, 0, G_OPTION_ARG_INT, &f->drain_timeout_ms,
      "Graceful stop: wait for in-flight requests (default 10000)", "MS" },
    { "wal", 0, 0, G_OPTION_ARG_STRING, &f->wal,
      "WAL sink: file:DIR (default: next to the store), kafka://HOST:PORT/TOPIC or none", "URI" },
    { "cdc", 0, 0, G_OPTION_ARG_STRING, &f->cdc,
      "CDC sink: none (default), file:DIR or kafka://HOST:PORT/TOPIC", "URI" },
    { "auth", 0, 0, G_OPTION_ARG_NONE, &f->auth,
      "Require API keys (first admin key: ACTIONBASE_ADMIN_KEY)", NULL },
    { "read-only", 0, 0, G_OPTION_ARG_NONE, &f->read_only,
      "Reject every write with 403 (reads, /health and /metrics keep working)", NULL },
    { "wal-ephemeral", 0, 0, G_OPTION_ARG_NONE, &f->wal_ephemeral,
      "The file WAL does not outlive this node (a container layer): refuse ASYNC mutations", NULL },
    { "system-mode", 0, 0, G_OPTION_ARG_STRING, &f->system_mode,
      "Server-wide mutation mode override: SYNC, ASYNC, DROP or DENY", "MODE" },
    { "tls-cert", 0, 0, G_OPTION_ARG_FILENAME, &f->tls_cert,
      "Serve HTTPS (HTTP/1.1 and HTTP/2) with this PEM certificate chain", "FILE" },
    { "tls-key", 0, 0, G_OPTION_ARG_FILENAME, &f->tls_key, "PEM private key of --tls-cert",
      "FILE" },
    { "max-connections", 0, 0, G_OPTION_ARG_STRING, &f->max_connections,
      "Connections beyond this get 503 (default 10000, 0 = no cap)", "N" },
    { "request-timeout-ms", 0, 0, G_OPTION_ARG_STRING, &f->request_timeout_ms,
      "Time allowed to receive a request's headers and body (default 10000)", "MS" },
    { "routes", 0, 0, G_OPTION_ARG_NONE, &f->routes,
      "Print every route served (METHOD PATTERN, one per line) and exit", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx
      = g_option_context_new ("- Actionbase-compatible interaction database server");

  memset (f, 0, sizeof *f);
  f->workers = f->http_threads = f->drain_timeout_ms = -1;
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, argc, argv, error))
    return FALSE;
  if (*argc > 1)
    return invalid (error, "argument", (*argv)[1]);
  return TRUE;
}

void
ab_server_flags_clear (AbServerFlags *f)
{
  g_free (f->config_file);
  g_free (f->listen);
  g_free (f->store);
  g_free (f->max_body);
  g_free (f->log_level);
  g_free (f->wal);
  g_free (f->cdc);
  g_free (f->system_mode);
  g_free (f->tls_cert);
  g_free (f->tls_key);
  g_free (f->max_connections);
  g_free (f->request_timeout_ms);
  memset (f, 0, sizeof *f);
}

/* ---- config ---- */

void
ab_server_config_init (AbServerConfig *cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->store_uri = g_strdup ("lmdb:./actionbase-data");
  cfg->log_threshold = G_LOG_LEVEL_INFO;
  cfg->cdc_uri = g_strdup ("none");
  cfg->system_mode = -1;
  ab_http_config_init (&cfg->http);
}

gchar *
ab_server_config_wal_uri (const AbServerConfig *cfg)
{
  if (cfg->wal_uri != NULL)
    return g_strdup (cfg->wal_uri);
  /* next to an embedded store: DIR/wal */
  const gchar *local = g_str_has_prefix (cfg->store_uri, "lmdb:")      ? cfg->store_uri + 5
                       : g_str_has_prefix (cfg->store_uri, "rocksdb:") ? cfg->store_uri + 8
                                                                       : NULL;
  if (local != NULL)
    {
      g_autofree gchar *dir = g_strdup (local);
      gchar *q = strchr (dir, '?');
      if (q != NULL)
        *q = '\0';
      return g_strdup_printf ("file:%s/wal", dir);
    }
  return g_strdup ("file:./actionbase-wal");
}

static gboolean
set_mode (gint *dst, const gchar *text, GError **error)
{
  AbMutationMode m;
  if (!ab_mode_parse (text, &m))
    return invalid (error, "system mode", text);
  *dst = (gint) m;
  return TRUE;
}

static void
set_string (gchar **dst, const gchar *value)
{
  g_free (*dst);
  *dst = g_strdup (value);
}

void
ab_server_config_clear (AbServerConfig *cfg)
{
  g_clear_pointer (&cfg->store_uri, g_free);
  g_clear_pointer (&cfg->insert_merge_databases, g_strfreev);
  g_clear_pointer (&cfg->wal_uri, g_free);
  g_clear_pointer (&cfg->cdc_uri, g_free);
  g_clear_pointer (&cfg->admin_key, g_free);
  ab_http_config_clear (&cfg->http);
}

static gboolean
set_listen (AbServerConfig *cfg, const gchar *text, GError **error)
{
  gchar *host = NULL;
  if (!ab_server_parse_listen (text, &host, &cfg->http.port, error))
    return FALSE;
  g_free (cfg->http.host);
  cfg->http.host = host;
  return TRUE;
}

static gboolean
set_count (guint *dst, gint64 v, const gchar *what, GError **error)
{
  if (v < 1 || v > 4096)
    {
      g_autofree gchar *text = g_strdup_printf ("%" G_GINT64_FORMAT, v);
      return invalid (error, what, text);
    }
  *dst = (guint) v;
  return TRUE;
}

/* max-connections (0 = no cap) and request-timeout-ms (at least 100). */
static gboolean
set_limit (guint *dst, const gchar *text, guint64 min, const gchar *what, GError **error)
{
  guint64 v = 0;
  if (!g_ascii_string_to_unsigned (text, 10, min, G_MAXINT, &v, NULL))
    return invalid (error, what, text);
  *dst = (guint) v;
  return TRUE;
}

gboolean
ab_server_config_apply_flags (AbServerConfig *cfg, const AbServerFlags *f, GError **error)
{
  if (f->listen != NULL && !set_listen (cfg, f->listen, error))
    return FALSE;
  if (f->store != NULL)
    {
      g_free (cfg->store_uri);
      cfg->store_uri = g_strdup (f->store);
    }
  if (f->workers != -1 && !set_count (&cfg->http.workers, f->workers, "--workers", error))
    return FALSE;
  if (f->http_threads != -1
      && !set_count (&cfg->http.http_threads, f->http_threads, "--http-threads", error))
    return FALSE;
  if (f->max_body != NULL && !ab_server_parse_size (f->max_body, &cfg->http.max_body, error))
    return FALSE;
  if (f->log_level != NULL && !ab_server_parse_log_level (f->log_level, &cfg->log_threshold, error))
    return FALSE;
  if (f->auth)
    cfg->auth = TRUE;
  if (f->wal_ephemeral)
    cfg->wal_ephemeral = TRUE;
  if (f->read_only)
    cfg->http.read_only = TRUE;
  if (f->routes)
    cfg->print_routes = TRUE;
  if (f->wal != NULL)
    set_string (&cfg->wal_uri, f->wal);
  if (f->cdc != NULL)
    set_string (&cfg->cdc_uri, f->cdc);
  if (f->system_mode != NULL && !set_mode (&cfg->system_mode, f->system_mode, error))
    return FALSE;
  if (f->tls_cert != NULL)
    set_string (&cfg->http.tls_cert, f->tls_cert);
  if (f->tls_key != NULL)
    set_string (&cfg->http.tls_key, f->tls_key);
  if (f->max_connections != NULL
      && !set_limit (&cfg->http.max_connections, f->max_connections, 0, "--max-connections", error))
    return FALSE;
  if (f->request_timeout_ms != NULL
      && !set_limit (&cfg->http.request_timeout_ms, f->request_timeout_ms, 100,
                     "--request-timeout-ms", error))
    return FALSE;
  if (f->drain_timeout_ms != -1)
    {
      if (f->drain_timeout_ms < 0)
        return invalid (error, "--drain-timeout-ms", "negative");
      cfg->http.drain_timeout_ms = (guint) f->drain_timeout_ms;
    }
  return TRUE;
}

/* One [server] key; *known is FALSE for keys this version does not know. */
static gboolean
apply_server_key (AbServerConfig *cfg, const gchar *key, const gchar *value, gboolean *known,
                  GError **error)
{
  gint64 n = 0;
  *known = TRUE;
  if (g_str_equal (key, "listen"))
    return set_listen (cfg, value, error);
  if (g_str_equal (key, "store"))
    {
      g_free (cfg->store_uri);
      cfg->store_uri = g_strdup (value);
      return TRUE;
    }
  if (g_str_equal (key, "max-body"))
    return ab_server_parse_size (value, &cfg->http.max_body, error);
  if (g_str_equal (key, "wal") || g_str_equal (key, "cdc"))
    {
      set_string (key[0] == 'w' ? &cfg->wal_uri : &cfg->cdc_uri, value);
      return TRUE;
    }
  if (g_str_equal (key, "system-mode"))
    return set_mode (&cfg->system_mode, value, error);
  if (g_str_equal (key, "auth") || g_str_equal (key, "wal-ephemeral"))
    {
      *(key[0] == 'a' ? &cfg->auth : &cfg->wal_ephemeral)
          = g_ascii_strcasecmp (value, "true") == 0 || g_str_equal (value, "1");
      return TRUE;
    }
  if (g_str_equal (key, "admin-key"))
    {
      set_string (&cfg->admin_key, value);
      return TRUE;
    }
  if (g_str_equal (key, "tls-cert") || g_str_equal (key, "tls-key"))
    {
      set_string (key[4] == 'c' ? &cfg->http.tls_cert : &cfg->http.tls_key, value);
      return TRUE;
    }
  if (g_str_equal (key, "log-level"))
    return ab_server_parse_log_level (value, &cfg->log_threshold, error);
  if (g_str_equal (key, "access-log") || g_str_equal (key, "read-only"))
    {
      *(key[0] == 'a' ? &cfg->http.access_log : &cfg->http.read_only)
          = g_ascii_strcasecmp (value, "true") == 0 || g_str_equal (value, "1");
      return TRUE;
    }
  if (g_str_equal (key, "max-connections"))
    return set_limit (&cfg->http.max_connections, value, 0, key, error);
  if (g_str_equal (key, "request-timeout-ms"))
    return set_limit (&cfg->http.request_timeout_ms, value, 100, key, error);
  if (!g_str_equal (key, "workers") && !g_str_equal (key, "http-threads")
      && !g_str_equal (key, "drain-timeout-ms"))
    {
      *known = FALSE;
      return TRUE;
    }
  if (!g_ascii_string_to_signed (value, 10, 0, G_MAXINT, &n, NULL))
    return invalid (error, key, value);
  if (g_str_equal (key, "workers"))
    return set_count (&cfg->http.workers, n, key, error);
  if (g_str_equal (key, "http-threads"))
    return set_count (&cfg->http.http_threads, n, key, error);
  cfg->http.drain_timeout_ms = (guint) n;
  return TRUE;
}

static guint *
engine_uint_field (AbEngineConfig *e, const gchar *key)
{
  if (g_str_equal (key, "lock-retries"))
    return &e->lock_retries;
  if (g_str_equal (key, "lock-backoff-ms"))
    return &e->lock_backoff_ms;
  if (g_str_equal (key, "max-mutations"))
    return &e->max_mutations;
  if (g_str_equal (key, "max-get-pairs"))
    return &e->max_get_pairs;
  if (g_str_equal (key, "max-scan-limit"))
    return &e->max_scan_limit;
  if (g_str_equal (key, "mutation-threads"))
    return &e->mutation_threads;
  if (g_str_equal (key, "heal-retry-ms"))
    return &e->heal_retry_ms;
  if (g_str_equal (key, "heal-sweep-ms"))
    return &e->heal_sweep_ms;
  if (g_str_equal (key, "write-budget-ms"))
    return &e->write_budget_ms;
  return NULL;
}

/* One [engine] key. */
static gboolean
apply_engine_key (AbServerConfig *cfg, AbEngineConfig *e, GKeyFile *kf, const gchar *key,
                  gboolean *known, GError **error)
{
  g_autofree gchar *value = g_key_file_get_string (kf, "engine", key, NULL);
  guint *field = engine_uint_field (e, key);
  gint64 n = 0;
  *known = TRUE;
  gboolean *flag = g_str_equal (key, "applier") ? &e->run_applier
                   : g_str_equal (key, "heal")  ? &e->heal
                                                : NULL;
  if (flag != NULL) /* on unless "false" or "0" */
    {
      *flag = g_ascii_strcasecmp (value, "false") != 0 && g_strcmp0 (value, "0") != 0;
      return TRUE;
    }
  if (g_str_equal (key, "insert-merge-databases"))
    {
      g_strfreev (cfg->insert_merge_databases);
      cfg->insert_merge_databases = g_key_file_get_string_list (kf, "engine", key, NULL, NULL);
      e->insert_merge_databases = cfg->insert_merge_databases;
      return TRUE;
    }
  if (field == NULL && !g_str_equal (key, "lock-stale-ms"))
    {
      *known = FALSE;
      return TRUE;
    }
  if (value == NULL || !g_ascii_string_to_signed (value, 10, 0, G_MAXINT, &n, NULL))
    return invalid (error, key, value);
  if (field != NULL)
    *field = (guint) n;
  else
    e->lock_stale_ms = n;
  return TRUE;
}

static gboolean
load_group (AbServerConfig *cfg, AbEngineConfig *engine, GKeyFile *kf, const gchar *group,
            GError **error)
{
  g_auto (GStrv) keys = g_key_file_get_keys (kf, group, NULL, NULL);
  for (guint i = 0; keys != NULL && keys[i] != NULL; i++)
    {
      gboolean known = TRUE, ok;
      if (g_str_equal (group, "server"))
        {
          g_autofree gchar *value = g_key_file_get_string (kf, group, keys[i], NULL);
          ok = value != NULL && apply_server_key (cfg, keys[i], value, &known, error);
        }
      else
        ok = apply_engine_key (cfg, engine, kf, keys[i], &known, error);
      if (!ok)
        {
          g_prefix_error (error, "[%s] ", group);
          return FALSE;
        }
      if (!known)
        g_warning ("config: unknown key [%s] %s ignored", group, keys[i]);
    }
  return TRUE;
}

gboolean
ab_server_config_load_file (AbServerConfig *cfg, AbEngineConfig *engine, const gchar *path,
                            GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  if (!load_group (cfg, engine, kf, "server", error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  if (engine != NULL && !load_group (cfg, engine, kf, "engine", error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}
