/* actionbase-admin import: bulk-loads edges from JSON Lines or CSV files through
 * the engine's own write path (typed items, ab_engine_mutate_items), several batches
 * in flight on threads, JSON Lines edges sorted by key a window at a time; bad lines
 * are reported as FILE:LINE and skipped; a checkpoint makes it resumable. Here: the
 * options, the messages, and one run from opening the engine to the summary. */
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <glib/gstdio.h>
#include "admin/import-private.h"

/* Two batches in flight keep the store's single committer busy while the
 * next batch is parsed and planned; big batches mean few durable commits,
 * each rewriting the B-tree pages it touched. */
#define DEFAULT_THREADS 2
#define DEFAULT_BATCH 10000
#define MAX_BATCH 100000
#define MAX_THREADS 256

static void
import_file_free (AbImportFile *f)
{
  g_free (f->path);
  g_free (f->abs);
  g_free (f->columns);
  if (f->done != NULL)
    g_hash_table_unref (f->done);
  g_free (f);
}

/* ---- messages ---- */

void
ab_admin_import_report (const AbImportFile *f, guint64 line, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "%s:%" G_GUINT64_FORMAT ": %s\n", f->path, line, msg);
}

void
ab_admin_import_stop (AbImport *imp, const gchar *why)
{
  g_mutex_lock (&imp->gate_lock);
  if (why != NULL && imp->fatal == NULL)
    imp->fatal = g_strdup (why);
  imp->gate_failed = TRUE;
  atomic_store (&imp->stop, TRUE);
  g_cond_broadcast (&imp->gate_cond);
  g_mutex_unlock (&imp->gate_lock);
  g_mutex_lock (&imp->q_lock);
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
}

/* ---- setting up ---- */

static AbImportFormat
format_of (const gchar *path)
{
  g_autofree gchar *lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".csv"))
    return AB_IMPORT_FORMAT_CSV;
  if (g_str_has_suffix (lower, ".jsonl") || g_str_has_suffix (lower, ".json")
      || g_str_has_suffix (lower, ".ndjson"))
    return AB_IMPORT_FORMAT_JSONL;
  return AB_IMPORT_FORMAT_AUTO;
}

static gboolean
parse_format (const gchar *name, const gchar *value, gpointer data, GError **error)
{
  AbImport *imp = data;
  (void) name;
  if (g_ascii_strcasecmp (value, "jsonl") == 0 || g_ascii_strcasecmp (value, "json") == 0
      || g_ascii_strcasecmp (value, "ndjson") == 0)
    imp->format = AB_IMPORT_FORMAT_JSONL;
  else if (g_ascii_strcasecmp (value, "csv") == 0)
    imp->format = AB_IMPORT_FORMAT_CSV;
  else
    return ab_admin_import_fail (error, "--format must be jsonl or csv, not '%s'", value);
  return TRUE;
}

static const gchar *const DESCRIPTION
    = "Each record becomes one mutation sent through the engine's write path, exactly as\n"
      "if it came through REST (State, Index, Count, Groups and Caches; versions fold).\n"
      "\n"
      "JSON Lines (.jsonl, .json, .ndjson): one edge per line,\n"
      "  {\"version\":1,\"source\":\"a\",\"target\":\"b\",\"properties\":{...}}\n"
      "  optionally with \"type\": INSERT (default), UPDATE or DELETE; multi-edge tables\n"
      "  take \"id\" as in REST.\n"
      "CSV (.csv): a header row names the columns: version, source, target (id for\n"
      "  multi-edge tables), optionally type, and property names; cells are cast to\n"
      "  the table's schema; an empty cell is an absent property (\"\" is an empty\n"
      "  string); quoted cells may hold commas, quotes (\"\") and line breaks.\n"
      "\n"
      "JSON Lines edges are applied in (source, target) order, 20 batches at a time:\n"
      "a source's rows then go to the store together (much faster on LMDB). The\n"
      "events of one key keep their file order, so the result is the same; a window\n"
      "with a key the fast reader cannot compare exactly (escapes, a value of another\n"
      "type) keeps its file order, as does --strict and --no-sort.\n"
      "\n"
      "Bad lines are reported as FILE:LINE: reason and skipped (--strict: the import\n"
      "stops there, and nothing of that line's batch is written).\n"
      "Exit status: 0 all lines applied, 1 some lines skipped or failed (or the\n"
      "import stopped), 2 usage.\n"
      "\n"
      "Resuming: re-running the same import is always safe (an event already applied\n"
      "is IDLE: versions decide). With --checkpoint FILE the lines applied so far (per\n"
      "input file, the prefix every line of which was applied or reported) are saved\n"
      "durably about once a second and at the end; a rerun with the same --checkpoint\n"
      "skips them. Delete FILE to import the same files from the start again.\n"
      "\n"
      "Into LMDB or RocksDB, ?sync=0 in the URI (lmdb:DIR?sync=0, rocksdb:DIR?sync=0)\n"
      "skips the fsync of every commit: the import syncs the store itself (LMDB's\n"
      "data file, RocksDB's write-ahead log) before each checkpoint and at the end\n"
      "(much faster on a large store; a machine crash during the import can lose or\n"
      "damage what was written since the last sync).";

/* Everything after the options: opens the engine, reads, applies, sums up. */
static int
run (AbImport *imp, gchar **paths)
{
  g_autoptr (GError) error = NULL;
  imp->files = g_ptr_array_new_with_free_func ((GDestroyNotify) import_file_free);
  for (guint i = 0; paths[i] != NULL; i++)
    {
      AbImportFile *f = g_new0 (AbImportFile, 1);
      g_ptr_array_add (imp->files, f);
      f->path = g_strdup (paths[i]);
      f->abs = g_canonicalize_filename (paths[i], NULL);
      f->done = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      f->n_chunks = G_MAXUINT64;
      f->format = imp->format != AB_IMPORT_FORMAT_AUTO ? imp->format : format_of (paths[i]);
      if (f->format == AB_IMPORT_FORMAT_AUTO)
        {
          fprintf (stderr,
                   "actionbase-admin import: %s: cannot tell the format from the name "
                   "(.jsonl/.json/.ndjson or .csv): use --format\n",
                   f->path);
          return AB_ADMIN_EXIT_USAGE;
        }
      GStatBuf st;
      errno = 0;
      if (g_stat (f->path, &st) != 0 || !S_ISREG (st.st_mode))
        {
          fprintf (stderr, "actionbase-admin import: %s: %s\n", f->path,
                   errno != 0 ? g_strerror (errno) : "not a regular file");
          return AB_ADMIN_EXIT_USAGE;
        }
      f->size = (guint64) st.st_size;
    }
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  cfg.max_mutations = MAX ((guint) imp->batch, cfg.max_mutations);
  cfg.run_applier = FALSE;
  gchar *merge[] = { imp->database, NULL };
  if (imp->insert_merge)
    cfg.insert_merge_databases = merge;
  imp->nosync = ab_store_uri_defers_sync (imp->store_uri);
  if (imp->nosync)
    fprintf (stderr,
             "%s: sync=0: commits are made durable by a sync of the store before each "
             "checkpoint and at the end\n",
             imp->store_uri);
  imp->engine = ab_engine_open (imp->store_uri, &cfg, &error);
  if (imp->engine == NULL)
    {
      fprintf (stderr, "actionbase-admin import: %s: %s\n", imp->store_uri, error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  /* A store without transactions (HBase) takes a lock row per edge: two
   * batches in flight that hold the same edge would fight over its lock until
   * one gives up. One batch at a time there; the engine still applies the
   * keys of a batch concurrently. */
  if (!ab_engine_reads_inline (imp->engine) && imp->threads > 1)
    {
      fprintf (stderr,
               "actionbase-admin import: %s takes per-edge locks: one batch in flight "
               "(--threads %d ignored)\n",
               imp->store_uri, imp->threads);
      imp->threads = 1;
    }
  imp->desc = ab_catalog_resolve (ab_engine_catalog (imp->engine), imp->database, imp->table, NULL,
                                  &error);
  if (imp->desc == NULL)
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  imp->schema = imp->desc->schema;
  imp->multi = imp->schema->kind == AB_TABLE_MULTI_EDGE;
  /* --strict stops at the first bad line in file order: no sorting there */
  imp->sort = !imp->no_sort && !imp->strict && imp->schema->kind == AB_TABLE_EDGE;
  ab_mutate_options_init (&imp->mopts);
  imp->mopts.database = imp->database;
  imp->mopts.table = imp->table;
  imp->mopts.multi_edge = imp->multi;
  imp->mopts.sync_request = TRUE; /* applied before the answer, whatever the table's mode */
  imp->mopts.actor = "actionbase-admin import";
  for (guint i = 0; i < imp->files->len; i++)
    {
      AbImportFile *f = imp->files->pdata[i];
      if (f->format == AB_IMPORT_FORMAT_CSV && !ab_admin_import_read_header (imp, f, &error))
        {
          fprintf (stderr, "actionbase-admin import: %s\n", error->message);
          return AB_ADMIN_EXIT_FAILED;
        }
    }
  if (imp->checkpoint != NULL && !ab_admin_import_checkpoint_load (imp, &error))
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  guint64 total = 0;
  for (guint i = 0; i < imp->files->len; i++)
    {
      AbImportFile *f = imp->files->pdata[i];
      if (f->was_complete)
        fprintf (stderr, "%s: already imported (checkpoint %s)\n", f->path, imp->checkpoint);
      else
        {
          if (f->resume.line > 0)
            fprintf (stderr, "%s: resuming after line %" G_GUINT64_FORMAT " (checkpoint %s)\n",
                     f->path, f->resume.line, imp->checkpoint);
          total += ab_admin_import_count_lines (f);
        }
    }
  /* Sorting: room for a whole window, so the workers apply one while the
   * next is read and sorted (a queue of a few batches stalled them at every
   * window). */
  imp->q_cap = (guint) imp->threads * 2 + (imp->sort ? AB_IMPORT_WINDOW_BATCHES : 0);
  imp->progress = ab_progress_new ("import", total);
  gint64 started = g_get_monotonic_time ();
  GPtrArray *workers = ab_admin_import_workers_start (imp);
  guint64 seq = 0;
  for (guint i = 0; i < imp->files->len && !atomic_load (&imp->stop); i++)
    {
      AbImportFile *f = imp->files->pdata[i];
      if (!f->was_complete && !ab_admin_import_read_file (imp, f, &seq, &error))
        {
          fprintf (stderr, "actionbase-admin import: %s\n", error->message);
          ab_admin_import_stop (imp, error->message);
        }
    }
  ab_admin_import_workers_join (imp, workers);
  gdouble secs = (gdouble) (g_get_monotonic_time () - started) / G_USEC_PER_SEC;
  ab_progress_finish (g_steal_pointer (&imp->progress));
  g_mutex_lock (&imp->ck_lock);
  ab_admin_import_checkpoint_maybe (imp, TRUE);
  g_mutex_unlock (&imp->ck_lock);
  if (imp->nosync && !ab_admin_import_flush_store (imp, &error))
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      ab_admin_import_stop (imp, error->message);
      g_clear_error (&error);
    }
  guint64 read = atomic_load (&imp->read), applied = atomic_load (&imp->applied);
  guint64 skipped = atomic_load (&imp->skipped), failed = atomic_load (&imp->failed);
  printf ("import %s.%s: %" G_GUINT64_FORMAT " lines read, %" G_GUINT64_FORMAT
          " applied, %" G_GUINT64_FORMAT " skipped (bad), %" G_GUINT64_FORMAT
          " failed; %.1f s, %.0f rows/s\n",
          imp->database, imp->table, read, applied, skipped, failed, secs,
          secs > 0 ? (gdouble) read / secs : 0.0);
  if (imp->fatal != NULL)
    printf ("import stopped: %s\n", imp->fatal);
  if (skipped == 0 && failed == 0 && imp->fatal == NULL)
    {
      printf ("all lines applied\n");
      return AB_ADMIN_EXIT_OK;
    }
  printf ("NOT all lines applied: see the FILE:LINE messages; fix those lines and import them "
          "again (re-applying is harmless%s)\n",
          imp->checkpoint != NULL ? "; --checkpoint skips what was applied" : "");
  return AB_ADMIN_EXIT_FAILED;
}

int
ab_admin_import (int argc, char **argv)
{
  AbImport *imp = g_new0 (AbImport, 1);
  imp->threads = DEFAULT_THREADS;
  imp->batch = DEFAULT_BATCH;
  g_mutex_init (&imp->q_lock);
  g_cond_init (&imp->q_cond);
  imp->ties = ab_import_ties_new ();
  g_mutex_init (&imp->gate_lock);
  g_cond_init (&imp->gate_cond);
  g_mutex_init (&imp->ck_lock);
  g_auto (GStrv) paths = NULL;
  GOptionEntry entries[] = {
    { "store", 0, 0, G_OPTION_ARG_STRING, &imp->store_uri,
      "Store URI (lmdb:DIR, rocksdb:DIR, hbase://HOST:PORT/NS?table=T, memory:)", "URI" },
    { "database", 0, 0, G_OPTION_ARG_STRING, &imp->database, "Database", "NAME" },
    { "table", 0, 0, G_OPTION_ARG_STRING, &imp->table, "Table (or alias)", "NAME" },
    { "format", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_format,
      "jsonl or csv (default: from each file's extension)", "FORMAT" },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &imp->strict, "Stop at the first bad line", NULL },
    { "no-sort", 0, 0, G_OPTION_ARG_NONE, &imp->no_sort,
      "Apply JSON Lines in file order (default: by key, a window at a time)", NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &imp->threads, "Batches in flight (default 2)", "N" },
    { "batch", 0, 0, G_OPTION_ARG_INT, &imp->batch, "Lines per mutation request (default 10000)",
      "N" },
    { "checkpoint", 0, 0, G_OPTION_ARG_FILENAME, &imp->checkpoint,
      "Save progress here; a rerun skips what was applied", "FILE" },
    { "insert-merge", 0, 0, G_OPTION_ARG_NONE, &imp->insert_merge,
      "INSERT with UPDATE rules, as a server with insert-merge-databases naming the database",
      NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &imp->verbose, "Say when the checkpoint is saved",
      NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, "FILE..." },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE... - import edges into a table");
  GOptionGroup *group = g_option_group_new ("import", "", "", imp, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_description (ctx, DESCRIPTION);
  g_autoptr (GError) error = NULL;
  int rc = AB_ADMIN_EXIT_USAGE;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    fprintf (stderr, "actionbase-admin import: %s\n", error->message);
  else if (imp->store_uri == NULL || imp->database == NULL || imp->table == NULL || paths == NULL
           || paths[0] == NULL)
    fprintf (stderr, "actionbase-admin import: --store, --database, --table and at least one "
                     "FILE are required (--help)\n");
  else if (imp->threads < 1 || imp->threads > MAX_THREADS || imp->batch < 1
           || imp->batch > MAX_BATCH)
    fprintf (stderr, "actionbase-admin import: --threads must be 1..%d and --batch 1..%d\n",
             MAX_THREADS, MAX_BATCH);
  else
    rc = run (imp, paths);
  if (imp->engine != NULL)
    ab_engine_close (imp->engine);
  if (imp->desc != NULL)
    ab_table_desc_unref (imp->desc);
  if (imp->files != NULL)
    g_ptr_array_unref (imp->files);
  if (imp->progress != NULL)
    ab_progress_free (imp->progress);
  g_mutex_clear (&imp->q_lock);
  g_cond_clear (&imp->q_cond);
  ab_import_ties_free (imp->ties);
  g_mutex_clear (&imp->gate_lock);
  g_cond_clear (&imp->gate_cond);
  g_mutex_clear (&imp->ck_lock);
  g_free (imp->fatal);
  g_free (imp->store_uri);
  g_free (imp->database);
  g_free (imp->table);
  g_free (imp->checkpoint);
  g_free (imp);
  return rc;
}
