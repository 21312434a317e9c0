/* The verifier's driver: options and statistics, the tables a run checks,
 * the salt slice of a shard, the shared per-row helpers (key peek, lookup,
 * progress, findings), one run from snapshot to repair, and the summary. */
#include <errno.h>
#include <string.h>
#include "verify/verify-private.h"
#include "codec/keys.h"
#include "engine/topk/topk.h"

G_DEFINE_QUARK (ab - verify - error - quark, ab_verify_error)

#define AB_VERIFY_DEFAULT_RUN_BYTES ((gsize) 64 << 20)

static const gchar *const class_names[AB_MISMATCH_N_CLASSES] = {
  "index_missing", "index_stale",  "index_orphan",  "count_missing",
  "count_wrong",   "count_orphan", "state_corrupt",
};

const gchar *
ab_mismatch_class_name (AbMismatchClass cls)
{
  g_return_val_if_fail (cls < AB_MISMATCH_N_CLASSES, NULL);
  return class_names[cls];
}

void
ab_verify_options_init (AbVerifyOptions *o)
{
  memset (o, 0, sizeof *o);
  o->n_shards = 1;
}

void
ab_verify_stats_init (AbVerifyStats *s)
{
  memset (s, 0, sizeof *s);
  s->tables = g_ptr_array_new_with_free_func (g_free);
  s->skipped = g_ptr_array_new_with_free_func (g_free);
}

void
ab_verify_stats_clear (AbVerifyStats *s)
{
  g_clear_pointer (&s->tables, g_ptr_array_unref);
  g_clear_pointer (&s->skipped, g_ptr_array_unref);
}

guint64
ab_verify_stats_mismatches (const AbVerifyStats *s)
{
  guint64 n = 0;
  for (guint i = 0; i < AB_MISMATCH_N_CLASSES; i++)
    n += s->mismatches[i];
  return n;
}

void
ab_verify_shard_slice (guint k, guint n, guint64 *lo, guint64 *hi)
{
  const guint64 space = (guint64) 1 << 32;
  if (n <= 1)
    {
      *lo = 0;
      *hi = space;
      return;
    }
  *lo = space * k / n;
  *hi = space * (k + 1) / n;
}

/* ---- per-row helpers ---- */

gboolean
ab_verify_peek (const guint8 *key, gsize klen, AbKeyPeek *out)
{
  gsize pos = 4;
  if (klen < 5 || !ab_codec_skip (key, klen, &pos, NULL))
    return FALSE;
  out->salt = ab_codec_key_salt (key);
  out->src_end = pos;
  if (!ab_codec_get_int32 (key, klen, &pos, &out->table_code, NULL)
      || !ab_codec_get_int8 (key, klen, &pos, &out->type, NULL))
    return FALSE;
  out->rest = pos;
  return TRUE;
}

gboolean
ab_verify_salt_in_slice (const AbVerifyRun *run, guint32 salt)
{
  return salt >= run->lo && salt < run->hi;
}

gboolean
ab_verify_key_in_slice (const AbVerifyRun *run, const guint8 *key, gsize klen)
{
  return klen >= 4 && ab_verify_salt_in_slice (run, ab_codec_key_salt (key));
}

AbVerifyTable *
ab_verify_lookup (AbVerifyRun *run, gint32 code)
{
  return g_hash_table_lookup (run->tables, GINT_TO_POINTER (code));
}

AbVerifyTable *
ab_verify_table_of (AbVerifyRun *run, const guint8 *key, gsize klen, AbKeyPeek *p)
{
  AbKeyPeek mine;
  if (p == NULL)
    p = &mine;
  return ab_verify_peek (key, klen, p) ? ab_verify_lookup (run, p->table_code) : NULL;
}

gboolean
ab_verify_has_wide (const AbVerifyTable *t)
{
  const AbSchema *s = t->desc->schema;
  for (guint i = 0; i < s->group_defs->len; i++)
    if (((const AbGroup *) s->group_defs->pdata[i])->ttl <= 0)
      return TRUE;
  return s->cache_defs->len > 0;
}

void
ab_verify_tick (AbVerifyRun *run)
{
  gint64 now;
  if ((++run->ticks & 0xFFFF) != 0 || !run->opts->progress)
    return;
  now = g_get_monotonic_time ();
  if (now - run->last_progress < G_USEC_PER_SEC)
    return;
  run->last_progress = now;
  fprintf (stderr,
           "actionbase-verify: %s: %" G_GUINT64_FORMAT " rows scanned, %" G_GUINT64_FORMAT
           " State rows in slice, %" G_GUINT64_FORMAT " derived, %" G_GUINT64_FORMAT
           " mismatches\n",
           run->phase, run->ticks, run->stats->state_rows, ab_sorter_records (run->sorter),
           ab_verify_stats_mismatches (run->stats));
}

void
ab_verify_emit (AbVerifyRun *run, const AbVerifyTable *t, AbMismatch *m)
{
  m->table = t != NULL ? t->name : "?";
  run->stats->mismatches[m->cls]++;
  if (run->report != NULL)
    ab_verify_report_line (run->report, m);
  if (run->opts->on_mismatch != NULL)
    run->opts->on_mismatch (m, run->opts->user);
  if (run->spool != NULL && t != NULL && m->cls != AB_MISMATCH_STATE_CORRUPT
      && !ab_verify_spool_add (run, t, m) && run->error == NULL)
    g_set_error (&run->error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_IO,
                 "verify repair spool: write failed: %s", g_strerror (errno));
}

/* ---- the tables of a run ---- */

static void
table_free (AbVerifyTable *t)
{
  ab_table_desc_unref (t->desc);
  g_free (t->name);
  g_free (t);
}

static void
add_table (AbVerifyRun *run, AbTableDesc *desc)
{
  g_autofree gchar *name = g_strdup_printf ("%s.%s", desc->database, desc->table);
  if (desc->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    {
      g_ptr_array_add (run->stats->skipped,
                       g_strdup_printf ("%s (immutable: no State rows)", name));
      return;
    }
  AbVerifyTable *t = g_new0 (AbVerifyTable, 1);
  g_autoptr (GByteArray) code = g_byte_array_new ();
  ab_codec_put_int32 (code, desc->code, AB_ORDER_ASC);
  memcpy (t->code_elem, code->data, 5);
  t->desc = ab_table_desc_ref (desc);
  t->name = g_strdup (name);
  t->n_dirs = ab_engine_directions (desc, t->dirs);
  t->multi = desc->schema->kind == AB_TABLE_MULTI_EDGE;
  t->vertex = desc->schema->kind == AB_TABLE_VERTEX;
  t->ranked = ab_topk_has_any (desc);
  g_hash_table_replace (run->tables, GINT_TO_POINTER (desc->code), t);
  g_ptr_array_add (run->stats->tables, g_steal_pointer (&name));
  run->stats->tables_checked++;
}

static gboolean
select_tables (AbVerifyRun *run, GError **error)
{
  AbCatalog *cat = ab_engine_catalog (run->engine);
  const AbVerifyOptions *o = run->opts;
  g_autoptr (GPtrArray) dbs = g_ptr_array_new_with_free_func (g_free);
  guint matched = 0;
  if (o->database != NULL)
    {
      g_autoptr (AbDatabaseDesc) d = ab_catalog_get_database (cat, o->database);
      if (d == NULL)
        return g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_NOT_FOUND, "no database '%s'",
                            o->database),
               FALSE;
      g_ptr_array_add (dbs, g_strdup (o->database));
    }
  else
    {
      g_autoptr (GPtrArray) all = ab_catalog_list_databases (cat);
      for (guint i = 0; i < all->len; i++)
        g_ptr_array_add (dbs, g_strdup (((AbDatabaseDesc *) all->pdata[i])->database));
    }
  for (guint i = 0; i < dbs->len; i++)
    {
      g_autoptr (GPtrArray) tables = ab_catalog_list_tables (cat, dbs->pdata[i]);
      for (guint j = 0; j < tables->len; j++)
        {
          AbTableDesc *t = tables->pdata[j];
          if (o->table != NULL && strcmp (o->table, t->table) != 0)
            continue;
          matched++;
          add_table (run, t);
        }
    }
  if (o->table != NULL && matched == 0)
    return g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_NOT_FOUND, "no table '%s.%s'",
                        o->database, o->table),
           FALSE;
  return TRUE;
}

/* ---- one run ---- */

static gboolean
check_options (const AbVerifyOptions *o, GError **error)
{
  guint n = MAX (o->n_shards, 1);
  if (o->shard >= n)
    return g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_ARGS,
                        "shard %u of %u: shards are numbered 0..%u", o->shard, n, n - 1),
           FALSE;
  if (o->table != NULL && o->database == NULL)
    return g_set_error_literal (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_ARGS,
                                "a table is named within a database: give the database too"),
           FALSE;
  return TRUE;
}

static void
run_clear (AbVerifyRun *run)
{
  g_clear_pointer (&run->snap, ab_snapshot_close);
  g_clear_pointer (&run->sorter, ab_sorter_free);
  g_clear_pointer (&run->tables, g_hash_table_unref);
  g_clear_pointer (&run->cache_bound, g_byte_array_unref);
  g_clear_pointer (&run->rank_entries, g_array_unref);
  g_clear_pointer (&run->rank_scores, g_array_unref);
  if (run->report != NULL)
    fclose (run->report);
  if (run->spool != NULL)
    fclose (run->spool);
  g_free (run->spool_buf);
  g_clear_error (&run->error);
}

static gboolean
open_outputs (AbVerifyRun *run, GError **error)
{
  const AbVerifyOptions *o = run->opts;
  if (o->report_path != NULL && (run->report = fopen (o->report_path, "w")) == NULL)
    {
      int err = errno;
      return g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_IO, "report %s: %s",
                          o->report_path, g_strerror (err)),
             FALSE;
    }
  return !o->repair || ab_verify_spool_open (run, error);
}

static gboolean
store_failed (GError **error, GError *local)
{
  g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_STORE, "%s", local->message);
  g_error_free (local);
  return FALSE;
}

/* Snapshot, both passes, then (snapshot closed) repair. */
static gboolean
run_passes (AbVerifyRun *run, GError **error)
{
  GError *local = NULL;
  run->snap = ab_store_snapshot_open (ab_engine_store (run->engine), &local);
  if (run->snap == NULL)
    return store_failed (error, local);
  if (!ab_verify_derive_pass (run, &local) || !ab_verify_compare_pass (run, &local))
    return local->domain == AB_STORE_ERROR ? store_failed (error, local)
                                           : (g_propagate_error (error, local), FALSE);
  g_clear_pointer (&run->snap, ab_snapshot_close);
  run->stats->spilled_runs = ab_sorter_spilled_runs (run->sorter);
  g_clear_pointer (&run->sorter, ab_sorter_free);
  return !run->opts->repair || ab_verify_repair (run, error);
}

gboolean
ab_verify_run (AbEngine *engine, const AbVerifyOptions *opts, AbVerifyStats *stats, GError **error)
{
  gint64 start = g_get_monotonic_time ();
  AbVerifyRun run = { .engine = engine, .opts = opts, .stats = stats };
  gboolean ok;
  GError *local = NULL;
  g_return_val_if_fail (stats->tables != NULL, FALSE);
  if (!check_options (opts, error))
    return FALSE;
  if (!ab_engine_refresh (engine, &local))
    return store_failed (error, local);
  ab_verify_shard_slice (opts->shard, opts->n_shards, &run.lo, &run.hi);
  run.sharded = opts->n_shards > 1;
  run.tables = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) table_free);
  run.sorter = ab_sorter_new (opts->tmpdir,
                              opts->run_bytes != 0 ? opts->run_bytes : AB_VERIFY_DEFAULT_RUN_BYTES);
  run.last_progress = g_get_monotonic_time ();
  run.rank_entries = ab_topk_entry_array_new ();
  run.rank_scores = g_array_new (FALSE, TRUE, sizeof (gint64));
  ok = select_tables (&run, error) && open_outputs (&run, error) && run_passes (&run, error);
  if (ok && run.report != NULL && (fflush (run.report) != 0 || ferror (run.report)))
    {
      int err = errno;
      ok = FALSE;
      g_set_error (error, AB_VERIFY_ERROR, AB_VERIFY_ERROR_IO, "report %s: %s", opts->report_path,
                   g_strerror (err));
    }
  run_clear (&run);
  stats->seconds = (g_get_monotonic_time () - start) / 1e6;
  return ok;
}

/* ---- summary ---- */

static void
print_list (FILE *out, const gchar *what, GPtrArray *items)
{
  fprintf (out, "%s: %u", what, items->len);
  for (guint i = 0; i < items->len; i++)
    fprintf (out, "%s%s", i == 0 ? " (" : ", ", (const gchar *) items->pdata[i]);
  fprintf (out, "%s\n", items->len > 0 ? ")" : "");
}

void
ab_verify_print_summary (const AbVerifyOptions *opts, const AbVerifyStats *s, FILE *out)
{
  guint64 lo, hi;
  guint n = MAX (opts->n_shards, 1);
  ab_verify_shard_slice (opts->shard, n, &lo, &hi);
  fprintf (out, "shard %u/%u: salts %08" G_GINT64_MODIFIER "x..%08" G_GINT64_MODIFIER "x\n",
           opts->shard, n, lo, hi - 1);
  print_list (out, "tables checked", s->tables);
  print_list (out, "tables skipped", s->skipped);
  fprintf (out,
           "rows checked: %" G_GUINT64_FORMAT " State (%" G_GUINT64_FORMAT
           " decoded), %" G_GUINT64_FORMAT " Index, %" G_GUINT64_FORMAT
           " Count; derived %" G_GUINT64_FORMAT " Index, %" G_GUINT64_FORMAT
           " Count; %u sort runs spilled\n",
           s->state_rows, s->states_decoded, s->index_rows, s->count_rows, s->derived_index,
           s->derived_count, s->spilled_runs);
  fprintf (out, "mismatches: %" G_GUINT64_FORMAT, ab_verify_stats_mismatches (s));
  for (guint i = 0; i < AB_MISMATCH_N_CLASSES; i++)
    fprintf (out, "%s%s %" G_GUINT64_FORMAT, i == 0 ? " (" : ", ", class_names[i],
             s->mismatches[i]);
  fprintf (out, ")\n");
  if (opts->repair)
    fprintf (out,
             "repair: %" G_GUINT64_FORMAT " fixed, %" G_GUINT64_FORMAT
             " deferred (changed since the snapshot), %" G_GUINT64_FORMAT " failed\n",
             s->repaired, s->repair_deferred, s->repair_failed);
  fprintf (out, "duration: %.2f s (%.0f State rows/s)\n", s->seconds,
           s->seconds > 0 ? s->state_rows / s->seconds : 0.0);
}
