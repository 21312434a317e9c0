/* Pass 2 of the verifier: the stored Index, Count, Group, Cache and top-K rows
 * of the slice, in key order, merge-joined with the sorted derived stream; each
 * side's leftovers and each disagreement become findings. Also the report line. */
#include <string.h>
#include "verify/verify-private.h"
#include "codec/bytes.h"
#include "codec/keys.h"
#include "codec/record.h"

static gboolean
advance (AbVerifyRun *run)
{
  gboolean more = FALSE;
  if (!ab_sorter_next (run->sorter, &run->head, &more, &run->error))
    return FALSE;
  run->has_head = more;
  if (more && run->head.kind == AB_DERIVED_INDEX)
    run->stats->derived_index++;
  else if (more)
    run->stats->derived_count++;
  return TRUE;
}

/* A derived Cache cell at or past its row's boundary: trimming removed it,
 * which is not a mismatch (the row only has to be complete below it). */
static gboolean
trimmed (const AbVerifyRun *run, const guint8 *key, gsize klen)
{
  const GByteArray *b = run->cache_bound;
  return b != NULL && klen >= run->cache_row_len && memcmp (key, b->data, run->cache_row_len) == 0
         && ab_store_key_compare (key, klen, b->data, b->len) >= 0;
}

/* Stored Group/Cache keys the comparison leaves alone: TTL groups (their
 * cells expire, State cannot say when), expiry siblings, groups or caches
 * no longer defined, and the cache boundary marker (*marker). */
static gboolean
skip_wide (const AbVerifyTable *t, const guint8 *key, gsize klen, gboolean *marker)
{
  AbRowType type;
  gint32 code;
  gsize row_len, pos;
  *marker = FALSE;
  if (!ab_codec_wide_parts (key, klen, &type, &code, &row_len))
    return FALSE; /* malformed: compared, hence an orphan */
  if (type == AB_ROW_CACHE)
    {
      *marker = klen == row_len + 1 && key[row_len] == AB_WIDE_MARK;
      return *marker || ab_schema_cache_by_code (t->desc->schema, code) == NULL;
    }
  const AbGroup *g = ab_schema_group_by_code (t->desc->schema, code);
  if (g == NULL || g->ttl > 0)
    return TRUE;
  pos = row_len;
  for (guint i = 0; i < g->n_fields; i++)
    if (!ab_codec_skip (key, klen, &pos, NULL))
      return FALSE;
  return pos + 1 == klen && key[pos] == AB_WIDE_MARK;
}

/* The marker of a cache row: its cells from row || value on may be trimmed. */
static void
set_bound (AbVerifyRun *run, const guint8 *key, gsize klen, const guint8 *val, gsize vlen)
{
  g_clear_pointer (&run->cache_bound, g_byte_array_unref);
  run->cache_bound = g_byte_array_new ();
  run->cache_row_len = klen - 1;
  g_byte_array_append (run->cache_bound, key, klen - 1);
  g_byte_array_append (run->cache_bound, val, vlen);
}

/* The head has no stored row. */
static void
emit_missing (AbVerifyRun *run)
{
  const AbDerived *d = &run->head;
  AbMismatch m = { .key = d->key, .klen = d->klen };
  if (trimmed (run, d->key, d->klen))
    return;
  if (d->kind == AB_DERIVED_INDEX)
    {
      m.cls = AB_MISMATCH_INDEX_MISSING;
      m.expected = d->value;
      m.elen = d->vlen;
    }
  else
    {
      m.cls = AB_MISMATCH_COUNT_MISSING;
      m.expected_count = d->count;
    }
  ab_verify_emit (run, ab_verify_table_of (run, d->key, d->klen, NULL), &m);
}

/* The head and a stored row share a key. */
static void
compare_row (AbVerifyRun *run, const AbVerifyTable *t, const AbKeyPeek *p, const guint8 *val,
             gsize vlen)
{
  const AbDerived *d = &run->head;
  AbMismatch m = { .key = d->key, .klen = d->klen, .found = val, .flen = vlen };
  if (d->kind == AB_DERIVED_INDEX)
    {
      /* a rank or score row is be64(score) || be64(ms): the score is compared */
      gboolean topk = ab_verify_is_topk_row (p->type);
      if (topk ? vlen == 16 && memcmp (val, d->value, d->vlen) == 0
               : vlen == d->vlen && (vlen == 0 || memcmp (val, d->value, vlen) == 0))
        return;
      m.cls = AB_MISMATCH_INDEX_STALE;
      m.expected = d->value;
      m.elen = d->vlen;
    }
  else
    {
      if (vlen == 8 && ab_codec_get_be64 (val) == d->count)
        return;
      m.cls = AB_MISMATCH_COUNT_WRONG;
      m.expected_count = d->count;
      m.found_count = vlen == 8 ? ab_codec_get_be64 (val) : 0;
    }
  ab_verify_emit (run, t, &m);
}

/* Index rows, Cache cells and top-K rows are compared by value. */
static gboolean
index_like (gint8 type)
{
  return type == AB_ROW_INDEX || type == AB_ROW_CACHE || ab_verify_is_topk_row (type);
}

/* A stored row that nothing derived: an orphan, unless a Count row of 0. */
static void
emit_orphan (AbVerifyRun *run, const AbVerifyTable *t, const AbKeyPeek *p, const guint8 *key,
             gsize klen, const guint8 *val, gsize vlen)
{
  AbMismatch m = { .key = key, .klen = klen, .found = val, .flen = vlen };
  if (index_like (p->type))
    m.cls = AB_MISMATCH_INDEX_ORPHAN;
  else
    {
      if (vlen == 8 && ab_codec_get_be64 (val) == 0)
        return;
      m.cls = AB_MISMATCH_COUNT_ORPHAN;
      m.found_count = vlen == 8 ? ab_codec_get_be64 (val) : 0;
    }
  ab_verify_emit (run, t, &m);
}

/* Derived rows before key have no stored row: missing (or trimmed). */
static gboolean
drain_before (AbVerifyRun *run, const guint8 *key, gsize klen, gint *c)
{
  while (run->has_head
         && (*c = ab_store_key_compare (run->head.key, run->head.klen, key, klen)) < 0)
    {
      emit_missing (run);
      if (!advance (run))
        return FALSE;
    }
  return TRUE;
}

static gboolean
compare_visit (const guint8 *key, gsize klen, const guint8 *val, gsize vlen, gpointer user)
{
  AbVerifyRun *run = user;
  AbKeyPeek p;
  gint c = 1;
  gboolean marker;
  ab_verify_tick (run);
  const AbVerifyTable *t = ab_verify_table_of (run, key, klen, &p);
  if (t == NULL || p.type < AB_ROW_TOPK_SCORE || p.type > AB_ROW_COUNT || p.type == AB_ROW_STATE)
    return TRUE;
  if (ab_verify_is_topk_row (p.type) && !ab_verify_topk_defined (t, key, klen, &p))
    return TRUE; /* a top-K no longer defined: left alone, like its group */
  if ((p.type == AB_ROW_GROUP || p.type == AB_ROW_CACHE) && skip_wide (t, key, klen, &marker))
    {
      if (marker && !drain_before (run, key, klen, &c))
        return FALSE;
      if (marker)
        set_bound (run, key, klen, val, vlen);
      return TRUE;
    }
  if (index_like (p.type))
    run->stats->index_rows++;
  else
    run->stats->count_rows++;
  if (!drain_before (run, key, klen, &c))
    return FALSE;
  if (run->has_head && c == 0)
    {
      compare_row (run, t, &p, val, vlen);
      return advance (run);
    }
  emit_orphan (run, t, &p, key, klen, val, vlen);
  return TRUE;
}

gboolean
ab_verify_compare_pass (AbVerifyRun *run, GError **error)
{
  guint8 start[4], stop[4];
  AbScanRange slice
      = { .start = start, .start_len = 4, .start_inclusive = TRUE, .stop = stop, .stop_len = 4 };
  for (guint i = 0; i < 4; i++)
    {
      start[i] = (guint8) (run->lo >> (24 - 8 * i));
      stop[i] = (guint8) (run->hi >> (24 - 8 * i));
    }
  if (run->hi > G_MAXUINT32)
    slice.stop = NULL;
  run->phase = "compare";
  if (!advance (run))
    goto failed;
  if (!ab_snapshot_scan (run->snap, &slice, compare_visit, run, error))
    return FALSE;
  while (run->error == NULL && run->has_head)
    {
      emit_missing (run);
      if (!advance (run))
        break;
    }
failed:
  if (run->error == NULL)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&run->error));
  return FALSE;
}

/* ---- report lines ---- */

static void
json_string (GString *out, const gchar *s)
{
  g_string_append_c (out, '"');
  for (; *s != '\0'; s++)
    {
      guchar c = (guchar) *s;
      if (c == '"' || c == '\\')
        g_string_append_printf (out, "\\%c", c);
      else if (c < 0x20)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_c (out, (gchar) c);
    }
  g_string_append_c (out, '"');
}

static void
json_hex (GString *out, const guint8 *buf, gsize len)
{
  g_autofree gchar *hex = buf != NULL ? ab_codec_hex (buf, len) : NULL;
  if (hex == NULL)
    g_string_append (out, "null");
  else
    g_string_append_printf (out, "\"%s\"", hex);
}

static gboolean
is_count_class (AbMismatchClass cls)
{
  return cls == AB_MISMATCH_COUNT_MISSING || cls == AB_MISMATCH_COUNT_WRONG
         || cls == AB_MISMATCH_COUNT_ORPHAN;
}

/* {"table","class","key","expected","found"[,"error"]}: Index values and
 * undecodable rows as hex, counts as numbers (a malformed count as hex),
 * null where there is nothing. */
void
ab_verify_report_line (FILE *f, const AbMismatch *m)
{
  g_autoptr (GString) line = g_string_new ("{\"table\":");
  json_string (line, m->table);
  g_string_append_printf (line, ",\"class\":\"%s\",\"key\":", ab_mismatch_class_name (m->cls));
  json_hex (line, m->key, m->klen);
  g_string_append (line, ",\"expected\":");
  if (is_count_class (m->cls))
    g_string_append_printf (line, "%" G_GINT64_FORMAT, m->expected_count);
  else
    json_hex (line, m->expected, m->elen);
  g_string_append (line, ",\"found\":");
  if (is_count_class (m->cls) && m->found != NULL && m->flen == 8)
    g_string_append_printf (line, "%" G_GINT64_FORMAT, m->found_count);
  else
    json_hex (line, m->found, m->flen);
  if (m->detail != NULL)
    {
      g_string_append (line, ",\"error\":");
      json_string (line, m->detail);
    }
  g_string_append (line, "}\n");
  fwrite (line->str, 1, line->len, f);
}
