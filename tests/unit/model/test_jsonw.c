/* The streaming JSON writer (src/rest/jsonw.c) against fixed expected bytes
 * and against json-glib's generator, which wrote these answers before:
 * escaping, invalid UTF-8, number formats, nesting, commas, tree walking. */
#include <check.h>
#include <math.h>
#include <string.h>
#include "model/jsonw.h"

/* What json-glib writes for node (compact), owned. */
static gchar *
glib_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

/* The writer's document as a NUL-terminated string, owned. */
static gchar *
finish_text (AbJsonw *w)
{
  g_autoptr (GBytes) b = ab_jsonw_finish (w);
  gsize len;
  const gchar *data = g_bytes_get_data (b, &len);
  return g_strndup (data, len);
}

static gchar *
string_text (const gchar *s)
{
  AbJsonw w;
  ab_jsonw_init (&w, 4);
  ab_jsonw_string (&w, s);
  return finish_text (&w);
}

static gchar *
glib_string_text (const gchar *s)
{
  g_autoptr (JsonNode) n = json_node_init_string (json_node_alloc (), s);
  return glib_text (n);
}

static gchar *
double_text (gdouble d)
{
  AbJsonw w;
  ab_jsonw_init (&w, 4);
  ab_jsonw_double (&w, d);
  return finish_text (&w);
}

/* Each byte 0x01..0x1f and 0x7f alone in a string. */
START_TEST (test_control_chars)
{
  static const gchar *const shorts[]
      = { ['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t" };
  guint c = _i == 0x20 ? 0x7f : (guint) _i;
  gchar in[4] = { 'a', (gchar) c, 'z', 0 };
  g_autofree gchar *expect = NULL;
  if (c < G_N_ELEMENTS (shorts) && shorts[c] != NULL)
    expect = g_strdup_printf ("\"a%sz\"", shorts[c]);
  else
    expect = g_strdup_printf ("\"a\\u%04xz\"", c);
  g_autofree gchar *got = string_text (in);
  ck_assert_str_eq (got, expect);
  /* json-glib writes the same, except that it leaves 0x1f raw (not JSON) */
  g_autofree gchar *glib = glib_string_text (in);
  if (c == 0x1f)
    ck_assert_str_eq (glib, "\"a\x1fz\"");
  else
    ck_assert_str_eq (got, glib);
  g_autoptr (GError) error = NULL;
  g_autoptr (JsonNode) back = json_from_string (got, &error);
  ck_assert_msg (back != NULL, "0x%02x: %s", c, error != NULL ? error->message : "");
  ck_assert_str_eq (json_node_get_string (back), in);
}
END_TEST

START_TEST (test_quotes_backslash_unicode)
{
  static const gchar *const cases[][2] = {
    { "", "\"\"" },
    { "say \"hi\"", "\"say \\\"hi\\\"\"" },
    { "a\\b", "\"a\\\\b\"" },
    { "\\\"", "\"\\\\\\\"\"" },
    { "a/b</script>", "\"a/b</script>\"" },
    { "caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80",
      "\"caf\xc3\xa9 \xe6\xbc\xa2 \xf0\x9f\x98\x80\"" },
    { "\xe2\x80\xa8\xef\xbb\xbf", "\"\xe2\x80\xa8\xef\xbb\xbf\"" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *got = string_text (cases[i][0]);
      g_autofree gchar *glib = glib_string_text (cases[i][0]);
      ck_assert_str_eq (got, cases[i][1]);
      ck_assert_str_eq (got, glib);
    }
}
END_TEST

/* json-glib copies bytes that are not UTF-8 as they are; so do we. */
START_TEST (test_invalid_utf8)
{
  static const gchar *const cases[] = {
    "\xff", "\xc3\x28", "a\xe2\x82", "\xed\xa0\x80", "\xf8\x88\x80\x80\x80", "\xc0\xaf\"\x80\\",
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *got = string_text (cases[i]);
      g_autofree gchar *glib = glib_string_text (cases[i]);
      ck_assert_str_eq (got, glib);
    }
  g_autofree gchar *raw = string_text ("x\xffy");
  ck_assert_str_eq (raw, "\"x\xffy\"");
}
END_TEST

START_TEST (test_string_edges)
{
  g_autofree gchar *null = string_text (NULL);
  ck_assert_str_eq (null, "null");
  AbJsonw w;
  ab_jsonw_init (&w, 1);
  ab_jsonw_string_len (&w, "a\0b", 3);
  g_autofree gchar *nul = finish_text (&w);
  ck_assert_str_eq (nul, "\"a\\u0000b\"");
}
END_TEST

START_TEST (test_integers)
{
  static const gint64 cases[] = { 0,
                                  1,
                                  -1,
                                  9,
                                  10,
                                  -10,
                                  1737377177245LL,
                                  G_MAXINT32,
                                  G_MININT32,
                                  G_MAXINT64,
                                  G_MININT64,
                                  G_MININT64 + 1 };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      AbJsonw w;
      ab_jsonw_init (&w, 1);
      ab_jsonw_int (&w, cases[i]);
      g_autofree gchar *got = finish_text (&w);
      g_autoptr (JsonNode) n = json_node_init_int (json_node_alloc (), cases[i]);
      g_autofree gchar *glib = glib_text (n);
      g_autofree gchar *expect = g_strdup_printf ("%" G_GINT64_FORMAT, cases[i]);
      ck_assert_str_eq (got, expect);
      ck_assert_str_eq (got, glib);
    }
  g_autofree gchar *min = NULL;
  AbJsonw w;
  ab_jsonw_init (&w, 1);
  ab_jsonw_int (&w, G_MININT64);
  min = finish_text (&w);
  ck_assert_str_eq (min, "-9223372036854775808");
}
END_TEST

/* Doubles json-glib writes as JSON: the same bytes. */
START_TEST (test_doubles_as_json_glib)
{
  static const struct {
    gdouble d;
    const gchar *text;
  } cases[] = {
    { 1.0, "1.0" },
    { 0.0, "0.0" },
    { -0.0, "-0.0" },
    { 0.1, "0.10000000000000001" },
    { 0.5, "0.5" },
    { -2.25, "-2.25" },
    { 1e300, "1.0000000000000001e+300" },
    { 5e-324, "4.9406564584124654e-324" },
    { 1e-7, "9.9999999999999995e-08" },
    { 123456789012345678.0, "1.2345678901234568e+17" },
    { 1e16, "10000000000000000.0" },
    { 1.7976931348623157e308, "1.7976931348623157e+308" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *got = double_text (cases[i].d);
      g_autoptr (JsonNode) n = json_node_init_double (json_node_alloc (), cases[i].d);
      g_autofree gchar *glib = glib_text (n);
      ck_assert_str_eq (got, cases[i].text);
      ck_assert_str_eq (got, glib);
    }
}
END_TEST

/* Where json-glib's text is not JSON ("1e+22.0", "nan.0"), ours is. */
START_TEST (test_doubles_json_glib_breaks)
{
  static const struct {
    gdouble d;
    const gchar *ours, *glib;
  } cases[] = {
    { 1e22, "1e+22", "1e+22.0" },
    { -1e21, "-1e+21", "-1e+21.0" },
    { 1e300 * 1e300, "null", "inf.0" },
    { -1e300 * 1e300, "null", "-inf.0" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree gchar *got = double_text (cases[i].d);
      g_autoptr (JsonNode) n = json_node_init_double (json_node_alloc (), cases[i].d);
      g_autofree gchar *glib = glib_text (n);
      ck_assert_str_eq (got, cases[i].ours);
      ck_assert_str_eq (glib, cases[i].glib);
      g_autoptr (JsonNode) back = json_from_string (got, NULL);
      ck_assert_ptr_nonnull (back);
    }
  g_autofree gchar *nan_text = double_text (NAN);
  ck_assert_str_eq (nan_text, "null");
}
END_TEST

/* A document with every shape written by hand, against fixed bytes and the
 * same document built with JsonBuilder. */
START_TEST (test_nesting_and_commas)
{
  AbJsonw w;
  ab_jsonw_init (&w, 2);
  ab_jsonw_begin_object (&w);
  ab_jsonw_key (&w, "a\"k");
  ab_jsonw_begin_array (&w);
  ab_jsonw_int (&w, 1);
  ab_jsonw_begin_array (&w);
  ab_jsonw_end_array (&w);
  ab_jsonw_begin_object (&w);
  ab_jsonw_end_object (&w);
  ab_jsonw_begin_array (&w);
  ab_jsonw_null (&w);
  ab_jsonw_bool (&w, FALSE);
  ab_jsonw_end_array (&w);
  ab_jsonw_string (&w, "s");
  ab_jsonw_end_array (&w);
  ab_jsonw_member_empty_object (&w, "context");
  ab_jsonw_key (&w, "o");
  ab_jsonw_begin_object (&w);
  ab_jsonw_member_int (&w, "n", -5);
  ab_jsonw_member_bool (&w, "t", TRUE);
  ab_jsonw_member_string (&w, "x", NULL);
  ab_jsonw_end_object (&w);
  ab_jsonw_end_object (&w);
  g_autofree gchar *got = finish_text (&w);
  ck_assert_str_eq (got, "{\"a\\\"k\":[1,[],{},[null,false],\"s\"],\"context\":{},"
                         "\"o\":{\"n\":-5,\"t\":true,\"x\":null}}");

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "a\"k");
  json_builder_begin_array (b);
  json_builder_add_int_value (b, 1);
  json_builder_begin_array (b);
  json_builder_end_array (b);
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_begin_array (b);
  json_builder_add_null_value (b);
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_array (b);
  json_builder_add_string_value (b, "s");
  json_builder_end_array (b);
  json_builder_set_member_name (b, "context");
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "o");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "n");
  json_builder_add_int_value (b, -5);
  json_builder_set_member_name (b, "t");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "x");
  json_builder_add_null_value (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree gchar *glib = glib_text (root);
  ck_assert_str_eq (got, glib);
}
END_TEST

/* Two top-level values in a row are still separated (the writer is used for
 * fragments too). */
START_TEST (test_scalars_in_sequence)
{
  AbJsonw w;
  ab_jsonw_init (&w, 1);
  ab_jsonw_int (&w, 1);
  ab_jsonw_string (&w, "b");
  g_autofree gchar *got = finish_text (&w);
  ck_assert_str_eq (got, "1,\"b\"");
}
END_TEST

/* A parsed tree walked by ab_jsonw_node gives json_to_string's bytes. */
START_TEST (test_node_walk)
{
  static const gchar *const docs[] = {
    "{\"b\":1,\"a\":[true,null,2.5,\"x\\u0001\"],\"c\":{\"d\":{}},\"e\":[]}",
    "[1,-0.0,1e5,\"\\u00e9\",{\"k\":\"v\",\"k2\":[[]]}]",
    "\"just a string\"",
    "null",
    "-9223372036854775808",
    "{\"dup\":1,\"z\":0,\"dup\":2}",
  };
  for (guint i = 0; i < G_N_ELEMENTS (docs); i++)
    {
      g_autoptr (JsonNode) n = json_from_string (docs[i], NULL);
      ck_assert_ptr_nonnull (n);
      AbJsonw w;
      ab_jsonw_init (&w, 8);
      ab_jsonw_node (&w, n);
      g_autofree gchar *got = finish_text (&w);
      g_autofree gchar *glib = glib_text (n);
      ck_assert_str_eq (got, glib);
    }
  AbJsonw w;
  ab_jsonw_init (&w, 8);
  ab_jsonw_node (&w, NULL);
  g_autofree gchar *null = finish_text (&w);
  ck_assert_str_eq (null, "null");
}
END_TEST

START_TEST (test_clear_is_idempotent)
{
  g_auto (AbJsonw) w = { 0 };
  ab_jsonw_clear (&w); /* on a writer never started */
  ck_assert_ptr_null (w.out);
  ab_jsonw_init (&w, 16);
  ab_jsonw_begin_object (&w);
  ck_assert_ptr_nonnull (w.out);
  ck_assert_str_eq (w.out->str, "{");
  ab_jsonw_clear (&w);
  ck_assert_ptr_null (w.out);
  ab_jsonw_clear (&w); /* twice */
  ck_assert_ptr_null (w.out);
  ab_jsonw_init (&w, 16);
  ab_jsonw_begin_object (&w);
  /* left for the cleanup: an error path drops a half-written document */
  ck_assert_uint_eq (w.out->len, 1);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("rest-jsonw");
  TCase *tc = tcase_create ("jsonw");
  tcase_add_loop_test (tc, test_control_chars, 1, 0x21);
  tcase_add_test (tc, test_quotes_backslash_unicode);
  tcase_add_test (tc, test_invalid_utf8);
  tcase_add_test (tc, test_string_edges);
  tcase_add_test (tc, test_integers);
  tcase_add_test (tc, test_doubles_as_json_glib);
  tcase_add_test (tc, test_doubles_json_glib_breaks);
  tcase_add_test (tc, test_nesting_and_commas);
  tcase_add_test (tc, test_scalars_in_sequence);
  tcase_add_test (tc, test_node_walk);
  tcase_add_test (tc, test_clear_is_idempotent);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  gint failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
