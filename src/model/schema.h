/* Table schemas and the metadata descriptors (database, table, alias): the
 * structs, their v3 JSON forms (request and response), the v2 label form, and
 * every validation rule of docs/rest-api.md §1.5. Descriptors are immutable once built
 * and reference-counted, so readers can hold one while the catalog swaps. */
#pragma once
#include <glib.h>
#include <json-glib/json-glib.h>
#include "codec/element.h"
#include "model/types.h"

typedef enum {
  AB_TABLE_EDGE,
  AB_TABLE_MULTI_EDGE,
  AB_TABLE_IMMUTABLE_EDGE,
  AB_TABLE_VERTEX,
} AbTableKind;

/* The target of every row of a vertex table: the id is the source
 * (docs/storage-format.md §3). */
#define AB_VERTEX_MARKER "-"

typedef enum { AB_DIRTYPE_BOTH, AB_DIRTYPE_OUT, AB_DIRTYPE_IN } AbDirectionType;

typedef enum {
  AB_MODE_SYNC,
  AB_MODE_ASYNC,
  AB_MODE_DROP, /* v2 IGNORE */
  AB_MODE_DENY,
} AbMutationMode;

typedef struct {
  gchar *name;
  AbType type;
  gchar *comment; /* never NULL ("" when absent) */
  gboolean nullable;
  gint32 code; /* ab_codec_code(name) */
} AbField;

typedef struct {
  gchar *field; /* property name or system field version/source/target */
  AbOrder order;
} AbIndexField;

typedef struct {
  gchar *name;
  gint32 code;
  gchar *comment;
  AbIndexField *fields;
  guint n_fields;
} AbIndex;

typedef struct {
  AbTableKind kind;
  AbType source_type;
  AbType target_type;
  AbType id_type; /* MULTI_EDGE, VERTEX */
  gchar *source_comment, *target_comment, *id_comment;
  GPtrArray *fields; /* AbField*, schema order. MULTI_EDGE: user fields
                              followed by _source and _target (non-nullable). */
  AbDirectionType direction;
  GPtrArray *indexes;    /* AbIndex* */
  JsonNode *groups;      /* JSON array as given (responses echo it) */
  JsonNode *caches;      /* JSON array as given */
  GPtrArray *group_defs; /* AbGroup*, parsed from groups (model/groups.h) */
  GPtrArray *cache_defs; /* AbCache*, parsed from caches */
} AbSchema;

/* Table kind names: camel-case response form ("multiEdge", and
 * "immutableEdge" for IMMUTABLE_EDGE, whose upstream name is unknown); the
 * request form ("MULTI_EDGE"); parse accepts both forms in any case. */
const gchar *ab_table_kind_name (AbTableKind kind);
const gchar *ab_table_kind_request_name (AbTableKind kind);
gboolean ab_table_kind_parse (const gchar *name, AbTableKind *out);

/* Building blocks for schemas built by hand (the catalog's queue tables,
 * tests). comment NULL means "". Codes are filled by ab_schema_finish. */
AbField *ab_field_new (const gchar *name, AbType type, gboolean nullable, const gchar *comment);
void ab_field_free (AbField *field);
AbIndex *ab_index_new (const gchar *name, const gchar *comment);
void ab_index_add_field (AbIndex *index, const gchar *field, AbOrder order);
void ab_index_free (AbIndex *index);

AbSchema *ab_schema_new (void);
void ab_schema_free (AbSchema *schema);
AbSchema *ab_schema_copy (const AbSchema *schema);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbSchema, ab_schema_free)

/* Lookups; NULL / -1 when absent. */
const AbField *ab_schema_field (const AbSchema *schema, const gchar *name);
gint ab_schema_field_pos (const AbSchema *schema, const gchar *name);
const AbField *ab_schema_field_by_code (const AbSchema *schema, gint32 code);
gint ab_schema_field_pos_by_code (const AbSchema *schema, gint32 code);
const AbIndex *ab_schema_index (const AbSchema *schema, const gchar *name);

/* v3 ModelSchema JSON. Accepts request (EDGE) and response (edge) type names,
 * types in any case. Validates: field names unique, index fields exist
 * (property or version/source/target), immutable <= 1 index and OUT or IN,
 * vertex OUT only, no indexes. */
AbSchema *ab_schema_from_json (JsonNode *node, GError **error);
JsonNode *ab_schema_to_json (const AbSchema *schema); /* response form */
/* One index as a member of the form's `indexes` array (both forms:
 * {index, fields: [{field, order}], comment}). */
void ab_index_add_json (JsonBuilder *b, const AbIndex *idx);
/* Completes a schema (field and index codes; v2 index names ts/src/tgt
 * become version/source/target; MULTI_EDGE gets _source/_target appended,
 * VERTEX gets source = id type, target string, direction OUT) and checks
 * every schema rule of docs/rest-api.md §1.5: property names non-empty, unique, not
 * starting with '_'; source/target/id types scalar; index names unique and
 * index fields existing; immutable <= 1 index and OUT or IN; vertex OUT only
 * without indexes, groups or caches; groups/caches JSON arrays. Idempotent:
 * ab_schema_from_json and the v2 parser call it. */
gboolean ab_schema_finish (AbSchema *schema, GError **error);

/* What an index field (or a ranges/filters field) refers to. The system
 * names version/source/target (v2: ts/src/tgt) win over a property of the
 * same name, as in the engine. UNKNOWN: neither. */
typedef enum {
  AB_INDEX_FIELD_UNKNOWN = -1,
  AB_INDEX_FIELD_PROPERTY,
  AB_INDEX_FIELD_VERSION,
  AB_INDEX_FIELD_SOURCE,
  AB_INDEX_FIELD_TARGET,
} AbIndexFieldKind;
AbIndexFieldKind ab_schema_index_field_kind (const AbSchema *schema, const gchar *field);
/* Update rule: new may only add nullable properties to old. */
gboolean ab_schema_check_update (const AbSchema *old_schema, const AbSchema *new_schema,
                                 GError **error);

const gchar *ab_mode_name (AbMutationMode mode);                 /* "SYNC" ... "DROP" */
const gchar *ab_mode_v2_name (AbMutationMode mode);              /* DROP -> "IGNORE" */
gboolean ab_mode_parse (const gchar *name, AbMutationMode *out); /* IGNORE = DROP */
const gchar *ab_dirtype_name (AbDirectionType d);
gboolean ab_dirtype_parse (const gchar *name, AbDirectionType *out);

/* Audit fields shared by all descriptors. */
typedef struct {
  gint64 revision;
  gint64 created_at;
  gchar *created_by;
  gint64 updated_at;
  gchar *updated_by;
} AbAudit;

typedef struct {
  gchar *tenant;
  gchar *database;
  gboolean active;
  gchar *comment;
  AbAudit audit;
} AbDatabaseDesc;

typedef struct {
  gchar *tenant;
  gchar *database;
  gchar *table;
  AbSchema *schema;
  gchar *storage;
  AbMutationMode mode;
  gboolean active;
  gchar *comment;
  AbAudit audit;
  gint32 code; /* ab_codec_table_code(database, table) */
} AbTableDesc;

typedef struct {
  gchar *tenant;
  gchar *database;
  gchar *alias;
  gchar *table; /* target table, same database */
  gboolean active;
  gchar *comment;
  AbAudit audit;
} AbAliasDesc;

AbDatabaseDesc *ab_database_desc_new (void);
AbDatabaseDesc *ab_database_desc_ref (AbDatabaseDesc *d);
void ab_database_desc_unref (AbDatabaseDesc *d);
AbTableDesc *ab_table_desc_new (void);
AbTableDesc *ab_table_desc_ref (AbTableDesc *t);
void ab_table_desc_unref (AbTableDesc *t);
AbAliasDesc *ab_alias_desc_new (void);
AbAliasDesc *ab_alias_desc_ref (AbAliasDesc *a);
void ab_alias_desc_unref (AbAliasDesc *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbDatabaseDesc, ab_database_desc_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbTableDesc, ab_table_desc_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbAliasDesc, ab_alias_desc_unref)
/* Deep copies (the catalog edits a copy, then swaps). */
AbDatabaseDesc *ab_database_desc_copy (const AbDatabaseDesc *d);
AbTableDesc *ab_table_desc_copy (const AbTableDesc *t);
AbAliasDesc *ab_alias_desc_copy (const AbAliasDesc *a);

/* v3 response JSON (also the persisted form) and back. from_json accepts what
 * to_json produced. */
JsonNode *ab_database_desc_to_json (const AbDatabaseDesc *d);
AbDatabaseDesc *ab_database_desc_from_json (JsonNode *node, GError **error);
JsonNode *ab_table_desc_to_json (const AbTableDesc *t);
AbTableDesc *ab_table_desc_from_json (JsonNode *node, GError **error);
JsonNode *ab_alias_desc_to_json (const AbAliasDesc *a);
AbAliasDesc *ab_alias_desc_from_json (JsonNode *node, GError **error);

/* v3 TableCreateRequest {table, schema, storage, mode, comment} -> a new
 * descriptor for `database` (name from the body unless path_name is given;
 * a differing body name is an error). Validates every rule. */
AbTableDesc *ab_table_desc_from_create_request (const gchar *database, const gchar *path_name,
                                                JsonNode *body, GError **error);

/* v3 create requests for databases {database, comment} and aliases
 * {alias, table, comment} (all required; with path_name the body's name is
 * optional and must match). */
AbDatabaseDesc *ab_database_desc_from_create_request (const gchar *path_name, JsonNode *body,
                                                      GError **error);
AbAliasDesc *ab_alias_desc_from_create_request (const gchar *database, const gchar *path_name,
                                                JsonNode *body, GError **error);
/* v3 update requests: a new descriptor = old + the body's changes (database
 * {active?, comment?}; table {active?, schema?, mode?, comment?} with the
 * schema update rule; alias {active?, table?, comment?}). Audit fields are
 * copied unchanged: the catalog sets them. */
AbDatabaseDesc *ab_database_desc_apply_update (const AbDatabaseDesc *old, JsonNode *body,
                                               GError **error);
AbTableDesc *ab_table_desc_apply_update (const AbTableDesc *old, JsonNode *body, GError **error);
AbAliasDesc *ab_alias_desc_apply_update (const AbAliasDesc *old, JsonNode *body, GError **error);

/* v2 label form (docs/rest-api.md §2): create body -> descriptor; descriptor -> entity
 * {active, name:"db.table", desc, type, schema{src,tgt,fields}, dirType,
 * storage, indices, groups, caches, event, readOnly, mode} with no null desc. */
AbTableDesc *ab_table_desc_from_v2_label (const gchar *service, const gchar *label, JsonNode *body,
                                          GError **error);
JsonNode *ab_table_desc_to_v2_label (const AbTableDesc *t);
/* v2 service: create {desc} -> descriptor; entity {active, name, desc}.
 * v2 alias: create {desc, target:"service.label"} (target in the same
 * service) -> descriptor; entity {active, name:"db.alias", desc,
 * target:"db.table"}. */
AbDatabaseDesc *ab_database_desc_from_v2_service (const gchar *service, JsonNode *body,
                                                  GError **error);
JsonNode *ab_database_desc_to_v2_service (const AbDatabaseDesc *d);
AbAliasDesc *ab_alias_desc_from_v2_alias (const gchar *service, const gchar *alias, JsonNode *body,
                                          GError **error);
JsonNode *ab_alias_desc_to_v2_alias (const AbAliasDesc *a);

/* Validation rules (docs/rest-api.md §1.5); errors are AB_MODEL_ERROR_INVALID with a
 * message that names the rule. `what` is "database", "table", "alias"... */
gboolean ab_model_validate_name (const gchar *what, const gchar *name, GError **error);
gboolean ab_model_validate_storage (const gchar *uri, GError **error);
gboolean ab_model_validate_comment (const gchar *comment, GError **error);
