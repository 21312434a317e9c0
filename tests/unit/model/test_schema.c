/* v3 schema and descriptor JSON: the docs' examples (docs/rest-api.md §1.2, §1.3),
 * round trips descriptor -> JSON -> descriptor for every table kind,
 * MULTI_EDGE system fields, lookups, and the schema update rule. */
#include "codec/keys.h"
#include "model_helpers.h"

/* The table example of the upstream REST reference (its §1.3), verbatim. */
static const gchar *docs_table_body
    = "{\"table\":\"follows\",\n"
      " \"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"string\",\"comment\":\"user id\"},"
      "\"target\":{\"type\":\"string\",\"comment\":\"user id\"},\n"
      "           \"properties\":[],\"direction\":\"OUT\",\"indexes\":[],\"groups\":[]},\n"
      " \"storage\":\"datastore://hbase/follows_table\",\"mode\":\"SYNC\","
      "\"comment\":\"User follows relationship\"}";

/* The index example of the upstream REST reference (its §1.3), verbatim. */
static const gchar *docs_index
    = "{\"index\":\"created_at_desc\",\"fields\":[{\"field\":\"created_at\","
      "\"order\":\"DESC\"}],\"comment\":\"order by created_at\"}";

static AbTableDesc *
create_table (const gchar *body_text)
{
  g_autoptr (JsonNode) body = mt_json (body_text);
  g_autoptr (GError) error = NULL;
  AbTableDesc *t = ab_table_desc_from_create_request ("mydb", NULL, body, &error);
  ck_assert_msg (t != NULL, "create failed: %s", error ? error->message : "");
  return t;
}

START_TEST (test_docs_table_example)
{
  g_autoptr (AbTableDesc) t = create_table (docs_table_body);
  ck_assert_str_eq (t->database, "mydb");
  ck_assert_str_eq (t->table, "follows");
  ck_assert_str_eq (t->tenant, "default");
  ck_assert_int_eq (t->schema->kind, AB_TABLE_EDGE);
  ck_assert_int_eq (t->schema->source_type, AB_TYPE_STRING);
  ck_assert_str_eq (t->schema->source_comment, "user id");
  ck_assert_int_eq (t->schema->direction, AB_DIRTYPE_OUT);
  ck_assert_uint_eq (t->schema->fields->len, 0);
  ck_assert_str_eq (t->storage, "datastore://hbase/follows_table");
  ck_assert_int_eq (t->mode, AB_MODE_SYNC);
  ck_assert (t->active);
  ck_assert_int_eq (t->code, ab_codec_table_code ("mydb", "follows"));

  g_autoptr (JsonNode) out = ab_table_desc_to_json (t);
  ck_assert_str_eq (mt_get_string (out, "type"), "edge");
  ck_assert_str_eq (mt_get_string (out, "schema.type"), "edge");
  ck_assert_str_eq (mt_get_string (out, "schema.source.type"), "string");
  ck_assert_str_eq (mt_get_string (out, "schema.target.comment"), "user id");
  ck_assert_str_eq (mt_get_string (out, "schema.direction"), "OUT");
  ck_assert_str_eq (mt_get_string (out, "mode"), "SYNC");
  ck_assert_str_eq (mt_get_string (out, "comment"), "User follows relationship");
  ck_assert_int_eq (json_node_get_int (mt_get (out, "revision")), -1);
  ck_assert_int_eq (json_node_get_int (mt_get (out, "createdAt")), -1);
  ck_assert_str_eq (mt_get_string (out, "createdBy"), "");
  ck_assert_int_eq (json_node_get_int (mt_get (out, "updatedAt")), -1);
  ck_assert_str_eq (mt_get_string (out, "updatedBy"), "");
  g_autofree gchar *caches = mt_text (mt_get (out, "schema.caches"));
  ck_assert_str_eq (caches, "[]");
  g_autofree gchar *props = mt_text (mt_get (out, "schema.properties"));
  ck_assert_str_eq (props, "[]");
}
END_TEST

START_TEST (test_docs_index_example)
{
  g_autofree gchar *body = g_strdup_printf (
      "{\"type\":\"EDGE\",\"source\":{\"type\":\"long\"},\"target\":{\"type\":\"long\"},"
      "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"comment\":\"\","
      "\"nullable\":false}],\"direction\":\"BOTH\",\"indexes\":[%s]}",
      docs_index);
  g_autoptr (JsonNode) node = mt_json (body);
  g_autoptr (AbSchema) s = ab_schema_from_json (node, NULL);
  ck_assert_ptr_nonnull (s);
  const AbIndex *idx = ab_schema_index (s, "created_at_desc");
  ck_assert_ptr_nonnull (idx);
  ck_assert_str_eq (idx->comment, "order by created_at");
  ck_assert_uint_eq (idx->n_fields, 1);
  ck_assert_str_eq (idx->fields[0].field, "created_at");
  ck_assert_int_eq (idx->fields[0].order, AB_ORDER_DESC);
  ck_assert_int_eq (idx->code, ab_codec_code ("created_at_desc"));
  ck_assert_str_eq (s->source_comment, ""); /* Field comment defaults to "" */

  g_autoptr (JsonNode) out = ab_schema_to_json (s);
  g_autofree gchar *text = mt_text (mt_get (out, "indexes.0"));
  ck_assert_str_eq (text, docs_index);
}
END_TEST

START_TEST (test_index_comment_default)
{
  g_autoptr (JsonNode) node = mt_json (
      "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
      "\"direction\":\"OUT\",\"indexes\":[{\"index\":\"by_version\","
      "\"fields\":[{\"field\":\"version\",\"order\":\"ASC\"}]}]}");
  g_autoptr (AbSchema) s = ab_schema_from_json (node, NULL);
  ck_assert_ptr_nonnull (s);
  ck_assert_str_eq (ab_schema_index (s, "by_version")->comment, "");
  ck_assert_uint_eq (s->fields->len, 0); /* properties default [] */
}
END_TEST

static const gchar *roundtrip_bodies[] = {
  /* edge with indexes, groups and caches kept as given */
  "{\"table\":\"likes\",\"schema\":{\"type\":\"EDGE\","
  "\"source\":{\"type\":\"long\",\"comment\":\"user\"},\"target\":{\"type\":\"string\",\"comment\":"
  "\"item\"},"
  "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"comment\":\"ms\",\"nullable\":"
  "false},"
  "{\"name\":\"weight\",\"type\":\"double\",\"comment\":\"\",\"nullable\":true},"
  "{\"name\":\"meta\",\"type\":\"object\",\"comment\":\"\",\"nullable\":true}],"
  "\"direction\":\"BOTH\",\"indexes\":[{\"index\":\"recent\",\"fields\":[{\"field\":\"created_at\","
  "\"order\":\"DESC\"},"
  "{\"field\":\"target\",\"order\":\"ASC\"}],\"comment\":\"c\"}],"
  "\"groups\":[{\"group\":\"g\",\"type\":\"COUNT\",\"fields\":[{\"name\":\"weight\"}]}],"
  "\"caches\":[{\"cache\":\"c1\",\"fields\":[{\"field\":\"created_at\",\"order\":\"DESC\"}],"
  "\"limit\":10}]},"
  "\"storage\":\"datastore://ns/likes\",\"mode\":\"ASYNC\",\"comment\":\"likes\"}",
  /* multi-edge */
  "{\"table\":\"order_v1\",\"schema\":{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"string\","
  "\"comment\":\"order\"},"
  "\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"long\"},"
  "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false}],"
  "\"direction\":\"BOTH\",\"indexes\":[{\"index\":\"created_at_desc\",\"fields\":[{\"field\":"
  "\"created_at\",\"order\":\"DESC\"}]}]},"
  "\"storage\":\"datastore://ns/orders\",\"comment\":\"orders\"}",
  /* immutable edge */
  "{\"table\":\"q\",\"schema\":{\"type\":\"IMMUTABLE_EDGE\",\"source\":{\"type\":\"long\"},"
  "\"target\":{\"type\":\"string\"},"
  "\"properties\":[{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false},{\"name\":\"value\","
  "\"type\":\"string\",\"nullable\":true}],"
  "\"direction\":\"OUT\",\"indexes\":[{\"index\":\"seq_asc\",\"fields\":[{\"field\":\"seq\","
  "\"order\":\"ASC\"}]}]},"
  "\"storage\":\"datastore://ns/q\",\"mode\":\"DROP\",\"comment\":\"queue\"}",
  /* vertex */
  "{\"table\":\"users\",\"schema\":{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\",\"comment\":"
  "\"uid\"},"
  "\"properties\":[{\"name\":\"name\",\"type\":\"string\",\"nullable\":true}]},"
  "\"storage\":\"datastore://ns/users\",\"mode\":\"DENY\",\"comment\":\"\"}",
};

static const gchar *roundtrip_types[] = { "edge", "multiEdge", "immutableEdge", "vertex" };

START_TEST (test_roundtrip)
{
  g_autoptr (AbTableDesc) t = create_table (roundtrip_bodies[_i]);
  t->audit.revision = 3;
  t->audit.created_at = 1700000000000LL;
  g_free (t->audit.created_by);
  t->audit.created_by = g_strdup ("admin");
  t->active = FALSE;
  g_autoptr (JsonNode) j1 = ab_table_desc_to_json (t);
  g_autofree gchar *text1 = mt_text (j1);
  ck_assert_str_eq (mt_get_string (j1, "type"), roundtrip_types[_i]);
  ck_assert_str_eq (mt_get_string (j1, "schema.type"), roundtrip_types[_i]);

  g_autoptr (JsonNode) parsed = mt_json (text1);
  g_autoptr (GError) error = NULL;
  g_autoptr (AbTableDesc) t2 = ab_table_desc_from_json (parsed, &error);
  ck_assert_msg (t2 != NULL, "%s", error ? error->message : "");
  g_autoptr (JsonNode) j2 = ab_table_desc_to_json (t2);
  g_autofree gchar *text2 = mt_text (j2);
  ck_assert_str_eq (text1, text2);
  ck_assert_int_eq (t2->code, t->code);
  ck_assert_int_eq (t2->mode, t->mode);
  ck_assert_int_eq (t2->audit.revision, 3);
  ck_assert_str_eq (t2->audit.created_by, "admin");
  ck_assert (!t2->active);
  ck_assert_uint_eq (t2->schema->fields->len, t->schema->fields->len);
  for (guint k = 0; k < t->schema->fields->len; k++)
    {
      const AbField *a = t->schema->fields->pdata[k];
      const AbField *b = t2->schema->fields->pdata[k];
      ck_assert_str_eq (a->name, b->name);
      ck_assert_int_eq (a->type, b->type);
      ck_assert_int_eq (a->nullable, b->nullable);
      ck_assert_int_eq (b->code, ab_codec_code (b->name));
    }
}
END_TEST

START_TEST (test_groups_caches_kept)
{
  g_autoptr (AbTableDesc) t = create_table (roundtrip_bodies[0]);
  g_autoptr (JsonNode) out = ab_table_desc_to_json (t);
  ck_assert_str_eq (mt_get_string (out, "schema.groups.0.group"), "g");
  ck_assert_int_eq (json_node_get_int (mt_get (out, "schema.caches.0.limit")), 10);
  ck_assert_str_eq (mt_get_string (out, "mode"), "ASYNC");
}
END_TEST

START_TEST (test_multi_edge_system_fields)
{
  g_autoptr (AbTableDesc) t = create_table (roundtrip_bodies[1]);
  AbSchema *s = t->schema;
  ck_assert_int_eq (s->id_type, AB_TYPE_STRING);
  ck_assert_str_eq (s->id_comment, "order");
  ck_assert_uint_eq (s->fields->len, 3);
  const AbField *src = s->fields->pdata[1];
  const AbField *tgt = s->fields->pdata[2];
  ck_assert_str_eq (src->name, "_source");
  ck_assert_int_eq (src->type, AB_TYPE_STRING);
  ck_assert (!src->nullable);
  ck_assert_str_eq (tgt->name, "_target");
  ck_assert_int_eq (tgt->type, AB_TYPE_LONG);
  ck_assert (!tgt->nullable);
  ck_assert_ptr_eq (ab_schema_field_by_code (s, ab_codec_code ("_target")), tgt);

  g_autoptr (JsonNode) out = ab_schema_to_json (s);
  g_autofree gchar *text = mt_text (out);
  ck_assert_ptr_null (strstr (text, "_source"));
  ck_assert_ptr_null (strstr (text, "_target"));
  ck_assert_uint_eq (json_array_get_length (json_node_get_array (mt_get (out, "properties"))), 1);
  ck_assert_str_eq (mt_get_string (out, "id.type"), "string");

  /* finishing again (copy, re-parse) never duplicates them */
  g_autoptr (AbSchema) copy = ab_schema_copy (s);
  ck_assert (ab_schema_finish (copy, NULL));
  ck_assert_uint_eq (copy->fields->len, 3);
}
END_TEST

START_TEST (test_vertex_defaults)
{
  g_autoptr (AbTableDesc) t = create_table (roundtrip_bodies[3]);
  ck_assert_int_eq (t->schema->direction, AB_DIRTYPE_OUT);
  ck_assert_int_eq (t->schema->id_type, AB_TYPE_LONG);
  ck_assert_int_eq (t->schema->source_type, AB_TYPE_LONG);
  ck_assert_int_eq (t->mode, AB_MODE_DENY);
  g_autoptr (JsonNode) out = ab_schema_to_json (t->schema);
  ck_assert_ptr_null (mt_get (out, "source"));
  ck_assert_str_eq (mt_get_string (out, "id.comment"), "uid");
}
END_TEST

START_TEST (test_enum_names)
{
  AbTableKind k;
  AbMutationMode m;
  AbDirectionType d;
  const gchar *edge_names[] = { "EDGE", "edge", "Edge" };
  for (guint i = 0; i < G_N_ELEMENTS (edge_names); i++)
    {
      ck_assert (ab_table_kind_parse (edge_names[i], &k));
      ck_assert_int_eq (k, AB_TABLE_EDGE);
    }
  ck_assert (ab_table_kind_parse ("MULTI_EDGE", &k) && k == AB_TABLE_MULTI_EDGE);
  ck_assert (ab_table_kind_parse ("multiEdge", &k) && k == AB_TABLE_MULTI_EDGE);
  ck_assert (ab_table_kind_parse ("IMMUTABLE_EDGE", &k) && k == AB_TABLE_IMMUTABLE_EDGE);
  ck_assert (ab_table_kind_parse ("vertex", &k) && k == AB_TABLE_VERTEX);
  ck_assert (!ab_table_kind_parse ("HASH", &k));
  ck_assert_str_eq (ab_table_kind_name (AB_TABLE_MULTI_EDGE), "multiEdge");
  ck_assert_str_eq (ab_table_kind_request_name (AB_TABLE_MULTI_EDGE), "MULTI_EDGE");
  ck_assert (ab_mode_parse ("IGNORE", &m) && m == AB_MODE_DROP);
  ck_assert (ab_mode_parse ("deny", &m) && m == AB_MODE_DENY);
  ck_assert (!ab_mode_parse ("LATER", &m));
  ck_assert_str_eq (ab_mode_name (AB_MODE_DROP), "DROP");
  ck_assert_str_eq (ab_mode_v2_name (AB_MODE_DROP), "IGNORE");
  ck_assert (ab_dirtype_parse ("in", &d) && d == AB_DIRTYPE_IN);
  ck_assert (!ab_dirtype_parse ("SIDEWAYS", &d));
  ck_assert_str_eq (ab_dirtype_name (AB_DIRTYPE_BOTH), "BOTH");
  /* a value past a table names nothing, and reads nothing out of bounds */
  ck_assert_str_eq (ab_table_kind_name ((AbTableKind) 99), "UNKNOWN");
  ck_assert_str_eq (ab_table_kind_request_name ((AbTableKind) -1), "UNKNOWN");
  ck_assert_str_eq (ab_mode_name ((AbMutationMode) (AB_MODE_DENY + 1)), "UNKNOWN");
  ck_assert_str_eq (ab_mode_v2_name ((AbMutationMode) 99), "UNKNOWN");
  ck_assert_str_eq (ab_dirtype_name ((AbDirectionType) 99), "UNKNOWN");
  ck_assert_str_eq (ab_type_name ((AbType) (AB_TYPE_OBJECT + 1)), "UNKNOWN");
  ck_assert_str_eq (ab_type_v2_name ((AbType) -1), "UNKNOWN");
}
END_TEST

START_TEST (test_lookups)
{
  g_autoptr (AbTableDesc) t = create_table (roundtrip_bodies[0]);
  AbSchema *s = t->schema;
  ck_assert_int_eq (ab_schema_field_pos (s, "weight"), 1);
  ck_assert_int_eq (ab_schema_field_pos (s, "nope"), -1);
  ck_assert_ptr_null (ab_schema_field (s, "nope"));
  ck_assert_str_eq (ab_schema_field (s, "meta")->name, "meta");
  ck_assert_int_eq (ab_schema_field (s, "meta")->type, AB_TYPE_OBJECT);
  ck_assert_ptr_null (ab_schema_field_by_code (s, ab_codec_code ("nope")));
  ck_assert_ptr_null (ab_schema_index (s, "nope"));
  ck_assert_int_eq (ab_schema_index_field_kind (s, "created_at"), AB_INDEX_FIELD_PROPERTY);
  ck_assert_int_eq (ab_schema_index_field_kind (s, "version"), AB_INDEX_FIELD_VERSION);
  ck_assert_int_eq (ab_schema_index_field_kind (s, "source"), AB_INDEX_FIELD_SOURCE);
  ck_assert_int_eq (ab_schema_index_field_kind (s, "target"), AB_INDEX_FIELD_TARGET);
  ck_assert_int_eq (ab_schema_index_field_kind (s, "ts"), AB_INDEX_FIELD_VERSION);
  ck_assert_int_eq (ab_schema_index_field_kind (s, "tgt"), AB_INDEX_FIELD_TARGET);
  ck_assert_int_eq (ab_schema_index_field_kind (s, "nope"), AB_INDEX_FIELD_UNKNOWN);
}
END_TEST

/* docs/rest-api.md §1.2: create body and the response example. */
START_TEST (test_docs_database_example)
{
  g_autoptr (JsonNode) body = mt_json ("{\"database\":\"mydb\",\"comment\":\"My database\"}");
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_from_create_request (NULL, body, NULL);
  ck_assert_ptr_nonnull (d);
  ck_assert_str_eq (d->database, "mydb");
  ck_assert_str_eq (d->tenant, "default");
  ck_assert (d->active);

  static const gchar *response
      = "{\"tenant\":\"default\",\"database\":\"mydb\",\"active\":true,\"comment\":\"My database\","
        "\"revision\":1,\"createdAt\":1700000000000,\"createdBy\":\"admin\",\"updatedAt\":"
        "1700000000000,"
        "\"updatedBy\":\"admin\"}";
  g_autoptr (JsonNode) rnode = mt_json (response);
  g_autoptr (AbDatabaseDesc) r = ab_database_desc_from_json (rnode, NULL);
  ck_assert_ptr_nonnull (r);
  g_autoptr (JsonNode) out = ab_database_desc_to_json (r);
  g_autofree gchar *text = mt_text (out);
  ck_assert_str_eq (text, response);
}
END_TEST

START_TEST (test_alias_descriptor)
{
  g_autoptr (JsonNode) body = mt_json ("{\"alias\":\"fav\",\"table\":\"likes\",\"comment\":\"c\"}");
  g_autoptr (AbAliasDesc) a = ab_alias_desc_from_create_request ("mydb", NULL, body, NULL);
  ck_assert_ptr_nonnull (a);
  g_autoptr (JsonNode) out = ab_alias_desc_to_json (a);
  ck_assert_str_eq (mt_get_string (out, "database"), "mydb");
  ck_assert_str_eq (mt_get_string (out, "alias"), "fav");
  ck_assert_str_eq (mt_get_string (out, "table"), "likes");
  g_autoptr (AbAliasDesc) back = ab_alias_desc_from_json (out, NULL);
  ck_assert_ptr_nonnull (back);
  ck_assert_str_eq (back->table, "likes");

  g_autoptr (JsonNode) pbody = mt_json ("{\"table\":\"likes\",\"comment\":\"c\"}");
  g_autoptr (AbAliasDesc) p = ab_alias_desc_from_create_request ("mydb", "fav2", pbody, NULL);
  ck_assert_ptr_nonnull (p);
  ck_assert_str_eq (p->alias, "fav2");
}
END_TEST

START_TEST (test_copy_is_deep)
{
  g_autoptr (AbTableDesc) t = create_table (roundtrip_bodies[0]);
  g_autoptr (AbTableDesc) c = ab_table_desc_copy (t);
  g_free (c->comment);
  c->comment = g_strdup ("changed");
  ab_field_free (g_ptr_array_steal_index (c->schema->fields, 0));
  ck_assert_str_eq (t->comment, "likes");
  ck_assert_uint_eq (t->schema->fields->len, 3);
  AbTableDesc *r = ab_table_desc_ref (t);
  ck_assert_ptr_eq (r, t);
  ab_table_desc_unref (r);
  ck_assert_str_eq (t->table, "likes");
}
END_TEST

/* ---- update rule --------------------------------------------------------- */

static AbSchema *
schema_with_props (const gchar *props, const gchar *source, const gchar *direction)
{
  g_autofree gchar *text = g_strdup_printf (
      "{\"type\":\"EDGE\",\"source\":{\"type\":\"%s\"},\"target\":{\"type\":\"string\"},"
      "\"properties\":[%s],\"direction\":\"%s\"}",
      source, props, direction);
  g_autoptr (JsonNode) node = mt_json (text);
  g_autoptr (GError) error = NULL;
  AbSchema *s = ab_schema_from_json (node, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "");
  return s;
}

#define P_A "{\"name\":\"a\",\"type\":\"long\",\"nullable\":false}"
#define P_A_INT "{\"name\":\"a\",\"type\":\"int\",\"nullable\":false}"
#define P_A_NULL "{\"name\":\"a\",\"type\":\"long\",\"nullable\":true}"
#define P_B "{\"name\":\"b\",\"type\":\"string\",\"nullable\":true}"
#define P_B_STRICT "{\"name\":\"b\",\"type\":\"string\",\"nullable\":false}"
#define P_C_NULL "{\"name\":\"c\",\"type\":\"double\",\"nullable\":true}"
#define P_C_STRICT "{\"name\":\"c\",\"type\":\"double\",\"nullable\":false}"

typedef struct {
  const gchar *props, *source, *direction;
  const gchar *phrase; /* NULL: accepted */
} UpdateCase;

static const UpdateCase update_cases[] = {
  { P_A "," P_B, "string", "OUT", NULL },              /* unchanged */
  { P_A "," P_B "," P_C_NULL, "string", "OUT", NULL }, /* add nullable */
  { P_A_NULL "," P_B, "string", "OUT", NULL },         /* relax to nullable */
  { P_B "," P_A, "string", "OUT", NULL },              /* order is free */
  { P_A "," P_B "," P_C_STRICT, "string", "OUT",
    "Only optional fields can be added: new property 'c'" },
  { P_A, "string", "OUT", "cannot remove property 'b'" },
  { P_A_INT "," P_B, "string", "OUT", "type of property 'a' (long -> int)" },
  { P_A "," P_B_STRICT, "string", "OUT", "property 'b' (nullable -> non-nullable)" },
  { P_A "," P_B, "long", "OUT", "source type (string -> long)" },
  { P_A "," P_B, "string", "BOTH", "direction (OUT -> BOTH)" },
};

START_TEST (test_update_rule)
{
  const UpdateCase *c = &update_cases[_i];
  g_autoptr (AbSchema) old = schema_with_props (P_A "," P_B, "string", "OUT");
  g_autoptr (AbSchema) neu = schema_with_props (c->props, c->source, c->direction);
  g_autoptr (GError) error = NULL;
  gboolean ok = ab_schema_check_update (old, neu, &error);
  if (c->phrase == NULL)
    ck_assert_msg (ok, "rejected: %s", error ? error->message : "");
  else
    {
      ck_assert (!ok);
      MT_ASSERT_ERROR (error, c->phrase);
    }
}
END_TEST

START_TEST (test_update_kind_change)
{
  g_autoptr (AbSchema) old = schema_with_props (P_A, "string", "OUT");
  g_autoptr (AbSchema) neu = ab_schema_copy (old);
  neu->kind = AB_TABLE_IMMUTABLE_EDGE;
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_schema_check_update (old, neu, &error));
  MT_ASSERT_ERROR (error, "table type (edge -> immutableEdge)");
}
END_TEST

START_TEST (test_table_update_request)
{
  g_autoptr (AbTableDesc) t = create_table (roundtrip_bodies[0]);
  g_autoptr (JsonNode) b1 = mt_json ("{\"comment\":\"new\",\"active\":false}");
  g_autoptr (AbTableDesc) u1 = ab_table_desc_apply_update (t, b1, NULL);
  ck_assert_ptr_nonnull (u1);
  ck_assert_str_eq (u1->comment, "new");
  ck_assert (!u1->active);
  ck_assert_int_eq (u1->mode, AB_MODE_ASYNC); /* absent mode: unchanged */
  ck_assert_uint_eq (u1->schema->indexes->len, 1);
  ck_assert_str_eq (t->comment, "likes"); /* old untouched */

  g_autoptr (JsonNode) b2 = mt_json ("{\"mode\":\"IGNORE\"}");
  g_autoptr (AbTableDesc) u2 = ab_table_desc_apply_update (t, b2, NULL);
  ck_assert_int_eq (u2->mode, AB_MODE_DROP);

  g_autoptr (JsonNode) b3 = mt_json ("{\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\"}"
                                     ",\"target\":{\"type\":\"string\"},"
                                     "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\","
                                     "\"nullable\":false}],\"direction\":\"BOTH\"}}");
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (ab_table_desc_apply_update (t, b3, &error));
  MT_ASSERT_ERROR (error, "cannot remove property 'weight'");
}
END_TEST

START_TEST (test_database_alias_update_request)
{
  g_autoptr (JsonNode) body = mt_json ("{\"database\":\"mydb\",\"comment\":\"c\"}");
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_from_create_request (NULL, body, NULL);
  g_autoptr (JsonNode) upd = mt_json ("{\"active\":false}");
  g_autoptr (AbDatabaseDesc) d2 = ab_database_desc_apply_update (d, upd, NULL);
  ck_assert (!d2->active);
  ck_assert_str_eq (d2->comment, "c");

  g_autoptr (JsonNode) abody
      = mt_json ("{\"alias\":\"fav\",\"table\":\"likes\",\"comment\":\"c\"}");
  g_autoptr (AbAliasDesc) a = ab_alias_desc_from_create_request ("mydb", NULL, abody, NULL);
  g_autoptr (JsonNode) aupd = mt_json ("{\"table\":\"likes2\"}");
  g_autoptr (AbAliasDesc) a2 = ab_alias_desc_apply_update (a, aupd, NULL);
  ck_assert_str_eq (a2->table, "likes2");
  ck_assert (a2->active);
}
END_TEST

static Suite *
schema_suite (void)
{
  Suite *s = suite_create ("model-schema");
  TCase *tc = tcase_create ("schema");
  tcase_add_test (tc, test_docs_table_example);
  tcase_add_test (tc, test_docs_index_example);
  tcase_add_test (tc, test_index_comment_default);
  tcase_add_loop_test (tc, test_roundtrip, 0, G_N_ELEMENTS (roundtrip_bodies));
  tcase_add_test (tc, test_groups_caches_kept);
  tcase_add_test (tc, test_multi_edge_system_fields);
  tcase_add_test (tc, test_vertex_defaults);
  tcase_add_test (tc, test_enum_names);
  tcase_add_test (tc, test_lookups);
  tcase_add_test (tc, test_docs_database_example);
  tcase_add_test (tc, test_alias_descriptor);
  tcase_add_test (tc, test_copy_is_deep);
  tcase_add_loop_test (tc, test_update_rule, 0, G_N_ELEMENTS (update_cases));
  tcase_add_test (tc, test_update_kind_change);
  tcase_add_test (tc, test_table_update_request);
  tcase_add_test (tc, test_database_alias_update_request);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return mt_run (schema_suite ());
}
