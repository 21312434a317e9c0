/* Private to the hbase backend (src/store/hbase*.c): the store struct, its
 * settings parsed from the URI, the Thrift call wrapper with its retry rules,
 * parallel jobs over the connection pool, and the small Thrift builders. */
#pragma once
#include <stdatomic.h>

#include <thrift/c_glib/transport/thrift_socket.h>
#include "store/backend.h"
#include "store/gen/hb_t_h_base_service.h"

/* Every narrow row lives in family "f", qualifier "e"; wide rows (Group,
 * Cache) in family "f" under their own qualifiers (docs/storage-format.md §6). */
#define AB_HB_FAMILY "f"
#define AB_HB_QUALIFIER "e"

/* Remote calls, counted per attempt; CONNECT counts TCP connects. */
typedef enum {
  AB_HB_RPC_GET,
  AB_HB_RPC_GET_MULTIPLE,
  AB_HB_RPC_PUT_MULTIPLE,
  AB_HB_RPC_DELETE_MULTIPLE,
  AB_HB_RPC_PUT,
  AB_HB_RPC_DELETE_SINGLE,
  AB_HB_RPC_INCREMENT,
  AB_HB_RPC_CHECK_AND_PUT,
  AB_HB_RPC_CHECK_AND_DELETE,
  AB_HB_RPC_GET_SCANNER_RESULTS,
  AB_HB_RPC_EXISTS,
  AB_HB_RPC_TABLE_EXISTS,
  AB_HB_RPC_CREATE_TABLE,
  AB_HB_RPC_GET_NAMESPACE,
  AB_HB_RPC_CREATE_NAMESPACE,
  AB_HB_RPC_CONNECT,
  AB_HB_RPC_COUNT,
} AbHbRpc;

/* Settings from hbase://HOST:PORT/NAMESPACE?table=&transport=&protocol=&... */
typedef struct {
  gchar *host;
  guint port;
  gchar *ns;           /* "default" when the URI has none */
  gchar *table;        /* "actionbase" */
  gboolean framed;     /* transport=framed | buffered (default, as a stock gateway) */
  gboolean compact;    /* protocol=compact | binary (default) */
  guint pool;          /* connections (default 16) */
  guint timeout_ms;    /* budget of one call: pool wait, connect, send, receive and its
                       * retries (default 5000, half the HTTP request timeout) */
  guint regions;       /* pre-split regions of a new table (default 16) */
  guint retries;       /* extra attempts of a retryable call (default 2) */
  gint compression;    /* HbTCompressionAlgorithm of a new table (default NONE) */
  guint share;         /* shared calls of a kind in flight at once (default 1; 0: none, §3.9) */
  guint share_wait_us; /* a lone leader's wait for company under load (default 300) */
} AbHbConfig;

typedef struct _AbHbConn AbHbConn;
typedef struct _AbHbShare AbHbShare;

/* hbase_reader.c: the transport under the buffered/framed one, reading the
 * socket 64 KiB at a time (c_glib reads each field with its own recv). */
typedef struct _AbHbReader AbHbReader;
typedef struct {
  ThriftTransportClass parent_class;
} AbHbReaderClass;
GType ab_hb_reader_get_type (void);
#define AB_TYPE_HB_READER (ab_hb_reader_get_type ())
#define AB_HB_READER(o) (G_TYPE_CHECK_INSTANCE_CAST ((o), AB_TYPE_HB_READER, AbHbReader))
ThriftTransport *ab_hb_reader_new (ThriftSocket *socket);
/* Bytes received but not yet read (0 between calls). */
gsize ab_hb_reader_pending (ThriftTransport *t);
/* For hand-written decoders (hbase_decode.c): the next n bytes, contiguous,
 * consumed; valid until the next read of t. NULL with error when the socket
 * fails or the peer hangs up first. */
const guint8 *ab_hb_reader_take (ThriftTransport *t, gsize n, GError **error);

typedef struct {
  AbStore base;
  AbHbConfig cfg;
  GByteArray *table_name; /* "ns:table" as the data calls take it */
  gchar *addr;            /* "HOST:PORT" for messages */
  GAsyncQueue *idle;      /* AbHbConn*, checked in */
  atomic_int open_conns;  /* idle + checked out */
  atomic_uint generation; /* bumped on a transport failure: older idle ones are dropped */
  atomic_bool ready;      /* namespace and table known to exist */
  GMutex ready_lock;
  GThreadPool *workers; /* runs parallel jobs (ab_hb_run_parallel) */
  AbHbShare *reads;     /* multi_get's getMultiple calls, shared (§3.9) */
  AbHbShare *writes;    /* batch's puts, deletes and increments, shared */
  AbHbShare *sidecars;  /* batches of sidecar cells alone (intents, receipts'
                         * deletes), shared among themselves: never queued
                         * behind a data wave (§3.9) */
  atomic_uint_fast64_t calls[AB_HB_RPC_COUNT];
  atomic_uint_fast64_t errors[AB_HB_RPC_COUNT];
  atomic_uint_fast64_t micros[AB_HB_RPC_COUNT];
} AbHbStore;

/* One Thrift call on an exclusive client. Must (re)create its outputs on
 * each attempt. On a declared server exception set *io and return FALSE. */
typedef gboolean (*AbHbCallFn) (HbTHBaseServiceIf *client, gpointer ctx, HbTIOError **io,
                                GError **error);

/* Checks a connection out, runs fn, checks it back in (or drops it after any
 * failure) and retries: connect failures always, other failures only when
 * idempotent and the transport failed or the server said canRetry. Errors
 * come out in AB_STORE_ERROR (WIDTH for "Field is not a long"). */
gboolean ab_hb_call (AbHbStore *h, AbHbRpc rpc, gboolean idempotent, AbHbCallFn fn, gpointer ctx,
                     GError **error);
/* The deadline (monotonic us) of a call that starts now on this thread:
 * timeout_ms from now, or sooner while the thread runs a shared call for
 * callers queued before it, whose own budgets end sooner (so that no
 * caller's store call takes more than timeout_ms, queue included). A
 * call whose deadline has passed fails at once (UNAVAILABLE). */
gint64 ab_hb_call_deadline (AbHbStore *h);
/* Caps this thread's calls at deadline (0: no cap) until the cap it
 * returns is put back; ab_hb_run_jobs carries the cap to its workers. */
gint64 ab_hb_cap_calls (gint64 deadline);

typedef struct {
  AbHbRpc rpc;
  gboolean idempotent;
  AbHbCallFn fn;
  gpointer ctx;
  GError *error; /* set by ab_hb_run_parallel when the job failed */
} AbHbJob;

/* Runs the jobs concurrently over the pool (the first in the caller's
 * thread); TRUE when all succeeded, else the first error (WIDTH preferred). */
gboolean ab_hb_run_parallel (AbHbStore *h, AbHbJob *jobs, guint n, GError **error);
/* The same, leaving each failed job's error in it. */
void ab_hb_run_jobs (AbHbStore *h, AbHbJob *jobs, guint n);

/* Shared calls (hbase_share.c, docs/hbase-adapter.md §3.9). A caller submits
 * its op; while max_in_flight runs of the share are under way it waits, then
 * one caller leads every waiting op (at most AB_HB_SHARE_MAX) into one run,
 * which sets errors[i] for each op that failed. A leader alone waits wait_us
 * first when the last run carried several callers. */
#define AB_HB_SHARE_MAX 64
typedef void (*AbHbShareRun) (AbHbStore *h, gpointer *ops, guint n, GError **errors);
AbHbShare *ab_hb_share_new (guint max_in_flight, guint wait_us, AbHbShareRun run);
void ab_hb_share_free (AbHbShare *s);
gboolean ab_hb_share_submit (AbHbStore *h, AbHbShare *s, gpointer op, GError **error);
/* Runs so far and the ops they carried. */
void ab_hb_share_counts (AbHbShare *s, guint64 *calls, guint64 *callers);

/* hbase://... into cfg (hbase_uri.c): rest is what follows "hbase:", uri
 * the whole text for messages; clear frees its strings. */
gboolean ab_hb_config_parse (AbHbConfig *cfg, const gchar *uri, const gchar *rest, GError **error);
void ab_hb_config_clear (AbHbConfig *cfg);

/* Connection pool lifetime (hbase_conn.c). */
void ab_hb_pool_init (AbHbStore *h);
/* TRUE when fd is connected to itself. A connect to a local port nobody
 * listens on is answered by its own SYN when the kernel picked that very
 * port as the source (TCP simultaneous open); the adapter then reads its
 * own requests back, and holds the port the gateway needs to restart.
 * connect_fd treats it as refused. */
gboolean ab_hb_self_connected (int fd);
void ab_hb_pool_clear (AbHbStore *h);
const gchar *ab_hb_rpc_name (AbHbRpc rpc);

/* Creates the namespace and table on first use (hbase_ddl.c). */
gboolean ab_hb_ensure_table (AbHbStore *h, GError **error);

/* Batches (hbase_batch.c); their conditional deletes as parallel
 * check-and-deletes (hbase.c). */
AbStoreBatchFn ab_hb_batch;
/* The share run of batches (ops are const AbBatch *). */
void ab_hb_batch_run (AbHbStore *h, gpointer *ops, guint n, GError **errors);
gboolean ab_hb_delete_ifs (AbHbStore *h, GPtrArray *items, GError **error);
/* One getScannerResults call (an AbHbCallFn): tscan's next `rows` rows
 * into results (replaced on each attempt). range: the caller's, if any. */
typedef struct {
  AbHbStore *h;
  const AbScanRange *range;
  HbTScan *tscan;
  gint32 rows;
  GPtrArray *results;
} AbHbScanCall;
gboolean ab_hb_call_scan (HbTHBaseServiceIf *c, gpointer p, HbTIOError **io, GError **error);
/* Every sidecar cell of the table (hbase_sidecars.c). */
gboolean ab_hb_scan_sidecars (AbStore *s, AbScanVisitor visit, gpointer user, GError **error);

/* Where a datastore key lives (hbase_cells.c): a narrow key is the row, with
 * qualifier e; a Group/Cache composite key row || qualifier is split at the
 * end of its row part (ab_codec_wide_parts). Pointers into the key. */
typedef struct {
  const guint8 *row;
  gsize row_len;
  const guint8 *qual;
  gsize qual_len;
  gboolean wide;
} AbHbAddr;
void ab_hb_addr (const guint8 *key, gsize len, AbHbAddr *out);

/* Builders: new GByteArray copies, and the Thrift structs of one key's cell. */
GByteArray *ab_hb_bytes (const guint8 *data, gsize len);
/* The bytes of a NUL-terminated string (family, table names). */
GByteArray *ab_hb_text (const gchar *s);
HbTColumn *ab_hb_column_new (const AbHbAddr *a);
HbTGet *ab_hb_get_new (const guint8 *key, gsize klen);
HbTPut *ab_hb_put_new (const guint8 *key, gsize klen, const guint8 *value, gsize vlen);
/* Narrow: the whole row. Wide: every version of the one cell. */
HbTDelete *ab_hb_delete_new (const guint8 *key, gsize klen);
HbTIncrement *ab_hb_increment_new (const guint8 *key, gsize klen, gint64 delta,
                                   gboolean want_result);
/* One more cell of the same row in an increment. */
void ab_hb_increment_add (HbTIncrement *inc, const AbHbAddr *a, gint64 delta);
/* libthrift_c_glib workarounds (hbase_wire.c): skipping one value of type on
 * the wire and making a ThriftApplicationException (both called by the
 * generated client), and the finalize chain-up of the library's transport and
 * exception classes (once, before the first connection). */
gint32 ab_hb_thrift_skip (ThriftProtocol *protocol, ThriftType type, GError **error);
gpointer ab_hb_thrift_exception_new (void);
void ab_hb_thrift_fix_classes (void);
/* The f:e value of a result, or NULL when the row/cell is absent; the value
 * of any qualifier of family f. */
GByteArray *ab_hb_result_value (HbTResult *r);
GByteArray *ab_hb_result_qualified (HbTResult *r, const guint8 *qual, gsize qual_len);
/* Appends (datastore key, value) for the cells of a scanned row that lie in
 * range (NULL: all), at most cap of them; returns how many. A narrow row
 * gives its f:e cell, a wide row one key row || qualifier per cell. */
guint ab_hb_result_cells (HbTResult *r, const AbScanRange *range, guint cap, GArray *out);
/* TRUE when a datastore key lies inside range (NULL or unbounded: always). */
gboolean ab_hb_key_in_range (const AbScanRange *range, const guint8 *key, gsize klen);

/* One page of a scan, packed (hbase_decode.c): the cells picked as
 * ab_hb_result_cells picks them, as u32 key length || key || u32 value
 * length || value records in one array (host byte order). */
typedef struct {
  GByteArray *cells;
  guint ncells;
  guint results;        /* TResults in the reply, cells or not */
  GByteArray *last_row; /* the row of the last result that had one */
  gboolean have_last;
} AbHbPage;
void ab_hb_page_init (AbHbPage *p);
void ab_hb_page_clear (AbHbPage *p);
/* The next cell after *pos (0 at first); FALSE at the end. */
gboolean ab_hb_page_next (const AbHbPage *p, gsize *pos, const guint8 **key, gsize *klen,
                          const guint8 **value, gsize *vlen);
/* getScannerResults on an exclusive client into p (reset first), at most
 * cap cells: an AbHbCallFn body. Binary protocol over a buffered transport
 * is decoded by hand from the receive buffer; other stacks by the
 * generated reader. */
gboolean ab_hb_scanner_results (HbTHBaseServiceIf *client, const GByteArray *table,
                                const HbTScan *tscan, gint32 rows, const AbScanRange *range,
                                guint cap, AbHbPage *p, HbTIOError **io, GError **error);
/* The hand-written reader alone, on any transport (tests, the fuzzer): a
 * binary-protocol getScannerResults reply into p (reset first). */
gboolean ab_hb_decode_scanner_results (ThriftTransport *in, const AbScanRange *range, guint cap,
                                       AbHbPage *p, HbTIOError **io, GError **error);

/* Approximate encoded size of a mutation of this key and value. */
gsize ab_hb_wire_size (gsize klen, gsize vlen);
