/* The metadata validation rules (docs/rest-api.md §1.5 with the project's choices in
 * §10): names, storage URIs, comments, and the schema rules applied by
 * ab_schema_finish. Every rule has its own message naming the rule. */
#include <stdarg.h>
#include <string.h>
#include "codec/keys.h"
#include "model/schema.h"
#include "model/groups.h"

#define NAME_MAX_CHARS 64
#define COMMENT_MAX_CHARS 1000
#define SHOW_MAX_CHARS 80
#define STORAGE_SCHEME "datastore://"

/* Untrusted text as shown in a message: valid UTF-8, cut short. */
static gchar *
show (const gchar *text)
{
  if (!g_utf8_validate (text, -1, NULL))
    return g_strdup ("<invalid UTF-8>");
  if (g_utf8_strlen (text, -1) <= SHOW_MAX_CHARS)
    return g_strdup (text);
  g_autofree gchar *head = g_utf8_substring (text, 0, SHOW_MAX_CHARS);
  return g_strconcat (head, "...", NULL);
}

/* ^[a-zA-Z][a-zA-Z0-9_-]{0,63}$ (docs' pattern, docs/rest-api.md §10). */
static gboolean
name_ok (const gchar *name)
{
  gsize n = strlen (name);
  if (n == 0 || n > NAME_MAX_CHARS || !g_ascii_isalpha (name[0]))
    return FALSE;
  for (gsize k = 1; k < n; k++)
    if (!g_ascii_isalnum (name[k]) && name[k] != '_' && name[k] != '-')
      return FALSE;
  return TRUE;
}

gboolean
ab_model_validate_name (const gchar *what, const gchar *name, GError **error)
{
  if (name == NULL || *name == '\0')
    return ab_model_invalid (error, "Missing %s name", what);
  if (name_ok (name))
    return TRUE;
  g_autofree gchar *shown = show (name);
  return ab_model_invalid (error,
                           "Invalid %s name '%s': must start with a letter, contain only "
                           "alphanumeric/underscore/hyphen, max 64 chars",
                           what, shown);
}

static gsize
span (const gchar *p, gboolean (*ok) (gchar c))
{
  gsize n = 0;
  while (p[n] != '\0' && ok (p[n]))
    n++;
  return n;
}

static gboolean
ns_char (gchar c)
{
  return (c >= 'a' && c <= 'z') || c == '_';
}

static gboolean
table_char (gchar c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* ^datastore://[a-z_]+/[a-zA-Z0-9_]+$ (docs' pattern, docs/rest-api.md §10). */
static gboolean
storage_ok (const gchar *uri)
{
  if (!g_str_has_prefix (uri, STORAGE_SCHEME))
    return FALSE;
  const gchar *p = uri + strlen (STORAGE_SCHEME);
  gsize ns = span (p, ns_char);
  if (ns == 0 || p[ns] != '/')
    return FALSE;
  p += ns + 1;
  gsize tbl = span (p, table_char);
  return tbl > 0 && p[tbl] == '\0';
}

gboolean
ab_model_validate_storage (const gchar *uri, GError **error)
{
  if (uri == NULL || *uri == '\0')
    return ab_model_invalid (error, "%s", "Missing storage URI");
  if (storage_ok (uri))
    return TRUE;
  g_autofree gchar *shown = show (uri);
  return ab_model_invalid (error,
                           "Invalid storage URI '%s': it must look like "
                           "datastore://<namespace>/<table> "
                           "(^datastore://[a-z_]+/[a-zA-Z0-9_]+$)",
                           shown);
}

gboolean
ab_model_validate_comment (const gchar *comment, GError **error)
{
  if (comment == NULL)
    return TRUE;
  if (!g_utf8_validate (comment, -1, NULL))
    return ab_model_invalid (error, "%s", "Comment is not valid UTF-8");
  glong n = g_utf8_strlen (comment, -1);
  if (n > COMMENT_MAX_CHARS)
    return ab_model_invalid (error,
                             "Comment is too long: %ld characters, at most %d "
                             "are allowed",
                             n, COMMENT_MAX_CHARS);
  return TRUE;
}

/* ---- schema rules -------------------------------------------------------- */

static gboolean
is_system_field (const gchar *name)
{
  return strcmp (name, "_source") == 0 || strcmp (name, "_target") == 0;
}

static void
strip_system_fields (AbSchema *s)
{
  for (guint k = s->fields->len; k > 0; k--)
    {
      const AbField *f = s->fields->pdata[k - 1];
      if (is_system_field (f->name))
        g_ptr_array_remove_index (s->fields, k - 1);
    }
}

static gboolean
check_user_fields (const AbSchema *s, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; k < s->fields->len; k++)
    {
      const AbField *f = s->fields->pdata[k];
      if (f->name == NULL || *f->name == '\0')
        return ab_model_invalid (error,
                                 "Property names must not be empty "
                                 "(property #%u)",
                                 k + 1);
      g_autofree gchar *shown = show (f->name);
      if (f->name[0] == '_')
        return ab_model_invalid (error,
                                 "Property name '%s' is reserved: names "
                                 "starting with '_' are kept for system fields",
                                 shown);
      if (!g_hash_table_add (seen, f->name))
        return ab_model_invalid (error,
                                 "Duplicate property name '%s': property names "
                                 "must be unique",
                                 shown);
    }
  return TRUE;
}

static gboolean
check_scalar (const gchar *what, AbType type, GError **error)
{
  if (type != AB_TYPE_OBJECT)
    return TRUE;
  return ab_model_invalid (error, "The %s type must be a scalar type, not object", what);
}

static gboolean
check_key_types (const AbSchema *s, GError **error)
{
  if (s->kind == AB_TABLE_MULTI_EDGE || s->kind == AB_TABLE_VERTEX)
    if (!check_scalar ("id", s->id_type, error))
      return FALSE;
  if (s->kind == AB_TABLE_VERTEX)
    return TRUE;
  return check_scalar ("source", s->source_type, error)
         && check_scalar ("target", s->target_type, error);
}

/* v2 names (ts, src, tgt) become the v3 system names. A system name wins
 * over a property of the same name, as in the engine's ranges and filters. */
static const gchar *
system_field_name (const gchar *name)
{
  static const gchar *const map[][2] = {
    { "version", "version" }, { "ts", "version" },    { "source", "source" },
    { "src", "source" },      { "target", "target" }, { "tgt", "target" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (map); k++)
    if (strcmp (name, map[k][0]) == 0)
      return map[k][1];
  return NULL;
}

static gboolean
finish_index (const AbSchema *s, AbIndex *idx, GError **error)
{
  idx->code = ab_codec_code (idx->name);
  for (guint k = 0; k < idx->n_fields; k++)
    {
      AbIndexField *f = &idx->fields[k];
      const gchar *sys = f->field ? system_field_name (f->field) : NULL;
      if (sys == NULL && f->field != NULL && ab_schema_field (s, f->field))
        continue;
      if (sys == NULL)
        {
          g_autofree gchar *ishown = show (idx->name);
          g_autofree gchar *fshown = show (f->field ? f->field : "");
          return ab_model_invalid (error,
                                   "Index '%s' refers to unknown field '%s': "
                                   "index fields must be properties of the table or "
                                   "version, source, target",
                                   ishown, fshown);
        }
      if (strcmp (sys, f->field) != 0)
        {
          g_free (f->field);
          f->field = g_strdup (sys);
        }
    }
  return TRUE;
}

static gboolean
finish_indexes (const AbSchema *s, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; k < s->indexes->len; k++)
    {
      AbIndex *idx = s->indexes->pdata[k];
      if (idx->name == NULL || *idx->name == '\0')
        return ab_model_invalid (error, "Index names must not be empty (index #%u)", k + 1);
      if (!g_hash_table_add (seen, idx->name))
        {
          g_autofree gchar *shown = show (idx->name);
          return ab_model_invalid (error,
                                   "Duplicate index name '%s': index names must "
                                   "be unique",
                                   shown);
        }
      if (!finish_index (s, idx, error))
        return FALSE;
    }
  return TRUE;
}

static guint
json_array_len (JsonNode *node)
{
  return json_array_get_length (json_node_get_array (node));
}

static gboolean
check_kind_rules (const AbSchema *s, GError **error)
{
  if (s->kind == AB_TABLE_IMMUTABLE_EDGE)
    {
      if (s->indexes->len > 1)
        return ab_model_invalid (error,
                                 "An immutable edge table may have at most one "
                                 "index, found %u",
                                 s->indexes->len);
      if (s->direction == AB_DIRTYPE_BOTH)
        return ab_model_invalid (error, "%s",
                                 "An immutable edge table must have "
                                 "direction OUT or IN, not BOTH");
    }
  if (s->kind != AB_TABLE_VERTEX)
    return TRUE;
  if (s->direction != AB_DIRTYPE_OUT)
    return ab_model_invalid (error, "A vertex table must have direction OUT, not %s",
                             ab_dirtype_name (s->direction));
  if (s->indexes->len > 0)
    return ab_model_invalid (error, "%s", "A vertex table cannot have indexes");
  if (json_array_len (s->groups) > 0)
    return ab_model_invalid (error, "%s", "A vertex table cannot have groups");
  if (json_array_len (s->caches) > 0)
    return ab_model_invalid (error, "%s", "A vertex table cannot have caches");
  return TRUE;
}

static gboolean
check_json_arrays (AbSchema *s, GError **error)
{
  JsonNode **slots[] = { &s->groups, &s->caches };
  const gchar *names[] = { "groups", "caches" };
  for (guint k = 0; k < G_N_ELEMENTS (slots); k++)
    {
      JsonNode **slot = slots[k];
      if (*slot == NULL || JSON_NODE_HOLDS_NULL (*slot))
        {
          if (*slot)
            json_node_unref (*slot);
          *slot = json_node_new (JSON_NODE_ARRAY);
          json_node_take_array (*slot, json_array_new ());
        }
      else if (!JSON_NODE_HOLDS_ARRAY (*slot))
        return ab_model_invalid (error, "Schema %s must be a JSON array", names[k]);
    }
  return TRUE;
}

static void
add_system_fields (AbSchema *s)
{
  g_ptr_array_add (s->fields, ab_field_new ("_source", s->source_type, FALSE, s->source_comment));
  g_ptr_array_add (s->fields, ab_field_new ("_target", s->target_type, FALSE, s->target_comment));
}

gboolean
ab_schema_finish (AbSchema *schema, GError **error)
{
  if (schema->kind == AB_TABLE_MULTI_EDGE)
    strip_system_fields (schema);
  if (schema->kind == AB_TABLE_VERTEX)
    {
      schema->source_type = schema->id_type;
      schema->target_type = AB_TYPE_STRING;
    }
  if (!check_user_fields (schema, error) || !check_key_types (schema, error)
      || !check_json_arrays (schema, error))
    return FALSE;
  if (schema->kind == AB_TABLE_MULTI_EDGE)
    add_system_fields (schema);
  for (guint k = 0; k < schema->fields->len; k++)
    {
      AbField *f = schema->fields->pdata[k];
      f->code = ab_codec_code (f->name);
    }
  return finish_indexes (schema, error) && check_kind_rules (schema, error)
         && ab_schema_parse_groups (schema, error);
}
