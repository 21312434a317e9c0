/* Private to src/store/ and the store suites: what a backend fills in (the
 * vtable, and the AbStore / AbSnapshot structs it embeds first in its own),
 * and each backend's URI opener, which store.c picks by the URI's scheme. */
#pragma once
#include <stdatomic.h>
#include "store/store.h"

/* The data verbs as function types: the vtable points to them, and a
 * backend's private header declares the verbs its files share through them
 * (AbStoreTransactFn ab_lmdb_transact;). What each does: the vtable below
 * and store.h's ab_store_* of the same name. */
typedef gboolean AbStoreGetFn (AbStore *s, const guint8 *key, gsize klen, GBytes **value,
                               GError **error);
typedef gboolean AbStoreMultiGetFn (AbStore *s, GPtrArray *keys, GArray *out, GError **error);
typedef gboolean AbStoreScanFn (AbStore *s, const AbScanRange *range, GArray *out, GError **error);
typedef gboolean AbStoreGetWithFn (AbStore *s, const guint8 *key, gsize klen, AbScanVisitor visit,
                                   gpointer user, GError **error);
typedef gboolean AbStoreScanWithFn (AbStore *s, const AbScanRange *range, AbScanVisitor visit,
                                    gpointer user, GError **error);
typedef gboolean AbStoreBatchFn (AbStore *s, const AbBatch *b, GError **error);
typedef gboolean AbStoreIncrementFn (AbStore *s, const guint8 *key, gsize klen, gint64 delta,
                                     gint64 *new_value, GError **error);
typedef gboolean AbStoreCheckAndPutFn (AbStore *s, const guint8 *key, gsize klen,
                                       const guint8 *expected, gsize elen, const guint8 *value,
                                       gsize vlen, gboolean *applied, GError **error);
typedef gboolean AbStoreCheckAndDeleteFn (AbStore *s, const guint8 *key, gsize klen,
                                          const guint8 *expected, gsize elen, gboolean *applied,
                                          GError **error);
typedef void AbStoreTransactFn (AbStore *s, AbTxnPlan plan, AbTxnDone done, gpointer user);

/* ---- a write queued for a committer thread (lmdb, rocksdb) ----
 * One caller's write, on its stack until the committer has answered, or
 * (TXN) on the heap until its done callback has run. The backend owns the
 * queue and how a caller waits: `wait` points to the caller's own (lmdb a
 * done flag under its queue lock, rocksdb an AbWait). */
typedef enum {
  AB_QUEUED_BATCH,
  AB_QUEUED_INCREMENT,
  AB_QUEUED_CHECK_AND_PUT,
  AB_QUEUED_CHECK_AND_DELETE,
  AB_QUEUED_TXN,
  AB_QUEUED_INGEST, /* rocksdb: a sorted load's table file, ingested alone between groups */
} AbQueuedKind;

typedef struct {
  AbQueuedKind kind;
  const AbBatch *batch;                 /* BATCH */
  const guint8 *key, *expected, *value; /* INCREMENT, CHECK_AND_PUT/DELETE */
  gsize klen, elen, vlen;
  gboolean has_expected;
  gint64 delta;
  AbTxnPlan plan; /* TXN: fills txn_batch through a view of the group */
  AbTxnDone on_done;
  gpointer user;
  AbBatch *txn_batch;
  const gchar *path; /* INGEST */
  gint64 new_value;  /* outcome, written by the committer before it answers */
  gboolean applied;
  GError *error;
  gpointer wait; /* the waiting caller's, the backend's own type; NULL for TXN */
} AbQueuedWrite;

/* A TXN request for AbStoreVTable.transact to queue; the committer answers
 * it with ab_queued_txn_finish, which calls on_done and frees it. */
AbQueuedWrite *ab_queued_txn_new (AbTxnPlan plan, AbTxnDone on_done, gpointer user);
void ab_queued_txn_finish (AbQueuedWrite *w);

/* A verb left NULL has the default its comment names (store.c), so a
 * backend names only what it does itself: a store or view that reads by
 * visits (get_with, scan_with) gets get, multi_get and scan from them, and a
 * plan's view (no batch) refuses writes. */
typedef struct {
  const gchar *name;
  /* *value = NULL when absent. NULL: get_with, the value copied. */
  AbStoreGetFn *get;
  /* keys: GBytes*; out receives one AbKv per key, same order, value NULL if
   * absent. NULL: get, key by key. */
  AbStoreMultiGetFn *multi_get;
  /* Optional (hbase): multi_get that may share its call with other callers'
   * (ab_store_multi_get_shared); NULL: multi_get stands in. */
  AbStoreMultiGetFn *multi_get_shared;
  /* Forward scan; appends AbKv to out. NULL: scan_with, each row copied. */
  AbStoreScanFn *scan;
  /* Zero-copy reads (NULL: get and scan stand in); see ab_store_get_with.
   * A backend gives get or get_with, and scan or scan_with. */
  AbStoreGetWithFn *get_with;
  AbStoreScanWithFn *scan_with;
  /* A store whose writes go through a committer's queue: hands it the
   * request and returns once it is durable or failed (w->error taken into
   * error). With it, batch, increment, check_and_put and check_and_delete
   * may be NULL: store.c builds their requests, every key already checked
   * against max_key. */
  gboolean (*submit) (AbStore *s, AbQueuedWrite *w, GError **error);
  /* NULL: submit. A store with neither this nor submit is a plan's view
   * of its transaction, which refuses every write (plans write through
   * their batch). */
  AbStoreBatchFn *batch;
  /* Absent = 0; non-8-byte value = AB_STORE_ERROR_WIDTH. NULL: submit. */
  AbStoreIncrementFn *increment;
  /* expected == NULL: put if absent. Else put if current == expected.
   * *applied says whether it happened. NULL: submit. */
  AbStoreCheckAndPutFn *check_and_put;
  /* Delete if current == expected. expected == NULL: applied iff absent
   * (deletes nothing). NULL: submit. */
  AbStoreCheckAndDeleteFn *check_and_delete;
  void (*close) (AbStore *s);
  /* Snapshots (optional: NULL = AB_STORE_ERROR_UNAVAILABLE). snapshot_scan
   * honours the whole AbScanRange, limit included. */
  AbSnapshot *(*snapshot_open) (AbStore *s, GError **error);
  gboolean (*snapshot_scan) (AbSnapshot *snap, const AbScanRange *range, AbScanVisitor visit,
                             gpointer user, GError **error);
  void (*snapshot_close) (AbSnapshot *snap);
  /* Optional (NULL for local backends): reachability and remote call counts. */
  gboolean (*ping) (AbStore *s, GError **error);
  guint (*rpc_counts) (AbStore *s, AbStoreRpcCount *out, guint max);
  /* Optional (rocksdb): the backend's health figures, see ab_store_gauges. */
  guint (*gauges) (AbStore *s, AbStoreGauge *out, guint max);
  /* Optional: queue plan for the next group commit and return at once;
   * done is called later (see AbTxnPlan). */
  AbStoreTransactFn *transact;
  /* Optional (lmdb, rocksdb): a consistent copy of the whole store in the
   * store's own file format into dir (created if absent, must be empty). */
  gboolean (*native_backup) (AbStore *s, const gchar *dir, GError **error);
  /* Optional (rocksdb): the URI parameters a native copy is read with so
   * that reading leaves its files as they are (ab_store_native_uri). */
  const gchar *native_read_params;
  /* Optional (rocksdb): a sorted load of s (see ab_store_load_new). */
  AbStoreLoad *(*load_new) (AbStore *s);
  /* Optional (lmdb, rocksdb): acknowledged writes made durable (sync=0). */
  gboolean (*sync) (AbStore *s, GError **error);
  /* Optional (lmdb), see ab_store_write_seq and ab_store_written_since; the
   * second is called on a transaction's view. */
  guint64 (*write_seq) (AbStore *s);
  gboolean (*written_since) (AbStore *view, guint64 seq, const guint8 *key, gsize klen);
  /* Optional (hbase, and wrappers): see ab_store_scan_sidecars; NULL: a
   * scan of every key stands in. */
  gboolean (*scan_sidecars) (AbStore *s, AbScanVisitor visit, gpointer user, GError **error);
} AbStoreVTable;

/* What a backend's sorted load does (store.h): put, commit and free; the
 * backend embeds AbStoreLoad first in its own struct. */
typedef struct {
  gboolean (*put) (AbStoreLoad *l, const guint8 *key, gsize klen, const guint8 *value, gsize vlen,
                   GError **error);
  gboolean (*commit) (AbStoreLoad *l, GError **error);
  void (*free) (AbStoreLoad *l);
} AbStoreLoadVTable;

struct _AbStoreLoad {
  const AbStoreLoadVTable *vt;
  guint files; /* committed table files */
};

typedef struct _AbStoreCounters AbStoreCounters;

/* HBase's row key limit (Short.MAX_VALUE bytes). */
#define AB_STORE_HBASE_MAX_KEY 32767

struct _AbStore {
  const AbStoreVTable *vt;
  gboolean batch_atomic;    /* TRUE: a batch is all-or-nothing */
  gboolean never_blocks;    /* TRUE: every call finishes in bounded local time (no
                            * network, no remote server that can stall); FALSE
                            * (the zeroed default) when a call can wait on a peer */
  gsize max_key;            /* the longest key accepted, in bytes (lmdb 511, hbase
                            * and memory 32767: HBase's row key limit) */
  gboolean sidecars_in_row; /* TRUE (hbase): a narrow row's sidecar cells are
                             * cells of its row and go with it; FALSE: they
                             * are keys of their own, which check_and_delete
                             * removes after the row (store.c) */
  gchar *uri;
  AbStoreCounters *counters; /* owned by store.c; NULL = not counted */
  atomic_int extra_refs;     /* ab_store_ref calls not yet closed (0: one owner) */
};

/* Backends embed this struct first in their snapshots. */
struct _AbSnapshot {
  AbStore *store; /* the backend store that made it (its vt closes it) */
};

/* Each backend parses its own URI: `uri` is the whole text (for messages),
 * `rest` what follows "SCHEME:". store.c owns uri and counters and frees them
 * before calling vt->close, which frees the rest. */
AbStore *ab_store_memory_open (const gchar *uri, const gchar *rest, GError **error);
/* lmdb:DIR[?mapsize=BYTES&sync=0|1&writemap=0|1] (lmdb_uri.c). */
AbStore *ab_store_lmdb_open (const gchar *uri, const gchar *rest, GError **error);
/* hbase://HOST:PORT/NAMESPACE?... (hbase_uri.c, hbase.c); connects lazily. */
AbStore *ab_store_hbase_open (const gchar *uri, const gchar *rest, GError **error);

/* For transact implementations: every key of b is non-empty and, when
 * max_key > 0, at most max_key bytes; else FALSE with the reason. */
gboolean ab_backend_check_batch (const AbBatch *b, gsize max_key, GError **error);
/* The same for one key of klen bytes. */
gboolean ab_backend_check_key (gsize klen, gsize max_key, GError **error);

/* The state a local backend keeps per directory and process, shared by its
 * handles (shared_dir.c): embedded first in the backend's own struct. The
 * backend's make sets path (owned, the canonical directory); the registry
 * counts the references. */
typedef struct {
  gint refs;   /* under the registry's lock */
  gchar *path; /* the canonical directory */
} AbSharedDir;
typedef struct {
  GMutex lock;
  GHashTable *by_path; /* path -> AbSharedDir*; made on first use */
} AbDirRegistry;       /* a backend's static one, zero-initialised */
typedef AbSharedDir *(*AbSharedDirNew) (const gchar *path, gconstpointer options, GError **error);
/* The state of dir (created if absent, canonicalised): the one already
 * open in this process, or make's. NULL with error naming backend. */
AbSharedDir *ab_dir_registry_acquire (AbDirRegistry *r, const gchar *dir, const gchar *backend,
                                      AbSharedDirNew make, gconstpointer options, GError **error);
/* Drops a reference: TRUE when it was the last, and the caller frees d. */
gboolean ab_dir_registry_release (AbDirRegistry *r, AbSharedDir *d);

/* URI parameters of the local backends (uri_params.c): a size "1048576",
 * "64k", "16m" or "1g" (powers of 1024, not 0), and name=0 or name=1. */
gboolean ab_store_parse_size (const gchar *text, gsize *out);
/* DIR[?NAME=VALUE&...]: each parameter to param (which fills options), and
 * the directory (owned) back; NULL with error for an empty directory, in
 * the words of shape ("lmdb:DIR[?...]"), or param's error. */
typedef gboolean (*AbStoreUriParam) (const gchar *param, gpointer options, GError **error);
gchar *ab_store_uri_parse (const gchar *rest, const gchar *shape, AbStoreUriParam param,
                           gpointer options, GError **error);
gboolean ab_store_parse_flag (const gchar *param, const gchar *name, gboolean *flag);
/* "rocksdb:DIR[?memory=BYTES&sync=0|1]" (rocksdb_uri.c, rocksdb.c). */
AbStore *ab_store_rocksdb_open (const gchar *uri, const gchar *rest, GError **error);
