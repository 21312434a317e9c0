/* What the parts of actionbase-admin copy share: its options (cmd_copy.c),
 * the checkpoint file (copy_checkpoint.c) and the state of one run, which the
 * pass (copy_pass.c) fills and the command sums up. */
#pragma once
#include "admin/admin-private.h"
#include "store/store.h"

#define COPY_MAX_READERS 64

typedef struct {
  gchar *from, *to, *checkpoint;
  GPtrArray *databases; /* sorted, unique names; empty = everything */
  gint batch, threads, readers;
  gboolean force, rescan;
  gchar *wal;           /* --wal: the source's WAL to catch up from, or NULL */
  gint wal_margin;      /* seconds */
  gchar **insert_merge; /* --insert-merge databases (NULL-terminated) */
} AbCopyOptions;

/* What a checkpoint file says. */
typedef struct {
  gchar *mode; /* "copy" or "rescan" */
  gboolean complete;
  /* Per key range (one unless the copy read several at once): the key at or
   * below which every row of the range is written; NULL: nothing done yet. */
  GPtrArray *positions; /* GByteArray* or NULL */
  guint64 rows, written, deleted;
  /* --wal: where the catch-up reads next, records before since_ms skipped */
  GByteArray *wal_position; /* NULL: the copy was started without --wal */
  gint64 wal_since_ms;
  guint64 wal_read, wal_applied;
  gboolean wal_running;     /* a catch-up run had not ended when this was saved */
  gboolean wal_interrupted; /* some catch-up run stopped in the middle of a chunk */
} AbCopyCheckpoint;

/* One run of the command: the stores, the filter, the writers and the
 * ranges of the pass, its totals and its first error. */
typedef struct {
  const AbCopyOptions *o;
  AbStore *from, *to;
  gsize max_key;
  GHashTable *dbs;   /* NULL = everything; else name -> itself */
  GHashTable *codes; /* table codes of the chosen databases */
  AbProgress *progress;
  GAsyncQueue *queue; /* CopyBatch* to the writers; STOP ends one writer */
  GPtrArray *writers; /* GThread* */
  GPtrArray *ranges;  /* CopyRange*: one, or --readers of them from a remote source */
  GMutex ckpt_lock;   /* one reader saves the checkpoint at a time */
  gint64 last_ckpt, last_log;
  gboolean logged_first;
  /* rescan: the target's rows, a page at a time */
  GArray *tpage;
  guint tpos;
  gboolean tend;
  GByteArray *tafter; /* the page after this key (NULL: from the start) */
  /* shared with the writers */
  GMutex lock;
  GCond cond;
  guint in_flight, max_in_flight;
  guint64 rows, written, deleted;
  gboolean dirty;
  GError *error;
  gint stopped; /* atomic: error is set (read on every row without the lock) */
  /* --wal (reader thread only) */
  AbCatchUp catch_up;
  gboolean wal_running, wal_interrupted;
} AbCopy;

/* cmd_copy.c: "name, name" or "(all)". */
gchar *ab_admin_copy_databases_text (const AbCopyOptions *o);

/* copy_checkpoint.c */
/* n positions, each NULL (nothing done yet). */
GPtrArray *ab_admin_copy_positions_new (guint n);
void ab_admin_copy_checkpoint_clear (AbCopyCheckpoint *ck);
/* Loads FILE: FALSE with error when it cannot be read or belongs to another
 * copy (*mismatch set); TRUE with ck->mode NULL when there is none. */
gboolean ab_admin_copy_checkpoint_load (const AbCopyOptions *o, AbCopyCheckpoint *ck,
                                        gboolean *mismatch, GError **error);
/* Written whole to a temp file, fsynced, renamed over FILE, directory fsynced:
 * after a crash FILE is the old or the new checkpoint, never a mix. */
gboolean ab_admin_copy_checkpoint_save (const AbCopyOptions *o, const AbCopyCheckpoint *ck,
                                        GError **error);
/* One run per checkpoint at a time: two would write the same rows (and a
 * catch-up takes no edge locks). An exclusive flock on CHECKPOINT.lock, held
 * until the process exits; -1 (said why) when another run holds it. */
int ab_admin_copy_lock_checkpoint (const AbCopyOptions *o);

/* copy_pass.c */
/* The table codes of the chosen databases (none chosen: every row). */
gboolean ab_admin_copy_build_filter (AbCopy *c, GError **error);
/* The key ranges of the pass (AbCopy.ranges): n of them over the first key
 * byte, each after its position when positions (n of them) is not NULL. */
GPtrArray *ab_admin_copy_ranges_new (guint n, const GPtrArray *positions);
/* Stops the run with err (taken; the first one is kept). */
void ab_admin_copy_fail (AbCopy *c, GError *err);
/* The checkpoint of where the run stands (complete_pass: the pass ended). */
void ab_admin_copy_fill_checkpoint (AbCopy *c, AbCopyCheckpoint *ck, gboolean complete_pass);
/* The pass with its writers: FALSE when it stopped early (c->error). */
gboolean ab_admin_copy_run_pass (AbCopy *c);
