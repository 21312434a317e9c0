/* The rocksdb backend ("rocksdb:DIR"): one database per directory shared by
 * the handles of a process, tuned for this workload (prefix Bloom filters on
 * the salt, whole-key filters for State gets, one memory budget), its reads
 * (pinned gets, bounded iterators), snapshots and checkpoint backups. */
#include "store/rocksdb/rocksdb-private.h"
#include "store/cpus.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static AbDirRegistry registry; /* one database per directory */

RocksEnv *
ab_rocks_env_of (AbStore *s)
{
  return ((RocksStore *) s)->env;
}

gboolean
ab_rocks_fail (GError **error, char *err, const gchar *what)
{
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "rocksdb %s: %s", what,
               err != NULL ? err : "unknown error");
  rocksdb_free (err);
  return FALSE;
}

/* ---- reads ---- */

static gboolean
rocks_get_with (AbStore *s, const guint8 *key, gsize klen, AbScanVisitor visit, gpointer user,
                GError **error)
{
  RocksEnv *e = ab_rocks_env_of (s);
  char *err = NULL;
  rocksdb_pinnableslice_t *v = rocksdb_get_pinned (e->db, e->point, (const char *) key, klen, &err);
  if (err != NULL)
    return ab_rocks_fail (error, err, "get");
  if (v == NULL)
    {
      visit (key, klen, NULL, 0, user);
      return TRUE;
    }
  size_t vlen = 0;
  const char *data = rocksdb_pinnableslice_value (v, &vlen);
  static const guint8 empty[1] = { 0 };
  visit (key, klen, data != NULL ? (const guint8 *) data : empty, vlen,
         user); /* "" is not absent */
  rocksdb_pinnableslice_destroy (v);
  return TRUE;
}

rocksdb_readoptions_t *
ab_rocks_scan_options (const AbScanRange *r, const rocksdb_snapshot_t *snapshot, GBytes **upper)
{
  rocksdb_readoptions_t *ro = rocksdb_readoptions_create ();
  *upper = NULL;
  if (snapshot != NULL)
    rocksdb_readoptions_set_snapshot (ro, snapshot);
  if (r->stop != NULL)
    {
      /* the least key after an inclusive stop is the stop and a zero byte */
      GByteArray *b = g_byte_array_sized_new (r->stop_len + 1);
      g_byte_array_append (b, r->stop, r->stop_len);
      if (r->stop_inclusive)
        g_byte_array_append (b, (const guint8 *) "", 1);
      *upper = g_byte_array_free_to_bytes (b);
      gsize len;
      const char *data = g_bytes_get_data (*upper, &len);
      rocksdb_readoptions_set_iterate_upper_bound (ro, data, len);
    }
  /* A range inside one salt probes the prefix filters; any other range
   * (the verifier's, a catalog listing) reads in total order. */
  gboolean one_prefix = r->start != NULL && r->stop != NULL && r->start_len >= AB_ROCKS_PREFIX
                        && r->stop_len >= AB_ROCKS_PREFIX
                        && memcmp (r->start, r->stop, AB_ROCKS_PREFIX) == 0;
  if (one_prefix)
    rocksdb_readoptions_set_prefix_same_as_start (ro, 1);
  else
    rocksdb_readoptions_set_total_order_seek (ro, 1);
  return ro;
}

void
ab_rocks_seek (rocksdb_iterator_t *it, const AbScanRange *r)
{
  if (r->start == NULL || r->start_len == 0)
    {
      rocksdb_iter_seek_to_first (it);
      return;
    }
  rocksdb_iter_seek (it, (const char *) r->start, r->start_len);
  if (r->start_inclusive || !rocksdb_iter_valid (it))
    return;
  size_t klen;
  const guint8 *k = (const guint8 *) rocksdb_iter_key (it, &klen);
  if (ab_store_key_compare (k, klen, r->start, r->start_len) == 0)
    rocksdb_iter_next (it);
}

gboolean
ab_rocks_before_stop (const guint8 *key, gsize klen, const AbScanRange *r)
{
  if (r->stop == NULL)
    return TRUE;
  gint cmp = ab_store_key_compare (key, klen, r->stop, r->stop_len);
  return cmp < 0 || (cmp == 0 && r->stop_inclusive);
}

gboolean
ab_rocks_walk (rocksdb_iterator_t *it, const AbScanRange *r, AbScanVisitor visit, gpointer user,
               GError **error)
{
  static const guint8 empty[1] = { 0 };
  guint n = 0;
  for (ab_rocks_seek (it, r); rocksdb_iter_valid (it); rocksdb_iter_next (it))
    {
      size_t klen, vlen;
      const guint8 *k = (const guint8 *) rocksdb_iter_key (it, &klen);
      if (!ab_rocks_before_stop (k, klen, r) || (r->limit > 0 && n >= r->limit))
        break;
      n++;
      const char *v = rocksdb_iter_value (it, &vlen);
      if (!visit (k, klen, v != NULL ? (const guint8 *) v : empty, vlen, user))
        break;
    }
  char *err = NULL;
  rocksdb_iter_get_error (it, &err);
  return err == NULL || ab_rocks_fail (error, err, "scan");
}

gboolean
ab_rocks_scan_db (RocksEnv *e, const AbScanRange *r, const rocksdb_snapshot_t *snapshot,
                  AbRocksGroup *group, AbScanVisitor visit, gpointer user, GError **error)
{
  g_autoptr (GBytes) upper = NULL;
  rocksdb_readoptions_t *ro = ab_rocks_scan_options (r, snapshot, &upper);
  if (snapshot != NULL)
    rocksdb_readoptions_set_fill_cache (ro, 0); /* a whole-store pass would evict the hot blocks */
  rocksdb_iterator_t *it = rocksdb_create_iterator (e->db, ro);
  gboolean ok = group != NULL ? ab_rocks_group_walk (group, it, r, visit, user, error)
                              : ab_rocks_walk (it, r, visit, user, error);
  rocksdb_iter_destroy (it);
  rocksdb_readoptions_destroy (ro);
  return ok;
}

static gboolean
rocks_scan_with (AbStore *s, const AbScanRange *range, AbScanVisitor visit, gpointer user,
                 GError **error)
{
  return ab_rocks_scan_db (ab_rocks_env_of (s), range, NULL, NULL, visit, user, error);
}

/* ---- snapshots: a RocksDB snapshot held from open to close ---- */

typedef struct {
  AbSnapshot base;
  const rocksdb_snapshot_t *snap;
} RocksSnapshot;

static AbSnapshot *
rocks_snapshot_open (AbStore *s, GError **error)
{
  (void) error;
  RocksSnapshot *snap = g_new0 (RocksSnapshot, 1);
  snap->base.store = s;
  snap->snap = rocksdb_create_snapshot (ab_rocks_env_of (s)->db);
  return &snap->base;
}

static gboolean
rocks_snapshot_scan (AbSnapshot *base, const AbScanRange *r, AbScanVisitor visit, gpointer user,
                     GError **error)
{
  return ab_rocks_scan_db (ab_rocks_env_of (base->store), r, ((RocksSnapshot *) base)->snap, NULL,
                           visit, user, error);
}

static void
rocks_snapshot_close (AbSnapshot *base)
{
  RocksSnapshot *snap = (RocksSnapshot *) base;
  rocksdb_release_snapshot (ab_rocks_env_of (base->store)->db, snap->snap);
  g_free (snap);
}

/* ---- native backup: a checkpoint (hard links to the immutable files) ---- */

static gboolean
rocks_native_backup (AbStore *s, const gchar *dir, GError **error)
{
  RocksEnv *e = ab_rocks_env_of (s);
  /* A checkpoint makes its directory itself: an empty one is taken away. */
  if (g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      g_autoptr (GDir) d = g_dir_open (dir, 0, error);
      if (d == NULL)
        return FALSE;
      if (g_dir_read_name (d) != NULL)
        {
          g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                       "rocksdb native backup: %s is not empty", dir);
          return FALSE;
        }
      if (g_rmdir (dir) != 0)
        {
          int err = errno;
          g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                       "rocksdb native backup into %s: %s", dir, g_strerror (err));
          return FALSE;
        }
    }
  else
    {
      g_autofree gchar *parent = g_path_get_dirname (dir);
      if (g_mkdir_with_parents (parent, 0755) != 0)
        {
          int err = errno;
          g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                       "rocksdb native backup into %s: %s", dir, g_strerror (err));
          return FALSE;
        }
    }
  char *err = NULL;
  rocksdb_checkpoint_t *cp = rocksdb_checkpoint_object_create (e->db, &err);
  if (err != NULL)
    return ab_rocks_fail (error, err, "native backup");
  /* 0: flush the memtables first, so the copy needs no log replay */
  rocksdb_checkpoint_create (cp, dir, 0, &err);
  rocksdb_checkpoint_object_destroy (cp);
  if (err != NULL)
    return ab_rocks_fail (error, err, "native backup");
  return TRUE;
}

/* sync=0 leaves the write-ahead log in the page cache: flushed and synced
 * here. */
static gboolean
rocks_sync (AbStore *s, GError **error)
{
  char *err = NULL;
  rocksdb_flush_wal (ab_rocks_env_of (s)->db, 1, &err);
  return err == NULL || ab_rocks_fail (error, err, "sync");
}

/* ---- environments, shared per directory ---- */

/* Counters are 8-byte big-endian signed integers. A checked increment is
 * read and put back by the committer; an add (AB_MUT_ADD: Count rows and
 * group cells) is written as a merge operand holding its delta, which this
 * operator folds on reads and compactions. A stored value that is not a
 * counter keeps its value, and so does an operand that is not 8 bytes. */
static gint64
be64 (const char *p)
{
  guint64 n;
  memcpy (&n, p, 8);
  return (gint64) GUINT64_FROM_BE (n);
}

static char *
counter_fold (gboolean has_base, const char *base, size_t blen, const char *const *ops,
              const size_t *lens, int n, unsigned char *success, size_t *out_len)
{
  char *out = malloc (MAX (blen, 8));
  *success = 1;
  if (has_base && blen != 8)
    {
      memcpy (out, base, blen); /* no counter: left as it is */
      *out_len = blen;
      return out;
    }
  guint64 sum = has_base ? (guint64) be64 (base) : 0;
  for (int i = 0; i < n; i++)
    if (lens[i] == 8)
      sum += (guint64) be64 (ops[i]); /* wraps like a Java long */
  sum = GUINT64_TO_BE (sum);
  memcpy (out, &sum, 8);
  *out_len = 8;
  return out;
}

static char *
counter_full_merge (void *state, const char *key, size_t klen, const char *base, size_t blen,
                    const char *const *ops, const size_t *lens, int n, unsigned char *success,
                    size_t *out_len)
{
  (void) state;
  (void) key;
  (void) klen;
  return counter_fold (base != NULL, base, blen, ops, lens, n, success, out_len);
}

static char *
counter_partial_merge (void *state, const char *key, size_t klen, const char *const *ops,
                       const size_t *lens, int n, unsigned char *success, size_t *out_len)
{
  (void) state;
  (void) key;
  (void) klen;
  return counter_fold (FALSE, NULL, 0, ops, lens, n, success, out_len);
}

static void
counter_free (void *state, const char *value, size_t len)
{
  (void) state;
  (void) len;
  free ((void *) value);
}

static void
counter_destroy (void *state)
{
  (void) state;
}

static const char *
counter_name (void *state)
{
  (void) state;
  return "actionbase.counter.v1"; /* stored in OPTIONS: never rename */
}

static void
env_free (RocksEnv *e)
{
  ab_rocks_committer_stop (e);
  if (e->db != NULL)
    rocksdb_close (e->db);
  if (e->options != NULL)
    rocksdb_options_destroy (e->options);
  if (e->cache != NULL)
    rocksdb_cache_destroy (e->cache);
  if (e->point != NULL)
    rocksdb_readoptions_destroy (e->point);
  if (e->write != NULL)
    rocksdb_writeoptions_destroy (e->write);
  g_mutex_clear (&e->queue_lock);
  g_cond_clear (&e->work_cond);
  g_free (e->dir.path);
  g_free (e);
}

gsize
ab_rocks_memtable_bytes (const AbRocksOptions *o)
{
  return MAX ((gsize) 1 << 20, o->memory / 8);
}

gsize
ab_rocks_disk_reserve (const AbRocksOptions *o)
{
  return 2 * ab_rocks_memtable_bytes (o) + ((gsize) 4 << 20);
}

/* The options of this workload, from one memory budget: half of it block
 * cache (index and filter blocks charged to it), the rest memtables. */
static void
env_options (RocksEnv *e)
{
  const AbRocksOptions *o = &e->o;
  rocksdb_options_t *opt = rocksdb_options_create ();
  rocksdb_options_set_create_if_missing (opt, 1);
  /* flushes and compactions: as many as the cores this process may use */
  int jobs = (int) MAX (2, ab_usable_cpus ());
  rocksdb_options_increase_parallelism (opt, jobs);
  rocksdb_options_set_max_background_jobs (opt, jobs);
  rocksdb_options_set_write_buffer_size (opt, ab_rocks_memtable_bytes (o));
  rocksdb_options_set_max_write_buffer_number (opt, 4);
  rocksdb_options_set_level_compaction_dynamic_level_bytes (opt, 1);
  rocksdb_options_set_bytes_per_sync (opt, 1 << 20);
  rocksdb_options_set_compression (opt, rocksdb_lz4_compression);
  rocksdb_options_set_bottommost_compression (opt, rocksdb_zstd_compression);
  rocksdb_options_set_prefix_extractor (
      opt, rocksdb_slicetransform_create_fixed_prefix (AB_ROCKS_PREFIX));
  rocksdb_options_set_memtable_prefix_bloom_size_ratio (opt, 0.1);
  rocksdb_options_set_merge_operator (
      opt, rocksdb_mergeoperator_create (NULL, counter_destroy, counter_full_merge,
                                         counter_partial_merge, counter_free, counter_name));
  /* A hot counter's operands are folded by the committer (fold_counter in
   * rocksdb_write.c), not by RocksDB's max_successive_merges. Whole keys in
   * the memtables' Bloom filter: a get of a row the memtables lack (a new
   * edge's State) skips their skip lists. */
  rocksdb_options_set_memtable_whole_key_filtering (opt, 1);
  rocksdb_options_set_info_log_level (opt, 2); /* warnings and worse in DIR/LOG */
  rocksdb_options_set_keep_log_file_num (opt, 4);
  rocksdb_options_enable_statistics (opt); /* cache hits, stall time: rocksdb_health.c */
  rocksdb_block_based_table_options_t *t = rocksdb_block_based_options_create ();
  e->cache = rocksdb_cache_create_lru (MAX ((gsize) 1 << 20, o->memory / 2));
  rocksdb_block_based_options_set_block_cache (t, e->cache);
  rocksdb_block_based_options_set_filter_policy (t, rocksdb_filterpolicy_create_bloom_full (10));
  rocksdb_block_based_options_set_whole_key_filtering (t, 1);
  /* Partitioned index and filters: a table file's filter is cut into 4 KiB
   * blocks that the cache can hold and evict one by one. Whole, the filter of
   * a 20 MB file (2.5 MB) outgrew the cache's shard and was read from the
   * file again at every get (a 1M-edge load fell below 7k edges/s). */
  rocksdb_block_based_options_set_index_type (
      t, rocksdb_block_based_table_index_type_two_level_index_search);
  rocksdb_block_based_options_set_partition_filters (t, 1);
  rocksdb_block_based_options_set_metadata_block_size (t, 4096);
  rocksdb_block_based_options_set_cache_index_and_filter_blocks (t, 1);
  rocksdb_block_based_options_set_cache_index_and_filter_blocks_with_high_priority (t, 1);
  rocksdb_block_based_options_set_pin_top_level_index_and_filter (t, 1);
  rocksdb_block_based_options_set_pin_l0_filter_and_index_blocks_in_cache (t, 1);
  rocksdb_block_based_options_set_format_version (t, 5);
  rocksdb_options_set_block_based_table_factory (opt, t);
  rocksdb_block_based_options_destroy (t);
  e->options = opt;
}

static RocksEnv *
env_new (const gchar *path, const AbRocksOptions *o, GError **error)
{
  RocksEnv *e = g_new0 (RocksEnv, 1);
  e->dir.path = g_strdup (path);
  e->o = *o;
  g_mutex_init (&e->queue_lock);
  g_cond_init (&e->work_cond);
  g_queue_init (&e->pending);
  env_options (e);
  char *err = NULL;
  /* Read-only takes no lock: it opens every table file the writer has now
   * (max_open_files -1 keeps them open, so a compaction of the writer's
   * cannot take one away) and reads them as they were. */
  e->db = o->readonly ? rocksdb_open_for_read_only (e->options, path, 0, &err)
                      : rocksdb_open (e->options, path, &err);
  if (err != NULL)
    {
      /* another process holds DIR/LOCK: say so plainly */
      if (strstr (err, "lock") != NULL || strstr (err, "LOCK") != NULL)
        g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO,
                     "rocksdb %s is in use by another process (%s); a reader beside it (a "
                     "backup, a copy from it) opens it as rocksdb:%s?readonly=1",
                     path, err, path);
      else
        g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "rocksdb open %s: %s", path, err);
      rocksdb_free (err);
      e->db = NULL;
      env_free (e);
      return NULL;
    }
  e->point = rocksdb_readoptions_create ();
  e->write = rocksdb_writeoptions_create ();
  rocksdb_writeoptions_set_sync (e->write, o->sync);
  ab_rocks_committer_start (e);
  return e;
}

static AbSharedDir *
env_make (const gchar *path, gconstpointer options, GError **error)
{
  RocksEnv *e = env_new (path, options, error);
  return e != NULL ? &e->dir : NULL;
}

static void
env_release (RocksEnv *e)
{
  if (ab_dir_registry_release (&registry, &e->dir))
    env_free (e);
}

static void
rocks_close (AbStore *s)
{
  env_release (ab_rocks_env_of (s));
  g_free (s);
}

static const AbStoreVTable rocks_vtable = {
  .name = "rocksdb",
  .get_with = rocks_get_with,
  .scan_with = rocks_scan_with,
  .submit = ab_rocks_submit,
  .close = rocks_close,
  .transact = ab_rocks_transact,
  .snapshot_open = rocks_snapshot_open,
  .snapshot_scan = rocks_snapshot_scan,
  .snapshot_close = rocks_snapshot_close,
  .native_backup = rocks_native_backup,
  .load_new = ab_rocks_load_new,
  .native_read_params = "readonly=1",
  .sync = rocks_sync,
  .write_seq = ab_rocks_write_seq,
  .gauges = ab_rocks_gauges,
};

AbStore *
ab_store_rocksdb_new (const gchar *dir, const AbRocksOptions *o, GError **error)
{
  RocksEnv *e
      = (RocksEnv *) ab_dir_registry_acquire (&registry, dir, "rocksdb", env_make, o, error);
  if (e == NULL)
    return NULL;
  RocksStore *rs = g_new0 (RocksStore, 1);
  rs->base.vt = &rocks_vtable;
  rs->base.batch_atomic = TRUE;
  rs->base.never_blocks = TRUE;
  rs->base.max_key = AB_STORE_HBASE_MAX_KEY;
  rs->env = e;
  return &rs->base;
}
