/* Datastore references (docs/rest-api.md §7.1): which tables, storages and
 * aliases are bound to an HBase table, for one table or all of them, and the
 * guard that refuses to drop a table something active is bound to. */
#include <string.h>
#include "rest/api-private.h"
#include "model/jsonw.h"

#define ENGINE(ud) ((AbEngine *) (ud))
#define TABLES "/graph/v3/datastore/hbase/tables/{tableName}"

static void
write_ref (AbJsonw *w, const AbDatastoreRef *r)
{
  ab_jsonw_begin_object (w);
  ab_jsonw_member_string (w, "kind", ab_datastore_ref_kind_name (r->kind));
  ab_jsonw_member_string (w, "name", r->name);
  ab_jsonw_member_bool (w, "active", r->active);
  ab_jsonw_end_object (w);
}

/* "ns:table", or "table" in HBase's `default` namespace. */
static void
split_table (const gchar *text, gchar **ns, gchar **table)
{
  const gchar *colon = strchr (text, ':');
  *ns = colon != NULL ? g_strndup (text, (gsize) (colon - text)) : g_strdup ("default");
  *table = g_strdup (colon != NULL ? colon + 1 : text);
}

/* The references to one HBase table, active ones only if asked. */
static GPtrArray *
refs_of (AbEngine *e, const gchar *ns, const gchar *table, gboolean active_only)
{
  g_autoptr (GPtrArray) all = ab_catalog_datastore_refs (ab_engine_catalog (e));
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_datastore_ref_free);
  for (guint i = 0; i < all->len; i++)
    {
      AbDatastoreRef *r = all->pdata[i];
      if (ab_datastore_ref_matches (r, ns, table) && (r->active || !active_only))
        g_ptr_array_add (out, g_ptr_array_steal_index (all, i--));
    }
  return out;
}

/* GET …/tables/{tableName}/references: {"references": [{kind, name, active}]} */
static void
table_refs (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  g_autofree gchar *ns = NULL, *table = NULL;
  split_table (ab_http_param (req, "tableName"), &ns, &table);
  g_autoptr (GPtrArray) refs = refs_of (ENGINE (ud), ns, table, FALSE);
  AbJsonw w;
  ab_jsonw_init (&w, 256);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "references");
  ab_jsonw_begin_array (&w);
  for (guint i = 0; i < refs->len; i++)
    write_ref (&w, refs->pdata[i]);
  ab_jsonw_end_array (&w);
  ab_jsonw_end_object (&w);
  ab_http_response_bytes (resp, 200, NULL, ab_jsonw_finish (&w));
}

static gint
by_table (gconstpointer a, gconstpointer b)
{
  const AbDatastoreRef *x = *(AbDatastoreRef *const *) a, *y = *(AbDatastoreRef *const *) b;
  gint c = g_strcmp0 (x->ns, y->ns);
  return c != 0 ? c : strcmp (x->table, y->table);
}

/* GET /graph/v3/datastore/hbase/references[?namespace=]: every binding,
 * keyed by "ns:table" (a binding without a namespace matches any filter). */
static void
all_refs (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const gchar *only = ab_http_query_get (req, "namespace");
  g_autoptr (GPtrArray) refs = ab_catalog_datastore_refs (ab_engine_catalog (ENGINE (ud)));
  g_ptr_array_sort (refs, by_table);
  AbJsonw w;
  ab_jsonw_init (&w, 512);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "references");
  ab_jsonw_begin_object (&w);
  const AbDatastoreRef *open = NULL;
  for (guint i = 0; i < refs->len; i++)
    {
      const AbDatastoreRef *r = refs->pdata[i];
      if (only != NULL && r->ns != NULL && !g_str_equal (only, r->ns))
        continue;
      if (open == NULL || by_table (&open, &r) != 0)
        {
          if (open != NULL)
            ab_jsonw_end_array (&w);
          g_autofree gchar *key = g_strdup_printf ("%s:%s", r->ns != NULL ? r->ns : "", r->table);
          ab_jsonw_key (&w, key);
          ab_jsonw_begin_array (&w);
          open = r;
        }
      write_ref (&w, r);
    }
  if (open != NULL)
    ab_jsonw_end_array (&w);
  ab_jsonw_end_object (&w);
  ab_jsonw_end_object (&w);
  ab_http_response_bytes (resp, 200, NULL, ab_jsonw_finish (&w));
}

/* DELETE …/tables/{tableName}: refused while something active is bound to
 * it; this server keeps its data in one HBase table of its own and drops
 * none, so the answer is 400 either way, saying which case it is. */
static void
drop_table (const AbHttpRequest *req, AbHttpResponse *resp, gpointer ud)
{
  const gchar *name = ab_http_param (req, "tableName");
  g_autofree gchar *ns = NULL, *table = NULL;
  split_table (name, &ns, &table);
  g_autoptr (GPtrArray) active = refs_of (ENGINE (ud), ns, table, TRUE);
  if (active->len > 0)
    {
      g_autoptr (GString) users = g_string_new (NULL);
      for (guint i = 0; i < active->len; i++)
        {
          const AbDatastoreRef *r = active->pdata[i];
          g_string_append_printf (users, "%s%s %s", i > 0 ? ", " : "",
                                  ab_datastore_ref_kind_name (r->kind), r->name);
        }
      g_autofree gchar *m = g_strdup_printf (
          "HBase table `%s:%s` is used by %s: deactivate them before dropping it.", ns, table,
          users->str);
      return ab_http_response_error (resp, 400, m);
    }
  g_autofree gchar *m = g_strdup_printf (
      "HBase table `%s:%s` is not used by any active table, but this server does not drop HBase "
      "tables: it keeps every table in its own HBase table (docs/hbase-adapter.md §4). Drop it "
      "with the HBase shell.",
      ns, table);
  ab_http_response_error (resp, 400, m);
}

void
ab_api_register_datastore (AbRouter *r, AbEngine *e)
{
  ab_router_add (r, "GET", "/graph/v3/datastore/hbase/references", AB_ROUTE_INLINE, all_refs, e);
  ab_router_add (r, "GET", TABLES "/references", AB_ROUTE_INLINE, table_refs, e);
  ab_router_add (r, "DELETE", TABLES, AB_ROUTE_INLINE, drop_table, e);
}
