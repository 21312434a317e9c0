/* Expiry of TTL group cells on every store: an expiry sibling per cell
 * (cell || 0x00 -> BE64 ms) and a time-ordered expiry index under a reserved
 * prefix; the write-path restart of expired cells, and the sweep. */
#include <string.h>
#include "engine/plan/plan.h"

/* Reserved key space (byte 5 = 0x00 is never an element header, as the
 * catalog's): prefix || BE64(expiry rounded up to the second) || cell key. */
static const guint8 TTL_PREFIX[] = { 0, 0, 0, 0, 0, 'a', 'b', 't', 't', 'l', 0 };
#define TTL_ROUND_MS 1000

gboolean
ab_engine_ttl_live (GBytes *sibling, gint64 now_ms)
{
  if (sibling == NULL || g_bytes_get_size (sibling) != 8)
    return FALSE;
  return ab_codec_get_be64 (g_bytes_get_data (sibling, NULL)) > now_ms;
}

static GBytes *
sibling_key (const guint8 *cell, gsize len)
{
  guint8 *k = g_malloc (len + 1);
  memcpy (k, cell, len);
  k[len] = AB_WIDE_MARK;
  return g_bytes_new_take (k, len + 1);
}

/* The group of a cell key when it has a positive ttl, else NULL. */
static const AbGroup *
ttl_group (const AbTableDesc *t, GBytes *key)
{
  gsize len, row_len;
  const guint8 *k = g_bytes_get_data (key, &len);
  AbRowType type;
  gint32 code;
  if (!ab_codec_wide_parts (k, len, &type, &code, &row_len) || type != AB_ROW_GROUP)
    return NULL;
  const AbGroup *g = ab_schema_group_by_code (t->schema, code);
  return g != NULL && g->ttl > 0 ? g : NULL;
}

static void
put_expiry (AbBatch *post, GBytes *cell, GBytes *sib, gint64 expiry)
{
  guint8 v[8];
  ab_codec_put_be64 (v, expiry);
  gsize slen, clen;
  const guint8 *s = g_bytes_get_data (sib, &slen);
  const guint8 *c = g_bytes_get_data (cell, &clen);
  ab_batch_put (post, s, slen, v, sizeof v);
  g_autoptr (GByteArray) entry = g_byte_array_new ();
  g_byte_array_append (entry, TTL_PREFIX, sizeof TTL_PREFIX);
  guint8 when[8];
  gint64 rounded = (expiry / TTL_ROUND_MS + 1) * TTL_ROUND_MS;
  ab_codec_put_be64 (when, rounded);
  g_byte_array_append (entry, when, sizeof when);
  g_byte_array_append (entry, c, clen);
  ab_batch_put (post, entry->data, entry->len, v, sizeof v);
}

gboolean
ab_engine_ttl_plan (AbEngine *engine, AbStore *reader, const AbTableDesc *t, GPtrArray *keys,
                    AbBatch *pre, AbBatch *post, GError **error)
{
  g_autoptr (GPtrArray) cells = g_ptr_array_new ();
  g_autoptr (GPtrArray) sibs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) ttls = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint i = 0; i < keys->len; i++)
    {
      const AbGroup *g = ttl_group (t, keys->pdata[i]);
      if (g == NULL)
        continue;
      gsize len;
      const guint8 *k = g_bytes_get_data (keys->pdata[i], &len);
      g_ptr_array_add (cells, keys->pdata[i]);
      g_ptr_array_add (sibs, sibling_key (k, len));
      g_array_append_val (ttls, g->ttl);
    }
  if (cells->len == 0)
    return TRUE;
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GError *local = NULL;
  if (!ab_store_multi_get_shared (reader, sibs, rows, &local))
    return ab_engine_propagate (error, local), FALSE;
  gint64 now = ab_engine_now_ms (engine);
  for (guint i = 0; i < cells->len; i++)
    {
      gsize clen;
      const guint8 *c = g_bytes_get_data (cells->pdata[i], &clen);
      /* a missing sibling counts as expired: the cell predates its ttl */
      if (!ab_engine_ttl_live (g_array_index (rows, AbKv, i).value, now))
        ab_batch_delete (pre, c, clen);
      put_expiry (post, cells->pdata[i], sibs->pdata[i], now + g_array_index (ttls, gint64, i));
    }
  return TRUE;
}

/* One due entry: delete the cell if its sibling still says expired (both
 * compared with what was read, so a write racing the sweep wins). */
static gboolean
sweep_entry (AbEngine *engine, GBytes *cell, GBytes *sib, GBytes *cell_value, GBytes *sib_value,
             gint64 now, guint *removed, GError **error)
{
  if (sib_value == NULL || ab_engine_ttl_live (sib_value, now))
    return TRUE; /* swept already, or written again since (a later entry exists) */
  gsize slen, sl, clen, cl = 0;
  const guint8 *s = g_bytes_get_data (sib, &slen);
  const guint8 *sv = g_bytes_get_data (sib_value, &sl);
  const guint8 *c = g_bytes_get_data (cell, &clen);
  const guint8 *cv = cell_value != NULL ? g_bytes_get_data (cell_value, &cl) : NULL;
  gboolean applied = FALSE;
  if (!ab_store_check_and_delete (engine->store, s, slen, sv, sl, &applied, error))
    return FALSE;
  if (!applied || cv == NULL)
    return TRUE;
  if (!ab_store_check_and_delete (engine->store, c, clen, cv, cl, &applied, error))
    return FALSE;
  *removed += applied;
  return TRUE;
}

gboolean
ab_engine_ttl_sweep (AbEngine *engine, guint max, guint *removed, GError **error)
{
  gint64 now = ab_engine_now_ms (engine);
  const gsize stem = sizeof TTL_PREFIX + 8; /* what is due follows it */
  g_autoptr (GArray) entries = ab_kv_array_new ();
  *removed = 0;
  if (!ab_engine_scan_due (engine, TTL_PREFIX, sizeof TTL_PREFIX, now, max, entries, error))
    return FALSE;
  if (entries->len == 0)
    return TRUE;
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < entries->len; i++)
    {
      gsize len;
      const guint8 *e = g_bytes_get_data (g_array_index (entries, AbKv, i).key, &len);
      if (len <= stem)
        continue;
      g_ptr_array_add (keys, g_bytes_new (e + stem, len - stem));
      g_ptr_array_add (keys, sibling_key (e + stem, len - stem));
    }
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (keys->len > 0 && !ab_store_multi_get (engine->store, keys, rows, error))
    return FALSE;
  for (guint i = 0; i + 1 < keys->len; i += 2)
    if (!sweep_entry (engine, keys->pdata[i], keys->pdata[i + 1],
                      g_array_index (rows, AbKv, i).value, g_array_index (rows, AbKv, i + 1).value,
                      now, removed, error))
      return FALSE;
  g_autoptr (AbBatch) done = ab_batch_new ();
  for (guint i = 0; i < entries->len; i++)
    {
      gsize len;
      const guint8 *e = g_bytes_get_data (g_array_index (entries, AbKv, i).key, &len);
      ab_batch_delete (done, e, len);
    }
  return ab_store_batch (engine->store, done, error);
}
