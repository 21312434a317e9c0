/* The import's key order for a window of JSON Lines edges: each record
 * scanned (read only) for its source and target, the window sorted by them,
 * stably; a window with any key not known exactly is left in file order. */
#include "admin/import_sort.h"

#include <string.h>
#include "admin/import_scan.h"

typedef struct {
  AbValue source, target; /* INT64 or STRING borrowed from the window (not terminated) */
  guint64 sfirst, tfirst; /* a STRING's first 8 bytes, big-endian, zero-padded */
  guint index;            /* the record's place in the window */
} Keyed;

/* Most keys differ in their first bytes: compared as one integer first.
 * Unescaped JSON strings hold no NUL byte, so the padding sorts like the end
 * of the string. */
static guint64
first_bytes (const AbValue *v)
{
  guint64 x = 0;
  if (v->kind != AB_VALUE_STRING)
    return 0;
  for (gsize i = 0; i < 8; i++)
    x = x << 8 | (i < v->u.s.len ? (guint8) v->u.s.data[i] : 0);
  return x;
}

/* The scanner's kind that casts to the schema's type exactly: a string
 * without escapes for a string, an integer for an integer type. */
static gboolean
exact_for (const AbValue *v, AbType type)
{
  switch (type)
    {
      case AB_TYPE_STRING: return v->kind == AB_VALUE_STRING;
      case AB_TYPE_BYTE:
      case AB_TYPE_SHORT:
      case AB_TYPE_INT:
      case AB_TYPE_LONG: return v->kind == AB_VALUE_INT64;
      default: return FALSE;
    }
}

static gint
value_cmp (const AbValue *a, guint64 afirst, const AbValue *b, guint64 bfirst)
{
  if (a->kind == AB_VALUE_INT64)
    return a->u.i < b->u.i ? -1 : a->u.i > b->u.i;
  if (afirst != bfirst)
    return afirst < bfirst ? -1 : 1;
  gsize n = MIN (a->u.s.len, b->u.s.len);
  gint c = n > 8 ? memcmp (a->u.s.data + 8, b->u.s.data + 8, n - 8) : 0;
  return c != 0 ? c : a->u.s.len < b->u.s.len ? -1 : a->u.s.len > b->u.s.len;
}

static gint
key_cmp (const Keyed *a, const Keyed *b)
{
  gint c = value_cmp (&a->source, a->sfirst, &b->source, b->sfirst);
  return c != 0 ? c : value_cmp (&a->target, a->tfirst, &b->target, b->tfirst);
}

static gint
keyed_cmp (gconstpointer pa, gconstpointer pb, gpointer unused)
{
  const Keyed *a = pa, *b = pb;
  gint c = key_cmp (a, b);
  return c != 0 ? c : a->index < b->index ? -1 : a->index > b->index;
}

/* The source and target of one scanned record; FALSE unless both are there
 * once (the scanner refuses repeated names) and exact for the schema. */
static gboolean
key_of (GArray *members, AbType source_type, AbType target_type, Keyed *k)
{
  gboolean has_source = FALSE, has_target = FALSE;
  for (guint i = 0; i < members->len; i++)
    {
      const AbImportMember *m = &g_array_index (members, AbImportMember, i);
      if (m->in_props || m->is_object)
        continue;
      if (m->name_len == 6 && memcmp (m->name, "source", 6) == 0)
        k->source = m->value, has_source = TRUE;
      else if (m->name_len == 6 && memcmp (m->name, "target", 6) == 0)
        k->target = m->value, has_target = TRUE;
    }
  return has_source && has_target && exact_for (&k->source, source_type)
         && exact_for (&k->target, target_type);
}

gboolean
ab_import_sort_window (const gchar *const *texts, guint n, AbType source_type, AbType target_type,
                       guint *order, gboolean *same)
{
  g_autofree Keyed *keys = g_new (Keyed, MAX (n, 1));
  g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (AbImportMember));
  for (guint i = 0; i < n; i++)
    {
      keys[i].index = i;
      /* read only (no terminators written): the keys are known by length */
      if (!ab_import_scan_edge ((gchar *) texts[i], members, FALSE)
          || !key_of (members, source_type, target_type, &keys[i]))
        return FALSE;
      keys[i].sfirst = first_bytes (&keys[i].source);
      keys[i].tfirst = first_bytes (&keys[i].target);
    }
  g_qsort_with_data (keys, (gint) n, sizeof (Keyed), keyed_cmp, NULL);
  for (guint i = 0; i < n; i++)
    {
      order[i] = keys[i].index;
      same[i] = i > 0 && key_cmp (&keys[i - 1], &keys[i]) == 0;
    }
  return TRUE;
}
