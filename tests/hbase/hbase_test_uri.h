/* Store URIs of the HBase suites: a fresh table per call on the gateway named
 * by AB_HBASE_ADDR (HOST:PORT, set by tests/run.sh), so every test starts on
 * an empty table; NULL when the variable is unset (no HBase in this run). */
#pragma once
#include <glib.h>
#include <signal.h>
#include <unistd.h>

/* regions: pre-split regions of the new table (few keep table creation fast). */
static inline gchar *
ab_hbase_test_uri (const gchar *tag, guint regions)
{
  static guint seq;
  const gchar *addr = g_getenv ("AB_HBASE_ADDR");
  if (addr == NULL || *addr == '\0')
    return NULL;
  /* The suite talks to a gateway in-process: like the programs' mains, it
   * ignores SIGPIPE so that a gateway hanging up fails a call, not the run. */
  signal (SIGPIPE, SIG_IGN);
  /* pid: Check forks one process per test; time: runs share one HBase. */
  return g_strdup_printf ("hbase://%s/abtest?table=%s_%d_%u_%" G_GINT64_FORMAT "&regions=%u", addr,
                          tag, (int) getpid (), ++seq,
                          g_get_real_time () % G_GINT64_CONSTANT (1000000000), regions);
}

/* The local stores of a suite that loops over stores: memory, lmdb and
 * rocksdb; under valgrind (tests/valgrind.sh sets AB_TEST_UNDER_VALGRIND and
 * passes no HBase on) memory and lmdb. The engine and verifier code under
 * memcheck is the same on rocksdb, whose backend test_store runs there, and
 * the third store made these suites the slowest part of a CI run. */
static inline guint
ab_test_local_stores (void)
{
  const gchar *hbase = g_getenv ("AB_HBASE_ADDR");
  gboolean lean = g_getenv ("AB_TEST_UNDER_VALGRIND") != NULL && (hbase == NULL || *hbase == '\0');
  return lean ? 2 : 3;
}

/* The number of stores of a suite that also runs on HBase: its `local` ones,
 * plus one when AB_HBASE_ADDR names a gateway; without one it says on stderr
 * (once) that its hbase:// cases are not run. */
static inline guint
ab_hbase_test_n_stores (guint local)
{
  static gboolean told;
  const gchar *addr = g_getenv ("AB_HBASE_ADDR");
  if (addr != NULL && *addr != '\0')
    return local + 1;
  if (!told)
    g_printerr ("AB_HBASE_ADDR is not set: the hbase:// cases of this suite are not run\n");
  told = TRUE;
  return local;
}
