/* Where a datastore key lives in an HBase table: narrow rows are the row with
 * family f / qualifier e, Group and Cache cells (composite row || qualifier)
 * are real qualifiers of their wide row (also told to change records:
 * ab_store_cell_coords). Builders of the Thrift structs, and the way back
 * from result cells to datastore keys. */
#include "store/hbase/hbase-private.h"

#include <string.h>

#include "codec/keys.h"

GByteArray *
ab_hb_bytes (const guint8 *data, gsize len)
{
  GByteArray *a = g_byte_array_sized_new ((guint) len);
  if (len > 0)
    g_byte_array_append (a, data, (guint) len);
  return a;
}

GByteArray *
ab_hb_text (const gchar *s)
{
  return ab_hb_bytes ((const guint8 *) s, strlen (s));
}

void
ab_hb_addr (const guint8 *key, gsize len, AbHbAddr *out)
{
  AbRowType type;
  gint32 code;
  gsize row_len;
  out->wide = ab_codec_wide_parts (key, len, &type, &code, &row_len);
  if (!out->wide && (row_len = ab_codec_sidecar_row_length (key, len)) > 0)
    out->wide = TRUE; /* a sidecar: a cell of the narrow row it follows */
  out->row = key;
  if (out->wide)
    {
      out->row_len = row_len;
      out->qual = key + row_len;
      out->qual_len = len - row_len;
    }
  else
    {
      out->row_len = len;
      out->qual = (const guint8 *) AB_HB_QUALIFIER;
      out->qual_len = strlen (AB_HB_QUALIFIER);
    }
}

void
ab_store_cell_coords (const guint8 *key, gsize klen, AbStoreCoord out[AB_STORE_COORDS])
{
  AbHbAddr a;
  ab_hb_addr (key, klen, &a);
  out[0] = (AbStoreCoord){ "family", (const guint8 *) AB_HB_FAMILY, strlen (AB_HB_FAMILY) };
  out[1] = (AbStoreCoord){ "qualifier", a.qual, a.qual_len };
  out[2] = (AbStoreCoord){ "row", a.row, a.row_len };
}

HbTColumn *
ab_hb_column_new (const AbHbAddr *a)
{
  HbTColumn *c = g_object_new (HB_TYPE_T_COLUMN, NULL);
  c->family = ab_hb_text (AB_HB_FAMILY);
  c->qualifier = ab_hb_bytes (a->qual, a->qual_len);
  c->__isset_qualifier = TRUE;
  return c;
}

/* The builders' start: where key lives into a, and its row as new bytes. */
static GByteArray *
row_of (const guint8 *key, gsize klen, AbHbAddr *a)
{
  ab_hb_addr (key, klen, a);
  return ab_hb_bytes (a->row, a->row_len);
}

HbTGet *
ab_hb_get_new (const guint8 *key, gsize klen)
{
  AbHbAddr a;
  HbTGet *g = g_object_new (HB_TYPE_T_GET, NULL);
  g->row = row_of (key, klen, &a);
  g_ptr_array_add (g->columns, ab_hb_column_new (&a));
  g->__isset_columns = TRUE;
  return g;
}

HbTPut *
ab_hb_put_new (const guint8 *key, gsize klen, const guint8 *value, gsize vlen)
{
  AbHbAddr a;
  HbTPut *p = g_object_new (HB_TYPE_T_PUT, NULL);
  p->row = row_of (key, klen, &a);
  HbTColumnValue *cv = g_object_new (HB_TYPE_T_COLUMN_VALUE, NULL);
  cv->family = ab_hb_text (AB_HB_FAMILY);
  cv->qualifier = ab_hb_bytes (a.qual, a.qual_len);
  cv->value = ab_hb_bytes (value, vlen);
  g_ptr_array_add (p->columnValues, cv);
  return p;
}

/* A narrow key deletes its whole row (no columns: docs/hbase-adapter.md §3.3); a
 * wide cell deletes every version of its one column. */
HbTDelete *
ab_hb_delete_new (const guint8 *key, gsize klen)
{
  AbHbAddr a;
  HbTDelete *d = g_object_new (HB_TYPE_T_DELETE, NULL);
  d->row = row_of (key, klen, &a);
  if (a.wide)
    {
      g_ptr_array_add (d->columns, ab_hb_column_new (&a));
      d->__isset_columns = TRUE;
      d->deleteType = HB_T_DELETE_TYPE_DELETE_COLUMNS;
      d->__isset_deleteType = TRUE;
    }
  return d;
}

void
ab_hb_increment_add (HbTIncrement *inc, const AbHbAddr *a, gint64 delta)
{
  HbTColumnIncrement *ci = g_object_new (HB_TYPE_T_COLUMN_INCREMENT, NULL);
  ci->family = ab_hb_text (AB_HB_FAMILY);
  ci->qualifier = ab_hb_bytes (a->qual, a->qual_len);
  ci->amount = delta;
  ci->__isset_amount = TRUE; /* else the server applies its default, +1 */
  g_ptr_array_add (inc->columns, ci);
}

HbTIncrement *
ab_hb_increment_new (const guint8 *key, gsize klen, gint64 delta, gboolean want_result)
{
  AbHbAddr a;
  HbTIncrement *inc = g_object_new (HB_TYPE_T_INCREMENT, NULL);
  inc->row = row_of (key, klen, &a);
  ab_hb_increment_add (inc, &a, delta);
  inc->returnResults = want_result;
  inc->__isset_returnResults = TRUE;
  return inc;
}

static gboolean
is_family (const HbTColumnValue *cv)
{
  return cv->family != NULL && cv->family->len == 1 && cv->family->data[0] == AB_HB_FAMILY[0];
}

GByteArray *
ab_hb_result_qualified (HbTResult *r, const guint8 *qual, gsize qual_len)
{
  if (r == NULL || r->columnValues == NULL)
    return NULL;
  for (guint i = 0; i < r->columnValues->len; i++)
    {
      HbTColumnValue *cv = g_ptr_array_index (r->columnValues, i);
      if (is_family (cv) && cv->qualifier != NULL && cv->qualifier->len == qual_len
          && (qual_len == 0 || memcmp (cv->qualifier->data, qual, qual_len) == 0))
        return cv->value;
    }
  return NULL;
}

GByteArray *
ab_hb_result_value (HbTResult *r)
{
  return ab_hb_result_qualified (r, (const guint8 *) AB_HB_QUALIFIER, strlen (AB_HB_QUALIFIER));
}

/* A cell is reported when its datastore key lies inside the range: HBase
 * bounds whole rows, the qualifiers of a wide row are bounded here. */
gboolean
ab_hb_key_in_range (const AbScanRange *rg, const guint8 *k, gsize klen)
{
  if (rg == NULL)
    return TRUE;
  if (rg->start != NULL)
    {
      gint c = ab_store_key_compare (k, klen, rg->start, rg->start_len);
      if (c < 0 || (c == 0 && !rg->start_inclusive))
        return FALSE;
    }
  if (rg->stop != NULL)
    {
      gint c = ab_store_key_compare (k, klen, rg->stop, rg->stop_len);
      if (c > 0 || (c == 0 && !rg->stop_inclusive))
        return FALSE;
    }
  return TRUE;
}

static GBytes *
cell_key (const guint8 *row, gsize row_len, const GByteArray *qual)
{
  guint8 *k = g_malloc (row_len + qual->len + 1);
  memcpy (k, row, row_len);
  if (qual->len > 0)
    memcpy (k + row_len, qual->data, qual->len);
  return g_bytes_new_take (k, row_len + qual->len);
}

guint
ab_hb_result_cells (HbTResult *r, const AbScanRange *range, guint cap, GArray *out)
{
  AbHbAddr a;
  guint n = 0;
  if (r == NULL || r->row == NULL || r->columnValues == NULL)
    return 0;
  ab_hb_addr (r->row->data, r->row->len, &a);
  if (!a.wide)
    {
      GByteArray *v = ab_hb_result_value (r);
      if (v == NULL || cap == 0 || !ab_hb_key_in_range (range, r->row->data, r->row->len))
        return 0;
      AbKv kv = { g_bytes_new (r->row->data, r->row->len), g_bytes_new (v->data, v->len) };
      g_array_append_val (out, kv);
      return 1;
    }
  /* A wide row: the row key itself parses as a Group/Cache key with an
   * empty qualifier part; every cell of family f is one datastore key,
   * in HBase's qualifier order (the composite keys' order). */
  for (guint i = 0; i < r->columnValues->len && n < cap; i++)
    {
      HbTColumnValue *cv = g_ptr_array_index (r->columnValues, i);
      if (!is_family (cv) || cv->qualifier == NULL || cv->value == NULL)
        continue;
      GBytes *key = cell_key (r->row->data, r->row->len, cv->qualifier);
      gsize klen;
      const guint8 *k = g_bytes_get_data (key, &klen);
      if (!ab_hb_key_in_range (range, k, klen))
        {
          g_bytes_unref (key);
          continue;
        }
      AbKv kv = { key, g_bytes_new (cv->value->data, cv->value->len) };
      g_array_append_val (out, kv);
      n++;
    }
  return n;
}

gsize
ab_hb_wire_size (gsize klen, gsize vlen)
{
  return klen + vlen + 48; /* struct, list and field headers, family and qualifier */
}
