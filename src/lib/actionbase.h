/**
 * @file actionbase.h
 * libactionbase: the Actionbase engine as a C library (docs/library.md).
 * One handle per store URI; typed edges, batches, reads and iterators, no
 * JSON on the data path; errors as GError in the AB_DB_ERROR domain.
 *
 * Ownership: a function returning a pointer the caller must release says
 * which *_free to call; AbDbValue strings returned by the library are
 * borrowed from the object they came from and live as long as it does;
 * AbDbValue strings passed in are copied before the call returns. Every
 * *_free accepts NULL.
 *
 * Threads: an AbDb may be used from any number of threads at once; every
 * other object (batch, results, edges, iterator, poll, agg) belongs to one
 * thread at a time. The same LMDB store may be opened by several processes
 * at once; a RocksDB store by one process at a time.
 *
 * Misuse is reported, never ignored: a NULL handle, name or required
 * argument makes a call taking a GError fail with AB_DB_ERROR_INVALID
 * naming it; a batch built wrongly makes the mutation fail the same way
 * (ab_db_batch_set); an index past an object's length makes an accessor
 * log a GLib critical warning and return its type's empty value (0, NULL,
 * a null AbDbValue).
 *
 * Growth: public structs end in reserved room (zero it: start from {0} or
 * the *_init call), so a later minor version can add members without
 * changing their size.
 */
#ifndef ACTIONBASE_H
#define ACTIONBASE_H

#include <glib.h>

G_BEGIN_DECLS

#if defined(__GNUC__)
#define AB_DB_API __attribute__ ((visibility ("default")))
#else
#define AB_DB_API
#endif

/** The version this header belongs to; MAJOR follows the SONAME. */
#define AB_DB_VERSION_MAJOR 0
/** The minor version: calls and struct members added. */
#define AB_DB_VERSION_MINOR 1
/** The micro version: fixes only. */
#define AB_DB_VERSION_MICRO 0
/** TRUE when this header is version major.minor.micro or later. */
#define AB_DB_CHECK_VERSION(major, minor, micro)                        \
  (AB_DB_VERSION_MAJOR > (major)                                        \
   || (AB_DB_VERSION_MAJOR == (major) && AB_DB_VERSION_MINOR > (minor)) \
   || (AB_DB_VERSION_MAJOR == (major) && AB_DB_VERSION_MINOR == (minor) \
       && AB_DB_VERSION_MICRO >= (micro)))

/**
 * ab_db_version: the version of the library loaded at run time,
 * "MAJOR.MINOR.MICRO" (static storage; do not free). It may be newer than
 * the AB_DB_VERSION_* of the header a program was built with, never of
 * another MAJOR.
 */
AB_DB_API const char *ab_db_version (void);

/* ---- errors ---- */

/** AB_DB_ERROR: the error domain of every call. */
#define AB_DB_ERROR (ab_db_error_quark ())
/** ab_db_error_quark: the quark behind AB_DB_ERROR. */
AB_DB_API GQuark ab_db_error_quark (void);

/**
 * AbDbError:
 * - AB_DB_ERROR_INVALID: bad input or a misused call (a REST client would
 *   get 400); nothing was written
 * - AB_DB_ERROR_NOT_FOUND: no such database, table, alias, queue or prepared
 *   query (404)
 * - AB_DB_ERROR_CONFLICT: the object is in a state the call cannot proceed
 *   from now (a queue that must be disabled first, or enabled); the same
 *   call may succeed once that state changes (409)
 * - AB_DB_ERROR_UNAVAILABLE: the store or the WAL does not answer (503)
 * - AB_DB_ERROR_INTERNAL: anything else (500)
 * - AB_DB_ERROR_EXISTS: the name is taken: a database, table, alias or
 *   queue created twice (409; CONFLICT before version 0.1.0's header)
 *
 * A key's lock held by another writer is not a call's error: that key's
 * result is AB_DB_ERRORED with the reason (ab_db_results_message).
 */
typedef enum {
  AB_DB_ERROR_INVALID,
  AB_DB_ERROR_NOT_FOUND,
  AB_DB_ERROR_CONFLICT,
  AB_DB_ERROR_UNAVAILABLE,
  AB_DB_ERROR_INTERNAL,
  AB_DB_ERROR_EXISTS,
} AbDbError;

/* ---- values ---- */

/**
 * AbDbType: the kinds of a typed value. Integers of every schema width are
 * AB_DB_LONG, floats of both widths AB_DB_DOUBLE; an "object" property is
 * AB_DB_JSON (its JSON text).
 */
typedef enum {
  AB_DB_NULL,
  AB_DB_BOOL,
  AB_DB_LONG,
  AB_DB_DOUBLE,
  AB_DB_STRING,
  AB_DB_JSON,
} AbDbType;

/** AbDbValue: a typed scalar passed by value; s is NUL-terminated UTF-8. */
typedef struct {
  AbDbType type;
  union {
    gboolean b;
    gint64 l;
    gdouble d;
    const char *s;
  } u;
} AbDbValue;

/** ab_db_null: the null value (an explicit null property). */
static inline AbDbValue
ab_db_null (void)
{
  AbDbValue v = { AB_DB_NULL, { 0 } };
  return v;
}

/** ab_db_bool: a boolean value. */
static inline AbDbValue
ab_db_bool (gboolean b)
{
  AbDbValue v = { AB_DB_BOOL, { 0 } };
  v.u.b = b;
  return v;
}

/** ab_db_long: an integer value, of any schema width. */
static inline AbDbValue
ab_db_long (gint64 l)
{
  AbDbValue v = { AB_DB_LONG, { 0 } };
  v.u.l = l;
  return v;
}

/** ab_db_double: a floating-point value, of either schema width. */
static inline AbDbValue
ab_db_double (gdouble d)
{
  AbDbValue v = { AB_DB_DOUBLE, { 0 } };
  v.u.d = d;
  return v;
}

/** ab_db_string: a string value viewing s (not copied here; see the calls). */
static inline AbDbValue
ab_db_string (const char *s)
{
  AbDbValue v = { AB_DB_STRING, { 0 } };
  v.u.s = s;
  return v;
}

/** ab_db_json: an "object" property as its JSON text, viewing json_text. */
static inline AbDbValue
ab_db_json (const char *json_text)
{
  AbDbValue v = { AB_DB_JSON, { 0 } };
  v.u.s = json_text;
  return v;
}

/* ---- the handle ---- */

/** AbDb: an open store and its catalog; used from any number of threads. */
typedef struct _AbDb AbDb;

/**
 * AbDbOptions: what ab_db_open may be told; start from ab_db_options_init.
 * - mutation_threads: keys applied concurrently per batch (0: 8)
 * - max_mutations: items per batch (0: 1000)
 * - wal_uri: the WAL sink ("file:DIR", "kafka://..."), NULL for none
 * - cdc_uri: the CDC sink, NULL for none
 * - insert_merge_databases: NULL-terminated names whose INSERTs merge, or NULL
 * - run_applier: apply ASYNC mutations from the WAL in this process (default TRUE)
 */
typedef struct {
  guint mutation_threads;
  guint max_mutations;
  const char *wal_uri;
  const char *cdc_uri;
  const char *const *insert_merge_databases;
  gboolean run_applier;
  /*< private >*/
  gpointer reserved[8];
} AbDbOptions;

/** ab_db_options_init: fills opts with the defaults (reserved room zeroed). */
AB_DB_API void ab_db_options_init (AbDbOptions *opts);

/**
 * ab_db_open: opens the store at uri ("memory:", "lmdb:/path/to/dir",
 * "rocksdb:/path/to/dir", "hbase://host:port/namespace", the server's
 * --store forms) with its
 * catalog. opts may be NULL (the defaults). Returns NULL with error when the
 * store cannot be opened. Close with ab_db_close.
 */
AB_DB_API AbDb *ab_db_open (const char *uri, const AbDbOptions *opts, GError **error);
/** ab_db_close: waits for work in flight, closes the store; NULL is ignored. */
AB_DB_API void ab_db_close (AbDb *db);

/* ---- metadata ---- */

/**
 * ab_db_create_database: a new, active database; comment may be NULL.
 * EXISTS when the name is taken. Thread-safe.
 */
AB_DB_API gboolean ab_db_create_database (AbDb *db, const char *database, const char *comment,
                                          GError **error);
/**
 * ab_db_drop_database: deactivates the database, then deletes it with its
 * tables and aliases (their rows stay in the store until overwritten or
 * cleaned; the catalog no longer names them).
 */
AB_DB_API gboolean ab_db_drop_database (AbDb *db, const char *database, GError **error);

/** AbDbTableKind: the four table kinds of docs/data-model.md §11. */
typedef enum {
  AB_DB_TABLE_EDGE,
  AB_DB_TABLE_MULTI_EDGE,
  AB_DB_TABLE_IMMUTABLE_EDGE,
  AB_DB_TABLE_VERTEX,
} AbDbTableKind;

/** AbDbFieldType: a schema field's type (docs/data-model.md §3). */
typedef enum {
  AB_DB_FIELD_BOOLEAN,
  AB_DB_FIELD_BYTE,
  AB_DB_FIELD_SHORT,
  AB_DB_FIELD_INT,
  AB_DB_FIELD_LONG,
  AB_DB_FIELD_FLOAT,
  AB_DB_FIELD_DOUBLE,
  AB_DB_FIELD_STRING,
  AB_DB_FIELD_OBJECT,
} AbDbFieldType;

/** AbDbDirection: the direction of a read from a node. */
typedef enum {
  AB_DB_OUT = 2,
  AB_DB_IN = 3,
} AbDbDirection;

/** AbDbProperty: a schema field of AbDbTableDesc. */
typedef struct {
  const char *name;
  AbDbFieldType type;
  gboolean nullable;
  /*< private >*/
  gpointer reserved[2];
} AbDbProperty;

/** AbDbIndexField: one field of an index, in its order. */
typedef struct {
  const char *field; /* a property, or "version" / "source" / "target" */
  gboolean descending;
  /*< private >*/
  gpointer reserved[2];
} AbDbIndexField;

/** AbDbIndex: an index of AbDbTableDesc (docs/data-model.md §7). */
typedef struct {
  const char *name;
  const AbDbIndexField *fields;
  guint n_fields;
  /*< private >*/
  gpointer reserved[2];
} AbDbIndex;

/**
 * AbDbTableDesc: a table as a struct (groups and caches: use the JSON form).
 * - kind: edge, multi-edge (key = id), immutable edge or vertex (key = id)
 * - key_type: source type (edge kinds) or id type (multi-edge, vertex)
 * - target_type: edge kinds only; multi-edge: the type of source and target
 * - both_directions: TRUE: indexes and counts for OUT and IN; FALSE: OUT only
 * - mode: "SYNC" (NULL), "ASYNC", "DROP" or "DENY"
 * - storage: the recorded storage URI; NULL: "datastore://actionbase/<name>"
 */
typedef struct {
  const char *name;
  AbDbTableKind kind;
  AbDbFieldType key_type;
  AbDbFieldType target_type;
  gboolean both_directions;
  const AbDbProperty *properties;
  guint n_properties;
  const AbDbIndex *indexes;
  guint n_indexes;
  const char *mode;
  const char *comment;
  const char *storage;
  /*< private >*/
  gpointer reserved[8];
} AbDbTableDesc;

/**
 * ab_db_create_table: a new table described by desc (copied; desc and what
 * it points to may be freed when this returns). NOT_FOUND without the
 * database, EXISTS when the name is taken, INVALID for a bad description.
 */
AB_DB_API gboolean ab_db_create_table (AbDb *db, const char *database, const AbDbTableDesc *desc,
                                       GError **error);
/**
 * ab_db_create_table_json: the same from the v3 create-table request body
 * (docs/rest-api.md §3), for everything the struct does not carry.
 */
AB_DB_API gboolean ab_db_create_table_json (AbDb *db, const char *database, const char *json,
                                            GError **error);
/** ab_db_alter_table_json: the v3 update-table body (schema, indexes, mode, ...). */
AB_DB_API gboolean ab_db_alter_table_json (AbDb *db, const char *database, const char *table,
                                           const char *json, GError **error);
/**
 * ab_db_drop_table: deactivates the table, then deletes it from the
 * catalog (its rows stay in the store until overwritten or cleaned).
 */
AB_DB_API gboolean ab_db_drop_table (AbDb *db, const char *database, const char *table,
                                     GError **error);
/**
 * ab_db_create_alias: a second name for a table of the same database;
 * EXISTS when the name is taken, INVALID when the table does not exist.
 */
AB_DB_API gboolean ab_db_create_alias (AbDb *db, const char *database, const char *alias,
                                       const char *table, GError **error);
/** ab_db_drop_alias: removes the alias (not its table). */
AB_DB_API gboolean ab_db_drop_alias (AbDb *db, const char *database, const char *alias,
                                     GError **error);

/* ---- mutations ---- */

/** AbDbOp: a mutation item's event (docs/data-model.md §8). */
typedef enum {
  AB_DB_INSERT,
  AB_DB_UPDATE,
  AB_DB_DELETE,
} AbDbOp;

/** AbDbBatch: mutation items built in memory; reusable after ab_db_batch_clear. */
typedef struct _AbDbBatch AbDbBatch;

/** ab_db_batch_new: an empty batch; free with ab_db_batch_free. */
AB_DB_API AbDbBatch *ab_db_batch_new (void);
/** ab_db_batch_free: frees the batch and its items (NULL is ignored). */
AB_DB_API void ab_db_batch_free (AbDbBatch *batch);
/** ab_db_batch_clear: drops every item and any misuse recorded; the batch is empty again. */
AB_DB_API void ab_db_batch_clear (AbDbBatch *batch);
/** ab_db_batch_len: the items added since the batch was made or cleared. */
AB_DB_API guint ab_db_batch_len (const AbDbBatch *batch);
/**
 * ab_db_batch_add_edge: an item for an edge or immutable-edge table. Values
 * are copied. An op outside AbDbOp is recorded as misuse (below).
 */
AB_DB_API void ab_db_batch_add_edge (AbDbBatch *batch, AbDbOp op, gint64 version, AbDbValue source,
                                     AbDbValue target);
/**
 * ab_db_batch_add_multi_edge: an item for a multi-edge table, keyed by id;
 * source and target may be null for UPDATE and DELETE. Values are copied.
 */
AB_DB_API void ab_db_batch_add_multi_edge (AbDbBatch *batch, AbDbOp op, gint64 version,
                                           AbDbValue id, AbDbValue source, AbDbValue target);
/** ab_db_batch_add_vertex: an item for a vertex table, keyed by id (copied). */
AB_DB_API void ab_db_batch_add_vertex (AbDbBatch *batch, AbDbOp op, gint64 version, AbDbValue id);
/**
 * ab_db_batch_set: a property of the last item added (a null value is an
 * explicit null); name and value are copied. Values are cast to the
 * schema's types when the batch is applied, with the REST rules; a name the
 * schema lacks is INVALID then. Misuse (no item added yet, a NULL name;
 * an op outside AbDbOp in an ab_db_batch_add_*) is recorded in the batch:
 * ab_db_mutate and ab_db_mutate_async then fail with INVALID naming the
 * first one, and write nothing, until ab_db_batch_clear.
 */
AB_DB_API void ab_db_batch_set (AbDbBatch *batch, const char *property, AbDbValue value);

/**
 * AbDbMutateOptions: as the REST mutation endpoints' options.
 * - sync: the /edges/sync endpoint: apply now whatever the table's mode
 * - force: with sync, also on a table whose mode drops mutations
 * - no_lock: ?lock=false: skip the edge locks (a single writer per edge only)
 */
typedef struct {
  gboolean sync;
  gboolean force;
  gboolean no_lock;
  /*< private >*/
  gpointer reserved[4];
} AbDbMutateOptions;

/** AbDbStatus: one key's outcome (docs/data-model.md §8). */
typedef enum {
  AB_DB_CREATED,
  AB_DB_UPDATED,
  AB_DB_DELETED,
  AB_DB_IDLE,
  AB_DB_QUEUED,
  AB_DB_ERRORED,
  AB_DB_INVALIDATED,
} AbDbStatus;

/**
 * ab_db_status_name: the status as the REST API names it ("CREATED", ...;
 * static storage), "UNKNOWN" for a value outside AbDbStatus.
 */
AB_DB_API const char *ab_db_status_name (AbDbStatus status);

/** AbDbResults: one result per key of an ab_db_mutate; belongs to one thread. */
typedef struct _AbDbResults AbDbResults;

/**
 * ab_db_mutate: applies the batch to database.table (a table or an alias):
 * every item is checked first (one bad item: INVALID, nothing written), then
 * each key's events are folded by version and applied (or queued, by the
 * table's mode). Returns one result per distinct key, sorted by key; free
 * with ab_db_results_free. opts may be NULL.
 */
AB_DB_API AbDbResults *ab_db_mutate (AbDb *db, const char *database, const char *table,
                                     const AbDbBatch *batch, const AbDbMutateOptions *opts,
                                     GError **error);

/**
 * AbDbMutateCallback: the outcome of an ab_db_mutate_async: results (free
 * with ab_db_results_free) or error (free with g_error_free), exactly one of
 * them non-NULL, both owned by the callback.
 */
typedef void (*AbDbMutateCallback) (AbDbResults *results, GError *error, gpointer user_data);

/**
 * ab_db_mutate_async: ab_db_mutate without waiting: the batch is checked,
 * read and planned on the calling thread, then committed with whatever else
 * is in flight (one write transaction and one fsync for all of them on
 * LMDB), and callback runs once it is durable, on a thread of the library.
 * A bad call, a queued mode or a store without transactions run callback
 * before this returns, on the calling thread. Keeping several batches in
 * flight is how one thread reaches the store's write throughput
 * (docs/library.md). The batch and names are copied: clear or reuse them
 * when this returns.
 *
 * Thread-safety: as ab_db_mutate. The callback must not wait on the library
 * (ab_db_mutate, ab_db_close: the thread it runs on is the one that would
 * end the wait); it may read and free its results, signal the caller, and
 * call ab_db_mutate_async. Call ab_db_close only after every callback ran.
 * In-flight batches are not bounded by the library: the caller keeps a
 * window.
 */
AB_DB_API void ab_db_mutate_async (AbDb *db, const char *database, const char *table,
                                   const AbDbBatch *batch, const AbDbMutateOptions *opts,
                                   AbDbMutateCallback callback, gpointer user_data);
/** ab_db_results_len: the number of results (keys). */
AB_DB_API guint ab_db_results_len (const AbDbResults *results);
/** ab_db_results_status: result i's status (AB_DB_ERRORED for an i past the end). */
AB_DB_API AbDbStatus ab_db_results_status (const AbDbResults *results, guint i);
/**
 * ab_db_results_source: the key: the source of an edge; the id of a
 * multi-edge or vertex. Strings are borrowed from results.
 */
AB_DB_API AbDbValue ab_db_results_source (const AbDbResults *results, guint i);
/** ab_db_results_target: the target of an edge (null for a vertex); borrowed from results. */
AB_DB_API AbDbValue ab_db_results_target (const AbDbResults *results, guint i);
/** ab_db_results_events: events folded into the key (0 on ERROR). */
AB_DB_API guint ab_db_results_events (const AbDbResults *results, guint i);
/**
 * ab_db_results_message: why, for AB_DB_ERRORED and AB_DB_INVALIDATED
 * (borrowed from results); else NULL.
 */
AB_DB_API const char *ab_db_results_message (const AbDbResults *results, guint i);
/** ab_db_results_free: frees the results; their borrowed strings go with them. */
AB_DB_API void ab_db_results_free (AbDbResults *results);

/* ---- edges read back ---- */

/** AbDbEdges: a list of edges (a get, a page of a scan). */
typedef struct _AbDbEdges AbDbEdges;

/** ab_db_edges_len: the number of edges in the list. */
AB_DB_API guint ab_db_edges_len (const AbDbEdges *edges);
/** ab_db_edges_version: edge i's version (its client timestamp). */
AB_DB_API gint64 ab_db_edges_version (const AbDbEdges *edges, guint i);
/** ab_db_edges_source: edge i's source (its id for a multi-edge or vertex); borrowed from edges. */
AB_DB_API AbDbValue ab_db_edges_source (const AbDbEdges *edges, guint i);
/** ab_db_edges_target: edge i's target (null for a vertex); borrowed from edges. */
AB_DB_API AbDbValue ab_db_edges_target (const AbDbEdges *edges, guint i);
/** ab_db_edges_n_properties: how many properties edge i has. */
AB_DB_API guint ab_db_edges_n_properties (const AbDbEdges *edges, guint i);
/** ab_db_edges_property_name: the name of edge i's property k; borrowed from edges. */
AB_DB_API const char *ab_db_edges_property_name (const AbDbEdges *edges, guint i, guint k);
/** ab_db_edges_property_at: the value of edge i's property k; borrowed from edges. */
AB_DB_API AbDbValue ab_db_edges_property_at (const AbDbEdges *edges, guint i, guint k);
/**
 * ab_db_edges_property: edge i's property called name into *out (strings
 * borrowed from edges); FALSE when it has none.
 */
AB_DB_API gboolean ab_db_edges_property (const AbDbEdges *edges, guint i, const char *name,
                                         AbDbValue *out);
/**
 * ab_db_edges_next: the token that continues a scan after this page
 * (AbDbScan.resume), or NULL on the last page. Borrowed from edges: copy
 * it to keep it past ab_db_edges_free.
 */
AB_DB_API const char *ab_db_edges_next (const AbDbEdges *edges);
/** ab_db_edges_free: frees the list; its borrowed strings go with it. */
AB_DB_API void ab_db_edges_free (AbDbEdges *edges);

/* ---- predicates ---- */

/** AbDbPredOp: a predicate's comparison. */
typedef enum {
  AB_DB_PRED_EQ,
  AB_DB_PRED_GT,
  AB_DB_PRED_GTE,
  AB_DB_PRED_LT,
  AB_DB_PRED_LTE,
  AB_DB_PRED_BETWEEN, /* two values, both included */
  AB_DB_PRED_IN,      /* filters only: any of n values */
} AbDbPredOp;

/** AbDbPredicate: field op values (docs/data-model.md §7.4-7.5). */
typedef struct {
  const char *field;
  AbDbPredOp op;
  const AbDbValue *values;
  guint n_values;
  /*< private >*/
  gpointer reserved[2];
} AbDbPredicate;

/* ---- reads ---- */

/**
 * ab_db_get: the active edge source -> target (0 or 1 edges); free with
 * ab_db_edges_free. NOT_FOUND without the database or table.
 */
AB_DB_API AbDbEdges *ab_db_get (AbDb *db, const char *database, const char *table, AbDbValue source,
                                AbDbValue target, GError **error);
/**
 * ab_db_mget: the active edges of sources x targets (at most the server's
 * get cap, 25 pairs), source-major, those matching every filter; free with
 * ab_db_edges_free.
 */
AB_DB_API AbDbEdges *ab_db_mget (AbDb *db, const char *database, const char *table,
                                 const AbDbValue *sources, guint n_sources,
                                 const AbDbValue *targets, guint n_targets,
                                 const AbDbPredicate *filters, guint n_filters, GError **error);
/** ab_db_get_ids: active multi-edges or vertices by id; free with ab_db_edges_free. */
AB_DB_API AbDbEdges *ab_db_get_ids (AbDb *db, const char *database, const char *table,
                                    const AbDbValue *ids, guint n_ids, GError **error);

/** ab_db_count: the edges of node in direction (0 when none). */
AB_DB_API gboolean ab_db_count (AbDb *db, const char *database, const char *table, AbDbValue node,
                                AbDbDirection direction, gint64 *count, GError **error);
/** ab_db_counts: counts[i] for nodes[i]. */
AB_DB_API gboolean ab_db_counts (AbDb *db, const char *database, const char *table,
                                 const AbDbValue *nodes, guint n_nodes, AbDbDirection direction,
                                 gint64 *counts, GError **error);

/**
 * AbDbScan: one window of an index from a node.
 * - limit: edges per page, 1..1000 (0: 25)
 * - ranges: on a prefix of the index's fields (no AB_DB_PRED_IN)
 * - filters: on any field, applied after the range
 * - resume: a token (ab_db_edges_next, ab_db_iter_token) or NULL
 */
typedef struct {
  const char *index;
  AbDbValue start;
  AbDbDirection direction;
  guint limit;
  const AbDbPredicate *ranges;
  guint n_ranges;
  const AbDbPredicate *filters;
  guint n_filters;
  const char *resume;
  /*< private >*/
  gpointer reserved[4];
} AbDbScan;

/**
 * ab_db_scan: one page (scan->limit edges at most); free with
 * ab_db_edges_free. scan is read during the call only.
 */
AB_DB_API AbDbEdges *ab_db_scan (AbDb *db, const char *database, const char *table,
                                 const AbDbScan *scan, GError **error);

/** AbDbIter: every edge of a window, fetched a page at a time. */
typedef struct _AbDbIter AbDbIter;

/**
 * ab_db_scan_iter: an iterator over scan's window (scan and its strings are
 * copied), before its first edge; free with ab_db_iter_free. Its pages are
 * read by ab_db_iter_next, so errors of the store come from there.
 */
AB_DB_API AbDbIter *ab_db_scan_iter (AbDb *db, const char *database, const char *table,
                                     const AbDbScan *scan, GError **error);
/**
 * ab_db_iter_next: moves to the next edge; FALSE at the end of the window,
 * or with error when a page could not be read (the iterator stays where it
 * was: calling again retries).
 */
AB_DB_API gboolean ab_db_iter_next (AbDbIter *iter, GError **error);
/**
 * ab_db_iter_edge: the current edge as a one-edge list, owned by the
 * iterator (valid until the next ab_db_iter_next or ab_db_iter_free; do not
 * free it); NULL before the first ab_db_iter_next or after the end.
 */
AB_DB_API const AbDbEdges *ab_db_iter_edge (const AbDbIter *iter);
/**
 * ab_db_iter_token: a token resuming the window right after the current
 * edge (AbDbScan.resume); owned by the iterator, valid until the next call
 * on it; NULL before the first edge.
 */
AB_DB_API const char *ab_db_iter_token (AbDbIter *iter);
/** ab_db_iter_free: frees the iterator and what it lent (its edge, its token). */
AB_DB_API void ab_db_iter_free (AbDbIter *iter);

/**
 * ab_db_seek: the top edges of a cache row (docs/data-model.md §18); limit 0:
 * the cache's limit; ranges on the cache's fields; resume from
 * ab_db_edges_next.
 */
AB_DB_API AbDbEdges *ab_db_seek (AbDb *db, const char *database, const char *table,
                                 const char *cache, AbDbValue start, AbDbDirection direction,
                                 guint limit, const AbDbPredicate *ranges, guint n_ranges,
                                 const char *resume, GError **error);

/** AbDbAgg: the cells of a group row (keys by group field, one value each). */
typedef struct _AbDbAgg AbDbAgg;

/**
 * ab_db_agg: the cells of group in start's row (direction), within ranges
 * on the group's fields, at most limit (0: all); free with ab_db_agg_free.
 */
AB_DB_API AbDbAgg *ab_db_agg (AbDb *db, const char *database, const char *table, const char *group,
                              AbDbValue start, AbDbDirection direction, const AbDbPredicate *ranges,
                              guint n_ranges, guint limit, GError **error);
/** ab_db_agg_len: the number of cells. */
AB_DB_API guint ab_db_agg_len (const AbDbAgg *agg);
/** ab_db_agg_n_fields: the group's key fields, the same for every cell. */
AB_DB_API guint ab_db_agg_n_fields (const AbDbAgg *agg);
/** ab_db_agg_field: the name of key field f; borrowed from agg. */
AB_DB_API const char *ab_db_agg_field (const AbDbAgg *agg, guint f);
/** ab_db_agg_key: cell i's value of key field f; borrowed from agg. */
AB_DB_API AbDbValue ab_db_agg_key (const AbDbAgg *agg, guint i, guint f);
/** ab_db_agg_value: cell i's aggregate. */
AB_DB_API gint64 ab_db_agg_value (const AbDbAgg *agg, guint i);
/** ab_db_agg_free: frees the cells; their borrowed strings go with them. */
AB_DB_API void ab_db_agg_free (AbDbAgg *agg);

/**
 * AbDbHop: one hop of ab_db_multihop, over exactly one of a cache or an
 * index of an edge table (limit 0: the cache's limit, or 25).
 */
typedef struct {
  const char *table;
  const char *cache;
  const char *index;
  AbDbDirection direction;
  guint limit;
  const AbDbPredicate *ranges;
  guint n_ranges;
  /*< private >*/
  gpointer reserved[4];
} AbDbHop;

/**
 * ab_db_multihop: two hops from starts; with dedup, one edge per final node
 * (the most reached first when order_by_hits). limit 0: 100. Free with
 * ab_db_edges_free.
 */
AB_DB_API AbDbEdges *ab_db_multihop (AbDb *db, const char *database, const AbDbValue *starts,
                                     guint n_starts, const AbDbHop *first, const AbDbHop *second,
                                     gboolean dedup, gboolean order_by_hits, guint limit,
                                     GError **error);

/* ---- queues (docs/data-model.md §12) ---- */

/**
 * ab_db_queue_create: a queue/v1 queue in namespace ns, enabled, with
 * partitions partitions; EXISTS when the name is taken.
 */
AB_DB_API gboolean ab_db_queue_create (AbDb *db, const char *ns, const char *queue,
                                       guint partitions, GError **error);
/**
 * ab_db_queue_drop: deletes a disabled queue and its messages; CONFLICT
 * while it is enabled.
 */
AB_DB_API gboolean ab_db_queue_drop (AbDb *db, const char *ns, const char *queue, GError **error);

/** AbDbMessage: one message to enqueue; seq orders a key's messages. */
typedef struct {
  const char *key;
  gint64 seq;
  const char *value_json; /* NULL: no value */
  /*< private >*/
  gpointer reserved[2];
} AbDbMessage;

/**
 * ab_db_queue_enqueue: *accepted = messages taken (all or none on error);
 * CONFLICT while the queue is disabled. Messages are copied.
 */
AB_DB_API gboolean ab_db_queue_enqueue (AbDb *db, const char *ns, const char *queue,
                                        const AbDbMessage *messages, guint n_messages,
                                        guint *accepted, GError **error);

/** AbDbPoll: the messages of one poll, oldest first. */
typedef struct _AbDbPoll AbDbPoll;

/**
 * ab_db_queue_poll: up to limit messages of partition after offset (from
 * the first if offset is NULL); free with ab_db_poll_free.
 */
AB_DB_API AbDbPoll *ab_db_queue_poll (AbDb *db, const char *ns, const char *queue, guint partition,
                                      const gint64 *offset, guint limit, GError **error);
/** ab_db_poll_len: the number of messages polled. */
AB_DB_API guint ab_db_poll_len (const AbDbPoll *poll);
/** ab_db_poll_id: message i's key; borrowed from poll. */
AB_DB_API const char *ab_db_poll_id (const AbDbPoll *poll, guint i);
/** ab_db_poll_seq: message i's seq, as enqueued. */
AB_DB_API gint64 ab_db_poll_seq (const AbDbPoll *poll, guint i);
/** ab_db_poll_value: message i's value as JSON text (borrowed from poll), or NULL. */
AB_DB_API const char *ab_db_poll_value (const AbDbPoll *poll, guint i);
/**
 * ab_db_poll_offset: the offset to commit after processing this poll
 * (FALSE: nothing was polled).
 */
AB_DB_API gboolean ab_db_poll_offset (const AbDbPoll *poll, gint64 *offset);
/** ab_db_poll_free: frees the poll; its borrowed strings go with it. */
AB_DB_API void ab_db_poll_free (AbDbPoll *poll);
/** ab_db_queue_commit: drops the partition's messages up to offset. */
AB_DB_API gboolean ab_db_queue_commit (AbDb *db, const char *ns, const char *queue, guint partition,
                                       gint64 offset, GError **error);
/** ab_db_queue_partition: the partition a key's messages go to (0 for 0 partitions). */
AB_DB_API guint ab_db_queue_partition (const char *key, guint partitions);

G_END_DECLS

#endif /* ACTIONBASE_H */
