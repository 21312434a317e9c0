/* actionbase-admin copy: every row (or the rows of chosen databases) from one
 * store to another, resumable from a durable checkpoint; --rescan mirrors
 * (diff + delete), --wal catches up online. Here: the options, and each run
 * from its checkpoint through the pass (copy_pass.c) and the catch-up. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "admin/copy-private.h"
#include "catalog/catalog.h"
#include "codec/digest.h"

#define COPY_DEFAULT_BATCH 1000
#define COPY_DEFAULT_THREADS 4
#define COPY_MAX_THREADS 64
#define COPY_DEFAULT_READERS 4

static const gchar USAGE[]
    = "Usage: actionbase-admin copy --from URI --to URI [OPTION...]\n"
      "\n"
      "Copies the catalog and every row of one store into another (lmdb:DIR, rocksdb:DIR,\n"
      "memory:, hbase://HOST:PORT/NS?table=T), read from a snapshot of the source in key\n"
      "order, so the source may keep serving (a RocksDB source beside its server is read\n"
      "as rocksdb:DIR?readonly=1). Rows travel byte for byte. The same store, or the\n"
      "same local directory by any spelling, cannot be both --from and --to.\n"
      "\n"
      "Options:\n"
      "  --from URI          the source store\n"
      "  --to URI            the target store\n"
      "  --database NAME     copy only this database (its catalog rows and the rows of its\n"
      "                      tables); repeat for several; default: everything\n"
      "  --batch N           rows per write batch (default 1000)\n"
      "  --threads N         batches written in parallel (default 4)\n"
      "  --readers N         key ranges read at once from a remote source (hbase), each\n"
      "                      over its own connection (default 4; a local source is read\n"
      "                      by one reader)\n"
      "  --checkpoint FILE   where progress is recorded (default: derived from --to, under\n"
      "                      the user state directory; the path is printed)\n"
      "  --force             copy into a target that already holds rows and has no matching\n"
      "                      checkpoint\n"
      "  --rescan            final pass of a move: the target becomes exactly the source\n"
      "                      (selected rows): missing or different rows are written, rows\n"
      "                      the source no longer has are DELETED. Run it while the source\n"
      "                      denies writes (docs/data-tools.md, Moving between stores)\n"
      "  --wal file:DIR      online copy: the source server's WAL. The copy notes where the\n"
      "                      WAL stands before its snapshot, then replays every record from\n"
      "                      there into the target; each later run replays what was added\n"
      "                      since (run once more after putting the source in DENY mode)\n"
      "  --wal-margin SECONDS  replay records built this long before the snapshot too\n"
      "                      (default 60: longer than any write in flight)\n"
      "  --insert-merge DB   the replay gives INSERTs on DB the UPDATE rules, as a server\n"
      "                      whose insert-merge-databases names DB (repeatable)\n"
      "  -h, --help          this text\n"
      "\n"
      "Interrupted (kill, crash, store failure)? Run the same command again: it resumes\n"
      "from the checkpoint. A finished copy run again does nothing; --rescan always runs.\n"
      "Exit status: 0 done, 1 failed (the message says how to resume), 2 usage.\n";

static void
options_clear (AbCopyOptions *o)
{
  g_clear_pointer (&o->wal, g_free);
  g_clear_pointer (&o->insert_merge, g_strfreev);
  g_clear_pointer (&o->from, g_free);
  g_clear_pointer (&o->to, g_free);
  g_clear_pointer (&o->checkpoint, g_free);
  g_clear_pointer (&o->databases, g_ptr_array_unref);
}

gchar *
ab_admin_copy_databases_text (const AbCopyOptions *o)
{
  if (o->databases->len == 0)
    return g_strdup ("(all)");
  g_autoptr (GString) s = g_string_new (NULL);
  for (guint i = 0; i < o->databases->len; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", (const gchar *) o->databases->pdata[i]);
  return g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- options ---- */

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *) a, *(const gchar *const *) b);
}

static gchar *
default_checkpoint (const gchar *to)
{
  g_autofree gchar *sum = ab_sha256_hex_of (to, strlen (to));
  g_autofree gchar *name = g_strdup_printf ("copy-%.16s.checkpoint", sum);
  return g_build_filename (g_get_user_state_dir (), "actionbase", name, NULL);
}

static int usage_error (const gchar *fmt, ...) G_GNUC_PRINTF (1, 2);

static int
usage_error (const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "actionbase-admin copy: %s\n(actionbase-admin copy --help shows the options)\n",
           msg);
  return AB_ADMIN_EXIT_USAGE;
}

/* AB_ADMIN_EXIT_OK when parsed, USAGE on an error, -1 when --help was shown. */
static int
parse_options (int argc, char **argv, AbCopyOptions *o)
{
  gchar **dbs = NULL;
  gboolean help = FALSE;
  o->batch = COPY_DEFAULT_BATCH;
  o->threads = COPY_DEFAULT_THREADS;
  o->readers = COPY_DEFAULT_READERS;
  o->wal_margin = 60;
  GOptionEntry entries[] = {
    { "from", 0, 0, G_OPTION_ARG_STRING, &o->from, NULL, NULL },
    { "to", 0, 0, G_OPTION_ARG_STRING, &o->to, NULL, NULL },
    { "database", 0, 0, G_OPTION_ARG_STRING_ARRAY, &dbs, NULL, NULL },
    { "batch", 0, 0, G_OPTION_ARG_INT, &o->batch, NULL, NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &o->threads, NULL, NULL },
    { "readers", 0, 0, G_OPTION_ARG_INT, &o->readers, NULL, NULL },
    { "checkpoint", 0, 0, G_OPTION_ARG_FILENAME, &o->checkpoint, NULL, NULL },
    { "force", 0, 0, G_OPTION_ARG_NONE, &o->force, NULL, NULL },
    { "rescan", 0, 0, G_OPTION_ARG_NONE, &o->rescan, NULL, NULL },
    { "wal", 0, 0, G_OPTION_ARG_STRING, &o->wal, NULL, NULL },
    { "wal-margin", 0, 0, G_OPTION_ARG_INT, &o->wal_margin, NULL, NULL },
    { "insert-merge", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->insert_merge, NULL, NULL },
    { "help", 'h', 0, G_OPTION_ARG_NONE, &help, NULL, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (NULL);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) args = g_new0 (gchar *, argc + 1);
  for (int i = 0; i < argc; i++)
    args[i] = g_strdup (argv[i]);
  g_option_context_set_help_enabled (ctx, FALSE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  gboolean parsed = g_option_context_parse_strv (ctx, &args, &error);
  o->databases = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; dbs != NULL && dbs[i] != NULL; i++)
    {
      gboolean seen = FALSE;
      for (guint j = 0; j < o->databases->len && !seen; j++)
        seen = g_str_equal (o->databases->pdata[j], dbs[i]);
      if (!seen)
        g_ptr_array_add (o->databases, g_strdup (dbs[i]));
    }
  g_strfreev (dbs);
  g_ptr_array_sort (o->databases, by_name);
  if (!parsed)
    return usage_error ("%s", error->message);
  if (help)
    {
      fputs (USAGE, stdout);
      return -1;
    }
  if (args[0] != NULL && args[1] != NULL)
    return usage_error ("unexpected argument '%s'", args[1]);
  if (o->from == NULL || o->to == NULL)
    return usage_error ("both --from URI and --to URI are required");
  if (g_str_equal (o->from, o->to))
    return usage_error ("--from and --to name the same store");
  g_autofree gchar *fd = ab_store_uri_dir (o->from), *td = ab_store_uri_dir (o->to);
  if (fd != NULL && td != NULL && g_str_equal (fd, td))
    return usage_error ("--from and --to name the same store directory %s", fd);
  if (o->batch < 1 || o->batch > 1000000)
    return usage_error ("--batch %d: give 1..1000000 rows", o->batch);
  if (o->threads < 1 || o->threads > COPY_MAX_THREADS)
    return usage_error ("--threads %d: give 1..%d", o->threads, COPY_MAX_THREADS);
  if (o->readers < 1 || o->readers > COPY_MAX_READERS)
    return usage_error ("--readers %d: give 1..%d", o->readers, COPY_MAX_READERS);
  for (guint i = 0; i < o->databases->len; i++)
    if (((const gchar *) o->databases->pdata[i])[0] == '\0')
      return usage_error ("--database needs a name");
  if (o->wal != NULL && o->rescan)
    return usage_error ("--wal and --rescan do not go together: the rescan makes the target "
                        "exactly the source by itself");
  if (o->wal != NULL && !g_str_has_prefix (o->wal, "file:"))
    return usage_error ("--wal %s: only a file WAL (file:DIR) can be followed; a move from a "
                        "server on a Kafka WAL ends with --rescan",
                        o->wal);
  if (o->wal_margin < 0 || o->wal_margin > 86400)
    return usage_error ("--wal-margin %d: give 0..86400 seconds", o->wal_margin);
  if (o->checkpoint == NULL)
    o->checkpoint = default_checkpoint (o->to);
  return AB_ADMIN_EXIT_OK;
}

/* ---- the command ---- */

static void
copy_clear (AbCopy *c)
{
  g_clear_pointer (&c->ranges, g_ptr_array_unref);
  g_clear_pointer (&c->dbs, g_hash_table_unref);
  g_clear_pointer (&c->codes, g_hash_table_unref);
  g_clear_pointer (&c->tpage, g_array_unref);
  g_clear_pointer (&c->tafter, g_byte_array_unref);
  g_clear_pointer (&c->catch_up.position, g_byte_array_unref);
  g_clear_error (&c->error);
  g_mutex_clear (&c->ckpt_lock);
  g_mutex_clear (&c->lock);
  g_cond_clear (&c->cond);
}

static int
failed_exit (const AbCopyOptions *o, const gchar *what, guint64 rows)
{
  fprintf (stderr,
           "actionbase-admin copy: %s\n"
           "actionbase-admin copy: stopped after %" G_GUINT64_FORMAT
           " rows; the checkpoint %s records them. Run the same command again to resume.\n",
           what, rows, o->checkpoint);
  return AB_ADMIN_EXIT_FAILED;
}

/* The checkpoint after each catch-up chunk: the pass is complete. */
static gboolean
save_caught_up (gpointer user, GError **error)
{
  AbCopy *c = user;
  AbCopyCheckpoint ck = { 0 };
  ab_admin_copy_fill_checkpoint (c, &ck, TRUE);
  gboolean ok = ab_admin_copy_checkpoint_save (c->o, &ck, error);
  ab_admin_copy_checkpoint_clear (&ck);
  return ok;
}

/* --wal after a complete copy pass: replays the WAL from the checkpoint's
 * position to its current end. */
static int
catch_up (AbCopy *c, AbStore *to)
{
  const AbCopyOptions *o = c->o;
  g_autoptr (GError) error = NULL;
  AbCatchUp *cu = &c->catch_up;
  guint64 before = cu->applied;
  cu->wal_uri = o->wal;
  cu->lanes = (guint) o->threads;
  cu->insert_merge = o->insert_merge;
  cu->save = save_caught_up;
  cu->user = c;
  c->wal_running = TRUE;
  if (!save_caught_up (c, &error) || !ab_admin_catch_up (to, cu, &error))
    {
      fprintf (stderr,
               "actionbase-admin copy: %s\nactionbase-admin copy: the copy is complete and the "
               "checkpoint %s records how far the catch-up got: run the same command again to "
               "go on\n",
               error->message, o->checkpoint);
      return AB_ADMIN_EXIT_FAILED;
    }
  c->wal_running = FALSE;
  if (!save_caught_up (c, &error))
    {
      fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  if (c->wal_interrupted && !ab_store_batch_is_atomic (to))
    fprintf (stderr,
             "actionbase-admin copy: a catch-up run was stopped in the middle of a chunk: %s "
             "writes a batch row by row, so Index, Count, Group or Cache rows of the edges "
             "it held may be out of step with their State. Before the switch run: "
             "actionbase-verify --store %s --repair\n",
             o->to, o->to);
  fprintf (stderr,
           "actionbase-admin copy: caught up with %s: %" G_GUINT64_FORMAT
           " WAL records applied by this run (%" G_GUINT64_FORMAT " in all, %" G_GUINT64_FORMAT
           " read, %" G_GUINT64_FORMAT " skipped); run it again to catch up further, and once "
           "more after the source denies writes (checkpoint %s)\n",
           o->wal, cu->applied - before, cu->applied, cu->read, cu->skipped, o->checkpoint);
  return AB_ADMIN_EXIT_OK;
}

/* Refuses a fresh copy into a target that holds rows (unless --force). */
static gboolean
fresh_target_ok (const AbCopyOptions *o, AbStore *to)
{
  gboolean empty;
  g_autoptr (GError) error = NULL;
  if (!ab_admin_store_is_empty (to, &empty, &error))
    {
      fprintf (stderr, "actionbase-admin copy: reading %s: %s\n", o->to, error->message);
      return FALSE;
    }
  if (!empty)
    fprintf (stderr,
             "actionbase-admin copy: %s already holds rows and no checkpoint (%s) says "
             "this copy put them there: give --force to copy into it anyway (rows with "
             "the same keys are overwritten), or the --checkpoint of the copy that "
             "filled it\n",
             o->to, o->checkpoint);
  return empty;
}

/* --wal on a fresh copy: where the WAL stands now, before the snapshot. */
static gboolean
wal_start (AbCopy *c)
{
  g_autoptr (GError) error = NULL;
  AbCatchUp *cu = &c->catch_up;
  cu->since_ms = g_get_real_time () / 1000 - (gint64) c->o->wal_margin * 1000;
  cu->position = ab_admin_catch_up_start (c->o->wal, cu->since_ms, &error);
  if (cu->position == NULL)
    fprintf (stderr, "actionbase-admin copy: the WAL %s: %s\n", c->o->wal, error->message);
  return cu->position != NULL;
}

/* Decides fresh or resumed, runs the pass (then the catch-up with --wal),
 * records the outcome. */
static int run_locked (const AbCopyOptions *o, AbStore *from, AbStore *to);

static int
run (const AbCopyOptions *o, AbStore *from, AbStore *to)
{
  int fd = ab_admin_copy_lock_checkpoint (o);
  if (fd < 0)
    return AB_ADMIN_EXIT_FAILED;
  int rc = run_locked (o, from, to);
  close (fd);
  return rc;
}

static int
run_locked (const AbCopyOptions *o, AbStore *from, AbStore *to)
{
  AbCopyCheckpoint ck = { 0 };
  gboolean mismatch;
  g_autoptr (GError) error = NULL;
  const gchar *mode = o->rescan ? "rescan" : "copy";
  if (!ab_admin_copy_checkpoint_load (o, &ck, &mismatch, &error))
    {
      fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      return mismatch ? AB_ADMIN_EXIT_USAGE : AB_ADMIN_EXIT_FAILED;
    }
  gboolean have = ck.mode != NULL;
  gboolean resume = have && g_str_equal (ck.mode, mode) && !ck.complete;
  gboolean copied = have && !o->rescan && g_str_equal (ck.mode, "copy") && ck.complete;
  if (o->wal != NULL && (resume || copied) && ck.wal_position == NULL)
    {
      fprintf (stderr,
               "actionbase-admin copy: the copy of checkpoint %s was started without --wal: "
               "where its snapshot stood in the WAL is unknown. Finish the move with --rescan "
               "while the source denies writes, or delete that file to copy again with --wal\n",
               o->checkpoint);
      ab_admin_copy_checkpoint_clear (&ck);
      return AB_ADMIN_EXIT_FAILED;
    }
  if (copied && o->wal == NULL)
    {
      fprintf (stderr,
               "actionbase-admin copy: already complete (%" G_GUINT64_FORMAT
               " rows, checkpoint %s): nothing to do; --rescan brings the target up to date, "
               "deleting that file copies again\n",
               ck.rows, o->checkpoint);
      ab_admin_copy_checkpoint_clear (&ck);
      return AB_ADMIN_EXIT_OK;
    }
  if (!have && !o->force && !fresh_target_ok (o, to))
    {
      ab_admin_copy_checkpoint_clear (&ck);
      return AB_ADMIN_EXIT_FAILED;
    }

  AbCopy c = { .o = o, .from = from, .to = to, .max_key = ab_store_max_key (to) };
  g_mutex_init (&c.lock);
  g_mutex_init (&c.ckpt_lock);
  g_cond_init (&c.cond);
  c.tpage = ab_kv_array_new ();
  c.max_in_flight = (guint) o->threads * 2;
  /* Several readers only where they pay and are safe: a remote source (a
   * local snapshot is one transaction, read by one thread, and fast). A
   * resumed pass keeps the ranges its checkpoint records. */
  guint nranges = o->rescan || ab_store_never_blocks (from) ? 1 : (guint) o->readers;
  if (resume || copied)
    {
      c.ranges = ab_admin_copy_ranges_new (ck.positions->len, ck.positions);
      c.rows = ck.rows;
      c.written = ck.written;
      c.deleted = ck.deleted;
      c.catch_up.position = g_steal_pointer (&ck.wal_position);
      c.catch_up.since_ms = ck.wal_since_ms;
      c.catch_up.read = ck.wal_read;
      c.catch_up.applied = ck.wal_applied;
      c.wal_interrupted = ck.wal_interrupted || ck.wal_running;
    }
  else
    c.ranges = ab_admin_copy_ranges_new (nranges, NULL);
  ab_admin_copy_checkpoint_clear (&ck);
  if (copied)
    {
      int rc = catch_up (&c, to);
      copy_clear (&c);
      return rc;
    }
  if (!ab_admin_copy_build_filter (&c, &error) || (o->wal != NULL && !resume && !wal_start (&c)))
    {
      if (error != NULL)
        fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      copy_clear (&c);
      return AB_ADMIN_EXIT_FAILED;
    }
  /* A checkpoint exists before the first row is written: a copy killed at
   * any point finds a target it may go on filling (and, with --wal, the WAL
   * position taken before the snapshot opens). */
  ab_admin_copy_fill_checkpoint (&c, &ck, FALSE);
  if (!ab_admin_copy_checkpoint_save (o, &ck, &error))
    {
      ab_admin_copy_checkpoint_clear (&ck);
      fprintf (stderr, "actionbase-admin copy: %s\n", error->message);
      copy_clear (&c);
      return AB_ADMIN_EXIT_FAILED;
    }
  g_autofree gchar *dbs = ab_admin_copy_databases_text (o);
  fprintf (
      stderr,
      "actionbase-admin copy: %s from %s to %s, databases %s, checkpoint %s%s%s (%" G_GUINT64_FORMAT
      " rows done before)\n",
      o->rescan ? "rescan" : "copy", o->from, o->to, dbs, o->checkpoint, resume ? ", resuming" : "",
      resume ? "" : ", from the start", c.rows);
  c.progress = ab_progress_new (o->rescan ? "rescan" : "copy", 0);
  ab_admin_copy_checkpoint_clear (&ck);
  gboolean ok = ab_admin_copy_run_pass (&c);
  if (ok && c.dbs != NULL && !ab_catalog_bump_revision (to, &error))
    {
      g_prefix_error (&error, "bumping the catalog revision of %s: ", o->to);
      ab_admin_copy_fail (&c, g_steal_pointer (&error));
      ok = FALSE;
    }
  GError *save_err = NULL;
  ab_admin_copy_fill_checkpoint (&c, &ck, ok);
  gboolean saved = ab_admin_copy_checkpoint_save (o, &ck, &save_err);
  ab_admin_copy_checkpoint_clear (&ck);
  if (!ok || !saved)
    {
      ab_progress_free (c.progress);
      g_autofree gchar *what = g_strdup (c.error != NULL ? c.error->message : save_err->message);
      int rc = failed_exit (o, what, c.rows);
      g_clear_error (&save_err);
      copy_clear (&c);
      return rc;
    }
  ab_progress_finish (c.progress);
  fprintf (stderr,
           "actionbase-admin copy: complete: %" G_GUINT64_FORMAT
           " rows in the target, %" G_GUINT64_FORMAT " written, %" G_GUINT64_FORMAT
           " deleted (checkpoint %s)\n",
           c.rows, c.written, c.deleted, o->checkpoint);
  int rc = o->wal != NULL ? catch_up (&c, to) : AB_ADMIN_EXIT_OK;
  copy_clear (&c);
  return rc;
}

int
ab_admin_copy_stores (AbStore *from, AbStore *to, int argc, char **argv)
{
  AbCopyOptions o = { 0 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AbStore) own_from = NULL, own_to = NULL;
  int rc = parse_options (argc, argv, &o);
  if (rc != AB_ADMIN_EXIT_OK)
    {
      options_clear (&o);
      return rc < 0 ? AB_ADMIN_EXIT_OK : rc;
    }
  if (from == NULL && (from = own_from = ab_store_open (o.from, &error)) == NULL)
    {
      fprintf (stderr, "actionbase-admin copy: source %s: %s\n", o.from, error->message);
      options_clear (&o);
      return AB_ADMIN_EXIT_FAILED;
    }
  if (to == NULL && (to = own_to = ab_store_open (o.to, &error)) == NULL)
    {
      fprintf (stderr, "actionbase-admin copy: target %s: %s\n", o.to, error->message);
      options_clear (&o);
      return AB_ADMIN_EXIT_FAILED;
    }
  rc = run (&o, from, to);
  options_clear (&o);
  return rc;
}

int
ab_admin_copy (int argc, char **argv)
{
  return ab_admin_copy_stores (NULL, NULL, argc, argv);
}
