/* libFuzzer target for the import's JSON Lines scanner (src/admin/import_scan.c):
 * whenever it accepts a line, json-glib (through ab_model_json_parse) must read
 * the same object: the same members with the same values, properties included. */
#include <string.h>
#include "fuzz.h"
#include "admin/import_scan.h"
#include "model/types.h"

static gboolean
same_value (JsonNode *n, const AbValue *v)
{
  if (v->kind == AB_VALUE_NULL)
    return JSON_NODE_HOLDS_NULL (n);
  if (!JSON_NODE_HOLDS_VALUE (n))
    return FALSE;
  GType t = json_node_get_value_type (n);
  switch (v->kind)
    {
      case AB_VALUE_BOOL: return t == G_TYPE_BOOLEAN && json_node_get_boolean (n) == v->u.b;
      case AB_VALUE_INT64: return t == G_TYPE_INT64 && json_node_get_int (n) == v->u.i;
      case AB_VALUE_STRING:
        return t == G_TYPE_STRING && strlen (json_node_get_string (n)) == v->u.s.len
               && memcmp (json_node_get_string (n), v->u.s.data, v->u.s.len) == 0;
      default: return FALSE;
    }
}

/* Every scanned member of one level is in obj with the same value, and obj
 * has no other member. */
static void
check_level (JsonObject *obj, GArray *members, gboolean in_props)
{
  guint seen = 0;
  for (guint i = 0; i < members->len; i++)
    {
      const AbImportMember *m = &g_array_index (members, AbImportMember, i);
      if (m->in_props != in_props)
        continue;
      seen++;
      g_autofree gchar *name = g_strndup (m->name, m->name_len);
      AB_FUZZ_CHECK (strlen (name) == m->name_len);
      JsonNode *n = json_object_get_member (obj, name);
      AB_FUZZ_CHECK (n != NULL);
      if (m->is_object)
        {
          AB_FUZZ_CHECK (!in_props && JSON_NODE_HOLDS_OBJECT (n));
          check_level (json_node_get_object (n), members, TRUE);
        }
      else
        AB_FUZZ_CHECK (same_value (n, &m->value));
    }
  AB_FUZZ_CHECK (seen == json_object_get_size (obj));
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* a record as the import holds it: NUL-terminated, without its line end */
  g_autofree gchar *line = g_strndup ((const gchar *) data, size);
  g_autofree gchar *copy = g_strdup (line);
  g_autoptr (GArray) members = g_array_new (FALSE, FALSE, sizeof (AbImportMember));
  /* read only: the same verdict and members, the line untouched */
  gboolean read_only = ab_import_scan_edge (line, members, FALSE);
  AB_FUZZ_CHECK (strcmp (line, copy) == 0);
  guint n_read_only = members->len;
  if (!ab_import_scan_edge (line, members, TRUE))
    {
      AB_FUZZ_CHECK (!read_only);
      AB_FUZZ_CHECK (strcmp (line, copy) == 0); /* declined: the line is untouched */
      return 0;
    }
  AB_FUZZ_CHECK (read_only && members->len == n_read_only);
  g_autoptr (JsonNode) root = ab_model_json_parse (copy, -1, NULL);
  AB_FUZZ_CHECK (root != NULL && JSON_NODE_HOLDS_OBJECT (root));
  check_level (json_node_get_object (root), members, FALSE);
  return 0;
}
