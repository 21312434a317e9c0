/* Upkeep, the face of src/engine/upkeep to the engine's open and close:
 * the maintenance thread (cache trimming, TTL sweep, top-K refresh) and the
 * async applier that tails the WAL. Not for use outside src/engine. */
#pragma once
#include "engine/core/core.h"

/* ---- caches (prune.c) ---- */

/* Trims every noted cache row (write/cache_note.c) to limit + tolerance;
 * *trimmed = cells deleted. */
gboolean ab_engine_cache_prune (AbEngine *engine, guint *trimmed, GError **error);

/* The maintenance thread (prune.c): cache trimming and the TTL sweep on
 * their intervals; started by ab_engine_open_store when either is > 0. */
void ab_engine_maint_start (AbEngine *engine);
void ab_engine_maint_stop (AbEngine *engine);

/* ---- the async applier (applier.c) ---- */
gboolean ab_engine_applier_start (AbEngine *engine, GError **error);
void ab_engine_applier_stop (AbEngine *engine);
void ab_engine_applier_metrics (AbEngine *engine, GString *out);
