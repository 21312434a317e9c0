/* Repair: findings spooled to a temp file during the compare pass are
 * replayed after the snapshot is closed. Index rows and Cache cells are
 * re-derived from the live State inside a write transaction (lmdb, memory)
 * or under the edge's engine lock (hbase); Count rows and Group cells get the
 * difference as an increment (see verify.h); top-K rows are re-scored from
 * the live cells (rank.c). */
#include <string.h>
#include "verify/verify-private.h"
#include "codec/keys.h"
#include "codec/record.h"

enum { FOUND_ABSENT, FOUND_LONG, FOUND_MALFORMED };

typedef struct {
  guint8 cls;
  guint8 found_kind;
  guint8 unused[2];
  gint32 code;
  guint32 klen;
  guint32 unused2;
  gint64 expected;
  gint64 found;
} SpoolRec;

gboolean
ab_verify_spool_open (AbVerifyRun *run, GError **error)
{
  run->spool = ab_verify_temp_file (run->opts->tmpdir, &run->spool_buf, error);
  return run->spool != NULL;
}

gboolean
ab_verify_spool_add (AbVerifyRun *run, const AbVerifyTable *t, const AbMismatch *m)
{
  SpoolRec r = { .cls = (guint8) m->cls,
                 .code = t->desc->code,
                 .klen = (guint32) m->klen,
                 .expected = m->expected_count,
                 .found = m->found_count };
  r.found_kind = m->found == NULL ? FOUND_ABSENT : m->flen == 8 ? FOUND_LONG : FOUND_MALFORMED;
  return fwrite (&r, sizeof r, 1, run->spool) == 1
         && fwrite (m->key, 1, m->klen, run->spool) == m->klen;
}

/* ---- Index rows ---- */

/* The edge an Index key names: OUT (source, target) = (dsource, dtarget),
 * IN swapped, multi-edge id = dtarget (the key's last element). */
static gboolean
edge_of_index_key (const AbVerifyTable *t, const guint8 *key, gsize klen, AbValue *src,
                   AbValue *tgt)
{
  AbKeyParts parts;
  AbValue last = AB_VALUE_INIT;
  gint8 dir = 0;
  gint32 code;
  guint n = 0;
  gboolean ok;
  if (!ab_codec_parse_key (key, klen, &parts, NULL))
    return FALSE;
  gsize pos = parts.rest;
  ok = ab_codec_get_int8 (key, klen, &pos, &dir, NULL)
       && ab_codec_get_int32 (key, klen, &pos, &code, NULL);
  for (; ok && pos < klen; n++)
    {
      ab_value_clear (&last);
      ok = ab_codec_get_value (key, klen, &pos, &last, NULL, NULL);
    }
  ok = ok && n > 0 && (dir == AB_DIR_OUT || dir == AB_DIR_IN);
  if (ok && (t->multi || dir == AB_DIR_IN))
    {
      *src = last;
      if (!t->multi)
        *tgt = parts.source;
      else
        ab_value_clear (&parts.source);
    }
  else if (ok)
    {
      *src = parts.source;
      *tgt = last;
    }
  else
    {
      ab_value_clear (&last);
      ab_codec_key_parts_clear (&parts);
    }
  return ok;
}

/* A Cache cell key (index-shaped: fields then the directed target) the
 * live state implies, with its value. */
static gboolean
live_cache_value (const AbVerifyTable *t, const AbValue *src, const AbValue *tgt, const AbState *st,
                  const guint8 *key, gsize klen, GByteArray **value, GError **error)
{
  g_autoptr (GArray) cells = ab_wide_cell_array_new ();
  if (!ab_engine_cache_cells (t->desc, src, tgt, st, cells, error))
    return FALSE;
  for (guint i = 0; i < cells->len && *value == NULL; i++)
    {
      const AbWideCell *c = &g_array_index (cells, AbWideCell, i);
      gsize len, vlen;
      const guint8 *k = g_bytes_get_data (c->kv.key, &len);
      const guint8 *v = g_bytes_get_data (c->kv.value, &vlen);
      if (len == klen && memcmp (k, key, klen) == 0)
        *value = g_byte_array_append (g_byte_array_new (), v, vlen);
    }
  return TRUE;
}

/* The value the live State implies for key (an Index row or a Cache cell),
 * or *value = NULL if none. */
static gboolean
live_index_value (AbStore *reader, const AbVerifyTable *t, const AbValue *src, const AbValue *tgt,
                  const guint8 *key, gsize klen, GByteArray **value, GError **error)
{
  const AbSchema *schema = t->desc->schema;
  g_autoptr (GByteArray) sk = ab_codec_state_key (src, t->multi ? src : tgt, t->desc->code, error);
  g_autoptr (GBytes) stored = NULL;
  AbState st;
  gboolean ok = TRUE;
  *value = NULL;
  if (sk == NULL || !ab_store_get (reader, sk->data, sk->len, &stored, error))
    return FALSE;
  if (stored == NULL || t->vertex)
    return TRUE;
  gsize slen;
  const guint8 *sdata = g_bytes_get_data (stored, &slen);
  if (!ab_state_decode (schema, sdata, slen, &st, error))
    return FALSE;
  for (guint i = 0; ok && st.meta.active && *value == NULL && i < schema->indexes->len; i++)
    for (guint d = 0; ok && *value == NULL && d < t->n_dirs; d++)
      {
        g_autoptr (GByteArray) k = ab_engine_index_key (t->desc, schema->indexes->pdata[i], src,
                                                        tgt, &st, t->dirs[d], error);
        ok = k != NULL || error == NULL || *error == NULL;
        if (k == NULL || k->len != klen || memcmp (k->data, key, klen) != 0)
          continue;
        *value = g_byte_array_new ();
        ok = ab_engine_index_value (t->desc, &st, *value, error);
      }
  if (ok && st.meta.active && *value == NULL)
    ok = live_cache_value (t, src, tgt, &st, key, klen, value, error);
  ab_state_clear (&st);
  return ok;
}

/* One Index row or Cache cell to rewrite from the State it names. */
typedef struct {
  const AbVerifyTable *t;
  const AbValue *src, *tgt;
  const guint8 *key;
  gsize klen;
} Rewrite;

/* Puts the derived value into batch, or deletes the key. */
static gboolean
plan_rewrite (AbStore *reader, AbBatch *batch, gpointer data, GError **error)
{
  const Rewrite *rw = data;
  g_autoptr (GByteArray) value = NULL;
  if (!live_index_value (reader, rw->t, rw->src, rw->tgt, rw->key, rw->klen, &value, error))
    return FALSE;
  if (value != NULL)
    ab_batch_put (batch, rw->key, rw->klen, value->data, value->len);
  else
    ab_batch_delete (batch, rw->key, rw->klen);
  return TRUE;
}

/* Inside a write transaction where the store has them (no writer can come
 * between the read and the write), else under the edge lock. */
static gboolean
rewrite_index (AbVerifyRun *run, const AbVerifyTable *t, const AbValue *src, const AbValue *tgt,
               const guint8 *key, gsize klen, GError **error)
{
  AbStore *store = ab_engine_store (run->engine);
  Rewrite rw = { t, src, tgt, key, klen };
  if (ab_store_can_transact (store))
    return ab_store_transact (store, plan_rewrite, &rw, error);
  g_autoptr (GByteArray) lk = ab_codec_lock_key (src, t->multi ? src : tgt, t->desc->code, error);
  g_autoptr (GBytes) lock_key = NULL;
  g_autoptr (GBytes) token = NULL;
  g_autoptr (AbBatch) batch = ab_batch_new ();
  gboolean ok;
  if (lk == NULL)
    return FALSE;
  lock_key = g_bytes_new (lk->data, lk->len);
  if (!ab_engine_lock (run->engine, lock_key, &token, error))
    return FALSE;
  ok = plan_rewrite (store, batch, &rw, error) && ab_store_batch (store, batch, error);
  ab_engine_unlock (run->engine, lock_key, token, NULL);
  return ok;
}

static gboolean
repair_index (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key, gsize klen,
              GError **error)
{
  AbValue src = AB_VALUE_INIT, tgt = AB_VALUE_INIT;
  gboolean ok;
  AbKeyPeek p;
  if (ab_verify_peek (key, klen, &p) && ab_verify_is_topk_row (p.type))
    return ab_verify_topk_repair (run, t, key, klen, error);
  if (!edge_of_index_key (t, key, klen, &src, &tgt))
    return ab_store_delete (ab_engine_store (run->engine), key, klen, error); /* names no edge */
  ok = rewrite_index (run, t, &src, &tgt, key, klen, error);
  ab_value_clear (&src);
  ab_value_clear (&tgt);
  return ok;
}

/* ---- Count rows ---- */

/* *done = FALSE when deferred. */
static gboolean
repair_count (AbVerifyRun *run, const SpoolRec *r, const guint8 *key, gboolean *done,
              GError **error)
{
  AbStore *store = ab_engine_store (run->engine);
  guint8 be[8];
  if (r->found_kind == FOUND_MALFORMED)
    {
      ab_codec_put_be64 (be, r->expected);
      return ab_store_put (store, key, r->klen, be, 8, error);
    }
  if (!ab_store_batch_is_atomic (store))
    {
      g_autoptr (GBytes) live = NULL;
      if (!ab_store_get (store, key, r->klen, &live, error))
        return FALSE;
      gboolean same = live == NULL
                          ? r->found_kind == FOUND_ABSENT
                          : r->found_kind == FOUND_LONG && g_bytes_get_size (live) == 8
                                && ab_codec_get_be64 (g_bytes_get_data (live, NULL)) == r->found;
      *done = same;
      if (!same)
        return TRUE;
    }
  return ab_store_increment (store, key, r->klen, r->expected - r->found, NULL, error);
}

static void
repair_one (AbVerifyRun *run, const SpoolRec *r, const guint8 *key)
{
  const AbVerifyTable *t = ab_verify_lookup (run, r->code);
  g_autoptr (GError) local = NULL;
  gboolean ok, done = TRUE;
  switch (r->cls)
    {
      case AB_MISMATCH_INDEX_MISSING:
      case AB_MISMATCH_INDEX_STALE:
      case AB_MISMATCH_INDEX_ORPHAN:
        ok = t != NULL && repair_index (run, t, key, r->klen, &local);
        break;
      default:
        /* a repaired Group cell moves the scores of its top-K entries */
        ok = repair_count (run, r, key, &done, &local)
             && (!done || t == NULL
                 || ab_verify_topk_rescore_cell (
                     run, t, key, r->klen, r->found_kind == FOUND_LONG ? r->found : 0, &local));
        break;
    }
  if (ok && done)
    run->stats->repaired++;
  else if (ok)
    run->stats->repair_deferred++;
  else
    {
      run->stats->repair_failed++;
      g_warning ("verify: repair of a %s row failed: %s", ab_mismatch_class_name (r->cls),
                 local != NULL ? local->message : "unknown table");
    }
}

gboolean
ab_verify_repair (AbVerifyRun *run, GError **error)
{
  g_autoptr (GByteArray) key = g_byte_array_new ();
  SpoolRec r;
  run->phase = "repair";
  if (fflush (run->spool) != 0 || fseek (run->spool, 0, SEEK_SET) != 0)
    goto io;
  while (fread (&r, sizeof r, 1, run->spool) == 1)
    {
      g_byte_array_set_size (key, r.klen);
      if (r.klen > 0 && fread (key->data, 1, r.klen, run->spool) != r.klen)
        goto io;
      repair_one (run, &r, key->data);
    }
  if (!ferror (run->spool))
    return TRUE;
io:
  g_set_error_literal (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_IO,
                       "verify repair spool: read failed");
  return FALSE;
}
