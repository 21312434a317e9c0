/* The engine's public face: open a store URI with its catalog, and the entry
 * points the REST layer calls (metadata, mutation, query). Nothing above the
 * engine names a backend or touches bytes. */
#pragma once
#include <glib.h>

#define AB_ENGINE_ERROR (ab_engine_error_quark ())
GQuark ab_engine_error_quark (void);

typedef enum {
  AB_ENGINE_ERROR_BAD_REQUEST, /* 400 */
  AB_ENGINE_ERROR_NOT_FOUND,   /* 404 */
  AB_ENGINE_ERROR_CONFLICT,    /* 409 */
  AB_ENGINE_ERROR_UNAVAILABLE, /* 503 */
  AB_ENGINE_ERROR_INTERNAL,    /* 500 */
  AB_ENGINE_ERROR_MISSING,     /* 400: a database, table or alias the call names does not exist
                                  (REST answers 400, as upstream does; the library NOT_FOUND) */
  AB_ENGINE_ERROR_EXISTS,      /* 400: the name is taken (REST answers 400 as for the catalog's
                                  own calls; the library EXISTS) */
} AbEngineError;

typedef struct {
  guint lock_retries;             /* default 50 */
  guint lock_backoff_ms;          /* default 100 */
  gint64 lock_stale_ms;           /* default 300000 */
  gchar **insert_merge_databases; /* INSERT_MERGE feature, NULL-terminated */
  guint max_mutations;            /* items per request, default 1000 */
  guint max_get_pairs;            /* default 25 */
  guint max_scan_limit;           /* default 1000 */
  guint mutation_threads;         /* keys applied concurrently, default 8 */
  const gchar *wal_uri;           /* sink for the WAL: none (default), file:DIR, kafka://... */
  const gchar *cdc_uri;           /* sink for CDC: none (default) */
  gint system_mode;               /* server-wide mode override: -1 none, else AbMutationMode */
  gboolean run_applier;           /* consume the WAL and apply ASYNC mutations (default TRUE) */
  const gchar *async_refused;     /* non-NULL: ASYNC mutations answer 503 with this reason
                               * (the WAL would not outlive the node); copied */
  const gchar *phase;             /* WAL/CDC "phase" (default "local") */
  const gchar *tenant;            /* WAL/CDC "tenant" (default "default") */
  guint
      cache_prune_ms; /* trim cache rows to their limit every N ms (default 1000; 0 = never in the background) */
  guint
      ttl_sweep_ms; /* delete expired group cells every N ms (default 10000; 0 = never in the background) */
  guint max_hop_starts; /* multihop start nodes, default 100 */
  guint max_hop_nodes;  /* multihop second-hop nodes (starts x first limit), default 1000 */
  guint max_hop_edges;  /* multihop edges read (nodes x second limit), default 100000 */
  /* The engine's wall clock in ms since the epoch (TTL expiry and sweeps,
   * lock staleness, WAL/CDC "ts"); NULL (default) = g_get_real_time () / 1000.
   * Tests advance a fake one instead of sleeping. Called from any thread. */
  gint64 (*now_ms) (gpointer data);
  gpointer now_data;
  /* Stores whose batches are not atomic (HBase): a locked key writes its
   * rows as an intent in its lock row first, and a write cut between its
   * waves is replayed from it (heal.c). Default TRUE. */
  gboolean heal;
  guint heal_retry_ms; /* this node retries its cut writes every N ms (default 1000) */
  /* every N ms this node sweeps the table for stale locks with an intent
   * (a dead node's cut write on a key nobody writes again) and receipts
   * left behind; 0 = never (default 600000) */
  guint heal_sweep_ms;
  /* Where writes heal: a request's store calls start only within N ms of
   * its start (its locks' retries included); what is left then goes to the
   * healer and the keys answer ERROR, so an answer comes within N ms plus
   * one store call. 0 = no bound (default 4000). */
  guint write_budget_ms;
} AbEngineConfig;

void ab_engine_config_init (AbEngineConfig *cfg);

typedef struct _AbEngine AbEngine;

AbEngine *ab_engine_open (const gchar *store_uri, const AbEngineConfig *cfg, GError **error);
/* The same on a store already open (tests wrap stores, e.g. fault injection).
 * Takes ownership of store, also on failure. */
typedef struct _AbStore AbStore;
AbEngine *ab_engine_open_store (AbStore *store, const AbEngineConfig *cfg, GError **error);
void ab_engine_close (AbEngine *engine);
/* TRUE when the store and the sinks answer (for /health); *reason otherwise.
 * Makes store calls: may block as long as the store's call timeout. */
gboolean ab_engine_healthy (AbEngine *engine, gchar **reason);
/* TRUE when reads (get, scan, count, seek, agg) never wait on anything
 * outside the process, so a caller may run them on a thread that must never
 * stall (an event loop); decided by the store, whichever it is. */
gboolean ab_engine_reads_inline (AbEngine *engine);
/* Makes every acknowledged write durable on a store opened with sync=0
 * (lmdb, rocksdb: ab_store_sync); TRUE at once on the others. */
gboolean ab_engine_sync (AbEngine *engine, GError **error);

/* The configured clock (cfg.now_ms), else real time: ms since the epoch
 * (the verifier judges TTLs and top-K windows by it). */
gint64 ab_engine_now_ms (AbEngine *engine);

/* Prometheus text: mutation results by status and store operations by verb
 * (calls and errors). */
gchar *ab_engine_metrics_text (AbEngine *engine);
/* An online copy's catch-up (docs/data-tools.md, Moving between stores):
 * applies, in WAL order and through the internal path, the records among
 * entries (AbSinkEntry*) of every mutation the source applied or queued
 * (effective mode SYNC or ASYNC) built at or after since_ms. Re-applying is
 * version-idempotent. lock FALSE: no edge locks, for a caller that is the
 * only writer of these edges. lanes (1..64): batches applied at once, each
 * edge's records on one lane. Counts the records applied and those skipped
 * (their table is gone); FALSE with error when a batch still fails after
 * retries. */
gboolean ab_engine_replay_wal (AbEngine *engine, GPtrArray *entries, gint64 since_ms, gboolean lock,
                               guint lanes, guint64 *applied, guint64 *skipped, GError **error);
/* Blocks until the async applier has applied everything appended to the WAL
 * so far (tests, graceful stop); FALSE on timeout. */
gboolean ab_engine_applier_drain (AbEngine *engine, gint timeout_ms);

/* ---- catalog access for the metadata endpoints ---- */
typedef struct _AbCatalog AbCatalog;
/* Borrowed; metadata handlers call the catalog directly (it has no bytes). */
AbCatalog *ab_engine_catalog (AbEngine *engine);
/* Catalog refresh from the store (another process may have changed it). */
gboolean ab_engine_refresh (AbEngine *engine, GError **error);

/* ---- mutation ---- */
#include <json-glib/json-glib.h>
#include "codec/value.h"

typedef struct {
  const gchar *database;
  const gchar *table;       /* table or alias */
  gboolean multi_edge;      /* /multi-edges endpoints */
  gboolean vertex;          /* /vertices endpoints: {type, vertex:{version, id, properties}}
                             * items, vertex tables only */
  gboolean edges_endpoint;  /* REST /edges: a vertex table answers 400 (use /vertices); the
                             * engine's own writers (applier, import) may still write a vertex
                             * table with edge items whose source is the id */
  gboolean lock;            /* ?lock=, default TRUE */
  gboolean sync_request;    /* /edges/sync */
  gboolean force;           /* ?force=true */
  gboolean include_context; /* AB-Include-Mutation-Context: true */
  gboolean internal;        /* the async applier: apply now, no WAL, no mode checks */
  gboolean purge;           /* the v2 purge route: PURGE items allowed (else 400, but for
                             * internal writes, which replay the WAL's PURGE records) */
  const gchar *request_id;
  const gchar *actor;
} AbMutateOptions;

void ab_mutate_options_init (AbMutateOptions *o);

typedef enum {
  AB_STATUS_CREATED,
  AB_STATUS_UPDATED,
  AB_STATUS_DELETED,
  AB_STATUS_IDLE,
  AB_STATUS_QUEUED,
  AB_STATUS_ERROR,
  AB_STATUS_INVALID,
} AbKeyStatus;

const gchar *ab_key_status_name (AbKeyStatus s);

typedef struct {
  AbValue source; /* multi-edge and vertex: the id */
  AbValue target; /* multi-edge: null; vertex: "-" */
  AbKeyStatus status;
  guint count;       /* events folded (0 on ERROR) */
  gchar *message;    /* why, for ERROR / INVALID */
  JsonNode *context; /* storage ops when include_context, else NULL */
  gboolean may_pass; /* ERROR whose cause may pass (the store unreachable or
                      * slow, the lock held): the same write may succeed later */
} AbKeyResult;

/* PURGE is upstream's hard delete (docs/data-model.md §2.5): the key's State
 * row goes, whatever its version; typed items never carry it. */
typedef enum { AB_OP_INSERT, AB_OP_UPDATE, AB_OP_DELETE, AB_OP_PURGE } AbOpType;

/* The typed form of one mutation item, as the library builds it (no JSON):
 * values are cast to the schema's types with the REST rules (model/types.h,
 * ab_model_cast_value), a property name the schema lacks is a 400, a null
 * value is an explicit null. Edge tables: source and target; multi-edge
 * tables: id, with source/target filling _source/_target; vertex tables: id
 * (or source). Borrowed for the call only. */
typedef struct {
  AbOpType type;
  gint64 version;
  AbValue id;
  AbValue source;
  AbValue target;
  guint n_props;
  const gchar *const *names; /* n_props property names */
  const AbValue *values;     /* parallel to names */
} AbMutationItem;

/* body = {"mutations":[...]}. Returns AbKeyResult array (clear func set),
 * sorted as the spec says; NULL + AB_ENGINE_ERROR_BAD_REQUEST on bad input
 * (nothing written). */
GArray *ab_engine_mutate (AbEngine *engine, const AbMutateOptions *opts, JsonNode *body,
                          GError **error);
/* The same without waiting for the commit: done receives (transfer full)
 * the results or the error, exactly once, possibly before this returns (a
 * bad request, a queued mode, a store without transactions), else on the
 * store's completion thread after the durable commit. The strings opts
 * points to must live until done has been called; body only during this call. */
typedef void (*AbMutateDone) (GArray *results, GError *error, gpointer user);
void ab_engine_mutate_async (AbEngine *engine, const AbMutateOptions *opts, JsonNode *body,
                             AbMutateDone done, gpointer user);

/* The same for typed items (the library's data path; REST options apply
 * unchanged: modes, WAL, CDC, locks). n_items <= max_mutations. */
GArray *ab_engine_mutate_items (AbEngine *engine, const AbMutateOptions *opts,
                                const AbMutationItem *items, guint n_items, GError **error);
/* Asynchronous form, as ab_engine_mutate_async; items only during this call. */
void ab_engine_mutate_items_async (AbEngine *engine, const AbMutateOptions *opts,
                                   const AbMutationItem *items, guint n_items, AbMutateDone done,
                                   gpointer user);

/* ---- queries ---- */
typedef struct {
  gint64 version;
  AbValue source;
  AbValue target;
  /* (the fields above names are what a thread's cache of freed edges
   * poisons under ASan, query.c: names and values stay after them) */
  guint n_props;       /* properties: names[i] = values[i], i < n_props */
  guint props_room;    /* allocated length of names and values */
  const gchar **names; /* borrowed from the schema */
  AbValue *values;     /* owned (or borrowed from a frame's strings) */
  gchar *offset;       /* scans with edge_offsets: the token resuming after this edge */
} AbEdgeOut;

typedef struct {
  GPtrArray *edges; /* AbEdgeOut* */
  gint64 total;     /* -1 = not computed */
  gchar *offset;    /* NULL unless has_next */
  gboolean has_next;
  /* scans with borrow_strings: the edges' source, target and property
   * strings, which they borrow (AbValue.borrowed): none may outlive it */
  GStringChunk *strings;
} AbEdgeFrame;

void ab_edge_frame_free (AbEdgeFrame *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbEdgeFrame, ab_edge_frame_free)

typedef enum { AB_QDIR_OUT = 2, AB_QDIR_IN = 3 } AbQueryDirection;

/* A term of `ranges` / `filters` in typed form (the library): field op
 * values, values cast to the field's type like their text would be. */
typedef enum {
  AB_PRED_EQ,
  AB_PRED_GT,
  AB_PRED_GTE,
  AB_PRED_LT,
  AB_PRED_LTE,
  AB_PRED_BT,
  AB_PRED_IN
} AbPredOp;

typedef struct {
  const gchar *field;
  AbPredOp op;
  const AbValue *values;
  guint n_values;
} AbRangeSpec;
/* "OUT" / "IN" (exact, upper-case); FALSE otherwise. */
gboolean ab_query_direction_parse (const gchar *text, AbQueryDirection *out);

/* count: the Count row for (start, direction); 0 when missing. start_out
 * receives start cast to its type (the caller clears it), and is left empty
 * on failure. */
gboolean ab_engine_count (AbEngine *engine, const gchar *db, const gchar *table, const gchar *start,
                          AbQueryDirection dir, AbValue *start_out, gint64 *count, GError **error);

/* count from a typed node (the library). */
gboolean ab_engine_count_value (AbEngine *engine, const gchar *db, const gchar *table,
                                const AbValue *start, AbQueryDirection dir, gint64 *count,
                                GError **error);

/* get / mget: sources x targets (text, cast to the schema), filters. */
AbEdgeFrame *ab_engine_get (AbEngine *engine, const gchar *db, const gchar *table,
                            GPtrArray *sources, GPtrArray *targets, const gchar *filters,
                            GError **error);

typedef struct {
  const gchar *index;
  const gchar *start;
  AbQueryDirection direction;
  gint limit;            /* < 0 = default 25 */
  const gchar *offset;   /* token or NULL */
  const gchar *ranges;   /* or NULL */
  const gchar *filters;  /* or NULL */
  const gchar *features; /* comma list or NULL */
  /* The typed forms (the library), used instead of the text when set. */
  const AbValue *start_value;
  const AbRangeSpec *range_specs;
  guint n_range_specs;
  const AbRangeSpec *filter_specs;
  guint n_filter_specs;
  gboolean edge_offsets; /* set AbEdgeOut.offset on every edge */
  /* the edges' strings in AbEdgeFrame.strings (one arena a page, not heap
   * strings an edge): for callers that read the frame and free it, never
   * moving a value out of it (the library) */
  gboolean borrow_strings;
} AbScanParams;

AbEdgeFrame *ab_engine_scan (AbEngine *engine, const gchar *db, const gchar *table,
                             const AbScanParams *p, GError **error);
/* Deletes one page (p->limit rows, required, <= 1000) of an immutable
 * table's index window; *deleted = rows removed. */
gboolean ab_engine_scan_delete (AbEngine *engine, const gchar *db, const gchar *table,
                                const AbScanParams *p, guint *deleted, GError **error);

/* The same from typed values and filters (the library). */
AbEdgeFrame *ab_engine_get_values (AbEngine *engine, const gchar *db, const gchar *table,
                                   const AbValue *sources, guint n_sources, const AbValue *targets,
                                   guint n_targets, const AbRangeSpec *filters, guint n_filters,
                                   GError **error);

/* multi-edges/ids: active multi-edges by id (<= 25), filters applied. */
AbEdgeFrame *ab_engine_get_ids (AbEngine *engine, const gchar *db, const gchar *table,
                                GPtrArray *ids, const gchar *filters, GError **error);
/* vertices/get: active vertices by id (<= max_get_pairs), filters applied;
 * each as an edge whose source is the id and target "-". */
AbEdgeFrame *ab_engine_get_vertices (AbEngine *engine, const gchar *db, const gchar *table,
                                     GPtrArray *ids, const gchar *filters, GError **error);

/* ---- groups, caches and multihop (issue 11) ---- */

/* agg: the cells of a group row for (start, direction) in qualifier order.
 * ranges: eq on leading group fields, any of eq/gt/gte/lt/lte/bt on the last
 * one (bucketed fields compare as their bucket text). Group "__count__"
 * answers the Count row as one cell with no key. */
typedef struct {
  const gchar *group;
  const gchar *start;
  AbQueryDirection direction;
  const gchar *ranges;     /* or NULL */
  gint limit;              /* < 0 = default (1000) */
  gboolean require_ranges; /* a group with fields without ranges is 400 (the REST route) */
} AbAggParams;

typedef struct {
  AbValue start;
  guint n_fields;
  gchar **fields;    /* group field names (n_fields) */
  GArray *keys;      /* AbValue, n_fields per cell */
  GArray *values;    /* gint64, one per cell */
  gboolean has_next; /* more cells than the limit */
} AbAggResult;

void ab_agg_result_free (AbAggResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbAggResult, ab_agg_result_free)
AbAggResult *ab_engine_agg (AbEngine *engine, const gchar *db, const gchar *table,
                            const AbAggParams *p, GError **error);

/* topk: one page of a top-K ranking of (entity, direction, segment), score
 * DESC then ranked value ASC, as edges {version, source: entity, target:
 * ranked value, properties:{score}} (docs/data-model.md §17.1). */
typedef struct {
  const gchar *topk;
  const gchar *entity;
  const gchar *direction; /* NULL: OUT unless the group keeps IN only */
  const gchar *filters;   /* eq on each segment field, or NULL */
  gint limit;             /* < 0 = default 10 */
  const gchar *offset;    /* token or NULL */
} AbTopkParams;
AbEdgeFrame *ab_engine_topk (AbEngine *engine, const gchar *db, const gchar *table,
                             const AbTopkParams *p, GError **error);

/* seek: the top `limit` edges of a cache row (default the cache's limit; a
 * larger one is cut to limit + tolerance, what a trimmed row keeps); ranges:
 * eq on leading cache fields, a range only on the last one given. When
 * trimming has left the row incomplete for the window
 * and the table has an index with the cache's fields and orders, the answer
 * comes from that index instead. Pages like scan: `offset` is set when more
 * cells remain and continues after the last one (the same token works on the
 * equivalent index, whose row keys end the same way). */
typedef struct {
  const gchar *cache;
  const gchar *start;
  AbQueryDirection direction;
  gint limit;          /* < 0 = the cache's limit; 0 is refused */
  const gchar *ranges; /* or NULL */
  const gchar *offset; /* the previous page's `offset`, or NULL for the first page */
} AbSeekParams;

AbEdgeFrame *ab_engine_seek (AbEngine *engine, const gchar *db, const gchar *table,
                             const AbSeekParams *p, GError **error);

/* Runs the background upkeep now: trims the cache rows written since the
 * last round, sweeps expired TTL group cells, and re-scores the top-K
 * entries of rankings relative to now whose window has moved (the
 * refresher, docs/data-model.md §17.1). */
gboolean ab_engine_maintain (AbEngine *engine, guint *trimmed, guint *expired, GError **error);
/* POST …/edges/prune ({"type": "CACHE", "targets": [{start, direction}]}):
 * trims now, for each target and each cache of the table (in the directions
 * the table keeps), the cache row to limit + tolerance cells, as the
 * background does; {"results": [{start, direction, type, name, status}]},
 * status PRUNED when cells were removed, SKIPPED when none lay beyond.
 * The body is checked whole first (400, nothing trimmed). */
JsonNode *ab_engine_prune (AbEngine *engine, const gchar *db, const gchar *table, JsonObject *body,
                           GError **error);

/* multihop: two hops, each over a cache (seek) or an index (scan) of an edge
 * table, from start nodes; the second hop starts from the distinct far ends
 * of the first hop's edges, read concurrently. Caps (400 beyond): starts <=
 * max_hop_starts, starts x first limit <= max_hop_nodes, that x second limit
 * <= max_hop_edges. */
typedef struct {
  const gchar *table; /* table or alias in the request's database */
  const gchar *cache; /* exactly one of cache / index */
  const gchar *index;
  AbQueryDirection direction;
  gint limit;          /* < 0 = the cache's limit (cache) or 25 (index) */
  const gchar *ranges; /* or NULL */
} AbHop;

typedef struct {
  const gchar *database;
  GPtrArray *starts; /* gchar* texts */
  AbHop hops[2];
  const gchar *filters;       /* on second-hop edges, or NULL */
  gboolean dedup;             /* one edge per final node (the first seen), with hits */
  gboolean exclude_start;     /* drop edges ending at a start node */
  gboolean exclude_first_hop; /* drop edges ending at a first-hop node */
  gboolean order_by_hits;     /* dedup only: most hits first (stable) */
  gint limit;                 /* final edges, < 0 = 100 */
} AbMultihopParams;

typedef struct {
  GPtrArray *edges;  /* AbEdgeOut*, second-hop edges */
  GArray *hits;      /* guint per edge: second-hop edges reaching its final node */
  GPtrArray *via;    /* per edge a GArray of AbValue: first-hop nodes leading there */
  gboolean has_next; /* more than `limit` results */
  guint first_hop_edges;
  guint second_hop_nodes;
  guint second_hop_edges;
} AbMultihopResult;

void ab_multihop_result_free (AbMultihopResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbMultihopResult, ab_multihop_result_free)
AbMultihopResult *ab_engine_multihop (AbEngine *engine, const AbMultihopParams *p, GError **error);

/* ---- the query document: POST /graph/v3/query ---- */

/* One item's answer: named columns, rows of values (one AbValue per
 * column), and the page cursor when the item read a single window. */
typedef struct {
  gchar *name;
  GPtrArray *columns; /* gchar* */
  GPtrArray *rows;    /* GArray* of AbValue, columns->len each */
  gchar *offset;      /* NULL unless has_next */
  gboolean has_next;
} AbRows;

void ab_rows_free (AbRows *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbRows, ab_rows_free)

/* Runs upstream's query document {"query":[items], "stats":[...]}: SELF,
 * GET, COUNT, SCAN and CACHE items, in order, each from values, an earlier
 * item's column (REF) or a nested item (STEP), then its post-processors and
 * aggregators. Returns the included items' rows (AbRows*, query order).
 * Bounded like multihop: fan-out checked before any read, 400 beyond. */
GPtrArray *ab_engine_query_doc (AbEngine *engine, JsonNode *body, GError **error);
/* The same for a document whose arguments are already bound (ab_doc_bind):
 * upstream's current form {fetch, transform} (SQL steps over earlier rows)
 * or the earlier {query}. */
GPtrArray *ab_engine_query_bound (AbEngine *engine, JsonNode *doc, GError **error);
/* One item of a query document ({"type", "name", "database", ...} as an
 * element of "query") run alone, planned and bounded as in a document: its
 * rows (upstream's v2 label edge read, docs/rest-api.md §2). filters
 * (§4.3 syntax, nullable) keep the edges of a SCAN's page that match.
 * *types (nullable) receives each column's AbType, in column order. */
AbRows *ab_engine_query_item (AbEngine *engine, JsonNode *item, const gchar *filters,
                              GArray **types, GError **error);

/* POST /aggregations/v1/aggregate ({"items":[{database, table, edge}]}): for
 * each ranking of upstream's current top-K declaration an event belongs to,
 * the metric recomputed from the group's cells and written to the rank
 * table; {"items":[{database, table, source, target, status, error}]}, a
 * failing ranking ERROR in a 200 (rank.c, docs/rest-api.md §11.6). A
 * ranking declared with refreshAfterMillis over a window relative to now
 * also queues its refresh on queue/v1 namespace `topk`. */
JsonNode *ab_engine_aggregate (AbEngine *e, JsonObject *body, GError **error);
/* POST /aggregations/v1/sweep ({"items":[{type: TOPK, item}]}, the values
 * of queued refreshes): each ranking recomputed as aggregate does, nothing
 * queued again; {"items":[{database, table, topk, entity, status, error}]},
 * SKIPPED when the top-K is no longer declared. */
JsonNode *ab_engine_sweep (AbEngine *e, JsonObject *body, GError **error);

/* ---- prepared queries (prepared.c, docs/rest-api.md §11.5) ----
 * Query documents registered with typed arguments ({name} placeholders), kept
 * in the catalog by a UUID id, named by aliases (^[a-z][a-z0-9_]{0,63}$), run
 * by id or alias. Entities are JSON objects (new references); errors 400
 * (bad request), 404 (no such query or alias). */
typedef enum { AB_PREPARED_ACTIVE, AB_PREPARED_INACTIVE, AB_PREPARED_ALL } AbPreparedStatus;
/* NULL -> ACTIVE; else ACTIVE, INACTIVE or ALL (400 otherwise). */
gboolean ab_engine_prepared_status (const gchar *text, AbPreparedStatus *out, GError **error);
JsonNode *ab_engine_prepared_register (AbEngine *e, JsonObject *req, const gchar *actor,
                                       GError **error);
GPtrArray *ab_engine_prepared_list (AbEngine *e, AbPreparedStatus status);
JsonNode *ab_engine_prepared_get (AbEngine *e, const gchar *id_or_alias, GError **error);
/* The same from what this node holds (never reads the store): NULL when
 * it holds no such active query (another node's may not have arrived yet). */
JsonNode *ab_engine_prepared_peek (AbEngine *e, const gchar *id_or_alias);
/* comment/arguments/fetch/transform/stats replaced where req has them. */
JsonNode *ab_engine_prepared_amend (AbEngine *e, const gchar *id, JsonObject *req,
                                    const gchar *actor, GError **error);
/* 400 while an alias names it. */
gboolean ab_engine_prepared_delete (AbEngine *e, const gchar *id, GError **error);
JsonNode *ab_engine_prepared_alias_create (AbEngine *e, JsonObject *req, const gchar *actor,
                                           GError **error);
GPtrArray *ab_engine_prepared_aliases (AbEngine *e, AbPreparedStatus status);
JsonNode *ab_engine_prepared_alias_get (AbEngine *e, const gchar *alias, GError **error);
/* target, comment and active replaced where req has them. */
JsonNode *ab_engine_prepared_alias_update (AbEngine *e, const gchar *alias, JsonObject *req,
                                           const gchar *actor, GError **error);
gboolean ab_engine_prepared_alias_delete (AbEngine *e, const gchar *alias, GError **error);
/* Runs the active query an id or alias names with args (values by name). */
GPtrArray *ab_engine_prepared_run (AbEngine *e, const gchar *id_or_alias, JsonObject *args,
                                   GError **error);
