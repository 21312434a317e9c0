/* The v2 metadata forms (docs/rest-api.md §2, §8): label create body and entity,
 * service and alias. A label is a table: INDEXED/HASH -> edge, MULTI_EDGE
 * (id in a field named _id), IMMUTABLE_INDEXED, VERTEX; no desc is ever null. */
#include <stdarg.h>
#include "model/json_get.h"
#include <string.h>
#include "codec/keys.h"
#include "model/schema-private.h"

typedef struct {
  const gchar *name;
  AbTableKind kind;
} AbLabelType;

static const AbLabelType label_types[] = {
  { "INDEXED", AB_TABLE_EDGE },
  { "HASH", AB_TABLE_EDGE }, /* deprecated; OUT only; reads back as INDEXED */
  { "MULTI_EDGE", AB_TABLE_MULTI_EDGE },
  { "IMMUTABLE_INDEXED", AB_TABLE_IMMUTABLE_EDGE },
  { "VERTEX", AB_TABLE_VERTEX },
};

#define MULTI_EDGE_ID_FIELD "_id"

static const gchar *
label_type_name (AbTableKind kind)
{
  for (guint k = 0; k < G_N_ELEMENTS (label_types); k++)
    if (label_types[k].kind == kind)
      return label_types[k].name;
  return "INDEXED";
}

static gboolean
parse_label_type (JsonObject *o, AbTableKind *kind, gboolean *hash, GError **error)
{
  g_autofree gchar *name = NULL;
  if (!ab_model_json_string (o, NULL, "type", TRUE, NULL, &name, error))
    return FALSE;
  for (guint k = 0; k < G_N_ELEMENTS (label_types); k++)
    if (g_ascii_strcasecmp (name, label_types[k].name) == 0)
      {
        *kind = label_types[k].kind;
        *hash = g_ascii_strcasecmp (name, "HASH") == 0;
        return TRUE;
      }
  return ab_model_invalid (error,
                           "Unknown label type '%s' at 'type': expected "
                           "INDEXED, HASH, MULTI_EDGE, IMMUTABLE_INDEXED or VERTEX",
                           name);
}

/* src / tgt {type, desc?}. */
static gboolean
parse_vertex_field (JsonObject *schema, const gchar *member, AbType *type, gchar **desc,
                    GError **error)
{
  JsonObject *o;
  if (!ab_model_json_child (schema, "schema", member, TRUE, &o, error))
    return FALSE;
  g_autofree gchar *path = ab_model_json_path ("schema", member);
  g_autofree gchar *d = NULL;
  if (!ab_model_json_type (o, path, "type", type, error)
      || !ab_model_json_string (o, path, "desc", FALSE, "", &d, error))
    return FALSE;
  g_free (*desc);
  *desc = g_steal_pointer (&d);
  return TRUE;
}

/* fields[k] {name, type, nullable?, desc?}. */
static AbField *
parse_v2_field (JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL, *desc = NULL;
  AbType type;
  gboolean nullable;
  if (o == NULL || !ab_model_json_string (o, path, "name", TRUE, NULL, &name, error)
      || !ab_model_json_type (o, path, "type", &type, error)
      || !ab_model_json_bool (o, path, "nullable", FALSE, &nullable, error)
      || !ab_model_json_string (o, path, "desc", FALSE, "", &desc, error))
    return NULL;
  return ab_field_new (name, type, nullable, desc);
}

/* A MULTI_EDGE label carries its id type as the field _id (upstream's
 * converter); it becomes the schema's id, not a property. */
static gboolean
take_id_field (AbSchema *s, AbField *f)
{
  if (s->kind != AB_TABLE_MULTI_EDGE || strcmp (f->name, MULTI_EDGE_ID_FIELD))
    return FALSE;
  s->id_type = f->type;
  g_free (s->id_comment);
  s->id_comment = g_strdup (f->comment);
  return TRUE;
}

static gboolean
parse_v2_fields (AbSchema *s, JsonObject *schema, GError **error)
{
  JsonArray *fields;
  gboolean have_id = FALSE;
  if (!ab_model_json_array (schema, "schema", "fields", FALSE, &fields, error))
    return FALSE;
  for (guint k = 0; fields && k < json_array_get_length (fields); k++)
    {
      g_autofree gchar *path = ab_model_json_item_path ("schema", "fields", k);
      AbField *f = parse_v2_field (json_array_get_element (fields, k), path, error);
      if (f == NULL)
        return FALSE;
      if (take_id_field (s, f))
        {
          have_id = TRUE;
          ab_field_free (f);
        }
      else
        g_ptr_array_add (s->fields, f);
    }
  if (s->kind == AB_TABLE_MULTI_EDGE && !have_id)
    return ab_model_invalid (error,
                             "A MULTI_EDGE label needs a field named '%s' in "
                             "schema.fields: its type is the id type",
                             MULTI_EDGE_ID_FIELD);
  return TRUE;
}

/* indices[k] {name, fields[{name, order}], desc?}. */
static AbIndex *
parse_v2_index (JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL, *desc = NULL;
  JsonArray *fields;
  if (o == NULL || !ab_model_json_string (o, path, "name", TRUE, NULL, &name, error)
      || !ab_model_json_string (o, path, "desc", FALSE, "", &desc, error)
      || !ab_model_json_array (o, path, "fields", TRUE, &fields, error))
    return NULL;
  AbIndex *idx = ab_index_new (name, desc);
  for (guint k = 0; k < json_array_get_length (fields); k++)
    {
      g_autofree gchar *fpath = ab_model_json_item_path (path, "fields", k);
      JsonObject *fo = ab_model_json_object (json_array_get_element (fields, k), fpath, error);
      g_autofree gchar *fname = NULL;
      AbOrder order;
      if (fo == NULL || !ab_model_json_string (fo, fpath, "name", TRUE, NULL, &fname, error)
          || !ab_model_json_order (fo, fpath, "order", &order, error))
        {
          ab_index_free (idx);
          return NULL;
        }
      ab_index_add_field (idx, fname, order);
    }
  return idx;
}

static gboolean
parse_v2_indices (AbSchema *s, JsonObject *o, GError **error)
{
  JsonArray *indices;
  if (!ab_model_json_array (o, NULL, "indices", FALSE, &indices, error))
    return FALSE;
  for (guint k = 0; indices && k < json_array_get_length (indices); k++)
    {
      g_autofree gchar *path = ab_model_json_item_path (NULL, "indices", k);
      AbIndex *idx = parse_v2_index (json_array_get_element (indices, k), path, error);
      if (idx == NULL)
        return FALSE;
      g_ptr_array_add (s->indexes, idx);
    }
  return TRUE;
}

static gboolean
parse_v2_schema (AbSchema *s, JsonObject *o, gboolean hash, GError **error)
{
  JsonObject *schema;
  gboolean vertex = s->kind == AB_TABLE_VERTEX;
  AbType src, tgt;
  g_autofree gchar *src_desc = g_strdup (""), *tgt_desc = g_strdup ("");
  if (!ab_model_json_child (o, NULL, "schema", TRUE, &schema, error)
      || !parse_vertex_field (schema, "src", &src, &src_desc, error)
      || !parse_vertex_field (schema, "tgt", &tgt, &tgt_desc, error)
      || !parse_v2_fields (s, schema, error))
    return FALSE;
  if (vertex)
    {
      s->id_type = src;
      g_free (s->id_comment);
      s->id_comment = g_steal_pointer (&src_desc);
    }
  else
    {
      s->source_type = src;
      s->target_type = tgt;
      g_free (s->source_comment);
      s->source_comment = g_steal_pointer (&src_desc);
      g_free (s->target_comment);
      s->target_comment = g_steal_pointer (&tgt_desc);
    }
  if (!ab_model_json_dirtype (o, NULL, "dirType", !(vertex || hash), AB_DIRTYPE_OUT, &s->direction,
                              error))
    return FALSE;
  if (hash && s->direction != AB_DIRTYPE_OUT)
    return ab_model_invalid (error, "A HASH label must have dirType OUT, not %s",
                             ab_dirtype_name (s->direction));
  return parse_v2_indices (s, o, error)
         && ab_model_json_array_copy (o, NULL, "groups", &s->groups, error)
         && ab_model_json_array_copy (o, NULL, "caches", &s->caches, error)
         && ab_schema_finish (s, error);
}

/* v2 storage: a datastore:// URI, or the name of a storage object (the
 * catalog checks that it exists). */
static gboolean
read_v2_storage (JsonObject *o, gchar **slot, GError **error)
{
  g_autofree gchar *storage = NULL;
  if (!ab_model_json_string (o, NULL, "storage", TRUE, NULL, &storage, error))
    return FALSE;
  if (g_str_has_prefix (storage, "datastore:"))
    {
      if (!ab_model_validate_storage (storage, error))
        return FALSE;
    }
  else if (!ab_model_validate_name ("storage", storage, error))
    return FALSE;
  g_free (*slot);
  *slot = g_steal_pointer (&storage);
  return TRUE;
}

/* desc is required on v2 create bodies (docs/rest-api.md §1.5). */
static gboolean
read_desc (JsonObject *o, gchar **slot, GError **error)
{
  g_autofree gchar *desc = NULL;
  if (!ab_model_json_string (o, NULL, "desc", TRUE, NULL, &desc, error)
      || !ab_model_validate_comment (desc, error))
    return FALSE;
  g_free (*slot);
  *slot = g_steal_pointer (&desc);
  return TRUE;
}

AbTableDesc *
ab_table_desc_from_v2_label (const gchar *service, const gchar *label, JsonNode *body,
                             GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL || !ab_model_validate_name ("label", label, error))
    return NULL;
  g_autoptr (AbTableDesc) t = ab_table_desc_new ();
  gboolean hash = FALSE, flag;
  g_free (t->database);
  t->database = g_strdup (service);
  g_free (t->table);
  t->table = g_strdup (label);
  if (!read_desc (o, &t->comment, error) || !parse_label_type (o, &t->schema->kind, &hash, error)
      || !parse_v2_schema (t->schema, o, hash, error) || !read_v2_storage (o, &t->storage, error)
      || !ab_model_json_bool (o, NULL, "event", FALSE, &flag, error)
      || !ab_model_json_bool (o, NULL, "readOnly", FALSE, &flag, error)
      || !ab_model_json_mode (o, NULL, "mode", &t->mode, error))
    return NULL;
  t->code = ab_codec_table_code (t->database, t->table);
  return g_steal_pointer (&t);
}

/* ---- entity -------------------------------------------------------------- */

static void
add_v2_field (JsonBuilder *b, const gchar *name, AbType type, gboolean nullable, const gchar *desc)
{
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "name", name);
  ab_model_json_add_string (b, "type", ab_type_v2_name (type));
  ab_model_json_add_bool (b, "nullable", nullable);
  ab_model_json_add_string (b, "desc", desc);
  json_builder_end_object (b);
}

static void
add_vertex_field (JsonBuilder *b, const gchar *member, AbType type, const gchar *desc)
{
  json_builder_set_member_name (b, member);
  json_builder_begin_object (b);
  ab_model_json_add_string (b, "type", ab_type_v2_name (type));
  ab_model_json_add_string (b, "desc", desc);
  json_builder_end_object (b);
}

static void
add_v2_schema (JsonBuilder *b, const AbSchema *s)
{
  gboolean vertex = s->kind == AB_TABLE_VERTEX;
  json_builder_set_member_name (b, "schema");
  json_builder_begin_object (b);
  add_vertex_field (b, "src", vertex ? s->id_type : s->source_type,
                    vertex ? s->id_comment : s->source_comment);
  /* A vertex label's tgt is the marker's type, described as upstream does. */
  add_vertex_field (b, "tgt", vertex ? AB_TYPE_STRING : s->target_type,
                    vertex ? "<vertex>" : s->target_comment);
  json_builder_set_member_name (b, "fields");
  json_builder_begin_array (b);
  if (s->kind == AB_TABLE_MULTI_EDGE)
    add_v2_field (b, MULTI_EDGE_ID_FIELD, s->id_type, FALSE, s->id_comment);
  for (guint k = 0; k < s->fields->len; k++)
    {
      const AbField *f = s->fields->pdata[k];
      if (s->kind == AB_TABLE_MULTI_EDGE
          && (!strcmp (f->name, "_source") || !strcmp (f->name, "_target")))
        continue;
      add_v2_field (b, f->name, f->type, f->nullable, f->comment);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
}

/* System index fields are shown under their v2 names. */
static const gchar *
v2_index_field_name (const AbSchema *s, const gchar *field)
{
  switch (ab_schema_index_field_kind (s, field))
    {
      case AB_INDEX_FIELD_VERSION: return "ts";
      case AB_INDEX_FIELD_SOURCE: return "src";
      case AB_INDEX_FIELD_TARGET: return "tgt";
      default: return field;
    }
}

static void
add_v2_indices (JsonBuilder *b, const AbSchema *s)
{
  json_builder_set_member_name (b, "indices");
  json_builder_begin_array (b);
  for (guint k = 0; k < s->indexes->len; k++)
    {
      const AbIndex *idx = s->indexes->pdata[k];
      json_builder_begin_object (b);
      ab_model_json_add_string (b, "name", idx->name);
      json_builder_set_member_name (b, "fields");
      json_builder_begin_array (b);
      for (guint f = 0; f < idx->n_fields; f++)
        {
          json_builder_begin_object (b);
          ab_model_json_add_string (b, "name", v2_index_field_name (s, idx->fields[f].field));
          ab_model_json_add_string (b, "order",
                                    idx->fields[f].order == AB_ORDER_DESC ? "DESC" : "ASC");
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      ab_model_json_add_string (b, "desc", idx->comment);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

JsonNode *
ab_table_desc_to_v2_label (const AbTableDesc *t)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree gchar *name = g_strconcat (t->database, ".", t->table, NULL);
  json_builder_begin_object (b);
  ab_model_json_add_bool (b, "active", t->active);
  ab_model_json_add_string (b, "name", name);
  ab_model_json_add_string (b, "desc", t->comment);
  ab_model_json_add_string (b, "type", label_type_name (t->schema->kind));
  add_v2_schema (b, t->schema);
  ab_model_json_add_string (b, "dirType", ab_dirtype_name (t->schema->direction));
  ab_model_json_add_string (b, "storage", t->storage);
  add_v2_indices (b, t->schema);
  ab_model_json_add_array_copy (b, "groups", t->schema->groups);
  ab_model_json_add_array_copy (b, "caches", t->schema->caches);
  ab_model_json_add_bool (b, "event", FALSE);
  /* v2 MULTI_EDGE labels are read-only in the v2 engine (docs/data-model.md §9) */
  ab_model_json_add_bool (b, "readOnly", t->schema->kind == AB_TABLE_MULTI_EDGE);
  ab_model_json_add_string (b, "mode", ab_mode_v2_name (t->mode));
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* ---- service and alias --------------------------------------------------- */

AbDatabaseDesc *
ab_database_desc_from_v2_service (const gchar *service, JsonNode *body, GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL || !ab_model_validate_name ("service", service, error))
    return NULL;
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_new ();
  g_free (d->database);
  d->database = g_strdup (service);
  if (!read_desc (o, &d->comment, error))
    return NULL;
  return g_steal_pointer (&d);
}

JsonNode *
ab_database_desc_to_v2_service (const AbDatabaseDesc *d)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  ab_model_json_add_bool (b, "active", d->active);
  ab_model_json_add_string (b, "name", d->database);
  ab_model_json_add_string (b, "desc", d->comment);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

/* target "service.label": the service part must be this alias's service,
 * since descriptors keep aliases within one database. */
static gboolean
read_v2_alias_target (JsonObject *o, const gchar *service, gchar **slot, GError **error)
{
  g_autofree gchar *target = NULL;
  if (!ab_model_json_string (o, NULL, "target", TRUE, NULL, &target, error))
    return FALSE;
  const gchar *dot = strchr (target, '.');
  if (dot == NULL || (gsize) (dot - target) != strlen (service)
      || strncmp (target, service, dot - target) != 0)
    return ab_model_invalid (error,
                             "Alias target '%s' must be of the form '%s.<label>' "
                             "(an alias points into its own service)",
                             target, service);
  if (!ab_model_validate_name ("label", dot + 1, error))
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (dot + 1);
  return TRUE;
}

AbAliasDesc *
ab_alias_desc_from_v2_alias (const gchar *service, const gchar *alias, JsonNode *body,
                             GError **error)
{
  JsonObject *o = ab_model_json_object (body, "The request body", error);
  if (o == NULL || !ab_model_validate_name ("alias", alias, error))
    return NULL;
  g_autoptr (AbAliasDesc) a = ab_alias_desc_new ();
  g_free (a->database);
  a->database = g_strdup (service);
  g_free (a->alias);
  a->alias = g_strdup (alias);
  if (!read_v2_alias_target (o, service, &a->table, error))
    return NULL;
  if (!read_desc (o, &a->comment, error))
    return NULL;
  return g_steal_pointer (&a);
}

JsonNode *
ab_alias_desc_to_v2_alias (const AbAliasDesc *a)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autofree gchar *name = g_strconcat (a->database, ".", a->alias, NULL);
  g_autofree gchar *target = g_strconcat (a->database, ".", a->table, NULL);
  json_builder_begin_object (b);
  ab_model_json_add_bool (b, "active", a->active);
  ab_model_json_add_string (b, "name", name);
  ab_model_json_add_string (b, "desc", a->comment);
  ab_model_json_add_string (b, "target", target);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}
