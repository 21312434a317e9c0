/* The 2-hop query on every store over a generated social graph (follows,
 * likes, with unfollows): "what did my friends like" and "friends of
 * friends" equal the answers the test computes from its own model, cache
 * and index hops agree, and the fan-out caps answer 400. */
#include <stdlib.h>
#include <string.h>
#include "engine_fixture.h"
#include "ab_check.h"

#define N_USERS 60
#define N_ITEMS 200

static const gchar *FOLLOWS
    = "{\"table\":\"follows\",\"storage\":\"datastore://sns/follows\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent_idx\",\"fields\":[{\"field\":\"created_at\",\"order\":"
      "\"DESC\"}]}],"
      "\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}]"
      ","
      "\"limit\":20}]}}";

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://sns/likes\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent_idx\",\"fields\":[{\"field\":\"created_at\",\"order\":"
      "\"DESC\"}]}],"
      "\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}]"
      ","
      "\"limit\":10}]}}";

static AbTestEnv env;

/* The test's model: per user, active edges as target text -> created_at. */
typedef struct {
  GHashTable *follows[N_USERS];
  GHashTable *likes[N_USERS];
} Graph;

static Graph graph;

static void
send (const gchar *table, GString *body, guint *n)
{
  if (*n == 0)
    return;
  g_string_append (body, "]}");
  g_autoptr (GArray) r = ab_test_mutate (&env, "sns", table, body->str);
  g_string_assign (body, "{\"mutations\":[");
  *n = 0;
}

static void
add (GString *body, guint *n, const gchar *type, const gchar *src, const gchar *tgt_json, gint64 at)
{
  g_string_append_printf (
      body,
      "%s{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
      ",\"source\":\"%s\",\"target\":%s,\"properties\":{\"created_at\":%" G_GINT64_FORMAT "}}}",
      *n ? "," : "", type, at, src, tgt_json, at);
  (*n)++;
}

static void
generate (guint seed)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  g_autoptr (GString) fb = g_string_new ("{\"mutations\":[");
  g_autoptr (GString) lb = g_string_new ("{\"mutations\":[");
  guint nf = 0, nl = 0;
  gint64 clock = 1000000;
  for (guint u = 0; u < N_USERS; u++)
    {
      g_autofree gchar *src = g_strdup_printf ("u%u", u);
      graph.follows[u] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      graph.likes[u] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint k = 0, want = g_rand_int_range (r, 8, 16); k < want; k++)
        {
          guint v = g_rand_int_range (r, 0, N_USERS);
          g_autofree gchar *tgt = g_strdup_printf ("\"u%u\"", v);
          clock += g_rand_int_range (r, 1, 50);
          if (v == u)
            continue;
          add (fb, &nf, "INSERT", src, tgt, clock);
          g_hash_table_replace (graph.follows[u], g_strdup_printf ("u%u", v),
                                GSIZE_TO_POINTER (clock));
          if (g_rand_int_range (r, 0, 6) == 0) /* unfollow */
            {
              add (fb, &nf, "DELETE", src, tgt, clock + 1);
              g_autofree gchar *plain = g_strdup_printf ("u%u", v);
              g_hash_table_remove (graph.follows[u], plain);
              clock += 2; /* no later event shares the delete's version */
            }
          if (nf >= 20)
            send ("follows", fb, &nf);
        }
      for (guint k = 0, want = g_rand_int_range (r, 5, 13); k < want; k++)
        {
          guint item = g_rand_int_range (r, 0, N_ITEMS);
          g_autofree gchar *tgt = g_strdup_printf ("%u", item);
          clock += g_rand_int_range (r, 1, 50);
          add (lb, &nl, "INSERT", src, tgt, clock);
          g_hash_table_replace (graph.likes[u], g_strdup (tgt), GSIZE_TO_POINTER (clock));
          if (nl >= 20)
            send ("likes", lb, &nl);
        }
    }
  send ("follows", fb, &nf);
  send ("likes", lb, &nl);
}

/* ---- the model's answers ---- */

typedef struct {
  gchar *node; /* far end, as text */
  gint64 at;
} Item;

static gint
by_recent (gconstpointer a, gconstpointer b)
{
  const Item *x = a, *y = b;
  return x->at > y->at ? -1 : x->at < y->at;
}

/* Top n edges of a user's table in cache order (created_at DESC; unique). */
static GArray *
top (GHashTable *edges, guint n)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Item));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, edges);
  while (g_hash_table_iter_next (&it, &k, &v))
    {
      Item item = { k, (gint64) GPOINTER_TO_SIZE (v) };
      g_array_append_val (out, item);
    }
  g_array_sort (out, by_recent);
  g_array_set_size (out, MIN (out->len, n));
  return out;
}

/* Followers of user `who` (IN edges of follows), in cache order. */
static GArray *
followers (const gchar *who, guint n)
{
  g_autoptr (GHashTable) in = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint u = 0; u < N_USERS; u++)
    {
      gpointer at;
      if (g_hash_table_lookup_extended (graph.follows[u], who, NULL, &at))
        g_hash_table_insert (in, g_strdup_printf ("u%u", u), at);
    }
  GArray *t = top (in, n);
  for (guint i = 0; i < t->len; i++) /* the table dies with this call: the items own the names */
    g_hash_table_steal (in, g_array_index (t, Item, i).node);
  return t;
}

typedef struct {
  GPtrArray *order; /* final node texts, first-seen order */
  GHashTable *hits; /* text -> count */
  GHashTable *via;  /* text -> GString of via nodes "a,b" */
} Expect;

static void
expect_init (Expect *e)
{
  e->order = g_ptr_array_new_with_free_func (g_free);
  e->hits = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  e->via = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_free);
}

static void
expect_clear (Expect *e)
{
  g_ptr_array_unref (e->order);
  g_hash_table_unref (e->hits);
  g_hash_table_unref (e->via);
}

static void
expect_add (Expect *e, const gchar *end, const gchar *via)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (e->hits, end));
  const gchar *old = g_hash_table_lookup (e->via, end);
  gchar *vias = old == NULL ? g_strdup (via) : g_strdup_printf ("%s,%s", old, via);
  if (n == 0)
    g_ptr_array_add (e->order, g_strdup (end));
  g_hash_table_insert (e->hits, g_strdup (end), GUINT_TO_POINTER (n + 1));
  g_hash_table_insert (e->via, g_strdup (end), vias);
}

static gint
by_hits_desc (gconstpointer a, gconstpointer b, gpointer hits)
{
  guint x = GPOINTER_TO_UINT (g_hash_table_lookup (hits, *(gchar *const *) a));
  guint y = GPOINTER_TO_UINT (g_hash_table_lookup (hits, *(gchar *const *) b));
  return x > y ? -1 : x < y;
}

static AbMultihopResult *
run (const gchar *const *starts, AbHop h1, AbHop h2, gboolean excl_first, gboolean by_hits,
     GError **error)
{
  g_autoptr (GPtrArray) st = g_ptr_array_new ();
  for (guint i = 0; starts[i] != NULL; i++)
    g_ptr_array_add (st, (gpointer) starts[i]);
  AbMultihopParams p = { .database = "sns",
                         .starts = st,
                         .hops = { h1, h2 },
                         .dedup = TRUE,
                         .exclude_start = TRUE,
                         .exclude_first_hop = excl_first,
                         .order_by_hits = by_hits,
                         .limit = 1000 };
  return ab_engine_multihop (env.engine, &p, error);
}

static guint answered; /* final edges checked, so an empty graph cannot pass */

static void
assert_result (const AbMultihopResult *r, Expect *e, AbQueryDirection dir2)
{
  ck_assert_uint_eq (r->edges->len, e->order->len);
  answered += r->edges->len;
  for (guint i = 0; i < r->edges->len; i++)
    {
      const AbEdgeOut *edge = r->edges->pdata[i];
      g_autofree gchar *end
          = ab_value_to_string (dir2 == AB_QDIR_OUT ? &edge->target : &edge->source);
      ck_assert_str_eq (end, e->order->pdata[i]);
      ck_assert_uint_eq (g_array_index (r->hits, guint, i),
                         GPOINTER_TO_UINT (g_hash_table_lookup (e->hits, end)));
      GArray *via = r->via->pdata[i];
      g_autoptr (GString) got = g_string_new (NULL);
      for (guint v = 0; v < via->len; v++)
        {
          g_autofree gchar *t = ab_value_to_string (&g_array_index (via, AbValue, v));
          g_string_append_printf (got, "%s%s", v ? "," : "", t);
        }
      ck_assert_str_eq (got->str, g_hash_table_lookup (e->via, end));
    }
}

static AbHop
hop (const gchar *table, const gchar *cache, const gchar *index, AbQueryDirection d, gint limit)
{
  return (AbHop){ .table = table, .cache = cache, .index = index, .direction = d, .limit = limit };
}

/* "What did my friends like": top 5 followees, their 4 latest likes. */
static void
check_friends_likes (guint u, gboolean use_index)
{
  g_autofree gchar *me = g_strdup_printf ("u%u", u);
  const gchar *starts[] = { me, NULL };
  Expect e;
  expect_init (&e);
  g_autoptr (GArray) friends = top (graph.follows[u], 5);
  for (guint i = 0; i < friends->len; i++)
    {
      const gchar *f = g_array_index (friends, Item, i).node;
      guint fu = (guint) atoi (f + 1);
      g_autoptr (GArray) liked = top (graph.likes[fu], 4);
      for (guint j = 0; j < liked->len; j++)
        expect_add (&e, g_array_index (liked, Item, j).node, f);
    }
  g_ptr_array_sort_with_data (e.order, by_hits_desc, e.hits);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbMultihopResult) r = run (
      starts,
      hop ("follows", use_index ? NULL : "recent", use_index ? "recent_idx" : NULL, AB_QDIR_OUT, 5),
      hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), FALSE, TRUE, &error);
  ck_assert_msg (r != NULL, "multihop: %s", error ? error->message : "");
  assert_result (r, &e, AB_QDIR_OUT);
  ck_assert_uint_eq (r->second_hop_nodes, friends->len);
  expect_clear (&e);
}

/* Friends of friends of two users (OUT then OUT), or the other followers
 * of my followees (OUT then IN); starts and first-hop nodes excluded. */
static void
check_second_degree (guint a, guint b, AbQueryDirection dir2)
{
  g_autofree gchar *sa = g_strdup_printf ("u%u", a);
  g_autofree gchar *sb = g_strdup_printf ("u%u", b);
  const gchar *starts[] = { sa, sb, NULL };
  Expect e;
  expect_init (&e);
  g_autoptr (GPtrArray) nodes = g_ptr_array_new_with_free_func (g_free);
  guint us[] = { a, b };
  for (guint s = 0; s < 2; s++)
    {
      g_autoptr (GArray) t = top (graph.follows[us[s]], 6);
      for (guint i = 0; i < t->len; i++)
        if (!g_ptr_array_find_with_equal_func (nodes, g_array_index (t, Item, i).node, g_str_equal,
                                               NULL))
          g_ptr_array_add (nodes, g_strdup (g_array_index (t, Item, i).node));
    }
  for (guint i = 0; i < nodes->len; i++)
    {
      const gchar *n = nodes->pdata[i];
      g_autoptr (GArray) t
          = dir2 == AB_QDIR_OUT ? top (graph.follows[atoi (n + 1)], 5) : followers (n, 5);
      for (guint j = 0; j < t->len; j++)
        {
          const gchar *end = g_array_index (t, Item, j).node;
          if (!g_str_equal (end, sa) && !g_str_equal (end, sb)
              && !g_ptr_array_find_with_equal_func (nodes, end, g_str_equal, NULL))
            expect_add (&e, end, n);
        }
      if (dir2 == AB_QDIR_IN)
        for (guint j = 0; j < t->len; j++)
          g_free (g_array_index (t, Item, j).node);
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (AbMultihopResult) r
      = run (starts, hop ("follows", "recent", NULL, AB_QDIR_OUT, 6),
             hop ("follows", "recent", NULL, dir2, 5), TRUE, FALSE, &error);
  ck_assert_msg (r != NULL, "multihop: %s", error ? error->message : "");
  assert_result (r, &e, dir2);
  expect_clear (&e);
}

static void
expect_400 (const gchar *const *starts, AbHop h1, AbHop h2, const gchar *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (AbMultihopResult) r = run (starts, h1, h2, FALSE, FALSE, &error);
  ck_assert_msg (r == NULL, "accepted (%s)", needle);
  /* both answer 400: a bad hop, or a table that does not exist */
  ck_assert_msg (g_error_matches (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST)
                     || g_error_matches (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_MISSING),
                 "%s", error->message);
  ck_assert_msg (strstr (error->message, needle) != NULL, "'%s' lacks '%s'", error->message,
                 needle);
}

START_TEST (social_graph)
{
  ab_test_env_open (&env, _i);
  ab_test_create_table (&env, "sns", FOLLOWS);
  ab_test_create_table (&env, "sns", LIKES);
  generate (7 + _i);
  answered = 0;
  for (guint u = 0; u < N_USERS; u += 3)
    {
      check_friends_likes (u, FALSE);
      check_friends_likes (u, TRUE);
    }
  for (guint u = 0; u + 1 < N_USERS; u += 7)
    {
      check_second_degree (u, u + 1, AB_QDIR_OUT);
      check_second_degree (u, u + 1, AB_QDIR_IN);
    }
  ck_assert_uint_gt (answered, 300);
  /* caps and bad hops */
  const gchar *one[] = { "u1", NULL };
  const gchar *none[] = { NULL };
  expect_400 (none, hop ("follows", "recent", NULL, AB_QDIR_OUT, 5),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), "start");
  expect_400 (one, hop ("follows", "recent", NULL, AB_QDIR_OUT, 0),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), "limit must be between 1 and 20");
  expect_400 (one, hop ("follows", "recent", "recent_idx", AB_QDIR_OUT, 5),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), "exactly one");
  expect_400 (one, hop ("follows", "nope", NULL, AB_QDIR_OUT, 5),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), "not found");
  expect_400 (one, hop ("nope", "recent", NULL, AB_QDIR_OUT, 5),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), "No such label");
  g_autoptr (GPtrArray) many = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < 101; i++)
    g_ptr_array_add (many, g_strdup_printf ("u%u", i));
  g_ptr_array_add (many, NULL);
  expect_400 ((const gchar *const *) many->pdata, hop ("follows", "recent", NULL, AB_QDIR_OUT, 5),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), "too many start nodes");
  g_ptr_array_remove_index (many, 100); /* 100 starts x 20 > 1000 nodes */
  g_ptr_array_remove_index (many, 99);
  g_ptr_array_add (many, NULL);
  expect_400 ((const gchar *const *) many->pdata, hop ("follows", "recent", NULL, AB_QDIR_OUT, 20),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 4), "second-hop nodes");
  env.engine->cfg.max_hop_edges = 100;
  expect_400 (one, hop ("follows", "recent", NULL, AB_QDIR_OUT, 20),
              hop ("likes", "recent", NULL, AB_QDIR_OUT, 10), "edges >");
  for (guint u = 0; u < N_USERS; u++)
    {
      g_hash_table_unref (graph.follows[u]);
      g_hash_table_unref (graph.likes[u]);
    }
  ab_test_env_close (&env);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("multihop");
  TCase *tc = tcase_create ("multihop");
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, social_graph, 0, AB_TEST_N_STORES);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
