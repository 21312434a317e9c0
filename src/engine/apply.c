/* Applying the keys of one mutation request in waves, so that a request of
 * N keys costs N parallel lock calls, one multi_get of the State rows, one
 * batch for every key's rows (count increments merged), N parallel unlocks
 * (on an atomic store, the unlocks ride in that batch). */
#include <string.h>
#include "engine/wide.h"
#include "codec/record.h"

typedef struct {
  AbEngine *engine;
  const AbTableDesc *table;
  const AbMutateOptions *opts;
  gboolean insert_merge;
  AbKeyGroup *group;
  AbKeyResult *result;
  GBytes *lock_key;
  GBytes *token;        /* our lock value while held */
  GBytes *state_key;
  AbBatch *batch;       /* this key's rows */
  GError *error;
  gboolean has_states;  /* before/after below are set (for CDC) */
  AbState before;
  AbState after;
} KeyWork;

static gboolean needs_lock (gconstpointer w) { return ((const KeyWork *) w)->lock_key != NULL; }
static gboolean holds_lock (gconstpointer w) { return ((const KeyWork *) w)->token != NULL; }

static void
lock_one (gpointer item)
{
  KeyWork *w = item;
  ab_engine_lock (w->engine, w->lock_key, &w->token, &w->error);
}

static void
unlock_one (gpointer item)
{
  KeyWork *w = item;
  ab_engine_unlock (w->engine, w->lock_key, w->token);
}

/* ---- folding and planning one key ---- */

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
  for (guint i = 0; i < g->events->len; i++)
    ab_state_transit (after, g->events->pdata[i], w->insert_merge);
  if (!ab_state_check_valid (t->schema, after, &w->error))
    return w->insert_merge ? AB_STATUS_INVALID : AB_STATUS_ERROR;
  w->batch = ab_batch_new ();
  AbKeyStatus status = ab_engine_plan (t, &g->source, &g->target, before, after, w->batch,
                                       &w->error);
  if (t->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    keep_index_puts (w->batch);
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
    return; /* no State row to read, no lock (semantics.md §10) */
  GByteArray *sk = ab_codec_state_key (&g->source, ktarget, t->code, &w->error);
  if (sk != NULL)
    w->state_key = g_byte_array_free_to_bytes (sk);
  if (sk != NULL && w->opts->lock)
    {
      GByteArray *lk = ab_codec_lock_key (&g->source, ktarget, t->code, &w->error);
      if (lk != NULL)
        w->lock_key = g_byte_array_free_to_bytes (lk);
    }
}

/* One multi_get for every key that may proceed, then fold and plan each. */
static void
read_and_plan (AbEngine *engine, KeyWork *works, guint n)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  gint *row_of = g_new (gint, n);
  for (guint i = 0; i < n; i++)
    {
      gboolean read = works[i].error == NULL && works[i].state_key != NULL;
      row_of[i] = read ? (gint) keys->len : -1;
      if (read)
        g_ptr_array_add (keys, works[i].state_key);
    }
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GError *read_error = NULL;
  if (keys->len > 0)
    ab_store_multi_get (engine->store, keys, rows, &read_error);
  for (guint i = 0; i < n; i++)
    {
      KeyWork *w = &works[i];
      if (w->error == NULL && row_of[i] >= 0 && read_error != NULL)
        w->error = g_error_copy (read_error);
      if (w->error != NULL)
        w->result->status = AB_STATUS_ERROR;
      else
        w->result->status = plan_key (w, row_of[i] >= 0
                                             ? g_array_index (rows, AbKv, row_of[i]).value
                                             : NULL);
    }
  g_clear_error (&read_error);
  g_free (row_of);
}

/* Every planned key's rows in one batch; increments to one Count row or
 * group cell merge (zero dropped); TTL group cells get their expiry rows. */
static AbBatch *
combine (AbEngine *engine, const AbTableDesc *t, KeyWork *works, guint n, GError **error)
{
  AbBatch *all = ab_batch_new ();
  g_autoptr (GHashTable) incs = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  g_autoptr (GArray) deltas = g_array_new (FALSE, TRUE, sizeof (gint64));
  for (guint i = 0; i < n; i++)
    for (guint j = 0; works[i].batch != NULL && j < works[i].batch->items->len; j++)
      {
        AbMutation *m = &g_array_index (works[i].batch->items, AbMutation, j);
        gsize kl, vl;
        const guint8 *k = g_bytes_get_data (m->key, &kl);
        if (m->kind == AB_MUT_PUT)
          {
            const guint8 *v = g_bytes_get_data (m->value, &vl);
            ab_batch_put (all, k, kl, v, vl);
          }
        else if (m->kind == AB_MUT_DELETE)
          ab_batch_delete (all, k, kl);
        else
          {
            gpointer slot;
            if (!g_hash_table_lookup_extended (incs, m->key, NULL, &slot))
              {
                slot = GUINT_TO_POINTER (order->len);
                g_hash_table_insert (incs, m->key, slot);
                g_ptr_array_add (order, m->key);
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
      && !ab_engine_ttl_plan (engine, t, order, all, post, error))
    return ab_batch_free (all), NULL;
  for (guint i = 0; i < order->len; i++)
    {
      gsize kl;
      const guint8 *k = g_bytes_get_data (order->pdata[i], &kl);
      ab_batch_increment (all, k, kl, g_array_index (deltas, gint64, i));
    }
  for (guint i = 0; i < post->items->len; i++)
    {
      AbMutation *m = &g_array_index (post->items, AbMutation, i);
      gsize kl, vl;
      const guint8 *k = g_bytes_get_data (m->key, &kl);
      const guint8 *v = g_bytes_get_data (m->value, &vl);
      ab_batch_put (all, k, kl, v, vl);
    }
  return all;
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
      static const gchar *kinds[] = { "Put", "Delete", "Increment" };
      gsize klen, vlen = 0;
      const guint8 *k = g_bytes_get_data (m->key, &klen);
      guint8 delta[8];
      const guint8 *v = m->value != NULL ? g_bytes_get_data (m->value, &vlen) : NULL;
      if (m->kind == AB_MUT_INCREMENT)
        {
          ab_codec_put_be64 (delta, m->delta);
          v = delta;
          vlen = 8;
        }
      /* wide-row cells: the HBase row and its qualifier (else f:e) */
      gsize rlen = ab_codec_wide_row_length (k, klen);
      g_autofree gchar *row = g_base64_encode (k, rlen);
      g_autofree gchar *qual = rlen < klen ? g_base64_encode (k + rlen, klen - rlen)
                                           : g_strdup ("ZQ==");
      g_autofree gchar *val = g_base64_encode (v != NULL ? v : (const guint8 *) "", vlen);
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "kind");
      json_builder_add_string_value (jb, kinds[m->kind]);
      json_builder_set_member_name (jb, "table");
      json_builder_add_string_value (jb, "edges");
      json_builder_set_member_name (jb, "cells");
      json_builder_begin_array (jb);
      json_builder_begin_object (jb);
      json_builder_set_member_name (jb, "family");
      json_builder_add_string_value (jb, "Zg==");
      json_builder_set_member_name (jb, "qualifier");
      json_builder_add_string_value (jb, qual);
      json_builder_set_member_name (jb, "row");
      json_builder_add_string_value (jb, row);
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
      w->error = g_error_copy (write_error);
    }
  if (r->status != AB_STATUS_ERROR && w->opts->include_context && w->batch != NULL)
    r->context = storage_ops (w->batch);
  r->count = r->status == AB_STATUS_ERROR ? 0 : g->events->len;
  g_atomic_pointer_add (&w->engine->statuses[r->status], 1);
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
  g_autoptr (GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_record_free);
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

void
ab_engine_apply (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups, GArray *results)
{
  const AbTableDesc *t = ctx->table;
  const AbMutateOptions *opts = ctx->opts;
  guint n = groups->len;
  KeyWork *works = g_new0 (KeyWork, n);
  gboolean merge = ab_engine_insert_merge (engine, t->database);
  for (guint i = 0; i < n; i++)
    {
      KeyWork *w = &works[i];
      *w = (KeyWork){ .engine = engine, .table = t, .opts = opts, .insert_merge = merge,
                      .group = groups->pdata[i],
                      .result = &g_array_index (results, AbKeyResult, i) };
      ab_value_copy (&w->result->source, &w->group->source);
      ab_value_copy (&w->result->target, &w->group->target);
      prepare (w);
    }
  ab_engine_parallel (engine, works, sizeof *works, n, lock_one, needs_lock);
  read_and_plan (engine, works, n);
  GError *write_error = NULL;
  g_autoptr (AbBatch) all = combine (engine, t, works, n, &write_error);
  gboolean released = all != NULL && ab_store_batch_is_atomic (engine->store)
                      && release_in (all, works, n);
  if (all != NULL && ab_batch_len (all) > 0 && ab_store_batch (engine->store, all, &write_error))
    {
      ab_engine_cache_note (engine, t, all);
      for (guint i = 0; released && i < n; i++)
        g_clear_pointer (&works[i].token, g_bytes_unref);
    }
  ab_engine_parallel (engine, works, sizeof *works, n, unlock_one, holds_lock);
  for (guint i = 0; i < n; i++)
    finish (&works[i], write_error);
  emit_cdc (engine, ctx, works, n);
  for (guint i = 0; i < n; i++)
    {
      if (works[i].has_states)
        {
          ab_state_clear (&works[i].before);
          ab_state_clear (&works[i].after);
        }
      g_clear_pointer (&works[i].lock_key, g_bytes_unref);
      g_clear_pointer (&works[i].token, g_bytes_unref);
      g_clear_pointer (&works[i].state_key, g_bytes_unref);
      g_clear_pointer (&works[i].batch, ab_batch_free);
      g_clear_error (&works[i].error);
    }
  g_clear_error (&write_error);
  g_free (works);
}
