/* Applying the keys of one mutation request. On a store with transactions
 * (lmdb, memory) every key is planned first on the caller's thread from a
 * read snapshot, then checked inside the store's group-commit write
 * transaction (a key whose State row moved since is read, folded and planned
 * again there): one share of one durable commit, no lock rows. Elsewhere
 * (hbase) in waves: N parallel lock calls (a busy lock is
 * retried from the engine's timer, no thread waits for it), one multi_get of
 * the State rows, one batch of the keys' intents (heal.c), one batch for
 * every key's rows (count increments merged, with receipts), N parallel
 * unlocks. */
#include <stdatomic.h>
#include <string.h>
#include "engine/write/write.h"
#include "engine/plan/plan.h"
#include "engine/topk/topk.h"
#include "codec/record.h"

/* Requests with at least this many keys are planned ahead of their
 * transaction, on the caller's thread. */
#define AB_PLAN_AHEAD_MIN_KEYS 64

typedef struct _ApplyJob ApplyJob;

typedef struct {
  AbEngine *engine;
  ApplyJob *job;
  const AbTableDesc *table;
  const AbMutateOptions *opts;
  gboolean insert_merge;
  AbKeyGroup *group;
  AbKeyResult *result;
  GBytes *lock_key;
  GBytes *token;     /* our lock value while held */
  GBytes *intent;    /* waves with heal: this key's rows, written in its lock row */
  gboolean released; /* waves: our lock row was deleted by our release */
  guint lock_attempts;
  GBytes *state_key;
  AbBatch *batch; /* this key's rows */
  GError *error;
  gboolean has_states; /* before/after below are set (for CDC) */
  AbState before;
  AbState after;
  /* Planned ahead, outside the transaction (batch, states, status): valid
   * while the State row is still `seen` (NULL: absent; read_state FALSE:
   * the plan read none). */
  gboolean pre;
  gboolean read_state;
  GBytes *seen;
  gboolean lock_absent; /* the plan's reads found no lock row */
} KeyWork;

/* One request's keys, in either path. */
struct _ApplyJob {
  AbEngine *engine;
  const AbWalContext *ctx;
  KeyWork *works;
  guint n;
  const AbBatch *written; /* the rows committed (for cache upkeep and context) */
  guint64 planned_at;     /* the store's write_seq before the plans made ahead */
  AbApplyDone done;       /* asynchronous callers */
  gpointer user;
  atomic_int locks_pending;   /* waves: keys whose lock is not settled yet */
  atomic_int unlocks_pending; /* waves: held locks not released yet */
  GError *write_error;        /* waves: the data batch's failure */
  gint64 deadline_us;         /* waves: no store call starts after (0: none) */
};

/* ---- folding and planning one key ---- */

/* A key longer than the store holds fails its edge up front, with the
 * reason, before anything of it is read or written (a long URL as a target
 * is common; lmdb keys stop at 511 bytes, HBase row keys at 32767). */
static gboolean
key_fits (KeyWork *w, gsize len, const gchar *what)
{
  gsize max = ab_store_max_key (w->engine->store);
  if (max == 0 || len <= max)
    return TRUE;
  if (w->error == NULL)
    ab_engine_fail (&w->error, AB_ENGINE_ERROR_BAD_REQUEST,
                    "source or target too long: the edge's %s key would be %" G_GSIZE_FORMAT
                    " bytes, over this store's limit of %" G_GSIZE_FORMAT " bytes",
                    what, len, max);
  return FALSE;
}

static gint
by_version (gconstpointer a, gconstpointer b)
{
  const AbEvent *x = *(AbEvent *const *) a, *y = *(AbEvent *const *) b;
  if (x->version != y->version)
    return x->version < y->version ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Immutable tables keep Index rows only: drop the State row and counts. */
static void
keep_index_puts (AbBatch *batch)
{
  for (guint i = batch->items->len; i-- > 0;)
    {
      AbMutation *m = &g_array_index (batch->items, AbMutation, i);
      if (i == 0 || m->kind != AB_MUT_PUT)
        g_array_remove_index (batch->items, i);
    }
}

static AbKeyStatus
plan_key (KeyWork *w, GBytes *stored)
{
  const AbTableDesc *t = w->table;
  AbKeyGroup *g = w->group;
  AbState *before = &w->before, *after = &w->after;
  if (stored == NULL)
    ab_state_init (before, t->schema->fields->len);
  else
    {
      gsize len;
      const guint8 *data = g_bytes_get_data (stored, &len);
      if (!ab_state_decode (t->schema, data, len, before, &w->error))
        return AB_STATUS_ERROR;
    }
  ab_state_copy (after, before);
  w->has_states = TRUE;
  g_ptr_array_sort (g->events, by_version);
  /* a PURGE drops the stored state and the events before it (§2.5) */
  const AbEvent *purge = ab_events_last_purge (g->events);
  if (purge != NULL)
    ab_state_transit (after, purge, w->insert_merge);
  for (guint i = 0; i < g->events->len; i++)
    {
      const AbEvent *ev = g->events->pdata[i];
      if (purge == NULL || ev->seq > purge->seq)
        ab_state_transit (after, ev, w->insert_merge);
    }
  if (!ab_state_check_valid (t->schema, after, &w->error))
    return w->insert_merge ? AB_STATUS_INVALID : AB_STATUS_ERROR;
  w->batch = ab_batch_new ();
  AbKeyStatus status
      = ab_engine_plan (t, &g->source, &g->target, before, after, w->batch, &w->error);
  if (t->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    keep_index_puts (w->batch);
  for (guint i = 0; status != AB_STATUS_ERROR && i < w->batch->items->len; i++)
    if (!key_fits (w, g_array_index (w->batch->items, AbMutation, i).klen, "row"))
      {
        g_clear_pointer (&w->batch, ab_batch_free); /* none of its rows is written */
        status = AB_STATUS_ERROR;
      }
  return status;
}

/* ---- the waves ---- */

static void
prepare (KeyWork *w)
{
  const AbTableDesc *t = w->table;
  AbKeyGroup *g = w->group;
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  const AbValue *ktarget = multi ? &g->source : &g->target;
  if (t->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    return; /* no State row to read, no lock (docs/data-model.md §10) */
  g_auto (AbBuf) b;
  ab_buf_init (&b);
  if (!ab_key_state (&b, &g->source, ktarget, t->code, &w->error))
    return;
  w->state_key = ab_buf_to_bytes (&b);
  if (!key_fits (w, g_bytes_get_size (w->state_key), "State row"))
    {
      g_clear_pointer (&w->state_key, g_bytes_unref); /* not read, not locked */
      return;
    }
  b.len = 0;
  if (w->opts->lock && ab_key_lock (&b, &g->source, ktarget, t->code, &w->error))
    w->lock_key = ab_buf_to_bytes (&b);
}

/* Inside a transaction a lock row left by another writer (an older server,
 * a repair job) is honoured: a fresh one fails its key, a stale or
 * unreadable one is deleted with the key's rows. */
static void
check_foreign_lock (AbEngine *engine, KeyWork *w, GBytes *held, AbBatch *batch)
{
  gsize klen, vlen;
  gint64 since = 0;
  const guint8 *v = g_bytes_get_data (held, &vlen);
  const guint8 *k = g_bytes_get_data (w->lock_key, &klen);
  gboolean readable = ab_codec_decode_lock_value (v, vlen, &since, NULL);
  if (readable && ab_engine_now_ms (engine) - since <= engine->cfg.lock_stale_ms)
    {
      ab_engine_fail (&w->error, AB_ENGINE_ERROR_CONFLICT,
                      "the edge is locked by another writer (since %" G_GINT64_FORMAT " ms)",
                      since);
      return;
    }
  g_info ("removing a %s lock row of %s", readable ? "stale" : "malformed", w->group->sort_key);
  ab_batch_delete_if (batch, k, klen, v, vlen);
}

static gboolean
same_bytes (GBytes *a, GBytes *b)
{
  return a == NULL || b == NULL ? a == b : g_bytes_equal (a, b);
}

static void work_reset (KeyWork *w);

/* Inside the transaction: a key planned ahead whose State and lock rows
 * were read then (the lock row found absent) and that the store promises
 * nobody wrote since keeps its plan without reading them again. */
static gboolean
plan_holds_unread (AbStore *view, const KeyWork *w)
{
  guint64 at = w->job->planned_at;
  return w->pre && w->error == NULL && at != 0 && w->read_state && w->state_key != NULL
         && (w->lock_key == NULL || w->lock_absent)
         && !ab_store_written_since (view, at, g_bytes_get_data (w->state_key, NULL),
                                     g_bytes_get_size (w->state_key))
         && (w->lock_key == NULL
             || !ab_store_written_since (view, at, g_bytes_get_data (w->lock_key, NULL),
                                         g_bytes_get_size (w->lock_key)));
}

#define ROW_KEPT (-2) /* row_of: a plan that holds unread */

/* One multi_get through reader for every key that may proceed (with its
 * lock row when lock_rows is set: transactions), then fold and plan each.
 * A key planned ahead keeps its plan when its State row is what that plan
 * read, or unread when the store vouches nobody wrote it since
 * (plan_holds_unread). remember: the plans are made ahead (outside the
 * transaction); their lock rows are read too when the store keeps a write
 * log, so that the transaction can skip both. */
static void
read_and_plan (AbEngine *engine, AbStore *reader, KeyWork *works, guint n, AbBatch *lock_rows,
               gboolean remember)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  gint *row_of = g_new (gint, n);
  gboolean read_locks = lock_rows != NULL || (remember && n > 0 && works[0].job->planned_at != 0);
  for (guint i = 0; i < n; i++)
    {
      gboolean read = works[i].error == NULL && works[i].state_key != NULL;
      if (read && lock_rows != NULL && plan_holds_unread (reader, &works[i]))
        {
          row_of[i] = ROW_KEPT;
          continue;
        }
      row_of[i] = read ? (gint) keys->len : -1;
      if (read)
        g_ptr_array_add (keys, works[i].state_key);
      if (read && read_locks && works[i].lock_key != NULL)
        g_ptr_array_add (keys, works[i].lock_key);
    }
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GError *read_error = NULL;
  if (keys->len > 0)
    ab_store_multi_get_shared (reader, keys, rows, &read_error);
  for (guint i = 0; i < n; i++)
    {
      KeyWork *w = &works[i];
      if (row_of[i] == ROW_KEPT)
        {
          w->pre = FALSE;
          continue; /* the plan made ahead holds, unread */
        }
      if (w->error == NULL && row_of[i] >= 0 && read_error != NULL)
        w->error = g_error_copy (read_error);
      /* rows holds nothing to index when the read failed */
      gboolean got = row_of[i] >= 0 && read_error == NULL && (guint) row_of[i] < rows->len;
      gboolean lock_read
          = got && read_locks && w->lock_key != NULL && (guint) row_of[i] + 1 < rows->len;
      GBytes *lock = lock_read ? g_array_index (rows, AbKv, row_of[i] + 1).value : NULL;
      GBytes *stored = got ? g_array_index (rows, AbKv, row_of[i]).value : NULL;
      if (lock != NULL && lock_rows != NULL && w->error == NULL)
        check_foreign_lock (engine, w, lock, lock_rows);
      if (w->pre)
        {
          w->pre = FALSE;
          if (w->error == NULL && w->read_state == (row_of[i] >= 0) && same_bytes (stored, w->seen))
            continue; /* the plan made ahead holds */
          GError *lock_error = g_steal_pointer (&w->error);
          work_reset (w);
          w->error = lock_error;
        }
      if (w->error != NULL)
        w->result->status = AB_STATUS_ERROR;
      else
        w->result->status = plan_key (w, stored);
      if (remember && w->error == NULL)
        {
          w->pre = TRUE;
          w->read_state = row_of[i] >= 0;
          w->lock_absent = lock_read && lock == NULL;
          g_clear_pointer (&w->seen, g_bytes_unref);
          w->seen = stored != NULL ? g_bytes_ref (stored) : NULL;
        }
    }
  g_clear_error (&read_error);
  g_free (row_of);
}

/* Increments are merged by key: a hash of the mutations themselves. */
static guint
mutation_key_hash (gconstpointer p)
{
  const AbMutation *m = p;
  guint h = 5381;
  for (gsize i = 0; i < m->klen; i++)
    h = h * 33 + m->key[i];
  return h;
}

static gboolean
mutation_key_equal (gconstpointer a, gconstpointer b)
{
  const AbMutation *x = a, *y = b;
  return x->klen == y->klen && memcmp (x->key, y->key, x->klen) == 0;
}

/* Every planned key's rows in one batch; increments to one Count row or
 * group cell merge (zero dropped); TTL group cells get their expiry rows.
 * With `scores` (inside a transaction, where reader sees every row the
 * increments start from), the top-K entries they move are re-scored too;
 * elsewhere *cells and *cell_deltas receive the incremented keys and their
 * increments, to re-score after the write. */
static gboolean
combine (AbEngine *engine, AbStore *reader, const AbTableDesc *t, KeyWork *works, guint n,
         gboolean scores, AbBatch *all, GPtrArray **cells, GArray **cell_deltas, GError **error)
{
  g_autoptr (GHashTable) incs = g_hash_table_new (mutation_key_hash, mutation_key_equal);
  g_autoptr (GPtrArray) order = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) deltas = g_array_new (FALSE, TRUE, sizeof (gint64));
  for (guint i = 0; i < n; i++)
    for (guint j = 0; works[i].batch != NULL && j < works[i].batch->items->len; j++)
      {
        AbMutation *m = &g_array_index (works[i].batch->items, AbMutation, j);
        if (m->kind == AB_MUT_PUT || m->kind == AB_MUT_DELETE)
          ab_batch_append (all, m);
        else
          {
            gpointer slot;
            if (!g_hash_table_lookup_extended (incs, m, NULL, &slot))
              {
                slot = GUINT_TO_POINTER (order->len);
                g_hash_table_insert (incs, m, slot);
                g_ptr_array_add (order, g_bytes_new (m->key, m->klen));
                gint64 zero = 0;
                g_array_append_val (deltas, zero);
              }
            g_array_index (deltas, gint64, GPOINTER_TO_UINT (slot)) += m->delta;
          }
      }
  for (guint i = order->len; i-- > 0;)
    if (g_array_index (deltas, gint64, i) == 0)
      {
        g_ptr_array_remove_index (order, i);
        g_array_remove_index (deltas, i);
      }
  g_autoptr (AbBatch) post = ab_batch_new ();
  if (t->schema->group_defs->len > 0
      && !ab_engine_ttl_plan (engine, reader, t, order, all, post, error))
    return FALSE;
  for (guint i = 0; i < order->len; i++)
    {
      gsize kl;
      const guint8 *k = g_bytes_get_data (order->pdata[i], &kl);
      ab_batch_add (all, k, kl, g_array_index (deltas, gint64, i));
    }
  for (guint i = 0; i < post->items->len; i++)
    ab_batch_append (all, &g_array_index (post->items, AbMutation, i));
  if (scores)
    return ab_engine_topk_plan (engine, reader, t, order, deltas, FALSE, all, error);
  if (cells != NULL)
    *cells = g_ptr_array_ref (order);
  if (cell_deltas != NULL)
    *cell_deltas = g_array_ref (deltas);
  return TRUE;
}

/* Stores whose batches are not transactions (hbase): the top-K entries the
 * written increments (deltas) moved, re-read after the write and rewritten.
 * A failure leaves the rank rows behind the cells (the verifier repairs them). */
static void
rescore_after (AbEngine *engine, const AbTableDesc *t, GPtrArray *cells, GArray *deltas)
{
  g_autoptr (AbBatch) scores = ab_batch_new ();
  g_autoptr (GError) error = NULL;
  if (cells == NULL || cells->len == 0 || !ab_topk_has_any (t))
    return;
  if (!ab_engine_topk_plan (engine, engine->store, t, cells, deltas, TRUE, scores, &error)
      || (ab_batch_len (scores) > 0 && !ab_store_batch (engine->store, scores, &error)))
    g_warning ("top-K scores of %s.%s not rewritten: %s", t->database, t->table, error->message);
}

static JsonNode *
storage_ops (const AbBatch *b)
{
  g_autoptr (JsonBuilder) jb = json_builder_new ();
  json_builder_begin_object (jb);
  json_builder_set_member_name (jb, "storageOps");
  json_builder_begin_array (jb);
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *m = &g_array_index (b->items, AbMutation, i);
      gsize klen = m->klen, vlen = m->vlen;
      const guint8 *k = m->key;
      guint8 delta[8];
      const guint8 *v = m->value;
      if (m->kind == AB_MUT_INCREMENT || m->kind == AB_MUT_ADD)
        {
          ab_codec_put_be64 (delta, m->delta);
          v = delta;
          vlen = 8;
        }
      /* the cell as the store lays it out: its coordinates, then the value */
      AbStoreCoord coords[AB_STORE_COORDS];
      ab_store_cell_coords (k, klen, coords);
      g_autofree gchar *val = g_base64_encode (v != NULL ? v : (const guint8 *) "", vlen);
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "kind");
      json_builder_add_string_value (jb, ab_store_mutation_name (m->kind));
      json_builder_set_member_name (jb, "table");
      json_builder_add_string_value (jb, "edges");
      json_builder_set_member_name (jb, "cells");
      json_builder_begin_array (jb);
      json_builder_begin_object (jb);
      for (guint c = 0; c < AB_STORE_COORDS; c++)
        {
          g_autofree gchar *text = g_base64_encode (coords[c].data, coords[c].len);
          json_builder_set_member_name (jb, coords[c].name);
          json_builder_add_string_value (jb, text);
        }
      json_builder_set_member_name (jb, "value");
      json_builder_add_string_value (jb, val);
      json_builder_end_object (jb);
      json_builder_end_array (jb);
      json_builder_end_object (jb);
    }
  json_builder_end_array (jb);
  json_builder_end_object (jb);
  return json_builder_get_root (jb);
}

static void
finish (KeyWork *w, GError *write_error)
{
  AbKeyResult *r = w->result;
  AbKeyGroup *g = w->group;
  gboolean planned = r->status != AB_STATUS_ERROR && r->status != AB_STATUS_INVALID;
  if (planned && write_error != NULL)
    {
      r->status = AB_STATUS_ERROR;
      g_clear_error (&w->error);
      w->error = g_error_copy (write_error);
    }
  r->may_pass = r->status == AB_STATUS_ERROR && w->error != NULL
                && (ab_engine_heal_transient (w->error)
                    || g_error_matches (w->error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_CONFLICT));
  if (r->status != AB_STATUS_ERROR && w->opts->include_context && w->batch != NULL)
    r->context = storage_ops (w->batch);
  r->count = r->status == AB_STATUS_ERROR ? 0 : g->events->len;
  atomic_fetch_add (&w->engine->statuses[r->status], 1);
  if (w->error != NULL)
    {
      r->message = g_strdup (w->error->message);
      if (r->status == AB_STATUS_ERROR)
        g_warning ("mutation of %s failed: %s", g->sort_key, w->error->message);
    }
}

/* CDC of the applied keys (immutable tables emit none), never blocking. */
static void
emit_cdc (AbEngine *engine, const AbWalContext *ctx, KeyWork *works, guint n)
{
  if (ab_sink_is_none (engine->cdc) || ctx->table->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    return;
  g_autoptr (GPtrArray) records
      = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_record_free);
  for (guint i = 0; i < n; i++)
    {
      KeyWork *w = &works[i];
      AbKeyStatus s = w->result->status;
      if (w->has_states && s != AB_STATUS_ERROR && s != AB_STATUS_INVALID)
        g_ptr_array_add (records, ab_engine_cdc_record (engine, ctx, w->group, w->result,
                                                        &w->before, &w->after));
    }
  g_autoptr (GError) error = NULL;
  if (!ab_sink_append (engine->cdc, records, FALSE, &error))
    g_warning ("CDC records lost: %s", error->message);
}

/* On a store whose batches are atomic the held locks are released by the
 * data batch itself (a conditional delete of each lock row), which saves the
 * unlock wave: one durable commit instead of two. If the batch fails, nothing
 * of it happened and the unlock wave still runs. TRUE when any was added. */
static gboolean
release_in (AbBatch *all, KeyWork *works, guint n)
{
  gboolean any = FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (works[i].token == NULL)
        continue;
      gsize klen, vlen;
      const guint8 *k = g_bytes_get_data (works[i].lock_key, &klen);
      const guint8 *v = g_bytes_get_data (works[i].token, &vlen);
      ab_batch_delete_if (all, k, klen, v, vlen);
      any = TRUE;
    }
  return any;
}

/* ---- one request's keys, in either path ---- */

static ApplyJob *
job_new (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups, GArray *results)
{
  const AbTableDesc *t = ctx->table;
  ApplyJob *job = g_new0 (ApplyJob, 1);
  gboolean merge = ab_engine_insert_merge (engine, t->database);
  job->engine = engine;
  job->ctx = ctx;
  job->n = groups->len;
  job->works = g_new0 (KeyWork, job->n);
  for (guint i = 0; i < job->n; i++)
    {
      KeyWork *w = &job->works[i];
      *w = (KeyWork){ .engine = engine,
                      .job = job,
                      .table = t,
                      .opts = ctx->opts,
                      .insert_merge = merge,
                      .group = groups->pdata[i],
                      .result = &g_array_index (results, AbKeyResult, i) };
      ab_value_copy (&w->result->source, &w->group->source);
      ab_value_copy (&w->result->target, &w->group->target);
      prepare (w);
    }
  /* The write budget (where writes heal, so that what is left has an
   * owner; the applier's jobs have no client waiting). */
  if (engine->cfg.write_budget_ms > 0 && !ab_store_can_transact (engine->store)
      && ab_engine_heals (engine) && !ctx->opts->internal)
    job->deadline_us
        = g_get_monotonic_time () + engine->cfg.write_budget_ms * G_TIME_SPAN_MILLISECOND;
  return job;
}

/* What a planning attempt left in a key (a transaction may plan twice). */
static void
work_reset (KeyWork *w)
{
  if (w->has_states)
    {
      ab_state_clear (&w->before);
      ab_state_clear (&w->after);
      w->has_states = FALSE;
    }
  g_clear_pointer (&w->batch, ab_batch_free);
  g_clear_error (&w->error);
}

/* Results, CDC, and the end of the job. refused: the store turned the whole
 * request away before writing any of it (see AbApplyDone), else NULL. */
static void
job_finish (ApplyJob *job, const GError *write_error, const GError *refused)
{
  for (guint i = 0; i < job->n; i++)
    finish (&job->works[i], (GError *) write_error);
  emit_cdc (job->engine, job->ctx, job->works, job->n);
  for (guint i = 0; i < job->n; i++)
    {
      work_reset (&job->works[i]);
      g_clear_pointer (&job->works[i].seen, g_bytes_unref);
      g_clear_pointer (&job->works[i].lock_key, g_bytes_unref);
      g_clear_pointer (&job->works[i].token, g_bytes_unref);
      g_clear_pointer (&job->works[i].intent, g_bytes_unref);
      g_clear_pointer (&job->works[i].state_key, g_bytes_unref);
    }
  g_free (job->works);
  AbApplyDone done = job->done;
  gpointer user = job->user;
  g_free (job);
  if (done != NULL)
    done (refused, user);
}

/* ---- inside the store's write transaction ---- */

static gboolean
plan_in_txn (AbStore *view, AbBatch *batch, gpointer data, GError **error)
{
  ApplyJob *job = data;
  for (guint i = 0; i < job->n; i++)
    if (!job->works[i].pre)
      work_reset (&job->works[i]);
  read_and_plan (job->engine, view, job->works, job->n, batch, FALSE);
  if (!combine (job->engine, view, job->ctx->table, job->works, job->n, TRUE, batch, NULL, NULL,
                error))
    return FALSE;
  job->written = batch;
  return TRUE;
}

/* A transaction is one atomic batch: when the store refused it as
 * unavailable (a full disk, a read-only or closed store), nothing of the
 * request was written and the request as a whole is refused. */
static void
txn_done (gpointer data, const GError *error)
{
  ApplyJob *job = data;
  if (error == NULL && job->written != NULL)
    ab_engine_cache_note (job->engine, job->ctx->table, job->written);
  gboolean refused
      = error != NULL && g_error_matches (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE);
  job_finish (job, error, refused ? error : NULL);
}

/* ---- the lock protocol's waves ----
 * Each step runs on whichever thread finished the one before (the caller's
 * for a single key without contention, else a key-pool thread): no step
 * waits for another key-pool job, and a busy lock is retried from the timer. */

static void after_locks (ApplyJob *job);

/* Runs step on every work that wants it, the first one on this thread. */
static void
fan_out (ApplyJob *job, gboolean (*wanted) (const KeyWork *w), atomic_int *pending,
         void (*step) (gpointer item), void (*none) (ApplyJob *job))
{
  KeyWork *first = NULL;
  gint count = 0;
  for (guint i = 0; i < job->n; i++)
    count += wanted (&job->works[i]);
  if (count == 0)
    {
      none (job);
      return;
    }
  atomic_store (pending, count);
  for (guint i = 0; i < job->n; i++)
    if (wanted (&job->works[i]))
      {
        if (first == NULL)
          first = &job->works[i];
        else
          ab_engine_key_pool_push (job->engine, step, &job->works[i]);
      }
  step (first);
}

/* The write budget is spent: no further store call of the request starts. */
static gboolean
budget_spent (const ApplyJob *job)
{
  return ab_engine_deadline_passed (job->deadline_us);
}

/* The error of the keys a spent budget stops before `call` (an error that
 * may pass: the healer finishes or releases what they hold). */
static void
budget_error (const ApplyJob *job, GError **error, const gchar *call)
{
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
               "the store is slow: the write budget of %u ms (write-budget-ms) was spent "
               "before %s; this node finishes the write or releases its locks",
               job->engine->cfg.write_budget_ms, call);
}

static void
lock_step (gpointer item)
{
  KeyWork *w = item;
  AbEngine *engine = w->engine;
  if (ab_engine_lock_try (engine, w->lock_key, w->lock_attempts++, w->job->deadline_us, &w->token,
                          &w->error)
      == AB_LOCK_BUSY)
    {
      ab_engine_key_pool_push_after (engine, ab_engine_lock_backoff_ms (engine), lock_step, w);
      return;
    }
  if ((atomic_fetch_sub (&w->job->locks_pending, 1) == 1))
    after_locks (w->job);
}

/* An intent with nothing to replay: handed to the healer with a lock, it
 * only releases it. */
static GBytes *
bare_release (void)
{
  guint8 id[AB_HEAL_ID_LEN];
  g_autoptr (AbBatch) none = ab_batch_new ();
  ab_heal_write_id (id, ab_heal_new_write (), 0);
  return ab_heal_intent_new (id, none);
}

/* After the release wave: the receipts of the keys whose lock row (and so
 * intent) is gone are queued for deletion; where writes heal, a key whose
 * release failed is left to the healer, which releases it (replaying its
 * intent first, if it has one) once the store answers: else its lock would
 * stay until it is stale, and every write of the key wait for that. */
static void
drop_receipts (ApplyJob *job)
{
  g_autoptr (GBytes) nothing = NULL;
  gboolean heals = ab_engine_heals (job->engine);
  for (guint i = 0; i < job->n; i++)
    {
      KeyWork *w = &job->works[i];
      if (w->released && w->intent != NULL)
        ab_engine_heal_forget (job->engine, w->intent);
      else if (!w->released && w->token != NULL && heals)
        {
          if (w->intent == NULL && nothing == NULL)
            nothing = bare_release ();
          ab_engine_heal_later (job->engine, w->lock_key, w->token,
                                w->intent != NULL ? w->intent : nothing);
        }
    }
}

static void
waves_done (ApplyJob *job)
{
  drop_receipts (job);
  GError *write_error = g_steal_pointer (&job->write_error);
  job_finish (job, write_error, NULL);
  g_clear_error (&write_error);
}

static void
unlock_step (gpointer item)
{
  KeyWork *w = item;
  w->released = ab_engine_unlock (w->engine, w->lock_key, w->token, NULL);
  if ((atomic_fetch_sub (&w->job->unlocks_pending, 1) == 1))
    waves_done (w->job);
}

static gboolean
needs_lock (const KeyWork *w)
{
  return w->lock_key != NULL;
}
static gboolean
holds_lock (const KeyWork *w)
{
  return w->token != NULL;
}

/* Before the data wave, where writes heal (heal.c): each locked key's rows
 * as an intent in its lock row, all in one batch, and a receipt beside each
 * Count add of the data batch. FALSE (job->write_error) when the intents
 * were not written: nothing of the data is then. */
static gboolean
write_intents (ApplyJob *job, AbBatch *all)
{
  g_autoptr (AbBatch) intents = ab_batch_new ();
  guint64 write = ab_heal_new_write ();
  for (guint i = 0; i < job->n; i++)
    {
      KeyWork *w = &job->works[i];
      if (w->token == NULL || w->batch == NULL || ab_batch_len (w->batch) == 0)
        continue;
      guint8 id[AB_HEAL_ID_LEN];
      ab_heal_write_id (id, write, i);
      w->intent = ab_heal_intent_new (id, w->batch);
      g_autoptr (GBytes) key = ab_heal_intent_key (w->lock_key);
      ab_batch_put (intents, g_bytes_get_data (key, NULL), g_bytes_get_size (key),
                    g_bytes_get_data (w->intent, NULL), g_bytes_get_size (w->intent));
      ab_heal_add_receipts (all, id, w->batch);
    }
  return ab_batch_len (intents) == 0
         || ab_store_batch (job->engine->store, intents, &job->write_error);
}

/* A data wave cut by a failure that may pass: the keys keep their locks,
 * and this node replays their intents until the store answers. */
static void
keep_for_healing (ApplyJob *job)
{
  for (guint i = 0; i < job->n; i++)
    {
      KeyWork *w = &job->works[i];
      if (w->intent == NULL || w->token == NULL)
        continue;
      ab_engine_heal_later (job->engine, w->lock_key, w->token, w->intent);
      g_clear_pointer (&w->token, g_bytes_unref); /* not released now */
      g_clear_pointer (&w->intent, g_bytes_unref);
    }
}

/* Keys that hold their lock but wrote no data because the store failed in
 * a way that may pass (a lock of another key, the State read, the
 * intents): a release now would most likely wait out its own call timeout
 * before the answer. Where writes heal, the healer releases them once the
 * store answers, from an empty intent (nothing to replay; an intent of
 * theirs that reached the lock row goes with it). */
static void
release_later (ApplyJob *job, gboolean planned)
{
  g_autoptr (GBytes) nothing = NULL;
  gboolean all = !planned && ab_engine_heal_transient (job->write_error);
  for (guint i = 0; i < job->n; i++)
    {
      KeyWork *w = &job->works[i];
      if (w->token == NULL || !(all || (w->batch == NULL && ab_engine_heal_transient (w->error))))
        continue;
      if (nothing == NULL)
        nothing = bare_release ();
      ab_engine_heal_later (job->engine, w->lock_key, w->token, nothing);
      g_clear_pointer (&w->token, g_bytes_unref);
      g_clear_pointer (&w->intent, g_bytes_unref); /* its data was never sent */
    }
}

/* A lock call that failed on an error that may pass (the store
 * unreachable) fails the request's other keys with it: their next calls
 * would most likely wait out the same call timeout before the answer. The
 * locks they took are released by the healer (release_later). */
static void
fail_with_store (ApplyJob *job)
{
  const GError *down = NULL;
  for (guint i = 0; i < job->n && down == NULL; i++)
    if (ab_engine_heal_transient (job->works[i].error))
      down = job->works[i].error;
  for (guint i = 0; down != NULL && i < job->n; i++)
    if (job->works[i].error == NULL)
      job->works[i].error = g_error_copy (down);
}

/* A spent budget before the State read: every key that holds its lock
 * fails with the budget's error (release_later hands the lock over). */
static void
fail_locked (ApplyJob *job, const gchar *call)
{
  for (guint i = 0; i < job->n; i++)
    if (job->works[i].token != NULL && job->works[i].error == NULL)
      budget_error (job, &job->works[i].error, call);
}

static void
after_locks (ApplyJob *job)
{
  AbEngine *engine = job->engine;
  KeyWork *works = job->works;
  guint n = job->n;
  const AbTableDesc *t = job->ctx->table;
  if (ab_engine_heals (engine))
    fail_with_store (job);
  if (budget_spent (job))
    fail_locked (job, "the State read");
  read_and_plan (engine, engine->store, works, n, NULL, FALSE);
  g_autoptr (AbBatch) all = ab_batch_new ();
  g_autoptr (GPtrArray) cells = NULL;
  g_autoptr (GArray) deltas = NULL;
  gboolean planned = combine (engine, engine->store, t, works, n, FALSE, all, &cells, &deltas,
                              &job->write_error);
  gboolean heal = planned && ab_engine_heals (engine);
  if (heal && budget_spent (job))
    budget_error (job, &job->write_error, "the intents");
  planned = planned && job->write_error == NULL;
  if (heal && planned)
    planned = write_intents (job, all);
  if (planned && budget_spent (job))
    budget_error (job, &job->write_error, "the data");
  gboolean released
      = planned && ab_store_batch_is_atomic (engine->store) && release_in (all, works, n);
  if (planned && job->write_error == NULL && ab_batch_len (all) > 0
      && ab_store_batch (engine->store, all, &job->write_error))
    {
      ab_engine_cache_note (engine, t, all);
      rescore_after (engine, t, cells, deltas);
      for (guint i = 0; released && i < n; i++)
        g_clear_pointer (&works[i].token, g_bytes_unref);
    }
  else if (planned && heal && ab_engine_heal_transient (job->write_error))
    keep_for_healing (job);
  /* (the applier has no client waiting, and retries its batch at once:
   * it would find the locks still with the healer) */
  if (ab_engine_heals (engine) && !job->ctx->opts->internal)
    release_later (job, planned);
  if (budget_spent (job)) /* the healer releases what was written */
    keep_for_healing (job);
  fan_out (job, holds_lock, &job->unlocks_pending, unlock_step, waves_done);
}

static void
apply_in_waves (ApplyJob *job)
{
  fan_out (job, needs_lock, &job->locks_pending, lock_step, after_locks);
}

void
ab_engine_apply_async (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups,
                       GArray *results, AbApplyDone done, gpointer user)
{
  ApplyJob *job = job_new (engine, ctx, groups, results);
  job->done = done;
  job->user = user;
  if (ab_store_can_transact (engine->store))
    {
      /* A large request plans on this thread (requests plan in parallel); the
       * transaction only re-reads each State row and plans again the keys
       * whose row moved. A small one is cheaper planned in the transaction
       * alone than read twice. */
      if (job->n >= AB_PLAN_AHEAD_MIN_KEYS)
        {
          job->planned_at = ab_store_write_seq (engine->store);
          read_and_plan (engine, engine->store, job->works, job->n, NULL, TRUE);
        }
      ab_store_transact_async (engine->store, plan_in_txn, txn_done, job);
    }
  else
    apply_in_waves (job);
}

static void
apply_wait_done (const GError *refused, gpointer data)
{
  (void) refused; /* the results say it too: ERROR on every planned key */
  ab_wait_signal (data);
}

void
ab_engine_apply (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups, GArray *results)
{
  AbWait w;
  ab_wait_init (&w);
  ab_engine_apply_async (engine, ctx, groups, results, apply_wait_done, &w);
  ab_wait_until_signalled (&w);
}
