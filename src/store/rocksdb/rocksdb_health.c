/* The rocksdb backend's health figures for /metrics (ab_store_gauges):
 * compaction debt, write stalls, memtable and block cache memory from
 * RocksDB's properties, block cache hits and misses from its statistics. */
#include "store/rocksdb/rocksdb-private.h"

#include <string.h>

typedef enum {
  FROM_PROPERTY, /* rocksdb_property_int: the database's state now */
  FROM_TICKER,   /* a statistics ticker: a total since the database opened */
} RocksSource;

typedef enum {
  AS_IS,
  NONZERO, /* 1 when the source is not 0 */
  MICROS,  /* microseconds, reported in seconds */
} RocksUnit;

typedef struct {
  const gchar *name;
  const gchar *help;
  AbStoreGaugeType type;
  RocksSource source;
  const gchar *key; /* the property or ticker name */
  RocksUnit unit;
} RocksFigure;

/* In the order /metrics prints them (docs/operations.md, Metrics reference). */
static const RocksFigure figures[] = {
  { "actionbase_store_rocksdb_pending_compaction_bytes",
    "Bytes RocksDB estimates compaction must rewrite to bring every level under its target.",
    AB_STORE_GAUGE, FROM_PROPERTY, "rocksdb.estimate-pending-compaction-bytes", AS_IS },
  { "actionbase_store_rocksdb_write_stopped", "1 while RocksDB stops every write.", AB_STORE_GAUGE,
    FROM_PROPERTY, "rocksdb.is-write-stopped", AS_IS },
  { "actionbase_store_rocksdb_write_delayed",
    "1 while RocksDB slows writes down to the delayed write rate.", AB_STORE_GAUGE, FROM_PROPERTY,
    "rocksdb.actual-delayed-write-rate", NONZERO },
  { "actionbase_store_rocksdb_delayed_write_rate_bytes_per_second",
    "Write rate RocksDB allows while it delays writes (0 when it does not).", AB_STORE_GAUGE,
    FROM_PROPERTY, "rocksdb.actual-delayed-write-rate", AS_IS },
  { "actionbase_store_rocksdb_write_stall_seconds_total",
    "Time writes spent delayed or stopped by RocksDB.", AB_STORE_COUNTER, FROM_TICKER,
    "rocksdb.stall.micros", MICROS },
  { "actionbase_store_rocksdb_memtable_bytes",
    "Memory of the active and not yet flushed memtables.", AB_STORE_GAUGE, FROM_PROPERTY,
    "rocksdb.cur-size-all-mem-tables", AS_IS },
  { "actionbase_store_rocksdb_block_cache_usage_bytes", "Memory held by the block cache.",
    AB_STORE_GAUGE, FROM_PROPERTY, "rocksdb.block-cache-usage", AS_IS },
  { "actionbase_store_rocksdb_block_cache_pinned_bytes",
    "Block cache memory pinned by readers and pinned index and filter blocks.", AB_STORE_GAUGE,
    FROM_PROPERTY, "rocksdb.block-cache-pinned-usage", AS_IS },
  { "actionbase_store_rocksdb_block_cache_capacity_bytes", "Capacity of the block cache.",
    AB_STORE_GAUGE, FROM_PROPERTY, "rocksdb.block-cache-capacity", AS_IS },
  { "actionbase_store_rocksdb_block_cache_hits_total",
    "Block lookups the block cache answered (data, index and filter blocks).", AB_STORE_COUNTER,
    FROM_TICKER, "rocksdb.block.cache.hit", AS_IS },
  { "actionbase_store_rocksdb_block_cache_misses_total",
    "Block lookups that read the block from a table file.", AB_STORE_COUNTER, FROM_TICKER,
    "rocksdb.block.cache.miss", AS_IS },
};

/* The count of ticker `name` in the text of rocksdb_options_statistics_get_string,
 * one "NAME COUNT : N" line per ticker. */
static gboolean
ticker_count (const gchar *stats, const gchar *name, guint64 *out)
{
  static const gchar sep[] = " COUNT : ";
  gsize n = strlen (name);
  for (const gchar *line = stats; line != NULL; line = strchr (line, '\n'))
    {
      if (*line == '\n')
        line++;
      if (strncmp (line, name, n) == 0 && strncmp (line + n, sep, sizeof sep - 1) == 0)
        {
          *out = g_ascii_strtoull (line + n + sizeof sep - 1, NULL, 10);
          return TRUE;
        }
    }
  return FALSE;
}

guint
ab_rocks_gauges (AbStore *s, AbStoreGauge *out, guint max)
{
  RocksEnv *e = ab_rocks_env_of (s);
  /* NULL when statistics are off: the tickers are then left out. Building
   * the text costs about 0.4 ms (every ticker and histogram), once a scrape. */
  char *stats = rocksdb_options_statistics_get_string (e->options);
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (figures) && n < max; i++)
    {
      const RocksFigure *f = &figures[i];
      guint64 raw = 0;
      gboolean known = f->source == FROM_PROPERTY
                           ? rocksdb_property_int (e->db, f->key, &raw) == 0
                           : stats != NULL && ticker_count (stats, f->key, &raw);
      if (!known)
        continue;
      out[n] = (AbStoreGauge){ f->name, f->help, f->type, (gdouble) raw };
      if (f->unit == NONZERO)
        out[n].value = raw != 0;
      else if (f->unit == MICROS)
        out[n].value = raw / 1e6;
      n++;
    }
  rocksdb_free (stats);
  return n;
}
