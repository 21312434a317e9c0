/* Shared fixtures of the verify suites: an engine writing through the fault
 * wrapper over a memory, lmdb or hbase store, table and mutation helpers, and a
 * verification run that collects findings by class and by key. */
#pragma once
#include <check.h>
#include "verify/verify.h"
#include "engine/derive.h"
#include "../store/fault.h"

typedef struct {
  AbEngine *engine;
  AbStore *fault; /* the wrapper the engine writes through (owned by it) */
  gchar *tmpdir;  /* lmdb directory, else NULL */
  gchar *uri;     /* URI of the inner store */
} VfEnv;

/* Stores a suite can loop over: memory, lmdb and, when tests/run.sh started
 * one (AB_HBASE_ADDR), a fresh table on the real HBase. */
enum { VF_MEMORY, VF_LMDB, VF_ROCKSDB, VF_HBASE };
guint vf_n_stores (void);
/* The URI of a fresh store of kind `store`; *tmpdir receives its directory
 * (lmdb, rocksdb) or NULL. */
gchar *vf_store_uri (guint store, const gchar *tag, gchar **tmpdir);
void vf_open (VfEnv *env, guint store);
/* The same with the engine healing cut writes itself (heal.c), retried
 * every retry_ms, sweeping every sweep_ms (0: only when the test calls
 * ab_engine_heal_sweep), on the clock now_ms (NULL: real time). */
void vf_open_healing (VfEnv *env, guint store, guint retry_ms, guint sweep_ms,
                      gint64 (*now_ms) (gpointer), gpointer now_data);
/* The same with `threads` threads in the engine's key pool (0: the default). */
void vf_open_healing_threads (VfEnv *env, guint store, guint retry_ms, guint sweep_ms,
                              gint64 (*now_ms) (gpointer), gpointer now_data, guint threads);
void vf_close (VfEnv *env);
JsonNode *vf_json (const gchar *text);
void vf_create_table (VfEnv *env, const gchar *db, const gchar *create_json);
/* Mutates; returns the key results (asserting the request itself succeeded). */
GArray *vf_mutate (VfEnv *env, const gchar *db, const gchar *table, gboolean multi,
                   const gchar *body);
void vf_mutate_free (VfEnv *env, const gchar *db, const gchar *table, gboolean multi,
                     const gchar *body);

typedef struct {
  AbVerifyStats stats;
  GHashTable *findings; /* "class key-hex" -> count of times reported */
} VfResult;

/* Runs the verifier (asserting it did not fail). */
void vf_verify_opts (VfEnv *env, AbVerifyOptions *o, VfResult *out);
void vf_verify (VfEnv *env, guint shard, guint n, gboolean repair, VfResult *out);
void vf_result_clear (VfResult *r);
/* Asserts the mismatch counts per class (AB_MISMATCH_N_CLASSES values). */
void vf_assert_classes (const VfResult *r, const guint64 *expected, const gchar *what);
void vf_assert_clean (VfEnv *env, const gchar *what);

/* The likes table of the fault suites: string endpoints, BOTH directions,
 * index "recent" on created_at DESC; VF_SETUP writes A->P, B->P, A->L. */
extern const gchar *VF_LIKES;
extern const gchar *VF_SETUP;
#define VF_INS(v, s, t, ca)                                                                \
  "{\"type\":\"INSERT\",\"edge\":{\"version\":" #v ",\"source\":\"" s "\",\"target\":\"" t \
  "\",\"properties\":{\"created_at\":" #ca "}}}"
/* Counts and scans of likes (sources A, B, C; targets P, L) agree with its
 * State rows (read by get). */
void vf_check_queries (VfEnv *env);
