/* A purpose-built scanner for the flat JSON edge lines of bulk import: one
 * pass, no allocation beyond the members array, NUL-terminating string values
 * in place; every shape it is unsure of is declined and goes to json-glib. */
#include <string.h>
#include "admin/import_scan.h"

static const gchar *
skip_ws (const gchar *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
    p++;
  return p;
}

/* A value ends at whitespace, ',' or '}' (or the line's end, where the
 * caller fails on the missing '}'). */
static gboolean
delimiter (gchar c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ',' || c == '}' || c == '\0';
}

/* *pp at the opening quote; on success *pp is at the closing quote. No
 * escapes, no control characters, valid UTF-8. */
static gboolean
scan_string (const gchar **pp, const gchar **start, gsize *len)
{
  const gchar *s = *pp + 1, *p = s;
  gboolean ascii = TRUE;
  for (;; p++)
    {
      guchar c = (guchar) *p;
      if (c == '"')
        break;
      if (c == '\\' || c < 0x20) /* an escape, a control character, the end */
        return FALSE;
      if (c >= 0x80)
        ascii = FALSE;
    }
  if (!ascii && !g_utf8_validate_len (s, (gsize) (p - s), NULL))
    return FALSE;
  *start = s;
  *len = (gsize) (p - s);
  *pp = p;
  return TRUE;
}

/* An integer as JSON writes it, within gint64; a fraction or exponent
 * declines (json-glib reads it as a double). */
static gboolean
scan_int (const gchar **pp, gint64 *out)
{
  const gchar *p = *pp;
  gboolean neg = *p == '-';
  if (neg)
    p++;
  if (!g_ascii_isdigit (*p) || (*p == '0' && g_ascii_isdigit (p[1])))
    return FALSE;
  guint64 limit = neg ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64;
  guint64 n = 0;
  for (; g_ascii_isdigit (*p); p++)
    {
      guint d = (guint) (*p - '0');
      if (n > (limit - d) / 10)
        return FALSE;
      n = n * 10 + d;
    }
  if (!delimiter (*p))
    return FALSE;
  *out = neg ? (gint64) (0 - n) : (gint64) n;
  *pp = p;
  return TRUE;
}

static gboolean
literal (const gchar **pp, const gchar *word)
{
  gsize n = strlen (word);
  if (strncmp (*pp, word, n) != 0 || !delimiter ((*pp)[n]))
    return FALSE;
  *pp += n;
  return TRUE;
}

static gboolean
is_name (const AbImportMember *m, const gchar *name)
{
  gsize n = strlen (name);
  return m->name_len == n && memcmp (m->name, name, n) == 0;
}

/* The members of an object whose '{' *pp has passed; *pp ends after '}'. */
static gboolean
scan_object (const gchar **pp, GArray *members, gboolean in_props)
{
  const gchar *p = skip_ws (*pp);
  if (*p == '}')
    {
      *pp = p + 1;
      return TRUE;
    }
  for (;;)
    {
      AbImportMember m = { .in_props = in_props };
      p = skip_ws (p);
      if (*p != '"' || !scan_string (&p, &m.name, &m.name_len))
        return FALSE;
      p = skip_ws (p + 1);
      if (*p != ':')
        return FALSE;
      p = skip_ws (p + 1);
      if (*p == '"')
        {
          const gchar *s;
          gsize len;
          if (!scan_string (&p, &s, &len))
            return FALSE;
          m.value.kind = AB_VALUE_STRING;
          m.value.u.s.data = (gchar *) s;
          m.value.u.s.len = len;
          p++;
        }
      else if (*p == '-' || g_ascii_isdigit (*p))
        {
          gint64 i;
          if (!scan_int (&p, &i))
            return FALSE;
          m.value.kind = AB_VALUE_INT64;
          m.value.u.i = i;
        }
      else if (literal (&p, "true"))
        ab_value_set_bool (&m.value, TRUE);
      else if (literal (&p, "false"))
        ab_value_set_bool (&m.value, FALSE);
      else if (literal (&p, "null"))
        m.value.kind = AB_VALUE_NULL;
      else if (*p == '{' && !in_props && is_name (&m, "properties"))
        {
          m.is_object = TRUE;
          g_array_append_val (members, m);
          p++;
          if (!scan_object (&p, members, TRUE))
            return FALSE;
          goto next;
        }
      else
        return FALSE;
      g_array_append_val (members, m);
    next:
      p = skip_ws (p);
      if (*p == ',')
        {
          p++;
          continue;
        }
      if (*p != '}')
        return FALSE;
      *pp = p + 1;
      return TRUE;
    }
}

/* A name repeated at one level: json-glib keeps one of them; leave it to it. */
static gboolean
names_unique (GArray *members)
{
  for (guint i = 0; i < members->len; i++)
    {
      const AbImportMember *a = &g_array_index (members, AbImportMember, i);
      for (guint j = i + 1; j < members->len; j++)
        {
          const AbImportMember *b = &g_array_index (members, AbImportMember, j);
          if (a->in_props == b->in_props && a->name_len == b->name_len
              && memcmp (a->name, b->name, a->name_len) == 0)
            return FALSE;
        }
    }
  return TRUE;
}

gboolean
ab_import_scan_edge (gchar *line, GArray *members, gboolean terminate)
{
  g_array_set_size (members, 0);
  const gchar *p = skip_ws (line);
  if (*p != '{')
    return FALSE;
  p++;
  if (!scan_object (&p, members, FALSE) || *skip_ws (p) != '\0' || !names_unique (members))
    return FALSE;
  /* each string's closing quote becomes its terminator */
  for (guint i = 0; terminate && i < members->len; i++)
    {
      AbImportMember *m = &g_array_index (members, AbImportMember, i);
      if (!m->is_object && m->value.kind == AB_VALUE_STRING)
        m->value.u.s.data[m->value.u.s.len] = '\0';
    }
  return TRUE;
}
