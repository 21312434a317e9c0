/* The cache rows written since the maintenance thread last trimmed them: the
 * write path notes each row a batch put cells into, with its bound (limit +
 * tolerance); the thread takes the set each round (upkeep/prune.c). */
#include "engine/write/write.h"

struct _AbCacheNotes {
  GMutex mu;
  GHashTable *rows; /* GBytes row -> GUINT_TO_POINTER (bound: limit + tolerance) */
};

static GHashTable *
rows_new (void)
{
  return g_hash_table_new_full (g_bytes_hash, g_bytes_equal, (GDestroyNotify) g_bytes_unref, NULL);
}

void
ab_engine_cache_notes_start (AbEngine *engine)
{
  struct _AbCacheNotes *n = g_new0 (struct _AbCacheNotes, 1);
  g_mutex_init (&n->mu);
  n->rows = rows_new ();
  engine->cache_notes = n;
}

void
ab_engine_cache_notes_stop (AbEngine *engine)
{
  struct _AbCacheNotes *n = engine->cache_notes;
  if (n == NULL)
    return;
  engine->cache_notes = NULL;
  g_hash_table_unref (n->rows);
  g_mutex_clear (&n->mu);
  g_free (n);
}

void
ab_engine_cache_renote (AbEngine *engine, GBytes *row, guint bound)
{
  struct _AbCacheNotes *n = engine->cache_notes;
  g_mutex_lock (&n->mu);
  g_hash_table_replace (n->rows, g_bytes_ref (row), GUINT_TO_POINTER (bound));
  g_mutex_unlock (&n->mu);
}

void
ab_engine_cache_note (AbEngine *engine, const AbTableDesc *t, const AbBatch *b)
{
  if (t->schema->cache_defs->len == 0 || engine->cache_notes == NULL)
    return;
  for (guint i = 0; i < b->items->len; i++)
    {
      const AbMutation *mu = &g_array_index (b->items, AbMutation, i);
      gsize row_len;
      AbRowType type;
      gint32 code;
      if (mu->kind != AB_MUT_PUT || !ab_codec_wide_parts (mu->key, mu->klen, &type, &code, &row_len)
          || type != AB_ROW_CACHE)
        continue;
      const AbCache *c = ab_schema_cache_by_code (t->schema, code);
      if (c == NULL)
        continue;
      g_autoptr (GBytes) row = g_bytes_new (mu->key, row_len);
      ab_engine_cache_renote (engine, row, ab_cache_bound (c));
    }
}

GHashTable *
ab_engine_cache_notes_take (AbEngine *engine)
{
  struct _AbCacheNotes *n = engine->cache_notes;
  g_mutex_lock (&n->mu);
  GHashTable *rows = n->rows;
  n->rows = rows_new ();
  g_mutex_unlock (&n->mu);
  return rows;
}
