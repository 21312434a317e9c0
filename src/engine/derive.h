/* What the engine derives from a State row, declared for the consistency
 * verifier (src/verify) as for the write path: the Index, Count, Group and
 * Cache rows an active state implies, the edge lock, and the engine's store. */
#pragma once
#include "engine/engine.h"
#include "engine/core/state.h"
#include "catalog/catalog.h"
#include "codec/keys.h"
#include "model/groups.h"
#include "store/store.h"

/* The store the engine reads and writes (borrowed). */
AbStore *ab_engine_store (AbEngine *engine);

/* Directed endpoints of a state for an index/count row (multi-edge aware):
 * fills borrowed pointers to values inside key/state. FALSE if absent. */
gboolean ab_engine_directed (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                             const AbState *st, AbDirection dir, const AbValue **dsrc,
                             const AbValue **dtgt);
/* Directions a table maintains: fills dirs[0..n). */
guint ab_engine_directions (const AbTableDesc *t, AbDirection dirs[2]);

/* Index row key and value for an active state (NULL key when not indexable). */
GByteArray *ab_engine_index_key (const AbTableDesc *t, const AbIndex *idx, const AbValue *source,
                                 const AbValue *target, const AbState *st, AbDirection dir,
                                 GError **error);
gboolean ab_engine_index_value (const AbTableDesc *t, const AbState *st, GByteArray *out,
                                GError **error);
/* The same appended to an AbBuf: the key is skipped (nothing appended, TRUE)
 * when the state is not indexable; on failure out is as it was. */
gboolean ab_engine_index_key_buf (const AbTableDesc *t, const AbIndex *idx, const AbValue *source,
                                  const AbValue *target, const AbState *st, AbDirection dir,
                                  AbBuf *out, GError **error);
gboolean ab_engine_index_value_buf (const AbTableDesc *t, const AbState *st, AbBuf *out,
                                    GError **error);

/* Lock protocol (docs/data-model.md §6) with the retries slept through, for tools
 * off the request path (the verifier's repair runs on its own threads). */
gboolean ab_engine_lock (AbEngine *engine, GBytes *lock_key, GBytes **token, GError **error);
/* TRUE when the lock row held token and is gone; FALSE with error unset when
 * it no longer held token, with error set when the call failed (logged). */
gboolean ab_engine_unlock (AbEngine *engine, GBytes *lock_key, GBytes *token, GError **error);

/* A byte no element header can be (headers are 0x05..0x36 and their NOTs):
 * row || 0x00 is a cache row's boundary marker (it sorts before every cell),
 * cell || 0x00 is a TTL group cell's expiry sibling (right after its cell). */
#define AB_WIDE_MARK 0x00

/* One derived cell: a row to write (key row || qualifier; value: cache
 * cells' ab_engine_index_value of the state, NULL for group cells), group
 * cells with a delta. */
typedef struct {
  AbKv kv;              /* first: cleared by ab_kv_clear */
  gint64 delta;         /* group cells */
  const AbGroup *group; /* the definition it came from (one is set) */
  const AbCache *cache;
} AbWideCell;

GArray *ab_wide_cell_array_new (void); /* AbWideCell with clear func */

/* The group cells an active state contributes, each with sign x (1 for COUNT,
 * the valueField cast to long for SUM), zero contributions skipped; groups
 * with a positive ttl are included (the verifier skips them: expiry is not
 * derivable from State). */
gboolean ab_engine_group_cells (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                                const AbState *st, gint64 sign, GArray *out, GError **error);
/* The cache cells (key and value) an active state contributes. */
gboolean ab_engine_cache_cells (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                                const AbState *st, GArray *out, GError **error);
