/* JSON input for the model: the strict request-body parser (a pre-scan for
 * what json-glib would silently alter: \u0000 escapes, integers beyond 64
 * bits, doubles beyond range; and for nesting deep enough to exhaust its
 * recursive descent) and typed member getters with path errors. */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "model/json_get.h"
#include "model/types.h"

/* Returns the offset just past the closing quote (or len when the string is
 * unterminated: the parser reports that). p[start] is the first byte inside
 * the string. G_MAXSIZE on error. */
static gsize
scan_string (const gchar *p, gsize len, gsize start, GError **error)
{
  gsize i = start;
  while (i < len)
    {
      if (p[i] == '"')
        return i + 1;
      if (p[i] == '\0')
        break;
      if (p[i] == '\\' && i + 1 < len)
        {
          if (p[i + 1] == 'u' && i + 6 <= len && strncmp (p + i + 2, "0000", 4) == 0)
            {
              ab_model_invalid (error, "%s",
                                "JSON strings must not contain the NUL "
                                "character (\\u0000)");
              return G_MAXSIZE;
            }
          i += 2;
          continue;
        }
      i++;
    }
  if (i < len)
    {
      ab_model_invalid (error, "%s", "JSON body contains a raw NUL byte");
      return G_MAXSIZE;
    }
  return len;
}

/* json-glib wraps integer literals beyond 64 bits and turns 1e400 into inf;
 * both would reach casting as a different number, so refuse them here. */
static gboolean
check_number (const gchar *p, gsize len, GError **error)
{
  g_autofree gchar *token = g_strndup (p, len);
  if (strpbrk (token, ".eE") == NULL)
    {
      g_autoptr (GError) perr = NULL;
      gint64 ignored;
      if (!g_ascii_string_to_signed (token, 10, G_MININT64, G_MAXINT64, &ignored, &perr)
          && g_error_matches (perr, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
        return ab_model_invalid (error,
                                 "JSON number %s is outside the 64-bit "
                                 "integer range",
                                 token);
      return TRUE;
    }
  if (isinf (g_ascii_strtod (token, NULL)))
    return ab_model_invalid (error, "JSON number %s is outside the range of a double", token);
  return TRUE;
}

/* json-glib parses (and frees) recursively, one stack frame set per level:
 * 100k nested arrays would overflow a worker's stack. Jackson, upstream's
 * parser, stops at the same depth by default. */
#define AB_JSON_MAX_DEPTH 1000

static gboolean
prescan (const gchar *p, gsize len, GError **error)
{
  gsize i = 0;
  guint depth = 0;
  while (i < len)
    {
      gchar c = p[i];
      if (c == '\0')
        return ab_model_invalid (error, "%s", "JSON body contains a raw NUL byte");
      if ((c == '[' || c == '{') && ++depth > AB_JSON_MAX_DEPTH)
        return ab_model_invalid (error, "JSON nesting is deeper than %d levels", AB_JSON_MAX_DEPTH);
      if ((c == ']' || c == '}') && depth > 0)
        depth--;
      if (c == '"')
        {
          i = scan_string (p, len, i + 1, error);
          if (i == G_MAXSIZE)
            return FALSE;
          continue;
        }
      if (c == '-' || g_ascii_isdigit (c))
        {
          gsize j = i;
          while (j < len && p[j] != '\0' && strchr ("+-.eE0123456789", p[j]))
            j++;
          if (!check_number (p + i, j - i, error))
            return FALSE;
          i = j;
          continue;
        }
      i++;
    }
  return TRUE;
}

JsonNode *
ab_model_json_parse (const gchar *data, gssize len, GError **error)
{
  gsize n = len < 0 ? (data ? strlen (data) : 0) : (gsize) len;
  if (data == NULL || n == 0)
    {
      ab_model_invalid (error, "%s", "Request body is empty; a JSON value is expected");
      return NULL;
    }
  if (!prescan (data, n, error))
    return NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) perr = NULL;
  if (!json_parser_load_from_data (parser, data, (gssize) n, &perr))
    {
      ab_model_invalid (error, "Malformed JSON: %s", perr->message);
      return NULL;
    }
  JsonNode *root = json_parser_steal_root (parser);
  if (root == NULL)
    ab_model_invalid (error, "%s", "Request body is empty; a JSON value is expected");
  return root;
}

gchar *
ab_model_json_path (const gchar *prefix, const gchar *member)
{
  if (prefix == NULL || *prefix == '\0')
    return g_strdup (member);
  return g_strconcat (prefix, ".", member, NULL);
}

gboolean
ab_model_json_missing (const gchar *prefix, const gchar *member, GError **error)
{
  g_autofree gchar *path = ab_model_json_path (prefix, member);
  return ab_model_invalid (error, "Missing required field '%s'", path);
}

static gboolean
wrong_type (const gchar *prefix, const gchar *member, const gchar *expected, GError **error)
{
  g_autofree gchar *path = ab_model_json_path (prefix, member);
  g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID, "Field '%s' must be %s", path,
               expected);
  return FALSE;
}

JsonObject *
ab_model_json_object (JsonNode *node, const gchar *what, GError **error)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      ab_model_invalid (error, "%s must be a JSON object", what);
      return NULL;
    }
  return json_node_get_object (node);
}

/* The member node, or NULL when it is absent or JSON null. */
static JsonNode *
member_node (JsonObject *o, const gchar *member)
{
  JsonNode *n = json_object_get_member (o, member);
  return (n == NULL || JSON_NODE_HOLDS_NULL (n)) ? NULL : n;
}

static gboolean
holds_value_type (JsonNode *n, GType type)
{
  return JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == type;
}

gboolean
ab_model_json_scalar (JsonObject *o, const gchar *prefix, const gchar *member, GType type,
                      JsonNode **out, GError **error)
{
  static const struct {
    GType type;
    const gchar *expected;
  } names[] = {
    { G_TYPE_STRING, "a string" },
    { G_TYPE_BOOLEAN, "true or false" },
    { G_TYPE_INT64, "an integer" },
  };
  *out = member_node (o, member);
  if (*out == NULL || holds_value_type (*out, type))
    return TRUE;
  const gchar *expected = "a scalar";
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (names[i].type == type)
      expected = names[i].expected;
  *out = NULL;
  return wrong_type (prefix, member, expected, error);
}

const gchar *
ab_model_json_get_string (JsonObject *o, const gchar *member)
{
  JsonNode *n = member_node (o, member);
  return n != NULL && holds_value_type (n, G_TYPE_STRING) ? json_node_get_string (n) : NULL;
}

gboolean
ab_model_json_string (JsonObject *o, const gchar *prefix, const gchar *member, gboolean required,
                      const gchar *def, gchar **out, GError **error)
{
  JsonNode *n;
  if (!ab_model_json_scalar (o, prefix, member, G_TYPE_STRING, &n, error))
    return FALSE;
  if (n == NULL && required)
    return ab_model_json_missing (prefix, member, error);
  *out = g_strdup (n != NULL ? json_node_get_string (n) : def);
  return TRUE;
}

gboolean
ab_model_json_bool (JsonObject *o, const gchar *prefix, const gchar *member, gboolean def,
                    gboolean *out, GError **error)
{
  JsonNode *n;
  if (!ab_model_json_scalar (o, prefix, member, G_TYPE_BOOLEAN, &n, error))
    return FALSE;
  *out = n != NULL ? json_node_get_boolean (n) : def;
  return TRUE;
}

gboolean
ab_model_json_int (JsonObject *o, const gchar *prefix, const gchar *member, gint64 def, gint64 *out,
                   GError **error)
{
  JsonNode *n;
  if (!ab_model_json_scalar (o, prefix, member, G_TYPE_INT64, &n, error))
    return FALSE;
  *out = n != NULL ? json_node_get_int (n) : def;
  return TRUE;
}

gboolean
ab_model_json_array (JsonObject *o, const gchar *prefix, const gchar *member, gboolean required,
                     JsonArray **out, GError **error)
{
  JsonNode *n = member_node (o, member);
  *out = NULL;
  if (n == NULL)
    return required ? ab_model_json_missing (prefix, member, error) : TRUE;
  if (!JSON_NODE_HOLDS_ARRAY (n))
    return wrong_type (prefix, member, "an array", error);
  *out = json_node_get_array (n);
  return TRUE;
}

gboolean
ab_model_json_child (JsonObject *o, const gchar *prefix, const gchar *member, gboolean required,
                     JsonObject **out, GError **error)
{
  JsonNode *n = member_node (o, member);
  *out = NULL;
  if (n == NULL)
    return required ? ab_model_json_missing (prefix, member, error) : TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (n))
    return wrong_type (prefix, member, "an object", error);
  *out = json_node_get_object (n);
  return TRUE;
}

JsonNode *
ab_model_json_empty_array (void)
{
  JsonNode *node = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (node, json_array_new ());
  return node;
}

void
ab_model_json_add_string (JsonBuilder *b, const gchar *member, const gchar *value)
{
  json_builder_set_member_name (b, member);
  json_builder_add_string_value (b, value ? value : "");
}

void
ab_model_json_add_bool (JsonBuilder *b, const gchar *member, gboolean value)
{
  json_builder_set_member_name (b, member);
  json_builder_add_boolean_value (b, value);
}

JsonNode *
ab_model_json_deep_copy (JsonNode *node)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      JsonArray *out = json_array_sized_new (json_array_get_length (a));
      for (guint i = 0; i < json_array_get_length (a); i++)
        json_array_add_element (out, ab_model_json_deep_copy (json_array_get_element (a, i)));
      JsonNode *n = json_node_init_array (json_node_alloc (), out);
      json_array_unref (out);
      return n;
    }
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *o = json_node_get_object (node);
      JsonObject *out = json_object_new ();
      g_autoptr (GList) members = json_object_get_members (o);
      for (GList *m = members; m != NULL; m = m->next)
        json_object_set_member (out, m->data,
                                ab_model_json_deep_copy (json_object_get_member (o, m->data)));
      JsonNode *n = json_node_init_object (json_node_alloc (), out);
      json_object_unref (out);
      return n;
    }
  /* a value or null: a new value (json_node_copy would share the JsonValue,
   * whose reference count json-glib does not change atomically) */
  JsonNode *n = json_node_alloc ();
  if (JSON_NODE_HOLDS_NULL (node))
    return json_node_init_null (n);
  switch (json_node_get_value_type (node))
    {
      case G_TYPE_INT64: return json_node_init_int (n, json_node_get_int (node));
      case G_TYPE_DOUBLE: return json_node_init_double (n, json_node_get_double (node));
      case G_TYPE_BOOLEAN: return json_node_init_boolean (n, json_node_get_boolean (node));
      default: return json_node_init_string (n, json_node_get_string (node));
    }
}

void
ab_model_json_add_array_copy (JsonBuilder *b, const gchar *member, JsonNode *node)
{
  json_builder_set_member_name (b, member);
  json_builder_add_value (b, node != NULL ? ab_model_json_deep_copy (node)
                                          : ab_model_json_empty_array ());
}
