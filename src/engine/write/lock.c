/* The per-key lock of docs/data-model.md §6: put-if-absent of a lock row holding
 * the lock time, a stale sweep on the first failure or from the heal sweep (which replays a cut
 * write's intent, heal.c), and an owner-checked release. Retries are the
 * caller's, from a timer (apply.c): nothing sleeps. */
#include "engine/write/write.h"
#include "codec/record.h"

/* The lock row's value and, where writes keep intents, its intent (NULL:
 * none). FALSE when the read failed or there is no lock. */
static gboolean
read_lock (AbEngine *engine, GBytes *lock_key, GBytes **cur, GBytes **intent)
{
  g_autoptr (GError) error = NULL;
  gsize klen;
  const guint8 *k = g_bytes_get_data (lock_key, &klen);
  if (!ab_engine_heals (engine))
    return ab_store_get (engine->store, k, klen, cur, &error) && *cur != NULL;
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GArray) rows = ab_kv_array_new ();
  g_ptr_array_add (keys, g_bytes_ref (lock_key));
  g_ptr_array_add (keys, ab_heal_intent_key (lock_key));
  if (!ab_store_multi_get (engine->store, keys, rows, &error) || rows->len != 2)
    return FALSE;
  *cur = g_steal_pointer (&g_array_index (rows, AbKv, 0).value);
  *intent = g_steal_pointer (&g_array_index (rows, AbKv, 1).value);
  return *cur != NULL;
}

/* A lock row older than the stale threshold: a write left in it (an
 * intent) is taken over and replayed; a bare one is deleted if it still
 * holds the value we read. */
void
ab_engine_lock_sweep (AbEngine *engine, GBytes *lock_key, gint64 deadline_us)
{
  gsize klen;
  const guint8 *k = g_bytes_get_data (lock_key, &klen);
  g_autoptr (GBytes) cur = NULL;
  g_autoptr (GBytes) intent = NULL;
  g_autoptr (GError) error = NULL;
  gint64 ts = 0;
  if (!read_lock (engine, lock_key, &cur, &intent))
    return;
  gsize vlen;
  const guint8 *v = g_bytes_get_data (cur, &vlen);
  /* a value that does not decode is treated as stale */
  gboolean readable = ab_codec_decode_lock_value (v, vlen, &ts, NULL);
  if ((readable && ab_engine_now_ms (engine) - ts <= engine->cfg.lock_stale_ms)
      || ab_engine_deadline_passed (deadline_us))
    return;
  if (intent != NULL)
    {
      ab_engine_heal_stale (engine, lock_key, cur, intent, deadline_us);
      return;
    }
  gboolean applied = FALSE;
  if (!ab_store_check_and_delete (engine->store, k, klen, v, vlen, &applied, &error))
    g_warning ("stale lock sweep failed: %s", error->message);
  else if (applied && readable)
    g_info ("swept a stale lock (held since %" G_GINT64_FORMAT ")", ts);
  else if (applied)
    g_info ("swept a malformed lock row (%" G_GSIZE_FORMAT " bytes, not a lock time)", vlen);
}

static gboolean
put_if_absent (AbEngine *engine, const guint8 *k, gsize klen, GBytes **token, GError **error)
{
  g_autoptr (GByteArray) value = g_byte_array_new ();
  ab_codec_encode_lock_value (value, ab_engine_now_ms (engine));
  gboolean applied = FALSE;
  if (!ab_store_check_and_put (engine->store, k, klen, NULL, 0, value->data, value->len, &applied,
                               error))
    return FALSE;
  if (applied)
    *token = g_byte_array_free_to_bytes (g_steal_pointer (&value));
  return TRUE;
}

/* The deadline passed before the lock was ours (error set). */
static gboolean
out_of_budget (AbEngine *engine, gint64 deadline_us, GError **error)
{
  if (!ab_engine_deadline_passed (deadline_us))
    return FALSE;
  ab_engine_fail (error, AB_ENGINE_ERROR_CONFLICT,
                  "could not acquire the edge lock within the write budget of %u ms "
                  "(write-budget-ms)",
                  engine->cfg.write_budget_ms);
  return TRUE;
}

AbLockTry
ab_engine_lock_try (AbEngine *engine, GBytes *lock_key, guint attempt, gint64 deadline_us,
                    GBytes **token, GError **error)
{
  gsize klen;
  const guint8 *k = g_bytes_get_data (lock_key, &klen);
  /* the first attempt too: a request can spend its budget queued for a
   * thread of the key pool while every thread waits on a slow store */
  if (out_of_budget (engine, deadline_us, error) || !put_if_absent (engine, k, klen, token, error))
    return AB_LOCK_FAILED;
  /* the first miss sweeps: up to three calls more, each checked against
   * the deadline (a store reassigning its regions makes each one slow) */
  if (*token == NULL && attempt == 0)
    {
      if (out_of_budget (engine, deadline_us, error))
        return AB_LOCK_FAILED;
      ab_engine_lock_sweep (engine, lock_key, deadline_us);
      if (out_of_budget (engine, deadline_us, error)
          || !put_if_absent (engine, k, klen, token, error))
        return AB_LOCK_FAILED;
    }
  if (*token != NULL)
    return AB_LOCK_TAKEN;
  if (attempt + 1 < engine->cfg.lock_retries)
    return AB_LOCK_BUSY;
  ab_engine_fail (error, AB_ENGINE_ERROR_CONFLICT,
                  "could not acquire the edge lock after %u retries", engine->cfg.lock_retries);
  return AB_LOCK_FAILED;
}

guint
ab_engine_lock_backoff_ms (AbEngine *engine)
{
  gdouble jitter = 1.0 + g_random_double_range (-0.1, 0.1);
  return (guint) MAX (1.0, engine->cfg.lock_backoff_ms * jitter);
}

gboolean
ab_engine_lock (AbEngine *engine, GBytes *lock_key, GBytes **token, GError **error)
{
  AbLockTry r;
  for (guint attempt = 0;
       (r = ab_engine_lock_try (engine, lock_key, attempt, 0, token, error)) == AB_LOCK_BUSY;
       attempt++)
    g_usleep ((gulong) ab_engine_lock_backoff_ms (engine) * 1000);
  return r == AB_LOCK_TAKEN;
}

gboolean
ab_engine_unlock (AbEngine *engine, GBytes *lock_key, GBytes *token, GError **error)
{
  gsize klen, vlen;
  const guint8 *k = g_bytes_get_data (lock_key, &klen);
  const guint8 *v = g_bytes_get_data (token, &vlen);
  gboolean applied = FALSE;
  g_autoptr (GError) local = NULL;
  if (!ab_store_check_and_delete (engine->store, k, klen, v, vlen, &applied, &local))
    {
      g_warning ("lock release failed: %s", local->message);
      g_propagate_error (error, g_steal_pointer (&local));
    }
  return applied;
}
