/* AbValue: the typed scalar every layer passes around (null, bool, the four
 * integer widths, the two float widths, string, json text). It owns its string
 * bytes; copy with ab_value_copy, release with ab_value_clear. */
#pragma once
#include <glib.h>

typedef enum {
  AB_VALUE_NULL = 0,
  AB_VALUE_BOOL,
  AB_VALUE_INT8,
  AB_VALUE_INT16,
  AB_VALUE_INT32,
  AB_VALUE_INT64,
  AB_VALUE_FLOAT32,
  AB_VALUE_FLOAT64,
  AB_VALUE_STRING, /* UTF-8, no U+0000 inside */
  AB_VALUE_JSON,   /* compact JSON text, no raw 0x00 inside */
} AbValueKind;

typedef struct {
  AbValueKind kind;
  /* strings: data belongs to an arena that outlives the value (a scan
   * page's strings, AbEdgeFrame.strings): clear leaves it, copy duplicates */
  gboolean borrowed;
  union {
    gboolean b;
    gint64 i;  /* INT8..INT64, already range-checked for the width */
    gdouble f; /* FLOAT32 holds a value exactly representable as float */
    struct {
      gchar *data; /* owned, NUL-terminated for convenience */
      gsize len;   /* bytes, excluding the terminator */
    } s;
  } u;
} AbValue;

#define AB_VALUE_INIT     \
  {                       \
    .kind = AB_VALUE_NULL \
  }

/* Releases what v owns (not a borrowed string) and leaves it null. Inline:
 * the read paths clear several values per edge, most of them numbers. */
static inline void
ab_value_clear (AbValue *v)
{
  if ((v->kind == AB_VALUE_STRING || v->kind == AB_VALUE_JSON) && !v->borrowed)
    g_free (v->u.s.data);
  *v = (AbValue) AB_VALUE_INIT;
}

void ab_value_copy (AbValue *dst, const AbValue *src); /* dst must be clear */
void ab_value_set_null (AbValue *v);
void ab_value_set_bool (AbValue *v, gboolean b);
void ab_value_set_int (AbValue *v, AbValueKind kind, gint64 i);
void ab_value_set_float (AbValue *v, AbValueKind kind, gdouble f);
/* Copies len bytes; kind is AB_VALUE_STRING or AB_VALUE_JSON. */
void ab_value_set_string (AbValue *v, AbValueKind kind, const gchar *data, gsize len);
/* Takes ownership of a g_malloc'd string. */
void ab_value_take_string (AbValue *v, AbValueKind kind, gchar *data, gsize len);
/* Points at a NUL-terminated string someone else keeps alive (borrowed). */
void ab_value_borrow_string (AbValue *v, AbValueKind kind, gchar *data, gsize len);

static inline gboolean
ab_value_is_null (const AbValue *v)
{
  return v->kind == AB_VALUE_NULL;
}

gboolean ab_value_equal (const AbValue *a, const AbValue *b);
/* Total order consistent with the ASC element encoding of equal kinds
 * (sign(ab_value_compare) == sign(memcmp(enc(a), enc(b)))). */
gint ab_value_compare (const AbValue *a, const AbValue *b);
/* Plain text form: numbers in decimal, strings as is, bool true/false,
 * null "null" (used for the "<source>:<target>" sort key and messages). */
/* Appends what ab_value_to_string returns. */
void ab_value_append_string (GString *out, const AbValue *v);
gchar *ab_value_to_string (const AbValue *v);
