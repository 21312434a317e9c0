/* actionbase-admin copy: placeholder until the subcommand lands;
 * it says so and fails, so nothing pretends to have worked.
 * (Replaced by the real implementation.) */
#include <stdio.h>
#include "admin/admin-private.h"

int
ab_admin_copy (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  fprintf (stderr, "actionbase-admin copy: not built yet\n");
  return AB_ADMIN_EXIT_FAILED;
}
