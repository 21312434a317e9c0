/* actionbase-admin import into lmdb and rocksdb: the binary loads JSON Lines and CSV files
 * (out-of-order versions, deletes, duplicates, bad lines, --strict, kill -9 and resume) and
 * clients must see what the same events sent one by one produce. */
#include <signal.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include "unit/engine/engine_fixture.h"
#include "hbase/hbase_test_uri.h"
#include "catalog/catalog.h"
#include "verify/verify.h"
#include "model/types.h"

#define DB "imp"
#define TABLE "t"

static const gchar *TABLE_JSON
    = "{\"table\":\"t\",\"storage\":\"datastore://imp/t\",\"comment\":\"\","
      "\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"\"},\"direction\":\"BOTH\","
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false,"
      "\"comment\":\"\"},"
      "{\"name\":\"kind\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"},"
      "{\"name\":\"weight\",\"type\":\"int\",\"nullable\":true,\"comment\":\"\"},"
      "{\"name\":\"note\",\"type\":\"string\",\"nullable\":true,\"comment\":\"\"}],"
      "\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":"
      "\"DESC\"}]},"
      "{\"index\":\"by_weight\",\"fields\":[{\"field\":\"weight\",\"order\":\"ASC\"}]}],"
      "\"groups\":[{\"group\":\"by_kind\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"kind\"}]},"
      "{\"group\":\"weight_by_kind\",\"type\":\"SUM\",\"valueField\":\"weight\","
      "\"directionType\":\"OUT\",\"fields\":[{\"name\":\"kind\"}]}],"
      "\"caches\":[{\"cache\":\"recent\",\"fields\":[{\"field\":\"created_at\",\"order\":"
      "\"DESC\"}],\"limit\":500}]}}";

/* ---- stores ---- */

typedef struct {
  gchar *uri;
  gchar *dir; /* lmdb or rocksdb temp dir, or NULL */
} Store;

static void
store_clear (Store *s)
{
  ab_test_rmdir (s->dir);
  g_free (s->dir);
  g_free (s->uri);
}

static AbEngine *
engine_open (const gchar *uri)
{
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  g_autoptr (GError) error = NULL;
  AbEngine *e = ab_engine_open (uri, &cfg, &error);
  ck_assert_msg (e != NULL, "open %s: %s", uri, error ? error->message : "");
  return e;
}

/* A store with the table (the engine is closed again unless keep). */
static AbEngine *
store_new (Store *s, const gchar *uri, gboolean keep)
{
  if (uri != NULL)
    s->uri = g_strdup (uri), s->dir = NULL;
  else
    {
      s->dir = g_dir_make_tmp ("ab-import-XXXXXX", NULL);
      s->uri = g_strdup_printf ("lmdb:%s", s->dir);
    }
  AbTestEnv env = { engine_open (s->uri), NULL };
  ab_test_create_table (&env, DB, TABLE_JSON);
  if (keep)
    return env.engine;
  ab_engine_close (env.engine);
  return NULL;
}

/* A fresh store of kind (lmdb or rocksdb) in a temp dir of its own. */
static void
store_new_local (Store *s, const gchar *kind)
{
  g_autofree gchar *dir = g_dir_make_tmp ("ab-import-XXXXXX", NULL);
  g_autofree gchar *uri = g_strdup_printf ("%s:%s", kind, dir);
  store_new (s, uri, FALSE);
  s->dir = g_steal_pointer (&dir);
}

/* ---- events ---- */

typedef struct {
  const gchar *type;
  gint64 version;
  guint source, target;
  gboolean has_created, has_kind, has_weight, has_note;
  gint64 created_at;
  const gchar *kind;
  gint weight;
  const gchar *note;
} Ev;

static const gchar *const KINDS[] = { "like", "love", "meh" };
/* Notes that CSV must quote: a comma, quotes, a line break, an empty string. */
static const gchar *const NOTES[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "" };

/* n distinct events (each version once) over sources x targets, versions in
 * a shuffled order, every 7th followed by a duplicate of an earlier one. */
static GArray *
events_new (guint n, guint sources, guint targets, guint32 seed)
{
  GArray *evs = g_array_new (FALSE, TRUE, sizeof (Ev));
  g_autoptr (GRand) r = g_rand_new_with_seed (seed);
  for (guint i = 0; i < n; i++)
    {
      Ev e = { 0 };
      guint k = g_rand_int_range (r, 0, 100);
      e.type = k < 60 ? "INSERT" : k < 80 ? "UPDATE" : "DELETE";
      e.version = 1000 + (gint64) (((guint64) i * 7919) % n);
      e.source = g_rand_int_range (r, 0, (gint32) sources);
      e.target = g_rand_int_range (r, 0, (gint32) targets);
      if (!g_str_equal (e.type, "DELETE"))
        {
          gboolean ins = g_str_equal (e.type, "INSERT");
          e.has_created = ins || g_rand_boolean (r);
          e.created_at = 1700000000000LL + g_rand_int_range (r, 0, 1000000);
          e.has_kind = g_rand_boolean (r);
          e.kind = KINDS[g_rand_int_range (r, 0, G_N_ELEMENTS (KINDS))];
          e.has_weight = g_rand_boolean (r);
          e.weight = g_rand_int_range (r, -50, 50);
          e.has_note = g_rand_int_range (r, 0, 4) == 0;
          e.note = NOTES[g_rand_int_range (r, 0, G_N_ELEMENTS (NOTES))];
        }
      g_array_append_val (evs, e);
      if (i % 7 == 6)
        {
          Ev dup = g_array_index (evs, Ev, g_rand_int_range (r, 0, (gint32) evs->len));
          g_array_append_val (evs, dup);
        }
    }
  return evs;
}

static JsonNode *
edge_json (const Ev *e, gboolean with_type)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  if (with_type)
    {
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, e->type);
    }
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, e->version);
  json_builder_set_member_name (b, "source");
  g_autofree gchar *s = g_strdup_printf ("s%u", e->source);
  json_builder_add_string_value (b, s);
  json_builder_set_member_name (b, "target");
  g_autofree gchar *t = g_strdup_printf ("t%u", e->target);
  json_builder_add_string_value (b, t);
  json_builder_set_member_name (b, "properties");
  json_builder_begin_object (b);
  if (e->has_created)
    {
      json_builder_set_member_name (b, "created_at");
      json_builder_add_int_value (b, e->created_at);
    }
  if (e->has_kind)
    {
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, e->kind);
    }
  if (e->has_weight)
    {
      json_builder_set_member_name (b, "weight");
      json_builder_add_int_value (b, e->weight);
    }
  if (e->has_note)
    {
      json_builder_set_member_name (b, "note");
      json_builder_add_string_value (b, e->note);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* One line per event; INSERT lines sometimes leave "type" out (the default). */
static void
write_jsonl (const gchar *path, GArray *evs, guint from, guint to)
{
  g_autoptr (GString) out = g_string_new (NULL);
  for (guint i = from; i < to && i < evs->len; i++)
    {
      const Ev *e = &g_array_index (evs, Ev, i);
      g_autoptr (JsonNode) n = edge_json (e, !g_str_equal (e->type, "INSERT") || i % 2 == 0);
      g_autofree gchar *text = json_to_string (n, FALSE);
      g_string_append_printf (out, "%s\n", text);
    }
  ck_assert (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
}

static void
csv_cell (GString *out, const gchar *text)
{
  if (strpbrk (text, ",\"\n") == NULL && *text != '\0')
    {
      g_string_append (out, text);
      return;
    }
  g_string_append_c (out, '"');
  for (const gchar *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
write_csv (const gchar *path, GArray *evs)
{
  g_autoptr (GString) out
      = g_string_new ("type,version,source,target,created_at,kind,weight,note,unknown\r\n");
  for (guint i = 0; i < evs->len; i++)
    {
      const Ev *e = &g_array_index (evs, Ev, i);
      g_string_append_printf (out, "%s,%" G_GINT64_FORMAT ",s%u,t%u,", e->type, e->version,
                              e->source, e->target);
      if (e->has_created)
        g_string_append_printf (out, "%" G_GINT64_FORMAT, e->created_at);
      g_string_append_c (out, ',');
      if (e->has_kind)
        csv_cell (out, e->kind);
      g_string_append_c (out, ',');
      if (e->has_weight)
        g_string_append_printf (out, "%d", e->weight);
      g_string_append_c (out, ',');
      if (e->has_note)
        csv_cell (out, e->note);
      g_string_append (out, ",x\r\n");
    }
  ck_assert (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
}

/* The reference: the events through ab_engine_mutate, per requests of `per` items. */
static void
apply_events (AbEngine *engine, GArray *evs, guint per)
{
  for (guint i = 0; i < evs->len; i += per)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "mutations");
      json_builder_begin_array (b);
      for (guint k = i; k < i + per && k < evs->len; k++)
        {
          const Ev *e = &g_array_index (evs, Ev, k);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "type");
          json_builder_add_string_value (b, e->type);
          json_builder_set_member_name (b, "edge");
          json_builder_add_value (b, edge_json (e, FALSE));
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
      g_autoptr (JsonNode) body = json_builder_get_root (b);
      AbMutateOptions o;
      ab_mutate_options_init (&o);
      o.database = DB;
      o.table = TABLE;
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) r = ab_engine_mutate (engine, &o, body, &error);
      ck_assert_msg (r != NULL, "reference mutate: %s", error ? error->message : "");
    }
}

/* ---- what clients see ---- */

static void
dump_edges (GString *out, const gchar *what, AbEdgeFrame *f)
{
  for (guint i = 0; i < f->edges->len; i++)
    {
      const AbEdgeOut *e = f->edges->pdata[i];
      g_autofree gchar *s = ab_value_to_string (&e->source);
      g_autofree gchar *t = ab_value_to_string (&e->target);
      g_string_append_printf (out, "%s %" G_GINT64_FORMAT " %s %s", what, e->version, s, t);
      for (guint p = 0; p < e->n_props; p++)
        {
          g_autofree gchar *v = ab_value_to_string (&e->values[p]);
          g_string_append_printf (out, " %s=%s", (const gchar *) e->names[p], v);
        }
      g_string_append_c (out, '\n');
    }
}

static void
dump_scan (AbEngine *engine, GString *out, const gchar *index, const gchar *start,
           AbQueryDirection dir)
{
  g_autofree gchar *offset = NULL;
  do
    {
      AbScanParams p = { index, start, dir, 1000, offset, NULL, NULL, NULL };
      g_autoptr (GError) error = NULL;
      g_autoptr (AbEdgeFrame) f = ab_engine_scan (engine, DB, TABLE, &p, &error);
      ck_assert_msg (f != NULL, "scan: %s", error ? error->message : "");
      g_autofree gchar *what = g_strdup_printf ("scan %s %s %d", index, start, dir);
      dump_edges (out, what, f);
      g_free (offset);
      offset = g_strdup (f->offset);
    }
  while (offset != NULL);
}

static void
dump_agg (AbEngine *engine, GString *out, const gchar *group, const gchar *start,
          AbQueryDirection dir)
{
  AbAggParams p = { group, start, dir, NULL, -1 };
  g_autoptr (GError) error = NULL;
  g_autoptr (AbAggResult) r = ab_engine_agg (engine, DB, TABLE, &p, &error);
  ck_assert_msg (r != NULL, "agg: %s", error ? error->message : "");
  for (guint c = 0; c < r->values->len; c++)
    {
      g_string_append_printf (out, "agg %s %s %d", group, start, dir);
      for (guint k = 0; k < r->n_fields; k++)
        {
          g_autofree gchar *v
              = ab_value_to_string (&g_array_index (r->keys, AbValue, c * r->n_fields + k));
          g_string_append_printf (out, " %s", v);
        }
      g_string_append_printf (out, " = %" G_GINT64_FORMAT "\n",
                              g_array_index (r->values, gint64, c));
    }
}

/* get (every pair), scan of both indexes, count, agg and seek, per node. */
static gchar *
client_view (AbEngine *engine, guint sources, guint targets)
{
  GString *out = g_string_new (NULL);
  for (guint s = 0; s < sources; s++)
    {
      g_autofree gchar *src = g_strdup_printf ("s%u", s);
      for (guint t0 = 0; t0 < targets; t0 += 25)
        {
          g_autoptr (GPtrArray) ss = g_ptr_array_new ();
          g_autoptr (GPtrArray) ts = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (ss, src);
          for (guint t = t0; t < t0 + 25 && t < targets; t++)
            g_ptr_array_add (ts, g_strdup_printf ("t%u", t));
          g_autoptr (GError) error = NULL;
          g_autoptr (AbEdgeFrame) f = ab_engine_get (engine, DB, TABLE, ss, ts, NULL, &error);
          ck_assert_msg (f != NULL, "get: %s", error ? error->message : "");
          dump_edges (out, "get", f);
        }
      dump_scan (engine, out, "recent", src, AB_QDIR_OUT);
      dump_scan (engine, out, "by_weight", src, AB_QDIR_OUT);
      g_string_append_printf (
          out, "count %s OUT %" G_GINT64_FORMAT "\n", src,
          ab_test_count (&(AbTestEnv){ engine, NULL }, DB, TABLE, src, AB_QDIR_OUT));
      dump_agg (engine, out, "by_kind", src, AB_QDIR_OUT);
      dump_agg (engine, out, "weight_by_kind", src, AB_QDIR_OUT);
      AbSeekParams sp = { "recent", src, AB_QDIR_OUT, -1, NULL, NULL };
      g_autoptr (GError) error = NULL;
      g_autoptr (AbEdgeFrame) f = ab_engine_seek (engine, DB, TABLE, &sp, &error);
      ck_assert_msg (f != NULL, "seek: %s", error ? error->message : "");
      dump_edges (out, "seek", f);
    }
  for (guint t = 0; t < targets; t++)
    {
      g_autofree gchar *tgt = g_strdup_printf ("t%u", t);
      dump_scan (engine, out, "recent", tgt, AB_QDIR_IN);
      g_string_append_printf (
          out, "count %s IN %" G_GINT64_FORMAT "\n", tgt,
          ab_test_count (&(AbTestEnv){ engine, NULL }, DB, TABLE, tgt, AB_QDIR_IN));
      dump_agg (engine, out, "by_kind", tgt, AB_QDIR_IN);
    }
  return g_string_free (out, FALSE);
}

static void
assert_same_view (const gchar *got, const gchar *want)
{
  if (g_str_equal (got, want))
    return;
  guint line = 1;
  const gchar *a = got, *b = want;
  while (*a && *a == *b)
    line += *a == '\n', a++, b++;
  g_autofree gchar *ga = g_strndup (a, strcspn (a, "\n"));
  g_autofree gchar *gb = g_strndup (b, strcspn (b, "\n"));
  ck_abort_msg ("the imported store differs at line %u of the client view: got '%s', want '%s'",
                line, ga, gb);
}

static void
assert_verified (AbEngine *engine)
{
  AbVerifyOptions o;
  ab_verify_options_init (&o);
  o.database = DB;
  o.table = TABLE;
  AbVerifyStats st;
  ab_verify_stats_init (&st);
  g_autoptr (GError) error = NULL;
  ck_assert_msg (ab_verify_run (engine, &o, &st, &error), "verify: %s",
                 error ? error->message : "");
  ck_assert_msg (st.state_rows > 0, "verify saw no State rows");
  ck_assert_msg (ab_verify_stats_mismatches (&st) == 0, "verify: %" G_GUINT64_FORMAT " mismatches",
                 ab_verify_stats_mismatches (&st));
  ab_verify_stats_clear (&st);
}

/* The imported store against the reference (events one request at a time). */
static void
assert_matches (const gchar *uri, GArray *evs, guint per, guint sources, guint targets)
{
  Store mem = { 0 };
  AbEngine *ref = store_new (&mem, "memory:", TRUE);
  apply_events (ref, evs, per);
  g_autofree gchar *want = client_view (ref, sources, targets);
  ab_engine_close (ref);
  store_clear (&mem);
  AbEngine *got = engine_open (uri);
  g_autofree gchar *view = client_view (got, sources, targets);
  assert_same_view (view, want);
  assert_verified (got);
  ab_engine_close (got);
}

/* ---- the binary ---- */

static gchar *
admin_path (void)
{
  const gchar *dir = g_getenv ("AB_BIN_DIR");
  return g_build_filename (dir != NULL ? dir : "src", "actionbase-admin", NULL);
}

static GSubprocess *
spawn (const gchar *const *args, GSubprocessFlags flags)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, admin_path ());
  g_ptr_array_add (argv, g_strdup ("import"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (args[i]));
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  GSubprocess *p = g_subprocess_newv ((const gchar *const *) argv->pdata, flags, &error);
  ck_assert_msg (p != NULL, "spawn: %s", error ? error->message : "");
  return p;
}

/* Runs the import to its end; returns the exit status, stdout and stderr. */
static int
run_import (const gchar *const *args, gchar **out, gchar **err)
{
  g_autoptr (GSubprocess) p
      = spawn (args, G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr (GError) error = NULL;
  ck_assert (g_subprocess_communicate_utf8 (p, NULL, NULL, out, err, &error));
  return g_subprocess_get_if_exited (p) ? g_subprocess_get_exit_status (p) : -1;
}

#define IMPORT_ARGS(uri, ...)                                               \
  (const gchar *const[])                                                    \
  {                                                                         \
    "--store", (uri), "--database", DB, "--table", TABLE, __VA_ARGS__, NULL \
  }

/* ---- tests ---- */

#define N_SRC 20
#define N_TGT 30

START_TEST (test_jsonl)
{
  Store st = { 0 };
  store_new_local (&st, ab_test_store_kind (_i));
  g_autoptr (GArray) evs = events_new (3000, N_SRC, N_TGT, 11);
  g_autofree gchar *file = g_build_filename (st.dir, "events.jsonl", NULL);
  write_jsonl (file, evs, 0, evs->len);
  g_autofree gchar *out = NULL, *err = NULL;
  /* the offline load's URI: no sync per commit; LMDB's pages written in its map */
  g_autofree gchar *offline
      = g_strdup_printf ("%s?sync=0%s", st.uri, _i == AB_TEST_LMDB ? "&writemap=1" : "");
  int rc = run_import (IMPORT_ARGS (offline, "--threads", "4", "--batch", "37", file), &out, &err);
  ck_assert_msg (rc == 0, "exit %d: %s %s", rc, out, err);
  g_autofree gchar *sum
      = g_strdup_printf ("%u lines read, %u applied, 0 skipped", evs->len, evs->len);
  ck_assert_msg (strstr (out, sum) != NULL, "summary: %s", out);
  ck_assert_msg (strstr (out, "all lines applied") != NULL, "summary: %s", out);
  assert_matches (st.uri, evs, 1, N_SRC, N_TGT);
  /* again: every event is IDLE now, and nothing changes */
  g_free (out), g_free (err);
  rc = run_import (IMPORT_ARGS (st.uri, "--threads", "2", file), &out, &err);
  ck_assert_msg (rc == 0, "rerun exit %d: %s %s", rc, out, err);
  assert_matches (st.uri, evs, 1, N_SRC, N_TGT);
  store_clear (&st);
}
END_TEST

/* Equal versions: the event later in the file wins (data-model.md §2.3). The
 * import applies JSON Lines a window at a time in key order; each key's
 * events keep their file order and go in one request. */
static GArray *
tied_events (void)
{
  GArray *evs = g_array_new (FALSE, TRUE, sizeof (Ev));
  for (guint round = 0; round < 2; round++)
    for (guint k = 0; k < 40; k++)
      {
        /* even keys: INSERT@5 then DELETE@5 (inactive); odd: the reverse (active) */
        gboolean ins = (round == 0) != (k % 2 == 1);
        Ev e = { .type = ins ? "INSERT" : "DELETE",
                 .version = 5,
                 .source = k % N_SRC,
                 .target = k / N_SRC,
                 .has_created = ins,
                 .created_at = 1700000000000LL + k };
        g_array_append_val (evs, e);
      }
  return evs;
}

START_TEST (test_sorted_windows)
{
  g_autoptr (GArray) evs = tied_events ();
  Store st = { 0 };
  store_new (&st, NULL, FALSE);
  g_autofree gchar *file = g_build_filename (st.dir, "ties.jsonl", NULL);
  write_jsonl (file, evs, 0, evs->len);
  g_autofree gchar *out = NULL, *err = NULL;
  /* one window of 100 lines holds all 80; batches of 5 on 4 threads */
  int rc = run_import (IMPORT_ARGS (st.uri, "--threads", "4", "--batch", "5", file), &out, &err);
  ck_assert_msg (rc == 0, "exit %d: %s %s", rc, out, err);
  assert_matches (st.uri, evs, 1, N_SRC, N_TGT);

  /* --no-sort: file order, the same result */
  Store plain = { 0 };
  store_new (&plain, NULL, FALSE);
  g_free (out), g_free (err);
  rc = run_import (IMPORT_ARGS (plain.uri, "--no-sort", "--threads", "1", "--batch", "5", file),
                   &out, &err);
  ck_assert_msg (rc == 0, "exit %d: %s %s", rc, out, err);
  assert_matches (plain.uri, evs, 1, N_SRC, N_TGT);

  /* s1's first event spelt with an escape: sorted by its raw text it would go
   * after its tie (0x5c > 0x31) and turn the result around; a window with a
   * key the fast reader cannot compare exactly keeps its file order */
  Store esc = { 0 };
  store_new (&esc, NULL, FALSE);
  g_autofree gchar *text = NULL;
  ck_assert (g_file_get_contents (file, &text, NULL, NULL));
  gchar *at = strstr (text, "\"source\":\"s1\"");
  ck_assert (at != NULL);
  g_autoptr (GString) edited = g_string_new_len (text, at - text);
  g_string_append (edited, "\"source\":\"s\\u0031\"");
  g_string_append (edited, at + strlen ("\"source\":\"s1\""));
  g_autofree gchar *escaped = g_build_filename (esc.dir, "escaped.jsonl", NULL);
  ck_assert (g_file_set_contents (escaped, edited->str, (gssize) edited->len, NULL));
  g_free (out), g_free (err);
  rc = run_import (IMPORT_ARGS (esc.uri, "--threads", "1", "--batch", "5", escaped), &out, &err);
  ck_assert_msg (rc == 0, "exit %d: %s %s", rc, out, err);
  assert_matches (esc.uri, evs, 1, N_SRC, N_TGT);
  store_clear (&esc);
  store_clear (&plain);
  store_clear (&st);
}
END_TEST

/* Equal versions of a key in two batches that are applied at once (several
 * threads): the later line still wins. Each pair of batches: 49 new edges
 * (versions of their own) ending with key (s_i, t0)'s first event, then a
 * batch that starts with its tie and is otherwise bad lines, so it is parsed
 * and applied far sooner than the one before it. */
START_TEST (test_ties_across_batches)
{
  enum { BATCH = 50, PAIRS = 30 };
  Store st = { 0 };
  store_new (&st, NULL, FALSE);
  g_autoptr (GArray) evs = g_array_new (FALSE, TRUE, sizeof (Ev));
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint k = 0; k < PAIRS; k++)
    {
      for (guint j = 0; j < 2 * BATCH; j++)
        {
          /* even pairs: INSERT@5 then DELETE@5 (inactive); odd: the reverse */
          gboolean first = j == BATCH - 1, tie = j == BATCH, ins = first != (k % 2 == 1);
          if (j > BATCH)
            {
              g_string_append (text, "{bad\n");
              continue;
            }
          Ev e = { .type = "INSERT",
                   .version = 100 + k * BATCH + j,
                   .source = (k * BATCH + j) % N_SRC,
                   .target = 1 + (k * BATCH + j) % (N_TGT - 1),
                   .has_created = TRUE,
                   .created_at = 1700000000000LL + j };
          if (first || tie)
            e = (Ev){ .type = ins ? "INSERT" : "DELETE",
                      .version = 5,
                      .source = k,
                      .target = 0,
                      .has_created = ins,
                      .created_at = 1700000000000LL + k };
          g_array_append_val (evs, e);
          g_autoptr (JsonNode) n = edge_json (&e, TRUE);
          g_autofree gchar *line = json_to_string (n, FALSE);
          g_string_append_printf (text, "%s\n", line);
        }
    }
  g_autofree gchar *file = g_build_filename (st.dir, "ties.jsonl", NULL);
  ck_assert (g_file_set_contents (file, text->str, (gssize) text->len, NULL));
  g_autofree gchar *out = NULL, *err = NULL;
  int rc = run_import (IMPORT_ARGS (st.uri, "--threads", "4", "--batch", "50", file), &out, &err);
  ck_assert_msg (rc == 1 && strstr (out, "1470 skipped") != NULL, "exit %d: %s", rc, out);
  assert_matches (st.uri, evs, 1, N_SRC, N_TGT);
  store_clear (&st);
}
END_TEST

START_TEST (test_csv)
{
  Store st = { 0 };
  store_new_local (&st, ab_test_store_kind (_i));
  g_autoptr (GArray) evs = events_new (2000, N_SRC, N_TGT, 23);
  g_autofree gchar *file = g_build_filename (st.dir, "events.CSV", NULL);
  write_csv (file, evs);
  g_autofree gchar *out = NULL, *err = NULL;
  /* sync=0: the import syncs the store itself before the checkpoint and at the end */
  g_autofree gchar *nosync = g_strdup_printf ("%s?sync=0", st.uri);
  g_autofree gchar *ckpt = g_build_filename (st.dir, "csv.ckpt", NULL);
  int rc
      = run_import (IMPORT_ARGS (nosync, "--batch", "50", "--checkpoint", ckpt, file), &out, &err);
  ck_assert_msg (rc == 0, "exit %d: %s %s", rc, out, err);
  ck_assert_msg (strstr (err, "sync=0: commits are made durable") != NULL, "stderr: %s", err);
  ck_assert_msg (strstr (err, "column 'unknown' is not a property") != NULL, "stderr: %s", err);
  g_autofree gchar *sum = g_strdup_printf ("%u lines read, %u applied", evs->len, evs->len);
  ck_assert_msg (strstr (out, sum) != NULL, "summary: %s", out);
  assert_matches (st.uri, evs, 1, N_SRC, N_TGT);
  store_clear (&st);
}
END_TEST

/* Bad lines: reported as FILE:LINE and skipped, the others applied, exit 1. */
START_TEST (test_bad_lines)
{
  Store st = { 0 };
  store_new (&st, NULL, FALSE);
  g_autoptr (GArray) evs = events_new (300, 5, 10, 5);
  g_autofree gchar *good = g_build_filename (st.dir, "good.jsonl", NULL);
  write_jsonl (good, evs, 0, evs->len);
  g_autofree gchar *text = NULL;
  ck_assert (g_file_get_contents (good, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  /* bad lines inserted at these (1-based) line numbers of the new file */
  static const struct {
    guint line;
    const gchar *text, *reason;
  } bad[] = {
    { 3, "{\"version\":1,\"source\":\"s1\"", "Malformed JSON" },
    { 10, "{\"source\":\"s1\",\"target\":\"t1\",\"properties\":{\"created_at\":1}}",
      "\"version\" is required" },
    { 50,
      "{\"version\":5,\"source\":\"s1\",\"target\":\"t1\",\"properties\":{\"created_at\":\"abc\"}}",
      "created_at" },
    { 51, "{\"type\":\"UPSERT\",\"version\":5,\"source\":\"s1\",\"target\":\"t1\"}",
      "INSERT, UPDATE or DELETE" },
    { 120, "[1,2,3]", "a line must be a JSON object" },
    { 121, "{\"version\":5,\"source\":\"s1\",\"target\":\"t1\",\"properties\":{}}",
      "Property 'created_at' is required" },
  };
  g_autoptr (GString) mixed = g_string_new (NULL);
  guint next = 0, lineno = 1;
  for (guint i = 0; lines[i] != NULL && lines[i][0] != '\0'; lineno++)
    if (next < G_N_ELEMENTS (bad) && bad[next].line == lineno)
      g_string_append_printf (mixed, "%s\n", bad[next++].text);
    else
      g_string_append_printf (mixed, "%s\n", lines[i++]);
  g_string_append (mixed, "\n   \n"); /* blank lines are not records */
  g_autofree gchar *file = g_build_filename (st.dir, "mixed.jsonl", NULL);
  ck_assert (g_file_set_contents (file, mixed->str, -1, NULL));
  g_autofree gchar *out = NULL, *err = NULL;
  int rc = run_import (IMPORT_ARGS (st.uri, "--batch", "16", file), &out, &err);
  ck_assert_msg (rc == 1, "exit %d: %s %s", rc, out, err);
  for (guint k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autofree gchar *where = g_strdup_printf ("%s:%u: ", file, bad[k].line);
      const gchar *at = strstr (err, where);
      ck_assert_msg (at != NULL, "no report for line %u in: %s", bad[k].line, err);
      g_autofree gchar *msg = g_strndup (at, strcspn (at, "\n"));
      ck_assert_msg (strstr (msg, bad[k].reason) != NULL, "line %u: %s", bad[k].line, msg);
    }
  g_autofree gchar *sum
      = g_strdup_printf ("%u lines read, %u applied, %u skipped", evs->len + 6, evs->len, 6);
  ck_assert_msg (strstr (out, sum) != NULL, "summary: %s", out);
  ck_assert_msg (strstr (out, "NOT all lines applied") != NULL, "summary: %s", out);
  assert_matches (st.uri, evs, 1, 5, 10);

  /* CSV: a row with the wrong number of cells, a cell that does not cast */
  g_autofree gchar *csv = g_build_filename (st.dir, "bad.csv", NULL);
  ck_assert (g_file_set_contents (csv,
                                  "version,source,target,created_at\n"
                                  "1,a,b,5\n"
                                  "2,a,c\n"
                                  "3,a,d,x5\n"
                                  "\"4\",a,\"multi\nline\",7\n"
                                  "5,a,\"unterminated,9\n",
                                  -1, NULL));
  g_free (out), g_free (err);
  rc = run_import (IMPORT_ARGS (st.uri, csv), &out, &err);
  ck_assert_msg (rc == 1, "exit %d: %s %s", rc, out, err);
  g_autofree gchar *l3 = g_strdup_printf ("%s:3: 3 cells, the header has 4", csv);
  g_autofree gchar *l4 = g_strdup_printf ("%s:4: ", csv);
  g_autofree gchar *l7 = g_strdup_printf ("%s:7: unterminated quoted cell", csv);
  ck_assert_msg (strstr (err, l3) != NULL, "stderr: %s", err);
  ck_assert_msg (strstr (err, l4) != NULL && strstr (err, "created_at") != NULL, "stderr: %s", err);
  ck_assert_msg (strstr (err, l7) != NULL, "stderr: %s", err);
  ck_assert_msg (strstr (out, "5 lines read, 2 applied, 3 skipped") != NULL, "summary: %s", out);
  store_clear (&st);
}
END_TEST

/* A key the engine answers ERROR (a row key beyond LMDB's limit): reported
 * with its line, the rest applied. */
START_TEST (test_engine_error)
{
  Store st = { 0 };
  store_new (&st, NULL, FALSE);
  g_autofree gchar *longsrc = g_strnfill (700, 'x');
  g_autofree gchar *text = g_strdup_printf (
      "{\"version\":1,\"source\":\"a\",\"target\":\"b\",\"properties\":{\"created_at\":1}}\n"
      "{\"version\":1,\"source\":\"%s\",\"target\":\"b\",\"properties\":{\"created_at\":1}}\n"
      "{\"version\":2,\"source\":\"a\",\"target\":\"c\",\"properties\":{\"created_at\":2}}\n",
      longsrc);
  g_autofree gchar *file = g_build_filename (st.dir, "e.jsonl", NULL);
  ck_assert (g_file_set_contents (file, text, -1, NULL));
  g_autofree gchar *out = NULL, *err = NULL;
  int rc = run_import (IMPORT_ARGS (st.uri, file), &out, &err);
  ck_assert_msg (rc == 1, "exit %d: %s %s", rc, out, err);
  g_autofree gchar *where = g_strdup_printf ("%s:2: ERROR: ", file);
  ck_assert_msg (strstr (err, where) != NULL, "stderr: %s", err);
  ck_assert_msg (strstr (out, "3 lines read, 2 applied, 0 skipped (bad), 1 failed") != NULL,
                 "summary: %s", out);
  AbEngine *e = engine_open (st.uri);
  ck_assert_int_eq (ab_test_count (&(AbTestEnv){ e, NULL }, DB, TABLE, "a", AB_QDIR_OUT), 2);
  ab_engine_close (e);
  store_clear (&st);
}
END_TEST

/* --strict: nothing from the bad line's batch on is written; everything
 * before it is. Line i is the edge s<i%5> -> t<i>, so presence is per line. */
START_TEST (test_strict)
{
  Store st = { 0 };
  store_new (&st, NULL, FALSE);
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint i = 1; i <= 400; i++)
    if (i == 120)
      g_string_append (text, "{\"version\":1,\"source\":\"s0\",\"target\":\n");
    else
      g_string_append_printf (text,
                              "{\"version\":%u,\"source\":\"s%u\",\"target\":\"t%u\","
                              "\"properties\":{\"created_at\":%u}}\n",
                              i, i % 5, i, i);
  g_autofree gchar *file = g_build_filename (st.dir, "s.jsonl", NULL);
  ck_assert (g_file_set_contents (file, text->str, -1, NULL));
  g_autofree gchar *out = NULL, *err = NULL;
  int rc = run_import (IMPORT_ARGS (st.uri, "--strict", "--batch", "50", "--threads", "4", file),
                       &out, &err);
  ck_assert_msg (rc == 1, "exit %d: %s %s", rc, out, err);
  g_autofree gchar *where = g_strdup_printf ("%s:120: Malformed JSON", file);
  ck_assert_msg (strstr (err, where) != NULL, "stderr: %s", err);
  ck_assert_msg (strstr (out, "import stopped: --strict") != NULL, "summary: %s", out);
  AbEngine *e = engine_open (st.uri);
  for (guint i = 1; i <= 400; i++)
    {
      g_autofree gchar *s = g_strdup_printf ("s%u", i % 5), *t = g_strdup_printf ("t%u", i);
      g_autoptr (GPtrArray) ss = g_ptr_array_new ();
      g_autoptr (GPtrArray) ts = g_ptr_array_new ();
      g_ptr_array_add (ss, s);
      g_ptr_array_add (ts, t);
      g_autoptr (AbEdgeFrame) f = ab_engine_get (e, DB, TABLE, ss, ts, NULL, NULL);
      ck_assert (f != NULL);
      ck_assert_msg (f->edges->len == (i <= 100 ? 1u : 0u), "line %u: %u edges", i, f->edges->len);
    }
  ab_engine_close (e);
  store_clear (&st);
}
END_TEST

/* Lines of unusual shapes, some read by the import's own scanner, some by
 * json-glib (escapes, fractions, nested values, repeated names): the store
 * holds what the same edges sent one by one through the engine's JSON path
 * produce, bad lines skipped by both. */
static const gchar *const SHAPES[] = {
  "{\"version\":1,\"source\":\"s0\",\"target\":\"t0\",\"properties\":{\"created_at\":5,"
  "\"unknown\":1,\"kind\":\"like\"}}",
  "{\"version\":2,\"source\":\"s0\",\"target\":\"t1\",\"properties\":{\"created_at\":\"7\","
  "\"weight\":\"3\"}}",
  "{\"version\":3,\"source\":\"s1\",\"target\":\"t2\",\"properties\":{\"created_at\":8,"
  "\"note\":\"a\\\"b\\u00e9\"}}",
  "{\"version\":4,\"source\":\"s1\",\"target\":\"t3\",\"properties\":{\"created_at\":9.0,"
  "\"weight\":2}}",
  "{\"type\":null,\"version\":5,\"source\":\"s2\",\"target\":\"t4\",\"properties\":{"
  "\"created_at\":10,\"kind\":null}}",
  "{\"type\":\"UPDATE\",\"version\":6,\"source\":\"s0\",\"target\":\"t0\",\"properties\":{"
  "\"weight\":4,\"extra\":{\"x\":[1,2]}}}",
  "{\"version\":7,\"source\":\"s3\",\"target\":\"t5\",\"extra\":[1],\"properties\":{"
  "\"created_at\":11}}",
  "{\"version\":8,\"source\":\"s3\",\"target\":\"t6\",\"properties\":null}",
  "{\"version\":9,\"source\":\"s4\",\"target\":\"t7\",\"properties\":{\"created_at\":12,"
  "\"note\":\"\xc3\xa9 \xc3\xbc\"}}",
  "{\"type\":\"DELETE\",\"version\":10,\"source\":\"s0\",\"target\":\"t1\"}",
  "  {\"version\" : 11 , \"source\" : \"s4\" ,\"target\":\"t8\",\"properties\":{ \"created_at\" "
  ": -3 , \"weight\" : 2147483647 } } ",
  "{\"version\":12,\"source\":\"s4\",\"target\":\"t9\",\"properties\":{\"created_at\":13,"
  "\"weight\":2147483648}}",
  "{\"version\":13,\"source\":\"s2\",\"target\":\"t4\",\"properties\":{\"created_at\":14,"
  "\"created_at\":15}}",
  "{\"version\":\"14\",\"source\":\"s1\",\"target\":\"t2\",\"properties\":{\"created_at\":16}}",
  "{\"version\":16,\"source\":\"s3\",\"target\":\"t6\",\"properties\":{\"created_at\":18,"
  "\"kind\":true,\"weight\":-0}}",
  "{\"version\":17,\"source\":\"s3\",\"target\":\"t7\",\"properties\":{\"created_at\":1e3}}",
  "{\"version\":18,\"source\":\"s2\",\"target\":\"t8\",\"properties\":{\"created_at\":19,"
  "\"weight\":null,\"note\":\"\"}}",
  "{\"version\":19,\"source\":\"s2\",\"target\":\"t9\",\"properties\":\"x\"}",
  "{\"version\":20,\"source\":\"s2\",\"target\":\"t9\",\"properties\":{\"created_at\":01}}",
};

START_TEST (test_jsonl_shapes)
{
  Store st = { 0 };
  store_new (&st, NULL, FALSE);
  g_autoptr (GString) text = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (SHAPES); i++)
    g_string_append_printf (text, "%s\n", SHAPES[i]);
  g_autofree gchar *file = g_build_filename (st.dir, "shapes.jsonl", NULL);
  ck_assert (g_file_set_contents (file, text->str, -1, NULL));
  g_autofree gchar *out = NULL, *err = NULL;
  int rc = run_import (IMPORT_ARGS (st.uri, file), &out, &err);
  /* the reference: each line as one REST item; a line the engine refuses is skipped */
  Store mem = { 0 };
  AbEngine *ref = store_new (&mem, "memory:", TRUE);
  guint refused = 0;
  for (guint i = 0; i < G_N_ELEMENTS (SHAPES); i++)
    {
      g_autoptr (JsonNode) edge = ab_model_json_parse (SHAPES[i], -1, NULL);
      if (edge == NULL || !JSON_NODE_HOLDS_OBJECT (edge))
        {
          refused++;
          continue;
        }
      const gchar *type
          = json_object_get_string_member_with_default (json_node_get_object (edge), "type", NULL);
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "mutations");
      json_builder_begin_array (b);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, type != NULL ? type : "INSERT");
      json_builder_set_member_name (b, "edge");
      json_builder_add_value (b, json_node_copy (edge));
      json_builder_end_object (b);
      json_builder_end_array (b);
      json_builder_end_object (b);
      g_autoptr (JsonNode) body = json_builder_get_root (b);
      AbMutateOptions o;
      ab_mutate_options_init (&o);
      o.database = DB;
      o.table = TABLE;
      g_autoptr (GError) error = NULL;
      g_autoptr (GArray) r = ab_engine_mutate (ref, &o, body, &error);
      refused += r == NULL;
    }
  g_autofree gchar *want = client_view (ref, 5, 10);
  ab_engine_close (ref);
  store_clear (&mem);
  ck_assert_msg (refused > 0 && rc == 1, "exit %d (%u refused): %s %s", rc, refused, out, err);
  g_autofree gchar *sum
      = g_strdup_printf ("%u lines read, %u applied, %u skipped", (guint) G_N_ELEMENTS (SHAPES),
                         (guint) G_N_ELEMENTS (SHAPES) - refused, refused);
  ck_assert_msg (strstr (out, sum) != NULL, "summary: %s (want %s)\n%s", out, sum, err);
  AbEngine *got = engine_open (st.uri);
  g_autofree gchar *view = client_view (got, 5, 10);
  assert_same_view (view, want);
  assert_verified (got);
  ab_engine_close (got);
  store_clear (&st);
}
END_TEST

/* Usage: exit 2. */
START_TEST (test_usage)
{
  g_autofree gchar *out = NULL, *err = NULL;
  ck_assert_int_eq (run_import ((const gchar *const[]){ "--store", "memory:", NULL }, &out, &err),
                    2);
  g_free (out), g_free (err);
  ck_assert_int_eq (run_import (IMPORT_ARGS ("memory:", "--threads", "0", "x.jsonl"), &out, &err),
                    2);
  g_free (out), g_free (err);
  ck_assert_int_eq (run_import (IMPORT_ARGS ("memory:", "/etc/hostname"), &out, &err), 2);
  ck_assert_msg (strstr (err, "--format") != NULL, "stderr: %s", err);
}
END_TEST

#define BIG_SRC 1000
#define BIG_TGT 200
#define BIG_N 175000 /* + the duplicates: 200,000 lines */

/* kill -9 after the first checkpoint, rerun with it: the same store as one
 * uninterrupted run would give, and the rerun skips the applied prefix. */
START_TEST (test_kill_and_resume)
{
  Store st = { 0 };
  store_new_local (&st, ab_test_store_kind (_i));
  g_autoptr (GArray) evs = events_new (BIG_N, BIG_SRC, BIG_TGT, 77);
  ck_assert_uint_eq (evs->len, 200000);
  g_autofree gchar *file = g_build_filename (st.dir, "big.jsonl", NULL);
  g_autofree gchar *ckpt = g_build_filename (st.dir, "import.ckpt", NULL);
  write_jsonl (file, evs, 0, evs->len);
  const gchar *const *args
      = IMPORT_ARGS (st.uri, "--checkpoint", ckpt, "--verbose", "--batch", "1000", file);
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (GSubprocess) p
        = spawn (args, G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
    g_autoptr (GDataInputStream) in = g_data_input_stream_new (g_subprocess_get_stderr_pipe (p));
    gboolean seen = FALSE;
    gchar *line;
    while (!seen && (line = g_data_input_stream_read_line (in, NULL, NULL, &error)) != NULL)
      {
        /* "checkpoint: FILE: N lines applied" with N > 0 */
        const gchar *n = g_str_has_prefix (line, "checkpoint: ") ? strstr (line, ".jsonl: ") : NULL;
        seen = n != NULL && g_ascii_strtoull (n + 8, NULL, 10) > 0;
        g_free (line);
      }
    ck_assert_msg (seen, "no checkpoint line before the end");
    g_subprocess_force_exit (p);
    ck_assert (g_subprocess_wait (p, NULL, &error));
    ck_assert_msg (g_subprocess_get_if_signaled (p) && g_subprocess_get_term_sig (p) == SIGKILL,
                   "the import ended before it was killed");
  }
  g_autofree gchar *out = NULL, *err = NULL;
  int rc = run_import (args, &out, &err);
  ck_assert_msg (rc == 0, "rerun exit %d: %s %s", rc, out, err);
  ck_assert_msg (strstr (err, "resuming after line") != NULL, "stderr: %s", err);
  guint64 read = g_ascii_strtoull (strstr (out, ": ") + 2, NULL, 10);
  ck_assert_msg (read > 0 && read < evs->len, "the rerun read %" G_GUINT64_FORMAT " lines", read);
  assert_matches (st.uri, evs, 1000, BIG_SRC, BIG_TGT);
  /* a third run finds the file complete */
  g_free (out), g_free (err);
  rc = run_import (args, &out, &err);
  ck_assert_msg (rc == 0 && strstr (err, "already imported") != NULL, "exit %d: %s", rc, err);
  store_clear (&st);
}
END_TEST

START_TEST (test_hbase)
{
  g_autofree gchar *uri = ab_hbase_test_uri ("import", 4);
  if (uri == NULL)
    {
      printf ("SKIP: import into HBase (AB_HBASE_ADDR is not set)\n");
      return;
    }
  Store st = { 0 };
  store_new (&st, uri, FALSE);
  g_autoptr (GArray) evs = events_new (2000, N_SRC, N_TGT, 31);
  g_autofree gchar *dir = g_dir_make_tmp ("ab-import-XXXXXX", NULL);
  g_autofree gchar *file = g_build_filename (dir, "events.jsonl", NULL);
  write_jsonl (file, evs, 0, evs->len);
  g_autofree gchar *out = NULL, *err = NULL;
  int rc = run_import (IMPORT_ARGS (st.uri, "--batch", "100", file), &out, &err);
  if (rc != 0)
    g_printerr ("import into HBase: exit %d\n%s\n%s\n", rc, out, err);
  ck_assert_msg (rc == 0, "exit %d (the output is above)", rc);
  assert_matches (st.uri, evs, 1, N_SRC, N_TGT);
  g_unlink (file);
  g_rmdir (dir);
  store_clear (&st);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("import");
  TCase *tc = tcase_create ("import");
  tcase_set_timeout (tc, 1800);
  tcase_add_test (tc, test_usage);
  /* into lmdb and into rocksdb */
  tcase_add_loop_test (tc, test_jsonl, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_test (tc, test_jsonl_shapes);
  tcase_add_test (tc, test_sorted_windows);
  tcase_add_test (tc, test_ties_across_batches);
  tcase_add_loop_test (tc, test_csv, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_test (tc, test_bad_lines);
  tcase_add_test (tc, test_engine_error);
  tcase_add_test (tc, test_strict);
  tcase_add_loop_test (tc, test_kill_and_resume, AB_TEST_LMDB, AB_TEST_ROCKSDB + 1);
  tcase_add_test (tc, test_hbase);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
