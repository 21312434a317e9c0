/* What a key's write puts in the store, the face of src/engine/plan to the
 * other engine folders: the rows of a transition (State, Index, Count, Group,
 * Cache; derive.h shares their derivation with the verifier) and TTL cells. */
#pragma once
#include "engine/core/core.h"
#include "engine/derive.h"
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

/* Value of an index/group/cache field of a state (property or system field
 * version/source/target); out is left null when absent. */
gboolean ab_engine_field_value (const AbTableDesc *t, const gchar *name, const AbValue *source,
                                const AbValue *target, const AbState *st, AbValue *out);

/* Records of one key: from before/after states into a batch; returns status. */
AbKeyStatus ab_engine_plan (const AbTableDesc *t, const AbValue *source, const AbValue *target,
                            const AbState *before, const AbState *after, AbBatch *batch,
                            GError **error);
