/* Store URIs of the HBase suites: a fresh table per call on the gateway named
 * by AB_HBASE_ADDR (HOST:PORT, set by tests/run.sh), so every test starts on
 * an empty table; NULL when the variable is unset (no HBase in this run). */
#pragma once
#include <glib.h>
#include <unistd.h>

/* regions: pre-split regions of the new table (few keep table creation fast). */
static inline gchar *
ab_hbase_test_uri (const gchar *tag, guint regions)
{
  static guint seq;
  const gchar *addr = g_getenv ("AB_HBASE_ADDR");
  if (addr == NULL || *addr == '\0')
    return NULL;
  /* pid: Check forks one process per test; time: runs share one HBase. */
  return g_strdup_printf ("hbase://%s/abtest?table=%s_%d_%u_%" G_GINT64_FORMAT "&regions=%u",
                          addr, tag, (int) getpid (), ++seq,
                          g_get_real_time () % G_GINT64_CONSTANT (1000000000), regions);
}
