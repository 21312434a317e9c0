/* The store-neutral dump of actionbase-admin backup and restore: chunk files of
 * length-prefixed rows plus a manifest (rows, bytes, SHA-256, key bounds per
 * chunk), how a snapshot is written into one and how one is checked and restored. */
#pragma once
#include <signal.h>
#include "admin/admin-private.h"
#include "store/store.h"

#define AB_DUMP_FORMAT "actionbase-dump"
#define AB_DUMP_VERSION 1
#define AB_DUMP_MANIFEST "manifest.json"
#define AB_DUMP_CHECKPOINT "restore-checkpoint.json"
/* Every chunk file starts with these 8 bytes. */
#define AB_DUMP_CHUNK_MAGIC "ABDUMP\x00\x01"
#define AB_DUMP_CHUNK_MAGIC_LEN 8
#define AB_DUMP_CHUNK_DEFAULT ((gsize) 64 << 20)
/* The largest key and value a dump holds (a backup refuses bigger rows, a
 * restore refuses a record claiming more): HBase's key limit is 32767. */
#define AB_DUMP_MAX_KEY 65535
#define AB_DUMP_MAX_VALUE ((gsize) 64 << 20)
#define AB_DUMP_BATCH_ROWS 5000
#define AB_DUMP_BATCH_BYTES ((gsize) 16 << 20)
#define AB_DUMP_IN_FLIGHT 4 /* batches in flight on a store that can block (hbase) */

#define AB_DUMP_ERROR (ab_dump_error_quark ())
GQuark ab_dump_error_quark (void);

typedef enum {
  AB_DUMP_ERROR_IO,          /* a file of the dump or the checkpoint */
  AB_DUMP_ERROR_EXISTS,      /* the backup directory is not empty */
  AB_DUMP_ERROR_CORRUPT,     /* manifest or chunk does not check out */
  AB_DUMP_ERROR_NOT_EMPTY,   /* the restore target holds rows */
  AB_DUMP_ERROR_CHECKPOINT,  /* --resume without a matching checkpoint */
  AB_DUMP_ERROR_INTERRUPTED, /* a signal (or stop_after_chunks) stopped it */
  AB_DUMP_ERROR_TOO_BIG,     /* a row beyond AB_DUMP_MAX_KEY / _VALUE */
} AbDumpError;

typedef struct {
  guint64 rows;
  guint64 bytes; /* chunk file bytes */
  guint chunks;
  guint chunks_skipped; /* restore --resume: chunks already written */
  guint table_files;    /* restore: chunks ingested whole (rocksdb), not batched */
} AbDumpStats;

typedef struct {
  const gchar *source_uri; /* recorded in the manifest */
  gsize chunk_bytes;       /* 0 = AB_DUMP_CHUNK_DEFAULT */
  /* First the store's own copy into DIR/KIND (ab_store_native_backup:
   * lmdb compacted, rocksdb a checkpoint), then the chunks are written from
   * that copy, so both hold the same snapshot. */
  gboolean native;
  const volatile sig_atomic_t *stop; /* non-zero: stop (checked per row) */
  AbProgress *progress;              /* optional */
} AbDumpBackupOptions;

typedef struct {
  const gchar *target_uri; /* recorded in and checked against the checkpoint */
  const gchar *checkpoint; /* NULL = DIR/restore-checkpoint.json */
  gboolean force;          /* write into a store that holds rows */
  gboolean resume;         /* continue after the checkpoint's last chunk */
  guint batch_rows;        /* 0 = AB_DUMP_BATCH_ROWS */
  guint in_flight;         /* 0 = AB_DUMP_IN_FLIGHT (stores that can block only) */
  guint stop_after_chunks; /* > 0: stop as if interrupted after that many (tests) */
  const volatile sig_atomic_t *stop;
  AbProgress *progress; /* optional */
} AbDumpRestoreOptions;

/* Writes the rows of snap into dir (created if absent; must be empty),
 * manifest last (temp file + rename): a directory without manifest.json is
 * an incomplete backup. */
gboolean ab_dump_write_snapshot (AbSnapshot *snap, const gchar *dir, const AbDumpBackupOptions *o,
                                 AbDumpStats *stats, GError **error);
/* Opens a snapshot of store (or, with o->native, the native copy) and
 * writes it with ab_dump_write_snapshot. */
gboolean ab_dump_backup (AbStore *store, const gchar *dir, const AbDumpBackupOptions *o,
                         AbDumpStats *stats, GError **error);
/* The manifest's totals only (rows, bytes, chunks), nothing checked. */
gboolean ab_dump_read_totals (const gchar *dir, AbDumpStats *stats, GError **error);
/* Reads the manifest and every chunk (size, SHA-256, every record's lengths,
 * key order, rows and key bounds) without writing anything. */
gboolean ab_dump_check (const gchar *dir, AbDumpStats *stats, GError **error);
/* ab_dump_check, then the emptiness / checkpoint rules, then the rows in
 * batches, chunk by chunk, the checkpoint saved after each chunk. */
gboolean ab_dump_restore (AbStore *store, const gchar *dir, const AbDumpRestoreOptions *o,
                          AbDumpStats *stats, GError **error);
