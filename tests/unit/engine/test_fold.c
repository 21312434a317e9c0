/* Which edges are active after shuffled, out-of-order INSERT/DELETE events
 * and later UPDATEs, over two waves on the same keys (the event stream of
 * tests/rest/test_topk.c): the engine against a model that folds every event
 * by the rules of docs/data-model.md §2 (transcribed here, not calling state.c),
 * every store. Also the cases where "the event with the highest version of
 * this wave wins" (that suite's former model) parts from the fold: the
 * second wave inherits the first wave's State (its createdAt, deletedAt and
 * property versions), and a newer UPDATE keeps its properties against an
 * older INSERT. */
#include <string.h>
#include "engine_fixture.h"
#include "ab_check.h"

#define USERS 3
#define EVENTS 40
#define ITEMS 8

static const gchar *VIEWS
    = "{\"table\":\"views\",\"storage\":\"datastore://shop/views\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"long\",\"comment\":\"\"},\"direction\":\"OUT\","
      "\"properties\":[{\"name\":\"item\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"},"
      "{\"name\":\"w\",\"type\":\"long\",\"nullable\":false,\"comment\":\"\"}],\"indexes\":[]}}";

static AbTestEnv env;

static void
open_env (int store)
{
  ab_test_env_open (&env, store);
  ab_test_create_table (&env, "shop", VIEWS);
}

/* One key's State by the spec. Every event of these streams gives every
 * property (INSERT and UPDATE) or none (DELETE), so one slot stands for all
 * of them. */
typedef enum { SLOT_ABSENT, SLOT_VALUE, SLOT_NULL } SlotKind;

typedef struct {
  gint64 version;
  gboolean has_created, has_deleted;
  gint64 created, deleted;
  SlotKind kind;
  gint64 slot_version;
  gint64 item, w;
} Spec;

typedef enum { EV_INSERT, EV_UPDATE, EV_DELETE } EvType;

static void
spec_init (Spec *s)
{
  memset (s, 0, sizeof *s);
  s->version = G_MININT64;
}

/* docs/data-model.md §2.1 and §2.2 for one event (props given for INSERT and
 * UPDATE, never null). */
static void
spec_fold (Spec *s, EvType type, gint64 ev, gint64 item, gint64 w)
{
  gboolean override = ev == s->version;
  s->version = MAX (ev, s->version);
  if (type == EV_INSERT)
    {
      if (!s->has_created || ev >= s->created)
        s->has_created = TRUE, s->created = ev;
      if (override && s->has_deleted && s->created == s->deleted)
        s->has_deleted = FALSE;
    }
  else if (type == EV_DELETE)
    {
      if (!s->has_deleted || ev >= s->deleted)
        s->has_deleted = TRUE, s->deleted = ev;
      if (override && s->has_created && s->deleted == s->created)
        s->has_created = FALSE;
    }
  if (type == EV_DELETE)
    {
      if (s->kind == SLOT_ABSENT || ev >= s->slot_version)
        s->kind = SLOT_NULL, s->slot_version = ev;
    }
  else if (s->kind == SLOT_ABSENT || ev >= s->slot_version)
    /* INSERT rules 1 and 3 (the value is given), UPDATE "val@ev" */
    s->kind = SLOT_VALUE, s->slot_version = ev, s->item = item, s->w = w;
}

static gboolean
spec_active (const Spec *s)
{
  return s->has_created && (!s->has_deleted || s->created > s->deleted);
}

/* The former model of tests/rest/test_topk.c: per wave, the event with the
 * highest version wins (a DELETE keeps the item it had). */
typedef struct {
  gboolean active;
  gint64 version, item, w;
} Naive;

static Spec spec[USERS + 1][EVENTS + 1];
static Naive naive[USERS + 1][EVENTS + 1];

static gchar *
event_json (EvType type, gint64 version, gint u, gint id, gint64 item, gint64 w)
{
  static const gchar *names[] = { "INSERT", "UPDATE", "DELETE" };
  if (type == EV_DELETE)
    return g_strdup_printf ("{\"type\":\"DELETE\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                            ",\"source\":%d,\"target\":%d}}",
                            version, u, id);
  return g_strdup_printf ("{\"type\":\"%s\",\"edge\":{\"version\":%" G_GINT64_FORMAT
                          ",\"source\":%d,\"target\":%d,\"properties\":{\"item\":%" G_GINT64_FORMAT
                          ",\"w\":%" G_GINT64_FORMAT "}}}",
                          names[type], version, u, id, item, w);
}

static void
send (GPtrArray *items)
{
  if (items->len == 0)
    return;
  g_ptr_array_add (items, NULL);
  g_autofree gchar *joined = g_strjoinv (",", (gchar **) items->pdata);
  g_autofree gchar *body = g_strdup_printf ("{\"mutations\":[%s]}", joined);
  g_autoptr (GArray) r = ab_test_mutate (&env, "shop", "views", body);
  g_ptr_array_set_size (items, 0);
}

/* The engine's view of (u, id): active, item, w. */
static gboolean
stored (gint u, gint id, gint64 *item, gint64 *w)
{
  g_autoptr (GPtrArray) s = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) t = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (s, g_strdup_printf ("%d", u));
  g_ptr_array_add (t, g_strdup_printf ("%d", id));
  g_autoptr (GError) error = NULL;
  AbEdgeFrame *f = ab_engine_get (env.engine, "shop", "views", s, t, NULL, &error);
  ck_assert_msg (f != NULL, "get: %s", error != NULL ? error->message : "");
  gboolean active = f->edges->len == 1;
  if (active)
    {
      const AbEdgeOut *e = f->edges->pdata[0];
      for (guint i = 0; i < e->n_props; i++)
        {
          const AbValue *v = &e->values[i];
          if (g_str_equal (e->names[i], "item"))
            *item = v->u.i;
          else if (g_str_equal (e->names[i], "w"))
            *w = v->u.i;
        }
    }
  ab_edge_frame_free (f);
  return active;
}

/* Compares every key with the spec (which must agree) and counts where the
 * naive model parts from it. */
static guint
compare (const gchar *when)
{
  guint differ = 0;
  for (gint u = 1; u <= USERS; u++)
    for (gint id = 1; id <= EVENTS; id++)
      {
        const Spec *s = &spec[u][id];
        const Naive *n = &naive[u][id];
        gint64 item = 0, w = 0;
        gboolean active = stored (u, id, &item, &w);
        ck_assert_msg (active == spec_active (s), "%s: %d->%d active %d, spec %d", when, u, id,
                       active, spec_active (s));
        if (active)
          ck_assert_msg (s->kind == SLOT_VALUE && item == s->item && w == s->w,
                         "%s: %d->%d (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                         "), spec (%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT ")",
                         when, u, id, item, w, s->item, s->w);
        if (n->active != active || (active && (n->item != item || n->w != w)))
          differ++;
      }
  return differ;
}

/* tests/rest/test_topk.c's stream: phase 1, three rounds of INSERT (3/4)
 * or DELETE (1/4) with versions x*10+round shuffled across keys, 25 a
 * request; phase 2, an UPDATE at 20000+id of half the active edges. The
 * naive model starts each wave from nothing, as that suite's did. */
static void
wave (GRand *r, guint *differ_phase1, guint *differ_phase2)
{
  memset (naive, 0, sizeof naive);
  g_autoptr (GPtrArray) batch = g_ptr_array_new_with_free_func (g_free);
  for (gint round = 0; round < 3; round++)
    for (gint u = 1; u <= USERS; u++)
      for (gint id = 1; id <= EVENTS; id++)
        {
          if (g_rand_int_range (r, 0, 3) == 0)
            continue;
          gint64 version = g_rand_int_range (r, 1, 1000) * 10 + round;
          gint64 item = g_rand_int_range (r, 1, ITEMS + 1), w = g_rand_int_range (r, -3, 6);
          EvType type = g_rand_int_range (r, 0, 4) == 0 ? EV_DELETE : EV_INSERT;
          g_ptr_array_add (batch, event_json (type, version, u, id, item, w));
          spec_fold (&spec[u][id], type, version, item, w);
          Naive *n = &naive[u][id];
          if (version > n->version)
            *n = (Naive){ .active = type == EV_INSERT,
                          .version = version,
                          .item = type == EV_INSERT ? item : n->item,
                          .w = type == EV_INSERT ? w : n->w };
          if (batch->len >= 25)
            send (batch);
        }
  send (batch);
  *differ_phase1 = compare ("phase 1");
  for (gint u = 1; u <= USERS; u++)
    for (gint id = 1; id <= EVENTS; id++)
      if (spec_active (&spec[u][id]) && g_rand_int_range (r, 0, 2) == 0)
        {
          gint64 version = 20000 + id;
          gint64 item = g_rand_int_range (r, 1, ITEMS + 1), w = g_rand_int_range (r, -3, 6);
          g_ptr_array_add (batch, event_json (EV_UPDATE, version, u, id, item, w));
          spec_fold (&spec[u][id], EV_UPDATE, version, item, w);
          Naive *n = &naive[u][id];
          n->version = version, n->item = item, n->w = w;
          if (batch->len >= 25)
            send (batch);
        }
  send (batch);
  *differ_phase2 = compare ("phase 2");
}

/* The engine folds the stream as the spec says; the naive model is right
 * in the first wave (distinct versions of INSERT/DELETE: the highest wins)
 * and wrong in the second, which starts from the first wave's State. */
START_TEST (shuffled_waves_follow_the_spec)
{
  for (guint seed = 20; seed < 24; seed++)
    {
      open_env (_i); /* a fresh store per seed */
      for (gint u = 1; u <= USERS; u++)
        for (gint id = 1; id <= EVENTS; id++)
          spec_init (&spec[u][id]);
      g_autoptr (GRand) r = g_rand_new_with_seed (seed);
      guint a1, a2, b1, b2;
      wave (r, &a1, &a2);
      wave (r, &b1, &b2);
      ck_assert_msg (a1 == 0 && a2 == 0, "seed %u: the naive model parts in wave 1 (%u, %u)", seed,
                     a1, a2);
      ck_assert_msg (b1 > 0, "seed %u: expected the naive model to part in wave 2", seed);
      if (g_getenv ("FOLD_DEBUG") != NULL)
        g_printerr ("seed %u: naive model wrong on %u keys after wave 2's shuffled phase, %u "
                    "after its updates\n",
                    seed, b1, b2);
      ab_test_env_close (&env);
    }
}
END_TEST

/* The exact cases, each on its own key. */
static void
check_key (gint id, gboolean active, gint64 item)
{
  gint64 got = 0, w = 0;
  ck_assert_int_eq (stored (1, id, &got, &w), active);
  if (active)
    ck_assert_int_eq (got, item);
}

START_TEST (second_wave_cases)
{
  open_env (_i);
  /* 1: INSERT@5000 (wave 1), DELETE@3000 (wave 2): createdAt 5000 >
   *    deletedAt 3000, still active; "highest of wave 2" says deleted. */
  g_autoptr (GArray) r1
      = ab_test_mutate (&env, "shop", "views",
                        "{\"mutations\":["
                        "{\"type\":\"INSERT\",\"edge\":{\"version\":5000,\"source\":1,\"target\":1,"
                        "\"properties\":{\"item\":1,\"w\":1}}}]}");
  g_autoptr (GArray) r2 = ab_test_mutate (&env, "shop", "views",
                                          "{\"mutations\":[{\"type\":\"DELETE\",\"edge\":{"
                                          "\"version\":3000,\"source\":1,\"target\":1}}]}");
  check_key (1, TRUE, 1);
  /* 2: INSERT@100, UPDATE@20002 item 2 (wave 1), INSERT@7000 item 3 (wave
   *    2): the properties stay at version 20002 (rule 2, ev < cur.version),
   *    item 2; "highest of wave 2" says item 3. */
  g_autoptr (GArray) r3 = ab_test_mutate (
      &env, "shop", "views",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":100,\"source\":1,\"target\":2,"
      "\"properties\":{\"item\":1,\"w\":1}}}]}");
  g_autoptr (GArray) r4 = ab_test_mutate (
      &env, "shop", "views",
      "{\"mutations\":[{\"type\":\"UPDATE\",\"edge\":{\"version\":20002,\"source\":1,\"target\":2,"
      "\"properties\":{\"item\":2,\"w\":1}}}]}");
  g_autoptr (GArray) r5 = ab_test_mutate (
      &env, "shop", "views",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":7000,\"source\":1,\"target\":2,"
      "\"properties\":{\"item\":3,\"w\":1}}}]}");
  check_key (2, TRUE, 2);
  /* 3: INSERT@100, UPDATE@20003 item 2 (wave 1); DELETE@300, INSERT@500
   *    item 3 (wave 2): active again (500 > 300), the DELETE@300 kept the
   *    properties of version 20003, item 2. */
  g_autoptr (GArray) r6 = ab_test_mutate (
      &env, "shop", "views",
      "{\"mutations\":[{\"type\":\"INSERT\",\"edge\":{\"version\":100,\"source\":1,\"target\":3,"
      "\"properties\":{\"item\":1,\"w\":1}}},"
      "{\"type\":\"UPDATE\",\"edge\":{\"version\":20003,\"source\":1,\"target\":3,"
      "\"properties\":{\"item\":2,\"w\":1}}}]}");
  g_autoptr (GArray) r7 = ab_test_mutate (
      &env, "shop", "views",
      "{\"mutations\":[{\"type\":\"DELETE\",\"edge\":{\"version\":300,\"source\":1,\"target\":3}},"
      "{\"type\":\"INSERT\",\"edge\":{\"version\":500,\"source\":1,\"target\":3,"
      "\"properties\":{\"item\":3,\"w\":1}}}]}");
  check_key (3, TRUE, 2);
  ab_test_env_close (&env);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("fold");
  TCase *tc = tcase_create ("core");
  tcase_set_timeout (tc, 300);
  tcase_add_loop_test (tc, shuffled_waves_follow_the_spec, 0, AB_TEST_N_STORES);
  tcase_add_loop_test (tc, second_wave_cases, 0, AB_TEST_N_STORES);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
