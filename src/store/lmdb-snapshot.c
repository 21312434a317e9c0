/* lmdb snapshots: one read transaction held from open to close, scanned with
 * a cursor that hands each row to a visitor without copying, and that gives
 * the map pages it walked back to the page cache as it goes; native backups. */
#include <errno.h>
#include <glib/gstdio.h>
#include <sys/mman.h>
#include <unistd.h>
#include "store/lmdb-private.h"

#define AB_LMDB_SNAPSHOT_RELEASE ((gsize) 2 << 20) /* bytes walked between page releases */

typedef struct {
  AbSnapshot base;
  MDB_txn *txn;    /* holds map_lock shared until closed */
  gsize walked;    /* row bytes visited since the last page release */
  guintptr lo, hi; /* span of the map addresses visited since then */
} LmdbSnapshot;

AbSnapshot *
ab_lmdb_snapshot_open (AbStore *s, GError **error)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  LmdbSnapshot *snap = g_new0 (LmdbSnapshot, 1);
  gsize seen;
  int rc = ab_lmdb_begin_locked (e, NULL, MDB_RDONLY, &snap->txn, &seen);
  if (rc != 0)
    {
      ab_lmdb_set_error (error, rc, "snapshot read transaction");
      g_free (snap);
      return NULL;
    }
  snap->base.store = s;
  return &snap->base;
}

/* A scan of the whole file would leave every page it touched resident (and
 * counted in this process's RSS). The map is read-only and shared, so
 * MADV_DONTNEED only drops our page-table entries for the span of map
 * addresses the scan visited: the pages stay in the page cache and fault
 * back in if read again (by us or any other reader). lmdb does not publish
 * where it mapped the file, so the span comes from the rows themselves. */
static void
note_row (LmdbSnapshot *snap, const MDB_val *k, const MDB_val *v)
{
  guintptr a = MIN ((guintptr) k->mv_data, (guintptr) v->mv_data);
  guintptr b = MAX ((guintptr) k->mv_data + k->mv_size, (guintptr) v->mv_data + v->mv_size);
  if (snap->lo == 0 || a < snap->lo)
    snap->lo = a;
  if (b > snap->hi)
    snap->hi = b;
  snap->walked += k->mv_size + v->mv_size;
}

static void
release_pages (LmdbSnapshot *snap)
{
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
  guintptr lo = snap->lo & ~(page - 1);
  guintptr hi = (snap->hi + page - 1) & ~(page - 1);
  if (snap->lo != 0 && hi > lo)
    madvise ((void *) lo, hi - lo, MADV_DONTNEED);
  snap->walked = 0;
  snap->lo = snap->hi = 0;
}

gboolean
ab_lmdb_snapshot_scan (AbSnapshot *base, const AbScanRange *r, AbScanVisitor visit, gpointer user,
                       GError **error)
{
  LmdbSnapshot *snap = (LmdbSnapshot *) base;
  LmdbEnv *e = ab_lmdb_env_of (base->store);
  MDB_cursor *c;
  MDB_val k, v;
  guint n = 0;
  int rc = mdb_cursor_open (snap->txn, e->dbi, &c);
  if (rc != 0)
    {
      ab_lmdb_set_error (error, rc, "snapshot cursor");
      return FALSE;
    }
  for (rc = ab_lmdb_scan_position (e, c, r, &k, &v); rc == 0;
       rc = mdb_cursor_get (c, &k, &v, MDB_NEXT))
    {
      if (!ab_lmdb_before_stop (r, &k) || (r->limit > 0 && n >= r->limit))
        break;
      n++;
      note_row (snap, &k, &v);
      if (!visit (k.mv_data, k.mv_size, v.mv_data, v.mv_size, user))
        break;
      if (snap->walked >= AB_LMDB_SNAPSHOT_RELEASE)
        release_pages (snap);
    }
  mdb_cursor_close (c);
  if (rc != 0 && rc != MDB_NOTFOUND)
    {
      ab_lmdb_set_error (error, rc, "snapshot scan");
      return FALSE;
    }
  return TRUE;
}

void
ab_lmdb_snapshot_close (AbSnapshot *base)
{
  LmdbSnapshot *snap = (LmdbSnapshot *) base;
  LmdbEnv *e = ab_lmdb_env_of (base->store);
  mdb_txn_abort (snap->txn);
  g_rw_lock_reader_unlock (&e->map_lock);
  g_free (snap);
}

/* The native backup: mdb_env_copy2 with MDB_CP_COMPACT runs its own read
 * transaction, so the copy is one consistent state while writers go on. Like
 * every transaction of this process it runs with map_lock shared; a map grown
 * by another process meanwhile (MDB_MAP_RESIZED) is adopted by the probe
 * transaction of ab_lmdb_begin_locked and the copy retried. */
gboolean
ab_lmdb_native_backup (AbStore *s, const gchar *dir, GError **error)
{
  LmdbEnv *e = ab_lmdb_env_of (s);
  int rc = 0;
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int err = errno;
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb native backup into %s: %s", dir,
                   g_strerror (err));
      return FALSE;
    }
  g_autoptr (GDir) d = g_dir_open (dir, 0, error);
  if (d == NULL)
    return FALSE;
  if (g_dir_read_name (d) != NULL)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb native backup: %s is not empty",
                   dir);
      return FALSE;
    }
  for (guint attempt = 0; attempt < 4; attempt++)
    {
      MDB_txn *probe;
      gsize seen;
      rc = ab_lmdb_begin_locked (e, NULL, MDB_RDONLY, &probe, &seen);
      if (rc != 0)
        break;
      mdb_txn_abort (probe); /* map_lock stays held shared */
      rc = mdb_env_copy2 (e->env, dir, MDB_CP_COMPACT);
      g_rw_lock_reader_unlock (&e->map_lock);
      if (rc != MDB_MAP_RESIZED)
        break;
      g_autofree gchar *partial = g_build_filename (dir, "data.mdb", NULL);
      g_remove (partial); /* the copy creates it exclusively */
    }
  if (rc != 0)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb native backup into %s: %s", dir,
                   mdb_strerror (rc));
      return FALSE;
    }
  return TRUE;
}
