/* The store seam's conformance suite, part two: planned transactions on
 * the stores that have them (groups, many rows) and concurrent increments and
 * check-and-sets; every test on each backend, registered by test_store.c. */
#include <stdlib.h>
#include <string.h>
#include "store_test_util.h"
#include "codec/keys.h"
#include "codec/record.h"

/* ---- transactions (stores that have them) ---- */

/* Plan k: read the counter through the view, put it + 1 back (a
 * read-modify-write that is only right if each plan sees the writes of the
 * plans before it in its group), and write its own row "row<k>". Every 5th
 * plan also increments the 3-byte value "bad" after its writes: that fails
 * in the middle of its batch, and must roll back that plan alone. Every 7th
 * refuses outright. */
typedef struct {
  guint k;
  GMutex *lock;
  GCond *cond;
  guint *left;
  GError *error;
  guint runs;
} TxnCase;

static gboolean
txn_plan (AbStore *view, AbBatch *batch, gpointer data, GError **error)
{
  TxnCase *c = data;
  g_autoptr (GBytes) cur = NULL;
  guint64 n = 0;
  c->runs++;
  ck_assert_uint_eq (ab_batch_len (batch), 0); /* from scratch every time */
  if (c->k % 7 == 3)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "plan %u refuses", c->k);
      return FALSE;
    }
  ck_assert (ab_store_get (view, ST_S ("counter"), &cur, NULL));
  if (cur != NULL)
    {
      g_autofree gchar *text = g_strndup (g_bytes_get_data (cur, NULL), g_bytes_get_size (cur));
      n = g_ascii_strtoull (text, NULL, 10);
    }
  g_autofree gchar *next = g_strdup_printf ("%020" G_GUINT64_FORMAT, n + 1);
  g_autofree gchar *row = g_strdup_printf ("row%02u", c->k);
  ab_batch_put (batch, ST_S ("counter"), ST_S (next));
  ab_batch_put (batch, ST_S (row), ST_S ("x"));
  if (c->k % 5 == 4)
    ab_batch_increment (batch, ST_S ("bad"), 1);
  return TRUE;
}

static void
txn_done (gpointer data, const GError *error)
{
  TxnCase *c = data;
  g_mutex_lock (c->lock);
  c->error = error != NULL ? g_error_copy (error) : NULL;
  (*c->left)--;
  g_cond_signal (c->cond);
  g_mutex_unlock (c->lock);
}

START_TEST (test_transact_groups)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  enum { N = 40 };
  TxnCase cases[N];
  GMutex lock;
  GCond cond;
  guint left = N, good = 0;
  if (!ab_store_can_transact (s))
    {
      GError *error = NULL;
      ck_assert (st_backend_hbase (_i)); /* lmdb and memory have transactions */
      ck_assert (!ab_store_transact (s, txn_plan, &cases[0], &error));
      ck_assert_int_eq (error->code, AB_STORE_ERROR_UNAVAILABLE);
      g_clear_error (&error);
      return;
    }
  g_mutex_init (&lock);
  g_cond_init (&cond);
  st_put (s, ST_S ("bad"), ST_S ("xyz"));
  /* queued back to back: on lmdb most share a group with their neighbours */
  for (guint k = 0; k < N; k++)
    {
      cases[k] = (TxnCase){ .k = k, .lock = &lock, .cond = &cond, .left = &left };
      ab_store_transact_async (s, txn_plan, txn_done, &cases[k]);
    }
  g_mutex_lock (&lock);
  while (left > 0)
    g_cond_wait (&cond, &lock);
  g_mutex_unlock (&lock);
  for (guint k = 0; k < N; k++)
    {
      g_autofree gchar *row = g_strdup_printf ("row%02u", k);
      gboolean fails = k % 7 == 3 || k % 5 == 4;
      ck_assert_msg ((cases[k].error != NULL) == fails, "plan %u", k);
      if (k % 5 == 4 && k % 7 != 3)
        ck_assert_int_eq (cases[k].error->code, AB_STORE_ERROR_WIDTH);
      st_assert_value (s, ST_S (row), fails ? NULL : (const guint8 *) "x", fails ? 0 : 1);
      good += !fails;
      g_clear_error (&cases[k].error);
    }
  g_autofree gchar *want = g_strdup_printf ("%020u", good);
  st_assert_value (s, ST_S ("counter"), ST_S (want));
  st_assert_value (s, ST_S ("bad"), ST_S ("xyz"));
  /* the synchronous form, and its count as one batch call */
  AbStoreStats before, after;
  ab_store_stats (s, &before);
  cases[0] = (TxnCase){ .k = 0 };
  ck_assert (ab_store_transact (s, txn_plan, &cases[0], NULL));
  ab_store_stats (s, &after);
  ck_assert_uint_eq (after.ops[AB_STORE_VERB_BATCH] - before.ops[AB_STORE_VERB_BATCH], 1);
  g_autofree gchar *want2 = g_strdup_printf ("%020u", good + 1);
  st_assert_value (s, ST_S ("counter"), ST_S (want2));
  g_mutex_clear (&lock);
  g_cond_clear (&cond);
}
END_TEST

/* A plan's view reads every way the seam offers (the backends give some
 * verbs and store.c derives the others from them) and refuses a write of
 * its own: a plan writes through its batch. */
static gboolean
count_rows (const guint8 *k, gsize klen, const guint8 *v, gsize vlen, gpointer n)
{
  (void) k, (void) klen, (void) v, (void) vlen;
  (*(guint *) n)++;
  return TRUE;
}

static gboolean
view_plan (AbStore *view, AbBatch *batch, gpointer data, GError **error)
{
  g_autoptr (GBytes) one = NULL;
  ck_assert (ab_store_get (view, ST_S ("v1"), &one, NULL));
  ck_assert (one != NULL && g_bytes_get_size (one) == 1);
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  g_ptr_array_add (keys, g_bytes_new_static ("v2", 2));
  g_ptr_array_add (keys, g_bytes_new_static ("nope", 4));
  g_ptr_array_add (keys, g_bytes_new_static ("v1", 2));
  g_autoptr (GArray) got = ab_kv_array_new ();
  ck_assert (ab_store_multi_get (view, keys, got, NULL));
  ck_assert_uint_eq (got->len, 3);
  ck_assert (g_array_index (got, AbKv, 0).value != NULL);
  ck_assert (g_array_index (got, AbKv, 1).value == NULL);
  ck_assert (g_array_index (got, AbKv, 2).value != NULL);
  AbScanRange r = { .start = ST_S ("v"), .start_inclusive = TRUE, .stop = ST_S ("w") };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  ck_assert (ab_store_scan (view, &r, rows, NULL));
  ck_assert_uint_eq (rows->len, 2);
  guint visited = 0;
  ck_assert (ab_store_scan_with (view, &r, count_rows, &visited, NULL));
  ck_assert (ab_store_get_with (view, ST_S ("v2"), count_rows, &visited, NULL));
  ck_assert_uint_eq (visited, 3);
  g_autoptr (AbBatch) direct = ab_batch_new ();
  ab_batch_put (direct, ST_S ("direct"), ST_S ("x"));
  g_autoptr (GError) refused = NULL;
  ck_assert (!ab_store_batch (view, direct, &refused));
  ck_assert_msg (refused != NULL && strstr (refused->message, "read-only") != NULL, "%s",
                 refused != NULL ? refused->message : "no error");
  /* and so are the single-key writes */
  gboolean applied = TRUE;
  g_autoptr (GError) no_add = NULL, no_put = NULL, no_delete = NULL;
  ck_assert (!ab_store_increment (view, ST_S ("direct"), 1, NULL, &no_add));
  ck_assert (
      !ab_store_check_and_put (view, ST_S ("direct"), NULL, 0, ST_S ("x"), &applied, &no_put));
  ck_assert (!applied);
  ck_assert (!ab_store_check_and_delete (view, ST_S ("v1"), ST_S ("a"), &applied, &no_delete));
  ck_assert (!applied);
  ck_assert (strstr (no_add->message, "read-only") != NULL);
  ck_assert (strstr (no_put->message, "read-only") != NULL);
  ck_assert (strstr (no_delete->message, "read-only") != NULL);
  (void) data, (void) error;
  ab_batch_put (batch, ST_S ("planned"), ST_S ("y"));
  return TRUE;
}

START_TEST (test_transact_view)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  if (!ab_store_can_transact (s))
    return; /* hbase: test_transact_groups checks the refusal */
  st_put (s, ST_S ("v1"), ST_S ("a"));
  st_put (s, ST_S ("v2"), ST_S ("b"));
  g_autoptr (GError) error = NULL;
  ck_assert_msg (ab_store_transact (s, view_plan, NULL, &error), "%s",
                 error != NULL ? error->message : "");
  st_assert_value (s, ST_S ("planned"), ST_S ("y"));
  st_assert_value (s, ST_S ("direct"), NULL, 0);
}
END_TEST

/* A plan of thousands of rows (a bulk import's group commit): keys that
 * share long prefixes, keys that are prefixes of others, zero bytes against
 * the end of a key, one key mutated hundreds of times. The store may order
 * the rows for its own sake (lmdb sorts them by key), but one key's
 * mutations apply in the batch's order, and the plan's multi_get answers in
 * the caller's order. */
typedef struct {
  GPtrArray *keys;    /* GBytes: the value keys, then the counter keys */
  guint n_values;     /* keys[0..n_values) take puts and deletes */
  GHashTable *model;  /* value key (GBytes) -> its value (gchar*, owned) */
  GHashTable *counts; /* counter key (GBytes) -> GINT_TO_POINTER (count) */
  GHashTable *before; /* the model before the plan (a plan may run again) */
  gboolean read_ok;
} BulkCase;

static GBytes *
bulk_key (GRand *r, guint i)
{
  GByteArray *k = g_byte_array_new ();
  switch (i % 3)
    {
      case 0: /* a 16-byte run shared by a third of the keys, then a number */
        g_byte_array_append (k, (const guint8 *) "sharedprefix/ent", 16);
        for (guint n = i; n > 0; n /= 7)
          g_byte_array_append (k, (const guint8 *) &"0123456"[n % 7], 1);
        break;
      case 1: /* 12 shared bytes, then 0-3 bytes that are often zero */
        g_byte_array_append (k, (const guint8 *) "entity\x01\x02\x03\x04\x05\x06", 12);
        for (guint n = g_rand_int_range (r, 0, 4); n > 0; n--)
          g_byte_array_append (k, (const guint8 *) &"\x00\x00\x01\xff"[g_rand_int_range (r, 0, 4)],
                               1);
        break;
      default: /* 1-20 random bytes */
        for (guint n = g_rand_int_range (r, 1, 21); n > 0; n--)
          {
            guint8 b = (guint8) g_rand_int_range (r, 0, 256);
            g_byte_array_append (k, &b, 1);
          }
    }
  return g_byte_array_free_to_bytes (k);
}

/* v (NULL: absent) holds exactly the text want. */
static gboolean
bytes_are (GBytes *v, const gchar *want)
{
  gsize n = strlen (want);
  return v != NULL && g_bytes_get_size (v) == n
         && memcmp (g_bytes_get_data (v, NULL), want, n) == 0;
}

static gboolean
bulk_plan (AbStore *view, AbBatch *batch, gpointer data, GError **error)
{
  BulkCase *c = data;
  g_autoptr (GRand) r = g_rand_new_with_seed (7);
  GHashTableIter it;
  gpointer key0, value0;
  g_hash_table_remove_all (c->model);
  g_hash_table_remove_all (c->counts);
  g_hash_table_iter_init (&it, c->before);
  while (g_hash_table_iter_next (&it, &key0, &value0))
    g_hash_table_insert (c->model, key0, g_strdup (value0));
  /* 700 reads, in random order and repeated, answered in this order */
  g_autoptr (GPtrArray) asked = g_ptr_array_new ();
  for (guint i = 0; i < 700; i++)
    g_ptr_array_add (asked, c->keys->pdata[g_rand_int_range (r, 0, (gint) c->n_values)]);
  g_autoptr (GArray) got = ab_kv_array_new ();
  c->read_ok = ab_store_multi_get (view, asked, got, error) && got->len == asked->len;
  for (guint i = 0; c->read_ok && i < asked->len; i++)
    {
      const gchar *want = g_hash_table_lookup (c->model, asked->pdata[i]);
      GBytes *v = g_array_index (got, AbKv, i).value;
      c->read_ok = want == NULL ? v == NULL : bytes_are (v, want);
    }
  for (guint i = 0; i < 4000; i++)
    {
      /* one in ten rows mutates key 0, a short one: hundreds of equal keys */
      guint k = g_rand_int_range (r, 0, 10) == 0 ? 0 : g_rand_int_range (r, 0, (gint) c->keys->len);
      gsize klen;
      const guint8 *key = g_bytes_get_data (c->keys->pdata[k], &klen);
      if (k >= c->n_values)
        {
          ab_batch_increment (batch, key, klen, 1);
          gint n = GPOINTER_TO_INT (g_hash_table_lookup (c->counts, c->keys->pdata[k]));
          g_hash_table_insert (c->counts, c->keys->pdata[k], GINT_TO_POINTER (n + 1));
        }
      else if (g_rand_int_range (r, 0, 4) == 0)
        {
          ab_batch_delete (batch, key, klen);
          g_hash_table_remove (c->model, c->keys->pdata[k]);
        }
      else
        {
          gchar *v = g_strdup_printf ("v%u", i);
          ab_batch_put (batch, key, klen, ST_S (v)); /* the batch copies it */
          g_hash_table_insert (c->model, c->keys->pdata[k], v);
        }
    }
  return TRUE;
}

START_TEST (test_transact_many_rows)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  if (!ab_store_can_transact (s))
    return; /* hbase: test_transact_groups checks the refusal */
  g_autoptr (GRand) r = g_rand_new_with_seed (42);
  BulkCase c
      = { .keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref), .n_values = 0 };
  g_autoptr (GHashTable) seen = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  g_ptr_array_add (c.keys, g_bytes_new_static ("hot", 3));
  g_hash_table_add (seen, c.keys->pdata[0]);
  for (guint i = 0; c.keys->len < 900; i++)
    {
      GBytes *k = bulk_key (r, i);
      if (g_hash_table_contains (seen, k)) /* (add would swap in k, freed next) */
        {
          g_bytes_unref (k);
          continue;
        }
      g_hash_table_add (seen, k);
      g_ptr_array_add (c.keys, k);
    }
  c.n_values = c.keys->len;
  for (guint i = 0; i < 30; i++)
    g_ptr_array_add (c.keys, g_bytes_new_take (g_strdup_printf ("count%02u", i), 7));
  /* half the value keys already hold a value (the plan's reads see them) */
  g_autoptr (GHashTable) model = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, NULL, g_free);
  g_autoptr (GHashTable) counts = g_hash_table_new (g_bytes_hash, g_bytes_equal);
  g_autoptr (GHashTable) before = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, NULL, g_free);
  c.model = model;
  c.counts = counts;
  c.before = before;
  for (guint i = 0; i < c.n_values; i += 2)
    {
      gsize klen;
      const guint8 *key = g_bytes_get_data (c.keys->pdata[i], &klen);
      gchar *v = g_strdup_printf ("old%u", i);
      st_put (s, key, klen, ST_S (v));
      g_hash_table_insert (before, c.keys->pdata[i], v);
    }
  GError *error = NULL;
  ck_assert_msg (ab_store_transact (s, bulk_plan, &c, &error), "%s", error ? error->message : "");
  ck_assert_msg (c.read_ok, "the plan's multi_get answered other values than the store holds");
  /* every key as the batch's order leaves it, and nothing else */
  for (guint i = 0; i < c.keys->len; i++)
    {
      gsize klen;
      const guint8 *key = g_bytes_get_data (c.keys->pdata[i], &klen);
      if (i >= c.n_values)
        {
          gint want = GPOINTER_TO_INT (g_hash_table_lookup (counts, c.keys->pdata[i]));
          if (want > 0)
            st_assert_counter (s, key, klen, want);
          else
            st_assert_value (s, key, klen, NULL, 0);
          continue;
        }
      const gchar *want = g_hash_table_lookup (model, c.keys->pdata[i]);
      st_assert_value (s, key, klen, (const guint8 *) want, want != NULL ? strlen (want) : 0);
    }
  g_autoptr (GArray) all = ab_kv_array_new ();
  AbScanRange everything = { 0 };
  ck_assert (ab_store_scan (s, &everything, all, NULL));
  ck_assert_uint_eq (all->len, g_hash_table_size (model) + g_hash_table_size (counts));
  g_ptr_array_unref (c.keys);
}
END_TEST

/* ---- concurrency ---- */

#define INC_THREADS 16
#define INC_ROUNDS 150
#define INC_KEYS 3

typedef struct {
  AbStore *s;
  guint id;
  gint64 seen[INC_KEYS][INC_ROUNDS]; /* new values returned, per key */
  gboolean won;
  guint failures;
} Worker;

static gpointer
increment_worker (gpointer p)
{
  Worker *w = p;
  for (guint r = 0; r < INC_ROUNDS; r++)
    for (guint k = 0; k < INC_KEYS; k++)
      {
        gchar key[8];
        g_snprintf (key, sizeof key, "ctr%u", k);
        if (!ab_store_increment (w->s, ST_S (key), 1, &w->seen[k][r], NULL))
          w->failures++;
      }
  return NULL;
}

START_TEST (test_concurrent_increments)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  Worker *w = g_new0 (Worker, INC_THREADS);
  GThread *t[INC_THREADS];
  const guint total = INC_THREADS * INC_ROUNDS;
  g_autofree guint8 *hit = g_new0 (guint8, total + 1);
  for (guint i = 0; i < INC_THREADS; i++)
    {
      w[i] = (Worker){ .s = s, .id = i };
      t[i] = g_thread_new ("inc", increment_worker, &w[i]);
    }
  for (guint i = 0; i < INC_THREADS; i++)
    g_thread_join (t[i]);
  for (guint k = 0; k < INC_KEYS; k++)
    {
      gchar key[8];
      g_snprintf (key, sizeof key, "ctr%u", k);
      st_assert_counter (s, ST_S (key), total);
      /* every returned value 1..total handed out exactly once */
      memset (hit, 0, total + 1);
      for (guint i = 0; i < INC_THREADS; i++)
        for (guint r = 0; r < INC_ROUNDS; r++)
          {
            gint64 v = w[i].seen[k][r];
            ck_assert (v >= 1 && v <= (gint64) total);
            ck_assert_uint_eq (hit[v]++, 0);
          }
    }
  for (guint i = 0; i < INC_THREADS; i++)
    ck_assert_uint_eq (w[i].failures, 0);
  g_free (w);
}
END_TEST

static gpointer
cas_worker (gpointer p)
{
  Worker *w = p;
  gchar val[16];
  g_snprintf (val, sizeof val, "owner-%u", w->id);
  if (!ab_store_check_and_put (w->s, ST_S ("lock"), NULL, 0, ST_S (val), &w->won, NULL))
    w->failures++;
  return NULL;
}

START_TEST (test_concurrent_check_and_put)
{
  g_autoptr (AbStore) s = st_open_backend (_i);
  Worker w[8];
  GThread *t[8];
  guint winners = 0, winner = 0;
  gchar val[16];
  for (guint i = 0; i < 8; i++)
    {
      w[i] = (Worker){ .s = s, .id = i };
      t[i] = g_thread_new ("cas", cas_worker, &w[i]);
    }
  for (guint i = 0; i < 8; i++)
    {
      g_thread_join (t[i]);
      ck_assert_uint_eq (w[i].failures, 0);
      if (w[i].won)
        {
          winners++;
          winner = i;
        }
    }
  ck_assert_uint_eq (winners, 1);
  g_snprintf (val, sizeof val, "owner-%u", winner);
  st_assert_value (s, ST_S ("lock"), ST_S (val));
}
END_TEST

void
st_add_transaction_tests (TCase *tc, TCase *cc)
{
  FOR_EACH_BACKEND (tc, test_transact_groups);
  FOR_EACH_BACKEND (tc, test_transact_view);
  FOR_EACH_BACKEND (tc, test_transact_many_rows);
  FOR_EACH_BACKEND (cc, test_concurrent_increments);
  FOR_EACH_BACKEND (cc, test_concurrent_check_and_put);
}
