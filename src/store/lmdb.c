/* The lmdb backend ("lmdb:DIR"): one environment per directory shared by all
 * handles, durable commits, a map that grows when full, and group commit:
 * concurrent writers' requests share one write transaction and one fsync. */
#include "store/lmdb-private.h"

#include <errno.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AB_LMDB_MAX_GROUP 1024 /* requests in one write transaction */
#define AB_LMDB_READ_POOL 32   /* idle read transactions kept for reuse */
#define AB_LMDB_MAX_READERS 512
#define AB_LMDB_MAX_MAPSIZE ((gsize) 1 << 44)  /* 16 TiB: stop doubling here */
#define AB_LMDB_GATHER_MAX_US 200              /* longest wait for a group to fill */
#define AB_LMDB_FULL_BELOW ((guint64) 1 << 20) /* EIO with less free than this: a full disk */
#define REQ_FAILED (-1) /* a request failed on its own; its GError says why */

#define REQ_PLAN_FAILED (-2) /* a plan refused before writing anything */

typedef enum {
  REQ_BATCH,
  REQ_INCREMENT,
  REQ_CHECK_AND_PUT,
  REQ_CHECK_AND_DELETE,
  REQ_TXN,
} ReqKind;

/* One caller's write: on its stack until done is set, or (REQ_TXN) on the
 * heap until its done callback has run. */
typedef struct {
  ReqKind kind;
  const AbBatch *batch;
  AbTxnPlan plan; /* REQ_TXN: fills txn_batch through a view of the transaction */
  AbTxnDone on_done;
  gpointer user;
  AbBatch *txn_batch;
  MDB_val key, expected, value;
  gboolean has_expected;
  gint64 delta;
  gint64 new_value; /* outcome, written by the leader before done */
  gboolean applied;
  GError *error;
  gboolean done; /* under queue_lock */
} LmdbReq;

static AbDirRegistry registry; /* one environment per directory */

void
ab_lmdb_set_error (GError **error, int rc, const gchar *what)
{
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb %s: %s", what, mdb_strerror (rc));
}

/* A write transaction's failure. A full disk fails the commit while it
 * writes the data pages, before the meta page that would make them the
 * store: nothing of the group happened and the next commit that finds room
 * succeeds. LMDB reports ENOSPC, or EIO for a short write (the write that
 * took the last free bytes); either with the disk (nearly) full then is a
 * full disk: unavailable, with the reason. */
static void
set_commit_error (LmdbEnv *e, int rc, GError **error)
{
  struct statvfs st;
  if ((rc == ENOSPC || rc == EDQUOT || rc == EIO) && statvfs (e->dir.path, &st) == 0
      && (rc != EIO || (guint64) st.f_bavail * st.f_frsize < AB_LMDB_FULL_BELOW))
    g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
                 "lmdb %s: the disk is full (%s, %" G_GUINT64_FORMAT
                 " KiB free): writes resume once space is freed",
                 e->dir.path, g_strerror (rc), ((guint64) st.f_bavail * st.f_frsize) >> 10);
  else
    ab_lmdb_set_error (error, rc, "write transaction");
}

LmdbEnv *
ab_lmdb_env_of (AbStore *s)
{
  return ((LmdbStore *) s)->env;
}

static gboolean
check_key (LmdbEnv *e, gsize klen, GError **error)
{
  if (klen > e->max_key)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                   "key of %zu bytes is longer than the lmdb limit of %zu bytes", klen, e->max_key);
      return FALSE;
    }
  return TRUE;
}

/* ---- map size ---- */

static void
read_mapsize (LmdbEnv *e)
{
  MDB_envinfo info;
  if (mdb_env_info (e->env, &info) == 0)
    e->mapsize = info.me_mapsize;
}

/* Another process grew the map: adopt its size. */
static void
adopt_resize (LmdbEnv *e)
{
  g_rw_lock_writer_lock (&e->map_lock);
  if (mdb_env_set_mapsize (e->env, 0) == 0)
    read_mapsize (e);
  g_rw_lock_writer_unlock (&e->map_lock);
}

/* Double the map unless someone already changed it since `seen`. */
static gboolean
grow (LmdbEnv *e, gsize seen, GError **error)
{
  int rc = 0;
  gsize want = seen * 2;
  g_rw_lock_writer_lock (&e->map_lock);
  if (e->mapsize == seen)
    {
      if (seen >= AB_LMDB_MAX_MAPSIZE)
        rc = ENOMEM;
      else if ((rc = mdb_env_set_mapsize (e->env, want)) == 0)
        read_mapsize (e);
    }
  g_rw_lock_writer_unlock (&e->map_lock);
  if (rc != 0)
    g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                 "lmdb map full at %zu bytes and it cannot grow to %zu: %s", seen, want,
                 mdb_strerror (rc));
  else
    g_debug ("lmdb %s: map grown from %zu to %zu bytes", e->dir.path, seen, e->mapsize);
  return rc == 0;
}

/* Begin a transaction with map_lock held shared; on failure the lock is
 * released. *seen receives the map size the transaction runs under. */
int
ab_lmdb_begin_locked (LmdbEnv *e, MDB_txn *parent, unsigned flags, MDB_txn **txn, gsize *seen)
{
  int rc = 0;
  for (guint attempt = 0; attempt < 4; attempt++)
    {
      g_rw_lock_reader_lock (&e->map_lock);
      *seen = e->mapsize;
      rc = mdb_txn_begin (e->env, parent, flags, txn);
      if (rc == 0)
        return 0;
      g_rw_lock_reader_unlock (&e->map_lock);
      if (rc != MDB_MAP_RESIZED)
        break;
      adopt_resize (e);
    }
  return rc;
}

/* ---- reads: one read-only transaction per operation ---- */

/* A reader thread's own read-only transaction, reset between its reads: the
 * hot path takes and returns it without a lock or a shared cache line. A
 * thread's slot binds to the first environment it reads and is freed when
 * that environment closes or the thread ends; reads of other environments
 * use the shared pool. slots_lock guards a slot changing hands and each
 * environment's list of slots; the owner alone moves txn in and out while
 * the slot is bound to the environment it reads (closing an environment
 * while it is being read is not allowed). */
typedef struct {
  LmdbEnv *e;
  MDB_txn *txn; /* reset, or NULL while in use */
} ThreadTxn;

static GMutex slots_lock;
static _Thread_local ThreadTxn *my_slot; /* the fast way to this thread's slot */

static void
thread_txn_free (gpointer data)
{
  ThreadTxn *tt = data;
  my_slot = NULL; /* runs in the ending thread itself */
  g_mutex_lock (&slots_lock);
  if (tt->e != NULL)
    {
      g_ptr_array_remove_fast (tt->e->slots, tt);
      if (tt->txn != NULL)
        mdb_txn_abort (tt->txn);
    }
  g_mutex_unlock (&slots_lock);
  g_free (tt);
}

/* Only there for thread_txn_free at thread exit: reads use my_slot. */
static GPrivate thread_txn = G_PRIVATE_INIT (thread_txn_free);

/* Called by env_free before the environment closes. */
static void
slots_release (LmdbEnv *e)
{
  g_mutex_lock (&slots_lock);
  for (guint i = 0; i < e->slots->len; i++)
    {
      ThreadTxn *tt = g_ptr_array_index (e->slots, i);
      if (tt->txn != NULL)
        mdb_txn_abort (tt->txn);
      tt->txn = NULL;
      tt->e = NULL;
    }
  g_ptr_array_set_size (e->slots, 0);
  g_mutex_unlock (&slots_lock);
}

/* Keeps txn (reset) in this thread's slot: TRUE when taken. */
static gboolean
slot_keep (LmdbEnv *e, MDB_txn *txn)
{
  ThreadTxn *tt = my_slot;
  if (tt != NULL && tt->e == e)
    {
      if (tt->txn != NULL)
        return FALSE; /* a nested read's: to the pool */
      tt->txn = txn;
      return TRUE;
    }
  if (tt != NULL && tt->e != NULL)
    return FALSE; /* bound to another environment */
  if (tt == NULL)
    {
      tt = g_new0 (ThreadTxn, 1);
      g_private_set (&thread_txn, tt);
      my_slot = tt;
    }
  g_mutex_lock (&slots_lock);
  tt->e = e;
  tt->txn = txn;
  g_ptr_array_add (e->slots, tt);
  g_mutex_unlock (&slots_lock);
  return TRUE;
}

static MDB_txn *
slot_take (LmdbEnv *e)
{
  ThreadTxn *tt = my_slot;
  if (tt == NULL || tt->e != e)
    return NULL;
  MDB_txn *t = tt->txn;
  tt->txn = NULL;
  return t;
}

static int
read_begin (LmdbEnv *e, MDB_txn **txn)
{
  MDB_txn *t = slot_take (e);
  gsize seen;
  if (t == NULL)
    {
      g_mutex_lock (&e->pool_lock);
      if (e->read_pool->len > 0)
        t = g_ptr_array_steal_index_fast (e->read_pool, e->read_pool->len - 1);
      g_mutex_unlock (&e->pool_lock);
    }
  if (t != NULL)
    {
      g_rw_lock_reader_lock (&e->map_lock);
      if (mdb_txn_renew (t) == 0)
        {
          *txn = t;
          return 0;
        }
      mdb_txn_abort (t);
      g_rw_lock_reader_unlock (&e->map_lock);
    }
  return ab_lmdb_begin_locked (e, NULL, MDB_RDONLY, txn, &seen);
}

static void
read_end (LmdbEnv *e, MDB_txn *txn)
{
  gboolean kept = FALSE;
  mdb_txn_reset (txn);
  if (slot_keep (e, txn))
    kept = TRUE;
  else
    {
      g_mutex_lock (&e->pool_lock);
      if (e->read_pool->len < AB_LMDB_READ_POOL)
        {
          g_ptr_array_add (e->read_pool, txn);
          kept = TRUE;
        }
      g_mutex_unlock (&e->pool_lock);
    }
  if (!kept)
    mdb_txn_abort (txn);
  g_rw_lock_reader_unlock (&e->map_lock);
}

static GBytes *
val_bytes (const MDB_val *v)
{
  return g_bytes_new (v->mv_data, v->mv_size);
}

/* 0 with *value set or NULL (absent), or an lmdb error. */
static int
get_one (LmdbEnv *e, MDB_txn *txn, const guint8 *key, gsize klen, GBytes **value)
{
  MDB_val k = { klen, (void *) key }, v;
  int rc;
  *value = NULL;
  if (klen == 0 || klen > e->max_key)
    return 0; /* lmdb cannot hold an empty or over-long key: absent */
  rc = mdb_get (txn, e->dbi, &k, &v);
  if (rc == 0)
    *value = val_bytes (&v);
  return rc == MDB_NOTFOUND ? 0 : rc;
}

/* A plan's view of the write transaction it runs in (REQ_TXN). */
typedef struct {
  AbStore base;
  LmdbEnv *env;
  MDB_txn *txn;
} LmdbView;

static const AbStoreVTable lmdb_view_vtable;

/* A read: the view's write transaction, or a pooled read-only one. */
typedef struct {
  LmdbEnv *e;
  MDB_txn *txn;
  gboolean pooled; /* give it back with read_end */
} Reader;

static gboolean
reader_open (AbStore *s, Reader *r, GError **error)
{
  if (s->vt == &lmdb_view_vtable)
    {
      LmdbView *v = (LmdbView *) s;
      *r = (Reader){ v->env, v->txn, FALSE };
      return TRUE;
    }
  r->e = ab_lmdb_env_of (s);
  r->pooled = TRUE;
  int rc = read_begin (r->e, &r->txn);
  if (rc != 0)
    ab_lmdb_set_error (error, rc, "read transaction");
  return rc == 0;
}

/* Ends the read; rc != 0 sets error naming `what`. Returns rc == 0. */
static gboolean
reader_close (Reader *r, int rc, const gchar *what, GError **error)
{
  if (r->pooled)
    read_end (r->e, r->txn);
  if (rc != 0)
    ab_lmdb_set_error (error, rc, what);
  return rc == 0;
}

static gboolean
lmdb_get (AbStore *s, const guint8 *key, gsize klen, GBytes **value, GError **error)
{
  Reader r;
  if (!reader_open (s, &r, error))
    return FALSE;
  return reader_close (&r, get_one (r.e, r.txn, key, klen, value), "get", error);
}

static gboolean
lmdb_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error)
{
  Reader r;
  int rc = 0;
  if (!reader_open (s, &r, error))
    return FALSE;
  for (guint i = 0; rc == 0 && i < keys->len; i++)
    {
      GBytes *k = g_ptr_array_index (keys, i);
      gsize klen;
      const guint8 *kd = g_bytes_get_data (k, &klen);
      AbKv kv = { g_bytes_ref (k), NULL };
      rc = get_one (r.e, r.txn, kd, klen, &kv.value);
      g_array_append_val (out, kv);
    }
  return reader_close (&r, rc, "multi_get", error);
}

/* Put the cursor on the first key inside the range start. A start longer
 * than lmdb allows is looked up by its longest legal prefix, then walked. */
int
ab_lmdb_scan_position (LmdbEnv *e, MDB_cursor *c, const AbScanRange *r, MDB_val *k, MDB_val *v)
{
  int rc;
  if (r->start == NULL || r->start_len == 0)
    return mdb_cursor_get (c, k, v, MDB_FIRST);
  k->mv_data = (void *) r->start;
  k->mv_size = MIN (r->start_len, e->max_key);
  rc = mdb_cursor_get (c, k, v, MDB_SET_RANGE);
  while (rc == 0)
    {
      gint cmp = ab_store_key_compare (k->mv_data, k->mv_size, r->start, r->start_len);
      if (cmp > 0 || (cmp == 0 && r->start_inclusive))
        break;
      rc = mdb_cursor_get (c, k, v, MDB_NEXT);
    }
  return rc;
}

gboolean
ab_lmdb_before_stop (const AbScanRange *r, const MDB_val *k)
{
  gint cmp;
  if (r->stop == NULL)
    return TRUE;
  cmp = ab_store_key_compare (k->mv_data, k->mv_size, r->stop, r->stop_len);
  return cmp < 0 || (cmp == 0 && r->stop_inclusive);
}

/* A leaf's rows lie in its page in the order they were inserted, not in key
 * order, so a walk reads them at scattered places: asking for the whole page
 * when the walk enters it lets those cache misses overlap instead of
 * following one another (scans +7-12%, docs/benchmarks.md). Outside the map
 * (a write transaction's dirty copy) the hint is merely wasted. */
static inline void
prefetch_page (const LmdbEnv *e, guintptr *page, const void *row)
{
  guintptr p = (guintptr) row & ~(guintptr) (e->psize - 1);
  if (p == *page)
    return;
  *page = p;
  for (guint at = 0; at < e->psize; at += 64)
    __builtin_prefetch ((const void *) (p + at));
}

/* The rows of a range in key order to fn until it returns FALSE, the range
 * ends or its limit is reached: the walk under every scan. */
int
ab_lmdb_walk (LmdbEnv *e, MDB_txn *txn, const AbScanRange *r, AbLmdbRowFn fn, gpointer user)
{
  MDB_cursor *c;
  MDB_val k, v;
  guint n = 0;
  guintptr page = 0;
  int rc = mdb_cursor_open (txn, e->dbi, &c);
  if (rc != 0)
    return rc;
  for (rc = ab_lmdb_scan_position (e, c, r, &k, &v); rc == 0;
       rc = mdb_cursor_get (c, &k, &v, MDB_NEXT))
    {
      prefetch_page (e, &page, k.mv_data);
      if (!ab_lmdb_before_stop (r, &k) || (r->limit > 0 && n >= r->limit))
        break;
      n++;
      if (!fn (&k, &v, user))
        break;
    }
  mdb_cursor_close (c);
  return rc == MDB_NOTFOUND ? 0 : rc;
}

static gboolean
append_row (const MDB_val *k, const MDB_val *v, gpointer out)
{
  AbKv kv = { val_bytes (k), val_bytes (v) };
  g_array_append_val ((GArray *) out, kv);
  return TRUE;
}

static gboolean
lmdb_scan (AbStore *s, const AbScanRange *range, GArray *out, GError **error)
{
  Reader r;
  if (!reader_open (s, &r, error))
    return FALSE;
  return reader_close (&r, ab_lmdb_walk (r.e, r.txn, range, append_row, out), "scan", error);
}

typedef struct {
  AbScanVisitor visit;
  gpointer user;
} Visit;

static gboolean
visit_row (const MDB_val *k, const MDB_val *v, gpointer data)
{
  Visit *vi = data;
  return vi->visit (k->mv_data, k->mv_size, v->mv_data, v->mv_size, vi->user);
}

static gboolean
lmdb_scan_with (AbStore *s, const AbScanRange *range, AbScanVisitor visit, gpointer user,
                GError **error)
{
  Reader r;
  Visit vi = { visit, user };
  if (!reader_open (s, &r, error))
    return FALSE;
  return reader_close (&r, ab_lmdb_walk (r.e, r.txn, range, visit_row, &vi), "scan", error);
}

static gboolean
lmdb_get_with (AbStore *s, const guint8 *key, gsize klen, AbScanVisitor visit, gpointer user,
               GError **error)
{
  Reader r;
  if (!reader_open (s, &r, error))
    return FALSE;
  MDB_val k = { klen, (void *) key }, v = { 0, NULL };
  int rc = klen == 0 || klen > r.e->max_key ? MDB_NOTFOUND : mdb_get (r.txn, r.e->dbi, &k, &v);
  static const guint8 empty[1] = { 0 };
  if (rc == 0 && v.mv_data == NULL)
    v.mv_data = (void *) empty; /* "" is not absent */
  if (rc == 0 || rc == MDB_NOTFOUND)
    visit (key, klen, rc == 0 ? v.mv_data : NULL, rc == 0 ? v.mv_size : 0, user);
  return reader_close (&r, rc == MDB_NOTFOUND ? 0 : rc, "get", error);
}

static gboolean
view_write (AbStore *s, const AbBatch *b, GError **error)
{
  g_set_error_literal (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                       "a transaction view is read-only: plans write through their batch");
  return FALSE;
}

static gboolean view_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error);

static gboolean
view_written_since (AbStore *s, guint64 seq, const guint8 *key, gsize klen)
{
  return ab_lmdb_log_written_since (((LmdbView *) s)->env, seq, key, klen);
}

static const AbStoreVTable lmdb_view_vtable = {
  .name = "lmdb-view",
  .written_since = view_written_since,
  .get = lmdb_get,
  .multi_get = view_multi_get,
  .scan = lmdb_scan,
  .get_with = lmdb_get_with,
  .scan_with = lmdb_scan_with,
  .batch = view_write,
};

/* ---- applying one request inside a write transaction ---- */

static int
apply_increment (LmdbEnv *e, MDB_txn *txn, MDB_val *key, gint64 delta, gint64 *out, GError **error)
{
  MDB_val cur, nv;
  guint64 n = 0;
  int rc = mdb_get (txn, e->dbi, key, &cur);
  if (rc == 0)
    {
      if (cur.mv_size != 8)
        {
          g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_WIDTH,
                       "increment of a %zu-byte value (counters are 8-byte big-endian)",
                       cur.mv_size);
          return REQ_FAILED;
        }
      memcpy (&n, cur.mv_data, 8);
      n = GUINT64_FROM_BE (n);
    }
  else if (rc != MDB_NOTFOUND)
    {
      return rc;
    }
  *out = (gint64) (n + (guint64) delta); /* wraps like a Java long */
  n = GUINT64_TO_BE ((guint64) *out);
  nv.mv_size = 8;
  nv.mv_data = &n;
  return mdb_put (txn, e->dbi, key, &nv, 0);
}

static int
apply_mutation (LmdbEnv *e, MDB_txn *txn, const AbMutation *m, GError **error)
{
  MDB_val k, v;
  gint64 ignored;
  int rc;
  k.mv_data = (void *) m->key;
  k.mv_size = m->klen;
  switch (m->kind)
    {
      case AB_MUT_PUT:
        v.mv_data = (void *) m->value;
        v.mv_size = m->vlen;
        return mdb_put (txn, e->dbi, &k, &v, 0);
      case AB_MUT_DELETE: rc = mdb_del (txn, e->dbi, &k, NULL); return rc == MDB_NOTFOUND ? 0 : rc;
      case AB_MUT_INCREMENT:
      case AB_MUT_ADD: return apply_increment (e, txn, &k, m->delta, &ignored, error);
      case AB_MUT_DELETE_IF:
        {
          MDB_val cur;
          gsize elen = m->vlen;
          const guint8 *expected = m->value;
          rc = mdb_get (txn, e->dbi, &k, &cur);
          if (rc == MDB_NOTFOUND)
            return 0;
          if (rc != 0)
            return rc;
          if (cur.mv_size != elen || (elen > 0 && memcmp (cur.mv_data, expected, elen) != 0))
            return 0;
          return mdb_del (txn, e->dbi, &k, NULL);
        }
    }
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "unknown mutation kind %d", (int) m->kind);
  return REQ_FAILED;
}

/* 0 = matches (absent expected and absent found, or same bytes). */
static int
compare_current (LmdbEnv *e, MDB_txn *txn, LmdbReq *req, gboolean *matches)
{
  MDB_val cur;
  int rc = mdb_get (txn, e->dbi, &req->key, &cur);
  if (rc != 0 && rc != MDB_NOTFOUND)
    return rc;
  if (rc == MDB_NOTFOUND || !req->has_expected)
    *matches = rc == MDB_NOTFOUND && !req->has_expected;
  else
    *matches
        = cur.mv_size == req->expected.mv_size
          && (cur.mv_size == 0 || memcmp (cur.mv_data, req->expected.mv_data, cur.mv_size) == 0);
  return 0;
}

static int
apply_batch (LmdbEnv *e, MDB_txn *txn, const AbBatch *b, GError **error)
{
  int rc = 0;
  for (guint i = 0; rc == 0 && i < b->items->len; i++)
    rc = apply_mutation (e, txn, &g_array_index (b->items, AbMutation, i), error);
  return rc;
}

/* ---- a planned batch in key order, through one cursor ----
 * A plan's rows are spread over the whole tree (keys start with a salt);
 * written in key order through one cursor, most of them land on the page the
 * cursor is already on instead of a search from the root each. The sort is
 * stable and only mutations of one key depend on each other, so the outcome
 * is the batch's. */

typedef struct {
  guint64 head; /* 8 key bytes, big-endian, zero-padded: the first (sort_rows: deeper) */
  const guint8 *key;
  gsize len;
  guint index; /* in the batch: ties keep the batch's order */
} SortedRow;

static gint
sorted_row_cmp (gconstpointer pa, gconstpointer pb)
{
  const SortedRow *a = pa, *b = pb;
  if (a->head != b->head)
    return a->head < b->head ? -1 : 1;
  gint c = ab_store_key_compare (a->key, a->len, b->key, b->len);
  if (c != 0)
    return c;
  return a->index < b->index ? -1 : a->index > b->index;
}

static guint64 head_at (const SortedRow *r, gsize depth);

static void
sorted_row_init (SortedRow *r, const guint8 *key, gsize len, guint index)
{
  r->key = key;
  r->len = len;
  r->head = head_at (r, 0);
  r->index = index;
}

/* Rows in (key, index) order, the order qsort with sorted_row_cmp gives.
 * A group commit's rows (tens of thousands in a bulk import) go by a stable
 * radix sort of 8 key bytes at a time: most salted keys differ in their
 * first 8; the rows of one entity (same salt, same source) share a prefix,
 * and a run of equal bytes is sorted by its next 8. A comparison sort of
 * them all cost the committer a third of its instructions. A run of few
 * rows, or one holding a key that ends within the bytes compared, goes by
 * qsort: all copies of one key end up in such a run, where the comparison's
 * last word is the batch index, so one key's mutations keep their order. */
#define RADIX_MIN_ROWS 256

/* The key's 8 bytes from `depth`, big-endian, zero-padded. */
static guint64
head_at (const SortedRow *r, gsize depth)
{
  guint8 b[8] = { 0 };
  if (r->len > depth)
    memcpy (b, r->key + depth, MIN (r->len - depth, sizeof b));
  guint64 h;
  memcpy (&h, b, sizeof h);
  return GUINT64_FROM_BE (h);
}

/* rows[0..n) share their first `depth` bytes, are in index order among
 * equal keys, and their heads are the 8 bytes from depth; spare holds n. */
static void
sort_rows_from (SortedRow *rows, guint n, gsize depth, SortedRow *spare)
{
  g_autofree guint *counts = g_new0 (guint, 8 * 256); /* per head byte, least significant first */
  for (guint i = 0; i < n; i++)
    for (guint b = 0; b < 8; b++)
      counts[b * 256 + ((rows[i].head >> (8 * b)) & 0xff)]++;
  SortedRow *src = rows, *dst = spare;
  for (guint b = 0; b < 8; b++)
    {
      guint *c = counts + b * 256;
      if (c[(rows[0].head >> (8 * b)) & 0xff] == n)
        continue; /* every head has this byte: the pass would keep the order */
      guint at = 0;
      for (guint d = 0; d < 256; d++)
        {
          guint k = c[d];
          c[d] = at;
          at += k;
        }
      for (guint i = 0; i < n; i++) /* stable, though equal keys meet in a qsorted run anyway */
        dst[c[(src[i].head >> (8 * b)) & 0xff]++] = src[i];
      SortedRow *t = src;
      src = dst;
      dst = t;
    }
  if (src != rows)
    memcpy (rows, src, n * sizeof *rows);
  for (guint i = 0, j; i < n; i = j)
    {
      gboolean ends = rows[i].len < depth + 8;
      for (j = i + 1; j < n && rows[j].head == rows[i].head; j++)
        ends |= rows[j].len < depth + 8;
      guint run = j - i;
      if (run < 2)
        continue;
      if (run < RADIX_MIN_ROWS || ends)
        {
          qsort (rows + i, run, sizeof *rows, sorted_row_cmp);
          continue;
        }
      for (guint k = i; k < j; k++)
        rows[k].head = head_at (&rows[k], depth + 8);
      sort_rows_from (rows + i, run, depth + 8, spare);
    }
}

static void
sort_rows (SortedRow *rows, guint n)
{
  if (n < RADIX_MIN_ROWS)
    {
      qsort (rows, n, sizeof *rows, sorted_row_cmp);
      return;
    }
  g_autofree SortedRow *spare = g_new (SortedRow, n);
  sort_rows_from (rows, n, 0, spare);
}

/* A plan's multi_get inside the write transaction: the keys looked up in key
 * order through one cursor (MDB_SET_RANGE, so that a missing key leaves the
 * cursor by the next one); the answer in the caller's order. */
static gboolean
view_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error)
{
  LmdbView *view = (LmdbView *) s;
  LmdbEnv *e = view->env;
  guint n = keys->len, first = out->len;
  for (guint i = 0; i < n; i++)
    {
      AbKv kv = { g_bytes_ref (keys->pdata[i]), NULL };
      g_array_append_val (out, kv);
    }
  if (n == 0)
    return TRUE;
  SortedRow *rows = g_new (SortedRow, n);
  for (guint i = 0; i < n; i++)
    {
      gsize len;
      const guint8 *key = g_bytes_get_data (keys->pdata[i], &len);
      sorted_row_init (&rows[i], key, len, i);
    }
  sort_rows (rows, n);
  MDB_cursor *c = NULL;
  int rc = mdb_cursor_open (view->txn, e->dbi, &c);
  for (guint i = 0; rc == 0 && i < n; i++)
    {
      const SortedRow *r = &rows[i];
      MDB_val k = { r->len, (void *) r->key }, v;
      if (r->len == 0 || r->len > e->max_key)
        continue; /* lmdb cannot hold it: absent */
      rc = mdb_cursor_get (c, &k, &v, MDB_SET_RANGE);
      if (rc == MDB_NOTFOUND)
        rc = 0; /* beyond the last key */
      else if (rc == 0 && k.mv_size == r->len && memcmp (k.mv_data, r->key, r->len) == 0)
        g_array_index (out, AbKv, first + r->index).value = val_bytes (&v);
    }
  if (c != NULL)
    mdb_cursor_close (c);
  g_free (rows);
  if (rc != 0)
    ab_lmdb_set_error (error, rc, "multi_get");
  return rc == 0;
}

/* One mutation at cursor c (the same effects as apply_mutation). Lookups
 * go through their own MDB_val: a found key points into the page. */
static int
apply_at_cursor (MDB_cursor *c, const AbMutation *m, GError **error)
{
  MDB_val k, v, at, cur;
  int rc;
  k.mv_data = (void *) m->key;
  k.mv_size = m->klen;
  if (m->kind == AB_MUT_PUT)
    {
      v.mv_data = (void *) m->value;
      v.mv_size = m->vlen;
      return mdb_cursor_put (c, &k, &v, 0);
    }
  at = k;
  rc = mdb_cursor_get (c, &at, &cur, MDB_SET_KEY);
  if (rc != 0 && rc != MDB_NOTFOUND)
    return rc;
  gboolean found = rc == 0;
  switch (m->kind)
    {
      case AB_MUT_DELETE: return found ? mdb_cursor_del (c, 0) : 0;
      case AB_MUT_INCREMENT:
      case AB_MUT_ADD:
        {
          guint64 n = 0;
          if (found && cur.mv_size != 8)
            {
              g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_WIDTH,
                           "increment of a %zu-byte value (counters are 8-byte big-endian)",
                           cur.mv_size);
              return REQ_FAILED;
            }
          if (found)
            {
              memcpy (&n, cur.mv_data, 8);
              n = GUINT64_FROM_BE (n);
            }
          n = GUINT64_TO_BE (n + (guint64) m->delta); /* wraps like a Java long */
          v.mv_size = 8;
          v.mv_data = &n;
          return mdb_cursor_put (c, &k, &v, 0);
        }
      case AB_MUT_DELETE_IF:
        {
          gsize elen = m->vlen;
          const guint8 *expected = m->value;
          if (!found || cur.mv_size != elen
              || (elen > 0 && memcmp (cur.mv_data, expected, elen) != 0))
            return 0;
          return mdb_cursor_del (c, 0);
        }
      case AB_MUT_PUT: break;
    }
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "unknown mutation kind %d", (int) m->kind);
  return REQ_FAILED;
}

static int
apply_sorted (LmdbEnv *e, MDB_txn *txn, const AbBatch *b, GError **error)
{
  guint n = b->items->len;
  if (n < 2)
    return apply_batch (e, txn, b, error);
  SortedRow *rows = g_new (SortedRow, n);
  for (guint i = 0; i < n; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      sorted_row_init (&rows[i], m->key, m->klen, i);
    }
  sort_rows (rows, n);
  MDB_cursor *c = NULL;
  int rc = mdb_cursor_open (txn, e->dbi, &c);
  for (guint i = 0; rc == 0 && i < n; i++)
    rc = apply_at_cursor (c, &g_array_index (b->items, AbMutation, rows[i].index), error);
  if (c != NULL)
    mdb_cursor_close (c);
  g_free (rows);
  return rc;
}

/* The plan reads through a view of txn and fills its batch from scratch;
 * a refusal (or a key lmdb cannot hold) writes nothing. */
static int
apply_plan (LmdbEnv *e, MDB_txn *txn, LmdbReq *req)
{
  LmdbView view
      = { .base = { .vt = &lmdb_view_vtable, .batch_atomic = TRUE }, .env = e, .txn = txn };
  ab_batch_clear (req->txn_batch);
  if (!req->plan (&view.base, req->txn_batch, req->user, &req->error)
      || !ab_backend_check_batch (req->txn_batch, e->max_key, &req->error))
    {
      if (req->error == NULL)
        g_set_error_literal (&req->error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "the plan failed");
      return REQ_PLAN_FAILED;
    }
  return apply_sorted (e, txn, req->txn_batch, &req->error);
}

static int
apply_kind (LmdbEnv *e, MDB_txn *txn, LmdbReq *req)
{
  int rc = 0;
  switch (req->kind)
    {
      case REQ_BATCH: return apply_batch (e, txn, req->batch, &req->error);
      case REQ_TXN: return apply_plan (e, txn, req);
      case REQ_INCREMENT:
        return apply_increment (e, txn, &req->key, req->delta, &req->new_value, &req->error);
      case REQ_CHECK_AND_PUT:
        if ((rc = compare_current (e, txn, req, &req->applied)) != 0 || !req->applied)
          return rc;
        return mdb_put (txn, e->dbi, &req->key, &req->value, 0);
      case REQ_CHECK_AND_DELETE:
        if ((rc = compare_current (e, txn, req, &req->applied)) != 0 || !req->applied)
          return rc;
        rc = req->has_expected ? mdb_del (txn, e->dbi, &req->key, NULL) : 0;
        return rc;
    }
  return EINVAL;
}

/* Notes b's keys; TRUE when it puts a row (a put or an increment). */
static gboolean
log_batch (LmdbEnv *e, const AbBatch *b)
{
  gboolean puts = FALSE;
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      ab_lmdb_log_key (e, m->key, m->klen);
      puts |= m->kind == AB_MUT_PUT || m->kind == AB_MUT_INCREMENT || m->kind == AB_MUT_ADD;
    }
  return puts;
}

/* One request, its keys noted in the write log whatever came of it (a key
 * noted in vain only costs a later plan a re-read). *puts: it put a row,
 * which the caller notes once the request's writes are in the transaction. */
static int
apply_body (LmdbEnv *e, MDB_txn *txn, LmdbReq *req, gboolean *puts)
{
  int rc = apply_kind (e, txn, req);
  if (req->kind == REQ_BATCH)
    *puts = log_batch (e, req->batch);
  else if (req->kind == REQ_TXN)
    *puts = log_batch (e, req->txn_batch);
  else
    {
      ab_lmdb_log_key (e, req->key.mv_data, req->key.mv_size);
      *puts = req->kind == REQ_INCREMENT || (req->kind == REQ_CHECK_AND_PUT && req->applied);
    }
  return rc;
}

/* Each request runs in a nested transaction so that one failing request is
 * rolled back alone and the others of its group still commit. */
static int
apply_request (LmdbEnv *e, MDB_txn *parent, LmdbReq *req)
{
  MDB_txn *child;
  int rc = mdb_txn_begin (e->env, parent, 0, &child);
  if (rc != 0)
    return rc;
  gboolean puts = FALSE;
  rc = apply_body (e, child, req, &puts);
  if (rc == 0)
    rc = mdb_txn_commit (child);
  else
    mdb_txn_abort (child);
  if (rc == 0 && puts)
    ab_lmdb_log_dirtied (e);
  return rc;
}

/* ---- group commit ---- */

static void
reset_outcome (LmdbReq *req)
{
  g_clear_error (&req->error);
  req->applied = FALSE;
  req->new_value = 0;
}

static void
fail_all (LmdbReq **reqs, guint n, const GError *why)
{
  for (guint i = 0; i < n; i++)
    {
      g_clear_error (&reqs[i]->error);
      reqs[i]->error = g_error_copy (why);
    }
}

#define GROUP_NEEDS_NESTING (-3) /* a request failed after writing: redo with nesting */

/* Apply reqs[0..n) in one parent transaction. First try (nested FALSE):
 * every request straight into the parent, no per-request transaction; a
 * plan that refuses wrote nothing, so only a failure in the middle of a
 * request's writes (rare: a counter that is not 8 bytes, an lmdb error)
 * costs a second try in which each request runs in a nested transaction and
 * is rolled back alone. Returns the lmdb code that ends the attempt
 * (MDB_MAP_FULL asks for a bigger map, GROUP_NEEDS_NESTING for the second
 * try) and *settled, the number of requests applied (fewer than n when the
 * transaction filled up). */
static int
apply_group (LmdbEnv *e, MDB_txn *txn, LmdbReq **reqs, guint n, gboolean nested, guint *settled)
{
  *settled = n;
  for (guint i = 0; i < n; i++)
    {
      int rc;
      reset_outcome (reqs[i]);
      gboolean puts = FALSE;
      if (nested)
        rc = apply_request (e, txn, reqs[i]);
      else if ((rc = apply_body (e, txn, reqs[i], &puts)) == 0 && puts)
        ab_lmdb_log_dirtied (e);
      if (rc == 0 || rc == REQ_PLAN_FAILED || (nested && rc == REQ_FAILED))
        continue;
      if (rc == MDB_MAP_FULL)
        return rc;
      if (!nested)
        {
          if (reqs[i]->error == NULL)
            ab_lmdb_set_error (&reqs[i]->error, rc, "write");
          return GROUP_NEEDS_NESTING;
        }
      if (rc == MDB_TXN_FULL && i > 0)
        {
          g_clear_error (&reqs[i]->error);
          *settled = i; /* the rest go back to the queue for the next group */
          return 0;
        }
      ab_lmdb_set_error (&reqs[i]->error, rc, "write");
    }
  return 0;
}

static guint run_group (LmdbEnv *e, LmdbReq **reqs, guint n);

/* Under MDB_WRITEMAP there are no nested transactions: a group in which a
 * request failed halfway is redone with one transaction per request (one
 * commit each: rare, and correct). A request alone failed on its own: it
 * wrote nothing, its error says why. */
static guint
run_alone (LmdbEnv *e, LmdbReq **reqs, guint n)
{
  if (n == 1)
    return 1;
  for (guint i = 0; i < n; i++)
    run_group (e, reqs + i, 1);
  return n;
}

/* Run one group to a durable commit, growing the map as often as needed.
 * Returns how many requests (a prefix of reqs) are settled. */
static guint
run_group (LmdbEnv *e, LmdbReq **reqs, guint n)
{
  gboolean nested = FALSE;
  for (;;)
    {
      g_autoptr (GError) why = NULL;
      MDB_txn *txn;
      gsize seen;
      guint settled = n;
      int rc = ab_lmdb_begin_locked (e, NULL, 0, &txn, &seen);
      if (rc == 0)
        {
          gsize id = mdb_txn_id (txn);
          ab_lmdb_log_begin (e, txn);
          rc = apply_group (e, txn, reqs, n, nested, &settled);
          if (rc == 0)
            rc = mdb_txn_commit (txn); /* the one fsync of the group */
          else
            mdb_txn_abort (txn);
          if (rc == 0)
            ab_lmdb_log_committed (e, id);
          g_rw_lock_reader_unlock (&e->map_lock);
          if (rc == 0)
            return settled;
          if (rc == GROUP_NEEDS_NESTING && e->writemap)
            return run_alone (e, reqs, n);
          if (rc == GROUP_NEEDS_NESTING)
            {
              nested = TRUE;
              continue;
            }
          if (rc == MDB_MAP_FULL && grow (e, seen, &why))
            continue;
        }
      if (why == NULL)
        set_commit_error (e, rc, &why);
      fail_all (reqs, settled, why);
      return settled;
    }
}

/* Writers that were just acknowledged come back with their next request a
 * moment after the group: when the last group showed more writers than are
 * queued now, wait briefly (at most half a commit) so that they join this
 * group instead of forming the next one. A lone writer never waits. */
static void
gather (LmdbEnv *e)
{
  gint64 wait = MIN (AB_LMDB_GATHER_MAX_US, e->commit_us / 2);
  gint64 deadline = g_get_monotonic_time () + wait;
  if (wait <= 0 || g_queue_get_length (&e->pending) >= e->writers)
    return;
  e->gathering = TRUE;
  while (g_queue_get_length (&e->pending) < e->writers
         && g_cond_wait_until (&e->gather_cond, &e->queue_lock, deadline))
    ;
  e->gathering = FALSE;
}

static void
txn_req_finish (LmdbReq *req)
{
  req->on_done (req->user, req->error);
  g_clear_error (&req->error);
  ab_batch_free (req->txn_batch);
  g_free (req);
}

/* Called with queue_lock held and no leader; returns with it held. */
static void
lead (LmdbEnv *e)
{
  LmdbReq *group[AB_LMDB_MAX_GROUP];
  guint n = 0, settled;
  gint64 start;
  e->leader = TRUE;
  gather (e);
  while (n < AB_LMDB_MAX_GROUP && !g_queue_is_empty (&e->pending))
    group[n++] = g_queue_pop_head (&e->pending);
  g_mutex_unlock (&e->queue_lock);
  start = g_get_monotonic_time ();
  settled = run_group (e, group, n);
  g_mutex_lock (&e->queue_lock);
  e->commit_us = g_get_monotonic_time () - start;
  e->writers = MIN (settled + g_queue_get_length (&e->pending), AB_LMDB_MAX_GROUP);
  guint finished = 0;
  for (guint i = 0; i < settled; i++)
    if (group[i]->kind == REQ_TXN)
      group[finished++] = group[i]; /* answered below, outside the lock */
    else
      group[i]->done = TRUE;
  for (guint i = n; i-- > settled;)
    g_queue_push_head (&e->pending, group[i]);
  e->leader = FALSE;
  g_cond_broadcast (&e->queue_cond);
  if (!g_queue_is_empty (&e->pending))
    g_cond_signal (&e->work_cond);
  if (finished == 0)
    return;
  /* The answers (CDC, response bodies) are written by the completion thread
   * while this one starts the next group: its fsync overlaps that work. */
  GPtrArray *done = g_ptr_array_new_full (finished, NULL);
  for (guint i = 0; i < finished; i++)
    g_ptr_array_add (done, group[i]);
  g_thread_pool_push (e->completions, done, NULL);
}

/* The completion thread: one settled group's REQ_TXN requests, in order. */
static void
complete_group (gpointer data, gpointer unused)
{
  GPtrArray *done = data;
  for (guint i = 0; i < done->len; i++)
    txn_req_finish (done->pdata[i]);
  g_ptr_array_unref (done);
}

/* The committer of an environment's REQ_TXN requests (started by the first
 * one): leads whenever work is queued and nobody leads; drains the queue
 * before it stops. */
static gpointer
committer_main (gpointer data)
{
  LmdbEnv *e = data;
  g_mutex_lock (&e->queue_lock);
  for (;;)
    {
      if (!g_queue_is_empty (&e->pending) && !e->leader)
        lead (e);
      else if (e->stopping && g_queue_is_empty (&e->pending))
        break;
      else
        g_cond_wait (&e->work_cond, &e->queue_lock);
    }
  g_mutex_unlock (&e->queue_lock);
  return NULL;
}

/* Queue a request; whichever waiter finds no leader commits everything
 * queued so far. Returns once the request is durable (or failed). */
static gboolean
submit (LmdbEnv *e, LmdbReq *req, GError **error)
{
  g_mutex_lock (&e->queue_lock);
  g_queue_push_tail (&e->pending, req);
  if (e->gathering)
    g_cond_signal (&e->gather_cond);
  while (!req->done)
    {
      if (e->leader)
        g_cond_wait (&e->queue_cond, &e->queue_lock);
      else
        lead (e);
    }
  g_mutex_unlock (&e->queue_lock);
  if (req->error != NULL)
    {
      g_propagate_error (error, req->error);
      req->error = NULL;
      return FALSE;
    }
  return TRUE;
}

/* ---- write verbs ---- */

static gboolean
lmdb_batch (AbStore *s, const AbBatch *b, GError **error)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  LmdbReq req = { .kind = REQ_BATCH, .batch = b };
  for (guint i = 0; i < b->items->len; i++)
    if (!check_key (e, g_array_index (b->items, AbMutation, i).klen, error))
      return FALSE;
  return submit (e, &req, error);
}

static void
lmdb_transact (AbStore *s, AbTxnPlan plan, AbTxnDone on_done, gpointer user)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  LmdbReq *req = g_new0 (LmdbReq, 1);
  req->kind = REQ_TXN;
  req->plan = plan;
  req->on_done = on_done;
  req->user = user;
  req->txn_batch = ab_batch_new ();
  g_mutex_lock (&e->queue_lock);
  if (e->committer == NULL)
    {
      /* one thread, so a caller's answers come in commit order */
      e->completions = g_thread_pool_new (complete_group, NULL, 1, FALSE, NULL);
      e->committer = g_thread_new ("ab-lmdb-commit", committer_main, e);
    }
  g_queue_push_tail (&e->pending, req);
  if (e->gathering)
    g_cond_signal (&e->gather_cond);
  g_cond_signal (&e->work_cond);
  g_mutex_unlock (&e->queue_lock);
}

static gboolean
lmdb_increment (AbStore *s, const guint8 *key, gsize klen, gint64 delta, gint64 *new_value,
                GError **error)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  LmdbReq req = { .kind = REQ_INCREMENT, .key = { klen, (void *) key }, .delta = delta };
  if (!check_key (e, klen, error) || !submit (e, &req, error))
    return FALSE;
  *new_value = req.new_value;
  return TRUE;
}

static gboolean
submit_check (AbStore *s, LmdbReq *req, gboolean *applied, GError **error)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  if (!check_key (e, req->key.mv_size, error) || !submit (e, req, error))
    return FALSE;
  *applied = req->applied;
  return TRUE;
}

static gboolean
lmdb_check_and_put (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
                    const guint8 *value, gsize vlen, gboolean *applied, GError **error)
{
  LmdbReq req = { .kind = REQ_CHECK_AND_PUT,
                  .key = { klen, (void *) key },
                  .expected = { elen, (void *) expected },
                  .has_expected = expected != NULL,
                  .value = { vlen, (void *) value } };
  return submit_check (s, &req, applied, error);
}

/* expected == NULL: "delete if absent", which applies and changes nothing. */
static gboolean
lmdb_check_and_delete (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected,
                       gsize elen, gboolean *applied, GError **error)
{
  LmdbReq req = { .kind = REQ_CHECK_AND_DELETE,
                  .key = { klen, (void *) key },
                  .expected = { elen, (void *) expected },
                  .has_expected = expected != NULL };
  return submit_check (s, &req, applied, error);
}

/* ---- environments, shared per directory ---- */

static void
env_free (LmdbEnv *e)
{
  if (e->committer != NULL)
    {
      g_mutex_lock (&e->queue_lock);
      e->stopping = TRUE;
      g_cond_signal (&e->work_cond);
      g_mutex_unlock (&e->queue_lock);
      g_thread_join (e->committer);
      g_thread_pool_free (e->completions, FALSE, TRUE); /* runs what is queued */
    }
  slots_release (e);
  g_ptr_array_unref (e->slots);
  for (guint i = 0; i < e->read_pool->len; i++)
    mdb_txn_abort (g_ptr_array_index (e->read_pool, i));
  g_ptr_array_unref (e->read_pool);
  if (e->env != NULL)
    mdb_env_close (e->env);
  g_rw_lock_clear (&e->map_lock);
  g_mutex_clear (&e->pool_lock);
  g_mutex_clear (&e->queue_lock);
  g_cond_clear (&e->queue_cond);
  g_cond_clear (&e->gather_cond);
  g_cond_clear (&e->work_cond);
  ab_lmdb_log_free (e);
  g_free (e->dir.path);
  g_free (e);
}

static int
env_setup (LmdbEnv *e, const AbLmdbOptions *o)
{
  MDB_txn *txn;
  int dead, rc;
  /* Under writemap a commit's new pages are first touched through the map:
   * with readahead each such fault made the kernel zero a whole window of
   * the file's holes (a third of a 1M-edge import's CPU went there). */
  unsigned flags
      = MDB_NOTLS | (o->sync ? 0 : MDB_NOSYNC) | (o->writemap ? MDB_WRITEMAP | MDB_NORDAHEAD : 0);
  e->writemap = o->writemap;
  if ((rc = mdb_env_create (&e->env)) != 0)
    return rc;
  if ((rc = mdb_env_set_mapsize (e->env, o->mapsize)) != 0
      || (rc = mdb_env_set_maxreaders (e->env, AB_LMDB_MAX_READERS)) != 0
      || (rc = mdb_env_open (e->env, e->dir.path, flags, 0644)) != 0)
    return rc;
  mdb_reader_check (e->env, &dead); /* slots left by a killed process */
  if ((rc = mdb_txn_begin (e->env, NULL, 0, &txn)) != 0)
    return rc;
  if ((rc = mdb_dbi_open (txn, NULL, 0, &e->dbi)) != 0)
    {
      mdb_txn_abort (txn);
      return rc;
    }
  if ((rc = mdb_txn_commit (txn)) != 0)
    return rc;
  e->max_key = (gsize) mdb_env_get_maxkeysize (e->env);
  MDB_stat st;
  if ((rc = mdb_env_stat (e->env, &st)) != 0)
    return rc;
  e->psize = st.ms_psize;
  read_mapsize (e);
  return 0;
}

/* With MDB_WRITEMAP the process must be alone on the environment (LMDB:
 * processes with and without it do not cooperate). Every process that has
 * it open holds a shared lock on the first byte of lock.mdb; this one holds
 * none yet (its lock file is opened and closed before LMDB opens it, since
 * closing any descriptor of a file drops the process's locks on it). */
static gboolean
alone_on (const gchar *path, GError **error)
{
  g_autofree gchar *lock = g_build_filename (path, "lock.mdb", NULL);
  int fd = open (lock, O_RDWR | O_CLOEXEC);
  if (fd < 0)
    return TRUE; /* nobody has opened it yet */
  struct flock probe = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
  int rc = fcntl (fd, F_GETLK, &probe);
  close (fd);
  if (rc == 0 && probe.l_type != F_UNLCK)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                   "lmdb %s: writemap=1 needs the store to itself, and process %ld has it open",
                   path, (long) probe.l_pid);
      return FALSE;
    }
  return TRUE;
}

static LmdbEnv *
env_new (const gchar *path, const AbLmdbOptions *o, GError **error)
{
  LmdbEnv *e = g_new0 (LmdbEnv, 1);
  int rc;
  e->dir.path = g_strdup (path);
  e->read_pool = g_ptr_array_new ();
  e->slots = g_ptr_array_new ();
  g_rw_lock_init (&e->map_lock);
  g_mutex_init (&e->pool_lock);
  g_mutex_init (&e->queue_lock);
  g_cond_init (&e->queue_cond);
  g_cond_init (&e->gather_cond);
  g_cond_init (&e->work_cond);
  g_queue_init (&e->pending);
  ab_lmdb_log_init (e);
  if (o->writemap && !alone_on (path, error))
    {
      env_free (e);
      return NULL;
    }
  if ((rc = env_setup (e, o)) != 0)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb open %s: %s", path,
                   mdb_strerror (rc));
      env_free (e);
      return NULL;
    }
  return e;
}

/* A second handle on the same directory shares the first one's environment
 * (lmdb forbids opening one environment twice in a process); its mapsize and
 * sync parameters are then ignored. */
static AbSharedDir *
env_make (const gchar *path, gconstpointer options, GError **error)
{
  LmdbEnv *e = env_new (path, options, error);
  return e != NULL ? &e->dir : NULL;
}

static void
env_release (LmdbEnv *e)
{
  if (ab_dir_registry_release (&registry, &e->dir))
    env_free (e);
}

static void
lmdb_close (AbStore *s)
{
  env_release (ab_lmdb_env_of (s));
  g_free (s);
}

static gboolean
lmdb_sync (AbStore *s, GError **error)
{
  int rc = mdb_env_sync (ab_lmdb_env_of (s)->env, 1);
  if (rc != 0)
    ab_lmdb_set_error (error, rc, "sync");
  return rc == 0;
}

static guint64
lmdb_write_seq (AbStore *s)
{
  return ab_lmdb_log_seq (ab_lmdb_env_of (s));
}

static const AbStoreVTable lmdb_vtable = {
  .name = "lmdb",
  .get = lmdb_get,
  .multi_get = lmdb_multi_get,
  .scan = lmdb_scan,
  .get_with = lmdb_get_with,
  .scan_with = lmdb_scan_with,
  .batch = lmdb_batch,
  .increment = lmdb_increment,
  .check_and_put = lmdb_check_and_put,
  .check_and_delete = lmdb_check_and_delete,
  .close = lmdb_close,
  .transact = lmdb_transact,
  .snapshot_open = ab_lmdb_snapshot_open,
  .snapshot_scan = ab_lmdb_snapshot_scan,
  .snapshot_close = ab_lmdb_snapshot_close,
  .native_backup = ab_lmdb_native_backup,
  .sync = lmdb_sync,
  .write_seq = lmdb_write_seq,
};

AbStore *
ab_store_lmdb_new (const gchar *dir, const AbLmdbOptions *o, GError **error)
{
  LmdbEnv *e = (LmdbEnv *) ab_dir_registry_acquire (&registry, dir, "lmdb", env_make, o, error);
  LmdbStore *ls;
  if (e == NULL)
    return NULL;
  ls = g_new0 (LmdbStore, 1);
  ls->base.vt = &lmdb_vtable;
  ls->base.batch_atomic = TRUE;
  ls->base.never_blocks = TRUE;
  ls->base.max_key = e->max_key;
  ls->env = e;
  return &ls->base;
}
