/* The hbase backend ("hbase://HOST:PORT/NAMESPACE?..."): the datastore seam's
 * reads, increments and check-and-set verbs as Thrift2 calls on one HBase
 * table (cells placed by hbase_cells.c), plus ping, call counters and the vtable. */
#include "store/hbase/hbase-private.h"

#include <string.h>

#define MULTI_GET_CHUNK 1000 /* keys per getMultiple */
#define SCAN_PAGE 1000       /* rows per getScannerResults */
#define SNAPSHOT_PAGE 5000   /* the same for whole-table reads (copy, backup, verifier) */

static GBytes *
to_bytes (GByteArray *a)
{
  return a ? g_bytes_new (a->data, a->len) : NULL;
}

/* ---- calls answered by one result (get, increment) ---- */

/* The value of key's own cell in a result. */
static GByteArray *
result_value_of (HbTResult *r, const guint8 *key, gsize klen)
{
  AbHbAddr a;
  ab_hb_addr (key, klen, &a);
  return ab_hb_result_qualified (r, a.qual, a.qual_len);
}

/* A call answered by one HbTResult (get, increment): its request, and the
 * result, made afresh for each attempt. */
typedef struct {
  AbHbStore *h;
  gpointer request; /* HbTGet (call_get) or HbTIncrement (call_increment) */
  HbTResult *result;
} ResultCall;

/* The result of an attempt, the last attempt's dropped. */
static HbTResult **
fresh_result (ResultCall *x)
{
  g_clear_object (&x->result);
  x->result = g_object_new (HB_TYPE_T_RESULT, NULL);
  return &x->result;
}

static gboolean
call_get (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  ResultCall *x = p;
  return hb_t_h_base_service_client_get (c, fresh_result (x), x->h->table_name, x->request, io,
                                         error);
}

static gboolean
call_increment (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  ResultCall *x = p;
  return hb_t_h_base_service_client_increment (c, fresh_result (x), x->h->table_name, x->request,
                                               io, error);
}

/* One ResultCall of request (consumed) through fn once the table exists;
 * *value: key's cell in its result, NULL when absent. */
static gboolean
run_result_call (AbHbStore *h, AbHbRpc rpc, gboolean idempotent, AbHbCallFn fn, gpointer request,
                 const guint8 *key, gsize klen, GBytes **value, GError **error)
{
  ResultCall x = { h, request, NULL };
  gboolean ok = ab_hb_ensure_table (h, error) && ab_hb_call (h, rpc, idempotent, fn, &x, error);
  if (ok)
    *value = to_bytes (result_value_of (x.result, key, klen));
  g_object_unref (request);
  g_clear_object (&x.result);
  return ok;
}

/* ---- get / multi_get ---- */

static gboolean
hb_get (AbStore *s, const guint8 *key, gsize klen, GBytes **value, GError **error)
{
  if (klen == 0) /* HBase has no empty row key: nothing can be stored there */
    return TRUE;
  return run_result_call ((AbHbStore *) s, AB_HB_RPC_GET, TRUE, call_get, ab_hb_get_new (key, klen),
                          key, klen, value, error);
}

typedef struct {
  AbHbStore *h;
  GPtrArray *tgets;   /* HbTGet */
  GPtrArray *results; /* HbTResult, same order */
} MultiCall;

static gboolean
call_get_multiple (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  MultiCall *x = p;
  g_clear_pointer (&x->results, g_ptr_array_unref);
  x->results = g_ptr_array_new_with_free_func (g_object_unref);
  return hb_t_h_base_service_client_get_multiple (c, &x->results, x->h->table_name, x->tgets, io,
                                                  error);
}

static void
multi_call_clear (MultiCall *x)
{
  g_clear_pointer (&x->tgets, g_ptr_array_unref);
  g_clear_pointer (&x->results, g_ptr_array_unref);
}

/* Results of the non-empty keys, in order, zipped back with every key. */
static gboolean
multi_collect (GPtrArray *keys, MultiCall *calls, GArray *out, GError **error)
{
  guint chunk = 0, at = 0;
  for (guint i = 0; i < keys->len; i++)
    {
      GBytes *k = g_ptr_array_index (keys, i);
      AbKv kv = { g_bytes_ref (k), NULL };
      if (g_bytes_get_size (k) > 0)
        {
          if (at == calls[chunk].tgets->len)
            chunk++, at = 0;
          if (calls[chunk].results == NULL || at >= calls[chunk].results->len)
            {
              g_bytes_unref (kv.key);
              g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                           "hbase getMultiple answered fewer rows than asked");
              return FALSE;
            }
          gsize klen;
          const guint8 *kd = g_bytes_get_data (k, &klen);
          kv.value = to_bytes (
              result_value_of (g_ptr_array_index (calls[chunk].results, at++), kd, klen));
        }
      g_array_append_val (out, kv);
    }
  return TRUE;
}

/* The only non-empty key of keys, or NULL when there are none or several. */
static GBytes *
single_key (GPtrArray *keys)
{
  GBytes *one = NULL;
  for (guint i = 0; i < keys->len; i++)
    {
      GBytes *k = g_ptr_array_index (keys, i);
      if (g_bytes_get_size (k) == 0)
        continue;
      if (one != NULL)
        return NULL;
      one = k;
    }
  return one;
}

/* keys into out in one getMultiple per 1000 non-empty keys (a plain get
 * for one). */
static gboolean
multi_get_now (AbHbStore *h, GPtrArray *keys, GArray *out, GError **error)
{
  AbStore *s = &h->base;
  GBytes *one = single_key (keys);
  if (one != NULL)
    {
      /* getMultiple of one row goes through the gateway's batch machinery
     * (hbase/README.md): a plain get answers several times sooner. */
      gsize klen;
      const guint8 *k = g_bytes_get_data (one, &klen);
      GBytes *value = NULL;
      if (!hb_get (s, k, klen, &value, error))
        return FALSE;
      for (guint i = 0; i < keys->len; i++)
        {
          GBytes *key = g_ptr_array_index (keys, i);
          AbKv kv = { g_bytes_ref (key), key == one ? g_steal_pointer (&value) : NULL };
          g_array_append_val (out, kv);
        }
      return TRUE;
    }
  guint n_calls = 0, max_calls = keys->len / MULTI_GET_CHUNK + 1;
  g_autofree MultiCall *calls = g_new0 (MultiCall, max_calls);
  g_autofree AbHbJob *jobs = NULL;
  gboolean ok;
  for (guint i = 0; i < keys->len; i++)
    {
      gsize klen;
      const guint8 *k = g_bytes_get_data (g_ptr_array_index (keys, i), &klen);
      if (klen == 0)
        continue;
      if (n_calls == 0 || calls[n_calls - 1].tgets->len == MULTI_GET_CHUNK)
        calls[n_calls++] = (MultiCall){ h, g_ptr_array_new_with_free_func (g_object_unref) };
      g_ptr_array_add (calls[n_calls - 1].tgets, ab_hb_get_new (k, klen));
    }
  if (n_calls > 0 && !ab_hb_ensure_table (h, error))
    ok = FALSE;
  else
    {
      jobs = g_new0 (AbHbJob, MAX (n_calls, 1));
      for (guint c = 0; c < n_calls; c++)
        jobs[c] = (AbHbJob){ AB_HB_RPC_GET_MULTIPLE, TRUE, call_get_multiple, &calls[c], NULL };
      ok = ab_hb_run_parallel (h, jobs, n_calls, error) && multi_collect (keys, calls, out, error);
    }
  for (guint c = 0; c < n_calls; c++)
    multi_call_clear (&calls[c]);
  return ok;
}

/* One caller's multi_get in a shared read (§3.9). */
typedef struct {
  GPtrArray *keys;
  GArray *out;
} GetOp;

/* The share's run: every caller's keys in one multi_get_now, each caller's
 * rows handed back in its own order. */
static void
run_gets (AbHbStore *h, gpointer *ops, guint n, GError **errors)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GError *error = NULL;
  for (guint i = 0; i < n; i++)
    g_ptr_array_extend (all, ((GetOp *) ops[i])->keys, NULL, NULL);
  if (!multi_get_now (h, all, rows, &error))
    {
      for (guint i = 0; i < n; i++)
        errors[i] = g_error_copy (error);
      g_error_free (error);
      return;
    }
  for (guint i = 0, at = 0; i < n; i++)
    {
      GetOp *op = ops[i];
      for (guint j = 0; j < op->keys->len; j++, at++)
        {
          AbKv *from = &g_array_index (rows, AbKv, at);
          AbKv kv = { g_steal_pointer (&from->key), g_steal_pointer (&from->value) };
          g_array_append_val (op->out, kv);
        }
    }
}

/* Queries' reads: at once, their own calls (latency first). */
static gboolean
hb_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error)
{
  return multi_get_now ((AbHbStore *) s, keys, out, error);
}

/* Mutations' reads: through the read share (calls first, §3.9). */
static gboolean
hb_multi_get_shared (AbStore *s, GPtrArray *keys, GArray *out, GError **error)
{
  AbHbStore *h = (AbHbStore *) s;
  GetOp op = { keys, out };
  guint wanted = 0;
  for (guint i = 0; i < keys->len; i++)
    wanted += g_bytes_get_size (keys->pdata[i]) > 0;
  if (wanted == 0)
    return multi_get_now (h, keys, out, error); /* no call */
  return ab_hb_ensure_table (h, error) && ab_hb_share_submit (h, h->reads, &op, error);
}

/* ---- scan ---- */

gboolean
ab_hb_call_scan (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  AbHbScanCall *x = p;
  g_clear_pointer (&x->results, g_ptr_array_unref);
  x->results = g_ptr_array_new_with_free_func (g_object_unref);
  return hb_t_h_base_service_client_get_scanner_results (c, &x->results, x->h->table_name, x->tscan,
                                                         x->rows, io, error);
}

/* HBase rows are [startRow, stopRow): an exclusive start and an inclusive
 * stop both become key || 0x00, the key's immediate successor. */
static GByteArray *
bound_row (const guint8 *key, gsize len, gboolean successor)
{
  GByteArray *a = ab_hb_bytes (key, len);
  if (successor)
    g_byte_array_append (a, (const guint8 *) "", 1);
  return a;
}

/* A bound inside a wide row scans from (or through) that whole row; its
 * qualifiers are bounded when the cells are unpacked (ab_hb_result_cells). */
static GByteArray *
row_bound (const guint8 *key, gsize len, gboolean inclusive, gboolean is_stop)
{
  AbHbAddr a;
  ab_hb_addr (key, len, &a);
  if (a.wide)
    return bound_row (a.row, a.row_len, is_stop);
  return bound_row (key, len, is_stop ? inclusive : !inclusive);
}

/* 'bytes' in the filter language: a quote inside is doubled. */
static void
append_quoted (GByteArray *out, const guint8 *data, gsize len)
{
  g_byte_array_append (out, (const guint8 *) "'", 1);
  for (gsize i = 0; i < len; i++)
    {
      g_byte_array_append (out, &data[i], 1);
      if (data[i] == '\'')
        g_byte_array_append (out, &data[i], 1);
    }
  g_byte_array_append (out, (const guint8 *) "'", 1);
}

/* A range inside one wide row (a cache read, an agg range) reads only its
 * qualifiers on the region server: ColumnRangeFilter. NULL otherwise. */
static GByteArray *
qualifier_filter (const AbScanRange *r)
{
  AbHbAddr a, b;
  if (r->start == NULL || r->stop == NULL)
    return NULL;
  ab_hb_addr (r->start, r->start_len, &a);
  ab_hb_addr (r->stop, r->stop_len, &b);
  if (!a.wide || !b.wide || b.qual_len == 0 || a.row_len != b.row_len
      || memcmp (a.row, b.row, a.row_len) != 0)
    return NULL;
  GByteArray *f = g_byte_array_new ();
  const gchar *open = "ColumnRangeFilter(";
  g_byte_array_append (f, (const guint8 *) open, strlen (open));
  append_quoted (f, a.qual, a.qual_len);
  const gchar *mid = r->start_inclusive ? ", true, " : ", false, ";
  g_byte_array_append (f, (const guint8 *) mid, strlen (mid));
  append_quoted (f, b.qual, b.qual_len);
  const gchar *end = r->stop_inclusive ? ", true)" : ", false)";
  g_byte_array_append (f, (const guint8 *) end, strlen (end));
  return f;
}

static HbTScan *
scan_new (const AbScanRange *r, gboolean *empty)
{
  HbTScan *sc = g_object_new (HB_TYPE_T_SCAN, NULL);
  *empty = FALSE;
  if (r->start != NULL && (r->start_len > 0 || !r->start_inclusive))
    {
      sc->startRow = row_bound (r->start, r->start_len, r->start_inclusive, FALSE);
      sc->__isset_startRow = TRUE;
    }
  if (r->stop != NULL)
    {
      sc->stopRow = row_bound (r->stop, r->stop_len, r->stop_inclusive, TRUE);
      sc->__isset_stopRow = TRUE;
      /* An empty stopRow would mean "to the end"; a start at or past the stop
     * is an empty window. */
      *empty = sc->stopRow->len == 0
               || (sc->startRow != NULL
                   && ab_store_key_compare (sc->startRow->data, sc->startRow->len,
                                            sc->stopRow->data, sc->stopRow->len)
                          >= 0);
    }
  /* No columns: every cell of the row (family f is the only one). */
  sc->filterString = qualifier_filter (r);
  sc->__isset_filterString = sc->filterString != NULL;
  return sc;
}

/* Appends the cells of up to `want` rows, at most `cap` of them; *more says
 * a next page may exist. */
static gboolean
scan_page (AbHbScanCall *x, guint want, guint cap, GArray *out, gboolean *more, GError **error)
{
  HbTResult *last = NULL;
  guint got = 0;
  x->rows = (gint32) want;
  x->tscan->caching = x->tscan->limit = (gint32) want;
  x->tscan->__isset_caching = x->tscan->__isset_limit = TRUE;
  if (!ab_hb_call (x->h, AB_HB_RPC_GET_SCANNER_RESULTS, TRUE, ab_hb_call_scan, x, error))
    return FALSE;
  for (guint i = 0; i < x->results->len && got < cap; i++)
    {
      HbTResult *r = g_ptr_array_index (x->results, i);
      got += ab_hb_result_cells (r, x->range, cap - got, out);
      if (r->row != NULL)
        last = r;
    }
  *more = x->results->len == want && last != NULL && got < cap;
  if (*more)
    {
      g_clear_pointer (&x->tscan->startRow, g_byte_array_unref);
      x->tscan->startRow = bound_row (last->row->data, last->row->len, TRUE);
      x->tscan->__isset_startRow = TRUE;
    }
  return TRUE;
}

static gboolean
hb_scan (AbStore *s, const AbScanRange *r, GArray *out, GError **error)
{
  AbHbStore *h = (AbHbStore *) s;
  gboolean empty, more = TRUE, ok = TRUE;
  guint got = 0;
  AbHbScanCall x = { h, r, scan_new (r, &empty), 0, NULL };
  if (!empty)
    ok = ab_hb_ensure_table (h, error);
  while (ok && !empty && more && (r->limit == 0 || got < r->limit))
    {
      guint before = out->len;
      guint want = r->limit == 0 ? SCAN_PAGE : MIN (r->limit - got, SCAN_PAGE);
      ok = scan_page (&x, want, r->limit == 0 ? G_MAXUINT : r->limit - got, out, &more, error);
      got += out->len - before;
    }
  g_clear_object (&x.tscan);
  g_clear_pointer (&x.results, g_ptr_array_unref);
  return ok;
}

/* ---- snapshots (the verifier) ----
 * A snapshot is a fixed maximum timestamp: scans read cells written at or
 * before it. Tables keep one version, so a row rewritten after the snapshot
 * is not seen at all (rather than in its old form): the verifier may then
 * report a difference that a re-check under the edge lock (repair) finds
 * settled. Rows deleted after the snapshot are gone too. */

typedef struct {
  AbSnapshot base;
  gint64 max_ts;
} HbSnapshot;

static AbSnapshot *
hb_snapshot_open (AbStore *s, GError **error)
{
  AbHbStore *h = (AbHbStore *) s;
  if (!ab_hb_ensure_table (h, error))
    return NULL;
  HbSnapshot *snap = g_new0 (HbSnapshot, 1);
  snap->base.store = s;
  snap->max_ts = g_get_real_time () / 1000;
  return &snap->base;
}

typedef struct {
  AbHbStore *h;
  const AbScanRange *range;
  HbTScan *tscan;
  gint32 rows;
  guint cap;
  AbHbPage page;
} PageCall;

static gboolean
call_page (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  PageCall *x = p;
  return ab_hb_scanner_results (c, x->h->table_name, x->tscan, x->rows, x->range, x->cap, &x->page,
                                io, error);
}

/* Whole-table reads (copy, backup, the verifier): pages of SNAPSHOT_PAGE
 * rows packed by hbase_decode.c, each visited once its call has returned
 * (a retried call never shows a row twice). */
static gboolean
hb_snapshot_scan (AbSnapshot *base, const AbScanRange *r, AbScanVisitor visit, gpointer user,
                  GError **error)
{
  HbSnapshot *snap = (HbSnapshot *) base;
  gboolean empty, more = TRUE, ok = TRUE, go_on = TRUE;
  guint got = 0;
  PageCall x = { (AbHbStore *) base->store, r, scan_new (r, &empty), 0, 0, { 0 } };
  /* The generated TScan comes with a TTimeRange of its own (released by its
   * finalize): set that one; replacing it leaked it. */
  HbTTimeRange *range = x.tscan->timeRange;
  range->minStamp = 0;
  range->maxStamp = snap->max_ts + 1; /* exclusive */
  x.tscan->__isset_timeRange = TRUE;
  ab_hb_page_init (&x.page);
  while (ok && go_on && !empty && more && (r->limit == 0 || got < r->limit))
    {
      guint want = r->limit == 0 ? SNAPSHOT_PAGE : MIN (r->limit - got, SNAPSHOT_PAGE);
      x.rows = (gint32) want;
      x.cap = r->limit == 0 ? G_MAXUINT : r->limit - got;
      x.tscan->caching = x.tscan->limit = (gint32) want;
      x.tscan->__isset_caching = x.tscan->__isset_limit = TRUE;
      ok = ab_hb_call (x.h, AB_HB_RPC_GET_SCANNER_RESULTS, TRUE, call_page, &x, error);
      if (!ok)
        break;
      more = x.page.results == want && x.page.have_last && x.page.ncells < x.cap;
      if (more)
        {
          g_clear_pointer (&x.tscan->startRow, g_byte_array_unref);
          x.tscan->startRow = bound_row (x.page.last_row->data, x.page.last_row->len, TRUE);
          x.tscan->__isset_startRow = TRUE;
        }
      gsize pos = 0, kl, vl;
      const guint8 *k, *v;
      while (go_on && ab_hb_page_next (&x.page, &pos, &k, &kl, &v, &vl))
        {
          go_on = visit (k, kl, v, vl, user);
          got++;
        }
    }
  g_clear_object (&x.tscan);
  ab_hb_page_clear (&x.page);
  return ok;
}

static void
hb_snapshot_close (AbSnapshot *snap)
{
  g_free (snap);
}

/* ---- increment ---- */

static gboolean
hb_increment (AbStore *s, const guint8 *key, gsize klen, gint64 delta, gint64 *new_value,
              GError **error)
{
  g_autoptr (GBytes) v = NULL;
  gsize len = 0;
  guint64 be = 0;
  if (!run_result_call ((AbHbStore *) s, AB_HB_RPC_INCREMENT, FALSE, call_increment,
                        ab_hb_increment_new (key, klen, delta, TRUE), key, klen, &v, error))
    return FALSE;
  const guint8 *d = v != NULL ? g_bytes_get_data (v, &len) : NULL;
  if (v != NULL && len == 8)
    {
      memcpy (&be, d, 8);
      *new_value = (gint64) GUINT64_FROM_BE (be);
      return TRUE;
    }
  if (v == NULL && delta == 0)
    {
      *new_value = 0; /* a zero increment of an absent cell writes nothing */
      return TRUE;
    }
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "hbase increment answered %s",
               v ? "a value that is not 8 bytes" : "no value");
  return FALSE;
}

/* ---- check-and-set ---- */

typedef struct {
  AbHbStore *h;
  GByteArray *row, *family, *qualifier, *expected;
  HbTPut *put;    /* checkAndPut */
  HbTDelete *del; /* checkAndDelete */
  gboolean applied;
} CasCall;

static gboolean
call_cas (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  CasCall *x = p;
  if (x->put != NULL)
    return hb_t_h_base_service_client_check_and_put (c, &x->applied, x->h->table_name, x->row,
                                                     x->family, x->qualifier, x->expected, x->put,
                                                     io, error);
  return hb_t_h_base_service_client_check_and_delete (c, &x->applied, x->h->table_name, x->row,
                                                      x->family, x->qualifier, x->expected, x->del,
                                                      io, error);
}

/* The check of key against expected, with put or del (owned by the call).
 * expected NULL goes out as an empty value: HBase then matches "absent or
 * empty" (docs/hbase-adapter.md §3.6); check columns never hold empty values. */
static void
cas_call_init (CasCall *x, AbHbStore *h, const guint8 *key, gsize klen, const guint8 *expected,
               gsize elen, HbTPut *put, HbTDelete *del)
{
  AbHbAddr a;
  ab_hb_addr (key, klen, &a);
  *x = (CasCall){ h,
                  ab_hb_bytes (a.row, a.row_len),
                  ab_hb_text (AB_HB_FAMILY),
                  ab_hb_bytes (a.qual, a.qual_len),
                  ab_hb_bytes (expected, expected ? elen : 0),
                  put,
                  del,
                  FALSE };
}

static void
cas_call_clear (CasCall *x)
{
  g_byte_array_unref (x->row);
  g_byte_array_unref (x->family);
  g_byte_array_unref (x->qualifier);
  g_byte_array_unref (x->expected);
  g_clear_object (&x->put);
  g_clear_object (&x->del);
}

static gboolean
run_cas (AbHbStore *h, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
         HbTPut *put, HbTDelete *del, gboolean *applied, GError **error)
{
  CasCall x;
  cas_call_init (&x, h, key, klen, expected, elen, put, del);
  gboolean ok = ab_hb_ensure_table (h, error)
                && ab_hb_call (h, put ? AB_HB_RPC_CHECK_AND_PUT : AB_HB_RPC_CHECK_AND_DELETE, FALSE,
                               call_cas, &x, error);
  *applied = ok && x.applied;
  cas_call_clear (&x);
  return ok;
}

/* The conditional deletes of a batch (AB_MUT_DELETE_IF), all at once over the
 * pool; a mismatch is not a failure. */
gboolean
ab_hb_delete_ifs (AbHbStore *h, GPtrArray *items, GError **error)
{
  g_autofree CasCall *calls = g_new0 (CasCall, MAX (items->len, 1));
  g_autofree AbHbJob *jobs = g_new0 (AbHbJob, MAX (items->len, 1));
  for (guint i = 0; i < items->len; i++)
    {
      const AbMutation *m = g_ptr_array_index (items, i);
      cas_call_init (&calls[i], h, m->key, m->klen, m->value, m->vlen, NULL,
                     ab_hb_delete_new (m->key, m->klen));
      jobs[i] = (AbHbJob){ AB_HB_RPC_CHECK_AND_DELETE, FALSE, call_cas, &calls[i], NULL };
    }
  gboolean ok = ab_hb_run_parallel (h, jobs, items->len, error);
  for (guint i = 0; i < items->len; i++)
    cas_call_clear (&calls[i]);
  return ok;
}

static gboolean
hb_check_and_put (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
                  const guint8 *value, gsize vlen, gboolean *applied, GError **error)
{
  return run_cas ((AbHbStore *) s, key, klen, expected, elen,
                  ab_hb_put_new (key, klen, value, vlen), NULL, applied, error);
}

/* expected NULL ("delete if absent") changes nothing: a read answers it. */
static gboolean
hb_check_and_delete (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
                     gboolean *applied, GError **error)
{
  if (expected == NULL)
    {
      g_autoptr (GBytes) cur = NULL;
      if (!hb_get (s, key, klen, &cur, error))
        return FALSE;
      *applied = cur == NULL;
      return TRUE;
    }
  return run_cas ((AbHbStore *) s, key, klen, expected, elen, NULL, ab_hb_delete_new (key, klen),
                  applied, error);
}

/* ---- ping, counters, lifetime ---- */

typedef struct {
  AbHbStore *h;
  HbTGet *tget;
  gboolean exists;
} ExistsCall;

static gboolean
call_exists (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  ExistsCall *x = p;
  return hb_t_h_base_service_client_exists (c, &x->exists, x->h->table_name, x->tget, io, error);
}

/* The table exists and its first region answers a read. */
static gboolean
hb_ping (AbStore *s, GError **error)
{
  AbHbStore *h = (AbHbStore *) s;
  ExistsCall x = { h, ab_hb_get_new ((const guint8 *) "", 1), FALSE };
  gboolean ok = ab_hb_ensure_table (h, error)
                && ab_hb_call (h, AB_HB_RPC_EXISTS, TRUE, call_exists, &x, error);
  g_clear_object (&x.tget);
  return ok;
}

static guint
hb_rpc_counts (AbStore *s, AbStoreRpcCount *out, guint max)
{
  AbHbStore *h = (AbHbStore *) s;
  guint n = MIN (max, (guint) AB_HB_RPC_COUNT);
  for (guint i = 0; i < n; i++)
    out[i] = (AbStoreRpcCount){ ab_hb_rpc_name (i),
                                atomic_load_explicit (&h->calls[i], memory_order_relaxed),
                                atomic_load_explicit (&h->errors[i], memory_order_relaxed),
                                atomic_load_explicit (&h->micros[i], memory_order_relaxed) };
  return n;
}

/* The shares' figures (§3.9): runs, and the callers they carried. */
static guint
hb_gauges (AbStore *s, AbStoreGauge *out, guint max)
{
  AbHbStore *h = (AbHbStore *) s;
  static const struct {
    const gchar *calls, *callers, *calls_help, *callers_help;
  } names[] = {
    { "actionbase_store_hbase_shared_reads_total",
      "actionbase_store_hbase_shared_read_callers_total",
      "Shared multi-row reads (one get or getMultiple each, docs/hbase-adapter.md 3.9).",
      "Callers (mutation requests, queries) whose rows those shared reads carried." },
    { "actionbase_store_hbase_shared_writes_total",
      "actionbase_store_hbase_shared_write_callers_total",
      "Shared write waves (one put/putMultiple, delete and increment per row each, 3.9).",
      "Batches (mutation requests, upkeep) whose rows those shared write waves carried." },
  };
  AbHbShare *shares[] = { h->reads, h->writes };
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (names) && n + 2 <= max; i++)
    {
      guint64 calls, callers;
      ab_hb_share_counts (shares[i], &calls, &callers);
      out[n++] = (AbStoreGauge){ names[i].calls, names[i].calls_help, AB_STORE_COUNTER, calls };
      out[n++]
          = (AbStoreGauge){ names[i].callers, names[i].callers_help, AB_STORE_COUNTER, callers };
    }
  return n;
}

static void
hb_close (AbStore *s)
{
  AbHbStore *h = (AbHbStore *) s;
  ab_hb_pool_clear (h);
  g_clear_pointer (&h->reads, ab_hb_share_free);
  g_clear_pointer (&h->writes, ab_hb_share_free);
  g_clear_pointer (&h->sidecars, ab_hb_share_free);
  g_clear_pointer (&h->table_name, g_byte_array_unref);
  g_clear_pointer (&h->addr, g_free);
  g_mutex_clear (&h->ready_lock);
  ab_hb_config_clear (&h->cfg);
  g_free (h);
}

static const AbStoreVTable hb_vtable = {
  .name = "hbase",
  .get = hb_get,
  .multi_get = hb_multi_get,
  .multi_get_shared = hb_multi_get_shared,
  .scan = hb_scan,
  .batch = ab_hb_batch,
  .increment = hb_increment,
  .check_and_put = hb_check_and_put,
  .check_and_delete = hb_check_and_delete,
  .close = hb_close,
  .ping = hb_ping,
  .rpc_counts = hb_rpc_counts,
  .gauges = hb_gauges,
  .snapshot_open = hb_snapshot_open,
  .snapshot_scan = hb_snapshot_scan,
  .snapshot_close = hb_snapshot_close,
  .scan_sidecars = ab_hb_scan_sidecars,
};

/* Connects lazily: opening never touches the network, so a process can
 * start while the gateway is down; the first call (or ping) connects and
 * creates the namespace and table if missing. */
/* Registers the generated types (their get_type is not thread-safe). */
void hb_types_ensure (void);
static gsize types_ready;

AbStore *
ab_store_hbase_open (const gchar *uri, const gchar *rest, GError **error)
{
  AbHbStore *h = g_new0 (AbHbStore, 1);
  h->base.vt = &hb_vtable;
  h->base.batch_atomic = FALSE;
  h->base.max_key = AB_STORE_HBASE_MAX_KEY;
  h->base.sidecars_in_row = TRUE; /* qualifiers of the row (hbase_cells.c) */
  g_mutex_init (&h->ready_lock);
  if (!ab_hb_config_parse (&h->cfg, uri, rest, error))
    {
      hb_close (&h->base);
      return NULL;
    }
  if (g_once_init_enter (&types_ready))
    {
      hb_types_ensure ();
      ab_hb_thrift_fix_classes (); /* libthrift's transports leak 32 bytes each */
      g_once_init_leave (&types_ready, 1);
    }
  h->table_name = strcmp (h->cfg.ns, "default") == 0 ? ab_hb_text (h->cfg.table)
                                                     : ab_hb_bytes ((const guint8 *) "", 0);
  if (h->table_name->len == 0)
    {
      g_autofree gchar *full = g_strdup_printf ("%s:%s", h->cfg.ns, h->cfg.table);
      g_byte_array_append (h->table_name, (const guint8 *) full, strlen (full));
    }
  h->addr = strchr (h->cfg.host, ':') ? g_strdup_printf ("[%s]:%u", h->cfg.host, h->cfg.port)
                                      : g_strdup_printf ("%s:%u", h->cfg.host, h->cfg.port);
  ab_hb_pool_init (h);
  h->reads = ab_hb_share_new (h->cfg.share, h->cfg.share_wait_us, run_gets);
  h->writes = ab_hb_share_new (h->cfg.share, h->cfg.share_wait_us, ab_hb_batch_run);
  h->sidecars = ab_hb_share_new (h->cfg.share, h->cfg.share_wait_us, ab_hb_batch_run);
  return &h->base;
}
