/* Verifier suite: every write of the create, update and delete batches is
 * dropped or failed in turn through the fault wrapper; the verifier must
 * report exactly the injected damage per class, repair it, find nothing on a
 * second run, and queries must then agree with State; a vertex table only
 * has its State rows decoded. On every store (HBase too when tests/run.sh
 * started one). */
#include <string.h>
#include "verify_fixture.h"

/* Batches, in the engine's order: State put, Index puts (per index, OUT then
 * IN), Index deletes, then Count increments (OUT then IN). */
static const struct {
  const gchar *name;
  const gchar *body;
  guint items;
} SCENARIOS[] = {
  { "create C->P", "{\"mutations\":[" VF_INS (40, "C", "P", 40) "]}", 5 },
  { "re-insert A->P (index key moves)", "{\"mutations\":[" VF_INS (50, "A", "P", 50) "]}", 5 },
  { "update A->P note (index value changes)",
    "{\"mutations\":[{\"type\":\"UPDATE\",\"edge\":{\"version\":50,\"source\":\"A\","
    "\"target\":\"P\",\"properties\":{\"note\":\"x\"}}}]}",
    3 },
  { "delete A->L",
    "{\"mutations\":[{\"type\":\"DELETE\",\"edge\":{\"version\":60,\"source\":\"A\","
    "\"target\":\"L\",\"properties\":{}}}]}",
    5 },
};

/* Expected findings: index_missing, index_stale, index_orphan, count_missing,
 * count_wrong, count_orphan, state_corrupt. */
typedef struct {
  guint scenario;
  AbFaultKind kind;
  guint item;
  guint64 expect[AB_MISMATCH_N_CLASSES];
} Case;

static const Case CASES[] = {
  /* create C->P: [S, iOUT, iIN, cnt C OUT, cnt P IN] */
  { 0, AB_FAULT_DROP, 0, { 0, 0, 2, 0, 1, 1, 0 } },
  { 0, AB_FAULT_DROP, 1, { 1, 0, 0, 0, 0, 0, 0 } },
  { 0, AB_FAULT_DROP, 2, { 1, 0, 0, 0, 0, 0, 0 } },
  { 0, AB_FAULT_DROP, 3, { 0, 0, 0, 1, 0, 0, 0 } },
  { 0, AB_FAULT_DROP, 4, { 0, 0, 0, 0, 1, 0, 0 } },
  { 0, AB_FAULT_FAIL, 0, { 0 } },
  { 0, AB_FAULT_FAIL, 1, { 2, 0, 0, 1, 1, 0, 0 } },
  { 0, AB_FAULT_FAIL, 2, { 1, 0, 0, 1, 1, 0, 0 } },
  { 0, AB_FAULT_FAIL, 3, { 0, 0, 0, 1, 1, 0, 0 } },
  { 0, AB_FAULT_FAIL, 4, { 0, 0, 0, 0, 1, 0, 0 } },
  /* re-insert A->P: [S, iOUT new, iIN new, del iOUT old, del iIN old] */
  { 1, AB_FAULT_DROP, 0, { 2, 0, 2, 0, 0, 0, 0 } },
  { 1, AB_FAULT_DROP, 1, { 1, 0, 0, 0, 0, 0, 0 } },
  { 1, AB_FAULT_DROP, 2, { 1, 0, 0, 0, 0, 0, 0 } },
  { 1, AB_FAULT_DROP, 3, { 0, 0, 1, 0, 0, 0, 0 } },
  { 1, AB_FAULT_DROP, 4, { 0, 0, 1, 0, 0, 0, 0 } },
  { 1, AB_FAULT_FAIL, 0, { 0 } },
  { 1, AB_FAULT_FAIL, 1, { 2, 0, 2, 0, 0, 0, 0 } },
  { 1, AB_FAULT_FAIL, 2, { 1, 0, 2, 0, 0, 0, 0 } },
  { 1, AB_FAULT_FAIL, 3, { 0, 0, 2, 0, 0, 0, 0 } },
  { 1, AB_FAULT_FAIL, 4, { 0, 0, 1, 0, 0, 0, 0 } },
  /* update note: [S, iOUT, iIN] (same keys, new values) */
  { 2, AB_FAULT_DROP, 0, { 0, 2, 0, 0, 0, 0, 0 } },
  { 2, AB_FAULT_DROP, 1, { 0, 1, 0, 0, 0, 0, 0 } },
  { 2, AB_FAULT_DROP, 2, { 0, 1, 0, 0, 0, 0, 0 } },
  { 2, AB_FAULT_FAIL, 0, { 0 } },
  { 2, AB_FAULT_FAIL, 1, { 0, 2, 0, 0, 0, 0, 0 } },
  { 2, AB_FAULT_FAIL, 2, { 0, 1, 0, 0, 0, 0, 0 } },
  /* delete A->L: [S, del iOUT, del iIN, cnt A OUT -1, cnt L IN -1] */
  { 3, AB_FAULT_DROP, 0, { 2, 0, 0, 0, 2, 0, 0 } },
  { 3, AB_FAULT_DROP, 1, { 0, 0, 1, 0, 0, 0, 0 } },
  { 3, AB_FAULT_DROP, 2, { 0, 0, 1, 0, 0, 0, 0 } },
  { 3, AB_FAULT_DROP, 3, { 0, 0, 0, 0, 1, 0, 0 } },
  { 3, AB_FAULT_DROP, 4, { 0, 0, 0, 0, 0, 1, 0 } },
  { 3, AB_FAULT_FAIL, 0, { 0 } },
  { 3, AB_FAULT_FAIL, 1, { 0, 0, 2, 0, 1, 1, 0 } },
  { 3, AB_FAULT_FAIL, 2, { 0, 0, 1, 0, 1, 1, 0 } },
  { 3, AB_FAULT_FAIL, 3, { 0, 0, 0, 0, 1, 1, 0 } },
  { 3, AB_FAULT_FAIL, 4, { 0, 0, 0, 0, 0, 1, 0 } },
};
#define N_CASES G_N_ELEMENTS (CASES)

/* One fault, verify, repair, verify again, query. */
START_TEST (each_fault_found_then_repaired)
{
  const Case *c = &CASES[_i % N_CASES];
  g_autofree gchar *what = g_strdup_printf ("%s, %s item %u", SCENARIOS[c->scenario].name,
                                            c->kind == AB_FAULT_DROP ? "drop" : "fail", c->item);
  VfEnv env;
  VfResult found, repaired;
  vf_open (&env, (guint) _i / N_CASES);
  vf_create_table (&env, "db", VF_LIKES);
  vf_mutate_free (&env, "db", "likes", FALSE, VF_SETUP);
  vf_assert_clean (&env, "setup");
  ab_store_fault_arm (env.fault, c->kind, 1, c->item);
  vf_mutate_free (&env, "db", "likes", FALSE, SCENARIOS[c->scenario].body);
  ck_assert_msg (ab_store_fault_fired (env.fault), "%s: the fault did not fire", what);
  vf_verify (&env, 0, 1, FALSE, &found);
  vf_assert_classes (&found, c->expect, what);
  ck_assert_uint_eq (found.stats.state_rows, 3 + (c->scenario == 0 && !(c->item == 0)));
  vf_verify (&env, 0, 1, TRUE, &repaired);
  vf_assert_classes (&repaired, c->expect, what);
  ck_assert_uint_eq (repaired.stats.repaired, ab_verify_stats_mismatches (&found.stats));
  ck_assert_uint_eq (repaired.stats.repair_failed, 0);
  vf_assert_clean (&env, what);
  vf_check_queries (&env);
  vf_result_clear (&found);
  vf_result_clear (&repaired);
  vf_close (&env);
}
END_TEST

/* A batch with fewer items than the armed index passes unharmed. */
START_TEST (fault_beyond_batch)
{
  VfEnv env;
  vf_open (&env, VF_MEMORY);
  vf_create_table (&env, "db", VF_LIKES);
  ab_store_fault_arm (env.fault, AB_FAULT_FAIL, 1, 50);
  vf_mutate_free (&env, "db", "likes", FALSE, VF_SETUP);
  ck_assert (!ab_store_fault_fired (env.fault));
  vf_assert_clean (&env, "unharmed");
  vf_check_queries (&env);
  vf_close (&env);
}
END_TEST

static const gchar *ORDERS
    = "{\"table\":\"orders\",\"storage\":\"datastore://db/orders\",\"comment\":\"\","
      "\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"source\":{\"type\":\"string\",\"comment\":\"\"},\"target\":{\"type\":\"string\","
      "\"comment\":\"\"},"
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,\"comment\":"
      "\"\"}],"
      "\"direction\":\"BOTH\",\"indexes\":[{\"index\":\"recent\",\"fields\":"
      "[{\"field\":\"created_at\",\"order\":\"DESC\"}]}]}}";

#define ORDER(type, v, id, s, t)                                                     \
  "{\"mutations\":[{\"type\":\"" type "\",\"edge\":{\"version\":" #v ",\"id\":\"" id \
  "\",\"source\":\"" s "\",\"target\":\"" t "\",\"properties\":{\"created_at\":" #v "}}}]}"

static gint64
order_count (VfEnv *env, const gchar *node, AbQueryDirection dir)
{
  AbValue sv = AB_VALUE_INIT;
  gint64 n = -1;
  ck_assert (ab_engine_count (env->engine, "db", "orders", node, dir, &sv, &n, NULL));
  ab_value_clear (&sv);
  return n;
}

/* Multi-edge: an order whose endpoints move (counts move between nodes).
 * Whatever write of the move is dropped, something is reported, repair
 * makes the store clean, and counts follow the State. */
START_TEST (multi_edge_move)
{
  VfEnv env;
  VfResult found, fixed;
  vf_open (&env, VF_MEMORY);
  vf_create_table (&env, "db", ORDERS);
  vf_mutate_free (&env, "db", "orders", TRUE, ORDER ("INSERT", 10, "o1", "A", "P"));
  vf_mutate_free (&env, "db", "orders", TRUE, ORDER ("INSERT", 11, "o2", "A", "L"));
  vf_assert_clean (&env, "orders setup");
  ab_store_fault_arm (env.fault, AB_FAULT_DROP, 1, (guint) _i);
  vf_mutate_free (&env, "db", "orders", TRUE, ORDER ("INSERT", 20, "o1", "B", "L"));
  if (!ab_store_fault_fired (env.fault))
    {
      vf_close (&env);
      return; /* the batch is shorter than _i */
    }
  vf_verify (&env, 0, 1, FALSE, &found);
  ck_assert_uint_gt (ab_verify_stats_mismatches (&found.stats), 0);
  vf_verify (&env, 0, 1, TRUE, &fixed);
  ck_assert_uint_eq (fixed.stats.repaired, ab_verify_stats_mismatches (&found.stats));
  vf_assert_clean (&env, "orders repaired");
  gint64 a = order_count (&env, "A", AB_QDIR_OUT), b = order_count (&env, "B", AB_QDIR_OUT);
  gint64 p = order_count (&env, "P", AB_QDIR_IN), l = order_count (&env, "L", AB_QDIR_IN);
  ck_assert_int_eq (a + b, 2);
  ck_assert_int_eq (p + l, 2);
  ck_assert_msg ((a == 1 && b == 1 && p == 0 && l == 2) || (a == 2 && b == 0 && p == 1 && l == 1),
                 "counts A%" G_GINT64_FORMAT " B%" G_GINT64_FORMAT " P%" G_GINT64_FORMAT
                 " L%" G_GINT64_FORMAT,
                 a, b, p, l);
  vf_result_clear (&found);
  vf_result_clear (&fixed);
  vf_close (&env);
}
END_TEST

static const gchar *USERS
    = "{\"table\":\"users\",\"storage\":\"datastore://db/users\",\"comment\":\"\","
      "\"schema\":{\"type\":\"VERTEX\",\"id\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"properties\":[{\"name\":\"name\",\"type\":\"string\",\"nullable\":true,\"comment\":"
      "\"\"}]}}";

#define USER(type, v, id)                                                                \
  "{\"mutations\":[{\"type\":\"" type "\",\"edge\":{\"version\":" #v ",\"source\":\"" id \
  "\",\"properties\":{\"name\":\"" id "\"}}}]}"

/* A vertex table has nothing to cross-check: its State rows are decoded
 * (and counted), an undecodable one is reported, and Index or Count rows
 * under its code are orphans, which repair removes. */
START_TEST (vertex_table)
{
  VfEnv env;
  VfResult r;
  vf_open (&env, (guint) _i);
  vf_create_table (&env, "db", USERS);
  vf_mutate_free (&env, "db", "users", FALSE, USER ("INSERT", 10, "A"));
  vf_mutate_free (&env, "db", "users", FALSE, USER ("INSERT", 11, "B"));
  vf_mutate_free (&env, "db", "users", FALSE, USER ("INSERT", 12, "C"));
  vf_mutate_free (&env, "db", "users", FALSE, USER ("DELETE", 13, "C"));
  vf_verify (&env, 0, 1, FALSE, &r);
  ck_assert_uint_eq (ab_verify_stats_mismatches (&r.stats), 0);
  ck_assert_uint_eq (r.stats.state_rows, 3);
  ck_assert_uint_eq (r.stats.states_decoded, 3);
  ck_assert_uint_eq (r.stats.derived_index + r.stats.derived_count, 0);
  vf_result_clear (&r);
  /* damage: an undecodable State, an Index and a Count row the table never
   * writes */
  g_autoptr (AbTableDesc) t = ab_catalog_get_table (ab_engine_catalog (env.engine), "db", "users");
  AbValue a = AB_VALUE_INIT, marker = AB_VALUE_INIT;
  ab_value_set_string (&a, AB_VALUE_STRING, "B", 1);
  ab_value_set_string (&marker, AB_VALUE_STRING, AB_VERTEX_MARKER, 1);
  g_autoptr (GByteArray) sk = ab_codec_state_key (&a, &marker, t->code, NULL);
  g_autoptr (GByteArray) ck = ab_codec_count_key (&a, AB_DIR_OUT, t->code, NULL);
  g_autoptr (GByteArray) ik
      = ab_codec_index_key (&a, AB_DIR_OUT, t->code, ab_codec_code ("by_name"), &a,
                            (AbOrder[]){ AB_ORDER_ASC }, 1, &marker, NULL);
  static const guint8 junk[] = { 0x29, 0x81, 0xEE };
  AbStore *store = ab_engine_store (env.engine);
  ck_assert (ab_store_put (store, sk->data, sk->len, junk, sizeof junk, NULL));
  ck_assert (ab_store_increment (store, ck->data, ck->len, 1, NULL, NULL));
  ck_assert (ab_store_put (store, ik->data, ik->len, junk, 2, NULL));
  ab_value_clear (&a);
  ab_value_clear (&marker);
  static const guint64 damage[AB_MISMATCH_N_CLASSES] = { 0, 0, 1, 0, 0, 1, 1 };
  vf_verify (&env, 0, 1, FALSE, &r);
  vf_assert_classes (&r, damage, "vertex damage");
  vf_result_clear (&r);
  /* repair drops the orphan rows; the corrupt State stays reported
   * (State is the truth: nothing to rebuild it from) */
  static const guint64 corrupt_only[AB_MISMATCH_N_CLASSES] = { 0, 0, 0, 0, 0, 0, 1 };
  vf_verify (&env, 0, 1, TRUE, &r);
  vf_result_clear (&r);
  vf_verify (&env, 0, 1, FALSE, &r);
  vf_assert_classes (&r, corrupt_only, "vertex repaired");
  vf_result_clear (&r);
  vf_close (&env);
}
END_TEST

static void
quiet (const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer user)
{
  if (strstr (message, "injected failure") == NULL)
    g_log_default_handler (domain, level, message, user);
}

Suite *
verify_suite (void)
{
  Suite *s = suite_create ("verify");
  TCase *tc = tcase_create ("faults");
  tcase_set_timeout (tc, 60);
  tcase_add_loop_test (tc, each_fault_found_then_repaired, 0, (gint) (vf_n_stores () * N_CASES));
  tcase_add_test (tc, fault_beyond_batch);
  tcase_add_loop_test (tc, multi_edge_move, 0, 10);
  tcase_add_loop_test (tc, vertex_table, 0, (gint) vf_n_stores ());
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  g_log_set_handler (NULL, G_LOG_LEVEL_WARNING, quiet, NULL);
  SRunner *sr = srunner_create (verify_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
