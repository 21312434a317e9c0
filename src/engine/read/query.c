/* Read paths (docs/data-model.md §7): count from the Count row, get/mget from State
 * rows (active only, request order, filters), the same by id for multi-edges
 * and vertices (§11), and the edge frame helpers the scan shares. */
#include <string.h>
#include "engine/read/read.h"
#include "codec/record.h"
#include "model/types.h"

gboolean
ab_query_direction_parse (const gchar *text, AbQueryDirection *out)
{
  if (g_strcmp0 (text, "OUT") == 0)
    *out = AB_QDIR_OUT;
  else if (g_strcmp0 (text, "IN") == 0)
    *out = AB_QDIR_IN;
  else
    return FALSE;
  return TRUE;
}

/* Output edges are made and freed by the thousand on the read paths, three
 * allocations each: every thread keeps up to EDGE_CACHE emptied ones, their
 * arrays' room kept, for its next ones. Under AddressSanitizer a kept edge
 * is poisoned, so that a use after its free is still caught: its fields and
 * its arrays, not the two pointers to the arrays, which LeakSanitizer must
 * see (it does not look inside poisoned memory). */
#define EDGE_CACHE 256
#if defined(__SANITIZE_ADDRESS__)
#include <stddef.h>
#include <sanitizer/asan_interface.h>
/* the arrays first, then the fields (props_room among them) */
#define EDGE_POISON(e)                                                                \
  do                                                                                  \
    {                                                                                 \
      ASAN_POISON_MEMORY_REGION ((e)->names, (e)->props_room * sizeof *(e)->names);   \
      ASAN_POISON_MEMORY_REGION ((e)->values, (e)->props_room * sizeof *(e)->values); \
      ASAN_POISON_MEMORY_REGION ((e), offsetof (AbEdgeOut, names));                   \
    }                                                                                 \
  while (0)
#define EDGE_UNPOISON(e)                                                                \
  do                                                                                    \
    {                                                                                   \
      ASAN_UNPOISON_MEMORY_REGION ((e), offsetof (AbEdgeOut, names));                   \
      ASAN_UNPOISON_MEMORY_REGION ((e)->names, (e)->props_room * sizeof *(e)->names);   \
      ASAN_UNPOISON_MEMORY_REGION ((e)->values, (e)->props_room * sizeof *(e)->values); \
    }                                                                                   \
  while (0)
#else
#define EDGE_POISON(e) ((void) (e))
#define EDGE_UNPOISON(e) ((void) (e))
#endif

typedef struct {
  guint n;
  AbEdgeOut *edges[EDGE_CACHE];
} EdgeCache;

/* initial-exec: one load per access instead of a __tls_get_addr call (twice
 * per output edge); a library opened by dlopen takes it from glibc's static
 * TLS surplus, which has room for a pointer. */
static _Thread_local EdgeCache *my_edges __attribute__ ((tls_model ("initial-exec")));

static void
props_clear (AbEdgeOut *e)
{
  for (guint i = 0; i < e->n_props; i++)
    ab_value_clear (&e->values[i]);
  e->n_props = 0;
}

static void
edge_destroy (AbEdgeOut *e)
{
  ab_value_clear (&e->source);
  ab_value_clear (&e->target);
  props_clear (e);
  g_free (e->names);
  g_free (e->values);
  g_free (e->offset);
  g_free (e);
}

static void
edge_cache_free (gpointer data)
{
  EdgeCache *c = data;
  my_edges = NULL; /* this thread is ending: later frees destroy */
  for (guint i = 0; i < c->n; i++)
    {
      EDGE_UNPOISON (c->edges[i]);
      edge_destroy (c->edges[i]);
    }
  g_free (c);
}

static GPrivate edge_cache = G_PRIVATE_INIT (edge_cache_free);

void
ab_edge_out_free (AbEdgeOut *e)
{
  if (e == NULL)
    return;
  EdgeCache *c = my_edges;
  if (c == NULL || c->n >= EDGE_CACHE)
    {
      edge_destroy (e);
      return;
    }
  ab_value_clear (&e->source);
  ab_value_clear (&e->target);
  props_clear (e);
  g_clear_pointer (&e->offset, g_free);
  e->version = 0;
  EDGE_POISON (e);
  c->edges[c->n++] = e;
}

AbEdgeOut *
ab_edge_out_new (void)
{
  EdgeCache *c = my_edges;
  if (c == NULL)
    {
      c = my_edges = g_new0 (EdgeCache, 1);
      g_private_set (&edge_cache, c);
    }
  if (c->n > 0)
    {
      AbEdgeOut *e = c->edges[--c->n];
      EDGE_UNPOISON (e);
      return e;
    }
  AbEdgeOut *e = g_new0 (AbEdgeOut, 1);
  /* room for a typical edge's properties: no regrowth while filling */
  e->props_room = 4;
  e->names = g_new (const gchar *, e->props_room);
  e->values = g_new (AbValue, e->props_room);
  return e;
}

/* Adds a property unless it is null or internal (multi-edge _source/_target). */
void
ab_edge_out_add (AbEdgeOut *e, const AbField *field, const AbValue *v)
{
  if (v == NULL || ab_value_is_null (v) || field->name[0] == '_')
    return;
  AbValue copy = AB_VALUE_INIT;
  ab_value_copy (&copy, v);
  ab_edge_out_push (e, field->name, &copy);
}

void
ab_edge_out_take (AbEdgeOut *e, const AbField *field, AbValue *v)
{
  if (ab_value_is_null (v) || field->name[0] == '_')
    return;
  ab_edge_out_push (e, field->name, v);
}

void
ab_edge_out_push (AbEdgeOut *e, const gchar *name, AbValue *v)
{
  if (e->n_props == e->props_room)
    {
      e->props_room *= 2;
      e->names = g_renew (const gchar *, e->names, e->props_room);
      e->values = g_renew (AbValue, e->values, e->props_room);
    }
  e->names[e->n_props] = name;
  e->values[e->n_props++] = *v;
  *v = (AbValue) AB_VALUE_INIT;
}

AbEdgeFrame *
ab_edge_frame_sized_new (guint n)
{
  AbEdgeFrame *f = g_new0 (AbEdgeFrame, 1);
  f->edges = g_ptr_array_new_full (n, (GDestroyNotify) ab_edge_out_free);
  f->total = -1;
  return f;
}

AbEdgeFrame *
ab_edge_frame_new (void)
{
  return ab_edge_frame_sized_new (0);
}

void
ab_edge_frame_free (AbEdgeFrame *f)
{
  if (f == NULL)
    return;
  g_ptr_array_unref (f->edges);
  g_free (f->offset);
  if (f->strings != NULL)
    g_string_chunk_free (f->strings);
  g_free (f);
}

/* Field lookup for filters over an AbEdgeOut. */
const AbValue *
ab_edge_out_lookup (const gchar *field, gpointer data)
{
  AbEdgeOut *e = data;
  if (g_str_equal (field, "source") || g_str_equal (field, "src"))
    return &e->source;
  if (g_str_equal (field, "target") || g_str_equal (field, "tgt"))
    return &e->target;
  for (guint i = 0; i < e->n_props; i++)
    if (g_str_equal (e->names[i], field))
      return &e->values[i];
  return NULL;
}

/* Applies filters (after the page is cut, as upstream does). */
void
ab_edge_frame_filter (AbEdgeFrame *f, GPtrArray *filters)
{
  if (filters == NULL || filters->len == 0)
    return;
  for (guint i = 0; i < f->edges->len;)
    {
      AbEdgeOut *e = f->edges->pdata[i];
      /* version is matched through a temporary property slot */
      AbValue v = AB_VALUE_INIT;
      ab_value_set_int (&v, AB_VALUE_INT64, e->version);
      ab_edge_out_push (e, "version", &v);
      gboolean keep = ab_filters_match (filters, ab_edge_out_lookup, e);
      e->n_props--; /* an integer: nothing to release */
      if (keep)
        i++;
      else
        g_ptr_array_remove_index (f->edges, i);
    }
}

gboolean
ab_query_cast_start (const AbTableDesc *t, const gchar *text, AbQueryDirection dir, AbValue *out,
                     GError **error)
{
  if (text == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "start is required");
  AbType type = dir == AB_QDIR_OUT ? t->schema->source_type : t->schema->target_type;
  g_autoptr (GError) local = NULL;
  if (!ab_model_cast_text (text, type, "start", out, &local))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s", local->message);
  return TRUE;
}

/* A value as type for reading: itself when it has the type, else a cast. */
static gboolean
cast_view (const AbValue *in, AbType type, const gchar *what, AbValue *scratch, const AbValue **out,
           GError **error)
{
  g_autoptr (GError) local = NULL;
  if (!ab_model_cast_view (in, type, what, scratch, out, &local))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s", local->message);
  return TRUE;
}

/* ab_query_cast_start_value without a copy when start has the type. */
static gboolean
start_view (const AbTableDesc *t, const AbValue *value, AbQueryDirection dir, AbValue *scratch,
            const AbValue **out, GError **error)
{
  if (value == NULL || ab_value_is_null (value))
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "start is required");
  AbType type = dir == AB_QDIR_OUT ? t->schema->source_type : t->schema->target_type;
  return cast_view (value, type, "start", scratch, out, error);
}

gboolean
ab_query_cast_start_value (const AbTableDesc *t, const AbValue *value, AbQueryDirection dir,
                           AbValue *out, GError **error)
{
  const AbValue *v;
  ab_value_clear (out);
  if (!start_view (t, value, dir, out, &v, error))
    return FALSE;
  if (v != out)
    ab_value_copy (out, v);
  return TRUE;
}

/* The table of a count, refused on immutable tables. */
static AbTableDesc *
count_table (AbEngine *engine, const gchar *db, const gchar *table, GError **error)
{
  AbTableDesc *t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t != NULL && t->schema->kind == AB_TABLE_IMMUTABLE_EDGE)
    {
      ab_table_desc_unref (t);
      return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                             "count is not supported on immutable table %s.%s", db, table),
             NULL;
    }
  return t;
}

/* A Count row's value: 8 bytes big-endian; anything else reads as 0. */
static gboolean
count_row (const guint8 *key, gsize klen, const guint8 *value, gsize vlen, gpointer count)
{
  (void) key;
  (void) klen;
  if (value != NULL && vlen == 8)
    *(gint64 *) count = ab_codec_get_be64 (value);
  return TRUE;
}

/* Reads the Count row of a start already cast. */
static gboolean
read_count (AbEngine *engine, const AbTableDesc *t, const AbValue *start, AbQueryDirection dir,
            gint64 *count, GError **error)
{
  GError *local = NULL;
  g_auto (AbBuf) key;
  ab_buf_init (&key);
  *count = 0;
  if (!ab_key_count (&key, start, (AbDirection) dir, t->code, &local)
      || !ab_store_get_with (engine->store, key.data, key.len, count_row, count, &local))
    {
      ab_engine_propagate (error, local);
      return FALSE;
    }
  return TRUE;
}

gboolean
ab_engine_count (AbEngine *engine, const gchar *db, const gchar *table, const gchar *start,
                 AbQueryDirection dir, AbValue *start_out, gint64 *count, GError **error)
{
  g_autoptr (AbTableDesc) t = count_table (engine, db, table, error);
  if (t != NULL && ab_query_cast_start (t, start, dir, start_out, error)
      && read_count (engine, t, start_out, dir, count, error))
    return TRUE;
  ab_value_clear (start_out); /* cast, then the read failed: the caller has nothing to clear */
  return FALSE;
}

gboolean
ab_engine_count_value (AbEngine *engine, const gchar *db, const gchar *table, const AbValue *start,
                       AbQueryDirection dir, gint64 *count, GError **error)
{
  g_autoptr (AbTableDesc) t = count_table (engine, db, table, error);
  AbValue scratch = AB_VALUE_INIT;
  const AbValue *v = NULL;
  gboolean ok = t != NULL && start_view (t, start, dir, &scratch, &v, error)
                && read_count (engine, t, v, dir, count, error);
  ab_value_clear (&scratch);
  return ok;
}

/* Appends *v (taken) unless out holds an equal value already. */
static void
append_distinct (GArray *out, AbValue *v)
{
  for (guint j = 0; j < out->len; j++)
    if (ab_value_equal (&g_array_index (out, AbValue, j), v))
      {
        ab_value_clear (v);
        return;
      }
  g_array_append_val (out, *v);
}

static gboolean
cast_list (GPtrArray *texts, AbType type, const gchar *what, GArray *out, GError **error)
{
  for (guint i = 0; texts != NULL && i < texts->len; i++)
    {
      AbValue v = AB_VALUE_INIT;
      g_autoptr (GError) local = NULL;
      if (!ab_model_cast_text (texts->pdata[i], type, what, &v, &local))
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s", local->message);
      append_distinct (out, &v);
    }
  if (out->len == 0)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s is required", what);
  return TRUE;
}

static GArray *
value_array_new (void)
{
  GArray *a = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (a, (GDestroyNotify) ab_value_clear);
  return a;
}

/* One active state -> an output edge, its property values taken from st. */
static AbEdgeOut *
edge_from_state (const AbTableDesc *t, const AbValue *s, const AbValue *tg, AbState *st)
{
  AbEdgeOut *e = ab_edge_out_new ();
  e->version = st->meta.version;
  ab_value_copy (&e->source, s);
  ab_value_copy (&e->target, tg);
  for (guint f = 0; f < st->n; f++)
    if (st->slots[f].kind == AB_SLOT_VALUE) /* taken: the state is cleared after */
      ab_edge_out_take (e, t->schema->fields->pdata[f], &st->slots[f].value);
  return e;
}

gboolean
ab_query_fetch_states (AbEngine *engine, const AbTableDesc *t, GPtrArray *srcs, GPtrArray *tgts,
                       AbEdgeFrame *frame, GError **error)
{
  g_autoptr (GPtrArray) keys = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  GError *local = NULL;
  for (guint i = 0; i < srcs->len; i++)
    {
      GByteArray *k = ab_codec_state_key (srcs->pdata[i], tgts->pdata[i], t->code, &local);
      if (k == NULL)
        return ab_engine_propagate (error, local), FALSE;
      g_ptr_array_add (keys, g_byte_array_free_to_bytes (k));
    }
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (keys->len > 0 && !ab_store_multi_get (engine->store, keys, rows, &local))
    return ab_engine_propagate (error, local), FALSE;
  for (guint r = 0; r < rows->len; r++)
    {
      AbKv *kv = &g_array_index (rows, AbKv, r);
      if (kv->value == NULL)
        continue;
      AbState st;
      gsize len;
      const guint8 *data = g_bytes_get_data (kv->value, &len);
      if (!ab_state_decode (t->schema, data, len, &st, &local))
        return ab_engine_propagate (error, local), FALSE;
      if (st.meta.active)
        g_ptr_array_add (frame->edges, edge_from_state (t, srcs->pdata[r], tgts->pdata[r], &st));
      ab_state_clear (&st);
    }
  return TRUE;
}

static gboolean
check_pairs (AbEngine *engine, guint n, const gchar *noun, const gchar *what, GError **error)
{
  if (n <= engine->cfg.max_get_pairs)
    return TRUE;
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "too many %s requested: %u %s > %u",
                         noun, n, what, engine->cfg.max_get_pairs);
}

/* The table of a get, refused on immutable and multi-edge tables. */
static AbTableDesc *
get_table (AbEngine *engine, const gchar *db, const gchar *table, GError **error)
{
  AbTableDesc *t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t == NULL)
    return NULL;
  AbTableKind kind = t->schema->kind;
  if (kind != AB_TABLE_IMMUTABLE_EDGE && kind != AB_TABLE_MULTI_EDGE)
    return t;
  ab_table_desc_unref (t);
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                         "edges/get is not supported on %s table %s.%s",
                         kind == AB_TABLE_IMMUTABLE_EDGE ? "immutable" : "multi-edge", db, table),
         NULL;
}

/* The active edges among the State rows of (srcs[i], tgts[i]), filtered. */
static AbEdgeFrame *
fetch_filtered (AbEngine *engine, const AbTableDesc *t, GPtrArray *srcs, GPtrArray *tgts,
                GPtrArray *preds, GError **error)
{
  g_autoptr (AbEdgeFrame) frame = ab_edge_frame_new ();
  if (!ab_query_fetch_states (engine, t, srcs, tgts, frame, error))
    return NULL;
  ab_edge_frame_filter (frame, preds);
  frame->total = frame->edges->len;
  return g_steal_pointer (&frame);
}

/* The active edges of srcs x tgts (already cast, distinct) that pass preds. */
static AbEdgeFrame *
get_pairs (AbEngine *engine, const AbTableDesc *t, GArray *srcs, GArray *tgts, GPtrArray *preds,
           GError **error)
{
  guint64 pairs = (guint64) srcs->len * tgts->len;
  if (!check_pairs (engine, (guint) MIN (pairs, G_MAXUINT), "edges", "(sources x targets)", error))
    return NULL;
  g_autoptr (GPtrArray) ps = g_ptr_array_new ();
  g_autoptr (GPtrArray) pt = g_ptr_array_new ();
  for (guint i = 0; i < srcs->len; i++) /* source-major */
    for (guint j = 0; j < tgts->len; j++)
      {
        g_ptr_array_add (ps, &g_array_index (srcs, AbValue, i));
        g_ptr_array_add (pt, &g_array_index (tgts, AbValue, j));
      }
  return fetch_filtered (engine, t, ps, pt, preds, error);
}

AbEdgeFrame *
ab_engine_get (AbEngine *engine, const gchar *db, const gchar *table, GPtrArray *sources,
               GPtrArray *targets, const gchar *filters, GError **error)
{
  g_autoptr (AbTableDesc) t = get_table (engine, db, table, error);
  if (t == NULL)
    return NULL;
  g_autoptr (GArray) srcs = value_array_new ();
  g_autoptr (GArray) tgts = value_array_new ();
  if (!cast_list (sources, t->schema->source_type, "source", srcs, error)
      || !cast_list (targets, t->schema->target_type, "target", tgts, error))
    return NULL;
  g_autoptr (GPtrArray) preds = ab_predicates_parse (t, filters, TRUE, "filters", error);
  if (preds == NULL)
    return NULL;
  return get_pairs (engine, t, srcs, tgts, preds, error);
}

/* Typed values cast to type, duplicates once (as cast_list does for text),
 * into out, or (out NULL, n 1) into *one. */
static gboolean
cast_values (const AbValue *in, guint n, AbType type, const gchar *what, GArray *out, AbValue *one,
             GError **error)
{
  for (guint i = 0; i < n; i++)
    {
      AbValue v = AB_VALUE_INIT;
      g_autoptr (GError) local = NULL;
      if (!ab_model_cast_value (&in[i], type, what, &v, &local))
        return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST, "%s", local->message);
      if (out == NULL)
        *one = v;
      else
        append_distinct (out, &v);
    }
  return TRUE;
}

typedef struct {
  const AbTableDesc *t;
  const AbValue *s, *tg; /* the pair, cast */
  AbEdgeOut *edge;       /* the edge when its State row is active */
  GError *error;
} OneRow;

/* The State row, decoded where the store holds it. */
static gboolean
one_row (const guint8 *key, gsize klen, const guint8 *value, gsize vlen, gpointer data)
{
  OneRow *row = data;
  AbState st;
  (void) key;
  (void) klen;
  if (value == NULL || !ab_state_decode (row->t->schema, value, vlen, &st, &row->error))
    return TRUE;
  if (st.meta.active)
    row->edge = edge_from_state (row->t, row->s, row->tg, &st);
  ab_state_clear (&st);
  return TRUE;
}

/* One pair, no filters (the library's ab_db_get): one point read, none of
 * the per-request arrays of the general path. */
static AbEdgeFrame *
get_one (AbEngine *engine, const AbTableDesc *t, const AbValue *source, const AbValue *target,
         GError **error)
{
  OneRow row = { t, NULL, NULL, NULL, NULL };
  AbValue s = AB_VALUE_INIT, tg = AB_VALUE_INIT; /* casts, when the types differ */
  g_auto (AbBuf) key;
  ab_buf_init (&key);
  AbEdgeFrame *frame = NULL;
  if (!cast_view (source, t->schema->source_type, "source", &s, &row.s, error)
      || !cast_view (target, t->schema->target_type, "target", &tg, &row.tg, error))
    goto out;
  if (!ab_key_state (&key, row.s, row.tg, t->code, &row.error)
      || !ab_store_get_with (engine->store, key.data, key.len, one_row, &row, &row.error)
      || row.error != NULL)
    {
      ab_engine_propagate (error, g_steal_pointer (&row.error));
      goto out;
    }
  frame = ab_edge_frame_sized_new (1);
  if (row.edge != NULL)
    g_ptr_array_add (frame->edges, g_steal_pointer (&row.edge));
  frame->total = frame->edges->len;
out:
  ab_value_clear (&s);
  ab_value_clear (&tg);
  return frame;
}

AbEdgeFrame *
ab_engine_get_values (AbEngine *engine, const gchar *db, const gchar *table, const AbValue *sources,
                      guint n_sources, const AbValue *targets, guint n_targets,
                      const AbRangeSpec *filters, guint n_filters, GError **error)
{
  g_autoptr (AbTableDesc) t = get_table (engine, db, table, error);
  if (t == NULL)
    return NULL;
  if (n_sources == 1 && n_targets == 1 && n_filters == 0)
    return get_one (engine, t, sources, targets, error);
  g_autoptr (GArray) srcs = value_array_new ();
  g_autoptr (GArray) tgts = value_array_new ();
  if (!cast_values (sources, n_sources, t->schema->source_type, "source", srcs, NULL, error)
      || !cast_values (targets, n_targets, t->schema->target_type, "target", tgts, NULL, error))
    return NULL;
  g_autoptr (GPtrArray) preds
      = ab_predicates_from_specs (t, filters, n_filters, TRUE, "filters", error);
  if (preds == NULL)
    return NULL;
  return get_pairs (engine, t, srcs, tgts, preds, error);
}

/* Point reads by id: the State rows (id, id) of a multi-edge table or
 * (id, "-") of a vertex table, in request order, duplicates once. */
static AbEdgeFrame *
get_by_id (AbEngine *engine, const gchar *db, const gchar *table, AbTableKind kind, GPtrArray *ids,
           const gchar *filters, GError **error)
{
  gboolean vertex = kind == AB_TABLE_VERTEX;
  g_autoptr (AbTableDesc) t = ab_engine_resolve (engine, db, table, NULL, error);
  if (t == NULL)
    return NULL;
  if (t->schema->kind != kind)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "%s needs a %s table; %s.%s is not one",
                           vertex ? "vertices/get" : "multi-edges/ids",
                           vertex ? "vertex" : "multi-edge", db, table),
           NULL;
  g_autoptr (GArray) vals = value_array_new ();
  if (!cast_list (ids, t->schema->id_type, vertex ? "id" : "ids", vals, error)
      || !check_pairs (engine, vals->len, vertex ? "vertices" : "edges", "ids", error))
    return NULL;
  g_autoptr (GPtrArray) preds = ab_predicates_parse (t, filters, TRUE, "filters", error);
  if (preds == NULL)
    return NULL;
  AbValue marker = AB_VALUE_INIT;
  ab_value_set_string (&marker, AB_VALUE_STRING, AB_VERTEX_MARKER, strlen (AB_VERTEX_MARKER));
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  g_autoptr (GPtrArray) targets = g_ptr_array_new ();
  for (guint i = 0; i < vals->len; i++)
    {
      g_ptr_array_add (keys, &g_array_index (vals, AbValue, i));
      g_ptr_array_add (targets, vertex ? &marker : &g_array_index (vals, AbValue, i));
    }
  AbEdgeFrame *frame = fetch_filtered (engine, t, keys, targets, preds, error);
  ab_value_clear (&marker);
  return frame;
}

AbEdgeFrame *
ab_engine_get_ids (AbEngine *engine, const gchar *db, const gchar *table, GPtrArray *ids,
                   const gchar *filters, GError **error)
{
  return get_by_id (engine, db, table, AB_TABLE_MULTI_EDGE, ids, filters, error);
}

AbEdgeFrame *
ab_engine_get_vertices (AbEngine *engine, const gchar *db, const gchar *table, GPtrArray *ids,
                        const gchar *filters, GError **error)
{
  return get_by_id (engine, db, table, AB_TABLE_VERTEX, ids, filters, error);
}
