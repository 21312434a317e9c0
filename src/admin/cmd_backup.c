/* actionbase-admin backup and restore: placeholder until the subcommand lands;
 * it says so and fails, so nothing pretends to have worked.
 * (Replaced by the real implementation.) */
#include <stdio.h>
#include "admin/admin-private.h"

int
ab_admin_backup (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  fprintf (stderr, "actionbase-admin backup: not built yet\n");
  return AB_ADMIN_EXIT_FAILED;
}

int
ab_admin_restore (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  fprintf (stderr, "actionbase-admin restore: not built yet\n");
  return AB_ADMIN_EXIT_FAILED;
}
