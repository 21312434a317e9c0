/* The lmdb backend's writes: a request applied inside a write transaction
 * (a planned batch in key order through one cursor), the view a plan reads
 * through, group commit (leader, committer and completion threads), the verbs. */
#include "store/lmdb/lmdb-private.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>

#define AB_LMDB_MAX_GROUP 1024                 /* requests in one write transaction */
#define AB_LMDB_GATHER_MAX_US 200              /* longest wait for a group to fill */
#define AB_LMDB_FULL_BELOW ((guint64) 1 << 20) /* EIO with less free than this: a full disk */
#define REQ_FAILED (-1) /* a request failed on its own; its GError says why */

#define REQ_PLAN_FAILED (-2) /* a plan refused before writing anything */

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

static gboolean view_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error);

static gboolean
view_written_since (AbStore *s, guint64 seq, const guint8 *key, gsize klen)
{
  return ab_lmdb_log_written_since (((LmdbView *) s)->env, seq, key, klen);
}

const AbStoreVTable ab_lmdb_view_vtable = {
  .name = "lmdb-view",
  .written_since = view_written_since,
  .multi_get = view_multi_get,
  .get_with = ab_lmdb_get_with,
  .scan_with = ab_lmdb_scan_with,
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
compare_current (LmdbEnv *e, MDB_txn *txn, AbQueuedWrite *req, gboolean *matches)
{
  MDB_val key = { req->klen, (void *) req->key }, cur;
  int rc = mdb_get (txn, e->dbi, &key, &cur);
  if (rc != 0 && rc != MDB_NOTFOUND)
    return rc;
  if (rc == MDB_NOTFOUND || !req->has_expected)
    *matches = rc == MDB_NOTFOUND && !req->has_expected;
  else
    *matches = cur.mv_size == req->elen
               && (cur.mv_size == 0 || memcmp (cur.mv_data, req->expected, cur.mv_size) == 0);
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
        g_array_index (out, AbKv, first + r->index).value = ab_lmdb_val_bytes (&v);
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
apply_plan (LmdbEnv *e, MDB_txn *txn, AbQueuedWrite *req)
{
  LmdbView view
      = { .base = { .vt = &ab_lmdb_view_vtable, .batch_atomic = TRUE }, .env = e, .txn = txn };
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
apply_kind (LmdbEnv *e, MDB_txn *txn, AbQueuedWrite *req)
{
  int rc = 0;
  MDB_val key = { req->klen, (void *) req->key }, value = { req->vlen, (void *) req->value };
  switch (req->kind)
    {
      case AB_QUEUED_BATCH: return apply_batch (e, txn, req->batch, &req->error);
      case AB_QUEUED_TXN: return apply_plan (e, txn, req);
      case AB_QUEUED_INCREMENT:
        return apply_increment (e, txn, &key, req->delta, &req->new_value, &req->error);
      case AB_QUEUED_CHECK_AND_PUT:
        if ((rc = compare_current (e, txn, req, &req->applied)) != 0 || !req->applied)
          return rc;
        return mdb_put (txn, e->dbi, &key, &value, 0);
      case AB_QUEUED_CHECK_AND_DELETE:
        if ((rc = compare_current (e, txn, req, &req->applied)) != 0 || !req->applied)
          return rc;
        rc = req->has_expected ? mdb_del (txn, e->dbi, &key, NULL) : 0;
        return rc;
      case AB_QUEUED_INGEST: break; /* rocksdb's alone */
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
apply_body (LmdbEnv *e, MDB_txn *txn, AbQueuedWrite *req, gboolean *puts)
{
  int rc = apply_kind (e, txn, req);
  if (req->kind == AB_QUEUED_BATCH)
    *puts = log_batch (e, req->batch);
  else if (req->kind == AB_QUEUED_TXN)
    *puts = log_batch (e, req->txn_batch);
  else
    {
      ab_lmdb_log_key (e, req->key, req->klen);
      *puts = req->kind == AB_QUEUED_INCREMENT
              || (req->kind == AB_QUEUED_CHECK_AND_PUT && req->applied);
    }
  return rc;
}

/* Each request runs in a nested transaction so that one failing request is
 * rolled back alone and the others of its group still commit. */
static int
apply_request (LmdbEnv *e, MDB_txn *parent, AbQueuedWrite *req)
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
reset_outcome (AbQueuedWrite *req)
{
  g_clear_error (&req->error);
  req->applied = FALSE;
  req->new_value = 0;
}

static void
fail_all (AbQueuedWrite **reqs, guint n, const GError *why)
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
apply_group (LmdbEnv *e, MDB_txn *txn, AbQueuedWrite **reqs, guint n, gboolean nested,
             guint *settled)
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

static guint run_group (LmdbEnv *e, AbQueuedWrite **reqs, guint n);

/* Under MDB_WRITEMAP there are no nested transactions: a group in which a
 * request failed halfway is redone with one transaction per request (one
 * commit each: rare, and correct). A request alone failed on its own: it
 * wrote nothing, its error says why. */
static guint
run_alone (LmdbEnv *e, AbQueuedWrite **reqs, guint n)
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
run_group (LmdbEnv *e, AbQueuedWrite **reqs, guint n)
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
          if (rc == MDB_MAP_FULL && ab_lmdb_grow (e, seen, &why))
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

/* Called with queue_lock held and no leader; returns with it held. */
static void
lead (LmdbEnv *e)
{
  AbQueuedWrite *group[AB_LMDB_MAX_GROUP];
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
    if (group[i]->kind == AB_QUEUED_TXN)
      group[finished++] = group[i]; /* answered below, outside the lock */
    else
      *(gboolean *) group[i]->wait = TRUE; /* the caller's done flag (ab_lmdb_submit) */
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

/* The completion thread: one settled group's AB_QUEUED_TXN requests, in order. */
static void
complete_group (gpointer data, gpointer unused)
{
  GPtrArray *done = data;
  for (guint i = 0; i < done->len; i++)
    ab_queued_txn_finish (done->pdata[i]);
  g_ptr_array_unref (done);
}

/* The committer of an environment's AB_QUEUED_TXN requests (started by the first
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

/* ---- write verbs ---- */

/* Queue a request; whichever waiter finds no leader commits everything
 * queued so far. Returns once the request is durable (or failed). */
gboolean
ab_lmdb_submit (AbStore *s, AbQueuedWrite *req, GError **error)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  gboolean done = FALSE; /* under queue_lock */
  req->wait = &done;
  g_mutex_lock (&e->queue_lock);
  g_queue_push_tail (&e->pending, req);
  if (e->gathering)
    g_cond_signal (&e->gather_cond);
  while (!done)
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

void
ab_lmdb_transact (AbStore *s, AbTxnPlan plan, AbTxnDone on_done, gpointer user)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  AbQueuedWrite *req = ab_queued_txn_new (plan, on_done, user);
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
