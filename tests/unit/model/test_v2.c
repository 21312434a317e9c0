/* The v2 label, service and alias forms (docs/rest-api.md §2, §8, Appendix A): the
 * quick-start and likes-preset bodies parse, the entity has every member the
 * upstream CLI reads with no null desc, and the v2-specific rules. */
#include "codec/keys.h"
#include "model_helpers.h"

/* docs/rest-api.md §2 quick start, verbatim. */
static const gchar *quick_start_label
    = "{\"desc\":\"Like\",\"type\":\"INDEXED\",\n"
      " \"schema\":{\"src\":{\"type\":\"STRING\"},\"tgt\":{\"type\":\"STRING\"},\n"
      "           \"fields\":[{\"name\":\"created_at\",\"type\":\"LONG\",\"nullable\":false}]},\n"
      " \"dirType\":\"BOTH\",\"storage\":\"datastore://likes/likes\",\n"
      " \"indices\":[{\"name\":\"recent\",\"fields\":[{\"name\":\"created_at\",\"order\":\"DESC\"}]"
      "}]}";

/* Appendix A likes preset, in the body the CLI's create table sends (§8). */
static const gchar *likes_preset_label
    = "{\"desc\":\"likes table\",\"type\":\"INDEXED\","
      "\"schema\":{\"src\":{\"type\":\"STRING\",\"desc\":\"userId\"},"
      "\"tgt\":{\"type\":\"STRING\",\"desc\":\"targetId\"},"
      "\"fields\":[{\"name\":\"created_at\",\"type\":\"LONG\",\"nullable\":false,\"desc\":"
      "\"created at\"}]},"
      "\"dirType\":\"BOTH\",\"storage\":\"datastore://likes/likes\",\"groups\":[],"
      "\"indices\":[{\"name\":\"created_at_desc\",\"fields\":[{\"name\":\"created_at\",\"order\":"
      "\"DESC\"}],"
      "\"desc\":\"order by created_at\"}],\"event\":false,\"readOnly\":false,\"mode\":\"SYNC\"}";

static AbTableDesc *
label (const gchar *service, const gchar *name, const gchar *body_text)
{
  g_autoptr (JsonNode) body = mt_json (body_text);
  g_autoptr (GError) error = NULL;
  AbTableDesc *t = ab_table_desc_from_v2_label (service, name, body, &error);
  ck_assert_msg (t != NULL, "label rejected: %s", error ? error->message : "");
  return t;
}

START_TEST (test_quick_start_label)
{
  g_autoptr (AbTableDesc) t = label ("likes", "likes", quick_start_label);
  AbSchema *s = t->schema;
  ck_assert_str_eq (t->database, "likes");
  ck_assert_str_eq (t->table, "likes");
  ck_assert_str_eq (t->comment, "Like");
  ck_assert_int_eq (s->kind, AB_TABLE_EDGE);
  ck_assert_int_eq (s->source_type, AB_TYPE_STRING);
  ck_assert_int_eq (s->target_type, AB_TYPE_STRING);
  ck_assert_str_eq (s->source_comment, "");
  ck_assert_int_eq (s->direction, AB_DIRTYPE_BOTH);
  ck_assert_uint_eq (s->fields->len, 1);
  const AbField *f = s->fields->pdata[0];
  ck_assert_str_eq (f->name, "created_at");
  ck_assert_int_eq (f->type, AB_TYPE_LONG);
  ck_assert (!f->nullable);
  ck_assert_str_eq (f->comment, "");
  const AbIndex *idx = ab_schema_index (s, "recent");
  ck_assert_ptr_nonnull (idx);
  ck_assert_str_eq (idx->comment, "");
  ck_assert_str_eq (idx->fields[0].field, "created_at");
  ck_assert_int_eq (idx->fields[0].order, AB_ORDER_DESC);
  ck_assert_str_eq (t->storage, "datastore://likes/likes");
  ck_assert_int_eq (t->mode, AB_MODE_SYNC);
  ck_assert_int_eq (t->code, ab_codec_table_code ("likes", "likes"));
}
END_TEST

START_TEST (test_likes_preset_label)
{
  g_autoptr (AbTableDesc) t = label ("likes", "likes", likes_preset_label);
  ck_assert_str_eq (t->schema->source_comment, "userId");
  ck_assert_str_eq (t->schema->target_comment, "targetId");
  const AbIndex *idx = ab_schema_index (t->schema, "created_at_desc");
  ck_assert_str_eq (idx->comment, "order by created_at");

  g_autoptr (JsonNode) e = ab_table_desc_to_v2_label (t);
  ck_assert_str_eq (mt_get_string (e, "name"), "likes.likes");
  ck_assert_str_eq (mt_get_string (e, "desc"), "likes table");
  ck_assert_str_eq (mt_get_string (e, "type"), "INDEXED");
  ck_assert_str_eq (mt_get_string (e, "schema.src.type"), "STRING");
  ck_assert_str_eq (mt_get_string (e, "schema.src.desc"), "userId");
  ck_assert_str_eq (mt_get_string (e, "schema.fields.0.type"), "LONG");
  ck_assert_str_eq (mt_get_string (e, "schema.fields.0.desc"), "created at");
  ck_assert_str_eq (mt_get_string (e, "dirType"), "BOTH");
  ck_assert_str_eq (mt_get_string (e, "storage"), "datastore://likes/likes");
  ck_assert_str_eq (mt_get_string (e, "indices.0.name"), "created_at_desc");
  ck_assert_str_eq (mt_get_string (e, "indices.0.fields.0.name"), "created_at");
  ck_assert_str_eq (mt_get_string (e, "indices.0.fields.0.order"), "DESC");
  ck_assert_str_eq (mt_get_string (e, "indices.0.desc"), "order by created_at");
  ck_assert_str_eq (mt_get_string (e, "mode"), "SYNC");
  ck_assert (!json_node_get_boolean (mt_get (e, "event")));
  ck_assert (!json_node_get_boolean (mt_get (e, "readOnly")));
  ck_assert (json_node_get_boolean (mt_get (e, "active")));
}
END_TEST

/* Fails on any null value below a member named desc, name, type or
 * nullable, and on a missing one where §8 says the CLI reads it. */
static void
assert_no_null (JsonNode *node, const gchar *where)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      for (guint k = 0; k < json_array_get_length (a); k++)
        assert_no_null (json_array_get_element (a, k), where);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return;
  JsonObject *o = json_node_get_object (node);
  g_autoptr (GList) members = json_object_get_members (o);
  for (GList *l = members; l; l = l->next)
    {
      JsonNode *m = json_object_get_member (o, l->data);
      ck_assert_msg (!JSON_NODE_HOLDS_NULL (m), "null member '%s' in %s", (const gchar *) l->data,
                     where);
      assert_no_null (m, where);
    }
}

static const gchar *cli_members[] = {
  "active",
  "name",
  "desc",
  "type",
  "schema.src.type",
  "schema.src.desc",
  "schema.tgt.type",
  "schema.tgt.desc",
  "schema.fields",
  "dirType",
  "storage",
  "indices",
  "groups",
  "caches",
  "event",
  "readOnly",
  "mode",
};

START_TEST (test_entity_has_no_null_desc)
{
  /* quick start omits every optional desc */
  g_autoptr (AbTableDesc) t = label ("likes", "likes", quick_start_label);
  g_autoptr (JsonNode) e = ab_table_desc_to_v2_label (t);
  for (guint k = 0; k < G_N_ELEMENTS (cli_members); k++)
    ck_assert_msg (mt_get (e, cli_members[k]) != NULL, "missing %s", cli_members[k]);
  assert_no_null (e, "quick-start entity");
  ck_assert_str_eq (mt_get_string (e, "schema.src.desc"), "");
  ck_assert_str_eq (mt_get_string (e, "schema.fields.0.name"), "created_at");
  ck_assert_str_eq (mt_get_string (e, "schema.fields.0.desc"), "");
  ck_assert (!json_node_get_boolean (mt_get (e, "schema.fields.0.nullable")));
  ck_assert_str_eq (mt_get_string (e, "indices.0.desc"), "");
  ck_assert_str_eq (mt_get_string (e, "name"), "likes.likes");
}
END_TEST

/* A table made through v3 reads back as a v2 label with the same shape. */
START_TEST (test_v3_table_as_label)
{
  g_autoptr (JsonNode) body = mt_json (
      "{\"table\":\"follows\",\"schema\":{\"type\":\"EDGE\",\"source\":{\"type\":\"long\"},"
      "\"target\":{\"type\":\"long\"},\"direction\":\"OUT\",\"indexes\":[{\"index\":\"by_ts\","
      "\"fields\":[{\"field\":\"version\",\"order\":\"DESC\"}]}]},"
      "\"storage\":\"datastore://social/follows\",\"mode\":\"DROP\",\"comment\":\"f\"}");
  g_autoptr (AbTableDesc) t = ab_table_desc_from_create_request ("social", NULL, body, NULL);
  ck_assert_ptr_nonnull (t);
  g_autoptr (JsonNode) e = ab_table_desc_to_v2_label (t);
  assert_no_null (e, "v3 table entity");
  ck_assert_str_eq (mt_get_string (e, "name"), "social.follows");
  ck_assert_str_eq (mt_get_string (e, "schema.src.type"), "LONG");
  ck_assert_str_eq (mt_get_string (e, "mode"), "IGNORE");
  ck_assert_str_eq (mt_get_string (e, "indices.0.fields.0.name"), "ts");
}
END_TEST

START_TEST (test_multi_edge_label)
{
  g_autoptr (AbTableDesc) t = label (
      "shop", "orders",
      "{\"desc\":\"orders\",\"type\":\"MULTI_EDGE\",\"schema\":{\"src\":{\"type\":\"STRING\"},"
      "\"tgt\":{\"type\":\"STRING\"},\"fields\":[{\"name\":\"_id\",\"type\":\"LONG\",\"nullable\":"
      "false,"
      "\"desc\":\"order id\"},{\"name\":\"amount\",\"type\":\"DOUBLE\",\"nullable\":true}]},"
      "\"dirType\":\"BOTH\",\"storage\":\"datastore://shop/orders\",\"readOnly\":true}");
  AbSchema *s = t->schema;
  ck_assert_int_eq (s->kind, AB_TABLE_MULTI_EDGE);
  ck_assert_int_eq (s->id_type, AB_TYPE_LONG);
  ck_assert_str_eq (s->id_comment, "order id");
  ck_assert_ptr_null (ab_schema_field (s, "_id"));
  ck_assert_ptr_nonnull (ab_schema_field (s, "_source"));
  ck_assert_ptr_nonnull (ab_schema_field (s, "_target"));

  g_autoptr (JsonNode) e = ab_table_desc_to_v2_label (t);
  assert_no_null (e, "multi-edge entity");
  ck_assert_str_eq (mt_get_string (e, "type"), "MULTI_EDGE");
  ck_assert_str_eq (mt_get_string (e, "schema.fields.0.name"), "_id");
  ck_assert_str_eq (mt_get_string (e, "schema.fields.0.type"), "LONG");
  ck_assert_str_eq (mt_get_string (e, "schema.fields.1.name"), "amount");
  ck_assert_ptr_null (mt_get (e, "schema.fields.2"));
  ck_assert (json_node_get_boolean (mt_get (e, "readOnly")));
}
END_TEST

START_TEST (test_other_label_types)
{
  g_autoptr (AbTableDesc) hash = label ("s", "h",
                                        "{\"desc\":\"\",\"type\":\"HASH\",\"schema\":{\"src\":{"
                                        "\"type\":\"LONG\"},\"tgt\":{\"type\":\"LONG\"}},"
                                        "\"storage\":\"datastore://s/h\"}");
  ck_assert_int_eq (hash->schema->kind, AB_TABLE_EDGE);
  ck_assert_int_eq (hash->schema->direction, AB_DIRTYPE_OUT);

  g_autoptr (AbTableDesc) imm = label (
      "s", "q",
      "{\"desc\":\"\",\"type\":\"IMMUTABLE_INDEXED\",\"schema\":{\"src\":{\"type\":\"LONG\"},"
      "\"tgt\":{\"type\":\"STRING\"},\"fields\":[{\"name\":\"seq\",\"type\":\"LONG\"}]},"
      "\"dirType\":\"OUT\",\"storage\":\"datastore://s/q\",\"mode\":\"IGNORE\","
      "\"indices\":[{\"name\":\"seq\",\"fields\":[{\"name\":\"seq\",\"order\":\"ASC\"}]}]}");
  ck_assert_int_eq (imm->schema->kind, AB_TABLE_IMMUTABLE_EDGE);
  ck_assert_int_eq (imm->mode, AB_MODE_DROP);
  g_autoptr (JsonNode) e = ab_table_desc_to_v2_label (imm);
  ck_assert_str_eq (mt_get_string (e, "type"), "IMMUTABLE_INDEXED");

  g_autoptr (AbTableDesc) v = label (
      "s", "users",
      "{\"desc\":\"\",\"type\":\"VERTEX\",\"schema\":{\"src\":{\"type\":\"LONG\",\"desc\":\"uid\"},"
      "\"tgt\":{\"type\":\"STRING\"}},\"storage\":\"users_storage\"}");
  ck_assert_int_eq (v->schema->kind, AB_TABLE_VERTEX);
  ck_assert_int_eq (v->schema->id_type, AB_TYPE_LONG);
  ck_assert_int_eq (v->schema->direction, AB_DIRTYPE_OUT);
  ck_assert_str_eq (v->storage, "users_storage"); /* a storage name */
  g_autoptr (JsonNode) ve = ab_table_desc_to_v2_label (v);
  ck_assert_str_eq (mt_get_string (ve, "type"), "VERTEX");
  ck_assert_str_eq (mt_get_string (ve, "schema.src.desc"), "uid");
  /* tgt: the marker's string type, described as upstream does */
  ck_assert_str_eq (mt_get_string (ve, "schema.tgt.type"), "STRING");
  ck_assert_str_eq (mt_get_string (ve, "schema.tgt.desc"), "<vertex>");
  ck_assert_str_eq (mt_get_string (ve, "dirType"), "OUT");
}
END_TEST

typedef struct {
  const gchar *body;
  const gchar *phrase;
} RejectCase;

#define V2_SCHEMA "\"schema\":{\"src\":{\"type\":\"STRING\"},\"tgt\":{\"type\":\"STRING\"}}"

static const RejectCase reject_cases[] = {
  { "{\"type\":\"INDEXED\"," V2_SCHEMA ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "Missing required field 'desc'" },
  { "{\"desc\":\"\"," V2_SCHEMA ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "Missing required field 'type'" },
  { "{\"desc\":\"\",\"type\":\"NIL\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "Unknown label type 'NIL'" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "Missing required field 'schema'" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\",\"schema\":{\"tgt\":{\"type\":\"STRING\"}},"
    "\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "Missing required field 'schema.src'" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\"," V2_SCHEMA ",\"storage\":\"datastore://a/b\"}",
    "Missing required field 'dirType'" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\"," V2_SCHEMA ",\"dirType\":\"BOTH\"}",
    "Missing required field 'storage'" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://A/b\"}",
    "Invalid storage URI" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\"," V2_SCHEMA ",\"dirType\":\"BOTH\",\"storage\":\"9bad\"}",
    "Invalid storage name '9bad'" },
  { "{\"desc\":\"\",\"type\":\"HASH\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "A HASH label must have dirType OUT, not BOTH" },
  { "{\"desc\":\"\",\"type\":\"MULTI_EDGE\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "A MULTI_EDGE label needs a field named '_id'" },
  { "{\"desc\":\"\",\"type\":\"IMMUTABLE_INDEXED\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "An immutable edge table must have direction OUT or IN" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\","
    "\"indices\":[{\"name\":\"i\",\"fields\":[{\"name\":\"nope\",\"order\":\"ASC\"}]}]}",
    "Index 'i' refers to unknown field 'nope'" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\",\"schema\":{\"src\":{\"type\":\"JSON\"},\"tgt\":{\"type\":"
    "\"STRING\"}},"
    "\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\"}",
    "The source type must be a scalar type, not object" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\",\"schema\":{\"src\":{\"type\":\"STRING\"},\"tgt\":{"
    "\"type\":\"STRING\"},"
    "\"fields\":[{\"name\":\"_x\",\"type\":\"LONG\"}]},\"dirType\":\"BOTH\",\"storage\":"
    "\"datastore://a/b\"}",
    "Property name '_x' is reserved" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\","
    "\"mode\":\"LATER\"}",
    "Unknown mode 'LATER'" },
  { "{\"desc\":\"\",\"type\":\"INDEXED\"," V2_SCHEMA
    ",\"dirType\":\"BOTH\",\"storage\":\"datastore://a/b\","
    "\"event\":\"no\"}",
    "Field 'event' must be true or false" },
};

START_TEST (test_label_rejects)
{
  const RejectCase *c = &reject_cases[_i];
  g_autoptr (JsonNode) body = mt_json (c->body);
  g_autoptr (GError) error = NULL;
  AbTableDesc *t = ab_table_desc_from_v2_label ("s", "l", body, &error);
  ck_assert_msg (t == NULL, "accepted: %s", c->body);
  MT_ASSERT_ERROR (error, c->phrase);
}
END_TEST

START_TEST (test_label_name_rule)
{
  g_autoptr (JsonNode) body = mt_json (quick_start_label);
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (ab_table_desc_from_v2_label ("likes", "1likes", body, &error));
  MT_ASSERT_ERROR (error, "Invalid label name '1likes'");
}
END_TEST

START_TEST (test_service_form)
{
  g_autoptr (JsonNode) body = mt_json ("{\"desc\":\"Likes\"}");
  g_autoptr (AbDatabaseDesc) d = ab_database_desc_from_v2_service ("likes", body, NULL);
  ck_assert_ptr_nonnull (d);
  g_autoptr (JsonNode) e = ab_database_desc_to_v2_service (d);
  ck_assert_str_eq (mt_get_string (e, "name"), "likes");
  ck_assert_str_eq (mt_get_string (e, "desc"), "Likes");
  ck_assert (json_node_get_boolean (mt_get (e, "active")));

  g_autoptr (JsonNode) bad = mt_json ("{}");
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (ab_database_desc_from_v2_service ("likes", bad, &error));
  MT_ASSERT_ERROR (error, "Missing required field 'desc'");
}
END_TEST

START_TEST (test_alias_form)
{
  g_autoptr (JsonNode) body = mt_json ("{\"target\":\"likes.likes\",\"desc\":\"fav\"}");
  g_autoptr (AbAliasDesc) a = ab_alias_desc_from_v2_alias ("likes", "fav", body, NULL);
  ck_assert_ptr_nonnull (a);
  ck_assert_str_eq (a->table, "likes");
  g_autoptr (JsonNode) e = ab_alias_desc_to_v2_alias (a);
  ck_assert_str_eq (mt_get_string (e, "name"), "likes.fav");
  ck_assert_str_eq (mt_get_string (e, "target"), "likes.likes");
  ck_assert_str_eq (mt_get_string (e, "desc"), "fav");

  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) other = mt_json ("{\"target\":\"social.likes\",\"desc\":\"\"}");
  ck_assert_ptr_null (ab_alias_desc_from_v2_alias ("likes", "fav", other, &error));
  MT_ASSERT_ERROR (error, "must be of the form 'likes.<label>'");
  g_clear_error (&error);
  g_autoptr (JsonNode) nodot = mt_json ("{\"target\":\"likes\",\"desc\":\"\"}");
  ck_assert_ptr_null (ab_alias_desc_from_v2_alias ("likes", "fav", nodot, &error));
  MT_ASSERT_ERROR (error, "must be of the form");
}
END_TEST

static Suite *
v2_suite (void)
{
  Suite *s = suite_create ("model-v2");
  TCase *tc = tcase_create ("v2");
  tcase_add_test (tc, test_quick_start_label);
  tcase_add_test (tc, test_likes_preset_label);
  tcase_add_test (tc, test_entity_has_no_null_desc);
  tcase_add_test (tc, test_v3_table_as_label);
  tcase_add_test (tc, test_multi_edge_label);
  tcase_add_test (tc, test_other_label_types);
  tcase_add_loop_test (tc, test_label_rejects, 0, G_N_ELEMENTS (reject_cases));
  tcase_add_test (tc, test_label_name_rule);
  tcase_add_test (tc, test_service_form);
  tcase_add_test (tc, test_alias_form);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return mt_run (v2_suite ());
}
