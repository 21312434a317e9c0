/* Helpers shared by the store suites: a scratch directory per test run,
 * opening stores by URI with a checked result, and typed asserts on stored
 * values, so each test reads as the behaviour it checks. */
#pragma once
#include <check.h>
#include <glib.h>
#include <string.h>

#include "store/store.h"

/* Scratch root for the whole run (made in main, removed at the end). */
void st_root_init (void);
void st_root_cleanup (void);
/* A fresh directory under the root; caller frees the string. */
gchar *st_fresh_dir (const gchar *tag);
void st_rmtree (const gchar *dir);

/* Backend k of st_backend_count(): 0 = memory, 1 = lmdb and 2 = rocksdb (a
 * fresh dir each, sync=0), 3 = hbase (a fresh table; only when AB_HBASE_ADDR names a gateway). */
guint st_backend_count (void);
/* Backend k is hbase: batches are not atomic, and check-and-set cannot tell
 * an empty value from an absent one (docs/hbase-adapter.md §3.6). */
gboolean st_backend_hbase (guint k);
AbStore *st_open_backend (guint k);
AbStore *st_open (const gchar *uri);
/* "SCHEME:DIR" or "SCHEME:DIR?QUERY" (query NULL: none). */
gchar *st_uri (const gchar *scheme, const gchar *dir, const gchar *query);
/* Opening uri fails with code and a message holding needle. */
void st_assert_open_fails (const gchar *uri, gint code, const gchar *needle);
/* Runs suite with a scratch root around it; main's exit status. */
int st_run (Suite *suite);

/* Strings as keys and values (without their NUL). */
#define ST_S(str) (const guint8 *) (str), strlen (str)

void st_put (AbStore *s, const guint8 *k, gsize klen, const guint8 *v, gsize vlen);
/* Asserts the stored value equals v (v == NULL: absent). */
void st_assert_value (AbStore *s, const guint8 *k, gsize klen, const guint8 *v, gsize vlen);
void st_assert_counter (AbStore *s, const guint8 *k, gsize klen, gint64 expected);
void st_assert_bytes_eq (GBytes *b, const guint8 *v, gsize vlen);

/* SIGKILL a process writing durable batches to uri (sync on); reopened,
 * the store holds every acknowledged batch whole (store_durable.c). */
void st_check_durable_after_sigkill (const gchar *uri);

/* A full disk (store_disk_full.c, on a 24 MiB tmpfs it mounts): a batch
 * that does not fit is refused as unavailable, nothing of it written, reads
 * go on, writes resume once space is freed. FALSE when it could not mount
 * (not root): said on stderr. */
gboolean st_check_disk_full (const gchar *scheme, const gchar *params);

/* The write log behind plans made ahead (store_write_log.c): a plan at seq
 * asks whether a and b (b may be NULL) were written since. */
void st_ask (AbStore *s, guint64 seq, const gchar *a, const gchar *b, gboolean *answer_a,
             gboolean *answer_b);
/* What every store with a log promises: rows committed after a seq count as
 * written, the others not; a plan sees the keys of the plans before it in
 * its group; a seq older than the log remembers counts as everything. */
void st_check_write_log (AbStore *s);

/* Adds fn to tc once per backend (_i is the backend's index). */
#define FOR_EACH_BACKEND(tc, fn) tcase_add_loop_test (tc, fn, 0, (int) st_backend_count ())
/* The transaction suites to tc, the concurrency ones to cc (store_txn.c). */
void st_add_transaction_tests (TCase *tc, TCase *cc);
