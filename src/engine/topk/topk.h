/* Top-K rankings inside the engine (docs/data-model.md §17.1): ranking
 * entries of group cells, their scores, their rank and score rows
 * (storage-format.md §4), shared by the write path, the read and the verifier
 * (part of the engine's internal layer: it names no engine-private type). */
#pragma once
#include "engine/derive.h"
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
  GPtrArray *suffix; /* the topk's ranges (AbPredicate*), relative bounds resolved at `at` */
  gint64 at;         /* ms: the instant the window was resolved (relative windows) */
} AbTopkEntry;

void ab_topk_entry_clear (AbTopkEntry *e);
/* TRUE when e's score is one cell's value, kept in no score row: its ranked
 * field is its group's last field (its cells prefix is a whole cell key) and
 * its ranges are constant (data-model.md §17.1). */
gboolean ab_topk_entry_is_cell (const AbTopkEntry *e);
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
 * `key` can move, their windows resolved at now_ms; keys that are not group
 * cells of a ranked group add none. */
gboolean ab_topk_entries_of_cell (const AbTableDesc *t, const guint8 *key, gsize len, gint64 now_ms,
                                  GArray *entries, GError **error);
/* Decodes a group cell key of g: entity (moved in), direction, the
 * qualifier's values (g->n_fields, to clear) and where each element ends. */
gboolean ab_topk_decode_cell (const AbGroup *g, const guint8 *k, gsize len, AbValue *entity,
                              AbDirection *dir, AbValue *values, gsize *ends);
/* Do the decoded values of a cell of g satisfy ranges? */
gboolean ab_topk_cell_matches (const AbGroup *g, GPtrArray *ranges, const AbValue *values);
/* TRUE (with *out) when a stored row is a cell that counts for entry e. */
gboolean ab_topk_cell_value (const AbTopkEntry *e, const guint8 *key, gsize len, const guint8 *val,
                             gsize vlen, gint64 *out);
/* The score of e: the sum of its counting cells, read through reader. */
gboolean ab_topk_score (AbStore *reader, const AbTopkEntry *e, gint64 *score, GError **error);

/* ---- windows relative to now (topk_window.c) ---- */
#define AB_TOPK_REFRESH_DEFAULT_MS 1000 /* refreshAfterMillis when not given (or <= 0) */
#define AB_TOPK_REFRESH_MIN_MS 10
/* TRUE when k's ranges hold a bound relative to now. */
gboolean ab_topk_is_relative (const AbTopk *k);
/* How stale a relative ranking may be: refreshAfterMillis, or the default. */
gint64 ab_topk_refresh_bound (const AbTopk *k);
/* The ranges of k with its relative bounds resolved at now_ms (each the
 * bucket text of now ± offset, in the field's bucket). */
GPtrArray *ab_topk_ranges_at (const AbTableDesc *t, const AbGroup *g, const AbTopk *k,
                              gint64 now_ms, GError **error);
/* The same as text (constant items, then the resolved relative ones); NULL
 * when a bound falls outside the calendar. */
gchar *ab_topk_ranges_text_at (const AbGroup *g, const AbTopk *k, gint64 now_ms);
/* The cells of one entry, noted one by one, give the next instant after
 * e->at at which one of them starts or stops counting under e's window. */
typedef struct _AbTopkWindow AbTopkWindow;
AbTopkWindow *ab_topk_window_new (const AbTableDesc *t, const AbTopkEntry *e); /* NULL: constant */
void ab_topk_window_free (AbTopkWindow *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbTopkWindow, ab_topk_window_free)
void ab_topk_window_note (AbTopkWindow *w, const guint8 *key, gsize len);
gint64 ab_topk_window_next (AbTopkWindow *w); /* G_MAXINT64: never */
/* The score of e and (when w is not NULL) every cell noted in w. */
gboolean ab_topk_score_window (AbStore *reader, const AbTopkEntry *e, AbTopkWindow *w,
                               gint64 *score, GError **error);
/* Due row: 00000000 00 "abtopk" 00 || be64(due) || the entry's score key,
 * valued be64(due) (storage-format.md §10): the refresher re-scores the
 * entry once its clock reaches `due`. */
GByteArray *ab_topk_due_key (const AbTableDesc *t, const AbTopkEntry *e, gint64 due,
                             GError **error);
GByteArray *ab_topk_due_key_of (const guint8 *score_key, gsize len, gint64 due);
/* Puts e's due row for `next` into out (nothing when next is G_MAXINT64). */
gboolean ab_topk_put_due (const AbTableDesc *t, const AbTopkEntry *e, gint64 next, AbBatch *out,
                          GError **error);
/* Re-scores e from every cell (its window at e->at) and moves its rows from
 * `old` (the stored score row, NULL when absent), putting them again when
 * the score did not move (a repair); for a relative window also puts the due
 * row of the next change. */
gboolean ab_topk_rescore_entry (AbStore *reader, const AbTableDesc *t, const AbTopkEntry *e,
                                GBytes *old, gint64 *score, AbBatch *out, GError **error);
/* The refresher: re-scores up to `max` entries whose due rows are at or
 * before the engine's clock (fewer when none is left) and records their
 * next due rows; *refreshed = the entries re-scored. */
gboolean ab_engine_topk_refresh (AbEngine *engine, guint max, guint *refreshed, GError **error);
/* How often the background refresher runs: the smallest refresh bound of a
 * relative ranking, at most AB_TOPK_REFRESH_DEFAULT_MS; 0 when there is none. */
guint ab_engine_topk_refresh_ms (AbEngine *engine);

/* Rank rows: prefix = row(entity, dir, -7, topk) || enc(segment values);
 * key = prefix || encD(int64 score) || enc(ranked value). Score row (entries
 * that are not cell entries): row(…, -8, topk) || enc(segment values) ||
 * enc(ranked value). Both valued be64(score) || be64(ms of the computation). */
GByteArray *ab_topk_rank_prefix (const AbTableDesc *t, const AbTopkEntry *e, GError **error);
GByteArray *ab_topk_rank_key (const AbTableDesc *t, const AbTopkEntry *e, gint64 score,
                              GError **error);
GByteArray *ab_topk_score_key (const AbTableDesc *t, const AbTopkEntry *e, GError **error);
void ab_topk_value (guint8 out[16], gint64 score, gint64 now_ms);
/* Moves e from its old score (the stored score row's value, NULL when
 * absent) to `score`: the old rank row deleted, the new rank and score rows
 * put — or both removed when the score is 0. Nothing when unchanged. A cell
 * entry has no score row: only its rank row is put (old is then NULL). */
gboolean ab_topk_write_entry (const AbTableDesc *t, const AbTopkEntry *e, GBytes *old, gint64 score,
                              gint64 now_ms, AbBatch *out, GError **error);

/* The top-K of t whose code is `code`, with its group; NULL when none. */
const AbTopk *ab_topk_by_code (const AbTableDesc *t, gint32 code, const AbGroup **group);
/* Parses a rank or score key of t back into its entry (*e, to clear with
 * ab_topk_entry_clear); a rank key's score in *rank_score (nullable, 0 for a
 * score key). FALSE when the key is malformed or names no top-K of t. */
gboolean ab_topk_entry_of_row (const AbTableDesc *t, const guint8 *key, gsize len, gint64 now_ms,
                               AbTopkEntry *e, gint64 *rank_score);

/* Re-scores every entry the group cells `cells` (GBytes*) belong to, read
 * through reader, and appends the rank/score row changes to out. deltas[i]
 * (nullable) is the increment of cells[i] in this batch: not yet applied
 * (`applied` FALSE: inside the write transaction, the scores start from the
 * stored score rows and cells, and the deltas are added), or already written
 * (`applied`: after HBase's batch, the cells read are the new scores, and a
 * cell entry's old rank row is at the cell's value minus its delta). The
 * cells are folded per entry first: one score row read (one multi-get for
 * all) and at most one rank row move per entry, whatever the number of its
 * cells in the batch. */
gboolean ab_engine_topk_plan (AbEngine *engine, AbStore *reader, const AbTableDesc *t,
                              GPtrArray *cells, GArray *deltas, gboolean applied, AbBatch *out,
                              GError **error);
