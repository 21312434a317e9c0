/* The verifier's top-K rows (docs/data-model.md §17.1): pass 1 walks the
 * stored group cells of ranked groups in key order and derives each entry's
 * rank and score rows from their sum (a relative window at the verifier's
 * clock, or refreshAfterMillis before it); repair re-scores from live cells. */
#include <string.h>
#include "verify/verify-private.h"
#include "engine/topk/topk.h"
#include "codec/bytes.h"
#include "codec/keys.h"

gboolean
ab_verify_is_topk_row (gint8 type)
{
  return type == AB_ROW_TOPK_RANK || type == AB_ROW_TOPK_SCORE;
}

gboolean
ab_verify_topk_defined (const AbVerifyTable *t, const guint8 *key, gsize klen, const AbKeyPeek *p)
{
  gsize pos = p->rest;
  gint8 dir;
  gint32 code;
  const AbGroup *g;
  return ab_codec_get_int8 (key, klen, &pos, &dir, NULL)
         && ab_codec_get_int32 (key, klen, &pos, &code, NULL)
         && ab_topk_by_code (t->desc, code, &g) != NULL;
}

/* The rank and score rows of an entry (a cell entry has no score row), those
 * in the slice, valued be64(score). */
static gboolean
add_entry_rows (AbVerifyRun *run, const AbVerifyTable *t, const AbTopkEntry *e, gint64 score)
{
  guint8 v[8];
  if (score == 0)
    return TRUE; /* a zero score has no rows */
  ab_codec_put_be64 (v, score);
  g_autoptr (GByteArray) sk
      = ab_topk_entry_is_cell (e) ? NULL : ab_topk_score_key (t->desc, e, NULL);
  g_autoptr (GByteArray) rk = ab_topk_rank_key (t->desc, e, score, NULL);
  GByteArray *keys[2] = { sk, rk };
  for (guint i = 0; i < 2; i++)
    if (keys[i] != NULL && ab_verify_key_in_slice (run, keys[i]->data, keys[i]->len)
        && !ab_sorter_add_index (run->sorter, keys[i]->data, keys[i]->len, v, sizeof v,
                                 &run->error))
      return FALSE;
  return TRUE;
}

typedef struct {
  const AbTopkEntry *e;
  gint64 score;
} Sum;

static gboolean
sum_visit (const guint8 *key, gsize klen, const guint8 *val, gsize vlen, gpointer user)
{
  Sum *s = user;
  gint64 x;
  if (ab_topk_cell_value (s->e, key, klen, val, vlen, &x))
    s->score += x;
  return TRUE;
}

/* A relative window moves as time passes and the refresher follows it
 * within refreshAfterMillis: the stored score is accepted when it is the sum
 * under the window at the verifier's clock (e->at) or as it stood
 * refreshAfterMillis (default 1 s) before; else the first is expected. */
static gint64
relative_score (AbVerifyRun *run, const AbVerifyTable *t, const AbTopkEntry *e, gint64 score)
{
  gint64 since = e->at - ab_topk_refresh_bound (e->topk);
  g_autofree gchar *then = ab_topk_ranges_text_at (e->group, e->topk, since);
  g_autofree gchar *now = ab_topk_ranges_text_at (e->group, e->topk, e->at);
  if (then == NULL || now == NULL || g_str_equal (then, now))
    return score; /* the window has not moved lately: no refresh can be pending */
  g_autoptr (GByteArray) sk = ab_topk_score_key (t->desc, e, NULL);
  g_autoptr (GBytes) stored = NULL;
  if (sk == NULL || !ab_snapshot_get (run->snap, sk->data, sk->len, &stored, NULL))
    return score;
  gsize slen = 0;
  const guint8 *sv = stored != NULL ? g_bytes_get_data (stored, &slen) : NULL;
  gboolean found = slen >= 8;
  gint64 stored_score = found ? ab_codec_get_be64 (sv) : 0;
  if (stored_score == score)
    return score;
  AbTopkEntry before = *e;
  g_autoptr (GPtrArray) ranges = ab_topk_ranges_at (t->desc, e->group, e->topk, since, NULL);
  if (ranges == NULL)
    return score;
  before.suffix = ranges;
  Sum sum = { .e = &before };
  gsize plen;
  const guint8 *p = g_bytes_get_data (e->cells, &plen);
  AbScanRange cells;
  g_autoptr (GByteArray) stop = ab_codec_prefix_range (p, plen, &cells);
  if (!ab_snapshot_scan (run->snap, &cells, sum_visit, &sum, NULL))
    return score;
  if (sum.score == stored_score && (found || sum.score == 0))
    return sum.score; /* not refreshed yet, and not late */
  return score;
}

gboolean
ab_verify_topk_flush (AbVerifyRun *run)
{
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < run->rank_entries->len; i++)
    {
      const AbTopkEntry *e = &g_array_index (run->rank_entries, AbTopkEntry, i);
      gint64 score = g_array_index (run->rank_scores, gint64, i);
      if (ab_topk_is_relative (e->topk))
        score = relative_score (run, run->rank_table, e, score);
      ok = add_entry_rows (run, run->rank_table, e, score);
    }
  g_array_set_size (run->rank_entries, 0);
  g_array_set_size (run->rank_scores, 0);
  return ok;
}

/* An entry's cells share its prefix and are contiguous in key order: the
 * entries under way are complete when a cell outside their prefix comes. */
gboolean
ab_verify_topk_cell (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key, gsize klen,
                     const guint8 *val, gsize vlen)
{
  GArray *entries = run->rank_entries;
  if (!t->ranked)
    return TRUE;
  if (entries->len > 0)
    {
      gsize plen;
      const guint8 *prefix
          = g_bytes_get_data (g_array_index (entries, AbTopkEntry, 0).cells, &plen);
      if ((run->rank_table != t || klen < plen || memcmp (key, prefix, plen) != 0)
          && !ab_verify_topk_flush (run))
        return FALSE;
    }
  run->rank_table = t;
  /* ranges that no longer parse leave nothing derivable: the cell adds nothing */
  if (!ab_topk_entries_of_cell (t->desc, key, klen, ab_engine_now_ms (run->engine), entries, NULL))
    return TRUE;
  g_array_set_size (run->rank_scores, entries->len);
  for (guint i = 0; i < entries->len; i++)
    {
      gint64 x;
      if (ab_topk_cell_value (&g_array_index (entries, AbTopkEntry, i), key, klen, val, vlen, &x))
        g_array_index (run->rank_scores, gint64, i) += x;
    }
  return TRUE;
}

/* ---- repair ---- */

typedef struct {
  AbVerifyRun *run;
  const AbVerifyTable *t;
  GArray *entries;   /* AbTopkEntry to re-score */
  const guint8 *key; /* the rank or score row found, or NULL */
  gsize klen;
  gboolean rank; /* it is a rank row */
  gint64 before; /* a repaired cell's value before the repair, or 0 */
} Rescore;

/* Is key the row of e that a write at `score` leaves: its score row, or its
 * rank row at that score? Not when the score is 0, nor for a row of another
 * layout (the salt of the first top-K builds, storage-format.md §3, or the
 * score row of a cell entry). */
static gboolean
is_entry_row (const AbTableDesc *t, const AbTopkEntry *e, gint64 score, gboolean rank,
              const guint8 *key, gsize klen)
{
  if (score == 0 || (!rank && ab_topk_entry_is_cell (e)))
    return FALSE;
  g_autoptr (GByteArray) want
      = rank ? ab_topk_rank_key (t, e, score, NULL) : ab_topk_score_key (t, e, NULL);
  return want != NULL && want->len == klen && memcmp (want->data, key, klen) == 0;
}

static gboolean
plan_rescore (AbStore *reader, AbBatch *batch, gpointer data, GError **error)
{
  const Rescore *r = data;
  for (guint i = 0; i < r->entries->len; i++)
    {
      const AbTopkEntry *e = &g_array_index (r->entries, AbTopkEntry, i);
      g_autoptr (GByteArray) sk = ab_topk_score_key (r->t->desc, e, error);
      g_autoptr (GBytes) old = NULL;
      gint64 score;
      if (sk == NULL || !ab_store_get (reader, sk->data, sk->len, &old, error)
          || !ab_topk_rescore_entry (reader, r->t->desc, e, old, &score, batch, error))
        return FALSE;
      if (r->key != NULL && !is_entry_row (r->t->desc, e, score, r->rank, r->key, r->klen))
        ab_batch_delete (batch, r->key, r->klen);
      if (r->before != 0 && r->before != score && ab_topk_entry_is_cell (e))
        {
          /* the cell was this entry's score: its rank row stood there */
          g_autoptr (GByteArray) was = ab_topk_rank_key (r->t->desc, e, r->before, error);
          if (was == NULL)
            return FALSE;
          ab_batch_delete (batch, was->data, was->len);
        }
    }
  return TRUE;
}

/* Inside a write transaction where the store has them; on HBase read then
 * written (a write to the entry racing it is caught by the next run). */
static gboolean
rescore (AbVerifyRun *run, const Rescore *r, GError **error)
{
  AbStore *store = ab_engine_store (run->engine);
  if (ab_store_can_transact (store))
    return ab_store_transact (store, plan_rescore, (gpointer) r, error);
  g_autoptr (AbBatch) batch = ab_batch_new ();
  return plan_rescore (store, batch, (gpointer) r, error) && ab_store_batch (store, batch, error);
}

gboolean
ab_verify_topk_repair (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key, gsize klen,
                       GError **error)
{
  g_autoptr (GArray) entries = ab_topk_entry_array_new ();
  AbTopkEntry e;
  AbKeyPeek p;
  Rescore r = { .run = run, .t = t, .entries = entries, .key = key, .klen = klen };
  if (!ab_topk_entry_of_row (t->desc, key, klen, ab_engine_now_ms (run->engine), &e, NULL))
    return ab_store_delete (ab_engine_store (run->engine), key, klen, error); /* names no entry */
  g_array_append_val (entries, e);
  r.rank = ab_verify_peek (key, klen, &p) && p.type == AB_ROW_TOPK_RANK;
  return rescore (run, &r, error);
}

gboolean
ab_verify_topk_rescore_cell (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key,
                             gsize klen, gint64 before, GError **error)
{
  g_autoptr (GArray) entries = ab_topk_entry_array_new ();
  Rescore r = { .run = run, .t = t, .entries = entries, .before = before };
  if (!t->ranked)
    return TRUE;
  if (!ab_topk_entries_of_cell (t->desc, key, klen, ab_engine_now_ms (run->engine), entries, error))
    return FALSE;
  return entries->len == 0 || rescore (run, &r, error);
}
