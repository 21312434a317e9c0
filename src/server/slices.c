/* The programs' slices from malloc (slices.h). GLib before 2.76 serves
 * GBytes, arrays, lists, hash tables and json-glib's nodes from per-thread
 * magazines: made on one thread and freed on another they cost the server's
 * workers and the import 10-25% of their CPU (docs/benchmarks.md). */
#include "server/slices.h"

#include <stdlib.h>
#include <unistd.h>
#include <glib.h>

void
ab_slices_from_malloc (char **argv)
{
  if (getenv ("G_SLICE") != NULL || glib_check_version (2, 76, 0) == NULL)
    return;
  setenv ("G_SLICE", "always-malloc", 1);
  execv ("/proc/self/exe", argv); /* returns only on failure: run on as is */
}
