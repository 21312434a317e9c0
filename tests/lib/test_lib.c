/* libactionbase through its public header only, linked against the shared
 * library: metadata, typed batches and results, get/mget, scans with typed
 * ranges and filters, the iterator and its tokens, counts, multi-edges,
 * vertices, caches/groups/multihop, queues, errors; on memory, lmdb, rocksdb,
 * HBase. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <check.h>
#include "actionbase.h"
#include "ab_check.h"
#include "hbase/hbase_test_uri.h"

static AbDb *db;
static gchar *tmpdir;

static void
open_store (int i)
{
  gchar *uri = NULL;
  tmpdir = NULL;
  if (i == 0)
    uri = g_strdup ("memory:");
  else if (i == 3)
    uri = ab_hbase_test_uri ("lib", 2);
  else
    {
      tmpdir = g_dir_make_tmp ("ab-lib-XXXXXX", NULL);
      uri = g_strdup_printf ("%s:%s?sync=0", i == 1 ? "lmdb" : "rocksdb", tmpdir);
    }
  GError *error = NULL;
  db = ab_db_open (uri, NULL, &error);
  ck_assert_msg (db != NULL, "open %s: %s", uri, error ? error->message : "");
  g_free (uri);
  ck_assert (ab_db_create_database (db, "app", "test", &error));
}

static void
rm_tree (const gchar *dir)
{
  if (dir == NULL)
    return;
  g_autofree gchar *cmd = g_strdup_printf ("rm -rf '%s'", dir);
  ck_assert_int_eq (system (cmd), 0);
}

static void
close_store (void)
{
  ab_db_close (db);
  db = NULL;
  rm_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static const AbDbProperty LIKE_PROPS[]
    = { { .name = "created_at", .type = AB_DB_FIELD_LONG },
        { .name = "weight", .type = AB_DB_FIELD_INT, .nullable = TRUE },
        { .name = "note", .type = AB_DB_FIELD_STRING, .nullable = TRUE } };
static const AbDbIndexField RECENT_FIELDS[] = { { .field = "created_at", .descending = TRUE } };
static const AbDbIndex LIKE_INDEXES[]
    = { { .name = "recent", .fields = RECENT_FIELDS, .n_fields = 1 } };

static void
create_likes (void)
{
  AbDbTableDesc d = { .name = "likes",
                      .kind = AB_DB_TABLE_EDGE,
                      .key_type = AB_DB_FIELD_STRING,
                      .target_type = AB_DB_FIELD_STRING,
                      .both_directions = TRUE,
                      .properties = LIKE_PROPS,
                      .n_properties = G_N_ELEMENTS (LIKE_PROPS),
                      .indexes = LIKE_INDEXES,
                      .n_indexes = 1 };
  GError *error = NULL;
  ck_assert_msg (ab_db_create_table (db, "app", &d, &error), "%s", error ? error->message : "");
}

static AbDbResults *
mutate_ok (const char *table, AbDbBatch *b)
{
  GError *error = NULL;
  AbDbResults *r = ab_db_mutate (db, "app", table, b, NULL, &error);
  ck_assert_msg (r != NULL, "mutate: %s", error ? error->message : "");
  return r;
}

/* user i likes items j = 0..n-1 with created_at = 1000 * i + j. */
static void
insert_likes (guint user, guint n)
{
  g_autofree gchar *u = g_strdup_printf ("u%u", user);
  AbDbBatch *b = ab_db_batch_new ();
  for (guint j = 0; j < n; j++)
    {
      g_autofree gchar *item = g_strdup_printf ("i%03u", j);
      ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string (u), ab_db_string (item));
      ab_db_batch_set (b, "created_at", ab_db_long (1000 * user + j));
      ab_db_batch_set (b, "weight", ab_db_long (j % 5));
    }
  AbDbResults *r = mutate_ok ("likes", b);
  ck_assert_uint_eq (ab_db_results_len (r), n);
  for (guint j = 0; j < n; j++)
    ck_assert_int_eq (ab_db_results_status (r, j), AB_DB_CREATED);
  ab_db_results_free (r);
  ab_db_batch_free (b);
}

static gint64
prop_long (const AbDbEdges *e, guint i, const char *name)
{
  AbDbValue v;
  ck_assert_msg (ab_db_edges_property (e, i, name, &v), "no property %s", name);
  ck_assert_int_eq (v.type, AB_DB_LONG);
  return v.u.l;
}

/* ab_db_mutate_async from one thread: callbacks counted under a lock. */
typedef struct {
  GMutex lock;
  GCond cond;
  guint done;       /* callbacks run */
  guint created;    /* CREATED results seen */
  guint errors;     /* callbacks with an error */
  gint last_code;   /* the last error's code */
  gboolean chained; /* the callback of batch 0 submitted one more */
  GThread *caller;
  gboolean on_caller; /* a callback ran on the calling thread */
} AsyncWait;

static void async_done (AbDbResults *r, GError *error, gpointer data);

static void
async_submit (AsyncWait *w, guint batch, guint n)
{
  AbDbBatch *b = ab_db_batch_new ();
  for (guint j = 0; j < n; j++)
    {
      g_autofree gchar *item = g_strdup_printf ("i%05u", batch * 1000 + j);
      ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("fan"), ab_db_string (item));
      ab_db_batch_set (b, "created_at", ab_db_long (batch * 1000 + j));
    }
  /* the batch is freed before the commit: the library copied what it needs */
  ab_db_mutate_async (db, "app", "likes", b, NULL, async_done, w);
  ab_db_batch_free (b);
}

static void
async_done (AbDbResults *r, GError *error, gpointer data)
{
  AsyncWait *w = data;
  gboolean chain = FALSE;
  g_mutex_lock (&w->lock);
  if (g_thread_self () == w->caller)
    w->on_caller = TRUE;
  if (error != NULL)
    {
      w->errors++;
      w->last_code = error->code;
      g_error_free (error);
    }
  else
    {
      for (guint i = 0; i < ab_db_results_len (r); i++)
        w->created += ab_db_results_status (r, i) == AB_DB_CREATED;
      chain = !w->chained;
      w->chained = TRUE;
      ab_db_results_free (r);
    }
  g_mutex_unlock (&w->lock);
  if (chain)
    async_submit (w, 99, 10); /* allowed from the callback */
  g_mutex_lock (&w->lock);
  w->done++;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

static void
async_wait_for (AsyncWait *w, guint n)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  g_mutex_lock (&w->lock);
  while (w->done < n)
    ck_assert_msg (g_cond_wait_until (&w->cond, &w->lock, deadline), "%u of %u callbacks", w->done,
                   n);
  g_mutex_unlock (&w->lock);
}

START_TEST (mutate_async_pipelined)
{
  open_store (_i);
  create_likes ();
  AsyncWait w = { .caller = g_thread_self () };
  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);
  /* 20 batches of 50 in flight at once, and one more from a callback */
  for (guint k = 0; k < 20; k++)
    async_submit (&w, k, 50);
  async_wait_for (&w, 21);
  ck_assert_uint_eq (w.errors, 0);
  ck_assert_uint_eq (w.created, 20 * 50 + 10);
  GError *error = NULL;
  gint64 n = -1;
  ck_assert (ab_db_count (db, "app", "likes", ab_db_string ("fan"), AB_DB_OUT, &n, &error));
  ck_assert_int_eq (n, 20 * 50 + 10);
  AbDbEdges *e
      = ab_db_get (db, "app", "likes", ab_db_string ("fan"), ab_db_string ("i99009"), &error);
  ck_assert_msg (e != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_edges_len (e), 1);
  ck_assert_int_eq (prop_long (e, 0, "created_at"), 99009);
  ab_db_edges_free (e);

  /* a bad call answers on the calling thread, before the call returns */
  AbDbBatch *b = ab_db_batch_new ();
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("a"), ab_db_string ("b"));
  ab_db_batch_set (b, "created_at", ab_db_long (1));
  guint before = w.done;
  ab_db_mutate_async (db, "app", "nosuch", b, NULL, async_done, &w);
  ck_assert_uint_eq (w.done, before + 1);
  ck_assert (w.on_caller);
  ck_assert_uint_eq (w.errors, 1);
  /* with the error ab_db_mutate gives */
  ck_assert (ab_db_mutate (db, "app", "nosuch", b, NULL, &error) == NULL);
  ck_assert (error != NULL && error->domain == AB_DB_ERROR);
  ck_assert_int_eq (w.last_code, error->code);
  g_clear_error (&error);
  ab_db_batch_free (b);
  g_mutex_clear (&w.lock);
  g_cond_clear (&w.cond);
  close_store ();
}
END_TEST

START_TEST (edges_round_trip)
{
  open_store (_i);
  create_likes ();
  insert_likes (1, 3);
  GError *error = NULL;
  AbDbEdges *e = ab_db_get (db, "app", "likes", ab_db_string ("u1"), ab_db_string ("i001"), &error);
  ck_assert_msg (e != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_edges_len (e), 1);
  ck_assert_str_eq (ab_db_edges_source (e, 0).u.s, "u1");
  ck_assert_str_eq (ab_db_edges_target (e, 0).u.s, "i001");
  ck_assert_int_eq (ab_db_edges_version (e, 0), 1);
  ck_assert_int_eq (prop_long (e, 0, "created_at"), 1001);
  ck_assert_int_eq (prop_long (e, 0, "weight"), 1);
  ab_db_edges_free (e);

  /* UPDATE with a string that casts to int (REST rules), DELETE, an older
   * version folded away. */
  AbDbBatch *b = ab_db_batch_new ();
  ab_db_batch_add_edge (b, AB_DB_UPDATE, 5, ab_db_string ("u1"), ab_db_string ("i001"));
  ab_db_batch_set (b, "weight", ab_db_string ("42"));
  ab_db_batch_set (b, "note", ab_db_string ("hi"));
  ab_db_batch_add_edge (b, AB_DB_DELETE, 6, ab_db_string ("u1"), ab_db_string ("i002"));
  ab_db_batch_add_edge (b, AB_DB_UPDATE, 4, ab_db_string ("u1"), ab_db_string ("i001"));
  ab_db_batch_set (b, "weight", ab_db_long (7));
  AbDbResults *r = mutate_ok ("likes", b);
  ck_assert_uint_eq (ab_db_results_len (r), 2);
  ck_assert_str_eq (ab_db_results_target (r, 0).u.s, "i001");
  ck_assert_int_eq (ab_db_results_status (r, 0), AB_DB_UPDATED);
  ck_assert_uint_eq (ab_db_results_events (r, 0), 2);
  ck_assert_int_eq (ab_db_results_status (r, 1), AB_DB_DELETED);
  ck_assert_str_eq (ab_db_status_name (ab_db_results_status (r, 1)), "DELETED");
  ab_db_results_free (r);
  ab_db_batch_free (b);

  AbDbValue srcs[] = { ab_db_string ("u1") };
  AbDbValue tgts[] = { ab_db_string ("i000"), ab_db_string ("i001"), ab_db_string ("i002") };
  e = ab_db_mget (db, "app", "likes", srcs, 1, tgts, 3, NULL, 0, &error);
  ck_assert (e != NULL);
  ck_assert_uint_eq (ab_db_edges_len (e), 2); /* i002 deleted */
  ck_assert_str_eq (ab_db_edges_target (e, 1).u.s, "i001");
  ck_assert_int_eq (ab_db_edges_version (e, 1), 5);
  ck_assert_int_eq (prop_long (e, 1, "weight"), 42);
  AbDbValue note;
  ck_assert (ab_db_edges_property (e, 1, "note", &note));
  ck_assert_str_eq (note.u.s, "hi");
  ab_db_edges_free (e);

  /* a typed filter */
  AbDbValue w42 = ab_db_long (42);
  AbDbPredicate f = { .field = "weight", .op = AB_DB_PRED_EQ, .values = &w42, .n_values = 1 };
  e = ab_db_mget (db, "app", "likes", srcs, 1, tgts, 3, &f, 1, &error);
  ck_assert_uint_eq (ab_db_edges_len (e), 1);
  ck_assert_str_eq (ab_db_edges_target (e, 0).u.s, "i001");
  ab_db_edges_free (e);

  gint64 n = -1;
  ck_assert (ab_db_count (db, "app", "likes", ab_db_string ("u1"), AB_DB_OUT, &n, &error));
  ck_assert_int_eq (n, 2);
  AbDbValue nodes[] = { ab_db_string ("i000"), ab_db_string ("i002"), ab_db_string ("nope") };
  gint64 counts[3];
  ck_assert (ab_db_counts (db, "app", "likes", nodes, 3, AB_DB_IN, counts, &error));
  ck_assert_int_eq (counts[0], 1);
  ck_assert_int_eq (counts[1], 0);
  ck_assert_int_eq (counts[2], 0);
  /* dropping the database takes its tables with it */
  ck_assert_msg (ab_db_drop_database (db, "app", &error), "%s", error ? error->message : "");
  ck_assert (!ab_db_count (db, "app", "likes", ab_db_string ("u1"), AB_DB_OUT, &n, &error));
  ck_assert (error != NULL && error->domain == AB_DB_ERROR);
  g_clear_error (&error);
  ck_assert (!ab_db_drop_database (db, "app", &error));
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_NOT_FOUND));
  g_clear_error (&error);
  close_store ();
}
END_TEST

/* Each error code has one meaning: a missing table or database is
 * NOT_FOUND wherever it is named (the REST API answers 400 for some of
 * them, as upstream does), a name taken is EXISTS, never CONFLICT. */
/* The first item of most batches here: u1 likes a, created_at 1. */
static void
add_u1_likes_a (AbDbBatch *b)
{
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("u1"), ab_db_string ("a"));
  ab_db_batch_set (b, "created_at", ab_db_long (1));
}

/* *error is AB_DB_ERROR code (then cleared). */
static void
expect_code (GError **error, AbDbError code)
{
  ck_assert_msg (*error != NULL, "no error");
  ck_assert_msg (g_error_matches (*error, AB_DB_ERROR, code), "code %d: %s", (*error)->code,
                 (*error)->message);
  g_clear_error (error);
}

START_TEST (error_codes_one_meaning_each)
{
  open_store (_i);
  create_likes ();
  GError *error = NULL;
  AbDbBatch *b = ab_db_batch_new ();
  add_u1_likes_a (b);
  ck_assert (ab_db_mutate (db, "app", "nope", b, NULL, &error) == NULL);
  expect_code (&error, AB_DB_ERROR_NOT_FOUND);
  ab_db_batch_free (b);
  gint64 n = -1;
  ck_assert (!ab_db_count (db, "nodb", "likes", ab_db_string ("u1"), AB_DB_OUT, &n, &error));
  expect_code (&error, AB_DB_ERROR_NOT_FOUND);
  AbDbTableDesc t = { .name = "t",
                      .kind = AB_DB_TABLE_EDGE,
                      .key_type = AB_DB_FIELD_STRING,
                      .target_type = AB_DB_FIELD_STRING };
  ck_assert (!ab_db_create_table (db, "nodb", &t, &error));
  expect_code (&error, AB_DB_ERROR_NOT_FOUND);
  ck_assert (!ab_db_create_alias (db, "app", "fav", "nope", &error));
  expect_code (&error, AB_DB_ERROR_NOT_FOUND);
  ck_assert (ab_db_create_alias (db, "app", "fav", "likes", &error));
  ck_assert (!ab_db_create_alias (db, "app", "fav", "likes", &error));
  expect_code (&error, AB_DB_ERROR_EXISTS);
  ck_assert (ab_db_queue_create (db, "jobs", "mail", 1, &error));
  ck_assert (!ab_db_queue_create (db, "jobs", "mail", 1, &error));
  expect_code (&error, AB_DB_ERROR_EXISTS);
  close_store ();
}
END_TEST

/* A batch built wrongly is never applied in part or silently: the mutation
 * fails with INVALID naming the first misuse, until the batch is cleared. */
START_TEST (batch_misuse_is_an_error)
{
  open_store (_i);
  create_likes ();
  GError *error = NULL;
  AbDbBatch *b = ab_db_batch_new ();
  ab_db_batch_set (b, "created_at", ab_db_long (1)); /* before any item */
  add_u1_likes_a (b);
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, "before any item") != NULL, "%s", error->message);
  g_clear_error (&error);
  ab_db_batch_clear (b);
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("u1"), ab_db_string ("a"));
  ab_db_batch_set (b, NULL, ab_db_long (1));
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert_msg (strstr (error->message, "without a property name") != NULL, "%s", error->message);
  g_clear_error (&error);
  ab_db_batch_clear (b);
  ab_db_batch_add_edge (b, (AbDbOp) 3, 1, ab_db_string ("u1"), ab_db_string ("a"));
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert_msg (strstr (error->message, "not an AbDbOp") != NULL, "%s", error->message);
  g_clear_error (&error);
  gint64 n = -1;
  ck_assert (ab_db_count (db, "app", "likes", ab_db_string ("u1"), AB_DB_OUT, &n, &error));
  ck_assert_int_eq (n, 0);
  ab_db_batch_clear (b); /* the same batch, built right */
  add_u1_likes_a (b);
  AbDbResults *r = ab_db_mutate (db, "app", "likes", b, NULL, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  ck_assert_int_eq (ab_db_results_status (r, 0), AB_DB_CREATED);
  ab_db_results_free (r);
  ab_db_batch_free (b);
  close_store ();
}
END_TEST

START_TEST (bad_input_writes_nothing)
{
  open_store (_i);
  create_likes ();
  GError *error = NULL;
  AbDbBatch *b = ab_db_batch_new ();
  add_u1_likes_a (b);
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("u1"), ab_db_string ("b"));
  ab_db_batch_set (b, "created_at", ab_db_long (2));
  ab_db_batch_set (b, "weight", ab_db_long (1LL << 40)); /* out of int range */
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_INVALID));
  ck_assert_msg (strstr (error->message, "weight") != NULL, "%s", error->message);
  g_clear_error (&error);
  gint64 n = -1;
  ck_assert (ab_db_count (db, "app", "likes", ab_db_string ("u1"), AB_DB_OUT, &n, &error));
  ck_assert_int_eq (n, 0);

  ab_db_batch_clear (b);
  add_u1_likes_a (b);
  ab_db_batch_set (b, "nope", ab_db_long (1));
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert_msg (strstr (error->message, "nope") != NULL, "%s", error->message);
  g_clear_error (&error);

  ab_db_batch_clear (b); /* INSERT without its required property */
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("u1"), ab_db_string ("a"));
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert_msg (strstr (error->message, "created_at") != NULL, "%s", error->message);
  g_clear_error (&error);

  ab_db_batch_clear (b);
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_null (), ab_db_string ("a"));
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_INVALID));
  g_clear_error (&error);

  ab_db_batch_clear (b);
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("u1"), ab_db_string ("a"));
  ab_db_batch_add_vertex (b, AB_DB_INSERT, 1, ab_db_string ("v"));
  ck_assert (ab_db_mutate (db, "app", "likes", b, NULL, &error) == NULL);
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_INVALID));
  g_clear_error (&error);
  ab_db_batch_free (b);

  ck_assert (ab_db_get (db, "app", "nope", ab_db_string ("a"), ab_db_string ("b"), &error) == NULL);
  expect_code (&error, AB_DB_ERROR_NOT_FOUND);
  ck_assert (!ab_db_create_database (db, "app", "again", &error));
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_EXISTS));
  g_clear_error (&error);
  ck_assert (!ab_db_drop_table (db, "app", "missing", &error));
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_NOT_FOUND));
  g_clear_error (&error);
  close_store ();
}
END_TEST

START_TEST (scan_ranges_iterator_tokens)
{
  open_store (_i);
  create_likes ();
  insert_likes (2, 60); /* created_at 2000..2059 */
  GError *error = NULL;
  AbDbValue lo = ab_db_long (2010), hi = ab_db_long (2049);
  AbDbValue bt[] = { lo, hi };
  AbDbPredicate range
      = { .field = "created_at", .op = AB_DB_PRED_BETWEEN, .values = bt, .n_values = 2 };
  AbDbValue w0 = ab_db_long (0);
  AbDbPredicate filter = { .field = "weight", .op = AB_DB_PRED_GT, .values = &w0, .n_values = 1 };
  AbDbScan scan = { .index = "recent",
                    .start = ab_db_string ("u2"),
                    .direction = AB_DB_OUT,
                    .limit = 7,
                    .ranges = &range,
                    .n_ranges = 1,
                    .filters = &filter,
                    .n_filters = 1 };
  /* pages by token: DESC created_at in [2010, 2049] with weight > 0 */
  GPtrArray *seen = g_ptr_array_new_with_free_func (g_free);
  gchar *resume = NULL;
  do
    {
      scan.resume = resume;
      AbDbEdges *page = ab_db_scan (db, "app", "likes", &scan, &error);
      ck_assert_msg (page != NULL, "%s", error ? error->message : "");
      for (guint i = 0; i < ab_db_edges_len (page); i++)
        g_ptr_array_add (seen, g_strdup (ab_db_edges_target (page, i).u.s));
      g_free (resume);
      resume = g_strdup (ab_db_edges_next (page));
      ab_db_edges_free (page);
    }
  while (resume != NULL);
  guint expect = 0;
  for (gint j = 49; j >= 10; j--)
    if (j % 5 != 0)
      {
        g_autofree gchar *item = g_strdup_printf ("i%03d", j);
        ck_assert_uint_lt (expect, seen->len);
        ck_assert_str_eq (seen->pdata[expect], item);
        expect++;
      }
  ck_assert_uint_eq (seen->len, expect);

  /* the iterator yields the same edges; a token taken mid-way resumes right
   * after its edge */
  scan.resume = NULL;
  AbDbIter *it = ab_db_scan_iter (db, "app", "likes", &scan, &error);
  ck_assert (it != NULL);
  guint k = 0;
  gchar *mid = NULL;
  while (ab_db_iter_next (it, &error))
    {
      const AbDbEdges *one = ab_db_iter_edge (it);
      ck_assert_uint_eq (ab_db_edges_len (one), 1);
      ck_assert_str_eq (ab_db_edges_target (one, 0).u.s, seen->pdata[k]);
      if (k == 10)
        mid = g_strdup (ab_db_iter_token (it));
      k++;
    }
  ck_assert (error == NULL);
  ck_assert_uint_eq (k, seen->len);
  ab_db_iter_free (it);
  ck_assert (mid != NULL);
  scan.resume = mid;
  AbDbEdges *after = ab_db_scan (db, "app", "likes", &scan, &error);
  ck_assert (after != NULL && ab_db_edges_len (after) > 0);
  ck_assert_str_eq (ab_db_edges_target (after, 0).u.s, seen->pdata[11]);
  ab_db_edges_free (after);
  g_free (mid);

  /* IN is refused in ranges */
  AbDbPredicate in = { .field = "created_at", .op = AB_DB_PRED_IN, .values = bt, .n_values = 2 };
  scan.ranges = &in;
  scan.resume = NULL;
  ck_assert (ab_db_scan (db, "app", "likes", &scan, &error) == NULL);
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_INVALID));
  g_clear_error (&error);
  g_ptr_array_unref (seen);
  close_store ();
}
END_TEST

/* A scan's edges share one arena for their strings (the page's): sources
 * and targets in both directions stay right on every page and after the
 * scan that made them is gone, until their page is freed. */
START_TEST (scan_strings_both_directions)
{
  open_store (_i);
  create_likes ();
  for (guint u = 2; u <= 6; u++)
    insert_likes (u, 30);
  GError *error = NULL;
  /* IN from item i017: its likers, latest first (created_at 1000 u + 17) */
  AbDbScan in
      = { .index = "recent", .start = ab_db_string ("i017"), .direction = AB_DB_IN, .limit = 2 };
  AbDbIter *it = ab_db_scan_iter (db, "app", "likes", &in, &error);
  ck_assert (it != NULL);
  guint u = 6;
  while (ab_db_iter_next (it, &error))
    {
      const AbDbEdges *one = ab_db_iter_edge (it);
      g_autofree gchar *liker = g_strdup_printf ("u%u", u);
      ck_assert_str_eq (ab_db_edges_source (one, 0).u.s, liker);
      ck_assert_str_eq (ab_db_edges_target (one, 0).u.s, "i017");
      ck_assert_int_eq (prop_long (one, 0, "created_at"), 1000 * u + 17);
      u--;
    }
  ck_assert (error == NULL);
  ck_assert_uint_eq (u, 1);
  ab_db_iter_free (it);
  /* OUT, two pages held at once, the start's text freed before reading */
  g_autofree gchar *start = g_strdup ("u4");
  AbDbScan out
      = { .index = "recent", .start = ab_db_string (start), .direction = AB_DB_OUT, .limit = 20 };
  AbDbEdges *first = ab_db_scan (db, "app", "likes", &out, &error);
  ck_assert (first != NULL && ab_db_edges_next (first) != NULL);
  out.resume = ab_db_edges_next (first);
  AbDbEdges *second = ab_db_scan (db, "app", "likes", &out, &error);
  g_clear_pointer (&start, g_free);
  ck_assert (second != NULL);
  ck_assert_uint_eq (ab_db_edges_len (first), 20);
  ck_assert_uint_eq (ab_db_edges_len (second), 10);
  for (guint j = 0; j < 30; j++)
    {
      const AbDbEdges *page = j < 20 ? first : second;
      guint i = j < 20 ? j : j - 20;
      g_autofree gchar *item = g_strdup_printf ("i%03u", 29 - j);
      ck_assert_str_eq (ab_db_edges_source (page, i).u.s, "u4");
      ck_assert_str_eq (ab_db_edges_target (page, i).u.s, item);
    }
  ab_db_edges_free (second);
  ab_db_edges_free (first);
  /* string properties come from the page's arena too */
  AbDbBatch *b = ab_db_batch_new ();
  for (guint j = 0; j < 40; j++)
    {
      g_autofree gchar *item = g_strdup_printf ("i%03u", j);
      g_autofree gchar *note = g_strdup_printf ("note %u %s", j, j % 2 ? "é" : "");
      ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("u7"), ab_db_string (item));
      ab_db_batch_set (b, "created_at", ab_db_long (7000 + j));
      ab_db_batch_set (b, "note", ab_db_string (note));
    }
  ab_db_results_free (mutate_ok ("likes", b));
  ab_db_batch_free (b);
  out = (AbDbScan){
    .index = "recent", .start = ab_db_string ("u7"), .direction = AB_DB_OUT, .limit = 40
  };
  AbDbEdges *noted = ab_db_scan (db, "app", "likes", &out, &error);
  ck_assert (noted != NULL);
  ck_assert_uint_eq (ab_db_edges_len (noted), 40);
  for (guint i = 0; i < 40; i++)
    {
      guint j = 39 - i;
      g_autofree gchar *note = g_strdup_printf ("note %u %s", j, j % 2 ? "é" : "");
      AbDbValue v;
      ck_assert (ab_db_edges_property (noted, i, "note", &v));
      ck_assert_int_eq (v.type, AB_DB_STRING);
      ck_assert_str_eq (v.u.s, note);
    }
  ab_db_edges_free (noted);
  close_store ();
}
END_TEST

START_TEST (multi_edges_and_vertices)
{
  open_store (_i);
  GError *error = NULL;
  static const AbDbProperty props[] = { { .name = "name", .type = AB_DB_FIELD_STRING } };
  AbDbTableDesc v = { .name = "users",
                      .kind = AB_DB_TABLE_VERTEX,
                      .key_type = AB_DB_FIELD_LONG,
                      .properties = props,
                      .n_properties = 1 };
  ck_assert_msg (ab_db_create_table (db, "app", &v, &error), "%s", error ? error->message : "");
  AbDbBatch *b = ab_db_batch_new ();
  ab_db_batch_add_vertex (b, AB_DB_INSERT, 1, ab_db_long (7));
  ab_db_batch_set (b, "name", ab_db_string ("seven"));
  ab_db_results_free (mutate_ok ("users", b));
  AbDbValue id = ab_db_long (7);
  AbDbEdges *e = ab_db_get_ids (db, "app", "users", &id, 1, &error);
  ck_assert_msg (e != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_edges_len (e), 1);
  AbDbValue name;
  ck_assert (ab_db_edges_property (e, 0, "name", &name));
  ck_assert_str_eq (name.u.s, "seven");
  ab_db_edges_free (e);

  ck_assert (ab_db_create_table_json (
      db, "app",
      "{\"table\":\"orders\",\"comment\":\"\",\"storage\":\"datastore://t/"
      "orders\",\"schema\":{\"type\":\"MULTI_EDGE\","
      "\"id\":{\"type\":\"string\",\"comment\":\"\"},\"source\":{\"type\":\"long\",\"comment\":"
      "\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"amount\",\"type\":\"double\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[]}}",
      &error));
  ab_db_batch_clear (b);
  ab_db_batch_add_multi_edge (b, AB_DB_INSERT, 1, ab_db_string ("o1"), ab_db_long (1),
                              ab_db_long (2));
  ab_db_batch_set (b, "amount", ab_db_double (9.5));
  ab_db_results_free (mutate_ok ("orders", b));
  id = ab_db_string ("o1");
  e = ab_db_get_ids (db, "app", "orders", &id, 1, &error);
  ck_assert_msg (e != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_edges_len (e), 1);
  AbDbValue amount;
  ck_assert (ab_db_edges_property (e, 0, "amount", &amount));
  ck_assert_int_eq (amount.type, AB_DB_DOUBLE);
  ck_assert (amount.u.d == 9.5);
  ab_db_edges_free (e);

  /* an edge item on a multi-edge table is refused */
  ab_db_batch_clear (b);
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_long (1), ab_db_long (2));
  ck_assert (ab_db_mutate (db, "app", "orders", b, NULL, &error) == NULL);
  g_clear_error (&error);
  ab_db_batch_free (b);

  ck_assert (ab_db_create_alias (db, "app", "people", "users", &error));
  id = ab_db_long (7);
  e = ab_db_get_ids (db, "app", "people", &id, 1, &error);
  ck_assert_msg (e != NULL && ab_db_edges_len (e) == 1, "%s", error ? error->message : "");
  ab_db_edges_free (e);
  ck_assert (ab_db_drop_alias (db, "app", "people", &error));
  ck_assert (ab_db_drop_table (db, "app", "users", &error));
  close_store ();
}
END_TEST

static const gchar *FOLLOWS
    = "{\"table\":\"follows\",\"comment\":\"\",\"storage\":\"datastore://t/"
      "follows\",\"schema\":{\"type\":\"EDGE\","
      "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":\"string\","
      "\"comment\":\"\"},\"direction\":\"BOTH\",\"properties\":[{\"name\":\"at\",\"type\":"
      "\"long\",\"nullable\":false,\"comment\":\"\"},{\"name\":\"kind\",\"type\":\"string\","
      "\"nullable\":false,\"comment\":\"\"}],\"indexes\":[{\"index\":\"recent\",\"fields\":"
      "[{\"field\":\"at\",\"order\":\"DESC\"}]}],"
      "\"groups\":[{\"group\":\"by_kind\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"kind\"}],"
      "\"directions\":[\"OUT\"]}],"
      "\"caches\":[{\"cache\":\"top\",\"fields\":[{\"field\":\"at\",\"order\":\"DESC\"}],"
      "\"limit\":10,\"directions\":[\"OUT\"]}]}}";

START_TEST (seek_agg_multihop)
{
  open_store (_i);
  GError *error = NULL;
  ck_assert_msg (ab_db_create_table_json (db, "app", FOLLOWS, &error), "%s",
                 error ? error->message : "");
  /* a -> b, c; b -> d, e; c -> e */
  const char *pairs[][2] = { { "a", "b" }, { "a", "c" }, { "b", "d" }, { "b", "e" }, { "c", "e" } };
  AbDbBatch *b = ab_db_batch_new ();
  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string (pairs[i][0]),
                            ab_db_string (pairs[i][1]));
      ab_db_batch_set (b, "at", ab_db_long (100 + i));
      ab_db_batch_set (b, "kind", ab_db_string (i % 2 ? "x" : "y"));
    }
  ab_db_results_free (mutate_ok ("follows", b));
  ab_db_batch_free (b);

  AbDbEdges *e = ab_db_seek (db, "app", "follows", "top", ab_db_string ("b"), AB_DB_OUT, 0, NULL, 0,
                             NULL, &error);
  ck_assert_msg (e != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_edges_len (e), 2);
  ck_assert_str_eq (ab_db_edges_target (e, 0).u.s, "e"); /* at 103 first */
  ab_db_edges_free (e);

  AbDbAgg *agg = ab_db_agg (db, "app", "follows", "by_kind", ab_db_string ("a"), AB_DB_OUT, NULL, 0,
                            0, &error);
  ck_assert_msg (agg != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_agg_n_fields (agg), 1);
  ck_assert_str_eq (ab_db_agg_field (agg, 0), "kind");
  ck_assert_uint_eq (ab_db_agg_len (agg), 2);
  for (guint i = 0; i < 2; i++)
    ck_assert_int_eq (ab_db_agg_value (agg, i), 1);
  ab_db_agg_free (agg);

  AbDbHop hop = { .table = "follows", .index = "recent", .direction = AB_DB_OUT, .limit = 10 };
  AbDbValue start = ab_db_string ("a");
  e = ab_db_multihop (db, "app", &start, 1, &hop, &hop, TRUE, TRUE, 0, &error);
  ck_assert_msg (e != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_edges_len (e), 2);
  ck_assert_str_eq (ab_db_edges_target (e, 0).u.s, "e"); /* reached twice */
  ck_assert_str_eq (ab_db_edges_target (e, 1).u.s, "d");
  ab_db_edges_free (e);
  close_store ();
}
END_TEST

START_TEST (queues)
{
  open_store (_i);
  GError *error = NULL;
  ck_assert_msg (ab_db_queue_create (db, "jobs", "mail", 2, &error), "%s",
                 error ? error->message : "");
  guint p = ab_db_queue_partition ("alice", 2);
  AbDbMessage m[] = { { .key = "alice", .seq = 1, .value_json = "{\"to\":\"x\"}" },
                      { .key = "alice", .seq = 2 } };
  guint accepted = 0;
  ck_assert (ab_db_queue_enqueue (db, "jobs", "mail", m, 2, &accepted, &error));
  ck_assert_uint_eq (accepted, 2);
  AbDbPoll *poll = ab_db_queue_poll (db, "jobs", "mail", p, NULL, 10, &error);
  ck_assert_msg (poll != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (ab_db_poll_len (poll), 2);
  ck_assert_int_eq (ab_db_poll_seq (poll, 0), 1);
  ck_assert_str_eq (ab_db_poll_value (poll, 0), "{\"to\":\"x\"}");
  ck_assert (ab_db_poll_value (poll, 1) == NULL);
  ck_assert_uint_eq (strlen (ab_db_poll_id (poll, 0)), 26);
  gint64 offset;
  ck_assert (ab_db_poll_offset (poll, &offset));
  ab_db_poll_free (poll);
  ck_assert (ab_db_queue_commit (db, "jobs", "mail", p, offset, &error));
  poll = ab_db_queue_poll (db, "jobs", "mail", p, NULL, 10, &error);
  ck_assert_uint_eq (ab_db_poll_len (poll), 0);
  ab_db_poll_free (poll);
  ck_assert (ab_db_queue_drop (db, "jobs", "mail", &error));
  close_store ();
}
END_TEST

/* Two processes on one LMDB store: each writes its own edges and reads the
 * other's (LMDB is multi-process; the catalog follows the other's DDL). */
START_TEST (two_processes_one_lmdb)
{
  tmpdir = g_dir_make_tmp ("ab-lib-XXXXXX", NULL);
  g_autofree gchar *uri = g_strdup_printf ("lmdb:%s", tmpdir);
  GError *error = NULL;
  db = ab_db_open (uri, NULL, &error);
  ck_assert_msg (db != NULL, "%s", error ? error->message : "");
  ck_assert (ab_db_create_database (db, "app", "", &error));
  create_likes ();
  int ready[2], go[2];
  ck_assert_int_eq (pipe (ready), 0);
  ck_assert_int_eq (pipe (go), 0);
  pid_t child = fork ();
  ck_assert_int_ge (child, 0);
  if (child == 0)
    {
      AbDb *mine = ab_db_open (uri, NULL, NULL);
      AbDbBatch *b = ab_db_batch_new ();
      ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("child"), ab_db_string ("x"));
      ab_db_batch_set (b, "created_at", ab_db_long (1));
      AbDbResults *r = mine != NULL ? ab_db_mutate (mine, "app", "likes", b, NULL, NULL) : NULL;
      char c = r != NULL ? 'k' : 'f';
      if (write (ready[1], &c, 1) != 1 || read (go[0], &c, 1) != 1)
        _exit (3);
      gint64 n = 0;
      gboolean ok
          = ab_db_count (mine, "app", "likes", ab_db_string ("parent"), AB_DB_OUT, &n, NULL);
      ab_db_results_free (r);
      ab_db_batch_free (b);
      ab_db_close (mine);
      _exit (ok && n == 1 ? 0 : 4);
    }
  char c = 0;
  ck_assert_int_eq (read (ready[0], &c, 1), 1);
  ck_assert_int_eq (c, 'k');
  gint64 n = 0;
  ck_assert (ab_db_count (db, "app", "likes", ab_db_string ("child"), AB_DB_OUT, &n, &error));
  ck_assert_int_eq (n, 1);
  AbDbBatch *b = ab_db_batch_new ();
  ab_db_batch_add_edge (b, AB_DB_INSERT, 1, ab_db_string ("parent"), ab_db_string ("y"));
  ab_db_batch_set (b, "created_at", ab_db_long (2));
  ab_db_results_free (mutate_ok ("likes", b));
  ab_db_batch_free (b);
  ck_assert_int_eq (write (go[1], "g", 1), 1);
  int status = 0;
  ck_assert_int_eq (waitpid (child, &status, 0), child);
  ck_assert_msg (WIFEXITED (status) && WEXITSTATUS (status) == 0, "child status %d", status);
  close_store ();
}
END_TEST

START_TEST (version_and_open_errors)
{
  ck_assert_str_eq (ab_db_version (), PACKAGE_VERSION);
  g_autofree gchar *header
      = g_strdup_printf ("%d.%d.%d", AB_DB_VERSION_MAJOR, AB_DB_VERSION_MINOR, AB_DB_VERSION_MICRO);
  ck_assert_str_eq (header, PACKAGE_VERSION);
  ck_assert (AB_DB_CHECK_VERSION (AB_DB_VERSION_MAJOR, AB_DB_VERSION_MINOR, AB_DB_VERSION_MICRO));
  ck_assert (AB_DB_CHECK_VERSION (AB_DB_VERSION_MAJOR, 0, 0));
  ck_assert (!AB_DB_CHECK_VERSION (AB_DB_VERSION_MAJOR + 1, 0, 0));
  ck_assert (
      !AB_DB_CHECK_VERSION (AB_DB_VERSION_MAJOR, AB_DB_VERSION_MINOR, AB_DB_VERSION_MICRO + 1));
  ck_assert (!AB_DB_CHECK_VERSION (AB_DB_VERSION_MAJOR, AB_DB_VERSION_MINOR + 1, 0));
  GError *error = NULL;
  ck_assert (ab_db_open ("nosuch:", NULL, &error) == NULL);
  ck_assert (error != NULL && error->domain == AB_DB_ERROR);
  g_clear_error (&error);
  ck_assert (ab_db_open (NULL, NULL, &error) == NULL);
  ck_assert (g_error_matches (error, AB_DB_ERROR, AB_DB_ERROR_INVALID));
  g_clear_error (&error);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("libactionbase");
  TCase *tc = tcase_create ("api");
  tcase_set_timeout (tc, 120);
  guint n = ab_hbase_test_n_stores (3); /* memory, lmdb, rocksdb, hbase */
  tcase_add_loop_test (tc, edges_round_trip, 0, n);
  tcase_add_loop_test (tc, bad_input_writes_nothing, 0, n);
  tcase_add_loop_test (tc, error_codes_one_meaning_each, 0, n);
  tcase_add_loop_test (tc, batch_misuse_is_an_error, 0, n);
  tcase_add_loop_test (tc, scan_ranges_iterator_tokens, 0, n);
  tcase_add_loop_test (tc, scan_strings_both_directions, 0, n);
  tcase_add_loop_test (tc, multi_edges_and_vertices, 0, n);
  tcase_add_loop_test (tc, seek_agg_multihop, 0, n);
  tcase_add_loop_test (tc, queues, 0, n);
  tcase_add_loop_test (tc, mutate_async_pipelined, 0, n);
  tcase_add_test (tc, two_processes_one_lmdb);
  tcase_add_test (tc, version_and_open_errors);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
