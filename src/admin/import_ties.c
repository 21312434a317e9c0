/* The import's order for events that tie (docs/data-tools.md, "Bulk import"):
 * a registry of the chunks in flight and the (key, version) marks of each,
 * where a parsed chunk waits for the earlier chunks it shares a mark with. */
#include "admin/import_ties.h"

#include <xxhash.h>

typedef struct {
  guint64 seq;
  GArray *marks; /* guint64, sorted; NULL until published */
} Flight;

struct _AbImportTies {
  GMutex lock;
  GCond changed;
  GQueue flights; /* Flight*, in seq order */
};

AbImportTies *
ab_import_ties_new (void)
{
  AbImportTies *t = g_new0 (AbImportTies, 1);
  g_mutex_init (&t->lock);
  g_cond_init (&t->changed);
  g_queue_init (&t->flights);
  return t;
}

static void
flight_free (Flight *f)
{
  if (f->marks != NULL)
    g_array_unref (f->marks);
  g_free (f);
}

void
ab_import_ties_free (AbImportTies *t)
{
  if (t == NULL)
    return;
  g_queue_clear_full (&t->flights, (GDestroyNotify) flight_free);
  g_mutex_clear (&t->lock);
  g_cond_clear (&t->changed);
  g_free (t);
}

void
ab_import_ties_add (AbImportTies *t, guint64 seq)
{
  Flight *f = g_new0 (Flight, 1);
  f->seq = seq;
  g_mutex_lock (&t->lock);
  g_queue_push_tail (&t->flights, f);
  g_mutex_unlock (&t->lock);
}

static guint64
mix (guint64 h, const AbValue *v)
{
  struct {
    gint64 kind, i;
  } scalar = { v->kind, v->u.i };
  if (v->kind == AB_VALUE_STRING || v->kind == AB_VALUE_JSON)
    return XXH3_64bits_withSeed (v->u.s.data, v->u.s.len, h ^ (guint64) v->kind);
  if (v->kind == AB_VALUE_NULL)
    scalar.i = 0;
  else if (v->kind == AB_VALUE_BOOL)
    scalar.i = v->u.b;
  return XXH3_64bits_withSeed (&scalar, sizeof scalar, h);
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

GArray *
ab_import_ties_marks (const AbMutationItem *items, guint n)
{
  GArray *marks = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  for (guint i = 0; i < n; i++)
    {
      const AbMutationItem *it = &items[i];
      guint64 h = XXH3_64bits_withSeed (&it->version, sizeof it->version, 0);
      if (it->id.kind != AB_VALUE_NULL)
        h = mix (h, &it->id);
      else
        h = mix (mix (h, &it->source), &it->target);
      g_array_append_val (marks, h);
    }
  g_array_sort (marks, cmp_u64);
  return marks;
}

static gboolean
share (const GArray *a, const GArray *b)
{
  for (guint i = 0, j = 0; i < a->len && j < b->len;)
    {
      guint64 x = g_array_index (a, guint64, i), y = g_array_index (b, guint64, j);
      if (x == y)
        return TRUE;
      if (x < y)
        i++;
      else
        j++;
    }
  return FALSE;
}

/* Must chunk `me` wait: an earlier chunk unpublished, or sharing a mark? */
static gboolean
must_wait (AbImportTies *t, const Flight *me)
{
  for (GList *l = t->flights.head; l != NULL && l->data != me; l = l->next)
    {
      const Flight *f = l->data;
      if (f->marks == NULL || share (f->marks, me->marks))
        return TRUE;
    }
  return FALSE;
}

static GList *
find (AbImportTies *t, guint64 seq)
{
  for (GList *l = t->flights.head; l != NULL; l = l->next)
    if (((Flight *) l->data)->seq == seq)
      return l;
  return NULL;
}

void
ab_import_ties_ready (AbImportTies *t, guint64 seq, GArray *marks)
{
  g_mutex_lock (&t->lock);
  GList *l = find (t, seq);
  g_assert (l != NULL);
  Flight *me = l->data;
  me->marks = marks;
  g_cond_broadcast (&t->changed);
  while (must_wait (t, me))
    g_cond_wait (&t->changed, &t->lock);
  g_mutex_unlock (&t->lock);
}

void
ab_import_ties_done (AbImportTies *t, guint64 seq)
{
  g_mutex_lock (&t->lock);
  GList *l = find (t, seq);
  if (l != NULL)
    {
      flight_free (l->data);
      g_queue_delete_link (&t->flights, l);
      g_cond_broadcast (&t->changed);
    }
  g_mutex_unlock (&t->lock);
}
