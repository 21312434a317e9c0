/* The fault-injecting wrapper of fault.h: forwards reads, check-and-set and
 * snapshots to the inner store; a batch hit by the armed fault is replayed
 * one mutation at a time so that the others land and the chosen one does
 * not; a check-and-put of a chosen key fails once, or a chosen one loses
 * its answer; chosen calls can be made slow. */
#include "fault.h"

#include "store/backend.h"
#include "codec/keys.h"

typedef struct {
  AbStore base;
  AbStore *inner;
  GMutex lock;
  guint batches; /* batch calls seen */
  gboolean armed;
  AbFaultKind kind;
  guint fire_at; /* value of `batches` that fires */
  guint item;
  gboolean fired;
  GBytes *fail_cas;    /* the key whose next check-and-put fails */
  gboolean refuse_cas; /* every check-and-put fails */
  gboolean refuse_cad; /* every check-and-delete fails */
  guint cas_calls;     /* check-and-put calls seen */
  guint lose_cas;      /* the value of cas_calls whose answer is lost (0: none) */
  AbSlowCall slow;     /* the calls made slow, by slow_ms */
  guint slow_ms;
  guint slow_batch; /* AB_SLOW_BATCH: the value of `batches` that is slow */
} FaultStore;

/* Sleeps when this call (of kind `what`) is one made slow. */
static void
slow_down (FaultStore *f, AbSlowCall what)
{
  g_mutex_lock (&f->lock);
  guint ms
      = f->slow == what && (what != AB_SLOW_BATCH || f->batches == f->slow_batch) ? f->slow_ms : 0;
  g_mutex_unlock (&f->lock);
  if (ms > 0)
    g_usleep ((gulong) ms * 1000);
}

static AbStore *
inner_of (AbStore *s)
{
  return ((FaultStore *) s)->inner;
}

static gboolean
fault_get (AbStore *s, const guint8 *key, gsize klen, GBytes **value, GError **error)
{
  slow_down ((FaultStore *) s, AB_SLOW_READS);
  return ab_store_get (inner_of (s), key, klen, value, error);
}

static gboolean
fault_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error)
{
  slow_down ((FaultStore *) s, AB_SLOW_READS);
  return ab_store_multi_get (inner_of (s), keys, out, error);
}

static gboolean
fault_scan (AbStore *s, const AbScanRange *range, GArray *out, GError **error)
{
  return ab_store_scan (inner_of (s), range, out, error);
}

static gboolean
fault_increment (AbStore *s, const guint8 *key, gsize klen, gint64 delta, gint64 *new_value,
                 GError **error)
{
  return ab_store_increment (inner_of (s), key, klen, delta, new_value, error);
}

static gboolean
fault_check_and_put (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
                     const guint8 *value, gsize vlen, gboolean *applied, GError **error)
{
  FaultStore *f = (FaultStore *) s;
  g_autoptr (GBytes) k = g_bytes_new_static (key, klen);
  g_mutex_lock (&f->lock);
  gboolean once = f->fail_cas != NULL && g_bytes_equal (f->fail_cas, k);
  gboolean fail = once || f->refuse_cas;
  if (once)
    g_clear_pointer (&f->fail_cas, g_bytes_unref);
  gboolean lost = ++f->cas_calls == f->lose_cas;
  g_mutex_unlock (&f->lock);
  slow_down (f, AB_SLOW_LOCKS);
  if (fail)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_INJECTED,
                   "injected failure of a check-and-put");
      return FALSE;
    }
  if (!ab_store_check_and_put (inner_of (s), key, klen, expected, elen, value, vlen, applied,
                               error))
    return FALSE;
  if (lost)
    g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_INJECTED,
                 "injected loss of a check-and-put's answer (it was %s)",
                 *applied ? "applied" : "not applied");
  return !lost;
}

static gboolean
fault_check_and_delete (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected,
                        gsize elen, gboolean *applied, GError **error)
{
  FaultStore *f = (FaultStore *) s;
  g_mutex_lock (&f->lock);
  gboolean fail = f->refuse_cad;
  g_mutex_unlock (&f->lock);
  if (fail)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_INJECTED,
                   "injected failure of a check-and-delete");
      return FALSE;
    }
  return ab_store_check_and_delete (inner_of (s), key, klen, expected, elen, applied, error);
}

/* The key an item is applied with: its own, or for a sidecar cell the row
 * it belongs to (HBase applies one row's cells of a call together). */
static GBytes *
row_of (const AbMutation *m)
{
  gsize r = ab_codec_sidecar_row_length (m->key, m->klen);
  return g_bytes_new_static (m->key, r > 0 ? r : m->klen);
}

static gboolean
fault_batch (AbStore *s, const AbBatch *b, GError **error)
{
  FaultStore *f = (FaultStore *) s;
  gboolean hit;
  AbFaultKind kind;
  guint item;
  g_mutex_lock (&f->lock);
  f->batches++;
  hit = f->armed && f->batches == f->fire_at && f->item < b->items->len;
  kind = f->kind;
  item = f->item;
  if (hit)
    f->fired = TRUE;
  if (f->armed && f->batches >= f->fire_at)
    f->armed = FALSE;
  g_mutex_unlock (&f->lock);
  slow_down (f, AB_SLOW_BATCH);
  if (!hit)
    return ab_store_batch (f->inner, b, error);
  /* one inner batch per item, a sidecar cell joined to its row's */
  g_autoptr (GHashTable) at
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  g_autoptr (GPtrArray) groups = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_batch_free);
  guint target = 0;
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      GBytes *row = row_of (m);
      gpointer slot;
      if (!g_hash_table_lookup_extended (at, row, NULL, &slot))
        {
          slot = GUINT_TO_POINTER (groups->len);
          g_ptr_array_add (groups, ab_batch_new ());
          g_hash_table_insert (at, g_bytes_ref (row), slot);
        }
      g_bytes_unref (row);
      ab_batch_append (groups->pdata[GPOINTER_TO_UINT (slot)], m);
      if (i == item)
        target = GPOINTER_TO_UINT (slot);
    }
  for (guint g = 0; g < groups->len; g++)
    {
      if (g == target && kind == AB_FAULT_FAIL)
        {
          g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_INJECTED,
                       "injected failure at item %u of a %u-item batch", item, b->items->len);
          return FALSE;
        }
      if (g != target && !ab_store_batch (f->inner, groups->pdata[g], error))
        return FALSE;
    }
  return TRUE;
}

/* The snapshot is the inner store's own: its vtable scans and closes it. */
static gboolean
fault_scan_sidecars (AbStore *s, AbScanVisitor visit, gpointer user, GError **error)
{
  return ab_store_scan_sidecars (inner_of (s), visit, user, error);
}

static AbSnapshot *
fault_snapshot_open (AbStore *s, GError **error)
{
  return ab_store_snapshot_open (inner_of (s), error);
}

static void
fault_close (AbStore *s)
{
  FaultStore *f = (FaultStore *) s;
  ab_store_close (f->inner);
  g_clear_pointer (&f->fail_cas, g_bytes_unref);
  g_mutex_clear (&f->lock);
  g_free (f);
}

static const AbStoreVTable fault_vtable = {
  .name = "fault",
  .get = fault_get,
  .multi_get = fault_multi_get,
  .scan = fault_scan,
  .batch = fault_batch,
  .increment = fault_increment,
  .check_and_put = fault_check_and_put,
  .check_and_delete = fault_check_and_delete,
  .close = fault_close,
  .snapshot_open = fault_snapshot_open,
  .scan_sidecars = fault_scan_sidecars,
};

AbStore *
ab_store_fault_new (AbStore *inner)
{
  FaultStore *f;
  g_return_val_if_fail (inner != NULL, NULL);
  f = g_new0 (FaultStore, 1);
  f->base.vt = &fault_vtable;
  f->base.batch_atomic = FALSE;
  f->base.never_blocks = ab_store_never_blocks (inner);
  f->base.max_key = ab_store_max_key (inner);
  f->base.sidecars_in_row = TRUE; /* the inner store's check_and_delete drops them */
  f->inner = inner;
  g_mutex_init (&f->lock);
  return &f->base;
}

void
ab_store_fault_arm (AbStore *s, AbFaultKind kind, guint nth_batch, guint item)
{
  FaultStore *f = (FaultStore *) s;
  g_return_if_fail (s->vt == &fault_vtable && nth_batch >= 1);
  g_mutex_lock (&f->lock);
  f->armed = TRUE;
  f->kind = kind;
  f->fire_at = f->batches + nth_batch;
  f->item = item;
  f->fired = FALSE;
  g_mutex_unlock (&f->lock);
}

void
ab_store_fault_fail_check_and_put (AbStore *s, const guint8 *key, gsize klen)
{
  FaultStore *f = (FaultStore *) s;
  g_return_if_fail (s->vt == &fault_vtable);
  g_mutex_lock (&f->lock);
  g_clear_pointer (&f->fail_cas, g_bytes_unref);
  f->fail_cas = g_bytes_new (key, klen);
  g_mutex_unlock (&f->lock);
}

void
ab_store_fault_lose_check_and_put (AbStore *s, guint nth)
{
  FaultStore *f = (FaultStore *) s;
  g_return_if_fail (s->vt == &fault_vtable && nth >= 1);
  g_mutex_lock (&f->lock);
  f->lose_cas = f->cas_calls + nth;
  g_mutex_unlock (&f->lock);
}

void
ab_store_fault_refuse_check_and_put (AbStore *s, gboolean refuse)
{
  FaultStore *f = (FaultStore *) s;
  g_return_if_fail (s->vt == &fault_vtable);
  g_mutex_lock (&f->lock);
  f->refuse_cas = refuse;
  g_mutex_unlock (&f->lock);
}

void
ab_store_fault_refuse_check_and_delete (AbStore *s, gboolean refuse)
{
  FaultStore *f = (FaultStore *) s;
  g_return_if_fail (s->vt == &fault_vtable);
  g_mutex_lock (&f->lock);
  f->refuse_cad = refuse;
  g_mutex_unlock (&f->lock);
}

guint
ab_store_fault_check_and_puts (AbStore *s)
{
  FaultStore *f = (FaultStore *) s;
  g_return_val_if_fail (s->vt == &fault_vtable, 0);
  g_mutex_lock (&f->lock);
  guint n = f->cas_calls;
  g_mutex_unlock (&f->lock);
  return n;
}

void
ab_store_fault_slow (AbStore *s, AbSlowCall what, guint nth_batch, guint ms)
{
  FaultStore *f = (FaultStore *) s;
  g_return_if_fail (s->vt == &fault_vtable);
  g_mutex_lock (&f->lock);
  f->slow = what;
  f->slow_ms = ms;
  f->slow_batch = f->batches + nth_batch;
  g_mutex_unlock (&f->lock);
}

void
ab_store_fault_disarm (AbStore *s)
{
  FaultStore *f = (FaultStore *) s;
  g_return_if_fail (s->vt == &fault_vtable);
  g_mutex_lock (&f->lock);
  f->armed = FALSE;
  g_mutex_unlock (&f->lock);
}

gboolean
ab_store_fault_fired (AbStore *s)
{
  FaultStore *f = (FaultStore *) s;
  gboolean fired;
  g_return_val_if_fail (s->vt == &fault_vtable, FALSE);
  g_mutex_lock (&f->lock);
  fired = f->fired;
  g_mutex_unlock (&f->lock);
  return fired;
}

guint
ab_store_fault_batches (AbStore *s)
{
  FaultStore *f = (FaultStore *) s;
  guint n;
  g_return_val_if_fail (s->vt == &fault_vtable, 0);
  g_mutex_lock (&f->lock);
  n = f->batches;
  g_mutex_unlock (&f->lock);
  return n;
}
