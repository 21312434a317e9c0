/* What the parts of actionbase-admin import share: the files, records and
 * chunks in flight, the state of one import, and the calls between reading,
 * parsing, applying and the checkpoint (import_read/_parse/_apply/_checkpoint.c). */
#pragma once
#include <stdatomic.h>
#include <stdio.h>
#include <gio/gio.h>
#include "admin/admin-private.h"
#include "admin/import_ties.h"
#include "catalog/catalog.h"
#include "engine/engine.h"
#include "model/schema.h"

/* A record longer than this is reported and skipped (a runaway CSV quote,
 * or a file that is not line-oriented at all). */
#define AB_IMPORT_MAX_RECORD_BYTES (16 * 1024 * 1024)
/* JSON Lines edges are applied in (source, target) order a window at a time:
 * a source's rows then land next to each other in the store's B-tree instead
 * of on a random page each (docs/data-tools.md, Bulk import). */
#define AB_IMPORT_WINDOW_BATCHES 20

typedef enum { AB_IMPORT_FORMAT_AUTO, AB_IMPORT_FORMAT_JSONL, AB_IMPORT_FORMAT_CSV } AbImportFormat;

typedef struct {
  guint64 line;   /* physical lines consumed up to here */
  guint64 offset; /* bytes consumed up to here */
} AbImportMark;

typedef struct {
  gchar *path; /* as given, for messages */
  gchar *abs;  /* canonical, the checkpoint's key */
  AbImportFormat format;
  guint64 size;
  gint *columns; /* CSV: role per header column */
  guint n_columns;
  AbImportMark resume; /* where reading starts (from the checkpoint) */
  /* The applied prefix, under AbImport.ck_lock. */
  AbImportMark prefix;
  guint64 next_chunk;    /* the chunk whose completion extends the prefix */
  GHashTable *done;      /* chunk index -> AbImportMark*, completed ahead of next_chunk */
  guint64 n_chunks;      /* set when the reader reached the end; G_MAXUINT64 before */
  gboolean blocked;      /* a chunk was not fully applied: the prefix stops there */
  gboolean complete;     /* every line applied (or reported bad) */
  gboolean was_complete; /* the checkpoint said so at start */
} AbImportFile;

typedef struct {
  gsize off;          /* into AbImportChunk.text */
  gsize len;          /* its bytes there, the NUL after them left out */
  guint64 line;       /* its first physical line, 1-based */
  gboolean too_long;  /* longer than AB_IMPORT_MAX_RECORD_BYTES: reported, not parsed */
  AbImportMark after; /* the file position after it */
} AbImportRec;

typedef struct {
  AbImportFile *file;
  guint64 seq;   /* global order, for --strict */
  guint64 index; /* order within the file */
  GString *text; /* records, each NUL-terminated */
  GArray *recs;  /* AbImportRec */
  guint64 lines; /* physical lines in this chunk */
  AbImportMark end;
} AbImportChunk;

typedef struct {
  /* options */
  gchar *store_uri, *database, *table, *checkpoint;
  gboolean nosync; /* lmdb: or rocksdb:DIR?sync=0: synced by the import */
  AbImportFormat format;
  gboolean strict, verbose, insert_merge, no_sort;
  gboolean sort; /* JSON Lines of an EDGE table go in key order (not --strict, --no-sort) */
  gint threads, batch;
  /* engine and table */
  AbEngine *engine;
  AbTableDesc *desc;
  const AbSchema *schema;
  gboolean multi;
  AbMutateOptions mopts;
  GPtrArray *files; /* AbImportFile* */
  /* the bounded queue of chunks */
  GMutex q_lock;
  GCond q_cond;
  GQueue queue;
  guint q_cap;
  gboolean q_closed;
  /* chunks in flight: equal-version events of a key apply in file order */
  AbImportTies *ties;
  /* --strict: chunks are written only after every earlier one parsed clean */
  GMutex gate_lock;
  GCond gate_cond;
  guint64 gate_seq;
  gboolean gate_failed;
  atomic_bool stop;
  gchar *fatal; /* the first error that stopped the import (under gate_lock) */
  /* checkpoint */
  GMutex ck_lock;
  gint64 ck_last;
  gboolean ck_dirty; /* a prefix moved since the last write */
  /* figures */
  atomic_uint_fast64_t read, applied, skipped, failed;
  AbProgress *progress;
} AbImport;

/* A G_IO_ERROR_INVALID_DATA with the formatted message; FALSE. */
#define ab_admin_import_fail(error, ...) \
  ab_admin_fail ((error), G_IO_ERROR, G_IO_ERROR_INVALID_DATA, __VA_ARGS__)

/* cmd_import.c */
/* A message about one line of a file: "FILE:LINE: message" on stderr. */
void ab_admin_import_report (const AbImportFile *f, guint64 line, const gchar *fmt, ...)
    G_GNUC_PRINTF (3, 4);
/* Stops the import: no further batch is written; the first reason is kept. */
void ab_admin_import_stop (AbImport *imp, const gchar *why);

/* import_read.c: reading files into chunks (the main thread) */
typedef struct {
  FILE *fp;
  gchar *buf; /* getline's buffer */
  size_t cap;
  guint64 line;   /* physical lines consumed */
  guint64 offset; /* bytes consumed */
} AbImportReader;

/* A reader of f from the position at; NULL (error set) when it cannot open or seek. */
FILE *ab_admin_import_open_at (AbImportFile *f, const AbImportMark *at, AbImportReader *r,
                               GError **error);
/* The next record into rec (without its line end); its first line in
 * *first, its physical lines in *n_lines. FALSE at the end or on a read
 * error (error set). *too_long: the record was longer than the limit and is
 * skipped. */
gboolean ab_admin_import_read_record (AbImportReader *r, gboolean csv, GString *rec, guint64 *first,
                                      guint64 *n_lines, gboolean *too_long, GError **error);
/* Reads f from its resume mark into chunks queued for the workers (*seq: the
 * next chunk's number across files). */
gboolean ab_admin_import_read_file (AbImport *imp, AbImportFile *f, guint64 *seq, GError **error);
/* Physical lines from f's resume offset to the end (the progress total). */
guint64 ab_admin_import_count_lines (const AbImportFile *f);
void ab_admin_import_chunk_free (AbImportChunk *c);

/* import_parse.c: records into typed items (the rules of docs/data-model.md §3.3) */
/* The typed items of one chunk, in the engine's form. */
typedef struct {
  GArray *items;    /* AbMutationItem; its id, source and target are owned */
  GArray *values;   /* AbValue: the items' property values, owned */
  GPtrArray *names; /* const gchar * (the schema's), parallel to values */
  GArray *first;    /* guint per item: its first property in values */
  GArray *lines;    /* guint64 per item: the line it came from */
} AbImportBatch;

void ab_admin_import_batch_init (AbImportBatch *b, guint n);
void ab_admin_import_batch_clear (AbImportBatch *b);
/* Points each item at its properties (the arrays no longer move). */
void ab_admin_import_batch_link (AbImportBatch *b);
/* Drops item i (its properties stay in values, unreferenced). */
void ab_admin_import_batch_remove (AbImportBatch *b, guint i);
/* Parses the chunk's records into b; FALSE when any was bad (reported). */
gboolean ab_admin_import_parse_chunk (AbImport *imp, AbImportChunk *c, AbImportBatch *b);
/* Reads a CSV file's header and maps its columns. */
gboolean ab_admin_import_read_header (AbImport *imp, AbImportFile *f, GError **error);

/* import_apply.c: the queue of chunks and the workers that apply them */
void ab_admin_import_queue_push (AbImport *imp, AbImportChunk *c);
/* imp->threads worker threads, each applying chunks from the queue. */
GPtrArray *ab_admin_import_workers_start (AbImport *imp);
/* Closes the queue and waits for the workers to apply what it holds. */
void ab_admin_import_workers_join (AbImport *imp, GPtrArray *workers);

/* import_checkpoint.c: the applied prefix of each file and its checkpoint */
gboolean ab_admin_import_checkpoint_load (AbImport *imp, GError **error);
/* Called with ck_lock held. Writes at most once a second unless forced. */
void ab_admin_import_checkpoint_maybe (AbImport *imp, gboolean force);
/* Makes every commit so far durable (sync=0 stores only). */
gboolean ab_admin_import_flush_store (AbImport *imp, GError **error);
/* A chunk is finished: fully applied (ok) or not. The file's prefix grows
 * over the chunks finished in order. */
void ab_admin_import_chunk_finished (AbImport *imp, AbImportChunk *c, gboolean ok);
/* The reader reached f's end after n_chunks chunks. */
void ab_admin_import_file_read_to_end (AbImport *imp, AbImportFile *f, guint64 n_chunks);
