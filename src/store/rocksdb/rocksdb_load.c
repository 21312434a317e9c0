/* rocksdb sorted loads (store.h, ab_store_load_*): rows in key order go into
 * a table file beside the database, written by RocksDB's SstFileWriter with
 * the database's own options, and each commit has the committer ingest it. */
#include "store/rocksdb/rocksdb-private.h"

#include <unistd.h>
#include <glib/gstdio.h>

typedef struct {
  AbStoreLoad base;
  AbStore *store;
  RocksEnv *e;
  rocksdb_envoptions_t *env_options;
  rocksdb_sstfilewriter_t *writer; /* NULL: no file open */
  gchar *path;                     /* the open file's */
  guint opened;                    /* files opened so far (their names) */
} RocksLoad;

static void
drop_file (RocksLoad *l)
{
  g_clear_pointer (&l->writer, rocksdb_sstfilewriter_destroy);
  if (l->path != NULL)
    g_unlink (l->path); /* not there once ingested (moved) */
  g_clear_pointer (&l->path, g_free);
}

static gboolean
load_put (AbStoreLoad *base, const guint8 *key, gsize klen, const guint8 *value, gsize vlen,
          GError **error)
{
  RocksLoad *l = (RocksLoad *) base;
  char *err = NULL;
  if (!ab_backend_check_key (klen, l->store->max_key, error))
    return FALSE;
  if (l->writer == NULL)
    {
      /* In the database's directory: the ingestion moves it by a link. */
      l->path = g_strdup_printf ("%s/load-%d-%u.sst", l->e->dir.path, (int) getpid (), ++l->opened);
      l->writer = rocksdb_sstfilewriter_create (l->env_options, l->e->options);
      rocksdb_sstfilewriter_open (l->writer, l->path, &err);
      if (err != NULL)
        {
          drop_file (l);
          return ab_rocks_fail (error, err, "open a table file to load");
        }
    }
  rocksdb_sstfilewriter_put (l->writer, (const char *) key, klen, (const char *) value, vlen, &err);
  if (err != NULL)
    return ab_rocks_fail (error, err, "load a row (keys must come in increasing order)");
  return TRUE;
}

static gboolean
load_commit (AbStoreLoad *base, GError **error)
{
  RocksLoad *l = (RocksLoad *) base;
  char *err = NULL;
  if (l->writer == NULL)
    return TRUE;
  rocksdb_sstfilewriter_finish (l->writer, &err);
  gboolean ok = err == NULL ? ab_rocks_ingest (l->store, l->path, error)
                            : ab_rocks_fail (error, err, "finish a table file to load");
  if (ok)
    l->base.files++;
  drop_file (l);
  return ok;
}

static void
load_free (AbStoreLoad *base)
{
  RocksLoad *l = (RocksLoad *) base;
  drop_file (l);
  rocksdb_envoptions_destroy (l->env_options);
  g_free (l);
}

static const AbStoreLoadVTable rocks_load_vtable = {
  .put = load_put,
  .commit = load_commit,
  .free = load_free,
};

/* The files of a load that a killed process left: this process holds the
 * directory (RocksDB's lock), so any other process's are orphans. */
static void
remove_orphans (const gchar *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_autofree gchar *mine = g_strdup_printf ("load-%d-", (int) getpid ());
  const gchar *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "load-") && g_str_has_suffix (name, ".sst")
        && !g_str_has_prefix (name, mine))
      {
        g_autofree gchar *path = g_build_filename (dir, name, NULL);
        g_unlink (path);
      }
}

AbStoreLoad *
ab_rocks_load_new (AbStore *s)
{
  RocksEnv *e = ab_rocks_env_of (s);
  if (e->o.readonly)
    return NULL; /* its batches say why */
  remove_orphans (e->dir.path);
  RocksLoad *l = g_new0 (RocksLoad, 1);
  l->base.vt = &rocks_load_vtable;
  l->store = s;
  l->e = e;
  l->env_options = rocksdb_envoptions_create ();
  return &l->base;
}
