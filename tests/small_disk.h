/* A small disk for full-disk tests: a tmpfs of its own mounted on a fresh
 * directory (the suites run as root in CI; elsewhere the test says why it
 * cannot run), filled with one file up to what a test leaves free. */
#pragma once
#include <glib.h>

/* Mounts a tmpfs of size ("24m") on a fresh temporary directory and returns
 * its path, or NULL (said on stderr, for what) when mounting is not allowed. */
gchar *ab_small_disk_new (const gchar *size, const gchar *what);
/* Takes all but `leave` bytes of the disk with the file `filler` in it. */
void ab_small_disk_fill (const gchar *mnt, const gchar *filler, guint64 leave);
/* Unmounts (lazily) and removes the directory; frees mnt. */
void ab_small_disk_free (gchar *mnt);
