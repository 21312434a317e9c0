/* The lmdb backend ("lmdb:DIR"): one environment per directory shared by all
 * handles, durable commits, a map that grows when full, and group commit:
 * concurrent writers' requests share one write transaction and one fsync. */
#include "store/lmdb/lmdb-private.h"

#include <errno.h>
#include <sys/statvfs.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define AB_LMDB_READ_POOL 32 /* idle read transactions kept for reuse */
#define AB_LMDB_MAX_READERS 512
#define AB_LMDB_MAX_MAPSIZE ((gsize) 1 << 44) /* 16 TiB: stop doubling here */
static AbDirRegistry registry;                /* one environment per directory */

void
ab_lmdb_set_error (GError **error, int rc, const gchar *what)
{
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb %s: %s", what, mdb_strerror (rc));
}

LmdbEnv *
ab_lmdb_env_of (AbStore *s)
{
  return ((LmdbStore *) s)->env;
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
gboolean
ab_lmdb_grow (LmdbEnv *e, gsize seen, GError **error)
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
                 "lmdb map full at %zu bytes and it cannot ab_lmdb_grow to %zu: %s", seen, want,
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

GBytes *
ab_lmdb_val_bytes (const MDB_val *v)
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
    *value = ab_lmdb_val_bytes (&v);
  return rc == MDB_NOTFOUND ? 0 : rc;
}

/* A read: the view's write transaction, or a pooled read-only one. */
typedef struct {
  LmdbEnv *e;
  MDB_txn *txn;
  gboolean pooled; /* give it back with read_end */
} Reader;

static gboolean
reader_open (AbStore *s, Reader *r, GError **error)
{
  if (s->vt == &ab_lmdb_view_vtable)
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

/* The walk under every scan. */
int
ab_lmdb_walk (LmdbEnv *e, MDB_txn *txn, const AbScanRange *r, AbScanVisitor visit, gpointer user)
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
      if (!visit (k.mv_data, k.mv_size, v.mv_data, v.mv_size, user))
        break;
    }
  mdb_cursor_close (c);
  return rc == MDB_NOTFOUND ? 0 : rc;
}

gboolean
ab_lmdb_scan_with (AbStore *s, const AbScanRange *range, AbScanVisitor visit, gpointer user,
                   GError **error)
{
  Reader r;
  if (!reader_open (s, &r, error))
    return FALSE;
  return reader_close (&r, ab_lmdb_walk (r.e, r.txn, range, visit, user), "scan", error);
}

gboolean
ab_lmdb_get_with (AbStore *s, const guint8 *key, gsize klen, AbScanVisitor visit, gpointer user,
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
  .multi_get = lmdb_multi_get,
  .get_with = ab_lmdb_get_with,
  .scan_with = ab_lmdb_scan_with,
  .submit = ab_lmdb_submit,
  .close = lmdb_close,
  .transact = ab_lmdb_transact,
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
