/* lmdb snapshots: one read transaction held from open to close, scanned with
 * a cursor that hands each row to a visitor without copying, and that gives
 * the map pages it walked back to the page cache as it goes; native backups. */
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "store/lmdb/lmdb-private.h"

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
note_row (LmdbSnapshot *snap, const guint8 *k, gsize klen, const guint8 *v, gsize vlen)
{
  guintptr a = MIN ((guintptr) k, (guintptr) v);
  guintptr b = MAX ((guintptr) k + klen, (guintptr) v + vlen);
  if (snap->lo == 0 || a < snap->lo)
    snap->lo = a;
  if (b > snap->hi)
    snap->hi = b;
  snap->walked += klen + vlen;
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

typedef struct {
  LmdbSnapshot *snap;
  AbScanVisitor visit;
  gpointer user;
} SnapVisit;

static gboolean
snapshot_row (const guint8 *k, gsize klen, const guint8 *v, gsize vlen, gpointer data)
{
  SnapVisit *sv = data;
  note_row (sv->snap, k, klen, v, vlen);
  if (!sv->visit (k, klen, v, vlen, sv->user))
    return FALSE;
  if (sv->snap->walked >= AB_LMDB_SNAPSHOT_RELEASE)
    release_pages (sv->snap);
  return TRUE;
}

gboolean
ab_lmdb_snapshot_scan (AbSnapshot *base, const AbScanRange *r, AbScanVisitor visit, gpointer user,
                       GError **error)
{
  LmdbSnapshot *snap = (LmdbSnapshot *) base;
  SnapVisit sv = { snap, visit, user };
  int rc = ab_lmdb_walk (ab_lmdb_env_of (base->store), snap->txn, r, snapshot_row, &sv);
  if (rc != 0)
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

/* This process's page-table entries for the environment's data file: the
 * map is read-only and shared, so MADV_DONTNEED leaves the pages in the page
 * cache (they fault back in when read again) and takes them out of our RSS.
 * Where the file is mapped comes from /proc/self/maps (lmdb does not say). */
static void
release_env_map (const gchar *data_path)
{
  FILE *f = fopen ("/proc/self/maps", "re");
  gchar line[4096 + 256];
  if (f == NULL)
    return;
  while (fgets (line, sizeof line, f) != NULL)
    {
      unsigned long lo, hi;
      int path_at = 0;
      g_strchomp (line);
      if (sscanf (line, "%lx-%lx %*s %*s %*s %*s %n", &lo, &hi, &path_at) < 2 || path_at == 0
          || strcmp (line + path_at, data_path) != 0 || hi <= lo)
        continue;
      madvise ((void *) lo, hi - lo, MADV_DONTNEED);
    }
  fclose (f);
}

/* mdb_env_copyfd2 on its own thread, into a pipe that the caller drains
 * into the file: the copy can run at most a few MiB ahead of the caller,
 * which releases the source pages the copy walked as it goes. */
typedef struct {
  MDB_env *env;
  int fd; /* the pipe's write end, closed when the copy returns */
  int rc;
} CopyJob;

static gpointer
copy_main (gpointer p)
{
  CopyJob *job = p;
  job->rc = mdb_env_copyfd2 (job->env, job->fd, MDB_CP_COMPACT);
  close (job->fd);
  return NULL;
}

/* Bytes copied between two releases. Often: on a fault the kernel also maps
 * the neighbouring cached pages (fault-around, 64 KiB), and the copy walks
 * the tree in key order, not file order, so it maps many times what it reads. */
#define RELEASE_EVERY ((gsize) 1 << 20)
#define PIPE_CHUNK ((gsize) 1 << 20)

static gboolean
write_all (int fd, const guint8 *p, gsize n)
{
  while (n > 0)
    {
      ssize_t w = write (fd, p, n);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return FALSE;
      p += w;
      n -= (gsize) w;
    }
  return TRUE;
}

/* One compacting copy into fd (from its current offset); the source map is
 * released every RELEASE_EVERY bytes: the copy reads every page of the
 * file, which would otherwise all count in this process's RSS. Returns the
 * copy's lmdb code, or an errno of the pipe or of writing fd. */
static int
copy_releasing (LmdbEnv *e, int fd, const gchar *data_path)
{
  int p[2];
  if (pipe2 (p, O_CLOEXEC) != 0)
    return errno;
  fcntl (p[1], F_SETPIPE_SZ, (int) PIPE_CHUNK);
  CopyJob job = { .env = e->env, .fd = p[1] };
  GThread *t = g_thread_new ("ab-lmdb-copy", copy_main, &job);
  g_autofree guint8 *buf = g_malloc (PIPE_CHUNK);
  gsize since = 0;
  int werr = 0;
  for (;;)
    {
      ssize_t n = read (p[0], buf, PIPE_CHUNK);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          if (n < 0 && werr == 0)
            werr = errno;
          break;
        }
      /* After a failed write, go on draining so that the copy can end. */
      if (werr == 0 && !write_all (fd, buf, (gsize) n))
        werr = errno != 0 ? errno : EIO;
      if ((since += (gsize) n) >= RELEASE_EVERY)
        {
          release_env_map (data_path);
          since = 0;
        }
    }
  close (p[0]);
  g_thread_join (t);
  release_env_map (data_path);
  return job.rc != 0 ? job.rc : werr;
}

/* The native backup: mdb_env_copyfd2 with MDB_CP_COMPACT runs its own read
 * transaction, so the copy is one consistent state while writers go on. Like
 * every transaction of this process it runs with map_lock shared; a map grown
 * by another process meanwhile (MDB_MAP_RESIZED) is adopted by the probe
 * transaction of ab_lmdb_begin_locked and the copy retried. The copy goes
 * through a pipe (copy_releasing) and is written through the page cache
 * (mdb_env_copy2 would open the file O_DIRECT), so that reading it back (its
 * checksum, the dump made from it) costs no disk reads; fsynced at the end. */
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
  g_autofree gchar *out = g_build_filename (dir, "data.mdb", NULL);
  g_autofree gchar *source = g_build_filename (e->dir.path, "data.mdb", NULL);
  int fd = open (out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb native backup into %s: %s", out,
                   g_strerror (err));
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
      rc = copy_releasing (e, fd, source);
      g_rw_lock_reader_unlock (&e->map_lock);
      if (rc != MDB_MAP_RESIZED)
        break;
      if (ftruncate (fd, 0) != 0 || lseek (fd, 0, SEEK_SET) != 0)
        {
          rc = errno;
          break;
        }
    }
  if (rc == 0 && fsync (fd) != 0)
    rc = errno;
  if (close (fd) != 0 && rc == 0)
    rc = errno;
  if (rc != 0)
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_IO, "lmdb native backup into %s: %s", dir,
                   mdb_strerror (rc));
      return FALSE;
    }
  return TRUE;
}
