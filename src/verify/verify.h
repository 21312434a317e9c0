/* actionbase-verify as a library: checks the Index and Count rows of edge
 * tables against what their State rows imply, on one consistent snapshot,
 * reports every mismatch and optionally repairs it (issue 8).
 *
 * What is derived. For every active State row of a checked table, with the
 * engine's own functions (ab_engine_index_key / _index_value /
 * _directed / _directions, the same ones the write path plans with): one
 * Index row per index and direction, and +1 on the Count row of its
 * directed source per direction. Vertex tables imply nothing (so any Index or
 * Count row of theirs is an orphan); immutable tables have no State and are
 * skipped and listed as such.
 *
 * Group and Cache cells (issue 11) are derived the same way with the
 * engine's ab_engine_group_cells / ab_engine_cache_cells: a Group cell like a
 * Count row (contributions summed per cell key; count_* classes, repaired by
 * increment), a Cache cell like an Index row (index_* classes, repaired under
 * the edge lock). Groups with a positive ttl and their expiry siblings are
 * skipped (expiry is not in State). A cache row trimmed to its limit carries
 * a boundary marker: derived cells at or past it are not missing. Tables with
 * groups or caches are derived by every shard, like multi-edge tables.
 *
 * Top-K rank and score rows (docs/data-model.md §17.1) are derived from the
 * stored Group cells of ranked groups, which pass 1 meets in key order (an
 * entry's cells are contiguous): each entry's score is summed with the
 * engine's ab_topk_cell_value, its score row and its rank row at that score
 * go to the sorter like Index rows valued be64(score), and pass 2 compares
 * the first 8 bytes of the stored values (the rest is a timestamp). Findings
 * use the index_* classes; repair re-scores the entry from the live cells
 * (rank.c), and a repaired Group cell re-scores its entries.
 *
 * Mismatch classes (one per row key):
 *   index_missing   derived Index row not stored
 *   index_stale     stored with another value (version or properties differ)
 *   index_orphan    stored Index row that no active State implies
 *   count_missing   derived count n > 0, no Count row stored
 *   count_wrong     stored Count value differs from n (or is not 8 bytes)
 *   count_orphan    stored Count row != 0 with no active edge behind it
 *                   (a stored 0 is what a create + delete leaves: clean)
 *   state_corrupt   a State row that cannot be decoded (reported, not repaired)
 *
 * Bounded memory (tables larger than RAM). Two passes over one snapshot:
 *  1. scan the keyspace; for each State row of a checked table derive its
 *     Index rows and Count contributions into an external sorter: records
 *     accumulate in one run of run_bytes, a full run is sorted (Count
 *     contributions of one key summed) and written to an unlinked temp file;
 *     at the end runs are merged AB_SORTER_FAN_IN at a time until fewer
 *     remain, and those stream out merged with the last run, kept in memory.
 *     Consecutive Count contributions to one key (the OUT count of a source
 *     whose State rows are adjacent) merge before taking space.
 *  2. scan the slice's key range again: the stored Index and Count rows come
 *     in key order, so a merge-join with the sorted derived stream finds
 *     every class above in one step per row.
 * Memory is run_bytes + FAN_IN read buffers + one State row at a time,
 * whatever the table size; disk holds the derived rows once or twice. (lmdb
 * snapshot scans also hand the map pages they walked back to the page cache,
 * so the mapped file does not count in the resident set either.)
 *
 * Sharding (shard k of n, 0 <= k < n). Shard k owns the salts
 * [floor(k * 2^32 / n), floor((k + 1) * 2^32 / n)): a contiguous key range,
 * so the n slices cover the keyspace with no gap and no overlap. A row and
 * its mismatch belong to the shard owning the salt of that row's own key:
 * Index/Count mismatches by the Index/Count key, state_corrupt by the State
 * key. The Index and Count rows a State row implies have other salts than the
 * State row (salt = hash of the directed source, table and row type), and a
 * Count row sums State rows from everywhere, so derived rows are routed to
 * the shard owning their salt by filtering: every shard reads the State keys
 * of the whole snapshot (a cheap key-only pass: parse the prefix, hash at
 * most four directed-source salts), decodes only State rows it owns or whose
 * Index/Count salts fall in its slice, keeps only the derived rows inside its
 * slice, and compares them with the stored rows of its slice only. Each
 * mismatch is then found by exactly one shard, and the union of the n
 * reports is the unsharded report. Cost: every shard walks the whole
 * keyspace once (pass 1) and its slice once (pass 2); each derived row is
 * built and sorted once in total; a State row is decoded by its owner and by
 * each shard its rows are routed to (multi-edge rows, whose directed source
 * is a property, by every shard). No coordination between shards. With
 * --repair every shard writes only keys of its own slice.
 *
 * Snapshot. lmdb: one read transaction for both passes. HBase: a scan bound
 * by a maximum timestamp fixed at open; its limits: rows deleted and
 * compacted away since are gone from the view, and a non-atomic batch still
 * in flight at that timestamp shows half its rows (reported as mismatches
 * that a re-run no longer shows; see repair of counts below).
 *
 * Repair (after the snapshot is closed, from a spool of the findings kept in
 * a temp file). Index findings: under the engine lock of the edge the Index
 * key names (OUT: source=dsource, target=dtarget; IN: swapped; multi-edge:
 * id=dtarget) -- ab_engine_lock / ab_engine_unlock, the protocol of live
 * mutations -- re-read the live State, re-derive that edge's Index rows, put
 * the key's derived value if the key is still implied, else delete the key.
 * Count findings: add (derived - found) with the store's atomic increment,
 * which commutes with the +-1 of live mutations made since the snapshot (no
 * single edge lock covers a Count row). On a store whose batches are not
 * atomic, a Count whose live value moved since the snapshot is deferred to
 * the next run instead (it may be an in-flight batch's increment). */
#pragma once
#include <stdio.h>
#include <glib.h>
#include "engine/engine.h"

#define AB_VERIFY_ERROR (ab_verify_error_quark ())
GQuark ab_verify_error_quark (void);

typedef enum {
  AB_VERIFY_ERROR_ARGS,      /* bad options (shard out of range...) */
  AB_VERIFY_ERROR_NOT_FOUND, /* the named database or table does not exist */
  AB_VERIFY_ERROR_IO,        /* temp files, report file */
  AB_VERIFY_ERROR_STORE,     /* the datastore failed */
} AbVerifyError;

typedef enum {
  AB_MISMATCH_INDEX_MISSING,
  AB_MISMATCH_INDEX_STALE,
  AB_MISMATCH_INDEX_ORPHAN,
  AB_MISMATCH_COUNT_MISSING,
  AB_MISMATCH_COUNT_WRONG,
  AB_MISMATCH_COUNT_ORPHAN,
  AB_MISMATCH_STATE_CORRUPT,
  AB_MISMATCH_N_CLASSES,
} AbMismatchClass;

/* "index_missing", ... as in the report. */
const gchar *ab_mismatch_class_name (AbMismatchClass cls);

/* One finding, borrowed for the duration of the callback. */
typedef struct {
  AbMismatchClass cls;
  const gchar *table; /* "db.table" */
  const guint8 *key;
  gsize klen;
  const guint8 *expected; /* index classes: derived value, NULL if none */
  gsize elen;
  const guint8 *found; /* stored bytes, NULL if absent */
  gsize flen;
  gint64 expected_count; /* count classes */
  gint64 found_count;    /* count classes; 0 when absent or malformed */
  const gchar *detail;   /* state_corrupt: the decoder's message */
} AbMismatch;

typedef void (*AbMismatchFunc) (const AbMismatch *m, gpointer user);

typedef struct {
  const gchar *database; /* NULL = every database */
  const gchar *table;    /* NULL = every table (needs database) */
  guint shard;           /* 0-based */
  guint n_shards;        /* 0 or 1 = unsharded */
  gboolean repair;
  const gchar *report_path;   /* JSON lines, one per mismatch; NULL = none */
  const gchar *tmpdir;        /* NULL = g_get_tmp_dir () */
  gsize run_bytes;            /* in-memory sort run; 0 = 64 MiB */
  gboolean progress;          /* progress lines on stderr */
  AbMismatchFunc on_mismatch; /* optional, called for every finding */
  gpointer user;
} AbVerifyOptions;

typedef struct {
  guint tables_checked;
  GPtrArray *tables;      /* gchar* "db.table" checked */
  GPtrArray *skipped;     /* gchar* "db.table (why)" */
  guint64 state_rows;     /* State rows in this shard's slice */
  guint64 states_decoded; /* State rows decoded (own + routed here) */
  guint64 index_rows;     /* stored Index rows compared (slice) */
  guint64 count_rows;     /* stored Count rows compared (slice) */
  guint64 derived_index;  /* derived Index rows in the slice */
  guint64 derived_count;  /* distinct derived Count rows in the slice */
  guint64 mismatches[AB_MISMATCH_N_CLASSES];
  guint64 repaired;        /* findings fixed */
  guint64 repair_deferred; /* counts that moved since the snapshot (non-atomic store) */
  guint64 repair_failed;   /* lock not acquired or write failed */
  guint spilled_runs;      /* sort runs written to temp files */
  gdouble seconds;
} AbVerifyStats;

void ab_verify_options_init (AbVerifyOptions *o);
void ab_verify_stats_init (AbVerifyStats *s);
void ab_verify_stats_clear (AbVerifyStats *s);
guint64 ab_verify_stats_mismatches (const AbVerifyStats *s);

/* Salt slice of shard k of n: [*lo, *hi) with *hi <= 2^32. */
void ab_verify_shard_slice (guint k, guint n, guint64 *lo, guint64 *hi);

/* Runs one verification (and repair when asked) on the engine's store and
 * catalog. FALSE + error on a failure that stops the run; mismatches are not
 * errors (see stats). stats must be initialised. */
gboolean ab_verify_run (AbEngine *engine, const AbVerifyOptions *opts, AbVerifyStats *stats,
                        GError **error);

/* The human summary (what actionbase-verify prints on stdout). */
void ab_verify_print_summary (const AbVerifyOptions *opts, const AbVerifyStats *stats, FILE *out);
