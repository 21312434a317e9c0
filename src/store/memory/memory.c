/* The memory backend ("memory:"): a sorted map from GBytes keys to GBytes
 * values in unsigned byte order, under one mutex, for tests. A batch is atomic:
 * it keeps an undo log and rolls back when one of its mutations fails. A
 * snapshot is a sorted array of references to the rows taken at open. */
#include "store/backend.h"

#include <string.h>

typedef struct {
  AbStore base;
  GMutex lock;
  GTree *map; /* GBytes* -> GBytes* */
} AbMemStore;

typedef struct {
  GBytes *key;
  GBytes *old; /* NULL = was absent */
} UndoEntry;

static gint
bytes_cmp (gconstpointer a, gconstpointer b, gpointer unused)
{
  gsize alen, blen;
  const guint8 *ad = g_bytes_get_data ((GBytes *) a, &alen);
  const guint8 *bd = g_bytes_get_data ((GBytes *) b, &blen);
  return ab_store_key_compare (ad, alen, bd, blen);
}

static GBytes *
lookup (AbMemStore *m, const guint8 *key, gsize klen)
{
  g_autoptr (GBytes) k = g_bytes_new_static (key, klen);
  return g_tree_lookup (m->map, k);
}

/* ---- reads (lock held by the caller) ---- */

static void
get_locked (AbMemStore *m, const guint8 *key, gsize klen, GBytes **value)
{
  GBytes *v = lookup (m, key, klen);
  *value = v ? g_bytes_ref (v) : NULL;
}

static void
multi_get_locked (AbMemStore *m, GPtrArray *keys, GArray *out)
{
  for (guint i = 0; i < keys->len; i++)
    {
      GBytes *k = g_ptr_array_index (keys, i);
      GBytes *v = g_tree_lookup (m->map, k);
      AbKv kv = { g_bytes_ref (k), v ? g_bytes_ref (v) : NULL };
      g_array_append_val (out, kv);
    }
}

/* First node at or after the range start (lower bound, then skip an equal
 * key when the start is exclusive). */
static GTreeNode *
scan_first (AbMemStore *m, const AbScanRange *r)
{
  GTreeNode *n;
  g_autoptr (GBytes) start = NULL;
  if (r->start == NULL)
    return g_tree_node_first (m->map);
  start = g_bytes_new_static (r->start, r->start_len);
  n = g_tree_lower_bound (m->map, start);
  if (n != NULL && !r->start_inclusive && g_bytes_equal (g_tree_node_key (n), start))
    n = g_tree_node_next (n);
  return n;
}

static gboolean
past_stop (const AbScanRange *r, GBytes *key)
{
  gsize klen;
  const guint8 *k;
  gint c;
  if (r->stop == NULL)
    return FALSE;
  k = g_bytes_get_data (key, &klen);
  c = ab_store_key_compare (k, klen, r->stop, r->stop_len);
  return c > 0 || (c == 0 && !r->stop_inclusive);
}

static void
scan_locked (AbMemStore *m, const AbScanRange *r, GArray *out)
{
  guint n = 0;
  for (GTreeNode *node = scan_first (m, r); node != NULL; node = g_tree_node_next (node))
    {
      GBytes *k = g_tree_node_key (node);
      AbKv kv;
      if (past_stop (r, k) || (r->limit > 0 && n >= r->limit))
        break;
      kv.key = g_bytes_ref (k);
      kv.value = g_bytes_ref (g_tree_node_value (node));
      g_array_append_val (out, kv);
      n++;
    }
}

/* ---- reads of the store (take the lock) and of a transaction view (it is held) ---- */

/* A plan's view inside mem_transact: the store's rows, its lock already held. */
typedef struct {
  AbStore base;
  AbMemStore *m;
} MemView;

static AbMemStore *
reader_of (AbStore *s, gboolean *take_lock)
{
  *take_lock = s->vt->transact != NULL; /* the store itself; a view has none */
  return *take_lock ? (AbMemStore *) s : ((MemView *) s)->m;
}

static gboolean
mem_get (AbStore *s, const guint8 *key, gsize klen, GBytes **value, GError **error)
{
  gboolean locking;
  AbMemStore *m = reader_of (s, &locking);
  if (locking)
    g_mutex_lock (&m->lock);
  get_locked (m, key, klen, value);
  if (locking)
    g_mutex_unlock (&m->lock);
  return TRUE;
}

static gboolean
mem_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error)
{
  gboolean locking;
  AbMemStore *m = reader_of (s, &locking);
  if (locking)
    g_mutex_lock (&m->lock);
  multi_get_locked (m, keys, out);
  if (locking)
    g_mutex_unlock (&m->lock);
  return TRUE;
}

static gboolean
mem_scan (AbStore *s, const AbScanRange *r, GArray *out, GError **error)
{
  gboolean locking;
  AbMemStore *m = reader_of (s, &locking);
  if (locking)
    g_mutex_lock (&m->lock);
  scan_locked (m, r, out);
  if (locking)
    g_mutex_unlock (&m->lock);
  return TRUE;
}

/* ---- writes (lock held) ---- */

static void
store_value (AbMemStore *m, GBytes *key, GBytes *value, GArray *undo)
{
  if (undo != NULL)
    {
      GBytes *old = g_tree_lookup (m->map, key);
      UndoEntry u = { g_bytes_ref (key), old ? g_bytes_ref (old) : NULL };
      g_array_append_val (undo, u);
    }
  if (value != NULL)
    g_tree_replace (m->map, g_bytes_ref (key), g_bytes_ref (value));
  else
    g_tree_remove (m->map, key);
}

static gboolean
apply_increment (AbMemStore *m, GBytes *key, gint64 delta, gint64 *new_value, GArray *undo,
                 GError **error)
{
  GBytes *cur = g_tree_lookup (m->map, key);
  guint64 old = 0;
  guint8 buf[8];
  g_autoptr (GBytes) v = NULL;
  if (cur != NULL)
    {
      if (g_bytes_get_size (cur) != 8)
        {
          g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_WIDTH,
                       "increment of a %zu-byte value (counters are 8-byte big-endian)",
                       g_bytes_get_size (cur));
          return FALSE;
        }
      memcpy (&old, g_bytes_get_data (cur, NULL), 8);
      old = GUINT64_FROM_BE (old);
    }
  *new_value = (gint64) (old + (guint64) delta); /* wraps like a Java long */
  old = GUINT64_TO_BE ((guint64) *new_value);
  memcpy (buf, &old, 8);
  v = g_bytes_new (buf, 8);
  store_value (m, key, v, undo);
  return TRUE;
}

static void
rollback (AbMemStore *m, GArray *undo)
{
  for (guint i = undo->len; i-- > 0;)
    {
      UndoEntry *u = &g_array_index (undo, UndoEntry, i);
      store_value (m, u->key, u->old, NULL);
    }
}

static void
undo_clear (gpointer p)
{
  UndoEntry *u = p;
  g_clear_pointer (&u->key, g_bytes_unref);
  g_clear_pointer (&u->old, g_bytes_unref);
}

static gboolean current_matches (GBytes *cur, const guint8 *expected, gsize elen);

static gboolean
apply_mutation (AbMemStore *m, const AbMutation *mut, GArray *undo, GError **error)
{
  gint64 ignored;
  g_autoptr (GBytes) key = g_bytes_new (mut->key, mut->klen);
  switch (mut->kind)
    {
      case AB_MUT_PUT:
        {
          g_autoptr (GBytes) value = g_bytes_new (mut->value, mut->vlen);
          store_value (m, key, value, undo);
          return TRUE;
        }
      case AB_MUT_DELETE: store_value (m, key, NULL, undo); return TRUE;
      case AB_MUT_INCREMENT:
      case AB_MUT_ADD: return apply_increment (m, key, mut->delta, &ignored, undo, error);
      case AB_MUT_DELETE_IF:
        {
          GBytes *cur = g_tree_lookup (m->map, key);
          if (current_matches (cur, mut->vlen > 0 ? mut->value : (const guint8 *) "", mut->vlen))
            store_value (m, key, NULL, undo);
          return TRUE;
        }
    }
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "unknown mutation kind %d",
               (int) mut->kind);
  return FALSE;
}

static gboolean
mem_batch (AbStore *s, const AbBatch *b, GError **error)
{
  AbMemStore *m = (AbMemStore *) s;
  g_autoptr (GArray) undo = g_array_new (FALSE, TRUE, sizeof (UndoEntry));
  gboolean ok = TRUE;
  g_array_set_clear_func (undo, undo_clear);
  g_mutex_lock (&m->lock);
  for (guint i = 0; ok && i < b->items->len; i++)
    ok = apply_mutation (m, &g_array_index (b->items, AbMutation, i), undo, error);
  if (!ok)
    rollback (m, undo);
  g_mutex_unlock (&m->lock);
  return ok;
}

static const AbStoreVTable mem_view_vtable = {
  .name = "memory-view",
  .get = mem_get,
  .multi_get = mem_multi_get,
  .scan = mem_scan,
};

/* The plan and its batch under the store lock: one writer at a time, so the
 * batch (rolled back on failure) is the whole transaction. */
static void
mem_transact (AbStore *s, AbTxnPlan plan, AbTxnDone done, gpointer user)
{
  AbMemStore *m = (AbMemStore *) s;
  MemView view = { .base = { .vt = &mem_view_vtable, .batch_atomic = TRUE }, .m = m };
  g_autoptr (AbBatch) batch = ab_batch_new ();
  g_autoptr (GArray) undo = g_array_new (FALSE, TRUE, sizeof (UndoEntry));
  g_autoptr (GError) error = NULL;
  gboolean ok;
  g_array_set_clear_func (undo, undo_clear);
  g_mutex_lock (&m->lock);
  ok = plan (&view.base, batch, user, &error) && ab_backend_check_batch (batch, 0, &error);
  for (guint i = 0; ok && i < batch->items->len; i++)
    ok = apply_mutation (m, &g_array_index (batch->items, AbMutation, i), undo, &error);
  if (!ok)
    rollback (m, undo);
  g_mutex_unlock (&m->lock);
  done (user, error);
}

static gboolean
mem_increment (AbStore *s, const guint8 *key, gsize klen, gint64 delta, gint64 *new_value,
               GError **error)
{
  AbMemStore *m = (AbMemStore *) s;
  g_autoptr (GBytes) k = g_bytes_new (key, klen);
  gboolean ok;
  g_mutex_lock (&m->lock);
  ok = apply_increment (m, k, delta, new_value, NULL, error);
  g_mutex_unlock (&m->lock);
  return ok;
}

/* expected == NULL asks for "absent"; otherwise the stored bytes must equal it. */
static gboolean
current_matches (GBytes *cur, const guint8 *expected, gsize elen)
{
  if (expected == NULL || cur == NULL)
    return expected == NULL && cur == NULL;
  return g_bytes_get_size (cur) == elen
         && (elen == 0 || memcmp (g_bytes_get_data (cur, NULL), expected, elen) == 0);
}

static gboolean
mem_check_and_put (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
                   const guint8 *value, gsize vlen, gboolean *applied, GError **error)
{
  AbMemStore *m = (AbMemStore *) s;
  g_autoptr (GBytes) k = g_bytes_new (key, klen);
  g_mutex_lock (&m->lock);
  *applied = current_matches (g_tree_lookup (m->map, k), expected, elen);
  if (*applied)
    {
      g_autoptr (GBytes) v = g_bytes_new (value, vlen);
      store_value (m, k, v, NULL);
    }
  g_mutex_unlock (&m->lock);
  return TRUE;
}

/* expected == NULL: "delete if absent", which applies and changes nothing. */
static gboolean
mem_check_and_delete (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
                      gboolean *applied, GError **error)
{
  AbMemStore *m = (AbMemStore *) s;
  g_autoptr (GBytes) k = g_bytes_new (key, klen);
  g_mutex_lock (&m->lock);
  *applied = current_matches (g_tree_lookup (m->map, k), expected, elen);
  if (*applied && expected != NULL)
    store_value (m, k, NULL, NULL);
  g_mutex_unlock (&m->lock);
  return TRUE;
}

/* ---- snapshots ---- */

typedef struct {
  AbSnapshot base;
  GPtrArray *keys;   /* GBytes*, sorted */
  GPtrArray *values; /* GBytes*, parallel */
} MemSnapshot;

static gboolean
collect_row (gpointer key, gpointer value, gpointer data)
{
  MemSnapshot *snap = data;
  g_ptr_array_add (snap->keys, g_bytes_ref (key));
  g_ptr_array_add (snap->values, g_bytes_ref (value));
  return FALSE;
}

static AbSnapshot *
mem_snapshot_open (AbStore *s, GError **error)
{
  AbMemStore *m = (AbMemStore *) s;
  MemSnapshot *snap = g_new0 (MemSnapshot, 1);
  snap->base.store = s;
  snap->keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  snap->values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_mutex_lock (&m->lock);
  g_tree_foreach (m->map, collect_row, snap);
  g_mutex_unlock (&m->lock);
  return &snap->base;
}

/* Index of the first row inside the range start (binary search). */
static guint
snapshot_first (MemSnapshot *snap, const AbScanRange *r)
{
  guint lo = 0, hi = snap->keys->len;
  if (r->start == NULL)
    return 0;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gsize klen;
      const guint8 *k = g_bytes_get_data (snap->keys->pdata[mid], &klen);
      gint c = ab_store_key_compare (k, klen, r->start, r->start_len);
      if (c < 0 || (c == 0 && !r->start_inclusive))
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static gboolean
mem_snapshot_scan (AbSnapshot *base, const AbScanRange *r, AbScanVisitor visit, gpointer user,
                   GError **error)
{
  MemSnapshot *snap = (MemSnapshot *) base;
  guint n = 0;
  for (guint i = snapshot_first (snap, r); i < snap->keys->len; i++)
    {
      gsize klen, vlen;
      const guint8 *k, *v;
      if (past_stop (r, snap->keys->pdata[i]) || (r->limit > 0 && n >= r->limit))
        break;
      k = g_bytes_get_data (snap->keys->pdata[i], &klen);
      v = g_bytes_get_data (snap->values->pdata[i], &vlen);
      n++;
      if (!visit (k, klen, v, vlen, user))
        break;
    }
  return TRUE;
}

static void
mem_snapshot_close (AbSnapshot *base)
{
  MemSnapshot *snap = (MemSnapshot *) base;
  g_ptr_array_unref (snap->keys);
  g_ptr_array_unref (snap->values);
  g_free (snap);
}

static void
mem_close (AbStore *s)
{
  AbMemStore *m = (AbMemStore *) s;
  g_tree_unref (m->map);
  g_mutex_clear (&m->lock);
  g_free (m);
}

static const AbStoreVTable mem_vtable = {
  .name = "memory",
  .get = mem_get,
  .multi_get = mem_multi_get,
  .scan = mem_scan,
  .batch = mem_batch,
  .increment = mem_increment,
  .check_and_put = mem_check_and_put,
  .check_and_delete = mem_check_and_delete,
  .close = mem_close,
  .transact = mem_transact,
  .snapshot_open = mem_snapshot_open,
  .snapshot_scan = mem_snapshot_scan,
  .snapshot_close = mem_snapshot_close,
};

/* "memory:" and nothing after it. */
AbStore *
ab_store_memory_open (const gchar *uri, const gchar *rest, GError **error)
{
  if (rest[0] != '\0')
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_URI,
                   "unknown store URI '%s' (a memory store is named by memory: alone)", uri);
      return NULL;
    }
  AbMemStore *m = g_new0 (AbMemStore, 1);
  m->base.vt = &mem_vtable;
  m->base.batch_atomic = TRUE;
  m->base.never_blocks = TRUE;
  m->base.max_key = AB_STORE_HBASE_MAX_KEY; /* as on hbase: tests on memory see the same limit */
  g_mutex_init (&m->lock);
  m->map = g_tree_new_full (bytes_cmp, NULL, (GDestroyNotify) g_bytes_unref,
                            (GDestroyNotify) g_bytes_unref);
  return &m->base;
}
