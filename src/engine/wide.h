/* Group (-5) and Cache (-6) wide rows inside the engine: cells stored under
 * row || qualifier (their derivation from a State is in derive.h, shared with
 * the verifier), TTL expiry of group cells, cache trimming, maintenance. */
#pragma once
#include "engine/engine-private.h"
#include "model/groups.h"

/* Appends the group increments (merged per cell, zero dropped) and cache
 * puts/deletes of one key's transition to its batch. */
gboolean ab_engine_plan_wide (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                              const AbState *before, const AbState *after, AbBatch *batch,
                              GError **error);

/* The Group row key of (dsrc, dir) for group g; cells append a qualifier. */
GByteArray *ab_engine_group_row (const AbTableDesc *t, const AbGroup *g, const AbValue *dsrc,
                                 AbDirection dir, GError **error);

/* ---- TTL (ttl.c) ---- */

/* For the merged increments of a request on table t: reads the expiry
 * siblings of TTL cells through reader (the store, or a transaction view), appends to `pre` a delete of every cell that has
 * expired (so the increment restarts from zero) and to `post` the new
 * sibling and expiry-index entry of every touched cell. */
gboolean ab_engine_ttl_plan (AbEngine *engine, AbStore *reader, const AbTableDesc *t,
                             GPtrArray *keys, AbBatch *pre, AbBatch *post, GError **error);
/* TRUE when a TTL cell is live: its sibling value says expiry > now. */
gboolean ab_engine_ttl_live (GBytes *sibling, gint64 now_ms);
/* Removes expired cells found through the expiry index (one round of at
 * most `max` entries); *removed = cells deleted. */
gboolean ab_engine_ttl_sweep (AbEngine *engine, guint max, guint *removed, GError **error);

/* ---- caches (prune.c) ---- */

/* Remembers the cache rows a written batch put cells into (to trim). */
void ab_engine_cache_note (AbEngine *engine, const AbTableDesc *t, const AbBatch *b);
/* Trims every remembered row to limit + tolerance; *trimmed = cells deleted. */
gboolean ab_engine_cache_prune (AbEngine *engine, guint *trimmed, GError **error);

/* The maintenance thread (prune.c): cache trimming and the TTL sweep on
 * their intervals; started by ab_engine_open_store when either is > 0. */
void ab_engine_maint_start (AbEngine *engine);
void ab_engine_maint_stop (AbEngine *engine);

/* ---- cache reads (seek.c) ---- */

/* The top `limit` edges of the cache row of (start, dir), ranges as text
 * (checked here); falls back to the equivalent index when trimming left the
 * row short for the window. */
AbEdgeFrame *ab_engine_seek_row (AbEngine *engine, const AbTableDesc *t, const AbCache *c,
                                 const AbValue *start, AbQueryDirection dir, guint limit,
                                 const gchar *ranges, const gchar *offset, GError **error);
/* The cache of a table by name, or NULL + a 400 error naming the table. */
const AbCache *ab_engine_find_cache (const AbTableDesc *t, const gchar *name, GError **error);

/* ---- running functions over items on the key pool (pool.c) ---- */

/* Runs fn(items + i * size) for every i with wanted == NULL or wanted(item)
 * TRUE, concurrently on the engine's key pool (inline when only one). */
void ab_engine_parallel (AbEngine *engine, gpointer items, gsize size, guint n,
                         void (*fn) (gpointer item), gboolean (*wanted) (gconstpointer item));
/* The same for many small reads: the items split into at most
 * mutation_threads contiguous chunks, one pool job each, the first chunk run
 * by the caller (fewer thread wake-ups than one job per item). */
void ab_engine_parallel_chunked (AbEngine *engine, gpointer items, gsize size, guint n,
                                 void (*fn) (gpointer item));
