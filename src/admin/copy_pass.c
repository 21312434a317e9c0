/* The pass of actionbase-admin copy: which rows are chosen, the readers (a
 * snapshot in key order, several key ranges at once from a remote store; on a
 * --rescan the target beside it), the writers, and each range's safe position. */
#include <stdio.h>
#include <string.h>
#include "admin/copy-private.h"
#include "catalog/catalog.h"
#include "codec/bytes.h"
#include "codec/element.h"

#define COPY_CHECKPOINT_EVERY_US (G_USEC_PER_SEC)
#define COPY_CHECKPOINT_LOG_EVERY_US (60 * G_USEC_PER_SEC)

/* The TTL expiry index of the engine: prefix || be64(expiry) || groupCell
 * (docs/storage-format.md §10); its table is the group cell's. */
static const guint8 TTL_PREFIX[] = { 0, 0, 0, 0, 0, 'a', 'b', 't', 't', 'l', 0 };
#define TTL_CELL_AT (sizeof TTL_PREFIX + 8)
/* Top-K due rows (storage-format.md §10): prefix || be64(due) || score key. */
static const guint8 DUE_PREFIX[] = { 0, 0, 0, 0, 0, 'a', 'b', 't', 'o', 'p', 'k', 0 };
#define DUE_KEY_AT (sizeof DUE_PREFIX + 8)

/* A key range read by one reader: the keys whose first (salt) byte is in
 * [lo, hi) (docs/storage-format.md §3: salts spread keys evenly over it). */
typedef struct {
  guint index;
  GByteArray *lo, *hi; /* NULL: open */
  /* its reader */
  struct _CopyBatch *cur;
  guint64 next_seq;
  /* under AbCopy.lock */
  GHashTable *done; /* seq -> CopyBatch*, completed but not yet contiguous */
  guint64 commit_seq;
  GByteArray *safe_pos; /* every key of the range at or below it is written */
} CopyRange;

/* One batch: the mutations of the keys in (previous batch's last, last] of
 * its range. */
typedef struct _CopyBatch {
  CopyRange *range;
  guint64 seq;
  AbBatch *batch;
  GByteArray *last;
  guint64 scanned; /* keys looked at (both stores, selected or not) */
  guint64 rows;    /* selected source rows */
  guint64 puts, dels;
  gboolean pooled;
} CopyBatch;

/* ---- small helpers ---- */

static void
copy_batch_free (CopyBatch *b)
{
  if (b == NULL)
    return;
  g_clear_pointer (&b->batch, ab_batch_free);
  g_clear_pointer (&b->last, g_byte_array_unref);
  g_free (b);
}

static GByteArray *
bytes_dup (const guint8 *data, gsize len)
{
  GByteArray *a = g_byte_array_sized_new ((guint) len);
  g_byte_array_append (a, data, (guint) len);
  return a;
}

/* ---- key ranges ---- */

static void
copy_range_free (gpointer p)
{
  CopyRange *r = p;
  g_clear_pointer (&r->cur, copy_batch_free);
  g_clear_pointer (&r->lo, g_byte_array_unref);
  g_clear_pointer (&r->hi, g_byte_array_unref);
  g_clear_pointer (&r->done, g_hash_table_unref);
  g_clear_pointer (&r->safe_pos, g_byte_array_unref);
  g_free (r);
}

/* n ranges over the first key byte: range i holds the keys whose first byte
 * is in [i * 256 / n, (i + 1) * 256 / n), the first one also the keys before
 * (none: keys are not empty), the last one the rest; positions (NULL or n
 * of them) say where each was. */
GPtrArray *
ab_admin_copy_ranges_new (guint n, const GPtrArray *positions)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (copy_range_free);
  for (guint i = 0; i < n; i++)
    {
      CopyRange *r = g_new0 (CopyRange, 1);
      r->index = i;
      r->done = g_hash_table_new (g_int64_hash, g_int64_equal);
      if (i > 0)
        {
          guint8 b = (guint8) (i * 256 / n);
          r->lo = bytes_dup (&b, 1);
        }
      if (i + 1 < n)
        {
          guint8 b = (guint8) ((i + 1) * 256 / n);
          r->hi = bytes_dup (&b, 1);
        }
      const GByteArray *p = positions != NULL ? positions->pdata[i] : NULL;
      if (p != NULL)
        r->safe_pos = bytes_dup (p->data, p->len);
      g_ptr_array_add (a, r);
    }
  return a;
}

/* ---- which rows ---- */

static gboolean
data_selected (const AbCopy *c, const guint8 *k, gsize n)
{
  gsize pos = 4;
  gint32 code;
  if (n < 5 || !ab_codec_skip (k, n, &pos, NULL) || !ab_codec_get_int32 (k, n, &pos, &code, NULL))
    return FALSE;
  return g_hash_table_contains (c->codes, GINT_TO_POINTER (code));
}

/* Everything without --database; else the catalog rows of the chosen
 * databases, the rows whose table code is one of their tables', and the TTL
 * index entries of those tables' group cells. Catalog-wide rows (revision,
 * API keys, storages) and other reserved rows (the applier position) belong
 * to no database and are left out. */
static gboolean
key_selected (const AbCopy *c, const guint8 *k, gsize n)
{
  gchar *db = NULL;
  if (c->dbs == NULL)
    return TRUE;
  if (ab_catalog_key_database (k, n, &db))
    {
      gboolean in = db != NULL && g_hash_table_contains (c->dbs, db);
      g_free (db);
      return in;
    }
  if (n > TTL_CELL_AT && memcmp (k, TTL_PREFIX, sizeof TTL_PREFIX) == 0)
    return data_selected (c, k + TTL_CELL_AT, n - TTL_CELL_AT);
  if (n > DUE_KEY_AT && memcmp (k, DUE_PREFIX, sizeof DUE_PREFIX) == 0)
    return data_selected (c, k + DUE_KEY_AT, n - DUE_KEY_AT);
  return data_selected (c, k, n);
}

static gboolean
add_codes (AbCopy *c, AbStore *store, gboolean must_exist, GError **error)
{
  AbCatalog *cat = ab_catalog_open (store, error);
  if (cat == NULL)
    return FALSE;
  for (guint i = 0; i < c->o->databases->len; i++)
    {
      const gchar *name = c->o->databases->pdata[i];
      g_autoptr (AbDatabaseDesc) d = ab_catalog_get_database (cat, name);
      if (d == NULL && must_exist)
        {
          g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND,
                       "no database '%s' in the source %s", name, c->o->from);
          ab_catalog_free (cat);
          return FALSE;
        }
      g_autoptr (GPtrArray) tables = ab_catalog_list_tables (cat, name);
      for (guint j = 0; j < tables->len; j++)
        g_hash_table_add (c->codes,
                          GINT_TO_POINTER (((const AbTableDesc *) tables->pdata[j])->code));
    }
  ab_catalog_free (cat);
  return TRUE;
}

/* The table codes of the chosen databases: the source's tables, and on a
 * rescan the target's too (a table dropped in the source since the first
 * pass still has rows in the target, which the rescan deletes). */
gboolean
ab_admin_copy_build_filter (AbCopy *c, GError **error)
{
  if (c->o->databases->len == 0)
    return TRUE;
  c->dbs = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < c->o->databases->len; i++)
    g_hash_table_add (c->dbs, c->o->databases->pdata[i]);
  c->codes = g_hash_table_new (NULL, NULL);
  return add_codes (c, c->from, TRUE, error)
         && (!c->o->rescan || add_codes (c, c->to, FALSE, error));
}

/* ---- writers ---- */

void
ab_admin_copy_fail (AbCopy *c, GError *err)
{
  g_mutex_lock (&c->lock);
  if (c->error == NULL)
    c->error = err;
  else
    g_error_free (err);
  g_atomic_int_set (&c->stopped, 1);
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
}

static gboolean
failed (AbCopy *c)
{
  return g_atomic_int_get (&c->stopped) != 0;
}

/* A batch is done (ok) or abandoned: the safe position moves past every
 * batch of a contiguous prefix of completed ones, never past a gap. */
static void
complete (AbCopy *c, CopyBatch *b, gboolean ok)
{
  guint64 rows = b->rows;
  gboolean pooled = b->pooled;
  CopyRange *r = b->range;
  g_mutex_lock (&c->lock);
  if (ok)
    g_hash_table_insert (r->done, &b->seq, b);
  else
    copy_batch_free (b);
  CopyBatch *next;
  while ((next = g_hash_table_lookup (r->done, &r->commit_seq)) != NULL)
    {
      g_hash_table_remove (r->done, &r->commit_seq);
      g_clear_pointer (&r->safe_pos, g_byte_array_unref);
      r->safe_pos = g_steal_pointer (&next->last);
      c->rows += next->rows;
      c->written += next->puts;
      c->deleted += next->dels;
      c->dirty = TRUE;
      r->commit_seq++;
      copy_batch_free (next);
    }
  if (pooled)
    c->in_flight--;
  g_cond_broadcast (&c->cond);
  g_mutex_unlock (&c->lock);
  if (ok && rows > 0)
    ab_progress_add (c->progress, rows);
}

static guint8 stop_writer; /* its address is the queue's end marker */
#define STOP ((gpointer) &stop_writer)

static void
write_batch (AbCopy *c, CopyBatch *b)
{
  GError *err = NULL;
  if (failed (c))
    {
      complete (c, b, FALSE);
      return;
    }
  if (!ab_store_batch (c->to, b->batch, &err))
    {
      g_prefix_error (&err, "writing to %s: ", c->o->to);
      ab_admin_copy_fail (c, err);
      complete (c, b, FALSE);
      return;
    }
  complete (c, b, TRUE);
}

/* One writer thread: batches from the queue until STOP. Concurrent
 * ab_store_batch calls are safe on every store (lmdb queues them for one
 * committer; hbase checks a connection out of its pool per call). */
static gpointer
writer (gpointer user)
{
  AbCopy *c = user;
  gpointer item;
  while ((item = g_async_queue_pop (c->queue)) != STOP)
    write_batch (c, item);
  return NULL;
}

static void
writers_start (AbCopy *c)
{
  c->queue = g_async_queue_new ();
  c->writers = g_ptr_array_new ();
  for (gint i = 0; i < c->o->threads; i++)
    g_ptr_array_add (c->writers, g_thread_new ("ab-copy-write", writer, c));
}

static void
writers_stop (AbCopy *c)
{
  for (guint i = 0; i < c->writers->len; i++)
    g_async_queue_push (c->queue, STOP);
  for (guint i = 0; i < c->writers->len; i++)
    g_thread_join (c->writers->pdata[i]);
  g_clear_pointer (&c->writers, g_ptr_array_unref);
  g_clear_pointer (&c->queue, g_async_queue_unref);
}

/* ---- the checkpoint while copying (reader thread) ---- */

void
ab_admin_copy_fill_checkpoint (AbCopy *c, AbCopyCheckpoint *ck, gboolean complete_pass)
{
  g_mutex_lock (&c->lock);
  ck->mode = g_strdup (c->o->rescan ? "rescan" : "copy");
  ck->complete = complete_pass;
  ck->positions = ab_admin_copy_positions_new (c->ranges->len);
  for (guint i = 0; i < c->ranges->len; i++)
    {
      const CopyRange *r = c->ranges->pdata[i];
      if (r->safe_pos != NULL)
        ck->positions->pdata[i] = bytes_dup (r->safe_pos->data, r->safe_pos->len);
    }
  ck->rows = c->rows;
  ck->written = c->written;
  ck->deleted = c->deleted;
  c->dirty = FALSE;
  g_mutex_unlock (&c->lock);
  const AbCatchUp *cu = &c->catch_up;
  if (cu->position != NULL)
    {
      ck->wal_position = bytes_dup (cu->position->data, cu->position->len);
      ck->wal_since_ms = cu->since_ms;
      ck->wal_read = cu->read;
      ck->wal_applied = cu->applied;
      ck->wal_running = c->wal_running;
      ck->wal_interrupted = c->wal_interrupted;
    }
}

/* At most once a second, when a safe position moved; by whichever reader
 * comes first (the others go on reading meanwhile). */
static void
maybe_checkpoint (AbCopy *c)
{
  gint64 now = g_get_monotonic_time ();
  AbCopyCheckpoint ck = { 0 };
  GError *err = NULL;
  if (!g_mutex_trylock (&c->ckpt_lock))
    return;
  if (now - c->last_ckpt < COPY_CHECKPOINT_EVERY_US)
    {
      g_mutex_unlock (&c->ckpt_lock);
      return;
    }
  g_mutex_lock (&c->lock);
  gboolean dirty = c->dirty;
  g_mutex_unlock (&c->lock);
  if (!dirty)
    {
      g_mutex_unlock (&c->ckpt_lock);
      return;
    }
  c->last_ckpt = now;
  ab_admin_copy_fill_checkpoint (c, &ck, FALSE);
  if (!ab_admin_copy_checkpoint_save (c->o, &ck, &err))
    ab_admin_copy_fail (c, err);
  else if (!c->logged_first || now - c->last_log >= COPY_CHECKPOINT_LOG_EVERY_US)
    {
      c->logged_first = TRUE;
      c->last_log = now;
      fprintf (stderr, "actionbase-admin copy: checkpoint: %" G_GUINT64_FORMAT " rows written\n",
               ck.rows);
    }
  ab_admin_copy_checkpoint_clear (&ck);
  g_mutex_unlock (&c->ckpt_lock);
}

/* ---- reader ---- */

static CopyBatch *
current (CopyRange *r)
{
  if (r->cur == NULL)
    {
      r->cur = g_new0 (CopyBatch, 1);
      r->cur->range = r;
      r->cur->batch = ab_batch_new ();
      r->cur->last = g_byte_array_new ();
    }
  return r->cur;
}

/* Hands the range's current batch over: to the writers, or straight to
 * completion when it has nothing to write (a rescan range that already
 * matched). */
static void
dispatch (AbCopy *c, CopyRange *r)
{
  CopyBatch *b = g_steal_pointer (&r->cur);
  if (b == NULL)
    return;
  b->seq = r->next_seq++;
  if (ab_batch_len (b->batch) == 0)
    complete (c, b, TRUE);
  else
    {
      g_mutex_lock (&c->lock);
      while (c->in_flight >= c->max_in_flight && c->error == NULL)
        g_cond_wait (&c->cond, &c->lock);
      gboolean go = c->error == NULL;
      if (go)
        c->in_flight++;
      g_mutex_unlock (&c->lock);
      if (!go)
        {
          copy_batch_free (b);
          return;
        }
      b->pooled = TRUE;
      g_async_queue_push (c->queue, b);
    }
  maybe_checkpoint (c);
}

/* Every key a reader passes, in key order, goes through here. */
static void
note_key (AbCopy *c, CopyRange *r, const guint8 *k, gsize n)
{
  CopyBatch *b = current (r);
  g_byte_array_set_size (b->last, 0);
  g_byte_array_append (b->last, k, (guint) n);
  if (++b->scanned >= (guint64) c->o->batch)
    dispatch (c, r);
}

static gboolean
emit_put (AbCopy *c, CopyRange *r, const guint8 *k, gsize kn, const guint8 *v, gsize vn)
{
  if (kn > c->max_key)
    {
      g_autofree gchar *hex = ab_codec_hex (k, MIN (kn, 48));
      ab_admin_copy_fail (
          c, g_error_new (AB_STORE_ERROR, AB_STORE_ERROR_IO,
                          "a key of %zu bytes (%s...) is longer than the %zu bytes %s takes", kn,
                          hex, c->max_key, c->o->to));
      return FALSE;
    }
  CopyBatch *b = current (r);
  ab_batch_put (b->batch, k, kn, v, vn);
  b->puts++;
  return TRUE;
}

/* The target's next row on a rescan (NULL at its end). */
static const AbKv *
target_head (AbCopy *c)
{
  if (c->tpos < c->tpage->len)
    return &g_array_index (c->tpage, AbKv, c->tpos);
  if (c->tend)
    return NULL;
  GError *err = NULL;
  AbScanRange r = { .limit = (guint) c->o->batch };
  if (c->tafter != NULL)
    {
      r.start = c->tafter->data;
      r.start_len = c->tafter->len;
      r.start_inclusive = FALSE;
    }
  g_array_set_size (c->tpage, 0);
  c->tpos = 0;
  if (!ab_store_scan (c->to, &r, c->tpage, &err))
    {
      g_prefix_error (&err, "reading %s: ", c->o->to);
      ab_admin_copy_fail (c, err);
      c->tend = TRUE;
      return NULL;
    }
  if (c->tpage->len < r.limit)
    c->tend = TRUE;
  if (c->tpage->len == 0)
    return NULL;
  const AbKv *last = &g_array_index (c->tpage, AbKv, c->tpage->len - 1);
  gsize ln;
  const guint8 *lk = g_bytes_get_data (last->key, &ln);
  g_clear_pointer (&c->tafter, g_byte_array_unref);
  c->tafter = bytes_dup (lk, ln);
  return &g_array_index (c->tpage, AbKv, 0);
}

/* A target row the source does not have: deleted when selected (a rescan
 * reads one range, the first). */
static void
target_only (AbCopy *c, const guint8 *k, gsize n)
{
  CopyRange *r = c->ranges->pdata[0];
  if (key_selected (c, k, n))
    {
      CopyBatch *b = current (r);
      ab_batch_delete (b->batch, k, n);
      b->dels++;
    }
  note_key (c, r, k, n);
}

/* Rescan: the target rows before k are not in the source; *same says
 * whether the target holds k with exactly v. */
static void
rescan_until (AbCopy *c, const guint8 *k, gsize kn, const guint8 *v, gsize vn, gboolean *same)
{
  const AbKv *t;
  *same = FALSE;
  while ((t = target_head (c)) != NULL)
    {
      gsize tn, tvn;
      const guint8 *tk = g_bytes_get_data (t->key, &tn);
      gint cmp = k != NULL ? ab_store_key_compare (tk, tn, k, kn) : -1;
      if (cmp > 0)
        return;
      if (cmp == 0)
        {
          const guint8 *tv = g_bytes_get_data (t->value, &tvn);
          *same = tvn == vn && (vn == 0 || memcmp (tv, v, vn) == 0);
          c->tpos++;
          return;
        }
      target_only (c, tk, tn);
      c->tpos++;
    }
}

/* What one reader thread works on. */
typedef struct {
  AbCopy *c;
  CopyRange *r;
  AbSnapshot *snap;
} Reader;

static gboolean
visit (const guint8 *k, gsize kn, const guint8 *v, gsize vn, gpointer user)
{
  Reader *rd = user;
  AbCopy *c = rd->c;
  gboolean same = FALSE;
  if (failed (c))
    return FALSE;
  if (c->o->rescan)
    rescan_until (c, k, kn, v, vn, &same);
  if (key_selected (c, k, kn))
    {
      current (rd->r)->rows++;
      if (!same && !emit_put (c, rd->r, k, kn, v, vn))
        return FALSE;
    }
  note_key (c, rd->r, k, kn);
  return TRUE;
}

/* One range of the snapshot, after its safe position, then its last batch. */
static gpointer
read_range (gpointer user)
{
  Reader *rd = user;
  AbCopy *c = rd->c;
  CopyRange *r = rd->r;
  GError *err = NULL;
  AbScanRange sr = { 0 };
  g_mutex_lock (&c->lock);
  g_autoptr (GByteArray) after = r->safe_pos != NULL ? g_byte_array_ref (r->safe_pos) : NULL;
  g_mutex_unlock (&c->lock);
  if (after != NULL)
    {
      sr.start = after->data;
      sr.start_len = after->len;
      sr.start_inclusive = FALSE;
    }
  else if (r->lo != NULL)
    {
      sr.start = r->lo->data;
      sr.start_len = r->lo->len;
      sr.start_inclusive = TRUE;
    }
  if (r->hi != NULL)
    {
      sr.stop = r->hi->data;
      sr.stop_len = r->hi->len;
      sr.stop_inclusive = FALSE;
    }
  if (!ab_snapshot_scan (rd->snap, &sr, visit, rd, &err))
    {
      g_prefix_error (&err, "reading %s: ", c->o->from);
      ab_admin_copy_fail (c, err);
    }
  if (!failed (c) && !c->o->rescan)
    dispatch (c, r);
  return NULL;
}

/* The reading of the pass: one snapshot, each range read after its position (the ranges
 * at once on their own threads when there are several), the target drained
 * on a rescan, every batch waited for. FALSE when it stopped early
 * (c->error). */
static gboolean
read_pass (AbCopy *c)
{
  GError *err = NULL;
  AbSnapshot *snap = ab_store_snapshot_open (c->from, &err);
  if (snap == NULL)
    {
      g_prefix_error (&err, "snapshot of %s: ", c->o->from);
      ab_admin_copy_fail (c, err);
      return FALSE;
    }
  guint n = c->ranges->len;
  g_autofree Reader *readers = g_new0 (Reader, n);
  g_autofree GThread **threads = g_new0 (GThread *, n);
  for (guint i = 0; i < n; i++)
    readers[i] = (Reader){ c, c->ranges->pdata[i], snap };
  if (c->o->rescan)
    {
      CopyRange *r = c->ranges->pdata[0];
      if (r->safe_pos != NULL)
        c->tafter = bytes_dup (r->safe_pos->data, r->safe_pos->len);
    }
  /* A local snapshot is one transaction, used by one thread: ranges (from
   * a checkpoint) are then read one after the other. */
  if (n == 1 || ab_store_never_blocks (c->from))
    for (guint i = 0; i < n && !failed (c); i++)
      read_range (&readers[i]);
  else
    {
      for (guint i = 0; i < n; i++)
        threads[i] = g_thread_new ("ab-copy-read", read_range, &readers[i]);
      for (guint i = 0; i < n; i++)
        g_thread_join (threads[i]);
    }
  ab_snapshot_close (snap);
  if (c->o->rescan && !failed (c))
    {
      gboolean same;
      rescan_until (c, NULL, 0, NULL, 0, &same);
      dispatch (c, c->ranges->pdata[0]);
    }
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&((CopyRange *) c->ranges->pdata[i])->cur, copy_batch_free);
  g_mutex_lock (&c->lock);
  while (c->in_flight > 0)
    g_cond_wait (&c->cond, &c->lock);
  g_mutex_unlock (&c->lock);
  return !failed (c);
}

gboolean
ab_admin_copy_run_pass (AbCopy *c)
{
  writers_start (c);
  gboolean ok = read_pass (c);
  writers_stop (c);
  return ok;
}
