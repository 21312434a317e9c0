/* A hot edge must not starve the rest (issue 16): 16 clients keep writing one
 * edge (each request with a second, fresh key, so it takes the multi-key
 * path) while 10-key writes and multihop reads on other keys are timed,
 * against the same 16 clients each writing an edge of its own (the same load
 * on the machine, no hot edge; on HBase the operations alone). A busy lock
 * is retried from the engine's timer, so no key-pool thread waits for it.
 * On memory, lmdb and (with AB_HBASE_ADDR) hbase. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "engine_fixture.h"
#include "ab_check.h"

static const gchar *LIKES
    = "{\"table\":\"likes\",\"storage\":\"datastore://likes/likes\",\"comment\":\"likes\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}"
      "]}]}}";

#define HAMMERS 16 /* twice the key pool: enough to fill it if waiting held threads */
#define MAX_HAMMERS 32
#define SAMPLES 200        /* half 10-key writes, half multihop reads */
#define P99_LIMIT_US 50000 /* the bound */

static AbTestEnv env;
static atomic_int stop;
static atomic_int hot; /* the clients write the one hot edge, else each its own */
static atomic_int version;
static int store_index; /* the loop index, for messages */

static GArray *
mutate (const gchar *body, GError **error)
{
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = "likes";
  o.table = "likes";
  g_autoptr (JsonNode) n = ab_test_json (body);
  return ab_engine_mutate (env.engine, &o, n, error);
}

static gchar *
insert (const gchar *source, const gchar *target, gint v)
{
  return g_strdup_printf ("{\"type\":\"INSERT\",\"edge\":{\"version\":%d,\"source\":\"%s\","
                          "\"target\":\"%s\",\"properties\":{\"created_at\":%d}}}",
                          v, source, target, v);
}

/* One client: the hot edge (or its own) and a fresh one per request, until
 * told to stop. */
static gpointer
hammer (gpointer data)
{
  guint id = GPOINTER_TO_UINT (data);
  g_autofree gchar *own = g_strdup_printf ("c%u", id);
  const gchar *src = atomic_load (&hot) ? "h" : own;
  for (guint k = 0; !atomic_load (&stop); k++)
    {
      gint v = atomic_fetch_add (&version, 1) + 1;
      g_autofree gchar *fresh = g_strdup_printf ("f%u_%u", id, k);
      g_autofree gchar *a = insert (src, "hot", v);
      g_autofree gchar *b = insert (src, fresh, v);
      g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s,%s]}", a, b);
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) r = mutate (body, &error);
      g_usleep (5000); /* a client's think time: contention without eating both cores */
    }
  return NULL;
}

static AbHop
hop (gint limit)
{
  return (AbHop){ .table = "likes", .index = "recent", .direction = AB_QDIR_OUT, .limit = limit };
}

static gint
cmp_i64 (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

/* One 10-key write (sample s) or one multihop read, checked. */
static void
one_sample (guint s, guint round)
{
  if (s % 2 == 0)
    {
      g_autoptr (GString) body = g_string_new ("{\"mutations\":[");
      for (guint k = 0; k < 10; k++)
        {
          g_autofree gchar *src = g_strdup_printf ("w%u_%u", round, s);
          g_autofree gchar *tgt = g_strdup_printf ("t%u", k);
          g_autofree gchar *e = insert (src, tgt, 1);
          g_string_append_printf (body, "%s%s", k ? "," : "", e);
        }
      g_string_append (body, "]}");
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) r = mutate (body->str, &error);
      ck_assert_msg (r != NULL, "10-key write: %s", error ? error->message : "");
      for (guint k = 0; k < r->len; k++)
        ck_assert_int_eq (g_array_index (r, AbKeyResult, k).status, AB_STATUS_CREATED);
      return;
    }
  g_autoptr (GPtrArray) starts = g_ptr_array_new ();
  g_ptr_array_add (starts, "m");
  AbMultihopParams p = { .database = "likes",
                         .starts = starts,
                         .hops = { hop (10), hop (5) },
                         .dedup = TRUE,
                         .exclude_start = TRUE,
                         .limit = 100 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AbMultihopResult) r = ab_engine_multihop (env.engine, &p, &error);
  ck_assert_msg (r != NULL, "multihop: %s", error ? error->message : "");
  ck_assert_uint_eq (r->edges->len, 50);
}

/* p50 and p99 of SAMPLES operations with `hammers` clients on the hot edge
 * (is_hot) or each on its own. */
typedef struct {
  gint64 p50, p99;
} Took;

static Took
measure (guint hammers, guint round, gboolean is_hot)
{
  GThread *th[MAX_HAMMERS];
  atomic_store (&stop, 0);
  atomic_store (&hot, is_hot);
  gint before = atomic_load (&version);
  for (guint i = 0; i < hammers; i++)
    th[i] = g_thread_new ("hammer", hammer, GUINT_TO_POINTER (i));
  if (hammers > 0)
    g_usleep (200000); /* let the clients' load (a hot lock's queue) form (not synchronisation) */
  g_autoptr (GArray) took = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (guint s = 0; s < SAMPLES; s++)
    {
      gint64 t0 = g_get_monotonic_time ();
      one_sample (s, round);
      gint64 dt = g_get_monotonic_time () - t0;
      g_array_append_val (took, dt);
    }
  atomic_store (&stop, 1);
  for (guint i = 0; i < hammers; i++)
    g_thread_join (th[i]);
  g_array_sort (took, cmp_i64);
  gint64 p99 = g_array_index (took, gint64, SAMPLES * 99 / 100 - 1);
  g_print ("store %d, %u clients on %s (%d writes): 10-key writes and multihop "
           "reads p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
           store_index, hammers, is_hot ? "the hot edge" : "their own edges",
           atomic_load (&version) - before, g_array_index (took, gint64, SAMPLES / 2) / 1000.0,
           p99 / 1000.0, g_array_index (took, gint64, SAMPLES - 1) / 1000.0);
  return (Took){ g_array_index (took, gint64, SAMPLES / 2), p99 };
}

START_TEST (hot_key_does_not_starve_others)
{
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg); /* the server's lock retries and key pool */
  ab_test_env_open_with (&env, _i, &cfg);
  store_index = _i;
  ab_test_create_table (&env, "likes", LIKES);
  /* the multihop graph: m -> x0..x9, each x -> 5 targets */
  g_autoptr (GString) load = g_string_new ("{\"mutations\":[");
  for (guint j = 0; j < 10; j++)
    {
      g_autofree gchar *x = g_strdup_printf ("x%u", j);
      g_autofree gchar *e = insert ("m", x, 1);
      g_string_append_printf (load, "%s%s", j ? "," : "", e);
      for (guint k = 0; k < 5; k++)
        {
          g_autofree gchar *y = g_strdup_printf ("y%u_%u", j, k);
          g_autofree gchar *f = insert (x, y, 1);
          g_string_append_printf (load, ",%s", f);
        }
    }
  g_string_append (load, "]}");
  g_autoptr (GArray) loaded = ab_test_mutate (&env, "likes", "likes", load->str);
  /* AB_TEST_HAMMERS=N: N clients on the hot edge instead of 16 */
  const gchar *env_hammers = g_getenv ("AB_TEST_HAMMERS");
  guint hammers = env_hammers != NULL ? (guint) MIN (atoi (env_hammers), MAX_HAMMERS) : HAMMERS;
  /* What the same operations take without a hot edge first. On a local
   * store, next to the same clients each writing an edge of its own: the
   * same load on the machine (CI runs two suites at once next to HBase and
   * Kafka, on 2 cores; measured against the operations alone, the memory
   * store's clients once pushed a p99 to 82 ms with nothing starved), so
   * the bound, 50 ms over that, is about the hot edge alone. On HBase the
   * clients of a hot edge mostly wait for its lock while cold ones load the
   * gateway (a tenth of their writes), so there the baseline is the
   * operations alone, and the tail of two sequential measurements swings
   * (one run saw 157 ms alone, 344 ms hot, medians 19 and 21 ms), and the
   * p99 of 200 samples is the HBase's own tail: with test_gateway stalling
   * and killing a node on the same HBase meanwhile, one run saw 106 ms alone
   * and 821 ms hot. So on HBase only the median is bounded (50 ms). A
   * starved pool costs at least one lock backoff (100 ms) per request (up to
   * lock_retries of them), which moves the median. */
  gboolean remote = store_index == AB_TEST_HBASE;
  Took alone = measure (remote ? 0 : hammers, 0, FALSE);
  gint before_hot = atomic_load (&version);
  Took hot = measure (hammers, 1, TRUE);
  gint64 p99_bound = MAX (P99_LIMIT_US, alone.p99 + P99_LIMIT_US);
  ck_assert_msg (hot.p50 < alone.p50 + P99_LIMIT_US,
                 "p50 %" G_GINT64_FORMAT " us next to a hot edge, %" G_GINT64_FORMAT
                 " us next to cold ones",
                 hot.p50, alone.p50);
  /* Under valgrind (tests/valgrind.sh sets AB_TEST_UNDER_VALGRIND) threads
   * run one at a time, so the tail among 17 threads is valgrind's
   * scheduler: one run saw p99 254 ms hot against 159 ms cold, medians 43
   * and 30 ms. The median above still catches a starved pool there. */
  if (!remote && g_getenv ("AB_TEST_UNDER_VALGRIND") == NULL)
    ck_assert_msg (hot.p99 < p99_bound,
                   "p99 %" G_GINT64_FORMAT " us next to a hot edge, %" G_GINT64_FORMAT
                   " us next to cold ones (bound %" G_GINT64_FORMAT " us)",
                   hot.p99, alone.p99, p99_bound);
  /* the hot edge took writes meanwhile */
  if (hammers > 0)
    {
      ck_assert_int_gt (atomic_load (&version), before_hot);
      ck_assert_int_gt (ab_test_count (&env, "likes", "likes", "h", AB_QDIR_OUT), 0);
    }
  ab_test_env_close (&env);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("engine-locks");
  TCase *tc = tcase_create ("locks");
  tcase_set_timeout (tc, 120);
  tcase_add_loop_test (tc, hot_key_does_not_starve_others, 0, AB_TEST_N_STORES);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
