/* actionbased settings: defaults, the GKeyFile config file ([server] and
 * [engine] groups) and command-line flags, merged with flags winning, plus the
 * parsers for "HOST:PORT", sizes and log levels. */
#pragma once
#include <glib.h>
#include "engine/engine.h"
#include "rest/http.h"

#define AB_SERVER_CONFIG_ERROR (ab_server_config_error_quark ())
GQuark ab_server_config_error_quark (void);

typedef enum {
  AB_SERVER_CONFIG_ERROR_INVALID, /* a value that does not parse */
} AbServerConfigError;

/* Command-line values; NULL / -1 mean "not given". */
typedef struct {
  gchar *config_file;
  gchar *listen;
  gchar *store;
  gint workers;
  gint http_threads;
  gchar *max_body;
  gchar *log_level;
  gint drain_timeout_ms;
  gchar *wal;
  gchar *cdc;
  gchar *system_mode;
  gboolean auth;
  gboolean wal_ephemeral;
  gboolean read_only;
  gboolean routes; /* print the routes and exit */
  gchar *tls_cert;
  gchar *tls_key;
  gchar *max_connections; /* strings so that a zeroed struct means "not given" */
  gchar *request_timeout_ms;
} AbServerFlags;

typedef struct {
  gchar *store_uri;               /* default "lmdb:./actionbase-data" */
  GLogLevelFlags log_threshold;   /* messages above (less severe) are dropped */
  AbHttpConfig http;              /* host, port, threads, workers, body limit */
  gchar **insert_merge_databases; /* owned; engine.insert_merge_databases points here */
  gchar *wal_uri;                 /* NULL = file:<lmdb or rocksdb dir>/wal (or ./actionbase-wal) */
  gchar *cdc_uri;                 /* default "none" */
  gint system_mode;               /* -1 none, else AbMutationMode */
  gboolean auth;                  /* access control on (API keys) */
  gboolean wal_ephemeral;         /* the file WAL does not outlive this node: refuse ASYNC */
  gboolean print_routes;          /* --routes: list METHOD PATTERN of every route and exit */
  gchar *admin_key;               /* bootstrap admin key; ACTIONBASE_ADMIN_KEY wins */
} AbServerConfig;

/* The WAL URI to use: the configured one or the default next to the store. */
gchar *ab_server_config_wal_uri (const AbServerConfig *cfg);

/* Parses argv (GOptionContext; --help handled there). */
gboolean ab_server_flags_parse (AbServerFlags *flags, int *argc, char ***argv, GError **error);
void ab_server_flags_clear (AbServerFlags *flags);

void ab_server_config_init (AbServerConfig *cfg);
void ab_server_config_clear (AbServerConfig *cfg);
/* Applies the [server] group to cfg and the [engine] group to engine (may be
 * NULL); unknown keys are ignored with a warning. */
gboolean ab_server_config_load_file (AbServerConfig *cfg, AbEngineConfig *engine, const gchar *path,
                                     GError **error);
gboolean ab_server_config_apply_flags (AbServerConfig *cfg, const AbServerFlags *flags,
                                       GError **error);

/* "HOST:PORT", "[V6]:PORT", ":PORT" (all interfaces) or "PORT" (127.0.0.1). */
gboolean ab_server_parse_listen (const gchar *text, gchar **host, guint16 *port, GError **error);
/* Bytes with an optional K, M or G suffix (powers of 1024). */
gboolean ab_server_parse_size (const gchar *text, gsize *out, GError **error);
/* error, critical, warning, message, info, debug. */
gboolean ab_server_parse_log_level (const gchar *text, GLogLevelFlags *out, GError **error);
