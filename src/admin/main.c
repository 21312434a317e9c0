/* actionbase-admin: the operator's tool for moving data, one subcommand per
 * job (backup, restore, copy, import); the usage text lists them. Every
 * subcommand exits 0 when done, 1 with a message saying how to resume, 2 on usage. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "admin/admin-private.h"

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

/* GLib before 2.76 serves GBytes, arrays and lists from its slice allocator,
 * whose per-thread magazines cost this tool's threads (rows made on one,
 * freed on another) 10-15% of the import's CPU; with G_SLICE=always-malloc
 * those come from malloc, as they do from 2.76 on. GLib reads the variable
 * when the library loads, so it is set here and the program started again,
 * once (docs/operations.md, Bulk import). */
static void
slices_from_malloc (char **argv)
{
  if (getenv ("G_SLICE") != NULL || glib_check_version (2, 76, 0) == NULL)
    return;
  setenv ("G_SLICE", "always-malloc", 1);
  execv ("/proc/self/exe", argv); /* returns only on failure: run on as is */
}

int
main (int argc, char **argv)
{
  slices_from_malloc (argv);
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
