/* A small disk for full-disk tests (small_disk.h): a tmpfs mounted on a
 * fresh temporary directory, a filler file that leaves a chosen number of
 * bytes free, and the unmount. Used by the store and REST suites. */
#include "small_disk.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

gchar *
ab_small_disk_new (const gchar *size, const gchar *what)
{
  gchar *mnt = g_dir_make_tmp ("ab-disk-XXXXXX", NULL);
  ck_assert_ptr_nonnull (mnt);
  g_autofree gchar *opts = g_strdup_printf ("size=%s", size);
  if (mount ("tmpfs", mnt, "tmpfs", 0, opts) == 0)
    return mnt;
  int err = errno;
  ck_assert_msg (err == EPERM, "mount tmpfs: %s", g_strerror (err));
  g_printerr ("%s: not run: mounting a tmpfs needs root (%s)\n", what, g_strerror (err));
  g_rmdir (mnt);
  g_free (mnt);
  return NULL;
}

void
ab_small_disk_fill (const gchar *mnt, const gchar *filler, guint64 leave)
{
  struct statvfs st;
  ck_assert_int_eq (statvfs (mnt, &st), 0);
  guint64 avail = (guint64) st.f_bavail * st.f_frsize;
  g_autofree gchar *path = g_build_filename (mnt, filler, NULL);
  int fd = open (path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (posix_fallocate (fd, 0, (off_t) (avail > leave ? avail - leave : 0)), 0);
  close (fd);
}

void
ab_small_disk_free (gchar *mnt)
{
  ck_assert_int_eq (umount2 (mnt, MNT_DETACH), 0);
  g_rmdir (mnt);
  g_free (mnt);
}
