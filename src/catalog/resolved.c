/* Name resolution (a table, or an alias to one) with a per-thread memory of
 * the last few answers: every request names its table, and a repeat costs two
 * string compares and a reference, no lock. An answer is keyed by the
 * catalog's identity and the generation of its maps, so any reload forgets it. */
#include <string.h>
#include "catalog/catalog-private.h"

#define RESOLVED_SLOTS 4

typedef struct {
  guint64 cat_id, generation;
  gchar *db, *name;
  gchar *alias; /* the name when it was an alias, else NULL */
  AbTableDesc *t;
} Resolved;

typedef struct {
  Resolved slot[RESOLVED_SLOTS];
  guint next;
} ResolvedCache;

static void
resolved_clear (Resolved *r)
{
  g_free (r->db);
  g_free (r->name);
  g_free (r->alias);
  g_clear_pointer (&r->t, ab_table_desc_unref);
  memset (r, 0, sizeof *r);
}

static _Thread_local ResolvedCache *my_cache; /* the fast way to this thread's cache */

static void
resolved_cache_free (gpointer data)
{
  ResolvedCache *rc = data;
  my_cache = NULL; /* runs in the ending thread itself */
  for (guint i = 0; i < RESOLVED_SLOTS; i++)
    resolved_clear (&rc->slot[i]);
  g_free (rc);
}

/* Only there for resolved_cache_free at thread exit: lookups use my_cache. */
static GPrivate resolved_cache = G_PRIVATE_INIT (resolved_cache_free);

static AbTableDesc *
lookup (AbCatalog *cat, const gchar *db, const gchar *name, gchar **alias_out, GError **error)
{
  AbTableDesc *t = ab_catalog_get_table (cat, db, name);
  if (t != NULL)
    return t;
  g_autoptr (AbAliasDesc) a = ab_catalog_get_alias (cat, db, name);
  if (a == NULL)
    {
      g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND, "No such label %s.%s.", db,
                   name);
      return NULL;
    }
  t = ab_catalog_get_table (cat, db, a->table);
  if (t == NULL)
    {
      g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND,
                   "No such label %s.%s of the alias %s.%s.", db, a->table, db, name);
      return NULL;
    }
  *alias_out = g_strdup (name);
  return t;
}

AbTableDesc *
ab_catalog_resolve (AbCatalog *cat, const gchar *db, const gchar *name, gchar **alias_out,
                    GError **error)
{
  /* read before the lookup: an answer is never filed under a newer
   * generation than the maps it came from */
  guint64 gen = atomic_load_explicit (&cat->generation, memory_order_acquire);
  ResolvedCache *rc = my_cache;
  for (guint i = 0; rc != NULL && i < RESOLVED_SLOTS; i++)
    {
      Resolved *r = &rc->slot[i];
      if (r->t != NULL && r->cat_id == cat->id && r->generation == gen
          && strcmp (r->name, name) == 0 && strcmp (r->db, db) == 0)
        {
          if (alias_out != NULL)
            *alias_out = g_strdup (r->alias);
          return ab_table_desc_ref (r->t);
        }
    }
  gchar *alias = NULL;
  AbTableDesc *t = lookup (cat, db, name, &alias, error);
  if (t == NULL)
    return NULL;
  if (rc == NULL)
    {
      rc = g_new0 (ResolvedCache, 1);
      g_private_set (&resolved_cache, rc);
      my_cache = rc;
    }
  Resolved *r = &rc->slot[rc->next++ % RESOLVED_SLOTS];
  resolved_clear (r);
  *r = (Resolved){ cat->id,          gen,
                   g_strdup (db),    g_strdup (name),
                   g_strdup (alias), ab_table_desc_ref (t) };
  if (alias_out != NULL)
    *alias_out = alias;
  else
    g_free (alias);
  return t;
}
