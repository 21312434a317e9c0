/* Shared fixtures of the engine suites: the store URIs every suite runs on,
 * schema/table builders from JSON text, event builders and JSON helpers. */
#pragma once
#include <stdatomic.h>
#include <check.h>
#include "engine/write/write.h"
#include "model/schema.h"

/* Loop index -> store URI: "memory:", a fresh "lmdb:" or "rocksdb:" temp
 * dir, or with AB_HBASE_ADDR set a fresh hbase:// table. */
enum { AB_TEST_MEMORY, AB_TEST_LMDB, AB_TEST_ROCKSDB, AB_TEST_HBASE };
gchar *ab_test_store_uri (int i, gchar **tmpdir);
/* The URI scheme of store i: "memory", "lmdb", "rocksdb", "hbase". The local
 * stores are AB_TEST_LMDB and AB_TEST_ROCKSDB: a suite runs a test on each
 * with tcase_add_loop_test (tc, test, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1). */
const gchar *ab_test_store_kind (int i);
int ab_test_n_stores (void);
#define AB_TEST_N_STORES ab_test_n_stores ()
/* Removes dir and everything under it (symbolic links are not followed). */
void ab_test_rmdir (const gchar *dir);

AbSchema *ab_test_schema (const gchar *json);
/* Event of the given type; props is a JSON object text or NULL. */
AbEvent *ab_test_event (const AbSchema *s, AbOpType type, gint64 version, const gchar *props);
void ab_test_event_free (AbEvent *ev);
JsonNode *ab_test_json (const gchar *text);

/* An engine on a fresh store with database "db" and table "t" made from a
 * v3 create-request JSON. */
typedef struct {
  AbEngine *engine;
  gchar *tmpdir;
} AbTestEnv;
void ab_test_env_open (AbTestEnv *env, int store_index); /* short lock retries */
void ab_test_env_open_with (AbTestEnv *env, int store_index, const AbEngineConfig *cfg);
/* A fake engine clock (cfg.now_ms): time moves only when the test says so,
 * so TTLs and lock staleness are tested without sleeping. */
typedef struct {
  _Atomic gint64 ms;
} AbTestClock;
#define AB_TEST_CLOCK_T0 1735657200000LL /* 2025-01-01 00:00 +09:00, a whole second */
/* The engine of ab_test_env_open on clock (set to AB_TEST_CLOCK_T0), with no
 * background TTL sweep (tests call ab_engine_maintain themselves). */
void ab_test_env_open_clocked (AbTestEnv *env, int store_index, AbTestClock *clock);
void ab_test_clock_advance (AbTestClock *clock, gint64 delta_ms);
gint64 ab_test_clock_now (gpointer clock);
void ab_test_env_close (AbTestEnv *env);
void ab_test_create_table (AbTestEnv *env, const gchar *db, const gchar *create_json);
/* Mutates db.table with body; returns results (asserting success). */
GArray *ab_test_mutate (AbTestEnv *env, const gchar *db, const gchar *table, const gchar *body);
gint64 ab_test_count (AbTestEnv *env, const gchar *db, const gchar *table, const gchar *start,
                      AbQueryDirection dir);

#define ab_assert_error(err, dom, c)                                                 \
  ck_assert_msg ((err) != NULL && (err)->domain == (dom) && (err)->code == (c),      \
                 "expected error %s/%d, got %s", g_quark_to_string (dom), (int) (c), \
                 (err) != NULL ? (err)->message : "none")
