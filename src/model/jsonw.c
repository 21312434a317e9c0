/* The streaming JSON writer (jsonw.h): escaping, number formatting and
 * comma placement for every data-path REST answer, written into one GString
 * without building a tree; json-glib trees are walked in place. */
#include <math.h>
#include <string.h>
#include "model/jsonw.h"
#include "model/types.h"

void
ab_jsonw_init (AbJsonw *w, gsize reserve)
{
  w->out = g_string_sized_new (reserve);
  w->comma = FALSE;
}

void
ab_jsonw_clear (AbJsonw *w)
{
  if (w->out != NULL)
    g_string_free (w->out, TRUE);
  w->out = NULL;
}

GBytes *
ab_jsonw_finish (AbJsonw *w)
{
  w->out->str[w->out->len] = '\0';
  GBytes *bytes = g_string_free_to_bytes (w->out);
  w->out = NULL;
  return bytes;
}

/* Appends n bytes. g_string_append_len is an out-of-line insert in GLib
 * 2.74 and showed in profiles: small appends are copied here instead (the
 * terminating NUL is written by ab_jsonw_finish). */
static inline void
put (GString *out, const gchar *p, gsize n)
{
  if (G_UNLIKELY (out->len + n >= out->allocated_len))
    {
      gsize len = out->len;
      g_string_set_size (out, len + n);
      out->len = len;
    }
  memcpy (out->str + out->len, p, n);
  out->len += n;
}

/* Before any value or key: the comma that separates it from the previous. */
static inline void
separate (AbJsonw *w)
{
  if (w->comma)
    g_string_append_c (w->out, ',');
}

static void
level_open (AbJsonw *w, gchar c)
{
  separate (w);
  g_string_append_c (w->out, c);
  w->comma = FALSE;
}

static void
level_close (AbJsonw *w, gchar c)
{
  g_string_append_c (w->out, c);
  w->comma = TRUE;
}

void
ab_jsonw_begin_object (AbJsonw *w)
{
  level_open (w, '{');
}
void
ab_jsonw_end_object (AbJsonw *w)
{
  level_close (w, '}');
}
void
ab_jsonw_begin_array (AbJsonw *w)
{
  level_open (w, '[');
}
void
ab_jsonw_end_array (AbJsonw *w)
{
  level_close (w, ']');
}

/* Bytes copied as they are: json-glib escapes 0x01..0x1e and 0x7f, we also
 * 0x1f (and 0x00, which json-glib never sees). */
static inline gboolean
plain (guchar c)
{
  return c >= 0x20 && c != '"' && c != '\\' && c != 0x7f;
}

static void
escaped (GString *out, const gchar *s, gsize len)
{
  static const gchar hex[] = "0123456789abcdef";
  const guchar *p = (const guchar *) s, *end = p + len;
  g_string_append_c (out, '"');
  while (p < end)
    {
      const guchar *run = p;
      while (p < end && plain (*p))
        p++;
      if (p > run)
        put (out, (const gchar *) run, (gsize) (p - run));
      if (p == end)
        break;
      gchar esc[6] = { '\\', 0 };
      gsize n = 2;
      switch (*p)
        {
          case '"': esc[1] = '"'; break;
          case '\\': esc[1] = '\\'; break;
          case '\b': esc[1] = 'b'; break;
          case '\f': esc[1] = 'f'; break;
          case '\n': esc[1] = 'n'; break;
          case '\r': esc[1] = 'r'; break;
          case '\t': esc[1] = 't'; break;
          default:
            memcpy (esc + 1, "u00", 3);
            esc[4] = hex[*p >> 4];
            esc[5] = hex[*p & 0xf];
            n = 6;
        }
      put (out, esc, n);
      p++;
    }
  g_string_append_c (out, '"');
}

void
ab_jsonw_key (AbJsonw *w, const gchar *name)
{
  separate (w);
  escaped (w->out, name, strlen (name));
  g_string_append_c (w->out, ':');
  w->comma = FALSE;
}

/* A scalar's text, after the separator; the next value needs a comma. */
static inline void
scalar (AbJsonw *w, const gchar *text, gsize len)
{
  separate (w);
  put (w->out, text, len);
  w->comma = TRUE;
}

void
ab_jsonw_string_len (AbJsonw *w, const gchar *s, gsize len)
{
  separate (w);
  escaped (w->out, s, len);
  w->comma = TRUE;
}

void
ab_jsonw_string (AbJsonw *w, const gchar *s)
{
  if (s == NULL)
    ab_jsonw_null (w);
  else
    ab_jsonw_string_len (w, s, strlen (s));
}

/* Decimal digits of v ending just before end; returns the first. */
static gchar *
digits (gchar *end, gint64 v)
{
  gchar *p = end;
  guint64 u = v < 0 ? (guint64) 0 - (guint64) v : (guint64) v;
  do
    {
      *--p = (gchar) ('0' + u % 10);
      u /= 10;
    }
  while (u != 0);
  if (v < 0)
    *--p = '-';
  return p;
}

void
ab_jsonw_int (AbJsonw *w, gint64 v)
{
  gchar buf[24];
  gchar *p = digits (buf + sizeof buf, v);
  scalar (w, p, (gsize) (buf + sizeof buf - p));
}

void
ab_jsonw_double (AbJsonw *w, gdouble v)
{
  if (!isfinite (v))
    return ab_jsonw_null (w);
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE + 2];
  /* whole numbers below 1e15 print all their digits under %.17g: no printf */
  if (fabs (v) < 1e15 && v == (gdouble) (gint64) v && !(v == 0 && signbit (v)))
    {
      gchar *end = buf + sizeof buf;
      memcpy (end - 2, ".0", 2);
      gchar *p = digits (end - 2, (gint64) v);
      return scalar (w, p, (gsize) (end - p));
    }
  g_ascii_dtostr (buf, G_ASCII_DTOSTR_BUF_SIZE, v);
  gsize len = strlen (buf);
  /* keep doubles from reading back as integers, as json-glib does */
  if (strpbrk (buf, ".e") == NULL)
    {
      memcpy (buf + len, ".0", 2);
      len += 2;
    }
  scalar (w, buf, len);
}

void
ab_jsonw_bool (AbJsonw *w, gboolean v)
{
  if (v)
    scalar (w, "true", 4);
  else
    scalar (w, "false", 5);
}

void
ab_jsonw_null (AbJsonw *w)
{
  scalar (w, "null", 4);
}

static void
node_value (AbJsonw *w, JsonNode *node)
{
  switch (json_node_get_value_type (node))
    {
      case G_TYPE_INT64: return ab_jsonw_int (w, json_node_get_int (node));
      case G_TYPE_DOUBLE: return ab_jsonw_double (w, json_node_get_double (node));
      case G_TYPE_BOOLEAN: return ab_jsonw_bool (w, json_node_get_boolean (node));
      case G_TYPE_STRING: return ab_jsonw_string (w, json_node_get_string (node));
      default: return ab_jsonw_null (w);
    }
}

void
ab_jsonw_node (AbJsonw *w, JsonNode *node)
{
  if (node == NULL)
    return ab_jsonw_null (w);
  switch (JSON_NODE_TYPE (node))
    {
      case JSON_NODE_VALUE: return node_value (w, node);
      case JSON_NODE_ARRAY:
        {
          JsonArray *a = json_node_get_array (node);
          ab_jsonw_begin_array (w);
          for (guint i = 0, n = json_array_get_length (a); i < n; i++)
            ab_jsonw_node (w, json_array_get_element (a, i));
          return ab_jsonw_end_array (w);
        }
      case JSON_NODE_OBJECT:
        {
          JsonObjectIter it;
          const gchar *name;
          JsonNode *member;
          ab_jsonw_begin_object (w);
          json_object_iter_init_ordered (&it, json_node_get_object (node));
          while (json_object_iter_next_ordered (&it, &name, &member))
            {
              ab_jsonw_key (w, name);
              ab_jsonw_node (w, member);
            }
          return ab_jsonw_end_object (w);
        }
      case JSON_NODE_NULL: break;
    }
  ab_jsonw_null (w);
}

void
ab_jsonw_member_string (AbJsonw *w, const gchar *name, const gchar *s)
{
  ab_jsonw_key (w, name);
  ab_jsonw_string (w, s);
}

void
ab_jsonw_member_int (AbJsonw *w, const gchar *name, gint64 v)
{
  ab_jsonw_key (w, name);
  ab_jsonw_int (w, v);
}

void
ab_jsonw_member_bool (AbJsonw *w, const gchar *name, gboolean v)
{
  ab_jsonw_key (w, name);
  ab_jsonw_bool (w, v);
}

void
ab_jsonw_member_empty_object (AbJsonw *w, const gchar *name)
{
  ab_jsonw_key (w, name);
  scalar (w, "{}", 2);
}

/* ---- typed values ---- */

void
ab_jsonw_value (AbJsonw *w, const AbValue *v)
{
  switch (v->kind)
    {
      case AB_VALUE_NULL: return ab_jsonw_null (w);
      case AB_VALUE_BOOL: return ab_jsonw_bool (w, v->u.b);
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: return ab_jsonw_int (w, v->u.i);
      case AB_VALUE_FLOAT32: return ab_jsonw_double (w, ab_model_float_for_json (v->u.f));
      case AB_VALUE_FLOAT64: return ab_jsonw_double (w, v->u.f);
      case AB_VALUE_STRING: return ab_jsonw_string (w, v->u.s.data);
      case AB_VALUE_JSON:
        {
          g_autoptr (JsonNode) parsed = json_from_string (v->u.s.data, NULL);
          if (parsed != NULL)
            return ab_jsonw_node (w, parsed);
          return ab_jsonw_string (w, v->u.s.data);
        }
    }
  ab_jsonw_null (w);
}

void
ab_jsonw_member_value (AbJsonw *w, const gchar *name, const AbValue *v)
{
  ab_jsonw_key (w, name);
  ab_jsonw_value (w, v);
}
