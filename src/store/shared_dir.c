/* One state per directory and process for the local backends (lmdb's
 * environment, rocksdb's database): neither library lets a process open a
 * directory twice, so every handle on it shares the first one's state. */
#include "store/backend.h"

#include <errno.h>
#include <stdlib.h>

AbSharedDir *
ab_dir_registry_acquire (AbDirRegistry *r, const gchar *dir, const gchar *backend,
                         AbSharedDirNew make, gconstpointer options, GError **error)
{
  g_autofree gchar *path = NULL;
  if (g_mkdir_with_parents (dir, 0755) != 0 || (path = realpath (dir, NULL)) == NULL)
    {
      int err = errno;
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "%s directory %s: %s", backend, dir,
                   g_strerror (err));
      return NULL;
    }
  g_mutex_lock (&r->lock);
  if (r->by_path == NULL)
    r->by_path = g_hash_table_new (g_str_hash, g_str_equal);
  AbSharedDir *d = g_hash_table_lookup (r->by_path, path);
  if (d != NULL)
    d->refs++;
  else if ((d = make (path, options, error)) != NULL)
    {
      d->refs = 1;
      g_hash_table_insert (r->by_path, d->path, d);
    }
  g_mutex_unlock (&r->lock);
  return d;
}

gboolean
ab_dir_registry_release (AbDirRegistry *r, AbSharedDir *d)
{
  g_mutex_lock (&r->lock);
  gboolean last = --d->refs == 0;
  if (last)
    g_hash_table_remove (r->by_path, d->path);
  g_mutex_unlock (&r->lock);
  return last;
}
