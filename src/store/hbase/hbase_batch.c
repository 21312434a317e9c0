/* The hbase backend's batch: folds the ordered mutations into one final
 * operation per key (the batches of callers sharing the call, §3.9, in
 * arrival order), then sends every put in putMultiple calls and every delete
 * in deleteMultiple calls (split under the gateway's frame limit) and one
 * increment call per row (all its cells), all at once over the pool;
 * conditional deletes follow as check-and-deletes once those succeeded.
 * Not atomic. */
#include "store/hbase/hbase-private.h"
#include "codec/keys.h"

#include <string.h>

/* Half the gateway's default 2 MB frame cap (docs/hbase-adapter.md §5). */
#define MAX_CALL_BYTES (1u << 20)

typedef enum { OP_PUT, OP_DELETE, OP_INCREMENT } OpKind;

typedef struct {
  GBytes *key;
  OpKind kind;
  GBytes *value;  /* OP_PUT */
  gint64 delta;   /* OP_INCREMENT */
  guint64 owners; /* bit i: the i-th batch of a shared run wants it */
} KeyOp;

static void
key_op_clear (gpointer p)
{
  KeyOp *op = p;
  g_clear_pointer (&op->key, g_bytes_unref);
  g_clear_pointer (&op->value, g_bytes_unref);
}

static GBytes *
counter_bytes (gint64 v)
{
  guint64 be = GUINT64_TO_BE ((guint64) v);
  return g_bytes_new (&be, 8);
}

/* An increment after a put or delete of the same key in the same batch is
 * folded into the put, as an ordered store would have applied it. */
static gboolean
fold_increment (KeyOp *op, gint64 delta, GError **error)
{
  guint64 cur = 0;
  switch (op->kind)
    {
      case OP_INCREMENT: op->delta = (gint64) ((guint64) op->delta + (guint64) delta); return TRUE;
      case OP_DELETE:
        op->kind = OP_PUT;
        op->value = counter_bytes (delta);
        return TRUE;
      case OP_PUT:
        if (g_bytes_get_size (op->value) != 8)
          {
            g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_WIDTH,
                         "increment of a %zu-byte value (counters are 8-byte big-endian)",
                         g_bytes_get_size (op->value));
            return FALSE;
          }
        memcpy (&cur, g_bytes_get_data (op->value, NULL), 8);
        g_bytes_unref (op->value);
        op->value = counter_bytes ((gint64) (GUINT64_FROM_BE (cur) + (guint64) delta));
        return TRUE;
    }
  return FALSE;
}

static gboolean
fold (KeyOp *op, const AbMutation *m, GError **error)
{
  switch (m->kind)
    {
      case AB_MUT_PUT:
        g_clear_pointer (&op->value, g_bytes_unref);
        op->kind = OP_PUT;
        op->value = g_bytes_new_static (m->value, m->vlen); /* the batch outlives the ops */
        return TRUE;
      case AB_MUT_DELETE:
        g_clear_pointer (&op->value, g_bytes_unref);
        op->kind = OP_DELETE;
        return TRUE;
      case AB_MUT_INCREMENT:
      case AB_MUT_ADD: return fold_increment (op, m->delta, error);
      case AB_MUT_DELETE_IF: /* sent apart (ab_hb_batch) */ return TRUE;
    }
  return FALSE;
}

/* One KeyOp per distinct key, in order of first appearance; conditional
 * deletes are left to the caller. */
static GArray *
collapse (const AbBatch *b, GError **error)
{
  GArray *ops = g_array_new (FALSE, TRUE, sizeof (KeyOp));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  g_array_set_clear_func (ops, key_op_clear);
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      if (m->kind == AB_MUT_DELETE_IF)
        continue;
      g_autoptr (GBytes) key = g_bytes_new_static (m->key, m->klen);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (seen, key));
      if (at == 0)
        {
          KeyOp op = { g_bytes_ref (key), OP_INCREMENT, NULL, 0 };
          g_array_append_val (ops, op);
          at = ops->len;
          g_hash_table_insert (seen, op.key, GUINT_TO_POINTER (at));
        }
      if (!fold (&g_array_index (ops, KeyOp, at - 1), m, error))
        {
          g_array_unref (ops);
          return NULL;
        }
    }
  return ops;
}

/* ---- calls ---- */

typedef struct {
  AbHbStore *h;
  GPtrArray *items;  /* HbTPut or HbTDelete */
  GPtrArray *result; /* deleteMultiple's (always empty) answer */
  HbTIncrement *inc;
  HbTResult *inc_result;
  guint64 owners; /* the batches whose ops ride in this call */
} BatchCall;

static gboolean
call_put_multiple (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  BatchCall *x = p;
  return hb_t_h_base_service_client_put_multiple (c, x->h->table_name, x->items, io, error);
}

static gboolean
call_put (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  BatchCall *x = p;
  return hb_t_h_base_service_client_put (c, x->h->table_name, x->items->pdata[0], io, error);
}

static gboolean
call_delete_single (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  BatchCall *x = p;
  return hb_t_h_base_service_client_delete_single (c, x->h->table_name, x->items->pdata[0], io,
                                                   error);
}

static gboolean
call_delete_multiple (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  BatchCall *x = p;
  g_clear_pointer (&x->result, g_ptr_array_unref);
  x->result = g_ptr_array_new_with_free_func (g_object_unref);
  return hb_t_h_base_service_client_delete_multiple (c, &x->result, x->h->table_name, x->items, io,
                                                     error);
}

static gboolean
call_increment (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error)
{
  BatchCall *x = p;
  g_clear_object (&x->inc_result);
  x->inc_result = g_object_new (HB_TYPE_T_RESULT, NULL);
  return hb_t_h_base_service_client_increment (c, &x->inc_result, x->h->table_name, x->inc, io,
                                               error);
}

static void
batch_call_clear (BatchCall *x)
{
  g_clear_pointer (&x->items, g_ptr_array_unref);
  g_clear_pointer (&x->result, g_ptr_array_unref);
  g_clear_object (&x->inc);
  g_clear_object (&x->inc_result);
}

/* Adds op to the open multi call of its kind, opening a new one when the
 * open one would pass the frame budget. */
static void
add_to_multi (AbHbStore *h, GArray *calls, GArray *jobs, gint *open, gsize *bytes, AbHbRpc rpc,
              gpointer item, gsize size, guint64 owners)
{
  if (*open < 0 || (*bytes + size > MAX_CALL_BYTES && *bytes > 0))
    {
      BatchCall x = { h, g_ptr_array_new_with_free_func (g_object_unref) };
      AbHbJob job
          = { rpc, TRUE, rpc == AB_HB_RPC_PUT_MULTIPLE ? call_put_multiple : call_delete_multiple };
      g_array_append_val (calls, x);
      g_array_append_val (jobs, job);
      *open = (gint) calls->len - 1;
      *bytes = 0;
    }
  g_ptr_array_add (g_array_index (calls, BatchCall, *open).items, item);
  g_array_index (calls, BatchCall, *open).owners |= owners;
  *bytes += size;
}

/* An increment of a cell whose row already has one in this batch joins it:
 * a Group row's buckets go in one call. */
static void
add_increment (AbHbStore *h, GArray *calls, GArray *jobs, GHashTable *inc_rows, const KeyOp *op)
{
  AbHbAddr a;
  gsize klen;
  const guint8 *k = g_bytes_get_data (op->key, &klen);
  ab_hb_addr (k, klen, &a);
  g_autoptr (GBytes) row = g_bytes_new (a.row, a.row_len);
  gpointer at = g_hash_table_lookup (inc_rows, row);
  if (at != NULL)
    {
      BatchCall *x = &g_array_index (calls, BatchCall, GPOINTER_TO_UINT (at) - 1);
      ab_hb_increment_add (x->inc, &a, op->delta);
      x->owners |= op->owners;
      return;
    }
  BatchCall x
      = { h, NULL, NULL, ab_hb_increment_new (k, klen, op->delta, FALSE), NULL, op->owners };
  AbHbJob job = { AB_HB_RPC_INCREMENT, FALSE, call_increment };
  g_array_append_val (calls, x);
  g_array_append_val (jobs, job);
  g_hash_table_insert (inc_rows, g_steal_pointer (&row), GUINT_TO_POINTER (calls->len));
}

static void
plan_calls (AbHbStore *h, GArray *ops, GArray *calls, GArray *jobs)
{
  gint open_put = -1, open_del = -1;
  gsize put_bytes = 0, del_bytes = 0;
  g_autoptr (GHashTable) inc_rows
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  for (guint i = 0; i < ops->len; i++)
    {
      KeyOp *op = &g_array_index (ops, KeyOp, i);
      gsize klen, vlen = 0;
      const guint8 *k = g_bytes_get_data (op->key, &klen);
      const guint8 *v = op->value ? g_bytes_get_data (op->value, &vlen) : NULL;
      if (op->kind == OP_PUT)
        {
          add_to_multi (h, calls, jobs, &open_put, &put_bytes, AB_HB_RPC_PUT_MULTIPLE,
                        ab_hb_put_new (k, klen, v, vlen), ab_hb_wire_size (klen, vlen), op->owners);
        }
      else if (op->kind == OP_DELETE)
        {
          add_to_multi (h, calls, jobs, &open_del, &del_bytes, AB_HB_RPC_DELETE_MULTIPLE,
                        ab_hb_delete_new (k, klen), ab_hb_wire_size (klen, 0), op->owners);
        }
      else if (op->delta != 0)
        {
          add_increment (h, calls, jobs, inc_rows, op);
        }
    }
}

/* Folds one batch's collapsed ops (as the owner-th of a shared run) into
 * merged, after the earlier batches' ops. An increment of a key another
 * batch puts a non-counter value to fails this batch with WIDTH, as it
 * would have applied after that put; none of its ops is merged then. */
static gboolean
merge_batch (GArray *merged, GHashTable *at_of, GArray *ops, guint owner, GError **error)
{
  for (guint i = 0; i < ops->len; i++)
    {
      KeyOp *op = &g_array_index (ops, KeyOp, i);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (at_of, op->key));
      KeyOp *m = at > 0 ? &g_array_index (merged, KeyOp, at - 1) : NULL;
      if (m != NULL && op->kind == OP_INCREMENT && m->kind == OP_PUT
          && g_bytes_get_size (m->value) != 8)
        return fold_increment (m, 0, error); /* fails: not a counter */
    }
  for (guint i = 0; i < ops->len; i++)
    {
      KeyOp *op = &g_array_index (ops, KeyOp, i);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (at_of, op->key));
      if (at == 0)
        {
          KeyOp copy = { g_bytes_ref (op->key), op->kind,
                         op->value != NULL ? g_bytes_ref (op->value) : NULL, op->delta,
                         G_GUINT64_CONSTANT (1) << owner };
          g_array_append_val (merged, copy);
          g_hash_table_insert (at_of, copy.key, GUINT_TO_POINTER (merged->len));
          continue;
        }
      KeyOp *m = &g_array_index (merged, KeyOp, at - 1);
      m->owners |= G_GUINT64_CONSTANT (1) << owner;
      if (op->kind == OP_INCREMENT)
        fold_increment (m, op->delta, NULL); /* checked above */
      else
        {
          g_clear_pointer (&m->value, g_bytes_unref);
          m->kind = op->kind;
          m->value = op->value != NULL ? g_bytes_ref (op->value) : NULL;
        }
    }
  return TRUE;
}

/* A failed call's error to every batch whose ops rode in it (WIDTH wins). */
static void
blame (const BatchCall *x, GError *failure, guint n, GError **errors)
{
  for (guint i = 0; i < n; i++)
    {
      if ((x->owners & (G_GUINT64_CONSTANT (1) << i)) == 0)
        continue;
      if (errors[i] != NULL
          && (errors[i]->code == AB_STORE_ERROR_WIDTH || failure->code != AB_STORE_ERROR_WIDTH))
        continue;
      g_clear_error (&errors[i]);
      errors[i] = g_error_copy (failure);
    }
}

void
ab_hb_batch_run (AbHbStore *h, gpointer *batches, guint n, GError **errors)
{
  g_autoptr (GArray) ops = g_array_new (FALSE, TRUE, sizeof (KeyOp));
  g_autoptr (GHashTable) at_of = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  g_array_set_clear_func (ops, key_op_clear);
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GArray) mine = collapse (batches[i], &errors[i]);
      if (mine != NULL)
        merge_batch (ops, at_of, mine, i, &errors[i]);
    }
  g_autoptr (GArray) calls = g_array_new (FALSE, TRUE, sizeof (BatchCall));
  g_autoptr (GArray) jobs = g_array_new (FALSE, TRUE, sizeof (AbHbJob));
  plan_calls (h, ops, calls, jobs);
  /* ctx pointers are taken only now: the arrays no longer move. A multi
   * call of one item goes as put / deleteSingle: the gateway runs the multi
   * calls through the HBase client's batch machinery, which costs more. */
  for (guint i = 0; i < jobs->len; i++)
    {
      AbHbJob *job = &g_array_index (jobs, AbHbJob, i);
      BatchCall *x = &g_array_index (calls, BatchCall, i);
      job->ctx = x;
      if (x->items != NULL && x->items->len == 1 && job->rpc == AB_HB_RPC_PUT_MULTIPLE)
        job->rpc = AB_HB_RPC_PUT, job->fn = call_put;
      else if (x->items != NULL && x->items->len == 1 && job->rpc == AB_HB_RPC_DELETE_MULTIPLE)
        job->rpc = AB_HB_RPC_DELETE_SINGLE, job->fn = call_delete_single;
    }
  ab_hb_run_jobs (h, (AbHbJob *) jobs->data, jobs->len);
  for (guint i = 0; i < jobs->len; i++)
    {
      AbHbJob *job = &g_array_index (jobs, AbHbJob, i);
      if (job->error != NULL)
        blame (&g_array_index (calls, BatchCall, i), job->error, n, errors);
      g_clear_error (&job->error);
      batch_call_clear (&g_array_index (calls, BatchCall, i));
    }
}

gboolean
ab_hb_batch (AbStore *s, const AbBatch *b, GError **error)
{
  AbHbStore *h = (AbHbStore *) s;
  g_autoptr (GPtrArray) conditional = g_ptr_array_new ();
  gboolean sidecars = TRUE;
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      if (m->kind == AB_MUT_DELETE_IF)
        g_ptr_array_add (conditional, (gpointer) m);
      else if (ab_codec_sidecar_row_length (m->key, m->klen) == 0)
        sidecars = FALSE;
    }
  /* the engine's intents and receipts' deletes share calls with each other
   * only: a request's intent wave does not wait for other requests' data */
  AbHbShare *share = sidecars ? h->sidecars : h->writes;
  if (!ab_hb_ensure_table (h, error))
    return FALSE;
  /* the unconditional rows ride in the share's calls; this batch's
   * conditional deletes follow once those succeeded */
  if (conditional->len < b->items->len && !ab_hb_share_submit (h, share, (gpointer) b, error))
    return FALSE;
  return conditional->len == 0 || ab_hb_delete_ifs (h, conditional, error);
}
