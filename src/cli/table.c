/* Console tables and cells: column widths from the widest line of every cell,
 * `|---|` rule lines above and below the header and at the end, and the JSON
 * value formatting the upstream console uses (it decodes numbers as floats). */
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "cli/table.h"

struct _AbTable {
  GPtrArray *headers; /* gchar*, already title-cased */
  GPtrArray *rows;    /* GStrv, one entry per column */
};

/* Headers read like the upstream ones: underscores and dots become spaces
 * (dots between digits stay), then everything is upper-cased. */
static gchar *
title (const gchar *name)
{
  g_autofree gchar *copy = g_strdup (name);
  gsize n = strlen (copy);
  for (gsize i = 0; i < n; i++)
    {
      if (copy[i] == '_')
        copy[i] = ' ';
      else if (copy[i] == '.')
        {
          gboolean prev_ok = i == 0 || g_ascii_isdigit (copy[i - 1]) || copy[i - 1] == ' ';
          gboolean next_ok = i == n - 1 || g_ascii_isdigit (copy[i + 1]) || copy[i + 1] == ' ';
          if (!prev_ok || !next_ok)
            copy[i] = ' ';
        }
    }
  g_strstrip (copy);
  if (copy[0] == '\0' && n > 0)
    return g_strdup (" ");
  return g_utf8_strup (copy, -1);
}

AbTable *
ab_table_new (const gchar *const *columns)
{
  AbTable *t = g_new0 (AbTable, 1);
  t->headers = g_ptr_array_new_with_free_func (g_free);
  t->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  for (guint i = 0; columns[i] != NULL; i++)
    g_ptr_array_add (t->headers, title (columns[i]));
  return t;
}

void
ab_table_free (AbTable *t)
{
  if (t == NULL)
    return;
  g_ptr_array_unref (t->headers);
  g_ptr_array_unref (t->rows);
  g_free (t);
}

guint
ab_table_rows (const AbTable *t)
{
  return t->rows->len;
}

void
ab_table_add_row (AbTable *t, const gchar *const *cells)
{
  gchar **row = g_new0 (gchar *, t->headers->len + 1);
  for (guint i = 0; i < t->headers->len; i++)
    row[i] = g_strdup (cells[i] != NULL ? cells[i] : "");
  g_ptr_array_add (t->rows, row);
}

void
ab_table_add (AbTable *t, ...)
{
  g_autoptr (GPtrArray) cells = g_ptr_array_new ();
  va_list ap;
  va_start (ap, t);
  for (guint i = 0; i < t->headers->len; i++)
    g_ptr_array_add (cells, va_arg (ap, gchar *));
  va_end (ap);
  ab_table_add_row (t, (const gchar *const *) cells->pdata);
}

gsize
ab_display_width (const gchar *text)
{
  gsize w = 0;
  if (!g_utf8_validate (text, -1, NULL))
    return strlen (text);
  for (const gchar *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (g_unichar_iszerowidth (c))
        continue;
      w += g_unichar_iswide (c) ? 2 : 1;
    }
  return w;
}

static void
pad_cell (GString *out, const gchar *text, gsize width, gboolean colour)
{
  g_string_append_c (out, ' ');
  if (colour)
    g_string_append (out, "\033[34m");
  g_string_append (out, text);
  for (gsize w = ab_display_width (text); w < width; w++)
    g_string_append_c (out, ' ');
  if (colour)
    g_string_append (out, "\033[0m");
  g_string_append (out, " |");
}

static void
rule (GString *out, const gsize *widths, guint n)
{
  g_string_append_c (out, '|');
  for (guint i = 0; i < n; i++)
    {
      for (gsize k = 0; k < widths[i] + 2; k++)
        g_string_append_c (out, '-');
      g_string_append_c (out, '|');
    }
  g_string_append_c (out, '\n');
}

/* One row: as many physical lines as its tallest cell. */
static void
render_row (GString *out, GStrv cells, const gsize *widths, guint n, gboolean colour)
{
  g_autoptr (GPtrArray) split = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  guint height = 1;
  for (guint i = 0; i < n; i++)
    {
      gchar **lines = g_strsplit (cells[i], "\n", -1);
      height = MAX (height, g_strv_length (lines));
      g_ptr_array_add (split, lines);
    }
  for (guint line = 0; line < height; line++)
    {
      g_string_append_c (out, '|');
      for (guint i = 0; i < n; i++)
        {
          gchar **lines = split->pdata[i];
          const gchar *text = line < g_strv_length (lines) ? lines[line] : "";
          pad_cell (out, text, widths[i], colour);
        }
      g_string_append_c (out, '\n');
    }
}

void
ab_table_render (const AbTable *t, gboolean colour, GString *out)
{
  guint n = t->headers->len;
  g_autofree gsize *widths = g_new0 (gsize, n);
  g_autoptr (GPtrArray) rows = g_ptr_array_new ();
  gchar **empty = g_new0 (gchar *, n + 1);
  for (guint i = 0; i < n; i++)
    empty[i] = g_strdup ("");
  for (guint r = 0; r < t->rows->len; r++)
    g_ptr_array_add (rows, t->rows->pdata[r]);
  if (rows->len == 0)
    g_ptr_array_add (rows, empty);
  for (guint i = 0; i < n; i++)
    widths[i] = ab_display_width (t->headers->pdata[i]);
  for (guint r = 0; r < rows->len; r++)
    for (guint i = 0; i < n; i++)
      {
        g_auto (GStrv) lines = g_strsplit (((gchar **) rows->pdata[r])[i], "\n", -1);
        for (guint k = 0; lines[k] != NULL; k++)
          widths[i] = MAX (widths[i], ab_display_width (lines[k]));
      }
  rule (out, widths, n);
  render_row (out, (GStrv) t->headers->pdata, widths, n, FALSE);
  rule (out, widths, n);
  for (guint r = 0; r < rows->len; r++)
    render_row (out, rows->pdata[r], widths, n, colour);
  rule (out, widths, n);
  g_string_truncate (out, out->len - 1);
  g_strfreev (empty);
}

/* ---- cells ---- */

/* A float the way Go's %v prints it: integral values without a fraction,
 * otherwise the shortest text that reads back to the same double. */
static void
append_go_float (GString *out, gdouble v)
{
  if (isfinite (v) && v == floor (v) && fabs (v) < 1e21)
    {
      g_string_append_printf (out, "%.0f", v);
      return;
    }
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (gint p = 1; p <= 17; p++)
    {
      g_autofree gchar *fmt = g_strdup_printf ("%%.%dg", p);
      g_ascii_formatd (buf, sizeof buf, fmt, v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  g_string_append (out, buf);
}

static gint
compare_keys (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *) a, *(const gchar *const *) b);
}

static void append_nested (GString *out, JsonNode *node);

static void
append_object (GString *out, JsonObject *o)
{
  g_autoptr (GList) members = json_object_get_members (o);
  g_autoptr (GPtrArray) keys = g_ptr_array_new ();
  for (GList *l = members; l != NULL; l = l->next)
    g_ptr_array_add (keys, l->data);
  g_ptr_array_sort (keys, compare_keys);
  g_string_append (out, "map[");
  for (guint i = 0; i < keys->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ' ');
      g_string_append_printf (out, "%s:", (const gchar *) keys->pdata[i]);
      append_nested (out, json_object_get_member (o, keys->pdata[i]));
    }
  g_string_append_c (out, ']');
}

/* Values inside lists and maps keep their fraction; nil reads "<nil>". */
static void
append_nested (GString *out, JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    g_string_append (out, "<nil>");
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *a = json_node_get_array (node);
      g_string_append_c (out, '[');
      for (guint i = 0; i < json_array_get_length (a); i++)
        {
          if (i > 0)
            g_string_append_c (out, ' ');
          append_nested (out, json_array_get_element (a, i));
        }
      g_string_append_c (out, ']');
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    append_object (out, json_node_get_object (node));
  else if (json_node_get_value_type (node) == G_TYPE_STRING)
    g_string_append (out, json_node_get_string (node));
  else if (json_node_get_value_type (node) == G_TYPE_BOOLEAN)
    g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
  else
    append_go_float (out, json_node_get_double (node));
}

gchar *
ab_cell_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return g_strdup ("null");
  if (JSON_NODE_HOLDS_VALUE (node))
    {
      GType t = json_node_get_value_type (node);
      if (t == G_TYPE_STRING)
        return g_strdup (json_node_get_string (node));
      if (t == G_TYPE_BOOLEAN)
        return g_strdup (json_node_get_boolean (node) ? "true" : "false");
      if (t == G_TYPE_INT64)
        return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
      gdouble v = trunc (json_node_get_double (node));
      if (!isfinite (v) || fabs (v) >= 9.2e18)
        return g_strdup_printf ("%.0f", v);
      return g_strdup_printf ("%" G_GINT64_FORMAT, (gint64) v);
    }
  GString *out = g_string_new (NULL);
  append_nested (out, node);
  return g_string_free (out, FALSE);
}

gchar *
ab_cell_properties (JsonNode *node)
{
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return g_strdup ("");
  JsonObject *o = json_node_get_object (node);
  g_autoptr (GList) members = json_object_get_members (o);
  GString *out = g_string_new (NULL);
  for (GList *l = members; l != NULL; l = l->next)
    {
      g_autofree gchar *v = ab_cell_text (json_object_get_member (o, l->data));
      if (out->len > 0)
        g_string_append_c (out, '\n');
      g_string_append_printf (out, "%s: %s", (const gchar *) l->data, v);
    }
  return g_string_free (out, FALSE);
}

gchar *
ab_format_grouped (gint64 v)
{
  g_autofree gchar *digits
      = g_strdup_printf ("%" G_GUINT64_FORMAT, v < 0 ? (guint64) 0 - (guint64) v : (guint64) v);
  GString *out = g_string_new (v < 0 ? "-" : "");
  gsize n = strlen (digits);
  for (gsize i = 0; i < n; i++)
    {
      if (i > 0 && (n - i) % 3 == 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, digits[i]);
    }
  return g_string_free (out, FALSE);
}
