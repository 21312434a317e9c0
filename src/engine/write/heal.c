/* Writes cut between their waves, healed online (docs/architecture.md, "Cut
 * writes heal online"): the intent a locked key writes into its lock row
 * before its data, the receipts its Count increments carry, and the replay
 * of an intent by this node's healer thread or by a writer that finds the
 * lock stale. */
#include <stdatomic.h>
#include <string.h>
#include "engine/write/write.h"
#include "codec/keys.h"
#include "codec/record.h"

#define INTENT_MAGIC 'I'
#define INTENT_VERSION 1
#define INTENT_HEAD (2 + AB_HEAL_ID_LEN + 4)
/* Receipts of finished writes are dropped together, this long after the
 * first of them is queued: one call for every write of the interval. */
#define DROP_AFTER_US (100 * G_TIME_SPAN_MILLISECOND)
/* A receipt without an intent that long, over two sweeps, was left behind. */
#define ORPHAN_AGE_MS 10000
/* A replayed write's receipts are read again this many heal-retry-ms after
 * the replay (10 s with the defaults), then every heal-retry-ms until each
 * reads 1: long after any call given up on that a region server could still
 * run to its end. */
#define RECHECK_AFTER_RETRIES 10

/* One write this node must finish: the lock it holds (token: its value)
 * and the intent stored in that lock row. */
typedef struct {
  GBytes *lock_key;
  GBytes *token;
  GBytes *intent;
  gint64 deadline_us; /* a writer's budget, replaying a stale lock (0: the healer) */
  GPtrArray *tried;   /* the healer's: lock values of renewals whose answer was lost */
} Pending;

/* A replayed write whose Count adds are checked again (recheck below). */
typedef struct {
  GBytes *intent;
  gint64 due_us; /* monotonic */
} Recheck;

struct _AbHeal {
  GMutex mu;
  GCond cond;
  gboolean stop;
  GThread *thread;      /* started with the first pending write */
  GPtrArray *pending;   /* Pending* */
  atomic_ulong healed;  /* writes finished by a replay */
  atomic_ulong sweeps;  /* table sweeps done (heal_sweep_ms) */
  atomic_ulong orphans; /* receipts of finished writes the sweeps deleted */
  GMutex sweep_mu;
  GHashTable *orphan_seen; /* receipt key -> gint64* ms: orphans of the last sweep */
  atomic_uint waiting;     /* writes given to the healer and not finished */
  AbBatch *drop;           /* receipts to delete (their intents are gone) */
  gint64 drop_since;       /* monotonic time of drop's first receipt */
  GPtrArray *rechecks;     /* Recheck* */
  atomic_uint rechecking;  /* rechecks queued or running */
  atomic_ulong excess;     /* Count adds found applied twice or more, taken back */
};

static void healer_wake (AbEngine *engine);

static void
pending_free (gpointer p)
{
  Pending *x = p;
  if (x == NULL)
    return; /* kept for the next round: moved out of the array */
  g_bytes_unref (x->lock_key);
  g_bytes_unref (x->token);
  g_bytes_unref (x->intent);
  g_ptr_array_unref (x->tried);
  g_free (x);
}

static void
recheck_free (gpointer p)
{
  Recheck *r = p;
  if (r == NULL)
    return; /* finished, or moved out of its array */
  g_bytes_unref (r->intent);
  g_free (r);
}

gboolean
ab_engine_heals (AbEngine *engine)
{
  return engine->cfg.heal && engine->heal != NULL && !ab_store_batch_is_atomic (engine->store);
}

void
ab_heal_write_id (guint8 id[AB_HEAL_ID_LEN], guint64 write, guint32 key)
{
  for (guint i = 0; i < 8; i++)
    id[i] = (guint8) (write >> (56 - 8 * i));
  for (guint i = 0; i < 4; i++)
    id[8 + i] = (guint8) (key >> (24 - 8 * i));
}

guint64
ab_heal_new_write (void)
{
  return ((guint64) g_random_int () << 32) | g_random_int ();
}

GBytes *
ab_heal_intent_key (GBytes *lock_key)
{
  gsize len;
  const guint8 *k = g_bytes_get_data (lock_key, &len);
  GByteArray *out = g_byte_array_new ();
  ab_codec_sidecar_key (out, k, len, AB_SIDECAR_INTENT, NULL, 0);
  return g_byte_array_free_to_bytes (out);
}

/* An add that carries a receipt: one to a narrow row (a Count row). A
 * group cell lives in a wide row whose every cell is data. */
static gboolean
takes_receipt (const AbMutation *m)
{
  return m->kind == AB_MUT_ADD && ab_codec_wide_row_length (m->key, m->klen) == m->klen
         && ab_codec_sidecar_row_length (m->key, m->klen) == 0;
}

static gboolean
in_intent (const AbMutation *m)
{
  return m->kind == AB_MUT_PUT || m->kind == AB_MUT_DELETE || takes_receipt (m);
}

static void
put_u32 (GByteArray *out, guint32 v)
{
  guint8 b[4] = { (guint8) (v >> 24), (guint8) (v >> 16), (guint8) (v >> 8), (guint8) v };
  g_byte_array_append (out, b, 4);
}

GBytes *
ab_heal_intent_new (const guint8 id[AB_HEAL_ID_LEN], const AbBatch *rows)
{
  GByteArray *out = g_byte_array_new ();
  const guint8 head[2] = { INTENT_MAGIC, INTENT_VERSION };
  guint32 n = 0;
  g_byte_array_append (out, head, 2);
  g_byte_array_append (out, id, AB_HEAL_ID_LEN);
  for (guint i = 0; i < rows->items->len; i++)
    n += in_intent (&g_array_index (rows->items, AbMutation, i));
  put_u32 (out, n);
  for (guint i = 0; i < rows->items->len; i++)
    {
      const AbMutation *m = &g_array_index (rows->items, AbMutation, i);
      if (!in_intent (m))
        continue;
      guint8 kind = m->kind == AB_MUT_PUT ? 'P' : m->kind == AB_MUT_DELETE ? 'D' : 'A';
      g_byte_array_append (out, &kind, 1);
      put_u32 (out, (guint32) m->klen);
      g_byte_array_append (out, m->key, (guint) m->klen);
      if (m->kind == AB_MUT_PUT)
        {
          put_u32 (out, (guint32) m->vlen);
          g_byte_array_append (out, m->value, (guint) m->vlen);
        }
      else if (m->kind == AB_MUT_ADD)
        {
          guint8 d[8];
          ab_codec_put_be64 (d, m->delta);
          g_byte_array_append (out, d, 8);
        }
    }
  return g_byte_array_free_to_bytes (out);
}

static gboolean
get_u32 (const guint8 *p, gsize len, gsize *pos, guint32 *v)
{
  if (len - *pos < 4)
    return FALSE;
  *v = ((guint32) p[*pos] << 24) | ((guint32) p[*pos + 1] << 16) | ((guint32) p[*pos + 2] << 8)
       | p[*pos + 3];
  *pos += 4;
  return TRUE;
}

/* The intent back into id and mutations (borrowing its bytes). */
static gboolean
intent_decode (GBytes *intent, guint8 id[AB_HEAL_ID_LEN], GArray *muts, GError **error)
{
  gsize len, pos;
  const guint8 *p = g_bytes_get_data (intent, &len);
  guint32 n = 0;
  if (len < INTENT_HEAD || p[0] != INTENT_MAGIC || p[1] != INTENT_VERSION)
    return ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL,
                           "an intent of %" G_GSIZE_FORMAT " bytes that is not one", len);
  memcpy (id, p + 2, AB_HEAL_ID_LEN);
  pos = 2 + AB_HEAL_ID_LEN;
  get_u32 (p, len, &pos, &n);
  for (guint32 i = 0; i < n; i++)
    {
      AbMutation m = { 0 };
      guint32 klen = 0, vlen = 0;
      if (pos >= len)
        return ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL, "a truncated intent");
      guint8 kind = p[pos++];
      if (!get_u32 (p, len, &pos, &klen) || len - pos < klen)
        return ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL, "a truncated intent");
      m.key = p + pos;
      m.klen = klen;
      pos += klen;
      if (kind == 'P' && get_u32 (p, len, &pos, &vlen) && len - pos >= vlen)
        {
          m.kind = AB_MUT_PUT;
          m.value = p + pos;
          m.vlen = vlen;
          pos += vlen;
        }
      else if (kind == 'D')
        m.kind = AB_MUT_DELETE;
      else if (kind == 'A' && len - pos >= 8)
        {
          m.kind = AB_MUT_ADD;
          m.delta = ab_codec_get_be64 (p + pos);
          pos += 8;
        }
      else
        return ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL, "a malformed intent entry");
      g_array_append_val (muts, m);
    }
  return TRUE;
}

static GBytes *
receipt_key (const AbMutation *m, const guint8 id[AB_HEAL_ID_LEN])
{
  GByteArray *out = g_byte_array_new ();
  ab_codec_sidecar_key (out, m->key, m->klen, AB_SIDECAR_RECEIPT, id, AB_HEAL_ID_LEN);
  return g_byte_array_free_to_bytes (out);
}

/* Each receipt-taking add of rows (as an array of mutations) as a receipt
 * added (+1) or deleted in batch. */
static void
receipts_of (AbBatch *batch, const guint8 id[AB_HEAL_ID_LEN], const AbMutation *muts, guint n,
             gboolean add)
{
  for (guint i = 0; i < n; i++)
    {
      if (!takes_receipt (&muts[i]))
        continue;
      g_autoptr (GBytes) r = receipt_key (&muts[i], id);
      gsize rlen;
      const guint8 *rk = g_bytes_get_data (r, &rlen);
      if (add)
        ab_batch_add (batch, rk, rlen, 1);
      else
        ab_batch_delete (batch, rk, rlen);
    }
}

void
ab_heal_add_receipts (AbBatch *batch, const guint8 id[AB_HEAL_ID_LEN], const AbBatch *rows)
{
  receipts_of (batch, id, (const AbMutation *) rows->items->data, rows->items->len, TRUE);
}

void
ab_engine_heal_forget (AbEngine *engine, GBytes *intent)
{
  AbHeal *h = engine->heal;
  guint8 id[AB_HEAL_ID_LEN];
  g_autoptr (GArray) muts = g_array_new (FALSE, TRUE, sizeof (AbMutation));
  if (!intent_decode (intent, id, muts, NULL))
    return;
  g_mutex_lock (&h->mu);
  guint before = ab_batch_len (h->drop);
  receipts_of (h->drop, id, (const AbMutation *) muts->data, muts->len, FALSE);
  if (before == 0 && ab_batch_len (h->drop) > 0)
    {
      h->drop_since = g_get_monotonic_time ();
      healer_wake (engine);
    }
  g_mutex_unlock (&h->mu);
}

/* Deletes the queued receipts (h->mu held; released while the call runs). */
static void
drop_queued (AbEngine *engine)
{
  AbHeal *h = engine->heal;
  if (ab_batch_len (h->drop) == 0)
    return;
  g_autoptr (AbBatch) drop = g_steal_pointer (&h->drop);
  g_autoptr (GError) error = NULL;
  h->drop = ab_batch_new ();
  g_mutex_unlock (&h->mu);
  if (!ab_store_batch (engine->store, drop, &error))
    g_warning ("receipts of %u finished writes' Count rows left behind: %s", ab_batch_len (drop),
               error->message);
  g_mutex_lock (&h->mu);
}

/* ---- the recheck of a replayed write's Count adds ---- */

static gint64
retry_us (AbEngine *engine)
{
  return (gint64) MAX (engine->cfg.heal_retry_ms, 10) * G_TIME_SPAN_MILLISECOND;
}

/* A replayed write whose lock row is gone: its receipts are read again
 * later (recheck), and deleted only then. A write with nothing to replay
 * (a bare release) has none: they are deleted now. */
static void
recheck_later (AbEngine *engine, GBytes *intent)
{
  AbHeal *h = engine->heal;
  if (g_bytes_get_size (intent) <= INTENT_HEAD)
    return;
  Recheck *r = g_new (Recheck, 1);
  r->intent = g_bytes_ref (intent);
  r->due_us = g_get_monotonic_time () + RECHECK_AFTER_RETRIES * retry_us (engine);
  atomic_fetch_add (&h->rechecking, 1);
  g_mutex_lock (&h->mu);
  g_ptr_array_add (h->rechecks, r);
  healer_wake (engine);
  g_mutex_unlock (&h->mu);
}

/* TRUE when an earlier entry of muts puts or deletes the row of muts[i]: an
 * add after it starts from that row again, and its receipt counts nothing
 * the row still shows. */
static gboolean
row_reset_before (const GArray *muts, guint i)
{
  const AbMutation *m = &g_array_index (muts, AbMutation, i);
  for (guint j = 0; j < i; j++)
    {
      const AbMutation *e = &g_array_index (muts, AbMutation, j);
      if (e->kind != AB_MUT_ADD && e->klen == m->klen && memcmp (e->key, m->key, m->klen) == 0)
        return TRUE;
    }
  return FALSE;
}

/* The receipt keys that tell how often muts' Count adds were applied (a
 * reset row's add counts nothing), in order; at gets each one's index in
 * muts. The replay and the recheck read these. */
static GPtrArray *
counted_receipts (const GArray *muts, const guint8 id[AB_HEAL_ID_LEN], GArray *at)
{
  GPtrArray *keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < muts->len; i++)
    if (takes_receipt (&g_array_index (muts, AbMutation, i)) && !row_reset_before (muts, i))
      {
        g_ptr_array_add (keys, receipt_key (&g_array_index (muts, AbMutation, i), id));
        g_array_append_val (at, i);
      }
  return keys;
}

/* The receipts of a replayed write count how often each of its Count adds
 * was applied, as each add and its receipt are one increment of one row. A
 * call the node gave up on can still be applied afterwards (a region server
 * runs a call it has begun to its end, past the client's deadline), and the
 * replay then counted that add twice. An add found applied n != 1 times
 * gets (1 - n) times its delta, with (1 - n) on its receipt, in one
 * increment of its row. TRUE once every receipt reads 1 (or is gone): they
 * are then queued for deletion. FALSE: read again after heal-retry-ms (the
 * correction's own answer may be lost; the receipt tells). */
static gboolean
recheck (AbEngine *engine, GBytes *intent)
{
  guint8 id[AB_HEAL_ID_LEN];
  g_autoptr (GArray) muts = g_array_new (FALSE, TRUE, sizeof (AbMutation));
  g_autoptr (GArray) at = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GArray) seen = ab_kv_array_new ();
  g_autoptr (AbBatch) fix = ab_batch_new ();
  g_autoptr (GError) error = NULL;
  if (!intent_decode (intent, id, muts, NULL))
    return TRUE;
  g_autoptr (GPtrArray) keys = counted_receipts (muts, id, at);
  if (keys->len > 0 && !ab_store_multi_get (engine->store, keys, seen, &error))
    return FALSE;
  guint64 extra = 0;
  for (guint j = 0; j < seen->len; j++)
    {
      GBytes *v = g_array_index (seen, AbKv, j).value;
      if (v == NULL || g_bytes_get_size (v) != 8)
        continue; /* deleted by a sweep, or not a counter: nothing to tell */
      gint64 n = ab_codec_get_be64 (g_bytes_get_data (v, NULL));
      if (n == 1)
        continue;
      const AbMutation *m = &g_array_index (muts, AbMutation, g_array_index (at, guint, j));
      ab_batch_add (fix, m->key, m->klen, (1 - n) * m->delta);
      ab_batch_add (fix, g_bytes_get_data (keys->pdata[j], NULL), g_bytes_get_size (keys->pdata[j]),
                    1 - n);
      extra += n > 1 ? (guint64) (n - 1) : 0;
    }
  if (ab_batch_len (fix) == 0)
    {
      ab_engine_heal_forget (engine, intent);
      return TRUE;
    }
  if (extra > 0)
    g_warning ("a replayed write's Count adds were applied %" G_GUINT64_FORMAT " time(s) too "
               "often (the store ran a call after this node had given up on it): taken back",
               extra);
  atomic_fetch_add (&engine->heal->excess, extra);
  if (!ab_store_batch (engine->store, fix, &error))
    g_warning ("taking back a replayed write's extra Count adds failed (tried again in %u ms): %s",
               engine->cfg.heal_retry_ms, error->message);
  return FALSE;
}

/* The rechecks that are due, or all of them (h->mu held; released while
 * they run). The unfinished are due again after heal-retry-ms. */
static void
recheck_due (AbEngine *engine, gboolean all)
{
  AbHeal *h = engine->heal;
  gint64 now = g_get_monotonic_time ();
  g_autoptr (GPtrArray) due = g_ptr_array_new_with_free_func (recheck_free);
  for (guint i = h->rechecks->len; i-- > 0;)
    if (all || ((Recheck *) h->rechecks->pdata[i])->due_us <= now)
      g_ptr_array_add (due, g_ptr_array_steal_index (h->rechecks, i));
  if (due->len == 0)
    return;
  g_mutex_unlock (&h->mu);
  for (guint i = 0; i < due->len; i++)
    if (recheck (engine, ((Recheck *) due->pdata[i])->intent))
      {
        atomic_fetch_sub (&h->rechecking, 1);
        g_clear_pointer (&due->pdata[i], recheck_free);
      }
  g_mutex_lock (&h->mu);
  for (guint i = 0; i < due->len; i++)
    if (due->pdata[i] != NULL)
      {
        Recheck *r = g_steal_pointer (&due->pdata[i]);
        r->due_us = g_get_monotonic_time () + retry_us (engine);
        g_ptr_array_add (h->rechecks, r);
      }
}

/* The earliest recheck's due time (h->mu held); G_MAXINT64 for none. */
static gint64
next_recheck (AbHeal *h)
{
  gint64 next = G_MAXINT64;
  for (guint i = 0; i < h->rechecks->len; i++)
    next = MIN (next, ((Recheck *) h->rechecks->pdata[i])->due_us);
  return next;
}

void
ab_engine_heal_flush (AbEngine *engine)
{
  g_mutex_lock (&engine->heal->mu);
  recheck_due (engine, TRUE);
  drop_queued (engine);
  g_mutex_unlock (&engine->heal->mu);
}

/* The replaying writer's budget is spent (a transient error: the healer
 * takes the replay over). */
static gboolean
replay_stopped (const Pending *p, GError **error)
{
  if (!ab_engine_deadline_passed (p->deadline_us))
    return FALSE;
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_UNAVAILABLE,
               "the write budget was spent in the replay of a stale lock's write; this node's "
               "healer finishes it");
  return TRUE;
}

/* Writes what the intent says, except the increments its receipts show as
 * applied; the adds written carry their receipts, so a replay cut in turn
 * is replayed again the same way. A put or delete is written again as it
 * is: the lock still keeps every other writer of these rows out. */
static gboolean
replay (AbEngine *engine, const Pending *p, GError **error)
{
  GBytes *intent = p->intent;
  guint8 id[AB_HEAL_ID_LEN];
  g_autoptr (GArray) muts = g_array_new (FALSE, TRUE, sizeof (AbMutation));
  if (!intent_decode (intent, id, muts, error))
    return FALSE;
  g_autoptr (GArray) at = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autoptr (GPtrArray) keys = counted_receipts (muts, id, at);
  g_autoptr (GArray) seen = ab_kv_array_new ();
  if (replay_stopped (p, error)
      || (keys->len > 0 && !ab_store_multi_get (engine->store, keys, seen, error)))
    return FALSE;
  g_autoptr (AbBatch) batch = ab_batch_new ();
  guint j = 0;
  for (guint i = 0; i < muts->len; i++)
    {
      const AbMutation *m = &g_array_index (muts, AbMutation, i);
      /* an add after a put or delete of its row in the same write starts
       * from that row again: it has no counted receipt and is written */
      gboolean counted = j < at->len && g_array_index (at, guint, j) == i;
      if (counted && g_array_index (seen, AbKv, j++).value != NULL)
        continue; /* applied: its receipt says so */
      ab_batch_append (batch, m);
      if (takes_receipt (m))
        receipts_of (batch, id, m, 1, TRUE);
    }
  return ab_batch_len (batch) == 0
         || (!replay_stopped (p, error) && ab_store_batch (engine->store, batch, error));
}

/* A failure that may pass (the store unreachable or failing), as opposed to
 * one a replay would meet again. */
static gboolean
transient (const GError *error)
{
  return error->domain == AB_STORE_ERROR
         && (error->code == AB_STORE_ERROR_IO || error->code == AB_STORE_ERROR_UNAVAILABLE
             || error->code == AB_STORE_ERROR_INJECTED);
}

/* After the replay or the write itself: the lock row goes (with its intent),
 * then the receipts, which only an intent could need. FALSE when the release
 * failed in a way that may pass: the lock may still be ours, and nobody
 * else would release it before it is stale. */
static gboolean
settle (AbEngine *engine, GBytes *lock_key, GBytes *token, GBytes *intent, gboolean replayed)
{
  g_autoptr (GError) error = NULL;
  if (ab_engine_unlock (engine, lock_key, token, &error))
    {
      if (replayed)
        recheck_later (engine, intent);
      else
        ab_engine_heal_forget (engine, intent);
    }
  return error == NULL || !transient (error);
}

gboolean
ab_engine_heal_transient (const GError *error)
{
  return error != NULL && transient (error);
}

typedef enum { HEAL_DONE, HEAL_KEEP, HEAL_GONE } HealResult;

/* Replays p's intent under the lock p holds, then settles it. */
static HealResult
heal_held (AbEngine *engine, Pending *p)
{
  g_autoptr (GError) error = NULL;
  if (!replay (engine, p, &error))
    {
      if (transient (error))
        return HEAL_KEEP;
      g_warning ("an interrupted write cannot be replayed (the verifier repairs it): %s",
                 error->message);
      return settle (engine, p->lock_key, p->token, p->intent, FALSE) ? HEAL_GONE : HEAL_KEEP;
    }
  if (ab_engine_deadline_passed (p->deadline_us))
    return HEAL_KEEP; /* the healer releases it (after replaying it again) */
  if (!settle (engine, p->lock_key, p->token, p->intent, TRUE))
    return HEAL_KEEP; /* released next round (replayed again: its receipts keep that exact) */
  if (g_bytes_get_size (p->intent) > INTENT_HEAD) /* not a bare release */
    atomic_fetch_add (&engine->heal->healed, 1);
  return HEAL_DONE;
}

/* Puts our lock value again, if the lock still holds `expected`: the lock
 * stays ours and fresh while we replay. */
static gboolean
renew (AbEngine *engine, Pending *p, GBytes *expected, gboolean *held, GError **error)
{
  g_autoptr (GByteArray) value = g_byte_array_new ();
  ab_codec_encode_lock_value (value, ab_engine_now_ms (engine));
  gsize klen, elen;
  const guint8 *k = g_bytes_get_data (p->lock_key, &klen);
  const guint8 *e = g_bytes_get_data (expected, &elen);
  if (!ab_store_check_and_put (engine->store, k, klen, e, elen, value->data, value->len, held,
                               error))
    {
      /* it may have landed all the same (HBase died before its answer) */
      if (p->tried != NULL)
        g_ptr_array_add (p->tried, g_byte_array_free_to_bytes (g_steal_pointer (&value)));
      return FALSE;
    }
  if (*held)
    {
      g_bytes_unref (p->token);
      p->token = g_byte_array_free_to_bytes (g_steal_pointer (&value));
    }
  return TRUE;
}

/* A pending write whose lock is no longer ours: when its row is gone (our
 * release went through though its answer was lost) nobody can replay the
 * intent and its receipts are dropped, after their recheck (a replay of
 * ours may have preceded that release); else the lock's new holder replays
 * it and drops them. */
static void
let_go (AbEngine *engine, Pending *p)
{
  g_autoptr (GBytes) cur = NULL;
  g_autoptr (GError) error = NULL;
  gsize klen;
  const guint8 *k = g_bytes_get_data (p->lock_key, &klen);
  if (ab_store_get (engine->store, k, klen, &cur, &error) && cur == NULL)
    recheck_later (engine, p->intent); /* a replay of ours may have run: its release went */
}

/* Renewals of ours lost their answer: the lock row may hold any of their
 * values, and nobody but its holder changes a fresh lock, so one of them
 * found there is ours (the next renewal expects it). Without this the
 * write was let go as another's, and stayed cut until its lock was stale.
 * FALSE when the read failed. */
static gboolean
claim_lost_renewals (AbEngine *engine, Pending *p)
{
  g_autoptr (GBytes) cur = NULL;
  gsize klen;
  const guint8 *k = g_bytes_get_data (p->lock_key, &klen);
  if (!ab_store_get (engine->store, k, klen, &cur, NULL))
    return FALSE;
  for (guint i = 0; cur != NULL && i < p->tried->len; i++)
    if (g_bytes_equal (cur, p->tried->pdata[i]))
      {
        g_info ("a renewal of a cut write's lock had landed though its answer was lost");
        g_bytes_unref (p->token);
        p->token = g_bytes_ref (cur);
        break;
      }
  g_ptr_array_set_size (p->tried, 0);
  return TRUE;
}

static HealResult
heal_pending (AbEngine *engine, Pending *p)
{
  gboolean held = FALSE;
  g_autoptr (GError) error = NULL;
  if (p->tried->len > 0 && !claim_lost_renewals (engine, p))
    return HEAL_KEEP;
  g_autoptr (GBytes) expected = g_bytes_ref (p->token);
  if (!renew (engine, p, expected, &held, &error))
    return HEAL_KEEP;
  if (!held)
    {
      let_go (engine, p);
      return HEAL_GONE;
    }
  return heal_held (engine, p);
}

/* ---- the sweep: what no writer of the key and no live owner will finish ---- */

typedef struct {
  GPtrArray *locks;    /* GBytes*: Lock rows holding an intent */
  GPtrArray *receipts; /* GBytes*: receipt keys */
  GHashTable *ids;     /* the write ids of those intents */
} Sweep;

static gboolean
sweep_visit (const guint8 *key, gsize klen, const guint8 *value, gsize vlen, gpointer data)
{
  Sweep *sw = data;
  gsize row = ab_codec_sidecar_row_length (key, klen);
  if (row == 0)
    return TRUE;
  guint8 tag = key[row + 1];
  if (tag == AB_SIDECAR_INTENT)
    {
      g_ptr_array_add (sw->locks, g_bytes_new (key, row));
      if (vlen >= INTENT_HEAD)
        g_hash_table_add (sw->ids, g_bytes_new (value + 2, AB_HEAL_ID_LEN));
    }
  else if (tag == AB_SIDECAR_RECEIPT && klen - row - 2 == AB_HEAL_ID_LEN)
    g_ptr_array_add (sw->receipts, g_bytes_new (key, klen));
  return TRUE;
}

/* The receipts whose write had no intent in the scan: a receipt is needed
 * only while its intent lasts, so one without it is an orphan, unless the
 * scan passed its intent's Lock row just before the write began (a scan
 * is not a snapshot). Its owner deletes it in the background within
 * moments, unless it died first: one is deleted here only once it has
 * been an orphan for ORPHAN_AGE_MS (engine clock) over two sweeps, which
 * that race cannot fool twice (the same write does not begin again).
 * h->orphan_seen keeps the orphans of the last sweep with the time they
 * were first seen. */
static guint
drop_orphans (AbEngine *engine, Sweep *sw, GError **error)
{
  AbHeal *h = engine->heal;
  gint64 now = ab_engine_now_ms (engine);
  g_autoptr (AbBatch) gone = ab_batch_new ();
  g_autoptr (GHashTable) seen = g_steal_pointer (&h->orphan_seen);
  h->orphan_seen
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, g_free);
  for (guint i = 0; i < sw->receipts->len; i++)
    {
      gsize klen;
      GBytes *key = sw->receipts->pdata[i];
      const guint8 *k = g_bytes_get_data (key, &klen);
      g_autoptr (GBytes) id = g_bytes_new (k + klen - AB_HEAL_ID_LEN, AB_HEAL_ID_LEN);
      if (g_hash_table_contains (sw->ids, id))
        continue;
      gint64 *since = g_hash_table_lookup (seen, key);
      if (since != NULL && now - *since >= ORPHAN_AGE_MS)
        ab_batch_delete (gone, k, klen);
      else
        g_hash_table_insert (h->orphan_seen, g_bytes_ref (key),
                             g_memdup2 (since != NULL ? since : &now, sizeof now));
    }
  if (ab_batch_len (gone) > 0 && !ab_store_batch (engine->store, gone, error))
    return G_MAXUINT;
  return ab_batch_len (gone);
}

static gboolean
sweep (AbEngine *engine, GError **error)
{
  g_autoptr (GPtrArray) locks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GPtrArray) receipts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_autoptr (GHashTable) ids
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  Sweep sw = { locks, receipts, ids };
  if (!ab_store_scan_sidecars (engine->store, sweep_visit, &sw, error))
    return FALSE;
  for (guint i = 0; i < locks->len; i++)
    ab_engine_lock_sweep (engine, locks->pdata[i], 0); /* only the stale ones */
  guint dropped = drop_orphans (engine, &sw, error);
  if (dropped == G_MAXUINT)
    return FALSE;
  atomic_fetch_add (&engine->heal->sweeps, 1);
  atomic_fetch_add (&engine->heal->orphans, dropped);
  if (dropped > 0)
    g_info ("the heal sweep deleted %u receipts of finished writes", dropped);
  return TRUE;
}

gboolean
ab_engine_heal_sweep (AbEngine *engine, GError **error)
{
  g_mutex_lock (&engine->heal->sweep_mu); /* one sweep at a time */
  gboolean ok = sweep (engine, error);
  g_mutex_unlock (&engine->heal->sweep_mu);
  return ok;
}

static void
sweep_now (AbEngine *engine)
{
  g_autoptr (GError) error = NULL;
  if (!ab_engine_heal_sweep (engine, &error))
    g_warning ("the heal sweep for cut writes of dead nodes failed (next one in %u ms): %s",
               engine->cfg.heal_sweep_ms, error->message);
}

/* The first sweep comes at a random point of the second half of the first
 * interval, so that nodes started together do not sweep together. */
static gint64
first_sweep (AbEngine *engine, gint64 now)
{
  gint64 every = (gint64) engine->cfg.heal_sweep_ms * G_TIME_SPAN_MILLISECOND;
  if (every == 0)
    return G_MAXINT64;
  return now + (gint64) (every * g_random_double_range (0.5, 1.0));
}

/* One round over the pending writes, on up to ROUND_THREADS threads (a
 * store back from an outage may find thousands). The first write the
 * store still refuses ends the round: every call would wait out the same
 * timeout, so the rest wait for the next round. */
#define ROUND_THREADS 8

typedef struct {
  AbEngine *engine;
  GPtrArray *round;
  HealResult *results;
  atomic_uint next;
  atomic_int down;
} Round;

static gpointer
round_worker (gpointer data)
{
  Round *r = data;
  guint i;
  while (!atomic_load (&r->down) && (i = atomic_fetch_add (&r->next, 1)) < r->round->len)
    if ((r->results[i] = heal_pending (r->engine, r->round->pdata[i])) == HEAL_KEEP)
      atomic_store (&r->down, 1);
  return NULL;
}

/* The writes of round still pending afterwards (moved out of it). */
static GPtrArray *
heal_round (AbEngine *engine, GPtrArray *round)
{
  Round r = { engine, round, g_new (HealResult, round->len), 0, 0 };
  GThread *threads[ROUND_THREADS - 1];
  guint extra = MIN (round->len / 4, ROUND_THREADS - 1);
  for (guint i = 0; i < round->len; i++)
    r.results[i] = HEAL_KEEP; /* until tried */
  for (guint t = 0; t < extra; t++)
    threads[t] = g_thread_new ("ab-heal-round", round_worker, &r);
  round_worker (&r);
  for (guint t = 0; t < extra; t++)
    g_thread_join (threads[t]);
  GPtrArray *keep = g_ptr_array_new ();
  for (guint i = 0; i < round->len; i++)
    if (r.results[i] == HEAL_KEEP)
      g_ptr_array_add (keep, g_steal_pointer (&round->pdata[i]));
    else
      atomic_fetch_sub (&engine->heal->waiting, 1);
  g_free (r.results);
  return keep;
}

/* A round over every pending write (h->mu held; released meanwhile). */
static void
retry_round (AbEngine *engine)
{
  AbHeal *h = engine->heal;
  GPtrArray *round = h->pending;
  h->pending = g_ptr_array_new_with_free_func (pending_free);
  g_mutex_unlock (&h->mu);
  g_autoptr (GPtrArray) keep = heal_round (engine, round);
  g_ptr_array_unref (round); /* frees the finished ones */
  g_mutex_lock (&h->mu);
  for (guint i = 0; i < keep->len; i++)
    g_ptr_array_add (h->pending, keep->pdata[i]);
}

void
ab_engine_heal_retry_now (AbEngine *engine)
{
  g_mutex_lock (&engine->heal->mu);
  retry_round (engine);
  g_mutex_unlock (&engine->heal->mu);
}

static gpointer
healer_main (gpointer data)
{
  AbEngine *engine = data;
  AbHeal *h = engine->heal;
  gint64 next_retry = g_get_monotonic_time () + retry_us (engine);
  gint64 next_sweep = first_sweep (engine, g_get_monotonic_time ());
  g_mutex_lock (&h->mu);
  while (!h->stop)
    {
      gint64 next_drop = ab_batch_len (h->drop) > 0 ? h->drop_since + DROP_AFTER_US : G_MAXINT64;
      gint64 recheck_at = next_recheck (h);
      g_cond_wait_until (&h->cond, &h->mu,
                         MIN (MIN (next_retry, next_drop), MIN (next_sweep, recheck_at)));
      if (h->stop)
        break;
      gint64 now = g_get_monotonic_time ();
      if (now >= recheck_at)
        recheck_due (engine, FALSE);
      if (now >= next_drop)
        drop_queued (engine);
      if (now >= next_sweep)
        {
          g_mutex_unlock (&h->mu);
          sweep_now (engine);
          g_mutex_lock (&h->mu);
          next_sweep = g_get_monotonic_time () + (gint64) engine->cfg.heal_sweep_ms * 1000;
        }
      if (now < next_retry)
        continue;
      next_retry = now + retry_us (engine);
      retry_round (engine);
    }
  g_mutex_unlock (&h->mu);
  return NULL;
}

void
ab_engine_heal_later (AbEngine *engine, GBytes *lock_key, GBytes *token, GBytes *intent)
{
  AbHeal *h = engine->heal;
  Pending *p = g_new0 (Pending, 1);
  p->lock_key = g_bytes_ref (lock_key);
  p->token = g_bytes_ref (token);
  p->intent = g_bytes_ref (intent);
  p->tried = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  atomic_fetch_add (&h->waiting, 1);
  g_mutex_lock (&h->mu);
  g_ptr_array_add (h->pending, p);
  healer_wake (engine);
  g_mutex_unlock (&h->mu);
}

/* Starts the healer thread on first use, or wakes it to look at its
 * deadlines again (h->mu held). */
static void
healer_wake (AbEngine *engine)
{
  AbHeal *h = engine->heal;
  if (h->thread == NULL && !h->stop)
    h->thread = g_thread_new ("ab-heal", healer_main, engine);
  g_cond_signal (&h->cond);
}

gboolean
ab_engine_heal_stale (AbEngine *engine, GBytes *lock_key, GBytes *held, GBytes *intent,
                      gint64 deadline_us)
{
  Pending p = { g_bytes_ref (lock_key), g_bytes_ref (held), g_bytes_ref (intent), deadline_us };
  gboolean ours = FALSE;
  g_autoptr (GError) error = NULL;
  HealResult r = HEAL_GONE;
  if (!ab_engine_deadline_passed (deadline_us) && renew (engine, &p, held, &ours, &error) && ours)
    {
      g_info ("replaying the interrupted write left in a stale lock");
      r = heal_held (engine, &p);
      if (r == HEAL_KEEP)
        ab_engine_heal_later (engine, p.lock_key, p.token, p.intent);
    }
  else if (error != NULL)
    g_warning ("a stale lock's interrupted write not taken over: %s", error->message);
  g_bytes_unref (p.lock_key);
  g_bytes_unref (p.token);
  g_bytes_unref (p.intent);
  return r == HEAL_DONE;
}

void
ab_engine_heal_start (AbEngine *engine)
{
  AbHeal *h = g_new0 (AbHeal, 1);
  g_mutex_init (&h->mu);
  g_cond_init (&h->cond);
  g_mutex_init (&h->sweep_mu);
  h->orphan_seen
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, g_free);
  h->pending = g_ptr_array_new_with_free_func (pending_free);
  h->drop = ab_batch_new ();
  h->rechecks = g_ptr_array_new_with_free_func (recheck_free);
  engine->heal = h;
  if (engine->cfg.heal_sweep_ms > 0 && ab_engine_heals (engine))
    {
      g_mutex_lock (&h->mu);
      healer_wake (engine); /* the sweeps need the thread from the start */
      g_mutex_unlock (&h->mu);
    }
}

/* Writes still pending keep their locks and intents in the store: the next
 * writer of the key, once the lock is stale, replays them. */
void
ab_engine_heal_stop (AbEngine *engine)
{
  AbHeal *h = engine->heal;
  if (h == NULL)
    return;
  g_mutex_lock (&h->mu);
  h->stop = TRUE;
  g_cond_signal (&h->cond);
  GThread *t = g_steal_pointer (&h->thread);
  g_mutex_unlock (&h->mu);
  if (t != NULL)
    g_thread_join (t);
  g_mutex_lock (&h->mu);
  recheck_due (engine, TRUE); /* early, but the last chance */
  drop_queued (engine);
  g_mutex_unlock (&h->mu);
  ab_batch_free (h->drop);
  if (h->rechecks->len > 0)
    g_warning ("%u replayed writes' Count adds left unchecked (their receipts go with the "
               "sweeps; actionbase-verify --repair corrects a count applied twice)",
               h->rechecks->len);
  g_ptr_array_unref (h->rechecks);
  if (h->pending->len > 0)
    g_warning ("%u interrupted writes left to be replayed by the next writer of their keys",
               h->pending->len);
  g_ptr_array_unref (h->pending);
  g_hash_table_unref (h->orphan_seen);
  g_mutex_clear (&h->sweep_mu);
  g_mutex_clear (&h->mu);
  g_cond_clear (&h->cond);
  g_free (h);
  engine->heal = NULL;
}

void
ab_engine_heal_stats (AbEngine *engine, AbHealStats *out)
{
  AbHeal *h = engine->heal;
  *out = (AbHealStats){ 0 };
  if (h == NULL)
    return;
  out->pending = atomic_load (&h->waiting);
  out->healed = atomic_load (&h->healed);
  out->sweeps = atomic_load (&h->sweeps);
  out->orphans = atomic_load (&h->orphans);
  out->rechecks = atomic_load (&h->rechecking);
  out->excess = atomic_load (&h->excess);
}

void
ab_engine_heal_metrics (AbEngine *engine, GString *out)
{
  AbHealStats st;
  if (!ab_engine_heals (engine))
    return;
  ab_engine_heal_stats (engine, &st);
  g_string_append_printf (
      out,
      "# HELP actionbase_heal_pending Writes cut between their store calls that this node holds "
      "the locks of and replays.\n"
      "# TYPE actionbase_heal_pending gauge\n"
      "actionbase_heal_pending %u\n"
      "# HELP actionbase_heal_replays_total Cut writes finished from their intent (this node's, "
      "and stale locks taken over).\n"
      "# TYPE actionbase_heal_replays_total counter\n"
      "actionbase_heal_replays_total %" G_GUINT64_FORMAT "\n"
      "# HELP actionbase_heal_sweeps_total Table sweeps for intents of dead nodes and receipts "
      "left behind (every heal-sweep-ms).\n"
      "# TYPE actionbase_heal_sweeps_total counter\n"
      "actionbase_heal_sweeps_total %" G_GUINT64_FORMAT "\n"
      "# HELP actionbase_heal_orphan_receipts_total Receipts of finished writes whose node died "
      "before deleting them, deleted by the sweeps.\n"
      "# TYPE actionbase_heal_orphan_receipts_total counter\n"
      "actionbase_heal_orphan_receipts_total %" G_GUINT64_FORMAT "\n"
      "# HELP actionbase_heal_rechecks Replayed writes whose Count adds this node reads again "
      "(10 heal-retry-ms after the replay) before deleting their receipts.\n"
      "# TYPE actionbase_heal_rechecks gauge\n"
      "actionbase_heal_rechecks %u\n"
      "# HELP actionbase_heal_excess_adds_total Count adds of replayed writes found applied more "
      "than once (a call the store ran after this node gave up on it), taken back.\n"
      "# TYPE actionbase_heal_excess_adds_total counter\n"
      "actionbase_heal_excess_adds_total %" G_GUINT64_FORMAT "\n",
      st.pending, st.healed, st.sweeps, st.orphans, st.rechecks, st.excess);
}
