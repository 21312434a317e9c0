/* The validation rules of docs/rest-api.md §1.5 with the project's choices (§10): one
 * rejecting case per rule, each asserting the message that names the rule,
 * plus the accepting edges of the name, storage and comment patterns. */
#include "model_helpers.h"

/* ---- names, storage, comments -------------------------------------------- */

typedef struct {
  const gchar *value;
  gboolean ok;
} PatternCase;

static const PatternCase name_cases[] = {
  { "a", TRUE },
  { "likes", TRUE },
  { "user_likes-v2", TRUE },
  { "Follows9", TRUE },
  { "A123456789012345678901234567890123456789012345678901234567890123", TRUE },   /* 64 */
  { "A1234567890123456789012345678901234567890123456789012345678901234", FALSE }, /* 65 */
  { "1likes", FALSE },
  { "_likes", FALSE },
  { "-likes", FALSE },
  { "li kes", FALSE },
  { "likes.v2", FALSE },
  { "lik\xc3\xa9s", FALSE },
  { "likes/", FALSE },
};

START_TEST (test_name_pattern)
{
  const PatternCase *c = &name_cases[_i];
  g_autoptr (GError) error = NULL;
  gboolean ok = ab_model_validate_name ("table", c->value, &error);
  ck_assert_msg (ok == c->ok, "'%s'", c->value);
  if (!ok)
    MT_ASSERT_ERROR (error, "Invalid table name '");
}
END_TEST

START_TEST (test_name_missing)
{
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_model_validate_name ("database", "", &error));
  MT_ASSERT_ERROR (error, "Missing database name");
  g_clear_error (&error);
  ck_assert (!ab_model_validate_name ("alias", NULL, &error));
  MT_ASSERT_ERROR (error, "Missing alias name");
}
END_TEST

START_TEST (test_name_message_wording)
{
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_model_validate_name ("alias", "9x", &error));
  MT_ASSERT_ERROR (error, "Invalid alias name '9x': must start with a letter, contain only "
                          "alphanumeric/underscore/hyphen, max 64 chars");
}
END_TEST

static const PatternCase storage_cases[] = {
  { "datastore://likes/likes", TRUE },   { "datastore://hbase/follows_table", TRUE },
  { "datastore://my_ns/Table_9", TRUE }, { "datastore://_/X", TRUE },
  { "datastore://Likes/likes", FALSE }, /* namespace is lower-case */
  { "datastore://ns9/likes", FALSE },    { "datastore://ns/li-kes", FALSE },
  { "datastore://ns/", FALSE },          { "datastore:///likes", FALSE },
  { "datastore://ns/a/b", FALSE },       { "datastore://ns", FALSE },
  { "hbase://ns/likes", FALSE },         { "likes", FALSE },
  { "datastore://ns/likes ", FALSE },
};

START_TEST (test_storage_pattern)
{
  const PatternCase *c = &storage_cases[_i];
  g_autoptr (GError) error = NULL;
  gboolean ok = ab_model_validate_storage (c->value, &error);
  ck_assert_msg (ok == c->ok, "'%s'", c->value);
  if (!ok)
    MT_ASSERT_ERROR (error, "Invalid storage URI");
}
END_TEST

START_TEST (test_comment_length)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *c1000 = g_strnfill (1000, 'c');
  g_autofree gchar *c1001 = g_strnfill (1001, 'c');
  ck_assert (ab_model_validate_comment (c1000, NULL));
  ck_assert (ab_model_validate_comment ("", NULL));
  ck_assert (!ab_model_validate_comment (c1001, &error));
  MT_ASSERT_ERROR (error, "Comment is too long: 1001 characters, at most 1000");

  /* characters, not bytes: 1000 two-byte characters are fine */
  GString *wide = g_string_new (NULL);
  for (guint k = 0; k < 1000; k++)
    g_string_append (wide, "\xc3\xa9");
  ck_assert (ab_model_validate_comment (wide->str, NULL));
  g_string_free (wide, TRUE);
}
END_TEST

/* ---- create request ------------------------------------------------------ */

#define SCHEMA_OK                                                                         \
  "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"}," \
  "\"properties\":[{\"name\":\"created_at\",\"type\":\"long\",\"nullable\":false}],"      \
  "\"direction\":\"BOTH\"}"

typedef struct {
  const gchar *body;
  const gchar *phrase;
} RejectCase;

static const RejectCase request_cases[] = {
  { "{\"schema\":" SCHEMA_OK ",\"storage\":\"datastore://a/b\",\"comment\":\"\"}",
    "Missing required field 'table'" },
  { "{\"table\":\"t\",\"storage\":\"datastore://a/b\",\"comment\":\"\"}",
    "Missing required field 'schema'" },
  { "{\"table\":\"t\",\"schema\":" SCHEMA_OK ",\"comment\":\"\"}",
    "Missing required field 'storage'" },
  { "{\"table\":\"t\",\"schema\":" SCHEMA_OK ",\"storage\":\"datastore://a/b\"}",
    "Missing required field 'comment'" },
  { "{\"table\":\"t\",\"schema\":" SCHEMA_OK ",\"storage\":\"datastore://a/b\",\"comment\":null}",
    "Missing required field 'comment'" },
  { "{\"table\":\"9t\",\"schema\":" SCHEMA_OK ",\"storage\":\"datastore://a/b\",\"comment\":\"\"}",
    "Invalid table name '9t'" },
  { "{\"table\":\"t\",\"schema\":" SCHEMA_OK ",\"storage\":\"s3://a/b\",\"comment\":\"\"}",
    "Invalid storage URI 's3://a/b'" },
  { "{\"table\":\"t\",\"schema\":" SCHEMA_OK ",\"storage\":\"datastore://a/b\",\"comment\":\"\","
    "\"mode\":\"LATER\"}",
    "Unknown mode 'LATER' at 'mode'" },
  { "{\"table\":7,\"schema\":" SCHEMA_OK ",\"storage\":\"datastore://a/b\",\"comment\":\"\"}",
    "Field 'table' must be a string" },
  { "[1]", "The request body must be a JSON object" },
};

START_TEST (test_create_request_rejects)
{
  const RejectCase *c = &request_cases[_i];
  g_autoptr (JsonNode) body = mt_json (c->body);
  g_autoptr (GError) error = NULL;
  AbTableDesc *t = ab_table_desc_from_create_request ("db", NULL, body, &error);
  ck_assert_msg (t == NULL, "accepted: %s", c->body);
  MT_ASSERT_ERROR (error, c->phrase);
}
END_TEST

START_TEST (test_create_request_path_name)
{
  g_autoptr (JsonNode) body
      = mt_json ("{\"schema\":" SCHEMA_OK ",\"storage\":\"datastore://a/b\",\"comment\":\"\"}");
  g_autoptr (AbTableDesc) t = ab_table_desc_from_create_request ("db", "t", body, NULL);
  ck_assert_ptr_nonnull (t);
  ck_assert_str_eq (t->table, "t");

  g_autoptr (JsonNode) body2 = mt_json ("{\"table\":\"other\",\"schema\":" SCHEMA_OK
                                        ",\"storage\":\"datastore://a/b\",\"comment\":\"\"}");
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (ab_table_desc_from_create_request ("db", "t", body2, &error));
  MT_ASSERT_ERROR (error,
                   "The table name in the body ('other') differs from the one in the path ('t')");
}
END_TEST

START_TEST (test_database_alias_requests_reject)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) b1 = mt_json ("{\"database\":\"mydb\"}");
  ck_assert_ptr_null (ab_database_desc_from_create_request (NULL, b1, &error));
  MT_ASSERT_ERROR (error, "Missing required field 'comment'");
  g_clear_error (&error);
  g_autoptr (JsonNode) b2 = mt_json ("{\"comment\":\"x\"}");
  ck_assert_ptr_null (ab_database_desc_from_create_request (NULL, b2, &error));
  MT_ASSERT_ERROR (error, "Missing required field 'database'");
  g_clear_error (&error);
  g_autoptr (JsonNode) b3 = mt_json ("{\"alias\":\"a\",\"comment\":\"x\"}");
  ck_assert_ptr_null (ab_alias_desc_from_create_request ("db", NULL, b3, &error));
  MT_ASSERT_ERROR (error, "Missing required field 'table'");
  g_clear_error (&error);
  g_autoptr (JsonNode) b4 = mt_json ("{\"alias\":\"a b\",\"table\":\"t\",\"comment\":\"x\"}");
  ck_assert_ptr_null (ab_alias_desc_from_create_request ("db", NULL, b4, &error));
  MT_ASSERT_ERROR (error, "Invalid alias name 'a b'");
}
END_TEST

/* ---- schema rules -------------------------------------------------------- */

static const RejectCase schema_cases[] = {
  /* index fields must exist */
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\",\"indexes\":[{\"index\":\"i\",\"fields\":[{\"field\":\"nope\",\"order\":"
    "\"ASC\"}]}]}",
    "Index 'i' refers to unknown field 'nope'" },
  /* immutable: at most one index */
  { "{\"type\":\"IMMUTABLE_EDGE\",\"source\":{\"type\":\"long\"},\"target\":{\"type\":\"string\"},"
    "\"properties\":[{\"name\":\"seq\",\"type\":\"long\",\"nullable\":false}],\"direction\":"
    "\"OUT\","
    "\"indexes\":[{\"index\":\"a\",\"fields\":[{\"field\":\"seq\",\"order\":\"ASC\"}]},"
    "{\"index\":\"b\",\"fields\":[{\"field\":\"seq\",\"order\":\"DESC\"}]}]}",
    "An immutable edge table may have at most one index, found 2" },
  /* immutable: OUT or IN */
  { "{\"type\":\"IMMUTABLE_EDGE\",\"source\":{\"type\":\"long\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"BOTH\"}",
    "An immutable edge table must have direction OUT or IN, not BOTH" },
  /* vertex: OUT only */
  { "{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\"},\"direction\":\"BOTH\"}",
    "A vertex table must have direction OUT, not BOTH" },
  /* vertex: no indexes */
  { "{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\"},\"indexes\":[{\"index\":\"i\",\"fields\":[]}]"
    "}",
    "A vertex table cannot have indexes" },
  { "{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\"},\"groups\":[{\"group\":\"g\"}]}",
    "A vertex table cannot have groups" },
  { "{\"type\":\"VERTEX\",\"id\":{\"type\":\"long\"},\"caches\":[{\"cache\":\"c\"}]}",
    "A vertex table cannot have caches" },
  /* unique property names */
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\","
    "\"properties\":[{\"name\":\"a\",\"type\":\"long\"},{\"name\":\"a\",\"type\":\"string\"}]}",
    "Duplicate property name 'a'" },
  /* reserved prefix */
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\","
    "\"properties\":[{\"name\":\"_source\",\"type\":\"long\"}]}",
    "Property name '_source' is reserved" },
  { "{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"string\"},\"source\":{\"type\":\"string\"},"
    "\"target\":{\"type\":\"string\"},\"direction\":\"OUT\",\"properties\":[{\"name\":\"_x\","
    "\"type\":\"long\"}]}",
    "Property name '_x' is reserved" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\","
    "\"properties\":[{\"name\":\"\",\"type\":\"long\"}]}",
    "Property names must not be empty" },
  /* scalar source / target / id */
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"object\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\"}",
    "The source type must be a scalar type, not object" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"object\"},"
    "\"direction\":\"OUT\"}",
    "The target type must be a scalar type, not object" },
  { "{\"type\":\"MULTI_EDGE\",\"id\":{\"type\":\"object\"},\"source\":{\"type\":\"string\"},"
    "\"target\":{\"type\":\"string\"},\"direction\":\"OUT\"}",
    "The id type must be a scalar type, not object" },
  /* unique index names */
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\","
    "\"indexes\":[{\"index\":\"i\",\"fields\":[]},{\"index\":\"i\",\"fields\":[]}]}",
    "Duplicate index name 'i'" },
  /* required members and enum values */
  { "{\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},\"direction\":\"OUT\"}",
    "Missing required field 'schema.type'" },
  { "{\"type\":\"HASH\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\"}",
    "Unknown schema type 'HASH' at 'schema.type'" },
  { "{\"type\":\"EDGE\",\"target\":{\"type\":\"string\"},\"direction\":\"OUT\"}",
    "Missing required field 'schema.source'" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"text\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\"}",
    "Unknown type 'text' at 'schema.source.type'" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"}}",
    "Missing required field 'schema.direction'" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"UP\"}",
    "Unknown direction 'UP' at 'schema.direction'" },
  { "{\"type\":\"MULTI_EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\"}",
    "Missing required field 'schema.id'" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\","
    "\"properties\":[{\"name\":\"a\"}]}",
    "Missing required field 'schema.properties[0].type'" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\","
    "\"indexes\":[{\"index\":\"i\",\"fields\":[{\"field\":\"version\",\"order\":\"UP\"}]}]}",
    "Unknown order 'UP' at 'schema.indexes[0].fields[0].order'" },
  { "{\"type\":\"EDGE\",\"source\":{\"type\":\"string\"},\"target\":{\"type\":\"string\"},"
    "\"direction\":\"OUT\","
    "\"groups\":{}}",
    "Field 'schema.groups' must be an array" },
};

START_TEST (test_schema_rejects)
{
  const RejectCase *c = &schema_cases[_i];
  g_autoptr (JsonNode) node = mt_json (c->body);
  g_autoptr (GError) error = NULL;
  AbSchema *s = ab_schema_from_json (node, &error);
  ck_assert_msg (s == NULL, "accepted: %s", c->body);
  MT_ASSERT_ERROR (error, c->phrase);
}
END_TEST

/* Index fields may name the system fields, v3 or v2 spelling. */
START_TEST (test_index_system_fields)
{
  g_autoptr (JsonNode) node = mt_json (
      "{\"type\":\"IMMUTABLE_EDGE\",\"source\":{\"type\":\"long\"},\"target\":{\"type\":\"string\"}"
      ","
      "\"direction\":\"IN\",\"indexes\":[{\"index\":\"i\",\"fields\":["
      "{\"field\":\"version\",\"order\":\"DESC\"},{\"field\":\"ts\",\"order\":\"ASC\"},"
      "{\"field\":\"src\"},{\"field\":\"tgt\"},{\"field\":\"source\"},{\"field\":\"target\"}]}]}");
  g_autoptr (GError) error = NULL;
  g_autoptr (AbSchema) s = ab_schema_from_json (node, &error);
  ck_assert_msg (s != NULL, "%s", error ? error->message : "");
  const AbIndex *idx = ab_schema_index (s, "i");
  static const gchar *expect[] = { "version", "version", "source", "target", "source", "target" };
  ck_assert_uint_eq (idx->n_fields, 6);
  for (guint k = 0; k < 6; k++)
    ck_assert_str_eq (idx->fields[k].field, expect[k]);
  ck_assert_int_eq (idx->fields[2].order, AB_ORDER_ASC); /* order defaults ASC */
}
END_TEST

/* A system name wins over a property of the same name (as in the engine's
 * ranges and filters). */
START_TEST (test_index_system_name_wins)
{
  g_autoptr (JsonNode) node = mt_json (
      "{\"type\":\"EDGE\",\"source\":{\"type\":\"long\"},\"target\":{\"type\":\"string\"},"
      "\"properties\":[{\"name\":\"ts\",\"type\":\"long\",\"nullable\":true}],"
      "\"direction\":\"OUT\",\"indexes\":[{\"index\":\"i\",\"fields\":[{\"field\":\"ts\",\"order\":"
      "\"ASC\"}]}]}");
  g_autoptr (AbSchema) s = ab_schema_from_json (node, NULL);
  ck_assert_ptr_nonnull (s);
  ck_assert_str_eq (ab_schema_index (s, "i")->fields[0].field, "version");
  ck_assert_int_eq (ab_schema_index_field_kind (s, "ts"), AB_INDEX_FIELD_VERSION);
}
END_TEST

/* A schema built by hand (the catalog's queue table) goes through the same
 * rules. */
START_TEST (test_finish_by_hand)
{
  g_autoptr (AbSchema) s = ab_schema_new ();
  s->kind = AB_TABLE_IMMUTABLE_EDGE;
  s->source_type = AB_TYPE_LONG;
  s->direction = AB_DIRTYPE_OUT;
  g_ptr_array_add (s->fields, ab_field_new ("seq", AB_TYPE_LONG, FALSE, NULL));
  g_ptr_array_add (s->fields, ab_field_new ("value", AB_TYPE_STRING, TRUE, NULL));
  AbIndex *idx = ab_index_new ("seq", NULL);
  ab_index_add_field (idx, "seq", AB_ORDER_ASC);
  g_ptr_array_add (s->indexes, idx);
  ck_assert (ab_schema_finish (s, NULL));
  ck_assert_str_eq (((AbField *) s->fields->pdata[1])->comment, "");

  s->direction = AB_DIRTYPE_BOTH;
  g_autoptr (GError) error = NULL;
  ck_assert (!ab_schema_finish (s, &error));
  MT_ASSERT_ERROR (error, "must have direction OUT or IN");
}
END_TEST

static Suite *
validate_suite (void)
{
  Suite *s = suite_create ("model-validate");
  TCase *tc = tcase_create ("validate");
  tcase_add_loop_test (tc, test_name_pattern, 0, G_N_ELEMENTS (name_cases));
  tcase_add_test (tc, test_name_missing);
  tcase_add_test (tc, test_name_message_wording);
  tcase_add_loop_test (tc, test_storage_pattern, 0, G_N_ELEMENTS (storage_cases));
  tcase_add_test (tc, test_comment_length);
  tcase_add_loop_test (tc, test_create_request_rejects, 0, G_N_ELEMENTS (request_cases));
  tcase_add_test (tc, test_create_request_path_name);
  tcase_add_test (tc, test_database_alias_requests_reject);
  tcase_add_loop_test (tc, test_schema_rejects, 0, G_N_ELEMENTS (schema_cases));
  tcase_add_test (tc, test_index_system_fields);
  tcase_add_test (tc, test_index_system_name_wins);
  tcase_add_test (tc, test_finish_by_hand);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return mt_run (validate_suite ());
}
