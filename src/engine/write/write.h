/* The write path, the face of src/engine/write to the other engine folders:
 * mutation bodies parsed into key groups, the lock protocol and the healing
 * of cut writes, applying keys, WAL and CDC records. Not for use outside src/engine. */
#pragma once
#include "engine/core/core.h"
#include "engine/derive.h"
#include "wal/sink.h"

/* Lock protocol (docs/data-model.md §6), one attempt at a time: TAKEN sets *token
 * to our lock value; BUSY means another writer holds it (attempt 0 sweeps a
 * stale lock and tries once more) and attempts remain; FAILED sets error
 * (CONFLICT once lock_retries attempts found it held, or once deadline_us
 * has passed, the first attempt's included: no call starts after it). The caller retries a
 * BUSY lock after ab_engine_lock_backoff_ms (jittered), without waiting. */
typedef enum { AB_LOCK_TAKEN, AB_LOCK_BUSY, AB_LOCK_FAILED } AbLockTry;
AbLockTry ab_engine_lock_try (AbEngine *engine, GBytes *lock_key, guint attempt, gint64 deadline_us,
                              GBytes **token, GError **error);
guint ab_engine_lock_backoff_ms (AbEngine *engine);
/* A lock row older than lock_stale_ms: one holding an intent is taken over
 * and its write replayed (ab_engine_heal_stale), a bare one deleted; a
 * fresh or absent lock is left alone. No call starts after deadline_us (0:
 * none): a replay it stops goes to this node's healer. */
void ab_engine_lock_sweep (AbEngine *engine, GBytes *lock_key, gint64 deadline_us);
/* (ab_engine_lock, the same with the retries slept through: derive.h) */

/* Writes cut between their waves, healed online (heal.c; docs/architecture.md,
 * "Cut writes heal online"). A write is named by a random 64-bit number, a key of it by the
 * write and its index: that id is in the key's intent and its receipts. */
typedef struct _AbHeal AbHeal;
#define AB_HEAL_ID_LEN 12
void ab_engine_heal_start (AbEngine *engine);
void ab_engine_heal_stop (AbEngine *engine);
/* TRUE when writes keep intents and receipts: heal on, batches not atomic. */
gboolean ab_engine_heals (AbEngine *engine);
guint64 ab_heal_new_write (void);
void ab_heal_write_id (guint8 id[AB_HEAL_ID_LEN], guint64 write, guint32 key);
/* The key of a lock row's intent cell; the intent of one key's rows (its
 * puts, deletes and Count adds). */
GBytes *ab_heal_intent_key (GBytes *lock_key);
GBytes *ab_heal_intent_new (const guint8 id[AB_HEAL_ID_LEN], const AbBatch *rows);
/* Appends to batch a receipt (+1) for each Count add of rows. */
void ab_heal_add_receipts (AbBatch *batch, const guint8 id[AB_HEAL_ID_LEN], const AbBatch *rows);
/* TRUE for a store failure a retry may not meet (unreachable, failing). */
gboolean ab_engine_heal_transient (const GError *error);
/* A write whose data wave failed, or whose release did: this node keeps
 * the lock (token) and replays the intent every heal_retry_ms until done. */
void ab_engine_heal_later (AbEngine *engine, GBytes *lock_key, GBytes *token, GBytes *intent);
/* Queues the deletes of an intent's receipts, once its lock row (and with
 * it the intent) is gone: the healer deletes the queue in one batch 100 ms
 * after its first entry. A replayed write's receipts are first read again
 * (10 heal_retry_ms later) and any Count add applied more than once taken
 * back. ab_engine_heal_flush does both now. */
void ab_engine_heal_forget (AbEngine *engine, GBytes *intent);
void ab_engine_heal_flush (AbEngine *engine);
/* One retry round over the pending writes now (the healer's every
 * heal_retry_ms): on up to 8 threads, ended by the first write the store
 * still refuses (the rest wait for the next round). */
void ab_engine_heal_retry_now (AbEngine *engine);
/* A stale lock `held` with an intent: take the lock over and replay it.
 * TRUE when the write was finished and the lock released. Once deadline_us
 * (0: none) has passed no call starts: a lock taken over by then goes to
 * this node's healer, which finishes the replay. */
gboolean ab_engine_heal_stale (AbEngine *engine, GBytes *lock_key, GBytes *held, GBytes *intent,
                               gint64 deadline_us);
typedef struct {
  guint pending;   /* writes this node holds the locks of and replays */
  guint64 healed;  /* writes finished by a replay */
  guint64 sweeps;  /* table sweeps done */
  guint64 orphans; /* receipts left behind that the sweeps deleted */
  guint rechecks;  /* replayed writes whose receipts are read again before deletion */
  guint64 excess;  /* Count adds of replayed writes found applied twice or more, taken back */
} AbHealStats;
void ab_engine_heal_stats (AbEngine *engine, AbHealStats *out);
/* One sweep of the table's sidecar cells (every heal_sweep_ms on the healer
 * thread): every intent whose lock is stale is replayed, as a writer of
 * its key would (ab_engine_lock_sweep), and receipts whose write has had
 * no intent for 10 s (engine clock) over two sweeps are deleted. */
gboolean ab_engine_heal_sweep (AbEngine *engine, GError **error);
/* Its /metrics lines (where writes heal). */
void ab_engine_heal_metrics (AbEngine *engine, GString *out);

/* Parsing of mutation bodies into events (events.c). One key group per
 * distinct (source, target) or id, events in request order. */
typedef struct {
  AbValue source;    /* multi-edge and vertex: id */
  AbValue target;    /* multi-edge: null; vertex: "-" */
  GPtrArray *events; /* AbEvent*, owned */
  gchar *sort_key;   /* "<source>:<target>", or the id's text (multi-edge, vertex) */
} AbKeyGroup;

void ab_key_group_free (AbKeyGroup *g);
/* Returns AbKeyGroup* array (owned), or NULL + 400 error. vertex_items: the
 * items are {type, vertex:{version, id, properties}} (the /vertices
 * endpoints), else {type, edge:{...}}. */
GPtrArray *ab_engine_parse_mutations (const AbTableDesc *t, JsonNode *body, gboolean vertex_items,
                                      gboolean insert_merge, guint max_items, GError **error);
/* The same from typed items (the library), with the same rules. */
GPtrArray *ab_engine_group_items (const AbTableDesc *t, const AbMutationItem *items, guint n_items,
                                  gboolean insert_merge, guint max_items, GError **error);
/* The key of a group's WAL and CDC records: "<source>:<target>" ("<id>:-"
 * for a vertex), or the id of a multi-edge. */
gchar *ab_key_group_record_key (const AbTableDesc *t, const AbKeyGroup *g);

/* WAL and CDC records (records.c). */
typedef struct {
  const AbTableDesc *table;
  const gchar *alias; /* NULL unless an alias was used */
  const AbMutateOptions *opts;
  AbMutationMode table_mode;
  gint system_mode; /* -1 none */
  gboolean queued;
} AbWalContext;

/* One WAL record per event of every group (AbSinkRecord*). */
GPtrArray *ab_engine_wal_records (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups);
/* The CDC record of one applied key. */
AbSinkRecord *ab_engine_cdc_record (AbEngine *engine, const AbWalContext *ctx, const AbKeyGroup *g,
                                    const AbKeyResult *r, const AbState *before,
                                    const AbState *after);

/* Applies the key groups of a SYNC request (apply.c); fills results[i]
 * for groups[i] and emits their CDC records. */
void ab_engine_apply (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups,
                      GArray *results);
/* The same without waiting: done(refused, user) runs once every result is
 * filled and the CDC records are out (on the store's completion thread, or
 * before this returns on a store without transactions). ctx, groups and
 * results must live until then. refused is set (borrowed for the call) when
 * the store turned the request's one atomic batch away as unavailable (a
 * full disk, a read-only store): nothing of it was written, each planned
 * key is ERROR with that reason. */
typedef void (*AbApplyDone) (const GError *refused, gpointer user);
void ab_engine_apply_async (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups,
                            GArray *results, AbApplyDone done, gpointer user);

/* Cache rows written since the maintenance thread's last round (cache_note.c):
 * noted by the write path while the thread runs (between start and stop),
 * taken by the thread to trim (GBytes row -> GUINT_TO_POINTER (bound), owned),
 * noted again when a round leaves one unfinished. */
void ab_engine_cache_notes_start (AbEngine *engine);
void ab_engine_cache_notes_stop (AbEngine *engine);
void ab_engine_cache_note (AbEngine *engine, const AbTableDesc *t, const AbBatch *b);
void ab_engine_cache_renote (AbEngine *engine, GBytes *row, guint bound);
GHashTable *ab_engine_cache_notes_take (AbEngine *engine);
