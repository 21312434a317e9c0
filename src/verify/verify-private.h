/* Internals shared by the verifier's files: the state of one run (tables,
 * salt slice, snapshot, sorter, report and repair spool), the allocation-free
 * key prefix peek, and the entry points of each phase. Not for use outside
 * src/verify. */
#pragma once
#include "verify/verify.h"
#include "verify/sorter.h"
#include "engine/derive.h"

/* A checked table, looked up by table code for every row. */
typedef struct {
  AbTableDesc *desc;   /* reference */
  gchar *name;         /* "db.table" */
  guint8 code_elem[5]; /* enc_int32(table code), as inside keys */
  AbDirection dirs[2];
  guint n_dirs;
  gboolean multi;
  gboolean vertex;
  gboolean ranked; /* a group defines a top-K: rank and score rows checked */
} AbVerifyTable;

typedef struct {
  AbEngine *engine;
  const AbVerifyOptions *opts;
  AbVerifyStats *stats;
  GHashTable *tables; /* GINT_TO_POINTER (code) -> AbVerifyTable* */
  guint64 lo, hi;     /* salt slice [lo, hi) */
  gboolean sharded;
  AbSnapshot *snap;
  AbSorter *sorter;
  FILE *report;
  FILE *spool; /* findings to repair, read back after the snapshot */
  gchar *spool_buf;
  AbDerived head; /* pass 2: the derived stream's current row */
  gboolean has_head;
  GByteArray *cache_bound; /* pass 2: row || boundary of the cache row being
                           * compared (cells at or past it may be trimmed) */
  gsize cache_row_len;
  GArray *rank_entries; /* pass 1: the top-K entries of the group cells being
                         * walked (AbTopkEntry, one cells prefix) */
  GArray *rank_scores;  /* gint64 per entry: the sum of its cells so far */
  const AbVerifyTable *rank_table;
  GError *error; /* first failure inside a scan visitor */
  const gchar *phase;
  guint64 ticks;
  gint64 last_progress;
} AbVerifyRun;

/* The key prefix salt || enc(source) || enc_int32(table) || enc_int8(type),
 * located without decoding anything. */
typedef struct {
  guint32 salt;
  gsize src_end; /* offset just after enc(source) */
  gint32 table_code;
  gint8 type;
  gsize rest; /* offset just after the type element */
} AbKeyPeek;

gboolean ab_verify_peek (const guint8 *key, gsize klen, AbKeyPeek *out);
gboolean ab_verify_salt_in_slice (const AbVerifyRun *run, guint32 salt);
gboolean ab_verify_key_in_slice (const AbVerifyRun *run, const guint8 *key, gsize klen);
AbVerifyTable *ab_verify_lookup (AbVerifyRun *run, gint32 code);
/* The verified table the row at key belongs to, its peek in *p (p may be
 * NULL); NULL for a key that does not peek or a table not verified. */
AbVerifyTable *ab_verify_table_of (AbVerifyRun *run, const guint8 *key, gsize klen, AbKeyPeek *p);
/* The table keeps Group cells derivable from State (no ttl) or Cache cells. */
gboolean ab_verify_has_wide (const AbVerifyTable *t);
/* Counts a visited row; prints progress when asked, at most once a second. */
void ab_verify_tick (AbVerifyRun *run);
/* Records one finding: stats, report line, callback, repair spool. */
void ab_verify_emit (AbVerifyRun *run, const AbVerifyTable *t, AbMismatch *m);

/* Pass 1 (derive.c): the whole snapshot's State rows into run->sorter. */
gboolean ab_verify_derive_pass (AbVerifyRun *run, GError **error);
/* Pass 2 (compare.c): the slice's stored rows joined with the sorted stream. */
gboolean ab_verify_compare_pass (AbVerifyRun *run, GError **error);
/* Report lines (compare.c). */
void ab_verify_report_line (FILE *f, const AbMismatch *m);

/* Top-K rows (rank.c). Pass 1: a stored group cell of a ranked table, in key
 * order, adds to the score of its entries; an entry's rank and score rows
 * are derived (Index-like, valued be64(score)) once its cells are passed. */
gboolean ab_verify_topk_cell (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key,
                              gsize klen, const guint8 *val, gsize vlen);
gboolean ab_verify_topk_flush (AbVerifyRun *run);
/* Pass 2: the rank/score row key names a top-K t defines (else it is left alone). */
gboolean ab_verify_topk_defined (const AbVerifyTable *t, const guint8 *key, gsize klen,
                                 const AbKeyPeek *p);
gboolean ab_verify_is_topk_row (gint8 type);
/* Repair: the entry a rank/score key names re-scored from the live cells and
 * its rows rewritten (the key deleted when it is not the entry's); after a
 * Group cell repair from the value `before` (0: none), the entries of that
 * cell likewise, a cell entry's rank row at `before` deleted (it has no
 * score row to say where its rank row was). */
gboolean ab_verify_topk_repair (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key,
                                gsize klen, GError **error);
gboolean ab_verify_topk_rescore_cell (AbVerifyRun *run, const AbVerifyTable *t, const guint8 *key,
                                      gsize klen, gint64 before, GError **error);

/* Repair (repair.c). */
gboolean ab_verify_spool_open (AbVerifyRun *run, GError **error);
gboolean ab_verify_spool_add (AbVerifyRun *run, const AbVerifyTable *t, const AbMismatch *m);
gboolean ab_verify_repair (AbVerifyRun *run, GError **error);
