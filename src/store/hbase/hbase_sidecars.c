/* The table-wide sweep for sidecar cells (ab_store_scan_sidecars): one
 * scanner over the whole table whose ColumnPrefixFilter keeps only
 * qualifiers 0xFF..., so region servers send back nothing but the intents
 * and receipts beside Lock and Count rows (docs/storage-format.md §6.1). */
#include "store/hbase/hbase-private.h"

#include <string.h>

#include "codec/keys.h"

#define SWEEP_PAGE 1000 /* rows per getScannerResults */

/* The sidecar cells of one result as datastore keys (row || qualifier); a
 * 0xFF qualifier of a wide row is data, not a sidecar, and is skipped. */
static gboolean
visit_result (HbTResult *r, AbScanVisitor visit, gpointer user)
{
  g_autoptr (GByteArray) key = g_byte_array_new ();
  if (r->row == NULL || r->columnValues == NULL)
    return TRUE;
  for (guint i = 0; i < r->columnValues->len; i++)
    {
      HbTColumnValue *cv = g_ptr_array_index (r->columnValues, i);
      if (cv->family == NULL || cv->family->len != 1 || cv->family->data[0] != AB_HB_FAMILY[0]
          || cv->qualifier == NULL || cv->value == NULL)
        continue;
      g_byte_array_set_size (key, 0);
      g_byte_array_append (key, r->row->data, r->row->len);
      g_byte_array_append (key, cv->qualifier->data, cv->qualifier->len);
      if (ab_codec_sidecar_row_length (key->data, key->len) != r->row->len)
        continue;
      if (!visit (key->data, key->len, cv->value->data, cv->value->len, user))
        return FALSE;
    }
  return TRUE;
}

gboolean
ab_hb_scan_sidecars (AbStore *s, AbScanVisitor visit, gpointer user, GError **error)
{
  AbHbStore *h = (AbHbStore *) s;
  AbHbScanCall x = { h, NULL, g_object_new (HB_TYPE_T_SCAN, NULL), SWEEP_PAGE, NULL };
  static const guint8 filter[] = "ColumnPrefixFilter('\xff')";
  x.tscan->filterString = ab_hb_bytes (filter, sizeof filter - 1);
  x.tscan->__isset_filterString = TRUE;
  x.tscan->caching = x.tscan->limit = SWEEP_PAGE;
  x.tscan->__isset_caching = x.tscan->__isset_limit = TRUE;
  gboolean ok = ab_hb_ensure_table (h, error), more = TRUE;
  while (ok && more)
    {
      ok = ab_hb_call (h, AB_HB_RPC_GET_SCANNER_RESULTS, TRUE, ab_hb_call_scan, &x, error);
      if (!ok)
        break;
      HbTResult *last = NULL;
      for (guint i = 0; i < x.results->len && more; i++)
        {
          last = g_ptr_array_index (x.results, i);
          more = visit_result (last, visit, user);
        }
      more = more && x.results->len == SWEEP_PAGE && last != NULL && last->row != NULL;
      if (more)
        {
          /* the next page starts just after the last row: row || 0x00 */
          g_clear_pointer (&x.tscan->startRow, g_byte_array_unref);
          x.tscan->startRow = ab_hb_bytes (last->row->data, last->row->len);
          g_byte_array_append (x.tscan->startRow, (const guint8 *) "", 1);
          x.tscan->__isset_startRow = TRUE;
        }
    }
  g_clear_object (&x.tscan);
  g_clear_pointer (&x.results, g_ptr_array_unref);
  return ok;
}
