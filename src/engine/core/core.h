/* The engine's core, the face of src/engine/core to the other engine folders:
 * the engine struct, errors, table resolution, the clock and write budget,
 * the key pool and its timer. Not for use outside src/engine. */
#pragma once
#include <stdatomic.h>
#include "engine/engine.h"
#include "engine/core/state.h"
#include "catalog/catalog.h"
#include "store/store.h"
#include "codec/keys.h"
#include "wal/sink.h"

struct _AbEngine {
  AbStore *store;
  AbCatalog *catalog;
  AbEngineConfig cfg;
  GThreadPool *key_pool;   /* applies the keys of one request concurrently */
  GMainContext *timer_ctx; /* delayed key-pool jobs (lock retries), run by timer_thread */
  GMainLoop *timer_loop;
  GThread *timer_thread;
  atomic_long statuses[AB_STATUS_INVALID + 1]; /* mutation results, atomically added */
  AbSink *wal;
  AbSink *cdc;
  struct _AbApplier *applier; /* NULL unless the async applier runs */
  gchar *owned_wal_uri, *owned_cdc_uri, *owned_phase, *owned_tenant, *owned_async_refused;
  struct _AbMaint *maint;            /* the maintenance thread (upkeep/prune.c) */
  struct _AbHeal *heal;              /* writes cut between their waves, to replay (heal.c) */
  struct _AbCacheNotes *cache_notes; /* cache rows to trim, while maint runs (write/cache_note.c) */
};

/* Errors helpers: set AB_ENGINE_ERROR with a printf message. */
gboolean ab_engine_fail (GError **error, AbEngineError code, const gchar *fmt, ...)
    G_GNUC_PRINTF (3, 4);
/* Converts catalog/store/model errors into engine errors (keeps the text). */
void ab_engine_propagate (GError **dst, GError *src);

/* Resolves a data endpoint's table or alias (refreshing the catalog once on a
 * miss). Returns a reference. */
AbTableDesc *ab_engine_resolve (AbEngine *engine, const gchar *db, const gchar *name,
                                gchar **alias_out, GError **error);
gboolean ab_engine_insert_merge (AbEngine *engine, const gchar *db);

/* The key pool and its timer (pool.c): started with the engine, stopped
 * before the store closes. */
void ab_engine_pools_start (AbEngine *engine);
void ab_engine_pools_stop (AbEngine *engine);
/* Runs fn(item) on the key pool, now or after delay_ms (from the timer
 * thread; nothing waits meanwhile). fn must not wait for key-pool jobs. */
void ab_engine_key_pool_push (AbEngine *engine, void (*fn) (gpointer item), gpointer item);
void ab_engine_key_pool_push_after (AbEngine *engine, guint delay_ms, void (*fn) (gpointer item),
                                    gpointer item);

/* A request's write budget (write-budget-ms, apply.c) as a monotonic
 * deadline: 0 is none. TRUE once it has passed: no further store call of
 * the request starts. */
gboolean ab_engine_deadline_passed (gint64 deadline_us);

/* The entries of a due index (prefix || be64 due time || what is due) due
 * by now, at most max, in due order (the TTL sweep, the top-K refresh);
 * what is due starts plen + 8 bytes into each key. Store errors as they are. */
gboolean ab_engine_scan_due (AbEngine *engine, const guint8 *prefix, gsize plen, gint64 now,
                             guint max, GArray *out, GError **error);

/* Runs fn(items + i * size) for every i with wanted == NULL or wanted(item)
 * TRUE, concurrently on the engine's key pool (inline when only one). */
void ab_engine_parallel (AbEngine *engine, gpointer items, gsize size, guint n,
                         void (*fn) (gpointer item), gboolean (*wanted) (gconstpointer item));
/* The same for many small reads: the items split into at most
 * mutation_threads contiguous chunks, one pool job each, the first chunk run
 * by the caller (fewer thread wake-ups than one job per item). */
void ab_engine_parallel_chunked (AbEngine *engine, gpointer items, gsize size, guint n,
                                 void (*fn) (gpointer item));

/* The folder's other headers, reached through this one. */
#include "engine/core/predicate.h"
#include "engine/core/ulid.h"
