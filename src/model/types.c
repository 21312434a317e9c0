/* Primitive type names and the casting of JSON values and query-string text
 * to a field's type (docs/data-model.md §3.3): per-width range checks, numeric
 * strings, integral doubles, stringified scalars, object type as JSON text. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "model/types.h"
#include "model/json_get.h"
#include "codec/element.h"
#include "codec/fail.h"

G_DEFINE_QUARK (ab - model - error - quark, ab_model_error)

typedef struct {
  const gchar *v3;
  const gchar *v2;
  AbValueKind kind;
  gint64 min, max; /* integer widths only */
} AbTypeInfo;

static const AbTypeInfo type_info[] = {
  [AB_TYPE_BOOLEAN] = { "boolean", "BOOLEAN", AB_VALUE_BOOL, 0, 0 },
  [AB_TYPE_BYTE] = { "byte", "BYTE", AB_VALUE_INT8, G_MININT8, G_MAXINT8 },
  [AB_TYPE_SHORT] = { "short", "SHORT", AB_VALUE_INT16, G_MININT16, G_MAXINT16 },
  [AB_TYPE_INT] = { "int", "INT", AB_VALUE_INT32, G_MININT32, G_MAXINT32 },
  [AB_TYPE_LONG] = { "long", "LONG", AB_VALUE_INT64, G_MININT64, G_MAXINT64 },
  [AB_TYPE_FLOAT] = { "float", "FLOAT", AB_VALUE_FLOAT32, 0, 0 },
  [AB_TYPE_DOUBLE] = { "double", "DOUBLE", AB_VALUE_FLOAT64, 0, 0 },
  [AB_TYPE_STRING] = { "string", "STRING", AB_VALUE_STRING, 0, 0 },
  /* upstream v2 calls the object type JSON */
  [AB_TYPE_OBJECT] = { "object", "JSON", AB_VALUE_JSON, 0, 0 },
};

#define SHOW_MAX_CHARS 64

gboolean
ab_model_invalid (GError **error, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  ab_fail_valist (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID, fmt, ap);
  va_end (ap);
  return FALSE;
}

const gchar *
ab_type_name (AbType type)
{
  return (guint) type < G_N_ELEMENTS (type_info) ? type_info[type].v3 : "UNKNOWN";
}

const gchar *
ab_type_v2_name (AbType type)
{
  return (guint) type < G_N_ELEMENTS (type_info) ? type_info[type].v2 : "UNKNOWN";
}

gboolean
ab_type_parse (const gchar *name, AbType *out)
{
  if (name == NULL)
    return FALSE;
  for (guint t = 0; t < G_N_ELEMENTS (type_info); t++)
    if (g_ascii_strcasecmp (name, type_info[t].v3) == 0
        || g_ascii_strcasecmp (name, type_info[t].v2) == 0)
      {
        *out = (AbType) t;
        return TRUE;
      }
  return FALSE;
}

AbValueKind
ab_type_value_kind (AbType type)
{
  return type_info[type].kind;
}

gboolean
ab_type_is_numeric (AbType type)
{
  return type >= AB_TYPE_BYTE && type <= AB_TYPE_DOUBLE;
}

static gboolean
type_is_integer (AbType type)
{
  return type >= AB_TYPE_BYTE && type <= AB_TYPE_LONG;
}

/* A value as shown inside an error message: long text is cut short so that a
 * hostile payload cannot blow up the error body. */
static gchar *
show_text (const gchar *text, gboolean quote)
{
  g_autofree gchar *cut = NULL;
  if (!g_utf8_validate (text, -1, NULL))
    return g_strdup ("<invalid UTF-8>");
  if (g_utf8_strlen (text, -1) > SHOW_MAX_CHARS)
    {
      g_autofree gchar *head = g_utf8_substring (text, 0, SHOW_MAX_CHARS);
      cut = g_strconcat (head, "...", NULL);
    }
  else
    cut = g_strdup (text);
  return quote ? g_strdup_printf ("'%s'", cut) : g_steal_pointer (&cut);
}

static gchar *
show_node (JsonNode *node)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    return show_text (json_node_get_string (node), TRUE);
  g_autofree gchar *text = json_to_string (node, FALSE);
  return show_text (text, FALSE);
}

static gboolean
cast_fail (GError **error, const gchar *field, AbType type, const gchar *shown, const gchar *why)
{
  g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID, "Property '%s' must be a %s: %s%s%s",
               field ? field : "?", ab_type_name (type), shown, why ? " " : "", why ? why : "");
  return FALSE;
}

static gboolean
range_fail (GError **error, const gchar *field, AbType type, const gchar *shown)
{
  g_autofree gchar *why = NULL;
  if (type_is_integer (type))
    why = g_strdup_printf ("(out of range %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT ")",
                           type_info[type].min, type_info[type].max);
  else
    why = g_strdup ("(out of range)");
  return cast_fail (error, field, type, shown, why);
}

/* Strict decimal number syntax: [+-]? digits [. digits] [e [+-] digits],
 * with at least one mantissa digit. Rejects "nan", "inf", hex and spaces,
 * which g_ascii_strtod alone would accept. */
static gboolean
is_decimal_number (const gchar *s)
{
  const gchar *p = s;
  gboolean digits = FALSE;
  if (*p == '+' || *p == '-')
    p++;
  while (g_ascii_isdigit (*p))
    p++, digits = TRUE;
  if (*p == '.')
    for (p++; g_ascii_isdigit (*p); p++)
      digits = TRUE;
  if (!digits)
    return FALSE;
  if (*p == 'e' || *p == 'E')
    {
      p++;
      if (*p == '+' || *p == '-')
        p++;
      if (!g_ascii_isdigit (*p))
        return FALSE;
      while (g_ascii_isdigit (*p))
        p++;
    }
  return *p == '\0';
}

static gboolean
set_checked_float (AbValue *out, AbType type, gdouble d, const gchar *field, const gchar *shown,
                   GError **error)
{
  if (!isfinite (d) || (type == AB_TYPE_FLOAT && fabs (d) > FLT_MAX))
    return range_fail (error, field, type, shown);
  ab_value_set_float (out, type_info[type].kind, d);
  return TRUE;
}

static gboolean
set_checked_int (AbValue *out, AbType type, gint64 i, const gchar *field, const gchar *shown,
                 GError **error)
{
  if (i < type_info[type].min || i > type_info[type].max)
    return range_fail (error, field, type, shown);
  ab_value_set_int (out, type_info[type].kind, i);
  return TRUE;
}

/* An integral double such as 5.0 is accepted for integer types. */
static gboolean
set_int_from_double (AbValue *out, AbType type, gdouble d, const gchar *field, const gchar *shown,
                     GError **error)
{
  if (!isfinite (d) || d != floor (d))
    return cast_fail (error, field, type, shown, "(not an integer)");
  /* 2^63 is exactly representable; anything >= it overflows gint64 */
  if (d < -9223372036854775808.0 || d >= 9223372036854775808.0)
    return range_fail (error, field, type, shown);
  return set_checked_int (out, type, (gint64) d, field, shown, error);
}

static gboolean
cast_number_text (const gchar *text, AbType type, const gchar *field, AbValue *out, GError **error)
{
  g_autofree gchar *shown = show_text (text, TRUE);
  if (type_is_integer (type))
    {
      gint64 i;
      g_autoptr (GError) perr = NULL;
      if (g_ascii_string_to_signed (text, 10, type_info[type].min, type_info[type].max, &i, &perr))
        return set_checked_int (out, type, i, field, shown, error);
      if (g_error_matches (perr, G_NUMBER_PARSER_ERROR, G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS))
        return range_fail (error, field, type, shown);
      return cast_fail (error, field, type, shown, NULL);
    }
  if (!is_decimal_number (text))
    return cast_fail (error, field, type, shown, NULL);
  return set_checked_float (out, type, g_ascii_strtod (text, NULL), field, shown, error);
}

static gboolean
cast_bool_text (const gchar *text, const gchar *field, AbValue *out, GError **error)
{
  if (g_ascii_strcasecmp (text, "true") == 0)
    ab_value_set_bool (out, TRUE);
  else if (g_ascii_strcasecmp (text, "false") == 0)
    ab_value_set_bool (out, FALSE);
  else
    {
      g_autofree gchar *shown = show_text (text, TRUE);
      return cast_fail (error, field, AB_TYPE_BOOLEAN, shown, NULL);
    }
  return TRUE;
}

/* Strings must be UTF-8 without U+0000 (codec strings are 0x00-terminated).
 * `len` is the real byte length, so an embedded NUL shows as strlen < len. */
static gboolean
check_string_bytes (const gchar *data, gsize len, const gchar *field, GError **error)
{
  if (ab_text_is_ascii (data, len)) /* most ids: one pass, no library scans */
    return TRUE;
  if (memchr (data, '\0', len) != NULL)
    {
      g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID,
                   "Property '%s' must not contain the NUL character (U+0000)",
                   field ? field : "?");
      return FALSE;
    }
  if (!g_utf8_validate (data, len, NULL))
    {
      g_set_error (error, AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID,
                   "Property '%s' is not valid UTF-8", field ? field : "?");
      return FALSE;
    }
  return TRUE;
}

static gboolean
cast_string_bytes (const gchar *data, gsize len, const gchar *field, AbValue *out, GError **error)
{
  if (!check_string_bytes (data, len, field, error))
    return FALSE;
  ab_value_set_string (out, AB_VALUE_STRING, data, len);
  return TRUE;
}

/* Shortest decimal text that reads back as the same double, Java style
 * ("5.0", not "5"), for numbers sent where a string is expected. */
static gchar *
double_to_text (gdouble d)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  static const gchar *formats[] = { "%.15g", "%.16g", "%.17g" };
  for (guint k = 0; k < G_N_ELEMENTS (formats); k++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[k], d);
      if (g_ascii_strtod (buf, NULL) == d)
        break;
    }
  if (strpbrk (buf, ".eEni") == NULL)
    return g_strconcat (buf, ".0", NULL);
  return g_strdup (buf);
}

static gboolean
cast_object (JsonNode *node, AbValue *out)
{
  gchar *text = json_to_string (node, FALSE);
  ab_value_take_string (out, AB_VALUE_JSON, text, strlen (text));
  return TRUE;
}

static gboolean
cast_scalar_string (JsonNode *node, AbType type, const gchar *field, AbValue *out, GError **error)
{
  const gchar *s = json_node_get_string (node);
  switch (type)
    {
      case AB_TYPE_STRING: return cast_string_bytes (s, strlen (s), field, out, error);
      case AB_TYPE_BOOLEAN: return cast_bool_text (s, field, out, error);
      default: return cast_number_text (s, type, field, out, error);
    }
}

static gboolean
cast_scalar_int (gint64 i, AbType type, const gchar *field, AbValue *out, const gchar *shown,
                 GError **error)
{
  if (type == AB_TYPE_STRING)
    {
      gchar *text = g_strdup_printf ("%" G_GINT64_FORMAT, i);
      ab_value_take_string (out, AB_VALUE_STRING, text, strlen (text));
      return TRUE;
    }
  if (type == AB_TYPE_BOOLEAN)
    return cast_fail (error, field, type, shown, NULL);
  if (type_is_integer (type))
    return set_checked_int (out, type, i, field, shown, error);
  return set_checked_float (out, type, (gdouble) i, field, shown, error);
}

static gboolean
cast_scalar_double (gdouble d, AbType type, const gchar *field, AbValue *out, const gchar *shown,
                    GError **error)
{
  if (type == AB_TYPE_STRING)
    {
      if (!isfinite (d))
        return range_fail (error, field, type, shown);
      gchar *text = double_to_text (d);
      ab_value_take_string (out, AB_VALUE_STRING, text, strlen (text));
      return TRUE;
    }
  if (type == AB_TYPE_BOOLEAN)
    return cast_fail (error, field, type, shown, NULL);
  if (type_is_integer (type))
    return set_int_from_double (out, type, d, field, shown, error);
  return set_checked_float (out, type, d, field, shown, error);
}

static gboolean
cast_scalar_bool (gboolean b, AbType type, const gchar *field, AbValue *out, const gchar *shown,
                  GError **error)
{
  if (type == AB_TYPE_BOOLEAN)
    {
      ab_value_set_bool (out, b);
      return TRUE;
    }
  if (type == AB_TYPE_STRING)
    {
      ab_value_set_string (out, AB_VALUE_STRING, b ? "true" : "false", b ? 4 : 5);
      return TRUE;
    }
  return cast_fail (error, field, type, shown, NULL);
}

gboolean
ab_model_cast_json (JsonNode *node, AbType type, const gchar *field, AbValue *out, GError **error)
{
  ab_value_clear (out);
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (type == AB_TYPE_OBJECT)
    return cast_object (node, out);
  g_autofree gchar *shown = show_node (node);
  if (!JSON_NODE_HOLDS_VALUE (node))
    return cast_fail (error, field, type, shown, NULL);
  GType vt = json_node_get_value_type (node);
  if (vt == G_TYPE_STRING)
    return cast_scalar_string (node, type, field, out, error);
  if (vt == G_TYPE_INT64)
    return cast_scalar_int (json_node_get_int (node), type, field, out, shown, error);
  if (vt == G_TYPE_DOUBLE)
    return cast_scalar_double (json_node_get_double (node), type, field, out, shown, error);
  if (vt == G_TYPE_BOOLEAN)
    return cast_scalar_bool (json_node_get_boolean (node), type, field, out, shown, error);
  return cast_fail (error, field, type, shown, NULL);
}

gboolean
ab_model_cast_value (const AbValue *in, AbType type, const gchar *field, AbValue *out,
                     GError **error)
{
  ab_value_clear (out);
  AbValueKind want = ab_type_value_kind (type);
  if (in->kind == AB_VALUE_NULL)
    return TRUE;
  if (in->kind == AB_VALUE_STRING && type != AB_TYPE_OBJECT)
    {
      if (type == AB_TYPE_STRING)
        return cast_string_bytes (in->u.s.data, in->u.s.len, field, out, error);
      if (memchr (in->u.s.data, '\0', in->u.s.len) != NULL)
        return cast_string_bytes (in->u.s.data, in->u.s.len, field, out, error);
      return ab_model_cast_text (in->u.s.data, type, field, out, error);
    }
  if (in->kind == want && in->kind != AB_VALUE_JSON)
    {
      ab_value_copy (out, in);
      return TRUE;
    }
  if (in->kind >= AB_VALUE_INT8 && in->kind <= AB_VALUE_INT64 && type_is_integer (type))
    {
      if (in->u.i >= type_info[type].min && in->u.i <= type_info[type].max)
        {
          ab_value_set_int (out, type_info[type].kind, in->u.i);
          return TRUE;
        }
      g_autofree gchar *shown = g_strdup_printf ("%" G_GINT64_FORMAT, in->u.i);
      return range_fail (error, field, type, shown);
    }
  /* Everything else as the JSON value it would be. */
  g_autoptr (JsonNode) node = ab_model_value_to_json (in);
  return ab_model_cast_json (node, type, field, out, error);
}

/* Object-typed text: JSON text is kept (compacted); anything else is taken
 * as a plain string and stored as a JSON string. */
static gboolean
cast_object_text (const gchar *text, AbValue *out)
{
  g_autoptr (JsonNode) node = ab_model_json_parse (text, -1, NULL);
  if (node == NULL)
    {
      node = json_node_new (JSON_NODE_VALUE);
      json_node_set_string (node, text);
    }
  return cast_object (node, out);
}

gboolean
ab_model_cast_text (const gchar *text, AbType type, const gchar *field, AbValue *out,
                    GError **error)
{
  ab_value_clear (out);
  if (text == NULL)
    return TRUE;
  switch (type)
    {
      case AB_TYPE_STRING: return cast_string_bytes (text, strlen (text), field, out, error);
      case AB_TYPE_BOOLEAN: return cast_bool_text (text, field, out, error);
      case AB_TYPE_OBJECT:
        if (!g_utf8_validate (text, -1, NULL))
          return cast_string_bytes (text, strlen (text), field, out, error);
        return cast_object_text (text, out);
      default: return cast_number_text (text, type, field, out, error);
    }
}

gdouble
ab_model_float_for_json (gdouble f)
{
  static const gchar *const formats[] = { "%.6g", "%.7g", "%.8g", "%.9g" };
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  if (!isfinite (f))
    return f;
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, sizeof buf, formats[i], f);
      if ((gfloat) g_ascii_strtod (buf, NULL) == (gfloat) f)
        return g_ascii_strtod (buf, NULL);
    }
  return f;
}

JsonNode *
ab_model_value_to_json (const AbValue *v)
{
  JsonNode *node = json_node_new (JSON_NODE_VALUE);
  switch (v->kind)
    {
      case AB_VALUE_NULL: return json_node_init_null (node);
      case AB_VALUE_BOOL: return json_node_init_boolean (node, v->u.b);
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: return json_node_init_int (node, v->u.i);
      case AB_VALUE_FLOAT32: return json_node_init_double (node, ab_model_float_for_json (v->u.f));
      case AB_VALUE_FLOAT64: return json_node_init_double (node, v->u.f);
      case AB_VALUE_STRING: return json_node_init_string (node, v->u.s.data);
      case AB_VALUE_JSON:
        {
          JsonNode *parsed = json_from_string (v->u.s.data, NULL);
          if (parsed != NULL)
            {
              json_node_unref (node);
              return parsed;
            }
          return json_node_init_string (node, v->u.s.data);
        }
    }
  return json_node_init_null (node);
}

gboolean
ab_model_cast_view (const AbValue *in, AbType type, const gchar *field, AbValue *scratch,
                    const AbValue **out, GError **error)
{
  if (in->kind == AB_VALUE_STRING && type == AB_TYPE_STRING)
    {
      if (!check_string_bytes (in->u.s.data, in->u.s.len, field, error))
        return FALSE;
      *out = in;
      return TRUE;
    }
  if (!ab_model_cast_value (in, type, field, scratch, error))
    return FALSE;
  *out = scratch;
  return TRUE;
}
