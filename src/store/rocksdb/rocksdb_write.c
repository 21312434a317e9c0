/* rocksdb writes: one committer thread per database takes every queued
 * write (batches, increments, checks, transaction plans), applies them in
 * order to the group's rows and writes those atomically with one sync. */
#include "store/rocksdb/rocksdb-private.h"

#include <string.h>
#include <sys/statvfs.h>
#include <xxhash.h>

#define AB_ROCKS_MAX_GROUP 1024 /* requests in one write */

/* ---- reads inside the group: its rows over the database ---- */

/* A value read inside the group: the group's bytes, or the database's
 * pinned until released. */
typedef struct {
  const guint8 *data; /* NULL: absent */
  gsize len;
  rocksdb_pinnableslice_t *pin;
  guint8 buf[8]; /* a counter folded from the group's adds */
} GroupValue;

static void
group_value_release (GroupValue *v)
{
  if (v->pin != NULL)
    rocksdb_pinnableslice_destroy (v->pin);
  v->pin = NULL;
}

static gboolean
group_get (RocksEnv *e, const guint8 *key, gsize klen, GroupValue *v, GError **error)
{
  static const guint8 empty[1] = { 0 };
  gint64 sum = 0;
  v->data = NULL;
  v->len = 0;
  v->pin = NULL;
  AbRocksFound found = ab_rocks_group_find (e->group, key, klen, &v->data, &v->len, &sum, v->buf);
  if (found == AB_ROCKS_FOUND_VALUE)
    {
      if (v->data != NULL && v->len == 0)
        v->data = empty; /* "" is not absent */
      return TRUE;
    }
  char *err = NULL;
  v->pin = rocksdb_get_pinned (e->db, e->point, (const char *) key, klen, &err);
  if (err != NULL)
    return ab_rocks_fail (error, err, "read");
  if (v->pin != NULL)
    {
      size_t len = 0;
      const char *data = rocksdb_pinnableslice_value (v->pin, &len);
      v->data = data != NULL ? (const guint8 *) data : empty;
      v->len = len;
    }
  if (found == AB_ROCKS_FOUND_ADDS && (v->data == NULL || v->len == 8))
    {
      ab_rocks_counter_add (v->data, sum, v->buf); /* the group's adds on the stored counter */
      group_value_release (v);
      v->data = v->buf;
      v->len = 8;
    }
  return TRUE;
}

/* A plan's view of the group it runs in: it sees what the requests before
 * it wrote. */
typedef struct {
  AbStore base;
  RocksEnv *env;
} RocksView;

static gboolean
view_get_with (AbStore *s, const guint8 *key, gsize klen, AbScanVisitor visit, gpointer user,
               GError **error)
{
  GroupValue v;
  if (!group_get (((RocksView *) s)->env, key, klen, &v, error))
    return FALSE;
  visit (key, klen, v.data, v.len, user);
  group_value_release (&v);
  return TRUE;
}

static gboolean
view_scan_with (AbStore *s, const AbScanRange *range, AbScanVisitor visit, gpointer user,
                GError **error)
{
  RocksEnv *e = ((RocksView *) s)->env;
  return ab_rocks_scan_db (e, range, NULL, e->group, visit, user, error);
}

static gboolean
view_written_since (AbStore *s, guint64 seq, const guint8 *key, gsize klen)
{
  return ab_write_log_written_since (&((RocksView *) s)->env->wlog, seq, key, klen);
}

static const AbStoreVTable rocks_view_vtable = {
  .name = "rocksdb-view",
  .written_since = view_written_since,
  .get_with = view_get_with,
  .scan_with = view_scan_with,
};

/* ---- applying one request to the group's batch ---- */

/* Every write of the group goes through these, which note its key in the
 * write log: a plan made ahead then knows the rows it read are still so. */
static void
group_put (RocksEnv *e, const guint8 *key, gsize klen, const guint8 *value, gsize vlen,
           gboolean copy)
{
  ab_write_log_key (&e->wlog, key, klen);
  ab_rocks_group_write (e->group, key, klen, value, vlen, copy);
}

static void
group_delete (RocksEnv *e, const guint8 *key, gsize klen)
{
  group_put (e, key, klen, NULL, 0, FALSE);
}

static void
group_add (RocksEnv *e, const guint8 *key, gsize klen, gint64 delta)
{
  ab_write_log_key (&e->wlog, key, klen);
  ab_rocks_group_add (e->group, key, klen, delta);
}

/* The counter at key plus delta, put back as 8 big-endian bytes. */
static gboolean
apply_increment (RocksEnv *e, const guint8 *key, gsize klen, gint64 delta, gint64 *out,
                 GError **error)
{
  GroupValue cur;
  guint8 be[8];
  if (!group_get (e, key, klen, &cur, error))
    return FALSE;
  if (cur.data != NULL && cur.len != 8)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_WIDTH,
                   "increment of a %zu-byte value (counters are 8-byte big-endian)", cur.len);
      group_value_release (&cur);
      return FALSE;
    }
  *out = (gint64) ab_rocks_counter_add (cur.data, delta, be);
  group_value_release (&cur);
  group_put (e, key, klen, be, 8, TRUE);
  return TRUE;
}

/* Whether the current value of key is `expected` (NULL: absent). */
static gboolean
current_is (RocksEnv *e, const guint8 *key, gsize klen, const guint8 *expected, gsize elen,
            gboolean *found, gboolean *matches, GError **error)
{
  GroupValue cur;
  if (!group_get (e, key, klen, &cur, error))
    return FALSE;
  *found = cur.data != NULL;
  if (cur.data == NULL || expected == NULL)
    *matches = cur.data == NULL && expected == NULL;
  else
    *matches = cur.len == elen && (elen == 0 || memcmp (cur.data, expected, elen) == 0);
  group_value_release (&cur);
  return TRUE;
}

static gboolean
apply_batch (RocksEnv *e, const AbBatch *b, GError **error)
{
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      gint64 ignored;
      gboolean found, matches;
      switch (m->kind)
        {
          case AB_MUT_PUT: group_put (e, m->key, m->klen, m->value, m->vlen, FALSE); break;
          case AB_MUT_DELETE: group_delete (e, m->key, m->klen); break;
          case AB_MUT_ADD: group_add (e, m->key, m->klen, m->delta); break;
          case AB_MUT_INCREMENT:
            if (!apply_increment (e, m->key, m->klen, m->delta, &ignored, error))
              return FALSE;
            break;
          case AB_MUT_DELETE_IF:
            if (!current_is (e, m->key, m->klen, m->value, m->vlen, &found, &matches, error))
              return FALSE;
            if (found && matches)
              group_delete (e, m->key, m->klen);
            break;
          default:
            g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "unknown mutation kind %d",
                         (int) m->kind);
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
apply_request (RocksEnv *e, AbQueuedWrite *req, GError **error)
{
  gboolean found, matches;
  switch (req->kind)
    {
      case AB_QUEUED_BATCH: return apply_batch (e, req->batch, error);
      case AB_QUEUED_INCREMENT:
        return apply_increment (e, req->key, req->klen, req->delta, &req->new_value, error);
      case AB_QUEUED_CHECK_AND_PUT:
        if (!current_is (e, req->key, req->klen, req->has_expected ? req->expected : NULL,
                         req->elen, &found, &matches, error))
          return FALSE;
        req->applied = matches;
        if (matches)
          group_put (e, req->key, req->klen, req->value, req->vlen, FALSE);
        return TRUE;
      case AB_QUEUED_CHECK_AND_DELETE:
        if (!current_is (e, req->key, req->klen, req->has_expected ? req->expected : NULL,
                         req->elen, &found, &matches, error))
          return FALSE;
        req->applied = matches;
        if (matches && found)
          group_delete (e, req->key, req->klen);
        return TRUE;
      case AB_QUEUED_TXN:
        {
          RocksView view = { .base = { .vt = &rocks_view_vtable,
                                       .batch_atomic = TRUE,
                                       .never_blocks = TRUE,
                                       .max_key = AB_STORE_HBASE_MAX_KEY },
                             .env = e };
          ab_batch_clear (req->txn_batch);
          return req->plan (&view.base, req->txn_batch, req->user, error)
                 && ab_backend_check_batch (req->txn_batch, AB_STORE_HBASE_MAX_KEY, error)
                 && apply_batch (e, req->txn_batch, error);
        }
      case AB_QUEUED_INGEST: break; /* never in a group: run_ingest */
    }
  return FALSE;
}

/* ---- the committer ---- */

/* The completion thread: a settled transaction's answer. */
static void
txn_finish (gpointer req, gpointer unused)
{
  (void) unused;
  ab_queued_txn_finish (req);
}

/* Room on the disk for a write of `bytes` and the memtable flushes it may
 * lead to. RocksDB 7.8 (Debian's build keeps its assertions) aborts the
 * process when an append to its write-ahead log meets a full disk, so a
 * write that could meet one is refused first, as unavailable (503), and
 * writes resume by themselves once there is room again. */
static gboolean
room_to_write (RocksEnv *e, gsize bytes, GError **error)
{
  struct statvfs st;
  if (statvfs (e->dir.path, &st) != 0)
    return TRUE; /* cannot tell: RocksDB reports what it meets */
  guint64 avail = (guint64) st.f_bavail * st.f_frsize;
  guint64 need = bytes + ab_rocks_disk_reserve (&e->o);
  if (avail >= need)
    return TRUE;
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
               "rocksdb %s: the disk is full (%" G_GUINT64_FORMAT
               " KiB free, a write needs %" G_GUINT64_FORMAT
               " KiB with room for a memtable flush): writes resume once space is freed",
               e->dir.path, avail >> 10, need >> 10);
  return FALSE;
}

/* A hot counter's operands would pile up in the memtable until a flush
 * folds them, and every read would fold them all. RocksDB's own bound
 * (max_successive_merges) searches the memtable for the key's operands at
 * every add: a fifth of the committer under a write load. Instead the
 * committer counts the operands it writes per counter in a sketch (a byte
 * per hash slot, never less than the key's own count unless a key sharing
 * its slot was folded) and writes the counter's value as a put once it
 * reaches AB_ROCKS_FOLD_AFTER: one read per that many adds. */
#define AB_ROCKS_FOLD_SLOTS ((gsize) 1 << 20)
#define AB_ROCKS_FOLD_AFTER 64

static gboolean
fold_counter (gpointer user, const guint8 *key, gsize klen, gint64 sum, guint8 out[8])
{
  RocksEnv *e = user;
  guint8 *count = &e->operands[XXH3_64bits (key, klen) % AB_ROCKS_FOLD_SLOTS];
  if (++*count < AB_ROCKS_FOLD_AFTER)
    return FALSE;
  *count = 0;
  char *err = NULL;
  rocksdb_pinnableslice_t *pin
      = rocksdb_get_pinned (e->db, e->point, (const char *) key, klen, &err);
  size_t len = 0;
  const char *cur = pin != NULL ? rocksdb_pinnableslice_value (pin, &len) : NULL;
  gboolean folded = err == NULL && (cur == NULL || len == 8);
  if (folded) /* else an operand: the merge operator says what it makes of it */
    ab_rocks_counter_add ((const guint8 *) cur, sum, out);
  rocksdb_pinnableslice_destroy (pin);
  g_free (err);
  return folded;
}

/* Applies reqs[0..n) to the group, each undone alone if it fails, writes
 * the group as one batch in key order, then answers each request. */
static void
run_group (RocksEnv *e, AbQueuedWrite **reqs, guint n)
{
  char *err = NULL;
  ab_rocks_group_clear (e->group);
  ab_write_log_begin (&e->wlog, FALSE); /* RocksDB lets no other process write */
  for (guint i = 0; i < n; i++)
    {
      guint mark = ab_rocks_group_mark (e->group);
      if (!apply_request (e, reqs[i], &reqs[i]->error))
        ab_rocks_group_rollback (e->group, mark);
    }
  rocksdb_writebatch_clear (e->batch);
  GError *why = NULL;
  if (ab_rocks_group_fill (e->group, e->batch, fold_counter, e) > 0)
    {
      size_t bytes = 0;
      rocksdb_writebatch_data (e->batch, &bytes);
      if (room_to_write (e, bytes, &why))
        rocksdb_write (e->db, e->write, e->batch, &err);
    }
  if (err != NULL)
    ab_rocks_fail (&why, err, "write");
  else if (why == NULL)
    ab_write_log_committed (&e->wlog);
  for (guint i = 0; i < n; i++)
    {
      AbQueuedWrite *req = reqs[i];
      if (why != NULL && req->error == NULL)
        req->error = g_error_copy (why);
      if (req->kind == AB_QUEUED_TXN)
        g_thread_pool_push (e->completions, req, NULL); /* one thread: in commit order */
      else
        ab_wait_signal (req->wait);
    }
  g_clear_error (&why);
  ab_rocks_group_clear (e->group); /* borrowed bytes go back with their requests */
}

/* Ingests a sorted load's table file (moved into the database). Its keys
 * are not in the write log, so every plan made before it re-reads. */
static void
run_ingest (RocksEnv *e, AbQueuedWrite *req)
{
  ab_write_log_begin (&e->wlog, TRUE);
  if (room_to_write (e, 0, &req->error))
    {
      char *err = NULL;
      rocksdb_ingestexternalfileoptions_t *io = rocksdb_ingestexternalfileoptions_create ();
      rocksdb_ingestexternalfileoptions_set_move_files (io, 1);
      const char *files[] = { req->path };
      rocksdb_ingest_external_file (e->db, files, 1, io, &err);
      rocksdb_ingestexternalfileoptions_destroy (io);
      if (err != NULL)
        ab_rocks_fail (&req->error, err, "ingest a table file");
    }
  if (req->error == NULL)
    ab_write_log_committed (&e->wlog);
  ab_wait_signal (req->wait);
}

static gboolean
next_is_ingest (RocksEnv *e)
{
  return ((AbQueuedWrite *) g_queue_peek_head (&e->pending))->kind == AB_QUEUED_INGEST;
}

static gpointer
committer_main (gpointer data)
{
  RocksEnv *e = data;
  AbQueuedWrite *group[AB_ROCKS_MAX_GROUP];
  g_mutex_lock (&e->queue_lock);
  for (;;)
    {
      if (g_queue_is_empty (&e->pending))
        {
          if (e->stopping)
            break;
          g_cond_wait (&e->work_cond, &e->queue_lock);
          continue;
        }
      if (next_is_ingest (e))
        {
          AbQueuedWrite *req = g_queue_pop_head (&e->pending);
          g_mutex_unlock (&e->queue_lock);
          run_ingest (e, req);
          g_mutex_lock (&e->queue_lock);
          continue;
        }
      guint n = 0;
      while (n < AB_ROCKS_MAX_GROUP && !g_queue_is_empty (&e->pending) && !next_is_ingest (e))
        group[n++] = g_queue_pop_head (&e->pending);
      g_mutex_unlock (&e->queue_lock);
      run_group (e, group, n);
      g_mutex_lock (&e->queue_lock);
    }
  g_mutex_unlock (&e->queue_lock);
  return NULL;
}

guint64
ab_rocks_write_seq (AbStore *s)
{
  return ab_write_log_seq (&ab_rocks_env_of (s)->wlog);
}

void
ab_rocks_committer_start (RocksEnv *e)
{
  ab_write_log_init (&e->wlog);
  e->group = ab_rocks_group_new ();
  e->batch = rocksdb_writebatch_create ();
  e->operands = g_new0 (guint8, AB_ROCKS_FOLD_SLOTS);
  e->completions = g_thread_pool_new (txn_finish, NULL, 1, FALSE, NULL);
  e->committer = g_thread_new ("ab-rocks-commit", committer_main, e);
}

void
ab_rocks_committer_stop (RocksEnv *e)
{
  if (e->committer == NULL)
    return;
  g_mutex_lock (&e->queue_lock);
  e->stopping = TRUE;
  g_cond_signal (&e->work_cond);
  g_mutex_unlock (&e->queue_lock);
  g_thread_join (e->committer);
  e->committer = NULL;
  g_thread_pool_free (e->completions, FALSE, TRUE); /* runs what is queued */
  ab_rocks_group_free (e->group);
  ab_write_log_free (&e->wlog);
  rocksdb_writebatch_destroy (e->batch);
  g_free (e->operands);
}

static void
enqueue (RocksEnv *e, AbQueuedWrite *req)
{
  g_mutex_lock (&e->queue_lock);
  g_queue_push_tail (&e->pending, req);
  g_cond_signal (&e->work_cond);
  g_mutex_unlock (&e->queue_lock);
}

static gboolean
read_only (RocksEnv *e, GError **error)
{
  if (!e->o.readonly)
    return FALSE;
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
               "rocksdb %s is open read-only (readonly=1): it takes no writes", e->dir.path);
  return TRUE;
}

/* ---- write verbs ---- */

/* Queues a synchronous request and waits until it is durable or failed. */
gboolean
ab_rocks_submit (AbStore *s, AbQueuedWrite *req, GError **error)
{
  AbWait wait;
  if (read_only (ab_rocks_env_of (s), error))
    return FALSE;
  ab_wait_init (&wait);
  req->wait = &wait;
  enqueue (ab_rocks_env_of (s), req);
  ab_wait_until_signalled (&wait);
  if (req->error == NULL)
    return TRUE;
  g_propagate_error (error, req->error);
  req->error = NULL;
  return FALSE;
}

gboolean
ab_rocks_ingest (AbStore *s, const gchar *path, GError **error)
{
  AbQueuedWrite req = { .kind = AB_QUEUED_INGEST, .path = path };
  return ab_rocks_submit (s, &req, error);
}

void
ab_rocks_transact (AbStore *s, AbTxnPlan plan, AbTxnDone on_done, gpointer user)
{
  g_autoptr (GError) refused = NULL;
  if (read_only (ab_rocks_env_of (s), &refused))
    {
      on_done (user, refused);
      return;
    }
  enqueue (ab_rocks_env_of (s), ab_queued_txn_new (plan, on_done, user));
}
