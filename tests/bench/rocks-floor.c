/* lib-bench's baseline for RocksDB: the rows a durable INSERT of edges writes,
 * written through bare RocksDB with no engine, the floor under any API on
 * this machine. Keys and values have the sizes of Actionbase's rows. */
#include "rocks-floor.h"

#include <rocksdb/c.h>
#include <string.h>
#include <sys/resource.h>

/* One row's bytes, built in place. */
typedef struct {
  guint8 bytes[64];
  gsize len;
} Bytes;

static void
put (Bytes *b, const void *data, gsize len)
{
  g_assert (b->len + len <= sizeof b->bytes);
  memcpy (b->bytes + b->len, data, len);
  b->len += len;
}

/* A node's part of a key: its 4-byte salt, then its name between the string
 * element's tag and terminator (storage-format.md §3 and §1). */
static void
node (Bytes *b, const char *name)
{
  guint32 salt = g_str_hash (name);
  put (b, &salt, 4);
  put (b, "4", 1);
  put (b, name, strlen (name) + 1);
}

static void
row_key (Bytes *b, const char *src, char type, const char *dst, gboolean index)
{
  b->len = 0;
  node (b, src);
  put (b, "+\x8cZCx)", 6); /* table code, then the row type */
  put (b, &type, 1);
  if (index)
    put (b, "\x29\x82+i\xb7\x33\xc7\xd3\x7f\xff\xfe\x74\x30\x1a\x97\xff", 16);
  if (dst != NULL)
    {
      put (b, "4", 1);
      put (b, dst, strlen (dst) + 1);
    }
}

static void
must (char *err, const char *what)
{
  if (err != NULL)
    g_error ("rocksdb %s: %s", what, err);
}

/* What the writer needs. */
typedef struct {
  rocksdb_t *db;
  rocksdb_writeoptions_t *wo;
  gchar **users, **items;
  guint n_users, n_edges, batch;
  gboolean gets;
} Writer;

static void
write_all (const Writer *w)
{
  rocksdb_readoptions_t *ro = rocksdb_readoptions_create ();
  rocksdb_writebatch_t *wb = rocksdb_writebatch_create ();
  guint8 state[57], index[23], count[8];
  memset (state, 0x2c, sizeof state);
  memset (index, 0x2c, sizeof index);
  memset (count, 0, sizeof count);
  count[7] = 1;
  Bytes k;
  char *err = NULL;
  GHashTable *counted = g_hash_table_new (NULL, NULL); /* the batch's counted nodes */
  for (guint k0 = 0; k0 < w->n_edges; k0 += w->batch)
    {
      for (guint e = k0; e < MIN (k0 + w->batch, w->n_edges); e++)
        {
          const char *src = w->users[e % w->n_users], *dst = w->items[e / w->n_users];
          row_key (&k, src, '}', dst, FALSE);
          if (w->gets)
            {
              size_t len = 0;
              rocksdb_free (rocksdb_get (w->db, ro, (const char *) k.bytes, k.len, &len, &err));
              must (err, "get");
            }
          rocksdb_writebatch_put (wb, (const char *) k.bytes, k.len, (const char *) state,
                                  sizeof state);
          row_key (&k, src, '|', dst, TRUE);
          rocksdb_writebatch_put (wb, (const char *) k.bytes, k.len, (const char *) index,
                                  sizeof index);
          row_key (&k, dst, '|', src, TRUE);
          rocksdb_writebatch_put (wb, (const char *) k.bytes, k.len, (const char *) index,
                                  sizeof index);
          /* a Count row once per batch and node, as a put: the fewest
           * writes its adds could be folded into */
          for (guint side = 0; side < 2; side++)
            {
              const char *n = side == 0 ? src : dst;
              if (!g_hash_table_add (counted, (gpointer) n))
                continue;
              row_key (&k, n, '~', NULL, FALSE);
              rocksdb_writebatch_put (wb, (const char *) k.bytes, k.len, (const char *) count,
                                      sizeof count);
            }
        }
      g_hash_table_remove_all (counted);
      rocksdb_write (w->db, w->wo, wb, &err);
      must (err, "write");
      rocksdb_writebatch_clear (wb);
    }
  g_hash_table_unref (counted);
  rocksdb_writebatch_destroy (wb);
  rocksdb_readoptions_destroy (ro);
}

gdouble
ab_bench_cpu_seconds (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

AbBenchRate
ab_bench_rocks_floor (const gchar *dir, gchar **users, guint n_users, gchar **items, guint n_edges,
                      guint batch, const AbBenchFloor *how)
{
  rocksdb_options_t *opt = rocksdb_options_create ();
  rocksdb_options_set_create_if_missing (opt, 1);
  rocksdb_options_set_write_buffer_size (opt, 32 << 20);
  /* the cheapest layout that still serves the rows: no compression, and a
   * filter only when gets need one to skip files */
  rocksdb_options_set_compression (opt, rocksdb_no_compression);
  rocksdb_block_based_table_options_t *t = rocksdb_block_based_options_create ();
  if (how->gets)
    rocksdb_block_based_options_set_filter_policy (t, rocksdb_filterpolicy_create_bloom_full (10));
  rocksdb_options_set_block_based_table_factory (opt, t);
  char *err = NULL;
  rocksdb_t *db = rocksdb_open (opt, dir, &err);
  must (err, "open");
  rocksdb_writeoptions_t *wo = rocksdb_writeoptions_create ();
  rocksdb_writeoptions_set_sync (wo, how->sync);
  Writer w = { db, wo, users, items, n_users, n_edges, batch, how->gets };
  gdouble cpu0 = ab_bench_cpu_seconds ();
  gint64 t0 = g_get_monotonic_time ();
  write_all (&w);
  gdouble rate = n_edges / ((g_get_monotonic_time () - t0) / 1e6);
  rocksdb_writeoptions_destroy (wo);
  rocksdb_close (db);
  gdouble cpu = ab_bench_cpu_seconds () - cpu0;
  rocksdb_block_based_options_destroy (t);
  rocksdb_options_destroy (opt);
  return (AbBenchRate){ rate, cpu * 1e6 / n_edges };
}
