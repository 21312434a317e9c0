/* Top-K rankings inside the engine (docs/data-model.md §17.1): ranking
 * entries of group cells, their scores, their rank and score rows
 * (storage-format.md §4), shared by the write path, the read and the verifier. */
#pragma once
#include "engine/engine-private.h"
#include "engine/predicate.h"
#include "model/groups.h"

/* One ranking entry: a ranked value of one (entity, direction, segment). */
typedef struct {
  const AbGroup *group;
  const AbTopk *topk;
  GBytes *cells; /* group row || encD(segment values) || encD(ranked value): its cells' prefix */
  AbValue entity;
  AbDirection dir;
  AbValue *values; /* the segment values, then the ranked value */
  guint n_values;
  GPtrArray *suffix; /* the topk's constant ranges (AbPredicate*) */
} AbTopkEntry;

void ab_topk_entry_clear (AbTopkEntry *e);
GArray *ab_topk_entry_array_new (void); /* AbTopkEntry with clear func */

/* TRUE when a group of t defines a top-K. */
gboolean ab_topk_has_any (const AbTableDesc *t);
/* The constant ranges of k, typed by the group's fields. */
/* Predicates over the group's fields (typed as its cells), from text;
 * `what` names the parameter in errors. */
GPtrArray *ab_topk_group_predicates (const AbTableDesc *t, const AbGroup *g, const gchar *text,
                                     const gchar *what, GError **error);
GPtrArray *ab_topk_ranges (const AbTableDesc *t, const AbGroup *g, const AbTopk *k, GError **error);
/* Appends (once each) the entries whose score a change of the group cell
 * `key` can move; keys that are not group cells of a ranked group add none. */
gboolean ab_topk_entries_of_cell (const AbTableDesc *t, const guint8 *key, gsize len,
                                  GArray *entries, GError **error);
/* TRUE (with *out) when a stored row is a cell that counts for entry e. */
gboolean ab_topk_cell_value (const AbTopkEntry *e, const guint8 *key, gsize len, const guint8 *val,
                             gsize vlen, gint64 *out);
/* The score of e: the sum of its counting cells, read through reader. */
gboolean ab_topk_score (AbStore *reader, const AbTopkEntry *e, gint64 *score, GError **error);

/* Rank rows: prefix = row(entity, dir, -7, topk) || enc(segment values);
 * key = prefix || encD(int64 score) || enc(ranked value). Score row: row(…,
 * -8, topk) || enc(segment values) || enc(ranked value). Both valued
 * be64(score) || be64(ms of the computation). */
GByteArray *ab_topk_rank_prefix (const AbTableDesc *t, const AbTopkEntry *e, GError **error);
GByteArray *ab_topk_rank_key (const AbTableDesc *t, const AbTopkEntry *e, gint64 score,
                              GError **error);
GByteArray *ab_topk_score_key (const AbTableDesc *t, const AbTopkEntry *e, GError **error);
void ab_topk_value (guint8 out[16], gint64 score, gint64 now_ms);
/* Moves e from its old score (the stored score row's value, NULL when
 * absent) to `score`: the old rank row deleted, the new rank and score rows
 * put — or both removed when the score is 0. Nothing when unchanged. */
gboolean ab_topk_write_entry (const AbTableDesc *t, const AbTopkEntry *e, GBytes *old, gint64 score,
                              gint64 now_ms, AbBatch *out, GError **error);

/* The top-K of t whose code is `code`, with its group; NULL when none. */
const AbTopk *ab_topk_by_code (const AbTableDesc *t, gint32 code, const AbGroup **group);
/* Parses a rank or score key of t back into its entry (*e, to clear with
 * ab_topk_entry_clear); a rank key's score in *rank_score (nullable, 0 for a
 * score key). FALSE when the key is malformed or names no top-K of t. */
gboolean ab_topk_entry_of_row (const AbTableDesc *t, const guint8 *key, gsize len, AbTopkEntry *e,
                               gint64 *rank_score);
/* Re-scores e from the cells reader holds and rewrites its rows as the
 * stored score row `old` (NULL when absent) requires, putting them again when
 * the score did not move (a repair: the rank row may be the missing one). */
gboolean ab_topk_rewrite_entry (AbStore *reader, const AbTableDesc *t, const AbTopkEntry *e,
                                GBytes *old, gint64 now_ms, gint64 *score, AbBatch *out,
                                GError **error);

/* Re-scores every entry the group cells `cells` (GBytes*) belong to, read
 * through reader, plus deltas[i] for cells[i] when deltas is not NULL (the
 * increments of the batch being planned, not yet applied), and appends the
 * rank/score row changes to out. */
gboolean ab_engine_topk_plan (AbEngine *engine, AbStore *reader, const AbTableDesc *t,
                              GPtrArray *cells, GArray *deltas, AbBatch *out, GError **error);
