/* Helpers shared by the model suites (see model_helpers.h): JSON parsing
 * and lookup for assertions, and the runner that every suite's main uses.
 * No behaviour under test lives here. */
#include "model_helpers.h"

JsonNode *
mt_json (const gchar *text)
{
  g_autoptr (GError) error = NULL;
  JsonNode *node = ab_model_json_parse (text, -1, &error);
  ck_assert_msg (node != NULL, "test JSON does not parse: %s", error ? error->message : "?");
  return node;
}

gchar *
mt_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

JsonNode *
mt_get (JsonNode *root, const gchar *path)
{
  g_auto (GStrv) parts = g_strsplit (path, ".", -1);
  JsonNode *cur = root;
  for (guint k = 0; parts[k] != NULL; k++)
    {
      if (cur == NULL)
        return NULL;
      if (JSON_NODE_HOLDS_ARRAY (cur))
        {
          JsonArray *a = json_node_get_array (cur);
          guint64 idx = g_ascii_strtoull (parts[k], NULL, 10);
          if (idx >= json_array_get_length (a))
            return NULL;
          cur = json_array_get_element (a, (guint) idx);
          continue;
        }
      if (!JSON_NODE_HOLDS_OBJECT (cur))
        return NULL;
      cur = json_object_get_member (json_node_get_object (cur), parts[k]);
    }
  return cur;
}

const gchar *
mt_get_string (JsonNode *root, const gchar *path)
{
  JsonNode *n = mt_get (root, path);
  ck_assert_msg (n != NULL, "missing member %s", path);
  ck_assert_msg (JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_STRING,
                 "member %s is not a string", path);
  return json_node_get_string (n);
}

gint
mt_run (Suite *s)
{
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  gint failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
