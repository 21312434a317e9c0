/* API keys in the catalog: random 256-bit tokens of which only the SHA-256
 * is stored (never the token), grants validated on creation, lookup by hash
 * from the in-memory cache, revocation as a catalog delete. */
#include <string.h>
#include "catalog/catalog-private.h"
#include "codec/digest.h"
#include "model/json_get.h"

static void
grant_clear (AbGrant *g)
{
  g_free (g->scope);
  g_free (g->permissions);
}

AbApiKey *
ab_api_key_ref (AbApiKey *k)
{
  return g_atomic_rc_box_acquire (k);
}

/* What the last reference frees: the members (the box is GLib's). */
static void
api_key_clear (AbApiKey *k)
{
  g_free (k->id);
  g_free (k->name);
  g_free (k->hash);
  g_array_unref (k->grants);
  g_free (k->created_by);
}

void
ab_api_key_unref (AbApiKey *k)
{
  if (k != NULL)
    g_atomic_rc_box_release_full (k, (GDestroyNotify) api_key_clear);
}

static AbApiKey *
key_new (void)
{
  AbApiKey *k = g_atomic_rc_box_new0 (AbApiKey);
  k->grants = g_array_new (FALSE, TRUE, sizeof (AbGrant));
  g_array_set_clear_func (k->grants, (GDestroyNotify) grant_clear);
  return k;
}

gchar *
ab_api_key_hash (const gchar *token)
{
  return ab_sha256_hex_of (token, strlen (token));
}

JsonNode *
ab_api_key_to_json (const AbApiKey *k, gboolean with_hash)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "id", k->id);
  ab_model_json_add_string (b, "name", k->name);
  if (with_hash)
    {
      ab_model_json_add_string (b, "hash", k->hash);
    }
  json_builder_set_member_name (b, "grants");
  json_builder_begin_array (b);
  for (guint i = 0; i < k->grants->len; i++)
    {
      const AbGrant *g = &g_array_index (k->grants, AbGrant, i);
      json_builder_begin_object (b);
      ab_model_json_add_string (b, "scope", g->scope);
      ab_model_json_add_string (b, "permissions", g->permissions);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "createdAt");
  json_builder_add_int_value (b, k->created_at);
  ab_model_json_add_string (b, "createdBy", k->created_by);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

AbApiKey *
ab_catalog_key_from_json (JsonNode *node, GError **error)
{
  JsonObject *o = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  JsonArray *grants = o != NULL ? json_object_get_array_member (o, "grants") : NULL;
  if (o == NULL || grants == NULL)
    {
      g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_STORE, "malformed API key row");
      return NULL;
    }
  AbApiKey *k = key_new ();
  k->id = g_strdup (json_object_get_string_member_with_default (o, "id", ""));
  k->name = g_strdup (json_object_get_string_member_with_default (o, "name", ""));
  k->hash = g_strdup (json_object_get_string_member_with_default (o, "hash", ""));
  k->created_at = json_object_get_int_member_with_default (o, "createdAt", -1);
  k->created_by = g_strdup (json_object_get_string_member_with_default (o, "createdBy", ""));
  for (guint i = 0; i < json_array_get_length (grants); i++)
    {
      JsonObject *g = json_array_get_object_element (grants, i);
      AbGrant grant = {
        g_strdup (json_object_get_string_member_with_default (g, "scope", "")),
        g_strdup (json_object_get_string_member_with_default (g, "permissions", "")),
      };
      g_array_append_val (k->grants, grant);
    }
  return k;
}

static gboolean
valid_grant (const AbGrant *g, GError **error)
{
  gboolean scope_ok = g->scope != NULL && g->scope[0] != '\0';
  g_auto (GStrv) parts = scope_ok ? g_strsplit (g->scope, ".", -1) : NULL;
  if (scope_ok && !g_str_equal (g->scope, "*"))
    scope_ok = g_strv_length (parts) <= 2 && parts[0][0] != '\0'
               && (parts[1] == NULL || parts[1][0] != '\0');
  gboolean perms_ok = g->permissions != NULL && g->permissions[0] != '\0'
                      && strspn (g->permissions, "rwca") == strlen (g->permissions);
  if (scope_ok && perms_ok)
    return TRUE;
  g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_INVALID,
               "invalid grant {scope: %s, permissions: %s}: scope is *, <db> or <db>.<table>; "
               "permissions are letters from rwca",
               g->scope ? g->scope : "null", g->permissions ? g->permissions : "null");
  return FALSE;
}

static gchar *
random_token (void)
{
  GString *t = g_string_new ("ab_");
  for (guint i = 0; i < 8; i++) /* 8 x 32 bits = 256 bits */
    g_string_append_printf (t, "%08x", g_random_int ());
  return g_string_free (t, FALSE);
}

AbApiKey *
ab_catalog_create_key (AbCatalog *cat, const gchar *name, const AbGrant *grants, guint n,
                       const gchar *actor, gchar **token_out, GError **error)
{
  for (guint i = 0; i < n; i++)
    if (!valid_grant (&grants[i], error))
      return NULL;
  g_autofree gchar *token = random_token ();
  g_autoptr (AbApiKey) k = key_new ();
  k->hash = ab_api_key_hash (token);
  k->id = g_strndup (k->hash, 16);
  k->name = g_strdup (name != NULL ? name : "");
  k->created_at = ab_catalog_now_ms ();
  k->created_by = g_strdup (actor != NULL ? actor : "-");
  for (guint i = 0; i < n; i++)
    {
      AbGrant g = { g_strdup (grants[i].scope), g_strdup (grants[i].permissions) };
      g_array_append_val (k->grants, g);
    }
  g_autoptr (JsonNode) node = ab_api_key_to_json (k, TRUE);
  g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
  if (!ab_catalog_persist (cat, KIND_KEY, NULL, k->id, node, error))
    return NULL;
  *token_out = g_steal_pointer (&token);
  return g_steal_pointer (&k);
}

static gint
by_id (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 ((*(AbApiKey *const *) a)->id, (*(AbApiKey *const *) b)->id);
}

GPtrArray *
ab_catalog_list_keys (AbCatalog *cat)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_api_key_unref);
  g_rw_lock_reader_lock (&cat->lock);
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, cat->keys);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_ptr_array_add (out, ab_api_key_ref (v));
  g_rw_lock_reader_unlock (&cat->lock);
  g_ptr_array_sort (out, by_id);
  return out;
}

AbApiKey *
ab_catalog_find_key (AbCatalog *cat, const gchar *hash)
{
  g_rw_lock_reader_lock (&cat->lock);
  AbApiKey *k = g_hash_table_lookup (cat->keys, hash);
  if (k != NULL)
    ab_api_key_ref (k);
  g_rw_lock_reader_unlock (&cat->lock);
  return k;
}

gboolean
ab_catalog_revoke_key (AbCatalog *cat, const gchar *id, GError **error)
{
  g_autoptr (GPtrArray) keys = ab_catalog_list_keys (cat);
  for (guint i = 0; i < keys->len; i++)
    if (g_strcmp0 (((AbApiKey *) keys->pdata[i])->id, id) == 0)
      {
        g_autoptr (GMutexLocker) guard = g_mutex_locker_new (&cat->ddl);
        return ab_catalog_persist (cat, KIND_KEY, NULL, id, NULL, error);
      }
  g_set_error (error, AB_CATALOG_ERROR, AB_CATALOG_ERROR_NOT_FOUND, "No such API key %s.", id);
  return FALSE;
}
