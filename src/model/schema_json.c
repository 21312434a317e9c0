/* The v3 ModelSchema JSON (docs/rest-api.md §1.1): the request form parsed (upper- or
 * camel-case type names, defaults for omitted members) and the response form
 * written; plus the enum-member helpers the v2 parser shares. */
#include <string.h>
#include "model/json_get.h"
#include "model/schema-private.h"

static gboolean
bad_enum (GError **error, const gchar *prefix, const gchar *member, const gchar *value,
          const gchar *what, const gchar *expected)
{
  g_autofree gchar *path = ab_model_json_path (prefix, member);
  g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID,
               "Unknown %s '%s' at '%s': expected %s", what, value, path, expected);
  return FALSE;
}

gboolean
ab_model_json_type (JsonObject *o, const gchar *prefix, const gchar *member, AbType *out,
                    GError **error)
{
  g_autofree gchar *name = NULL;
  if (!ab_model_json_string (o, prefix, member, TRUE, NULL, &name, error))
    return FALSE;
  if (!ab_type_parse (name, out))
    return bad_enum (error, prefix, member, name, "type",
                     "boolean, byte, short, int, long, float, double, string "
                     "or object");
  return TRUE;
}

gboolean
ab_model_json_order (JsonObject *o, const gchar *prefix, const gchar *member, AbOrder *out,
                     GError **error)
{
  g_autofree gchar *name = NULL;
  if (!ab_model_json_string (o, prefix, member, FALSE, "ASC", &name, error))
    return FALSE;
  if (g_ascii_strcasecmp (name, "ASC") == 0)
    *out = AB_ORDER_ASC;
  else if (g_ascii_strcasecmp (name, "DESC") == 0)
    *out = AB_ORDER_DESC;
  else
    return bad_enum (error, prefix, member, name, "order", "ASC or DESC");
  return TRUE;
}

gboolean
ab_model_json_dirtype (JsonObject *o, const gchar *prefix, const gchar *member, gboolean required,
                       AbDirectionType def, AbDirectionType *out, GError **error)
{
  g_autofree gchar *name = NULL;
  if (!ab_model_json_string (o, prefix, member, required, ab_dirtype_name (def), &name, error))
    return FALSE;
  if (!ab_dirtype_parse (name, out))
    return bad_enum (error, prefix, member, name, "direction", "OUT, IN or BOTH");
  return TRUE;
}

gboolean
ab_model_json_mode (JsonObject *o, const gchar *prefix, const gchar *member, AbMutationMode *out,
                    GError **error)
{
  g_autofree gchar *name = NULL;
  if (!ab_model_json_string (o, prefix, member, FALSE, "SYNC", &name, error))
    return FALSE;
  if (!ab_mode_parse (name, out))
    return bad_enum (error, prefix, member, name, "mode", "SYNC, ASYNC, DROP (or IGNORE) or DENY");
  return TRUE;
}

gboolean
ab_model_json_array_copy (JsonObject *o, const gchar *prefix, const gchar *member, JsonNode **out,
                          GError **error)
{
  JsonArray *array;
  if (!ab_model_json_array (o, prefix, member, FALSE, &array, error))
    return FALSE;
  if (*out)
    json_node_unref (*out);
  *out = array ? json_node_copy (json_object_get_member (o, member)) : ab_model_json_empty_array ();
  return TRUE;
}

gchar *
ab_model_json_item_path (const gchar *prefix, const gchar *member, guint k)
{
  g_autofree gchar *path = ab_model_json_path (prefix, member);
  return g_strdup_printf ("%s[%u]", path, k);
}

/* ---- parsing ------------------------------------------------------------- */

/* Field {type, comment}. */
static gboolean
parse_key_field (JsonObject *o, const gchar *prefix, const gchar *member, AbType *type,
                 gchar **comment, GError **error)
{
  JsonObject *f;
  if (!ab_model_json_child (o, prefix, member, TRUE, &f, error))
    return FALSE;
  g_autofree gchar *path = ab_model_json_path (prefix, member);
  g_autofree gchar *c = NULL;
  if (!ab_model_json_type (f, path, "type", type, error)
      || !ab_model_json_string (f, path, "comment", FALSE, "", &c, error))
    return FALSE;
  g_free (*comment);
  *comment = g_steal_pointer (&c);
  return TRUE;
}

/* StructField {name, type, comment, nullable}. */
static AbField *
parse_struct_field (JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL, *comment = NULL;
  AbType type;
  gboolean nullable;
  if (o == NULL || !ab_model_json_string (o, path, "name", TRUE, NULL, &name, error)
      || !ab_model_json_type (o, path, "type", &type, error)
      || !ab_model_json_string (o, path, "comment", FALSE, "", &comment, error)
      || !ab_model_json_bool (o, path, "nullable", FALSE, &nullable, error))
    return NULL;
  return ab_field_new (name, type, nullable, comment);
}

/* IndexField {field, order}. */
static gboolean
parse_index_field (AbIndex *idx, JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *field = NULL;
  AbOrder order;
  if (o == NULL || !ab_model_json_string (o, path, "field", TRUE, NULL, &field, error)
      || !ab_model_json_order (o, path, "order", &order, error))
    return FALSE;
  ab_index_add_field (idx, field, order);
  return TRUE;
}

/* Index {index, fields, comment}. */
static AbIndex *
parse_index (JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL, *comment = NULL;
  JsonArray *fields;
  if (o == NULL || !ab_model_json_string (o, path, "index", TRUE, NULL, &name, error)
      || !ab_model_json_string (o, path, "comment", FALSE, "", &comment, error)
      || !ab_model_json_array (o, path, "fields", TRUE, &fields, error))
    return NULL;
  AbIndex *idx = ab_index_new (name, comment);
  for (guint k = 0; k < json_array_get_length (fields); k++)
    {
      g_autofree gchar *ipath = ab_model_json_item_path (path, "fields", k);
      if (!parse_index_field (idx, json_array_get_element (fields, k), ipath, error))
        {
          ab_index_free (idx);
          return NULL;
        }
    }
  return idx;
}

static gboolean
parse_properties (AbSchema *s, JsonObject *o, const gchar *prefix, GError **error)
{
  JsonArray *props;
  if (!ab_model_json_array (o, prefix, "properties", FALSE, &props, error))
    return FALSE;
  for (guint k = 0; props && k < json_array_get_length (props); k++)
    {
      g_autofree gchar *path = ab_model_json_item_path (prefix, "properties", k);
      AbField *f = parse_struct_field (json_array_get_element (props, k), path, error);
      if (f == NULL)
        return FALSE;
      g_ptr_array_add (s->fields, f);
    }
  return TRUE;
}

static gboolean
parse_indexes (AbSchema *s, JsonObject *o, const gchar *prefix, GError **error)
{
  JsonArray *idxs;
  if (!ab_model_json_array (o, prefix, "indexes", FALSE, &idxs, error))
    return FALSE;
  for (guint k = 0; idxs && k < json_array_get_length (idxs); k++)
    {
      g_autofree gchar *path = ab_model_json_item_path (prefix, "indexes", k);
      AbIndex *idx = parse_index (json_array_get_element (idxs, k), path, error);
      if (idx == NULL)
        return FALSE;
      g_ptr_array_add (s->indexes, idx);
    }
  return TRUE;
}

static gboolean
parse_kind (JsonObject *o, const gchar *prefix, AbTableKind *kind, GError **error)
{
  g_autofree gchar *name = NULL;
  if (!ab_model_json_string (o, prefix, "type", TRUE, NULL, &name, error))
    return FALSE;
  if (!ab_table_kind_parse (name, kind))
    return bad_enum (error, prefix, "type", name, "schema type",
                     "EDGE, MULTI_EDGE, IMMUTABLE_EDGE or VERTEX");
  return TRUE;
}

static gboolean
parse_schema_members (AbSchema *s, JsonObject *o, const gchar *prefix, GError **error)
{
  gboolean vertex = s->kind == AB_TABLE_VERTEX;
  if (s->kind == AB_TABLE_MULTI_EDGE || vertex)
    if (!parse_key_field (o, prefix, "id", &s->id_type, &s->id_comment, error))
      return FALSE;
  if (!vertex
      && (!parse_key_field (o, prefix, "source", &s->source_type, &s->source_comment, error)
          || !parse_key_field (o, prefix, "target", &s->target_type, &s->target_comment, error)))
    return FALSE;
  return parse_properties (s, o, prefix, error)
         && ab_model_json_dirtype (o, prefix, "direction", !vertex, AB_DIRTYPE_OUT, &s->direction,
                                   error)
         && parse_indexes (s, o, prefix, error)
         && ab_model_json_array_copy (o, prefix, "groups", &s->groups, error)
         && ab_model_json_array_copy (o, prefix, "caches", &s->caches, error);
}

AbSchema *
ab_schema_from_json (JsonNode *node, GError **error)
{
  const gchar *prefix = "schema";
  JsonObject *o = ab_model_json_object (node, prefix, error);
  if (o == NULL)
    return NULL;
  g_autoptr (AbSchema) s = ab_schema_new ();
  if (!parse_kind (o, prefix, &s->kind, error) || !parse_schema_members (s, o, prefix, error)
      || !ab_schema_finish (s, error))
    return NULL;
  return g_steal_pointer (&s);
}

/* ---- response form ------------------------------------------------------- */

static void
add_key_field (JsonBuilder *b, const gchar *member, AbType type, const gchar *comment)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "type", ab_type_name (type));
  ab_model_json_add_string (b, "comment", comment);
  json_builder_end_object (b);
}

static void
add_properties (JsonBuilder *b, const AbSchema *s)
{
  json_builder_set_member_name (b, "properties");
  json_builder_begin_array (b);
  for (guint k = 0; k < s->fields->len; k++)
    {
      const AbField *f = s->fields->pdata[k];
      /* MULTI_EDGE's _source/_target are implied by source/target */
      if (s->kind == AB_TABLE_MULTI_EDGE && f->name[0] == '_')
        continue;
      json_builder_begin_object (b);
      ab_model_json_add_string (b, "name", f->name);
      ab_model_json_add_string (b, "type", ab_type_name (f->type));
      ab_model_json_add_string (b, "comment", f->comment);
      ab_model_json_add_bool (b, "nullable", f->nullable);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

void
ab_index_add_json (JsonBuilder *b, const AbIndex *idx)
{
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "index", idx->name);
  json_builder_set_member_name (b, "fields");
  json_builder_begin_array (b);
  for (guint k = 0; k < idx->n_fields; k++)
    {
      json_builder_begin_object (b);
      ab_model_json_add_string (b, "field", idx->fields[k].field);
      ab_model_json_add_string (b, "order", idx->fields[k].order == AB_ORDER_DESC ? "DESC" : "ASC");
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  ab_model_json_add_string (b, "comment", idx->comment);
  json_builder_end_object (b);
}

static void
add_edge_members (JsonBuilder *b, const AbSchema *s)
{
  add_key_field (b, "source", s->source_type, s->source_comment);
  add_key_field (b, "target", s->target_type, s->target_comment);
  add_properties (b, s);
  ab_model_json_add_string (b, "direction", ab_dirtype_name (s->direction));
  json_builder_set_member_name (b, "indexes");
  json_builder_begin_array (b);
  for (guint k = 0; k < s->indexes->len; k++)
    ab_index_add_json (b, s->indexes->pdata[k]);
  json_builder_end_array (b);
  ab_model_json_add_array_copy (b, "groups", s->groups);
  ab_model_json_add_array_copy (b, "caches", s->caches);
}

/* Member order follows upstream's classes: MultiEdge(id, source, target,
 * properties, direction, indexes, groups, caches), Vertex(id, properties). */
JsonNode *
ab_schema_to_json (const AbSchema *schema)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "type", ab_table_kind_name (schema->kind));
  if (schema->kind == AB_TABLE_MULTI_EDGE || schema->kind == AB_TABLE_VERTEX)
    add_key_field (b, "id", schema->id_type, schema->id_comment);
  if (schema->kind == AB_TABLE_VERTEX)
    add_properties (b, schema);
  else
    add_edge_members (b, schema);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
