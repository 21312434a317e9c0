/* The datastore seam: byte keys and values sorted by unsigned byte order
 * (get, multi_get, scan, batch, increment, check-and-put, check-and-delete)
 * behind an opaque AbStore. Backends (backend.h): lmdb, memory, rocksdb, hbase. */
#pragma once
#include <glib.h>

#define AB_STORE_ERROR (ab_store_error_quark ())
GQuark ab_store_error_quark (void);

typedef enum {
  AB_STORE_ERROR_IO,          /* backend failure (disk, network) */
  AB_STORE_ERROR_WIDTH,       /* increment of a value that is not 8 bytes */
  AB_STORE_ERROR_URI,         /* bad store URI */
  AB_STORE_ERROR_UNAVAILABLE, /* backend down / closed */
  AB_STORE_ERROR_INJECTED,    /* fault injection (tests) */
} AbStoreError;

typedef enum {
  AB_MUT_PUT,
  AB_MUT_DELETE,
  AB_MUT_INCREMENT,
  AB_MUT_DELETE_IF, /* delete when the current value equals `value`, else nothing */
  /* An add to a row that holds a counter or nothing (Count rows, group
   * cells): like INCREMENT, but the store may apply it without reading the
   * row (rocksdb: a merge operand), so a row that is not an 8-byte counter
   * is no error: such a row keeps its value (rocksdb) or fails as INCREMENT
   * does (the others). */
  AB_MUT_ADD,
} AbMutationKind;

/* One mutation of a batch; its bytes belong to the batch. */
typedef struct {
  AbMutationKind kind;
  const guint8 *key;
  gsize klen;
  const guint8 *value; /* PUT: the value; DELETE_IF: the expected one; else NULL */
  gsize vlen;
  gint64 delta; /* INCREMENT and ADD only */
} AbMutation;

typedef struct _AbBatchChunk AbBatchChunk;

/* A batch: an ordered list of mutations (applied in order). Keys and values
 * are copied into chunks the batch owns (one allocation for many rows, freed
 * together), so a mutation's pointers live as long as the batch. */
typedef struct {
  GArray *items; /* AbMutation */
  AbBatchChunk *chunks;
  gsize room; /* bytes left in the first chunk */
} AbBatch;

AbBatch *ab_batch_new (void);
void ab_batch_free (AbBatch *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbBatch, ab_batch_free)
/* Drops every mutation (a plan starting again); the first chunk is kept. */
void ab_batch_clear (AbBatch *b);
/* Copies m (its bytes) to the end of b. */
void ab_batch_append (AbBatch *b, const AbMutation *m);
/* Take copies of key/value bytes. */
void ab_batch_put (AbBatch *b, const guint8 *key, gsize klen, const guint8 *val, gsize vlen);
void ab_batch_delete (AbBatch *b, const guint8 *key, gsize klen);
void ab_batch_increment (AbBatch *b, const guint8 *key, gsize klen, gint64 delta);
/* An AB_MUT_ADD: delta to the counter at key, which holds one or nothing. */
void ab_batch_add (AbBatch *b, const guint8 *key, gsize klen, gint64 delta);
/* A conditional delete inside a batch (the engine's lock release riding on
 * its data batch): a mismatch is not an error. On an atomic store it commits
 * with the rest; the hbase backend sends it as a check-and-delete after the
 * batch's other calls, and only when they all succeeded. */
void ab_batch_delete_if (AbBatch *b, const guint8 *key, gsize klen, const guint8 *expected,
                         gsize elen);
guint ab_batch_len (const AbBatch *b);

/* One row of a scan or multi_get. value NULL = absent (multi_get). */
typedef struct {
  GBytes *key;
  GBytes *value;
} AbKv;
void ab_kv_clear (AbKv *kv);
GArray *ab_kv_array_new (void); /* AbKv with clear func */
/* The same for structs of element_size bytes that begin with an AbKv (a
 * row with what the caller keeps beside it), cleared by ab_kv_clear. */
GArray *ab_kv_array_new_of (guint element_size);

typedef struct {
  const guint8 *start;
  gsize start_len; /* NULL = from the beginning */
  gboolean start_inclusive;
  const guint8 *stop;
  gsize stop_len; /* NULL = to the end */
  gboolean stop_inclusive;
  guint limit; /* 0 = no limit */
} AbScanRange;

/* Opaque: only backends see inside (store/backend.h). */
typedef struct _AbStore AbStore;

/* Transactions, for stores whose writers are serialised and whose batches
 * are atomic (lmdb, memory; optional: NULL elsewhere). plan runs inside the
 * store's write transaction, possibly next to other callers' plans in the
 * same transaction (group commit). It reads through `view`, which sees every
 * committed row and the writes of the plans before it in the transaction, and
 * appends its writes to `batch` (never NULL, empty on entry); the store
 * applies them in that transaction. A plan may run more than once (the
 * transaction is retried after a map resize or a neighbour's failure), so it
 * starts from scratch each time. FALSE fails this caller alone: its batch is
 * dropped and the others of the group still commit. done runs exactly once,
 * after the durable commit (error NULL) or the failure (error borrowed),
 * under no store lock, on a thread of the store (lmdb: its completion
 * thread, in commit order, while the next group commits; memory: the
 * caller's). batch stays readable until done returns. */
typedef gboolean (*AbTxnPlan) (AbStore *view, AbBatch *batch, gpointer user, GError **error);
typedef void (*AbTxnDone) (gpointer user, const GError *error);

/* Plans made ahead of their transaction (optional; lmdb). write_seq, taken
 * before the reads a plan is made from, names the commits those reads are
 * sure to see (0: the store keeps no such record). Inside a later
 * transaction, written_since on its view says whether key may have been
 * written since: by a later commit of this process, by a plan before this one
 * in the transaction, or by another process (which voids every earlier
 * seq). TRUE when the store cannot tell; FALSE is a promise that a row read
 * then is the row now, so the plan can skip reading it again. */
guint64 ab_store_write_seq (AbStore *s);
gboolean ab_store_written_since (AbStore *view, guint64 seq, const guint8 *key, gsize klen);

/* Round trips of a backend to a remote server, per remote call: the hbase
 * backend counts each Thrift call attempt by method ("getMultiple", ...) and
 * each TCP connect ("connect"). Local backends have none. */
typedef struct {
  const gchar *name;
  guint64 calls;
  guint64 errors;
  guint64 micros; /* time spent in those calls, failed ones included */
} AbStoreRpcCount;
#define AB_STORE_RPC_MAX 32

/* A consistent read view for long scans (the verifier): every scan through
 * it sees the store as it was when the snapshot was opened. lmdb keeps one
 * read transaction open; hbase fixes a maximum timestamp at open and scans
 * with it. Opaque: backends define it (store/backend.h). */
typedef struct _AbSnapshot AbSnapshot;

/* Called once per row in key order; key and value are borrowed for the call
 * only. Return FALSE to end the scan early (not an error). */
typedef gboolean (*AbScanVisitor) (const guint8 *key, gsize klen, const guint8 *value, gsize vlen,
                                   gpointer user);
/* A visitor that appends a copy of each row to kvs, an ab_kv_array_new. */
gboolean ab_kv_array_append_visit (const guint8 *key, gsize klen, const guint8 *value, gsize vlen,
                                   gpointer kvs);

/* "lmdb:DIR[?mapsize=BYTES&sync=0|1&writemap=0|1]", "memory:" or
 * "hbase://HOST:PORT/NAMESPACE?table=NAME&transport=framed|buffered&
 * protocol=binary|compact&pool=N&timeout_ms=N&regions=N&retries=N&
 * compression=none|gz|lz4|snappy|zstd" (hbase connects lazily: opening
 * succeeds while the gateway is down; calls then fail with UNAVAILABLE; the
 * program ignores SIGPIPE, else a gateway hanging up kills it on send).
 * The scheme picks the backend, which parses the rest. */
AbStore *ab_store_open (const gchar *uri, GError **error);
void ab_store_close (AbStore *s); /* closes and frees (once every ref is closed) */
/* One more owner: each ab_store_ref needs its own ab_store_close. */
AbStore *ab_store_ref (AbStore *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbStore, ab_store_close)

gboolean ab_store_get (AbStore *s, const guint8 *key, gsize klen, GBytes **value, GError **error);
gboolean ab_store_multi_get (AbStore *s, GPtrArray *keys, GArray *out, GError **error);
/* The same for a mutation's reads (State rows, TTL siblings, top-K cells):
 * a backend that batches remote calls may make it wait for other callers'
 * reads and send them together (hbase, docs/hbase-adapter.md §3.9), which
 * saves calls at some latency; queries use ab_store_multi_get. */
gboolean ab_store_multi_get_shared (AbStore *s, GPtrArray *keys, GArray *out, GError **error);
gboolean ab_store_scan (AbStore *s, const AbScanRange *range, GArray *out, GError **error);
gboolean ab_store_batch (AbStore *s, const AbBatch *b, GError **error);
/* The same reads without copies where the backend can (lmdb): the visitor
 * sees borrowed bytes, valid for the call only. get_with calls visit once,
 * with NULL and 0 when the key is absent (visit's return is ignored);
 * scan_with once per row in key order until it returns FALSE. Other
 * backends answer through get and scan. */
gboolean ab_store_get_with (AbStore *s, const guint8 *key, gsize klen, AbScanVisitor visit,
                            gpointer user, GError **error);
gboolean ab_store_scan_with (AbStore *s, const AbScanRange *range, AbScanVisitor visit,
                             gpointer user, GError **error);
gboolean ab_store_increment (AbStore *s, const guint8 *key, gsize klen, gint64 delta,
                             gint64 *new_value, GError **error);
gboolean ab_store_check_and_put (AbStore *s, const guint8 *key, gsize klen, const guint8 *expected,
                                 gsize elen, const guint8 *value, gsize vlen, gboolean *applied,
                                 GError **error);
gboolean ab_store_check_and_delete (AbStore *s, const guint8 *key, gsize klen,
                                    const guint8 *expected, gsize elen, gboolean *applied,
                                    GError **error);
gboolean ab_store_batch_is_atomic (AbStore *s);
/* Visits every sidecar cell of the store (codec/keys.h: key = row || 0xFF ||
 * tag || id), in no promised order: the engine's sweep for intents left
 * by dead nodes and receipts left behind. On HBase one filtered scanner
 * over the whole table; elsewhere a scan of every key. */
gboolean ab_store_scan_sidecars (AbStore *s, AbScanVisitor visit, gpointer user, GError **error);
/* A one-shot wait for an asynchronous completion (the synchronous forms of
 * the *_async calls): init, ab_wait_signal once from any thread, then
 * ab_wait_until_signalled returns and clears it. */
typedef struct {
  GMutex lock;
  GCond cond;
  gboolean signalled;
} AbWait;
void ab_wait_init (AbWait *w);
void ab_wait_signal (AbWait *w);
void ab_wait_until_signalled (AbWait *w);

/* TRUE when the store runs plans in its write transaction (see AbTxnPlan). */
gboolean ab_store_can_transact (AbStore *s);
/* Asynchronous: done is called once the plan's writes are durable or failed
 * (possibly before this returns, on a store that commits inline). */
void ab_store_transact_async (AbStore *s, AbTxnPlan plan, AbTxnDone done, gpointer user);
/* The same, waiting for the outcome. */
gboolean ab_store_transact (AbStore *s, AbTxnPlan plan, gpointer user, GError **error);
/* TRUE when no call can wait on something outside this process (lmdb,
 * memory): callers may then run reads on threads that must never stall. */
gboolean ab_store_never_blocks (AbStore *s);
/* The longest key (bytes) a write may carry: callers refuse longer ones up
 * front, per key, instead of failing a whole batch. */
gsize ab_store_max_key (AbStore *s);

/* Snapshots: open, scan any number of ranges, close. A snapshot outlives
 * nothing: close it before its store. lmdb: while a snapshot is open this
 * process cannot grow the map, so do not write from the thread holding it. */
AbSnapshot *ab_store_snapshot_open (AbStore *s, GError **error);
gboolean ab_snapshot_scan (AbSnapshot *snap, const AbScanRange *range, AbScanVisitor visit,
                           gpointer user, GError **error);
/* One row of the snapshot: *value is a new GBytes, or NULL when the key is
 * absent from the snapshot's view (a TRUE answer either way). */
gboolean ab_snapshot_get (AbSnapshot *snap, const guint8 *key, gsize klen, GBytes **value,
                          GError **error);
void ab_snapshot_close (AbSnapshot *snap);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbSnapshot, ab_snapshot_close)

/* A copy of the whole store in the backend's own file format, taken at one
 * consistent point while others keep writing (lmdb: mdb_env_copy2 with
 * MDB_CP_COMPACT into DIR/data.mdb; rocksdb: a checkpoint, hard links to its
 * table files; the copy opens as KIND:DIR, KIND being ab_store_kind). dir
 * is created if absent and must be empty. Stores without one fail with
 * AB_STORE_ERROR_UNAVAILABLE. */
gboolean ab_store_native_backup (AbStore *s, const gchar *dir, GError **error);
/* The backend's name, its URI scheme: "lmdb", "rocksdb", "memory", "hbase". */
const gchar *ab_store_kind (AbStore *s);
/* Makes every write acknowledged so far durable on a store opened with
 * sync=0 (lmdb: an fsync of the data file; rocksdb: of its write-ahead
 * log); a no-op elsewhere. */
gboolean ab_store_sync (AbStore *s, GError **error);
/* The URI a native copy that ab_store_native_backup made of s in dir is
 * read by without changing its files (rocksdb: read-only). */
gchar *ab_store_native_uri (AbStore *s, const gchar *dir);

/* What a tool may ask of a store URI before opening it (local_uri.c): the
 * directory a local store (lmdb:DIR, rocksdb:DIR) lives in, resolved when
 * it exists, or NULL for the others (two URIs of one directory are one
 * store); and whether such a store acknowledges commits before they are
 * durable (its last sync= parameter is 0: ab_store_sync makes them so). */
gchar *ab_store_uri_dir (const gchar *uri);
gboolean ab_store_uri_defers_sync (const gchar *uri);

/* ---- sorted loads ----
 * Rows in strictly increasing key order, written the fastest way a store
 * has for a tool that has the store to itself (restore): on rocksdb a table
 * file written beside the database and ingested whole at each commit (no
 * log, no memtable; the file lands in the lowest level it does not overlap).
 * ab_store_load_new returns NULL when the store has none: write batches.
 * Rows put are neither seen nor durable until ab_store_load_commit; a key
 * out of order fails the put. Free without a commit drops what was put
 * since the last one. Plans made ahead (ab_store_write_seq) before a commit
 * re-read every row after it. */
typedef struct _AbStoreLoad AbStoreLoad;
AbStoreLoad *ab_store_load_new (AbStore *s);
gboolean ab_store_load_put (AbStoreLoad *l, const guint8 *key, gsize klen, const guint8 *value,
                            gsize vlen, GError **error);
/* Makes every row put so far durable and seen; the load goes on after. */
gboolean ab_store_load_commit (AbStoreLoad *l, GError **error);
/* The table files committed so far (what a tool reports). */
guint ab_store_load_files (AbStoreLoad *l);
void ab_store_load_free (AbStoreLoad *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbStoreLoad, ab_store_load_free)

/* Convenience writes: a one-mutation batch. */
gboolean ab_store_put (AbStore *s, const guint8 *key, gsize klen, const guint8 *val, gsize vlen,
                       GError **error);
gboolean ab_store_delete (AbStore *s, const guint8 *key, gsize klen, GError **error);

/* The order of the seam: unsigned bytes, then the shorter first on a tie. */
gint ab_store_key_compare (const guint8 *a, gsize alen, const guint8 *b, gsize blen);

/* Operation counters of one store handle (for /metrics). */
typedef enum {
  AB_STORE_VERB_GET,
  AB_STORE_VERB_MULTI_GET,
  AB_STORE_VERB_SCAN,
  AB_STORE_VERB_BATCH,
  AB_STORE_VERB_INCREMENT,
  AB_STORE_VERB_CHECK_AND_PUT,
  AB_STORE_VERB_CHECK_AND_DELETE,
  AB_STORE_VERB_COUNT,
} AbStoreVerb;

typedef struct {
  guint64 ops[AB_STORE_VERB_COUNT];    /* calls, failed or not */
  guint64 errors[AB_STORE_VERB_COUNT]; /* calls that returned FALSE */
} AbStoreStats;

/* A snapshot of the counters (all zero for a handle not made by ab_store_open). */
void ab_store_stats (AbStore *s, AbStoreStats *out);
const gchar *ab_store_verb_name (AbStoreVerb verb); /* "get", "multi_get", ... */

/* TRUE when the backend answers now (hbase: one call through the gateway,
 * creating the table on first use; local backends: always). */
gboolean ab_store_ping (AbStore *s, GError **error);
/* Fills out[0..n) with the remote call counts and returns n (<= max; 0 for
 * local backends). Sum the calls of two snapshots to count round trips. */
guint ab_store_rpc_counts (AbStore *s, AbStoreRpcCount *out, guint max);

/* A figure a backend reports about its own health (for /metrics), as one
 * Prometheus series without labels: rocksdb's compaction debt, write stalls,
 * memtable and block cache memory, block cache hits and misses; hbase's
 * shared calls and the callers they carried. */
typedef enum {
  AB_STORE_GAUGE,   /* a level that goes up and down */
  AB_STORE_COUNTER, /* a total that only grows (its name ends in _total) */
} AbStoreGaugeType;

typedef struct {
  const gchar *name; /* the series, "actionbase_store_<backend>_..." (static) */
  const gchar *help; /* one line for # HELP (static) */
  AbStoreGaugeType type;
  gdouble value; /* bytes and counts are whole numbers; times are in seconds */
} AbStoreGauge;
#define AB_STORE_GAUGE_MAX 16

/* Fills out[0..n) with the backend's figures of now and returns n (<= max;
 * 0 for backends that report none: memory, lmdb). Reads only what the
 * backend keeps in memory: never waits on I/O or a remote server. */
guint ab_store_gauges (AbStore *s, AbStoreGauge *out, guint max);

/* ---- where a write lands, for change records ---- */

/* The HBase layout Actionbase's tables share, whichever backend holds the
 * key: a key's coordinates as (name, bytes), in the order change records list
 * them (family, qualifier, row). data points into key or static storage. */
typedef struct {
  const gchar *name;
  const guint8 *data;
  gsize len;
} AbStoreCoord;
#define AB_STORE_COORDS 3
void ab_store_cell_coords (const guint8 *key, gsize klen, AbStoreCoord out[AB_STORE_COORDS]);
/* HBase's name of a mutation kind ("Put", "Delete", "Increment",
 * "CheckAndDelete"); "UNKNOWN" past the known kinds. */
const gchar *ab_store_mutation_name (AbMutationKind kind);
