/* The write log of a store whose writers this process serialises (lmdb,
 * rocksdb): which keys its recent commits wrote, one Bloom filter per commit
 * in a ring, so a plan made ahead can skip re-reading rows nobody wrote. */
#pragma once
#include <glib.h>

typedef struct {
  guint64 *bits;              /* LOG_COMMITS filters (write_log.c) */
  _Atomic guint64 commit_seq; /* this process's commits so far, plus one */
  guint64 reread_below;       /* plans made before this seq re-read all */
} AbWriteLog;

void ab_write_log_init (AbWriteLog *l);
void ab_write_log_free (AbWriteLog *l);
/* A write begins (the writer's thread alone calls begin, key and
 * committed): its filter is emptied. foreign: another process may have
 * committed since this one's last commit, which voids every earlier plan. */
void ab_write_log_begin (AbWriteLog *l, gboolean foreign);
void ab_write_log_key (AbWriteLog *l, const void *key, gsize klen);
/* The write is durable: plans whose reads start from now see it. */
void ab_write_log_committed (AbWriteLog *l);
/* Any thread: the seq a plan takes before its reads (never 0). */
guint64 ab_write_log_seq (AbWriteLog *l);
/* Inside a write: may key have been written by a commit after seq, or by
 * this write so far? TRUE when the log cannot tell. */
gboolean ab_write_log_written_since (AbWriteLog *l, guint64 seq, const void *key, gsize klen);
