/* Top-K windows relative to now (docs/data-model.md §17.1): ranges such as
 * `at:bt:now-365d,now` resolved at an instant, the next instant a cell enters
 * or leaves the window, the due rows and the refresher that re-scores them. */
#include <string.h>
#include "engine/topk/topk.h"
#include "codec/bytes.h"
#include "engine/plan/plan.h"

/* Reserved key space, as the TTL index's (storage-format.md §10):
 * prefix || be64(due ms) || the entry's score key. */
static const guint8 DUE_PREFIX[] = { 0, 0, 0, 0, 0, 'a', 'b', 't', 'o', 'p', 'k', 0 };
/* How far ahead the next change is looked for (about 70 years). */
#define HORIZON_MS (G_GINT64_CONSTANT (1) << 41)

gboolean
ab_topk_is_relative (const AbTopk *k)
{
  return k->relative_ranges != NULL && k->relative_ranges[0] != '\0';
}

gint64
ab_topk_refresh_bound (const AbTopk *k)
{
  return k->refresh_after_ms > 0 ? k->refresh_after_ms : AB_TOPK_REFRESH_DEFAULT_MS;
}

/* ---- relative items ---- */

/* One item of relative_ranges: field:op:v (bt: v1,v2), each value constant
 * or relative (now ± offset). */
typedef struct {
  guint field; /* index in the group's fields */
  gchar *name;
  gchar *op; /* eq gt gte lt lte bt */
  guint n;
  gboolean rel[2];
  gint64 off[2];
  gchar *text[2];
} RelItem;

static void
rel_item_clear (RelItem *r)
{
  g_free (r->name);
  g_free (r->op);
  g_free (r->text[0]);
  g_free (r->text[1]);
}

static GArray *
rel_items (const AbGroup *g, const AbTopk *k)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (RelItem));
  g_array_set_clear_func (out, (GDestroyNotify) rel_item_clear);
  g_auto (GStrv) items = g_strsplit (k->relative_ranges, ";", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_auto (GStrv) parts = g_strsplit (items[i], ":", 3);
      if (g_strv_length (parts) != 3)
        continue; /* the model checked them */
      RelItem r = { 0 };
      for (guint f = 0; f < g->n_fields; f++)
        if (g_str_equal (g->fields[f].name, parts[0]))
          r.field = f;
      g_auto (GStrv) values = g_strsplit (parts[2], ",", 2);
      r.n = MIN (g_strv_length (values), 2);
      for (guint v = 0; v < r.n; v++)
        {
          r.text[v] = g_strstrip (g_strdup (values[v]));
          r.rel[v] = ab_topk_now_offset (r.text[v], &r.off[v]);
        }
      r.name = g_strdup (parts[0]);
      r.op = g_strdup (parts[1]);
      g_array_append_val (out, r);
    }
  return out;
}

/* The bucket text of ms in field f's bucket; NULL out of the calendar. */
static gchar *
bucket_text (const AbGroup *g, guint f, gint64 ms)
{
  AbValue in = AB_VALUE_INIT, out = AB_VALUE_INIT;
  ab_value_set_int (&in, AB_VALUE_INT64, ms);
  ab_bucket_apply (g->fields[f].bucket, &in, &out);
  gchar *text = out.kind == AB_VALUE_STRING ? g_strndup (out.u.s.data, out.u.s.len) : NULL;
  ab_value_clear (&out);
  return text;
}

gchar *
ab_topk_ranges_text_at (const AbGroup *g, const AbTopk *k, gint64 now_ms)
{
  g_autoptr (GString) text = g_string_new (k->constant_ranges);
  g_autoptr (GArray) items = rel_items (g, k);
  for (guint i = 0; i < items->len; i++)
    {
      const RelItem *r = &g_array_index (items, RelItem, i);
      g_string_append_printf (text, "%s%s:%s:", text->len > 0 ? ";" : "", r->name, r->op);
      for (guint v = 0; v < r->n; v++)
        {
          g_autofree gchar *b = r->rel[v] ? bucket_text (g, r->field, now_ms + r->off[v]) : NULL;
          if (r->rel[v] && b == NULL)
            return NULL;
          g_string_append_printf (text, "%s%s", v > 0 ? "," : "", r->rel[v] ? b : r->text[v]);
        }
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

GPtrArray *
ab_topk_ranges_at (const AbTableDesc *t, const AbGroup *g, const AbTopk *k, gint64 now_ms,
                   GError **error)
{
  if (!ab_topk_is_relative (k))
    return ab_topk_ranges (t, g, k, error);
  g_autofree gchar *text = ab_topk_ranges_text_at (g, k, now_ms);
  if (text == NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "top-K `%s`: its window at %" G_GINT64_FORMAT
                           " ms is outside the calendar",
                           k->name, now_ms),
           NULL;
  return ab_topk_group_predicates (t, g, text, "ranges", error);
}

/* ---- the next change of a window ---- */

typedef struct {
  guint field;
  gboolean lower;  /* gt/gte (or the from of bt, eq): counts while value >= bound */
  gboolean strict; /* gt / lt */
  gboolean rel;
  gint64 off;
  const gchar *fixed; /* !rel: the constant bound (borrowed from the window's items) */
  gboolean seen;      /* lower and rel: the smallest value among counted cells */
  AbValue min;
} Bound;

struct _AbTopkWindow {
  const AbTopkEntry *e;
  GArray *items; /* RelItem */
  GArray *bounds;
  GPtrArray *fixed; /* the constant ranges */
  gint64 next;
};

static void
bound_clear (Bound *b)
{
  ab_value_clear (&b->min);
}

static gboolean
text_number (const gchar *text, gsize len, gdouble *out)
{
  gchar *end = NULL;
  if (text == NULL || len == 0)
    return FALSE;
  *out = g_ascii_strtod (text, &end);
  return end == text + len;
}

/* Compares a cell value with a bound's text (*c < 0, 0, > 0) as the filters
 * do, as numbers; a text that is not one is compared as text (`eq:now`
 * counts whatever the format). FALSE when v is neither. */
static gboolean
compare (const AbValue *v, const gchar *y, gint *c)
{
  gdouble a, b;
  if (v == NULL || y == NULL)
    return FALSE;
  gboolean num_y = text_number (y, strlen (y), &b);
  if (v->kind >= AB_VALUE_INT8 && v->kind <= AB_VALUE_INT64 && num_y)
    a = (gdouble) v->u.i;
  else if (v->kind != AB_VALUE_STRING)
    return FALSE;
  else if (!num_y || !text_number (v->u.s.data, v->u.s.len, &a))
    {
      *c = strcmp (v->u.s.data, y);
      return TRUE;
    }
  *c = a < b ? -1 : a > b;
  return TRUE;
}

static void
add_bound (GArray *bounds, const RelItem *r, guint v, gboolean lower, gboolean strict)
{
  Bound b = { .field = r->field, .lower = lower, .strict = strict, .rel = r->rel[v] };
  b.off = r->off[v];
  b.fixed = b.rel ? NULL : r->text[v];
  b.min.kind = AB_VALUE_NULL;
  g_array_append_val (bounds, b);
}

/* Does the cell value x pass bound b at time ms? */
static gboolean
passes (const AbGroup *g, const Bound *b, const AbValue *x, gint64 ms)
{
  g_autofree gchar *text = b->rel ? bucket_text (g, b->field, ms + b->off) : NULL;
  gint c;
  if (!compare (x, b->rel ? text : b->fixed, &c))
    return FALSE;
  if (b->lower)
    return b->strict ? c > 0 : c >= 0;
  return b->strict ? c < 0 : c <= 0;
}

/* The first instant after `from` at which b(x) becomes `want` (b moves one
 * way only as time passes); G_MAXINT64 when not within the horizon. */
static gint64
first_flip (const AbGroup *g, const Bound *b, const AbValue *x, gint64 from, gboolean want)
{
  gint64 lo = from, step = 1000, hi = from + step;
  while (passes (g, b, x, hi) != want)
    {
      if (step > HORIZON_MS)
        return G_MAXINT64;
      lo = hi;
      step *= 2;
      hi = from + step;
    }
  while (hi - lo > 1)
    {
      gint64 mid = lo + (hi - lo) / 2;
      if (passes (g, b, x, mid) == want)
        hi = mid;
      else
        lo = mid;
    }
  return hi;
}

/* a before b in the bounds' order (numbers, else text)? */
static gboolean
value_before (const AbValue *a, const AbValue *b)
{
  if (b->kind == AB_VALUE_STRING)
    {
      gint c;
      return compare (a, b->u.s.data, &c) && c < 0;
    }
  if (a->kind >= AB_VALUE_INT8 && a->kind <= AB_VALUE_INT64 && b->kind >= AB_VALUE_INT8
      && b->kind <= AB_VALUE_INT64)
    return a->u.i < b->u.i;
  return FALSE;
}

AbTopkWindow *
ab_topk_window_new (const AbTableDesc *t, const AbTopkEntry *e)
{
  if (!ab_topk_is_relative (e->topk))
    return NULL;
  AbTopkWindow *w = g_new0 (AbTopkWindow, 1);
  w->e = e;
  w->next = G_MAXINT64;
  w->bounds = g_array_new (FALSE, TRUE, sizeof (Bound));
  g_array_set_clear_func (w->bounds, (GDestroyNotify) bound_clear);
  w->fixed = ab_topk_ranges (t, e->group, e->topk, NULL);
  w->items = rel_items (e->group, e->topk);
  for (guint i = 0; i < w->items->len; i++)
    {
      const RelItem *r = &g_array_index (w->items, RelItem, i);
      if (g_str_equal (r->op, "bt") && r->n == 2)
        {
          add_bound (w->bounds, r, 0, TRUE, FALSE);
          add_bound (w->bounds, r, 1, FALSE, FALSE);
        }
      else if (g_str_equal (r->op, "eq"))
        {
          add_bound (w->bounds, r, 0, TRUE, FALSE);
          add_bound (w->bounds, r, 0, FALSE, FALSE);
        }
      else
        add_bound (w->bounds, r, 0, r->op[0] == 'g', strlen (r->op) == 2);
    }
  return w;
}

void
ab_topk_window_free (AbTopkWindow *w)
{
  if (w == NULL)
    return;
  g_array_unref (w->bounds);
  g_array_unref (w->items);
  if (w->fixed != NULL)
    g_ptr_array_unref (w->fixed);
  g_free (w);
}

/* When a cell outside the window now enters it: every upper bound it fails
 * passes in time, and nothing else stops it (G_MAXINT64: never). */
static gint64
enter_time (AbTopkWindow *w, const AbValue *values)
{
  const AbGroup *g = w->e->group;
  gint64 at = w->e->at, enter = at;
  if (w->fixed == NULL || !ab_topk_cell_matches (g, w->fixed, values))
    return G_MAXINT64;
  for (guint i = 0; i < w->bounds->len; i++)
    {
      const Bound *b = &g_array_index (w->bounds, Bound, i);
      const AbValue *x = &values[b->field];
      if (passes (g, b, x, at))
        continue;
      if (b->lower || !b->rel)
        return G_MAXINT64; /* past its lower bound, or outside a constant one */
      enter = MAX (enter, first_flip (g, b, x, at, TRUE));
    }
  return enter > at ? enter : G_MAXINT64;
}

void
ab_topk_window_note (AbTopkWindow *w, const guint8 *key, gsize len)
{
  const AbGroup *g = w->e->group;
  AbValue *values = g_new0 (AbValue, g->n_fields);
  gsize *ends = g_new0 (gsize, g->n_fields);
  AbValue entity = AB_VALUE_INIT;
  AbDirection dir;
  if (ab_topk_decode_cell (g, key, len, &entity, &dir, values, ends))
    {
      if (ab_topk_cell_matches (g, w->e->suffix, values))
        for (guint i = 0; i < w->bounds->len; i++)
          {
            Bound *b = &g_array_index (w->bounds, Bound, i);
            const AbValue *x = &values[b->field];
            if (b->lower && b->rel && (!b->seen || value_before (x, &b->min)))
              {
                ab_value_clear (&b->min);
                ab_value_copy (&b->min, x);
                b->seen = TRUE;
              }
          }
      else
        w->next = MIN (w->next, enter_time (w, values));
    }
  for (guint i = 0; i < g->n_fields; i++)
    ab_value_clear (&values[i]);
  g_free (values);
  g_free (ends);
  ab_value_clear (&entity);
}

gint64
ab_topk_window_next (AbTopkWindow *w)
{
  /* a counted cell leaves when a lower bound passes it: the smallest first */
  for (guint i = 0; i < w->bounds->len; i++)
    {
      const Bound *b = &g_array_index (w->bounds, Bound, i);
      if (b->lower && b->rel && b->seen)
        w->next = MIN (w->next, first_flip (w->e->group, b, &b->min, w->e->at, FALSE));
    }
  return w->next;
}

/* ---- due rows ---- */

GByteArray *
ab_topk_due_key_of (const guint8 *score_key, gsize len, gint64 due)
{
  GByteArray *key = g_byte_array_sized_new (sizeof DUE_PREFIX + 8 + len);
  guint8 when[8];
  ab_codec_put_be64 (when, due);
  g_byte_array_append (key, DUE_PREFIX, sizeof DUE_PREFIX);
  g_byte_array_append (key, when, sizeof when);
  g_byte_array_append (key, score_key, len);
  return key;
}

GByteArray *
ab_topk_due_key (const AbTableDesc *t, const AbTopkEntry *e, gint64 due, GError **error)
{
  g_autoptr (GByteArray) sk = ab_topk_score_key (t, e, error);
  return sk != NULL ? ab_topk_due_key_of (sk->data, sk->len, due) : NULL;
}

gboolean
ab_topk_put_due (const AbTableDesc *t, const AbTopkEntry *e, gint64 next, AbBatch *out,
                 GError **error)
{
  if (next == G_MAXINT64)
    return TRUE;
  g_autoptr (GByteArray) key = ab_topk_due_key (t, e, next, error);
  if (key == NULL)
    return FALSE;
  guint8 v[8];
  ab_codec_put_be64 (v, next);
  ab_batch_put (out, key->data, key->len, v, sizeof v);
  return TRUE;
}

/* ---- the refresher ---- */

typedef struct {
  const AbTableDesc *t;
  AbTopkEntry e;
  GPtrArray *done; /* GBytes*: the due rows this refresh consumes */
  gint64 score;
} Refresh;

static void
refresh_free (Refresh *r)
{
  ab_topk_entry_clear (&r->e);
  g_ptr_array_unref (r->done);
  g_free (r);
}

static gboolean
plan_refresh (AbStore *reader, AbBatch *batch, gpointer data, GError **error)
{
  Refresh *r = data;
  g_autoptr (GByteArray) sk = ab_topk_score_key (r->t, &r->e, error);
  g_autoptr (GBytes) old = NULL;
  if (sk == NULL || !ab_store_get (reader, sk->data, sk->len, &old, error)
      || !ab_topk_rescore_entry (reader, r->t, &r->e, old, &r->score, batch, error))
    return FALSE;
  for (guint i = 0; i < r->done->len; i++)
    {
      gsize len;
      const guint8 *k = g_bytes_get_data (r->done->pdata[i], &len);
      ab_batch_delete (batch, k, len);
    }
  return TRUE;
}

/* Inside a write transaction where the store has them. Elsewhere (HBase)
 * read, then written, then the cells summed again: a write that moved them
 * meanwhile is re-scored once more (and the rank row written before is
 * removed), which narrows the race with writers' own re-scoring. */
static gboolean
refresh_entry (AbStore *store, Refresh *r, GError **error)
{
  if (ab_store_can_transact (store))
    return ab_store_transact (store, plan_refresh, r, error);
  gint64 written = G_MAXINT64;
  for (guint attempt = 0; attempt < 3; attempt++)
    {
      g_autoptr (AbBatch) batch = ab_batch_new ();
      gint64 again;
      if (!plan_refresh (store, batch, r, error))
        return FALSE;
      if (written != G_MAXINT64 && written != r->score && written != 0)
        {
          g_autoptr (GByteArray) rk = ab_topk_rank_key (r->t, &r->e, written, error);
          if (rk == NULL)
            return FALSE;
          ab_batch_delete (batch, rk->data, rk->len);
        }
      if (!ab_store_batch (store, batch, error) || !ab_topk_score (store, &r->e, &again, error))
        return FALSE;
      if (again == r->score)
        return TRUE;
      written = r->score;
    }
  return TRUE;
}

/* table code -> AbTableDesc* of the catalog (borrowed from `lists`). */
static GHashTable *
tables_by_code (AbEngine *engine, GPtrArray *lists)
{
  GHashTable *by = g_hash_table_new (NULL, NULL);
  g_autoptr (GPtrArray) dbs = ab_catalog_list_databases (engine->catalog);
  for (guint d = 0; d < dbs->len; d++)
    {
      GPtrArray *ts
          = ab_catalog_list_tables (engine->catalog, ((AbDatabaseDesc *) dbs->pdata[d])->database);
      g_ptr_array_add (lists, ts);
      for (guint i = 0; i < ts->len; i++)
        {
          AbTableDesc *t = ts->pdata[i];
          g_hash_table_insert (by, GINT_TO_POINTER (t->code), t);
        }
    }
  return by;
}

/* The table a score key names: salt, enc(entity), i32(table). */
static const AbTableDesc *
table_of (GHashTable *by, const guint8 *sk, gsize len)
{
  gsize pos = 4;
  AbValue entity = AB_VALUE_INIT;
  gint32 code;
  gboolean ok = len > 4 && ab_codec_get_value (sk, len, &pos, &entity, NULL, NULL)
                && ab_codec_get_int32 (sk, len, &pos, &code, NULL);
  ab_value_clear (&entity);
  return ok ? g_hash_table_lookup (by, GINT_TO_POINTER (code)) : NULL;
}

gboolean
ab_engine_topk_refresh (AbEngine *engine, guint max, guint *refreshed, GError **error)
{
  gint64 now = ab_engine_now_ms (engine);
  const gsize stem = sizeof DUE_PREFIX + 8; /* the score key follows it */
  g_autoptr (GArray) rows = ab_kv_array_new ();
  GError *local = NULL;
  *refreshed = 0;
  if (!ab_engine_scan_due (engine, DUE_PREFIX, sizeof DUE_PREFIX, now, max, rows, &local))
    return ab_engine_propagate (error, local), FALSE;
  if (rows->len == 0)
    return TRUE;
  g_autoptr (GPtrArray) lists = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  g_autoptr (GHashTable) by = tables_by_code (engine, lists);
  g_autoptr (GHashTable) seen
      = g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
  g_autoptr (GPtrArray) work = g_ptr_array_new_with_free_func ((GDestroyNotify) refresh_free);
  g_autoptr (AbBatch) orphans = ab_batch_new ();
  for (guint i = 0; i < rows->len; i++)
    {
      GBytes *key = g_array_index (rows, AbKv, i).key;
      gsize len;
      const guint8 *k = g_bytes_get_data (key, &len);
      const guint8 *sk = k + stem;
      gsize sklen = len > stem ? len - stem : 0;
      const AbTableDesc *t = sklen > 0 ? table_of (by, sk, sklen) : NULL;
      g_autoptr (GBytes) skb = g_bytes_new (sk, sklen);
      Refresh *r = g_hash_table_lookup (seen, skb);
      if (r == NULL && t != NULL)
        {
          r = g_new0 (Refresh, 1);
          r->t = t;
          r->done = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
          if (!ab_topk_entry_of_row (t, sk, sklen, now, &r->e, NULL))
            g_clear_pointer (&r, refresh_free);
        }
      if (r == NULL)
        {
          ab_batch_delete (orphans, k, len); /* its table or top-K is gone */
          continue;
        }
      if (!g_hash_table_contains (seen, skb))
        {
          g_hash_table_insert (seen, g_bytes_ref (skb), r);
          g_ptr_array_add (work, r);
        }
      g_ptr_array_add (r->done, g_bytes_ref (key));
    }
  for (guint i = 0; i < work->len; i++)
    {
      if (!refresh_entry (engine->store, work->pdata[i], error))
        return FALSE;
      (*refreshed)++;
    }
  if (ab_batch_len (orphans) > 0 && !ab_store_batch (engine->store, orphans, &local))
    return ab_engine_propagate (error, local), FALSE;
  return TRUE;
}

guint
ab_engine_topk_refresh_ms (AbEngine *engine)
{
  gint64 best = 0;
  g_autoptr (GPtrArray) dbs = ab_catalog_list_databases (engine->catalog);
  for (guint d = 0; d < dbs->len; d++)
    {
      g_autoptr (GPtrArray) ts
          = ab_catalog_list_tables (engine->catalog, ((AbDatabaseDesc *) dbs->pdata[d])->database);
      for (guint i = 0; i < ts->len; i++)
        {
          GPtrArray *groups = ((AbTableDesc *) ts->pdata[i])->schema->group_defs;
          for (guint g = 0; g < groups->len; g++)
            {
              GPtrArray *topks = ((AbGroup *) groups->pdata[g])->topks;
              for (guint k = 0; k < topks->len; k++)
                if (ab_topk_is_relative (topks->pdata[k]))
                  {
                    gint64 bound = ab_topk_refresh_bound (topks->pdata[k]);
                    best = best == 0 ? bound : MIN (best, bound);
                  }
            }
        }
    }
  if (best == 0)
    return 0;
  return (guint) CLAMP (best, AB_TOPK_REFRESH_MIN_MS, AB_TOPK_REFRESH_DEFAULT_MS);
}
