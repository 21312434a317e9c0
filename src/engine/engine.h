/* The engine's public face: open a store URI with its catalog, and the entry
 * points the REST layer calls (metadata, mutation, query). Nothing above the
 * engine names a backend or touches bytes. */
#pragma once
#include <glib.h>

#define AB_ENGINE_ERROR (ab_engine_error_quark ())
GQuark ab_engine_error_quark (void);

typedef enum {
  AB_ENGINE_ERROR_BAD_REQUEST,  /* 400 */
  AB_ENGINE_ERROR_NOT_FOUND,    /* 404 */
  AB_ENGINE_ERROR_CONFLICT,     /* 409 */
  AB_ENGINE_ERROR_UNAVAILABLE,  /* 503 */
  AB_ENGINE_ERROR_INTERNAL,     /* 500 */
} AbEngineError;

typedef struct {
  guint lock_retries;         /* default 50 */
  guint lock_backoff_ms;      /* default 100 */
  gint64 lock_stale_ms;       /* default 300000 */
  gchar **insert_merge_databases; /* INSERT_MERGE feature, NULL-terminated */
  guint max_mutations;        /* items per request, default 1000 */
  guint max_get_pairs;        /* default 25 */
  guint max_scan_limit;       /* default 1000 */
  guint mutation_threads;     /* keys applied concurrently, default 8 */
} AbEngineConfig;

void ab_engine_config_init (AbEngineConfig *cfg);

typedef struct _AbEngine AbEngine;

AbEngine *ab_engine_open (const gchar *store_uri, const AbEngineConfig *cfg,
                          GError **error);
void ab_engine_close (AbEngine *engine);
/* TRUE when the store answers (for /health); fills *reason otherwise. */
gboolean ab_engine_healthy (AbEngine *engine, gchar **reason);
