/* actionbase-admin: the operator's tool for moving data, one subcommand per
 * job (backup, restore, copy, import); the usage text lists them. Every
 * subcommand exits 0 when done, 1 with a message saying how to resume, 2 on usage. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "admin/admin-private.h"
#include "server/slices.h"

typedef struct {
  const gchar *name;
  int (*run) (int argc, char **argv);
  const gchar *summary;
} Command;

static const Command commands[] = {
  { "backup", ab_admin_backup, "--store URI --out DIR: an online, consistent backup" },
  { "restore", ab_admin_restore, "--in DIR --store URI: a backup into an empty store" },
  { "copy", ab_admin_copy, "--from URI --to URI [--database NAME...]: rows between stores" },
  { "import", ab_admin_import,
    "--store URI --database D --table T FILE...: edges from JSON Lines or CSV" },
};

static int
usage (FILE *out)
{
  fprintf (out, "Usage: actionbase-admin COMMAND [OPTION...]\n\nCommands:\n");
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (out, "  %-8s %s\n", commands[i].name, commands[i].summary);
  fprintf (out, "\nactionbase-admin COMMAND --help shows a command's options.\n");
  return out == stdout ? AB_ADMIN_EXIT_OK : AB_ADMIN_EXIT_USAGE;
}

int
main (int argc, char **argv)
{
  ab_slices_from_malloc (argv);
  signal (SIGPIPE, SIG_IGN); /* a dropped HBase gateway connection is an error, not a death */
  if (argc < 2)
    return usage (stderr);
  if (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h")
      || g_str_equal (argv[1], "help"))
    return usage (stdout);
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (g_str_equal (argv[1], commands[i].name))
      return commands[i].run (argc - 1, argv + 1);
  fprintf (stderr, "actionbase-admin: unknown command '%s'\n\n", argv[1]);
  return usage (stderr);
}
