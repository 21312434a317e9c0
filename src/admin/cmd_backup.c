/* actionbase-admin backup and restore: their options, signal handling and
 * messages; the dump itself (format, checks, checkpoint) is dump.c. Exit 0
 * done, 1 failed (the message says what was written and how to resume), 2 usage. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "admin/admin-private.h"
#include "admin/dump.h"

static volatile sig_atomic_t stop_requested;

static void
on_signal (int sig)
{
  (void) sig;
  stop_requested = 1;
}

/* SIGINT / SIGTERM ask the command to stop at the next row or batch; a
 * second one kills the process (SA_RESETHAND). */
static void
catch_signals (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
}

/* "67108864", "64k", "64m", "1g" (powers of 1024). */
static gboolean
parse_bytes (const gchar *text, gsize *out)
{
  gchar *end = NULL;
  guint64 n;
  guint shift = 0;
  if (text == NULL || !g_ascii_isdigit (text[0]))
    return FALSE;
  n = g_ascii_strtoull (text, &end, 10);
  switch (g_ascii_tolower (*end))
    {
      case '\0': break;
      case 'k': shift = 10; break;
      case 'm': shift = 20; break;
      case 'g': shift = 30; break;
      default: return FALSE;
    }
  if (shift > 0 && end[1] != '\0')
    return FALSE;
  if (n == 0 || n > (G_MAXSIZE >> shift))
    return FALSE;
  *out = (gsize) n << shift;
  return TRUE;
}

static int
usage_error (GOptionContext *ctx, const gchar *cmd, const gchar *msg)
{
  g_autofree gchar *help = g_option_context_get_help (ctx, TRUE, NULL);
  fprintf (stderr, "actionbase-admin %s: %s\n\n%s", cmd, msg, help);
  return AB_ADMIN_EXIT_USAGE;
}

static const gchar BACKUP_SUMMARY[]
    = "Writes one consistent snapshot of every row of the store (catalog and data) into DIR:\n"
      "chunk files and manifest.json, written last. A DIR without manifest.json is an\n"
      "incomplete backup. The server may keep writing meanwhile.";

static const gchar RESTORE_SUMMARY[]
    = "Checks the manifest and every chunk's size and SHA-256 before writing anything,\n"
      "then writes the rows in batches, chunk by chunk, recording each finished chunk\n"
      "in a checkpoint; an interrupted restore continues with --resume.";

/* A context for cmd's entries and summary (into *ctx_out), then argv parsed
 * with it; 0 = go on, else the exit code. */
static int
parse (GOptionContext **ctx_out, const gchar *cmd, const gchar *param, const gchar *summary,
       const GOptionEntry *entries, int argc, char **argv)
{
  GOptionContext *ctx = *ctx_out = g_option_context_new (param);
  g_option_context_set_summary (ctx, summary);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return usage_error (ctx, cmd, error->message);
  if (argc > 1)
    {
      g_autofree gchar *msg = g_strdup_printf ("unexpected argument '%s'", argv[1]);
      return usage_error (ctx, cmd, msg);
    }
  return 0;
}

int
ab_admin_backup (int argc, char **argv)
{
  g_autofree gchar *uri = NULL, *out = NULL, *chunk = NULL;
  gboolean native = FALSE;
  GOptionEntry entries[] = {
    { "store", 0, 0, G_OPTION_ARG_STRING, &uri,
      "The store to back up (lmdb:DIR, rocksdb:DIR[?readonly=1], hbase://...)", "URI" },
    { "out", 0, 0, G_OPTION_ARG_FILENAME, &out, "A new or empty directory for the backup", "DIR" },
    { "native", 0, 0, G_OPTION_ARG_NONE, &native,
      "lmdb and rocksdb: also the store's own copy in DIR/lmdb or DIR/rocksdb (the chunks are "
      "written from it)",
      NULL },
    { "chunk-size", 0, 0, G_OPTION_ARG_STRING, &chunk, "Chunk file size bound (default 64m)",
      "BYTES" },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = NULL;
  int rc = parse (&ctx, "backup", "- an online, consistent backup", BACKUP_SUMMARY, entries, argc,
                  argv);
  if (rc != 0)
    return rc;
  AbDumpBackupOptions o = { .source_uri = uri, .native = native, .stop = &stop_requested };
  if (uri == NULL || out == NULL)
    return usage_error (ctx, "backup", "--store and --out are required");
  if (chunk != NULL && !parse_bytes (chunk, &o.chunk_bytes))
    return usage_error (ctx, "backup", "--chunk-size wants BYTES, e.g. 67108864 or 64m");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbStore) store = ab_store_open (uri, &error);
  if (store == NULL)
    {
      fprintf (stderr, "actionbase-admin backup: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  catch_signals ();
  AbDumpStats stats = { 0 };
  o.progress = ab_progress_new ("backup", 0);
  if (!ab_dump_backup (store, out, &o, &stats, &error))
    {
      ab_progress_free (o.progress);
      fprintf (stderr, "actionbase-admin backup: %s\n", error->message);
      if (!g_error_matches (error, AB_DUMP_ERROR, AB_DUMP_ERROR_EXISTS))
        fprintf (stderr, "%s is incomplete (it has no %s): remove it and run the backup again\n",
                 out, AB_DUMP_MANIFEST);
      return AB_ADMIN_EXIT_FAILED;
    }
  ab_progress_finish (o.progress);
  g_autofree gchar *copy = native ? g_strdup_printf (" (and the store's own copy in %s/%s)", out,
                                                     ab_store_kind (store))
                                  : g_strdup ("");
  printf ("backup of %s: %" G_GUINT64_FORMAT " rows, %u chunks, %" G_GUINT64_FORMAT
          " bytes in %s%s\n",
          uri, stats.rows, stats.chunks, stats.bytes, out, copy);
  return AB_ADMIN_EXIT_OK;
}

int
ab_admin_restore (int argc, char **argv)
{
  g_autofree gchar *in = NULL, *uri = NULL, *checkpoint = NULL;
  gboolean force = FALSE, resume = FALSE, check_only = FALSE;
  gint batch = 0, in_flight = 0;
  GOptionEntry entries[] = {
    { "in", 0, 0, G_OPTION_ARG_FILENAME, &in, "The backup directory", "DIR" },
    { "store", 0, 0, G_OPTION_ARG_STRING, &uri, "The store to restore into", "URI" },
    { "force", 0, 0, G_OPTION_ARG_NONE, &force,
      "Write into a store that holds rows (its rows not in the backup stay)", NULL },
    { "resume", 0, 0, G_OPTION_ARG_NONE, &resume,
      "Continue an interrupted restore after the last chunk its checkpoint records", NULL },
    { "checkpoint", 0, 0, G_OPTION_ARG_FILENAME, &checkpoint,
      "Where the progress is recorded (default DIR/" AB_DUMP_CHECKPOINT ")", "FILE" },
    { "batch", 0, 0, G_OPTION_ARG_INT, &batch, "Rows per store batch (default 5000)", "N" },
    { "in-flight", 0, 0, G_OPTION_ARG_INT, &in_flight,
      "Batches written at once on HBase (default 4)", "N" },
    { "check", 0, 0, G_OPTION_ARG_NONE, &check_only,
      "Only check the backup (manifest and every chunk); no store needed", NULL },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = NULL;
  int rc = parse (&ctx, "restore", "- a backup into a store", RESTORE_SUMMARY, entries, argc, argv);
  if (rc != 0)
    return rc;
  if (in == NULL || (uri == NULL && !check_only))
    return usage_error (ctx, "restore", "--in and --store are required");
  if (batch < 0 || in_flight < 0 || (force && resume))
    return usage_error (ctx, "restore",
                        "--batch and --in-flight want positive numbers; --force and --resume "
                        "do not go together");
  g_autoptr (GError) error = NULL;
  AbDumpStats stats = { 0 };
  if (check_only)
    {
      if (!ab_dump_check (in, &stats, &error))
        {
          fprintf (stderr, "actionbase-admin restore: %s\n", error->message);
          return AB_ADMIN_EXIT_FAILED;
        }
      printf ("backup %s checks out: %" G_GUINT64_FORMAT " rows in %u chunks\n", in, stats.rows,
              stats.chunks);
      return AB_ADMIN_EXIT_OK;
    }
  g_autoptr (AbStore) store = ab_store_open (uri, &error);
  if (store == NULL)
    {
      fprintf (stderr, "actionbase-admin restore: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  catch_signals ();
  AbDumpRestoreOptions o = { .target_uri = uri,
                             .checkpoint = checkpoint,
                             .force = force,
                             .resume = resume,
                             .batch_rows = (guint) batch,
                             .in_flight = (guint) in_flight,
                             .stop = &stop_requested };
  AbDumpStats totals = { 0 };
  /* The manifest's row count sizes the bar (a bad one fails below). */
  ab_dump_read_totals (in, &totals, NULL);
  o.progress = ab_progress_new ("restore", totals.rows);
  if (!ab_dump_restore (store, in, &o, &stats, &error))
    {
      ab_progress_free (o.progress);
      fprintf (stderr, "actionbase-admin restore: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  ab_progress_finish (o.progress);
  printf ("restored %" G_GUINT64_FORMAT " rows (%u chunks) from %s into %s", stats.rows,
          stats.chunks, in, uri);
  if (stats.table_files > 0)
    printf (", each chunk ingested as a table file");
  if (stats.chunks_skipped > 0)
    printf (", after the %u chunks an earlier run wrote", stats.chunks_skipped);
  printf ("\n");
  return AB_ADMIN_EXIT_OK;
}
