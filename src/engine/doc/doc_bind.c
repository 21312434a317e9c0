/* Arguments of the query document (docs/rest-api.md §11.5): a string that is
 * one "{name}" placeholder becomes the value sent, cast to the declared
 * type; in an SQL statement each {name} becomes a bound parameter. */
#include <string.h>
#include "engine/doc/doc.h"
#include "engine/core/core.h"
#include "model/json_get.h"

typedef struct {
  JsonObject *args;     /* name -> value sent (NULL: none) */
  GHashTable *declared; /* name -> AbType*; NULL: untyped (a query sent whole) */
  GHashTable *used;     /* names of the placeholders met (a set) */
  gboolean collect;     /* only collect names (a registration's check) */
} Binding;

/* "{name}" at p: its length, else 0. A name is [A-Za-z_][A-Za-z0-9_]*. */
static gsize
placeholder_at (const gchar *p)
{
  if (p[0] != '{' || !(g_ascii_isalpha (p[1]) || p[1] == '_'))
    return 0;
  gsize n = 2;
  while (g_ascii_isalnum (p[n]) || p[n] == '_')
    n++;
  return p[n] == '}' ? n + 1 : 0;
}

/* The value of argument `name` (a new node), cast to its declared type. */
static JsonNode *
argument (Binding *bd, const gchar *name, GError **error)
{
  g_hash_table_add (bd->used, g_strdup (name));
  if (bd->collect)
    return json_node_init_null (json_node_alloc ());
  JsonNode *sent = bd->args != NULL ? json_object_get_member (bd->args, name) : NULL;
  if (sent == NULL)
    return ab_model_invalid (error, "'arguments.%s' is missing: the query uses {%s}.", name, name),
           NULL;
  const AbType *type = bd->declared != NULL ? g_hash_table_lookup (bd->declared, name) : NULL;
  if (type == NULL)
    return json_node_copy (sent);
  g_autofree gchar *field = g_strdup_printf ("arguments.%s", name);
  AbValue v = AB_VALUE_INIT;
  if (!ab_model_cast_json (sent, *type, field, &v, error))
    return NULL;
  JsonNode *out = ab_model_value_to_json (&v);
  ab_value_clear (&v);
  return out;
}

/* An SQL statement: each {name} outside '...' becomes ?N, its value the
 * N-th element of *params. */
static JsonNode *
bind_sql (Binding *bd, const gchar *sql, JsonArray *params, GError **error)
{
  g_autoptr (GString) out = g_string_new (NULL);
  gboolean quoted = FALSE;
  for (const gchar *p = sql; *p != '\0';)
    {
      gsize k = quoted ? 0 : placeholder_at (p);
      if (k == 0)
        {
          quoted ^= *p == '\'';
          g_string_append_c (out, *p++);
          continue;
        }
      g_autofree gchar *name = g_strndup (p + 1, k - 2);
      JsonNode *v = argument (bd, name, error);
      if (v == NULL)
        return NULL;
      json_array_add_element (params, v);
      g_string_append_printf (out, "?%u", json_array_get_length (params));
      p += k;
    }
  JsonNode *r = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (r, out->str);
  return r;
}

static JsonNode *bind_node (Binding *bd, JsonNode *n, GError **error);

/* An object's members bound; an "sql" string rewritten with its
 * parameters in "arguments". */
static JsonNode *
bind_object (Binding *bd, JsonObject *o, GError **error)
{
  g_autoptr (JsonObject) out = json_object_new ();
  g_autoptr (GList) members = json_object_get_members (o);
  JsonNode *sql = json_object_get_member (o, "sql");
  gboolean is_sql = sql != NULL && JSON_NODE_HOLDS_VALUE (sql)
                    && json_node_get_value_type (sql) == G_TYPE_STRING;
  g_autoptr (JsonArray) params = json_array_new ();
  for (GList *m = members; m != NULL; m = m->next)
    {
      if (is_sql && g_str_equal (m->data, "arguments"))
        continue; /* written from the statement's placeholders below */
      JsonNode *v = json_object_get_member (o, m->data);
      JsonNode *e = is_sql && g_str_equal (m->data, "sql")
                        ? bind_sql (bd, json_node_get_string (v), params, error)
                        : bind_node (bd, v, error);
      if (e == NULL)
        return NULL;
      json_object_set_member (out, m->data, e);
    }
  if (is_sql)
    json_object_set_array_member (out, "arguments", json_array_ref (params));
  return json_node_init_object (json_node_alloc (), out);
}

static JsonNode *
bind_node (Binding *bd, JsonNode *n, GError **error)
{
  if (JSON_NODE_HOLDS_ARRAY (n))
    {
      JsonArray *a = json_node_get_array (n);
      g_autoptr (JsonArray) out = json_array_sized_new (json_array_get_length (a));
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          JsonNode *e = bind_node (bd, json_array_get_element (a, i), error);
          if (e == NULL)
            return NULL;
          json_array_add_element (out, e);
        }
      return json_node_init_array (json_node_alloc (), out);
    }
  if (JSON_NODE_HOLDS_OBJECT (n))
    return bind_object (bd, json_node_get_object (n), error);
  if (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING)
    {
      const gchar *s = json_node_get_string (n);
      gsize k = placeholder_at (s);
      if (k > 0 && s[k] == '\0')
        {
          g_autofree gchar *name = g_strndup (s + 1, k - 2);
          return argument (bd, name, error);
        }
    }
  return json_node_copy (n);
}

gboolean
ab_doc_declarations (JsonArray *declared, GHashTable **out, GError **error)
{
  g_autoptr (GHashTable) types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; declared != NULL && i < json_array_get_length (declared); i++)
    {
      g_autofree gchar *path = g_strdup_printf ("arguments[%u]", i);
      JsonObject *o = ab_model_json_object (json_array_get_element (declared, i), path, error);
      g_autofree gchar *name = NULL, *type = NULL;
      if (o == NULL || !ab_model_json_string (o, path, "name", TRUE, NULL, &name, error)
          || !ab_model_json_string (o, path, "type", TRUE, NULL, &type, error))
        return FALSE;
      AbType t;
      g_autofree gchar *braced = g_strdup_printf ("{%s}", name);
      if (placeholder_at (braced) != strlen (braced))
        return ab_model_invalid (error, "'%s.name': \"%s\" is not a valid argument name.", path,
                                 name);
      if (!ab_type_parse (type, &t))
        return ab_model_invalid (error, "'%s.type': unknown argument type \"%s\".", path, type);
      if (g_hash_table_contains (types, name))
        return ab_model_invalid (error, "'%s.name': argument \"%s\" is declared twice.", path,
                                 name);
      g_hash_table_insert (types, g_steal_pointer (&name), g_memdup2 (&t, sizeof t));
    }
  *out = g_steal_pointer (&types);
  return TRUE;
}

static gint
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *) a, *(const gchar *const *) b);
}

/* The keys of a set (borrowed), sorted. */
static GPtrArray *
sorted_keys (GHashTable *set)
{
  GPtrArray *names = g_ptr_array_new ();
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init (&it, set);
  while (g_hash_table_iter_next (&it, &k, NULL))
    g_ptr_array_add (names, k);
  g_ptr_array_sort (names, by_name);
  return names;
}

/* The names of a set, sorted, joined by ", ". */
static gchar *
names_of (GHashTable *set)
{
  g_autoptr (GPtrArray) names = sorted_keys (set);
  g_ptr_array_add (names, NULL);
  return names->len > 1 ? g_strjoinv (", ", (gchar **) names->pdata) : g_strdup ("nothing");
}

/* The first name of a (in name order) not in b, or NULL. */
static const gchar *
first_missing (GHashTable *a, GHashTable *b)
{
  g_autoptr (GPtrArray) names = sorted_keys (a);
  for (guint i = 0; i < names->len; i++)
    if (!g_hash_table_contains (b, names->pdata[i]))
      return names->pdata[i];
  return NULL;
}

/* doc's steps with their placeholders bound (args, declared and collect as
 * in Binding), the names met in *used (new); NULL + an engine error. */
static JsonNode *
bind_steps (JsonObject *doc, JsonObject *args, GHashTable *declared, gboolean collect,
            GHashTable **used, GError **error)
{
  static const gchar *const steps[] = { "query", "fetch", "transform", "stats" };
  *used = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Binding bd = { args, declared, *used, collect };
  GError *local = NULL;
  g_autoptr (JsonObject) bound = json_object_new ();
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      JsonNode *v = json_object_get_member (doc, steps[i]);
      JsonNode *b = v != NULL ? bind_node (&bd, v, &local) : NULL;
      if (v != NULL && b == NULL)
        return ab_engine_propagate (error, local), NULL;
      if (b != NULL)
        json_object_set_member (bound, steps[i], b);
    }
  return json_node_init_object (json_node_alloc (), bound);
}

JsonNode *
ab_doc_bind (JsonObject *doc, GHashTable *declared, JsonObject *args, GError **error)
{
  g_autoptr (GHashTable) sent = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GList) names = args != NULL ? json_object_get_members (args) : NULL;
  for (GList *m = names; m != NULL; m = m->next)
    g_hash_table_add (sent, m->data);
  const gchar *missing = declared != NULL ? first_missing (declared, sent) : NULL;
  if (missing != NULL)
    {
      g_autofree gchar *all = names_of (declared);
      return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                             "This query takes %s; the call is missing %s.", all, missing),
             NULL;
    }
  g_autoptr (GHashTable) used = NULL;
  g_autoptr (JsonNode) out = bind_steps (doc, args, declared, FALSE, &used, error);
  if (out == NULL)
    return NULL;
  const gchar *extra = first_missing (sent, declared != NULL ? declared : used);
  if (extra != NULL)
    return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                           "This query has no argument named %s.", extra),
           NULL;
  return g_steal_pointer (&out);
}

gboolean
ab_doc_check_placeholders (JsonObject *doc, GHashTable *declared, GError **error)
{
  g_autoptr (GHashTable) used = NULL;
  g_autoptr (JsonNode) b = bind_steps (doc, NULL, declared, TRUE, &used, error);
  if (b == NULL)
    return FALSE;
  if (first_missing (used, declared) == NULL && first_missing (declared, used) == NULL)
    return TRUE;
  g_autofree gchar *u = names_of (used), *d = names_of (declared);
  return ab_engine_fail (error, AB_ENGINE_ERROR_BAD_REQUEST,
                         "This query uses %s but declares %s: the placeholders and the declared "
                         "arguments must be the same names.",
                         u, d);
}
