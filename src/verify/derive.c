/* Pass 1 of the verifier: every State row of a checked table in the snapshot
 * is routed (does it, or any Index/Count row it implies, belong to this
 * shard's salt slice?), decoded if so, and its implied rows in the slice are
 * derived with the engine's own functions into the external sorter (Group
 * and Cache cells included); the stored group cells of ranked groups feed the
 * top-K rows (rank.c). */
#include <string.h>
#include "verify/verify-private.h"
#include "codec/keys.h"

/* Which of a State row's implied rows land in this slice, per direction. */
typedef struct {
  gboolean index[2];
  gboolean count[2];
  gboolean wide; /* Group/Cache cells: every shard derives, the key filter decides */
} Routes;

/* Salt of prefix(X, type) from X's encoded element (a slice of the State
 * key), without decoding X: xxhash32 of enc(X) || enc_int32(table) || enc_int8(type). */
static guint32
salt_of (const guint8 *elem, gsize len, const AbVerifyTable *t, AbRowType type)
{
  guint8 stack[256];
  gsize n = len + 7;
  guint8 *buf = n <= sizeof stack ? stack : g_malloc (n);
  guint32 h;
  memcpy (buf, elem, len);
  memcpy (buf + len, t->code_elem, 5);
  buf[len + 5] = AB_HDR_INT8;
  buf[len + 6] = (guint8) ((guint8) (gint8) type ^ 0x80);
  h = (guint32) ab_codec_hash (buf, n);
  if (buf != stack)
    g_free (buf);
  return h;
}

/* Unsharded or multi-edge (whose directed source is a property): derive all
 * and let the key filter decide. Otherwise the directed source of OUT is the
 * key's source element and that of IN the key's target element. */
static gboolean
route (const AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key, gsize klen,
       const AbKeyPeek *p, Routes *r)
{
  gboolean any = FALSE;
  gboolean has_index = t->desc->schema->indexes->len > 0;
  memset (r, 0, sizeof *r);
  if (t->vertex)
    return FALSE;
  r->wide = ab_verify_has_wide (t);
  any = r->wide;
  for (guint d = 0; d < t->n_dirs; d++)
    {
      if (!run->sharded || t->multi)
        {
          r->index[d] = has_index;
          r->count[d] = TRUE;
        }
      else
        {
          gboolean out = t->dirs[d] == AB_DIR_OUT;
          const guint8 *elem = out ? key + 4 : key + p->rest;
          gsize len = out ? p->src_end - 4 : klen - p->rest;
          r->index[d]
              = has_index && ab_verify_salt_in_slice (run, salt_of (elem, len, t, AB_ROW_INDEX));
          r->count[d] = ab_verify_salt_in_slice (run, salt_of (elem, len, t, AB_ROW_COUNT));
        }
      any = any || r->index[d] || r->count[d];
    }
  return any;
}

static void
report_corrupt (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key, gsize klen,
                const guint8 *val, gsize vlen, const gchar *why)
{
  AbMismatch m = { .cls = AB_MISMATCH_STATE_CORRUPT,
                   .key = key,
                   .klen = klen,
                   .found = val,
                   .flen = vlen,
                   .detail = why };
  ab_verify_emit (run, t, &m);
}

static gboolean
add_index_rows (AbVerifyRun *run, const AbVerifyTable *t, const AbValue *src, const AbValue *tgt,
                const AbState *st, AbDirection dir, GByteArray **value, GError **error)
{
  const AbSchema *schema = t->desc->schema;
  for (guint i = 0; i < schema->indexes->len; i++)
    {
      g_autoptr (GByteArray) k
          = ab_engine_index_key (t->desc, schema->indexes->pdata[i], src, tgt, st, dir, error);
      if (k == NULL && error != NULL && *error != NULL)
        return FALSE;
      if (k == NULL || !ab_verify_key_in_slice (run, k->data, k->len))
        continue;
      if (*value == NULL)
        {
          *value = g_byte_array_new ();
          if (!ab_engine_index_value (t->desc, st, *value, error))
            return FALSE;
        }
      if (!ab_sorter_add_index (run->sorter, k->data, k->len, (*value)->data, (*value)->len,
                                &run->error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
add_count_row (AbVerifyRun *run, const AbVerifyTable *t, const AbValue *src, const AbValue *tgt,
               const AbState *st, AbDirection dir, GError **error)
{
  const AbValue *dsrc, *dtgt;
  if (!ab_engine_directed (t->desc, src, tgt, st, dir, &dsrc, &dtgt))
    return TRUE;
  g_autoptr (GByteArray) k = ab_codec_count_key (dsrc, dir, t->desc->code, error);
  if (k == NULL)
    return FALSE;
  if (!ab_verify_key_in_slice (run, k->data, k->len))
    return TRUE;
  return ab_sorter_add_count (run->sorter, k->data, k->len, 1, &run->error);
}

/* Group cells (summed like counts; TTL groups skipped: expiry is not in
 * State) and Cache cells (like Index rows) of an active state, in the slice. */
static gboolean
add_wide_rows (AbVerifyRun *run, const AbVerifyTable *t, const AbValue *src, const AbValue *tgt,
               const AbState *st, GError **error)
{
  g_autoptr (GArray) cells = ab_wide_cell_array_new ();
  if (!ab_engine_group_cells (t->desc, src, tgt, st, 1, cells, error)
      || !ab_engine_cache_cells (t->desc, src, tgt, st, cells, error))
    return FALSE;
  for (guint i = 0; i < cells->len; i++)
    {
      const AbWideCell *c = &g_array_index (cells, AbWideCell, i);
      gsize klen, vlen;
      const guint8 *k = g_bytes_get_data (c->kv.key, &klen);
      if (!ab_verify_key_in_slice (run, k, klen) || (c->group != NULL && c->group->ttl > 0))
        continue;
      const guint8 *v = c->kv.value != NULL ? g_bytes_get_data (c->kv.value, &vlen) : NULL;
      if (!(c->group != NULL ? ab_sorter_add_count (run->sorter, k, klen, c->delta, &run->error)
                             : ab_sorter_add_index (run->sorter, k, klen, v, vlen, &run->error)))
        return FALSE;
    }
  return TRUE;
}

/* The rows an active state implies, in the routed directions. A failure to
 * build a key is the State row's fault (reported if owned); a sorter
 * failure stops the run (run->error). */
static gboolean
derive_rows (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key, gsize klen,
             const AbKeyPeek *p, const AbState *st, const Routes *r, gboolean owned,
             const guint8 *val, gsize vlen)
{
  AbValue src = AB_VALUE_INIT, tgt = AB_VALUE_INIT;
  g_autoptr (GByteArray) value = NULL;
  g_autoptr (GError) local = NULL;
  gsize pos = 4, tpos = p->rest;
  gboolean ok = ab_codec_get_value (key, klen, &pos, &src, NULL, &local)
                && (t->multi || ab_codec_get_value (key, klen, &tpos, &tgt, NULL, &local));
  for (guint d = 0; ok && d < t->n_dirs; d++)
    {
      ok = !r->index[d] || add_index_rows (run, t, &src, &tgt, st, t->dirs[d], &value, &local);
      ok = ok && (!r->count[d] || add_count_row (run, t, &src, &tgt, st, t->dirs[d], &local));
    }
  ok = ok && (!r->wide || add_wide_rows (run, t, &src, &tgt, st, &local));
  ab_value_clear (&src);
  ab_value_clear (&tgt);
  if (ok || run->error != NULL)
    return ok;
  if (owned)
    report_corrupt (run, t, key, klen, val, vlen, local != NULL ? local->message : "?");
  return TRUE;
}

static gboolean
derive_state (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key, gsize klen,
              const AbKeyPeek *p, const guint8 *val, gsize vlen)
{
  gboolean owned = ab_verify_salt_in_slice (run, p->salt);
  Routes r;
  gboolean any = route (run, t, key, klen, p, &r);
  AbState st;
  g_autoptr (GError) local = NULL;
  gboolean ok = TRUE;
  if (owned)
    run->stats->state_rows++;
  if (!any && !owned)
    return TRUE;
  run->stats->states_decoded++;
  if (!ab_state_decode (t->desc->schema, val, vlen, &st, &local))
    {
      if (owned)
        report_corrupt (run, t, key, klen, val, vlen, local->message);
      return TRUE;
    }
  if (st.meta.active && any)
    ok = derive_rows (run, t, key, klen, p, &st, &r, owned, val, vlen);
  ab_state_clear (&st);
  return ok;
}

static gboolean
derive_visit (const guint8 *key, gsize klen, const guint8 *val, gsize vlen, gpointer user)
{
  AbVerifyRun *run = user;
  AbKeyPeek p;
  ab_verify_tick (run);
  const AbVerifyTable *t = ab_verify_table_of (run, key, klen, &p);
  if (t == NULL || (p.type != AB_ROW_STATE && p.type != AB_ROW_GROUP))
    return TRUE;
  if (p.type == AB_ROW_GROUP)
    return ab_verify_topk_cell (run, t, key, klen, val, vlen);
  return derive_state (run, t, key, klen, &p, val, vlen);
}

gboolean
ab_verify_derive_pass (AbVerifyRun *run, GError **error)
{
  AbScanRange all = { 0 };
  run->phase = "derive";
  if (!ab_snapshot_scan (run->snap, &all, derive_visit, run, error))
    return FALSE;
  if (run->error == NULL)
    ab_verify_topk_flush (run);
  if (run->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&run->error));
      return FALSE;
    }
  return ab_sorter_finish (run->sorter, error);
}
