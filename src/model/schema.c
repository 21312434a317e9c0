/* Schema and descriptor structs: construction, deep copies, reference counts,
 * lookups, the enum names (kind, mode, direction) and the schema update rule
 * ("only optional fields can be added", docs/data-model.md §15). */
#include <string.h>
#include "model/schema.h"
#include "model/json_get.h"
#include "model/groups.h"

/* ---- enum names ---------------------------------------------------------- */

static const gchar *const kind_names[] = {
  [AB_TABLE_EDGE] = "edge",
  [AB_TABLE_MULTI_EDGE] = "multiEdge",
  [AB_TABLE_IMMUTABLE_EDGE] = "immutableEdge",
  [AB_TABLE_VERTEX] = "vertex",
};

static const gchar *const kind_request_names[] = {
  [AB_TABLE_EDGE] = "EDGE",
  [AB_TABLE_MULTI_EDGE] = "MULTI_EDGE",
  [AB_TABLE_IMMUTABLE_EDGE] = "IMMUTABLE_EDGE",
  [AB_TABLE_VERTEX] = "VERTEX",
};

const gchar *
ab_table_kind_name (AbTableKind kind)
{
  return AB_ENUM_NAME (kind_names, kind);
}

const gchar *
ab_table_kind_request_name (AbTableKind kind)
{
  return AB_ENUM_NAME (kind_request_names, kind);
}

/* "MULTI_EDGE", "multiEdge" and "multi_edge" all name the same kind. */
gboolean
ab_table_kind_parse (const gchar *name, AbTableKind *out)
{
  if (name == NULL)
    return FALSE;
  for (guint k = 0; k < G_N_ELEMENTS (kind_names); k++)
    if (g_ascii_strcasecmp (name, kind_names[k]) == 0
        || g_ascii_strcasecmp (name, kind_request_names[k]) == 0)
      {
        *out = (AbTableKind) k;
        return TRUE;
      }
  return FALSE;
}

static const gchar *const mode_names[] = {
  [AB_MODE_SYNC] = "SYNC",
  [AB_MODE_ASYNC] = "ASYNC",
  [AB_MODE_DROP] = "DROP",
  [AB_MODE_DENY] = "DENY",
};

const gchar *
ab_mode_name (AbMutationMode mode)
{
  return AB_ENUM_NAME (mode_names, mode);
}

const gchar *
ab_mode_v2_name (AbMutationMode mode)
{
  return mode == AB_MODE_DROP ? "IGNORE" : AB_ENUM_NAME (mode_names, mode);
}

gboolean
ab_mode_parse (const gchar *name, AbMutationMode *out)
{
  if (name == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (name, "IGNORE") == 0)
    {
      *out = AB_MODE_DROP;
      return TRUE;
    }
  for (guint m = 0; m < G_N_ELEMENTS (mode_names); m++)
    if (g_ascii_strcasecmp (name, mode_names[m]) == 0)
      {
        *out = (AbMutationMode) m;
        return TRUE;
      }
  return FALSE;
}

static const gchar *const dirtype_names[] = {
  [AB_DIRTYPE_BOTH] = "BOTH",
  [AB_DIRTYPE_OUT] = "OUT",
  [AB_DIRTYPE_IN] = "IN",
};

const gchar *
ab_dirtype_name (AbDirectionType d)
{
  return AB_ENUM_NAME (dirtype_names, d);
}

gboolean
ab_dirtype_parse (const gchar *name, AbDirectionType *out)
{
  if (name == NULL)
    return FALSE;
  for (guint d = 0; d < G_N_ELEMENTS (dirtype_names); d++)
    if (g_ascii_strcasecmp (name, dirtype_names[d]) == 0)
      {
        *out = (AbDirectionType) d;
        return TRUE;
      }
  return FALSE;
}

/* ---- fields and indexes -------------------------------------------------- */

AbField *
ab_field_new (const gchar *name, AbType type, gboolean nullable, const gchar *comment)
{
  AbField *f = g_new0 (AbField, 1);
  f->name = g_strdup (name);
  f->type = type;
  f->nullable = nullable ? TRUE : FALSE;
  f->comment = g_strdup (comment ? comment : "");
  return f;
}

void
ab_field_free (AbField *field)
{
  if (field == NULL)
    return;
  g_free (field->name);
  g_free (field->comment);
  g_free (field);
}

static AbField *
field_copy (const AbField *f)
{
  AbField *c = ab_field_new (f->name, f->type, f->nullable, f->comment);
  c->code = f->code;
  return c;
}

AbIndex *
ab_index_new (const gchar *name, const gchar *comment)
{
  AbIndex *i = g_new0 (AbIndex, 1);
  i->name = g_strdup (name);
  i->comment = g_strdup (comment ? comment : "");
  return i;
}

void
ab_index_add_field (AbIndex *index, const gchar *field, AbOrder order)
{
  index->fields = g_renew (AbIndexField, index->fields, index->n_fields + 1);
  index->fields[index->n_fields].field = g_strdup (field);
  index->fields[index->n_fields].order = order;
  index->n_fields++;
}

void
ab_index_free (AbIndex *index)
{
  if (index == NULL)
    return;
  for (guint k = 0; k < index->n_fields; k++)
    g_free (index->fields[k].field);
  g_free (index->fields);
  g_free (index->name);
  g_free (index->comment);
  g_free (index);
}

static AbIndex *
index_copy (const AbIndex *i)
{
  AbIndex *c = ab_index_new (i->name, i->comment);
  c->code = i->code;
  for (guint k = 0; k < i->n_fields; k++)
    ab_index_add_field (c, i->fields[k].field, i->fields[k].order);
  return c;
}

/* ---- schema -------------------------------------------------------------- */

AbSchema *
ab_schema_new (void)
{
  AbSchema *s = g_new0 (AbSchema, 1);
  s->kind = AB_TABLE_EDGE;
  s->source_type = AB_TYPE_STRING;
  s->target_type = AB_TYPE_STRING;
  s->id_type = AB_TYPE_STRING;
  s->source_comment = g_strdup ("");
  s->target_comment = g_strdup ("");
  s->id_comment = g_strdup ("");
  s->fields = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_field_free);
  s->direction = AB_DIRTYPE_BOTH;
  s->indexes = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_index_free);
  s->groups = ab_model_json_empty_array ();
  s->caches = ab_model_json_empty_array ();
  s->group_defs = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_group_free);
  s->cache_defs = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_cache_free);
  return s;
}

void
ab_schema_free (AbSchema *schema)
{
  if (schema == NULL)
    return;
  g_free (schema->source_comment);
  g_free (schema->target_comment);
  g_free (schema->id_comment);
  g_ptr_array_unref (schema->fields);
  g_ptr_array_unref (schema->indexes);
  if (schema->groups)
    json_node_unref (schema->groups);
  if (schema->caches)
    json_node_unref (schema->caches);
  g_clear_pointer (&schema->group_defs, g_ptr_array_unref);
  g_clear_pointer (&schema->cache_defs, g_ptr_array_unref);
  g_free (schema);
}

static void
replace_string (gchar **slot, const gchar *value)
{
  g_free (*slot);
  *slot = g_strdup (value ? value : "");
}

AbSchema *
ab_schema_copy (const AbSchema *schema)
{
  AbSchema *c = ab_schema_new ();
  c->kind = schema->kind;
  c->source_type = schema->source_type;
  c->target_type = schema->target_type;
  c->id_type = schema->id_type;
  replace_string (&c->source_comment, schema->source_comment);
  replace_string (&c->target_comment, schema->target_comment);
  replace_string (&c->id_comment, schema->id_comment);
  for (guint k = 0; k < schema->fields->len; k++)
    g_ptr_array_add (c->fields, field_copy (schema->fields->pdata[k]));
  c->direction = schema->direction;
  for (guint k = 0; k < schema->indexes->len; k++)
    g_ptr_array_add (c->indexes, index_copy (schema->indexes->pdata[k]));
  json_node_unref (c->groups);
  json_node_unref (c->caches);
  c->groups
      = schema->groups ? ab_model_json_deep_copy (schema->groups) : ab_model_json_empty_array ();
  c->caches
      = schema->caches ? ab_model_json_deep_copy (schema->caches) : ab_model_json_empty_array ();
  /* The definitions are re-derived from the copied JSON (it parsed before). */
  if (!ab_schema_parse_groups (c, NULL))
    g_warn_if_reached ();
  return c;
}

gint
ab_schema_field_pos (const AbSchema *schema, const gchar *name)
{
  if (name == NULL)
    return -1;
  for (guint k = 0; k < schema->fields->len; k++)
    {
      const AbField *f = schema->fields->pdata[k];
      if (strcmp (f->name, name) == 0)
        return (gint) k;
    }
  return -1;
}

const AbField *
ab_schema_field (const AbSchema *schema, const gchar *name)
{
  gint pos = ab_schema_field_pos (schema, name);
  return pos < 0 ? NULL : schema->fields->pdata[pos];
}

const AbField *
ab_schema_field_by_code (const AbSchema *schema, gint32 code)
{
  gint k = ab_schema_field_pos_by_code (schema, code);
  return k >= 0 ? schema->fields->pdata[k] : NULL;
}

gint
ab_schema_field_pos_by_code (const AbSchema *schema, gint32 code)
{
  for (guint k = 0; k < schema->fields->len; k++)
    if (((const AbField *) schema->fields->pdata[k])->code == code)
      return (gint) k;
  return -1;
}

const AbIndex *
ab_schema_index (const AbSchema *schema, const gchar *name)
{
  if (name == NULL)
    return NULL;
  for (guint k = 0; k < schema->indexes->len; k++)
    {
      const AbIndex *i = schema->indexes->pdata[k];
      if (strcmp (i->name, name) == 0)
        return i;
    }
  return NULL;
}

AbIndexFieldKind
ab_schema_index_field_kind (const AbSchema *schema, const gchar *field)
{
  if (field == NULL)
    return AB_INDEX_FIELD_UNKNOWN;
  if (strcmp (field, "version") == 0 || strcmp (field, "ts") == 0)
    return AB_INDEX_FIELD_VERSION;
  if (strcmp (field, "source") == 0 || strcmp (field, "src") == 0)
    return AB_INDEX_FIELD_SOURCE;
  if (strcmp (field, "target") == 0 || strcmp (field, "tgt") == 0)
    return AB_INDEX_FIELD_TARGET;
  if (ab_schema_field (schema, field) != NULL)
    return AB_INDEX_FIELD_PROPERTY;
  return AB_INDEX_FIELD_UNKNOWN;
}

/* ---- update rule --------------------------------------------------------- */

static gboolean
update_fail (GError **error, const gchar *what, const gchar *from, const gchar *to)
{
  g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID,
               "Schema update cannot change the %s (%s -> %s); only optional "
               "fields can be added",
               what, from, to);
  return FALSE;
}

static gboolean
check_update_shape (const AbSchema *o, const AbSchema *n, GError **error)
{
  if (o->kind != n->kind)
    return update_fail (error, "table type", ab_table_kind_name (o->kind),
                        ab_table_kind_name (n->kind));
  if (o->kind != AB_TABLE_VERTEX && o->source_type != n->source_type)
    return update_fail (error, "source type", ab_type_name (o->source_type),
                        ab_type_name (n->source_type));
  if (o->kind != AB_TABLE_VERTEX && o->target_type != n->target_type)
    return update_fail (error, "target type", ab_type_name (o->target_type),
                        ab_type_name (n->target_type));
  if ((o->kind == AB_TABLE_MULTI_EDGE || o->kind == AB_TABLE_VERTEX) && o->id_type != n->id_type)
    return update_fail (error, "id type", ab_type_name (o->id_type), ab_type_name (n->id_type));
  /* index and count rows exist per direction: a change would orphan them */
  if (o->direction != n->direction)
    return update_fail (error, "direction", ab_dirtype_name (o->direction),
                        ab_dirtype_name (n->direction));
  return TRUE;
}

static gboolean
check_update_field (const AbField *of, const AbField *nf, GError **error)
{
  if (nf == NULL)
    {
      g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID,
                   "Schema update cannot remove property '%s'; only optional "
                   "fields can be added",
                   of->name);
      return FALSE;
    }
  if (of->type != nf->type)
    {
      g_autofree gchar *what = g_strdup_printf ("type of property '%s'", of->name);
      return update_fail (error, what, ab_type_name (of->type), ab_type_name (nf->type));
    }
  /* relaxing non-null to nullable is harmless; the reverse would make
   * existing rows without the value invalid */
  if (of->nullable && !nf->nullable)
    {
      g_autofree gchar *what = g_strdup_printf ("property '%s'", of->name);
      return update_fail (error, what, "nullable", "non-nullable");
    }
  return TRUE;
}

gboolean
ab_schema_check_update (const AbSchema *old_schema, const AbSchema *new_schema, GError **error)
{
  if (!check_update_shape (old_schema, new_schema, error))
    return FALSE;
  for (guint k = 0; k < old_schema->fields->len; k++)
    {
      const AbField *of = old_schema->fields->pdata[k];
      if (!check_update_field (of, ab_schema_field (new_schema, of->name), error))
        return FALSE;
    }
  for (guint k = 0; k < new_schema->fields->len; k++)
    {
      const AbField *nf = new_schema->fields->pdata[k];
      if (ab_schema_field (old_schema, nf->name) == NULL && !nf->nullable)
        {
          g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID,
                       "Only optional fields can be added: new property '%s' "
                       "must be nullable",
                       nf->name);
          return FALSE;
        }
    }
  return TRUE;
}

/* ---- descriptors --------------------------------------------------------- */

static void
audit_init (AbAudit *a)
{
  a->revision = -1;
  a->created_at = -1;
  a->created_by = g_strdup ("");
  a->updated_at = -1;
  a->updated_by = g_strdup ("");
}

static void
audit_copy (AbAudit *dst, const AbAudit *src)
{
  *dst = *src;
  dst->created_by = g_strdup (src->created_by ? src->created_by : "");
  dst->updated_by = g_strdup (src->updated_by ? src->updated_by : "");
}

static void
audit_clear (AbAudit *a)
{
  g_free (a->created_by);
  g_free (a->updated_by);
}

AbDatabaseDesc *
ab_database_desc_new (void)
{
  AbDatabaseDesc *d = g_atomic_rc_box_new0 (AbDatabaseDesc);
  d->tenant = g_strdup ("default");
  d->database = g_strdup ("");
  d->active = TRUE;
  d->comment = g_strdup ("");
  audit_init (&d->audit);
  return d;
}

AbDatabaseDesc *
ab_database_desc_ref (AbDatabaseDesc *d)
{
  return g_atomic_rc_box_acquire (d);
}

/* What the last reference frees: the members (the box is GLib's). */
static void
database_desc_clear (AbDatabaseDesc *d)
{
  g_free (d->tenant);
  g_free (d->database);
  g_free (d->comment);
  audit_clear (&d->audit);
}

void
ab_database_desc_unref (AbDatabaseDesc *d)
{
  if (d != NULL)
    g_atomic_rc_box_release_full (d, (GDestroyNotify) database_desc_clear);
}

AbDatabaseDesc *
ab_database_desc_copy (const AbDatabaseDesc *d)
{
  AbDatabaseDesc *c = ab_database_desc_new ();
  replace_string (&c->tenant, d->tenant);
  replace_string (&c->database, d->database);
  c->active = d->active;
  replace_string (&c->comment, d->comment);
  audit_clear (&c->audit);
  audit_copy (&c->audit, &d->audit);
  return c;
}

AbTableDesc *
ab_table_desc_new (void)
{
  AbTableDesc *t = g_atomic_rc_box_new0 (AbTableDesc);
  t->tenant = g_strdup ("default");
  t->database = g_strdup ("");
  t->table = g_strdup ("");
  t->schema = ab_schema_new ();
  t->storage = g_strdup ("");
  t->mode = AB_MODE_SYNC;
  t->active = TRUE;
  t->comment = g_strdup ("");
  audit_init (&t->audit);
  return t;
}

AbTableDesc *
ab_table_desc_ref (AbTableDesc *t)
{
  return g_atomic_rc_box_acquire (t);
}

/* What the last reference frees: the members (the box is GLib's). */
static void
table_desc_clear (AbTableDesc *t)
{
  g_free (t->tenant);
  g_free (t->database);
  g_free (t->table);
  ab_schema_free (t->schema);
  g_free (t->storage);
  g_free (t->comment);
  audit_clear (&t->audit);
}

void
ab_table_desc_unref (AbTableDesc *t)
{
  if (t != NULL)
    g_atomic_rc_box_release_full (t, (GDestroyNotify) table_desc_clear);
}

AbTableDesc *
ab_table_desc_copy (const AbTableDesc *t)
{
  AbTableDesc *c = ab_table_desc_new ();
  replace_string (&c->tenant, t->tenant);
  replace_string (&c->database, t->database);
  replace_string (&c->table, t->table);
  ab_schema_free (c->schema);
  c->schema = ab_schema_copy (t->schema);
  replace_string (&c->storage, t->storage);
  c->mode = t->mode;
  c->active = t->active;
  replace_string (&c->comment, t->comment);
  audit_clear (&c->audit);
  audit_copy (&c->audit, &t->audit);
  c->code = t->code;
  return c;
}

AbAliasDesc *
ab_alias_desc_new (void)
{
  AbAliasDesc *a = g_atomic_rc_box_new0 (AbAliasDesc);
  a->tenant = g_strdup ("default");
  a->database = g_strdup ("");
  a->alias = g_strdup ("");
  a->table = g_strdup ("");
  a->active = TRUE;
  a->comment = g_strdup ("");
  audit_init (&a->audit);
  return a;
}

AbAliasDesc *
ab_alias_desc_ref (AbAliasDesc *a)
{
  return g_atomic_rc_box_acquire (a);
}

/* What the last reference frees: the members (the box is GLib's). */
static void
alias_desc_clear (AbAliasDesc *a)
{
  g_free (a->tenant);
  g_free (a->database);
  g_free (a->alias);
  g_free (a->table);
  g_free (a->comment);
  audit_clear (&a->audit);
}

void
ab_alias_desc_unref (AbAliasDesc *a)
{
  if (a != NULL)
    g_atomic_rc_box_release_full (a, (GDestroyNotify) alias_desc_clear);
}

AbAliasDesc *
ab_alias_desc_copy (const AbAliasDesc *a)
{
  AbAliasDesc *c = ab_alias_desc_new ();
  replace_string (&c->tenant, a->tenant);
  replace_string (&c->database, a->database);
  replace_string (&c->alias, a->alias);
  replace_string (&c->table, a->table);
  c->active = a->active;
  replace_string (&c->comment, a->comment);
  audit_clear (&c->audit);
  audit_copy (&c->audit, &a->audit);
  return c;
}
