/* Casting JSON values and query text to field types (docs/data-model.md §3.3 and
 * the project's casting decisions): good and bad values per type, integer
 * widths, NUL and invalid UTF-8 rejection, and the strict body parser. */
#include <math.h>
#include "model_helpers.h"

typedef struct {
  const gchar *json;
  AbType type;
  AbValueKind kind;
  gint64 i;
  gdouble f;
  const gchar *s; /* STRING / JSON kinds, or "true"/"false" for BOOL */
} GoodCase;

static const GoodCase good_cases[] = {
  /* integers from numbers, numeric strings and integral doubles */
  { "123", AB_TYPE_INT, AB_VALUE_INT32, 123, 0, NULL },
  { "\"123\"", AB_TYPE_INT, AB_VALUE_INT32, 123, 0, NULL },
  { "\"-42\"", AB_TYPE_LONG, AB_VALUE_INT64, -42, 0, NULL },
  { "5.0", AB_TYPE_LONG, AB_VALUE_INT64, 5, 0, NULL },
  { "-3.0", AB_TYPE_BYTE, AB_VALUE_INT8, -3, 0, NULL },
  { "127", AB_TYPE_BYTE, AB_VALUE_INT8, 127, 0, NULL },
  { "-128", AB_TYPE_BYTE, AB_VALUE_INT8, -128, 0, NULL },
  { "32767", AB_TYPE_SHORT, AB_VALUE_INT16, 32767, 0, NULL },
  { "-32768", AB_TYPE_SHORT, AB_VALUE_INT16, -32768, 0, NULL },
  { "2147483647", AB_TYPE_INT, AB_VALUE_INT32, 2147483647, 0, NULL },
  { "-2147483648", AB_TYPE_INT, AB_VALUE_INT32, -2147483648LL, 0, NULL },
  { "9223372036854775807", AB_TYPE_LONG, AB_VALUE_INT64, G_MAXINT64, 0, NULL },
  { "-9223372036854775808", AB_TYPE_LONG, AB_VALUE_INT64, G_MININT64, 0, NULL },
  { "\"9223372036854775807\"", AB_TYPE_LONG, AB_VALUE_INT64, G_MAXINT64, 0, NULL },
  { "1737377177245", AB_TYPE_LONG, AB_VALUE_INT64, 1737377177245LL, 0, NULL },
  /* floats */
  { "1.5", AB_TYPE_FLOAT, AB_VALUE_FLOAT32, 0, 1.5, NULL },
  { "\"2.25\"", AB_TYPE_FLOAT, AB_VALUE_FLOAT32, 0, 2.25, NULL },
  { "3", AB_TYPE_DOUBLE, AB_VALUE_FLOAT64, 0, 3.0, NULL },
  { "0.8", AB_TYPE_DOUBLE, AB_VALUE_FLOAT64, 0, 0.8, NULL },
  { "\"-1e3\"", AB_TYPE_DOUBLE, AB_VALUE_FLOAT64, 0, -1000.0, NULL },
  { "1e308", AB_TYPE_DOUBLE, AB_VALUE_FLOAT64, 0, 1e308, NULL },
  /* booleans */
  { "true", AB_TYPE_BOOLEAN, AB_VALUE_BOOL, 0, 0, "true" },
  { "false", AB_TYPE_BOOLEAN, AB_VALUE_BOOL, 0, 0, "false" },
  { "\"true\"", AB_TYPE_BOOLEAN, AB_VALUE_BOOL, 0, 0, "true" },
  { "\"false\"", AB_TYPE_BOOLEAN, AB_VALUE_BOOL, 0, 0, "false" },
  /* strings, and numbers/booleans stringified (the CLI's source/target) */
  { "\"Alice\"", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "Alice" },
  { "\"h\\u00e9llo \\u4e16\"", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "h\xc3\xa9llo \xe4\xb8\x96" },
  { "\"\"", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "" },
  { "123", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "123" },
  { "-7", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "-7" },
  { "1.5", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "1.5" },
  { "5.0", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "5.0" },
  { "true", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "true" },
  /* "\\u0000" in JSON is a backslash then u0000: legal text */
  { "\"a\\\\u0000\"", AB_TYPE_STRING, AB_VALUE_STRING, 0, 0, "a\\u0000" },
  /* object type: any JSON as compact JSON text */
  { "{\"a\": 1, \"b\": [true, null]}", AB_TYPE_OBJECT, AB_VALUE_JSON, 0, 0,
    "{\"a\":1,\"b\":[true,null]}" },
  { "[1, 2]", AB_TYPE_OBJECT, AB_VALUE_JSON, 0, 0, "[1,2]" },
  { "\"x\"", AB_TYPE_OBJECT, AB_VALUE_JSON, 0, 0, "\"x\"" },
  { "5", AB_TYPE_OBJECT, AB_VALUE_JSON, 0, 0, "5" },
};

static void
check_good (const GoodCase *c, const AbValue *v)
{
  ck_assert_int_eq (v->kind, c->kind);
  switch (c->kind)
    {
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: ck_assert_int_eq (v->u.i, c->i); break;
      case AB_VALUE_FLOAT32:
      case AB_VALUE_FLOAT64: ck_assert_double_eq (v->u.f, c->f); break;
      case AB_VALUE_BOOL: ck_assert_int_eq (v->u.b, strcmp (c->s, "true") == 0); break;
      default: ck_assert_str_eq (v->u.s.data, c->s); ck_assert_uint_eq (v->u.s.len, strlen (c->s));
    }
}

START_TEST (test_cast_good)
{
  const GoodCase *c = &good_cases[_i];
  g_autoptr (JsonNode) node = mt_json (c->json);
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;
  ck_assert_msg (ab_model_cast_json (node, c->type, "p", &v, &error), "%s as %s: %s", c->json,
                 ab_type_name (c->type), error ? error->message : "");
  check_good (c, &v);
  ab_value_clear (&v);
}
END_TEST

typedef struct {
  const gchar *json;
  AbType type;
  const gchar *phrase;
} BadCase;

static const BadCase bad_cases[] = {
  { "\"abc\"", AB_TYPE_INT, "Property 'p' must be a int: 'abc'" },
  { "5.5", AB_TYPE_LONG, "Property 'p' must be a long: 5.5" },
  { "\"5.0\"", AB_TYPE_LONG, "must be a long" },
  { "\"12a\"", AB_TYPE_LONG, "must be a long" },
  { "\" 12\"", AB_TYPE_LONG, "must be a long" },
  { "\"\"", AB_TYPE_INT, "must be a int" },
  { "true", AB_TYPE_INT, "must be a int: true" },
  { "{}", AB_TYPE_INT, "must be a int" },
  { "[1]", AB_TYPE_LONG, "must be a long" },
  { "128", AB_TYPE_BYTE, "out of range -128..127" },
  { "-129", AB_TYPE_BYTE, "out of range -128..127" },
  { "\"300\"", AB_TYPE_BYTE, "out of range" },
  { "32768", AB_TYPE_SHORT, "out of range -32768..32767" },
  { "-32769", AB_TYPE_SHORT, "out of range" },
  { "2147483648", AB_TYPE_INT, "out of range -2147483648..2147483647" },
  { "-2147483649", AB_TYPE_INT, "out of range" },
  { "\"9223372036854775808\"", AB_TYPE_LONG, "out of range" },
  { "\"-9223372036854775809\"", AB_TYPE_LONG, "out of range" },
  { "9.3e18", AB_TYPE_LONG, "out of range" },
  { "1e39", AB_TYPE_FLOAT, "out of range" },
  { "\"1e400\"", AB_TYPE_DOUBLE, "out of range" },
  { "\"nan\"", AB_TYPE_DOUBLE, "must be a double" },
  { "\"inf\"", AB_TYPE_DOUBLE, "must be a double" },
  { "\"0x10\"", AB_TYPE_DOUBLE, "must be a double" },
  { "\"1e\"", AB_TYPE_FLOAT, "must be a float" },
  { "true", AB_TYPE_DOUBLE, "must be a double" },
  { "1", AB_TYPE_BOOLEAN, "must be a boolean" },
  { "\"yes\"", AB_TYPE_BOOLEAN, "must be a boolean: 'yes'" },
  { "{\"a\":1}", AB_TYPE_STRING, "must be a string" },
  { "[\"a\"]", AB_TYPE_STRING, "must be a string" },
};

START_TEST (test_cast_bad)
{
  const BadCase *c = &bad_cases[_i];
  g_autoptr (JsonNode) node = mt_json (c->json);
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;
  ck_assert_msg (!ab_model_cast_json (node, c->type, "p", &v, &error), "%s as %s was accepted",
                 c->json, ab_type_name (c->type));
  MT_ASSERT_ERROR (error, c->phrase);
  ck_assert_int_eq (v.kind, AB_VALUE_NULL);
}
END_TEST

START_TEST (test_cast_null)
{
  for (guint t = AB_TYPE_BOOLEAN; t <= AB_TYPE_OBJECT; t++)
    {
      g_autoptr (JsonNode) node = mt_json ("null");
      AbValue v = AB_VALUE_INIT;
      ck_assert (ab_model_cast_json (node, t, "p", &v, NULL));
      ck_assert_int_eq (v.kind, AB_VALUE_NULL);
      ck_assert (ab_model_cast_json (NULL, t, "p", &v, NULL));
      ck_assert_int_eq (v.kind, AB_VALUE_NULL);
    }
}
END_TEST

START_TEST (test_cast_message_names_field)
{
  g_autoptr (JsonNode) node = mt_json ("\"abc\"");
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;
  ck_assert (!ab_model_cast_json (node, AB_TYPE_INT, "age", &v, &error));
  ck_assert_str_eq (error->message, "Property 'age' must be a int: 'abc'");
}
END_TEST

START_TEST (test_cast_long_value_is_cut_in_message)
{
  g_autofree gchar *big = g_strnfill (5000, 'x');
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, big);
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;
  ck_assert (!ab_model_cast_json (node, AB_TYPE_LONG, "n", &v, &error));
  ck_assert_uint_lt (strlen (error->message), 200);
}
END_TEST

/* json-glib never validates strings set by hand: the cast must. */
START_TEST (test_cast_invalid_utf8)
{
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_VALUE);
  json_node_set_string (node, "ab\xff\xfe");
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;
  ck_assert (!ab_model_cast_json (node, AB_TYPE_STRING, "name", &v, &error));
  MT_ASSERT_ERROR (error, "Property 'name' is not valid UTF-8");
  g_clear_error (&error);
  ck_assert (!ab_model_cast_text ("\xc3", AB_TYPE_STRING, "name", &v, &error));
  MT_ASSERT_ERROR (error, "not valid UTF-8");
}
END_TEST

typedef struct {
  const gchar *body;
  const gchar *phrase;
} ParseCase;

static const ParseCase parse_bad[] = {
  { "{\"source\":\"x\\u0000y\"}", "\\u0000" },
  { "[\"\\u0000\"]", "\\u0000" },
  { "{\"a\\u0000\":1}", "\\u0000" },
  { "{\"v\":12345678901234567890}", "outside the 64-bit integer range" },
  { "{\"v\":-9223372036854775809}", "outside the 64-bit integer range" },
  { "{\"v\":1e400}", "outside the range of a double" },
  { "{\"v\":", "Malformed JSON" },
  { "{\"v\":\"\xff\"}", "Malformed JSON" },
  { "", "empty" },
  { "   ", "empty" },
};

START_TEST (test_parse_rejects)
{
  const ParseCase *c = &parse_bad[_i];
  g_autoptr (GError) error = NULL;
  JsonNode *node = ab_model_json_parse (c->body, -1, &error);
  ck_assert_msg (node == NULL, "accepted: %s", c->body);
  MT_ASSERT_ERROR (error, c->phrase);
}
END_TEST

START_TEST (test_parse_raw_nul_byte)
{
  static const gchar body[] = "{\"a\":\"x\0y\"}";
  g_autoptr (GError) error = NULL;
  JsonNode *node = ab_model_json_parse (body, sizeof body - 1, &error);
  ck_assert_ptr_null (node);
  MT_ASSERT_ERROR (error, "NUL");
}
END_TEST

START_TEST (test_parse_accepts_limits)
{
  g_autoptr (JsonNode) node = mt_json ("{\"max\":9223372036854775807,\"min\":-9223372036854775808,"
                                       "\"s\":\"\\\\u0000\",\"d\":-1.5e-300}");
  JsonObject *o = json_node_get_object (node);
  ck_assert_int_eq (json_object_get_int_member (o, "max"), G_MAXINT64);
  ck_assert_int_eq (json_object_get_int_member (o, "min"), G_MININT64);
  ck_assert_str_eq (json_object_get_string_member (o, "s"), "\\u0000");
}
END_TEST

/* 100k nested arrays would overflow json-glib's recursive descent: refused
 * before it runs; 1000 levels (Jackson's default limit) still parse, and
 * brackets inside strings do not count. */
START_TEST (test_parse_nesting_limit)
{
  GString *deep = g_string_new (NULL);
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, ']');
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (ab_model_json_parse (deep->str, (gssize) deep->len, &error));
  MT_ASSERT_ERROR (error, "nesting is deeper than 1000 levels");
  g_string_free (deep, TRUE);
  GString *ok = g_string_new ("{\"s\":\"[[[[{{{{\",\"a\":");
  for (guint i = 0; i < 999; i++)
    g_string_append_c (ok, '[');
  for (guint i = 0; i < 999; i++)
    g_string_append_c (ok, ']');
  g_string_append_c (ok, '}');
  g_autoptr (GError) none = NULL;
  g_autoptr (JsonNode) node = ab_model_json_parse (ok->str, (gssize) ok->len, &none);
  ck_assert_msg (node != NULL, "%s", none != NULL ? none->message : "");
  g_string_free (ok, TRUE);
}
END_TEST

typedef struct {
  const gchar *text;
  AbType type;
  gboolean ok;
  const gchar *expect; /* ab_value_to_string of the result, or an error phrase */
} TextCase;

static const TextCase text_cases[] = {
  { "42", AB_TYPE_LONG, TRUE, "42" },
  { "-42", AB_TYPE_INT, TRUE, "-42" },
  { "4x", AB_TYPE_LONG, FALSE, "Property 'q' must be a long: '4x'" },
  { "", AB_TYPE_LONG, FALSE, "must be a long" },
  { "256", AB_TYPE_BYTE, FALSE, "out of range" },
  { "true", AB_TYPE_BOOLEAN, TRUE, "true" },
  { "maybe", AB_TYPE_BOOLEAN, FALSE, "must be a boolean" },
  { "3.5", AB_TYPE_DOUBLE, TRUE, "3.5" },
  { "abc", AB_TYPE_DOUBLE, FALSE, "must be a double" },
  { "Alice", AB_TYPE_STRING, TRUE, "Alice" },
  { "", AB_TYPE_STRING, TRUE, "" },
  { "{\"a\": 1}", AB_TYPE_OBJECT, TRUE, "{\"a\":1}" },
  { "abc", AB_TYPE_OBJECT, TRUE, "\"abc\"" },
};

START_TEST (test_cast_text)
{
  const TextCase *c = &text_cases[_i];
  g_autoptr (GError) error = NULL;
  AbValue v = AB_VALUE_INIT;
  gboolean ok = ab_model_cast_text (c->text, c->type, "q", &v, &error);
  ck_assert_msg (ok == c->ok, "'%s' as %s", c->text, ab_type_name (c->type));
  if (!ok)
    {
      MT_ASSERT_ERROR (error, c->expect);
      return;
    }
  ck_assert_int_eq (v.kind, ab_type_value_kind (c->type));
  g_autofree gchar *shown = ab_value_to_string (&v);
  ck_assert_str_eq (shown, c->expect);
  ab_value_clear (&v);
}
END_TEST

/* A value only read is used as it is when it has the type (no copy), with
 * the cast's checks and messages; otherwise it is cast into the scratch. */
START_TEST (test_cast_view)
{
  AbValue in = AB_VALUE_INIT, scratch = AB_VALUE_INIT;
  const AbValue *out = NULL;
  g_autoptr (GError) error = NULL;
  ab_value_set_string (&in, AB_VALUE_STRING, "alice", 5);
  ck_assert (ab_model_cast_view (&in, AB_TYPE_STRING, "start", &scratch, &out, &error));
  ck_assert_ptr_eq (out, &in);
  ck_assert_int_eq (scratch.kind, AB_VALUE_NULL);
  ck_assert (ab_model_cast_view (&in, AB_TYPE_LONG, "start", &scratch, &out, &error) == FALSE);
  ck_assert_ptr_nonnull (error);
  g_clear_error (&error);
  ab_value_clear (&in);
  ab_value_set_string (&in, AB_VALUE_STRING, "a\0b", 3);
  ck_assert (!ab_model_cast_view (&in, AB_TYPE_STRING, "start", &scratch, &out, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "Property 'start' must not contain the NUL"));
  g_clear_error (&error);
  ab_value_clear (&in);
  ab_value_set_int (&in, AB_VALUE_INT64, 42);
  ck_assert (ab_model_cast_view (&in, AB_TYPE_STRING, "start", &scratch, &out, &error));
  ck_assert_ptr_eq (out, &scratch);
  ck_assert_int_eq (scratch.kind, AB_VALUE_STRING);
  ck_assert_str_eq (scratch.u.s.data, "42");
  ab_value_clear (&scratch);
  ab_value_clear (&in);
}
END_TEST

START_TEST (test_value_to_json)
{
  AbValue v = AB_VALUE_INIT;
  ab_value_set_int (&v, AB_VALUE_INT64, 1737377177245LL);
  g_autoptr (JsonNode) n1 = ab_model_value_to_json (&v);
  ck_assert_int_eq (json_node_get_int (n1), 1737377177245LL);

  ab_value_set_float (&v, AB_VALUE_FLOAT32, 0.1);
  g_autoptr (JsonNode) n2 = ab_model_value_to_json (&v);
  ck_assert_double_eq (json_node_get_double (n2), 0.1);

  ab_value_set_string (&v, AB_VALUE_JSON, "{\"a\":[1]}", 9);
  g_autoptr (JsonNode) n3 = ab_model_value_to_json (&v);
  ck_assert (JSON_NODE_HOLDS_OBJECT (n3));

  ab_value_set_string (&v, AB_VALUE_JSON, "not json", 8);
  g_autoptr (JsonNode) n4 = ab_model_value_to_json (&v);
  ck_assert_str_eq (json_node_get_string (n4), "not json");

  ab_value_set_bool (&v, TRUE);
  g_autoptr (JsonNode) n5 = ab_model_value_to_json (&v);
  ck_assert (json_node_get_boolean (n5));

  ab_value_clear (&v);
  g_autoptr (JsonNode) n6 = ab_model_value_to_json (&v);
  ck_assert (JSON_NODE_HOLDS_NULL (n6));
}
END_TEST

START_TEST (test_type_names)
{
  AbType t;
  ck_assert_str_eq (ab_type_name (AB_TYPE_LONG), "long");
  ck_assert_str_eq (ab_type_v2_name (AB_TYPE_LONG), "LONG");
  ck_assert_str_eq (ab_type_name (AB_TYPE_OBJECT), "object");
  ck_assert (ab_type_parse ("STRING", &t));
  ck_assert_int_eq (t, AB_TYPE_STRING);
  ck_assert (ab_type_parse ("boolean", &t));
  ck_assert_int_eq (t, AB_TYPE_BOOLEAN);
  ck_assert (ab_type_parse ("JSON", &t)); /* upstream v2 name of object */
  ck_assert_int_eq (t, AB_TYPE_OBJECT);
  ck_assert (!ab_type_parse ("integer", &t));
  ck_assert (!ab_type_parse (NULL, &t));
  ck_assert (ab_type_is_numeric (AB_TYPE_BYTE));
  ck_assert (ab_type_is_numeric (AB_TYPE_DOUBLE));
  ck_assert (!ab_type_is_numeric (AB_TYPE_STRING));
  ck_assert (!ab_type_is_numeric (AB_TYPE_BOOLEAN));
}
END_TEST

static Suite *
cast_suite (void)
{
  Suite *s = suite_create ("model-cast");
  TCase *tc = tcase_create ("cast");
  tcase_add_loop_test (tc, test_cast_good, 0, G_N_ELEMENTS (good_cases));
  tcase_add_loop_test (tc, test_cast_bad, 0, G_N_ELEMENTS (bad_cases));
  tcase_add_test (tc, test_cast_null);
  tcase_add_test (tc, test_cast_message_names_field);
  tcase_add_test (tc, test_cast_long_value_is_cut_in_message);
  tcase_add_test (tc, test_cast_invalid_utf8);
  tcase_add_loop_test (tc, test_parse_rejects, 0, G_N_ELEMENTS (parse_bad));
  tcase_add_test (tc, test_parse_raw_nul_byte);
  tcase_add_test (tc, test_parse_accepts_limits);
  tcase_add_test (tc, test_parse_nesting_limit);
  tcase_add_loop_test (tc, test_cast_text, 0, G_N_ELEMENTS (text_cases));
  tcase_add_test (tc, test_cast_view);
  tcase_add_test (tc, test_value_to_json);
  tcase_add_test (tc, test_type_names);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return mt_run (cast_suite ());
}
