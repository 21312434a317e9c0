/* actionbase-verify: command-line front of the verifier library. Parses the
 * options, opens the engine on the store URI, runs one verification (and
 * repair), prints the summary; exit 0 clean, 1 mismatches found, 2 error. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "verify/verify.h"
#include "server/slices.h"

static gboolean
parse_shard (const gchar *text, guint *k, guint *n, GError **error)
{
  guint64 a, b;
  g_auto (GStrv) parts = g_strsplit (text, "/", 2);
  if (parts[0] == NULL || parts[1] == NULL
      || !g_ascii_string_to_unsigned (parts[0], 10, 0, G_MAXUINT16, &a, NULL)
      || !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT16, &b, NULL) || a >= b)
    return g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_ARGS,
                        "--shard %s: expected K/N with 0 <= K < N (e.g. 0/4)", text),
           FALSE;
  *k = (guint) a;
  *n = (guint) b;
  return TRUE;
}

typedef struct {
  gchar *store, *database, *table, *shard, *report, *tmpdir;
  gboolean repair, progress;
  gint run_mib;
} Args;

static gboolean
parse_args (int argc, char **argv, Args *a, GError **error)
{
  GOptionEntry entries[] = {
    { "store", 's', 0, G_OPTION_ARG_STRING, &a->store,
      "Datastore URI (lmdb:DIR, rocksdb:DIR, memory:, hbase://HOST:PORT)", "URI" },
    { "database", 'd', 0, G_OPTION_ARG_STRING, &a->database, "Only this database", "DB" },
    { "table", 't', 0, G_OPTION_ARG_STRING, &a->table, "Only this table (needs --database)",
      "TABLE" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &a->shard,
      "Check shard K of N (0-based slices of the salt space)", "K/N" },
    { "repair", 0, 0, G_OPTION_ARG_NONE, &a->repair, "Rewrite Index and Count from State", NULL },
    { "report", 'r', 0, G_OPTION_ARG_FILENAME, &a->report, "One JSON line per mismatch", "FILE" },
    { "progress", 0, 0, G_OPTION_ARG_NONE, &a->progress, "Progress lines on stderr", NULL },
    { "tmpdir", 0, 0, G_OPTION_ARG_FILENAME, &a->tmpdir, "Directory for sort runs", "DIR" },
    { "run-size", 0, 0, G_OPTION_ARG_INT, &a->run_mib, "Memory for one sort run (default 64)",
      "MIB" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- check Index and Count rows "
                                                         "against State (and repair them)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, error))
    return FALSE;
  if (a->store == NULL || argc > 1)
    return g_set_error_literal (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_ARGS,
                                a->store == NULL ? "--store URI is required"
                                                 : "unexpected arguments"),
           FALSE;
  if (a->run_mib < 0 || a->run_mib > 2047)
    return g_set_error_literal (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_ARGS,
                                "--run-size: 1..2047 MiB"),
           FALSE;
  return TRUE;
}

static void
args_clear (Args *a)
{
  g_free (a->store);
  g_free (a->database);
  g_free (a->table);
  g_free (a->shard);
  g_free (a->report);
  g_free (a->tmpdir);
}

static int
run (Args *a, GError **error)
{
  AbVerifyOptions o;
  AbVerifyStats stats;
  AbEngineConfig cfg;
  ab_verify_options_init (&o);
  o.database = a->database;
  o.table = a->table;
  o.repair = a->repair;
  o.report_path = a->report;
  o.progress = a->progress;
  o.tmpdir = a->tmpdir;
  o.run_bytes = (gsize) a->run_mib << 20;
  if (a->shard != NULL && !parse_shard (a->shard, &o.shard, &o.n_shards, error))
    return 2;
  ab_engine_config_init (&cfg);
  cfg.mutation_threads = 1;
  AbEngine *engine = ab_engine_open (a->store, &cfg, error);
  if (engine == NULL)
    return 2;
  ab_verify_stats_init (&stats);
  gboolean ok = ab_verify_run (engine, &o, &stats, error);
  if (ok)
    ab_verify_print_summary (&o, &stats, stdout);
  int status = !ok || stats.repair_failed > 0 ? 2 : ab_verify_stats_mismatches (&stats) > 0;
  ab_verify_stats_clear (&stats);
  ab_engine_close (engine);
  return status;
}

int
main (int argc, char **argv)
{
  Args a = { 0 };
  g_autoptr (GError) error = NULL;
  int status = 2;
  ab_slices_from_malloc (argv);
  /* An HBase gateway that hangs up must cost a failed call, not the process. */
  signal (SIGPIPE, SIG_IGN);
  if (parse_args (argc, argv, &a, &error))
    status = run (&a, &error);
  if (error != NULL)
    fprintf (stderr, "actionbase-verify: %s\n", error->message);
  args_clear (&a);
  return status;
}
