/* AbJsonw: the streaming JSON writer of the REST data path. It appends
 * compact JSON straight into a GString, byte for byte as json-glib 1.6's
 * generator writes the same document, except where json-glib's is not JSON. */
#pragma once
#include <glib.h>
#include <json-glib/json-glib.h>
#include "codec/value.h"

/* Output rules (the json-glib generator's, see tests/unit/rest/test_jsonw.c):
 * - strings: '"' and '\\' escaped with a backslash; \b \f \n \r \t short
 *   escapes; other bytes 0x01..0x1f and 0x7f as \u00xx (lower-case hex);
 *   every other byte, invalid UTF-8 included, copied as is. json-glib leaves
 *   0x1f raw (not JSON): it is escaped here.
 * - integers in decimal; doubles as g_ascii_dtostr ("%.17g") with ".0"
 *   appended when there is neither '.' nor exponent. json-glib appends ".0"
 *   after an exponent too ("1e+22.0", not JSON) and prints "nan.0"/"inf.0":
 *   here "1e+22" and null.
 * - member names are written as given: a caller never repeats one in an
 *   object (json-glib would keep the first position with the last value).
 * Commas are placed by the writer; nesting is not checked. */
typedef struct {
  GString *out;
  gboolean comma; /* a value was written at this level: the next needs ',' */
} AbJsonw;

/* Starts a document in a new buffer of `reserve` bytes (grows as needed). */
void ab_jsonw_init (AbJsonw *w, gsize reserve);
/* Frees the buffer (error paths; a no-op after ab_jsonw_finish). */
void ab_jsonw_clear (AbJsonw *w);
/* The document as bytes (no copy); the writer is empty afterwards. */
GBytes *ab_jsonw_finish (AbJsonw *w);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AbJsonw, ab_jsonw_clear)

void ab_jsonw_begin_object (AbJsonw *w);
void ab_jsonw_end_object (AbJsonw *w);
void ab_jsonw_begin_array (AbJsonw *w);
void ab_jsonw_end_array (AbJsonw *w);
/* The next member's name (NUL-terminated); its value must follow. */
void ab_jsonw_key (AbJsonw *w, const gchar *name);

/* A string value up to its NUL; NULL writes null. */
void ab_jsonw_string (AbJsonw *w, const gchar *s);
/* len bytes of s (a 0x00 byte is written as \u0000). */
void ab_jsonw_string_len (AbJsonw *w, const gchar *s, gsize len);
void ab_jsonw_int (AbJsonw *w, gint64 v);
void ab_jsonw_double (AbJsonw *w, gdouble v);
void ab_jsonw_bool (AbJsonw *w, gboolean v);
void ab_jsonw_null (AbJsonw *w);
/* A json-glib tree, as json_to_string (node, FALSE) would write it (with
 * the rules above); NULL writes null. */
void ab_jsonw_node (AbJsonw *w, JsonNode *node);

/* Members: key then value. */
void ab_jsonw_member_string (AbJsonw *w, const gchar *name, const gchar *s);
void ab_jsonw_member_int (AbJsonw *w, const gchar *name, gint64 v);
void ab_jsonw_member_bool (AbJsonw *w, const gchar *name, gboolean v);
/* name: {} */
void ab_jsonw_member_empty_object (AbJsonw *w, const gchar *name);

/* A typed value as its JSON (json kind parsed back and written as JSON;
 * text that does not parse stays a string; a float as the number it reads
 * as), and as member `name`. */
void ab_jsonw_value (AbJsonw *w, const AbValue *v);
void ab_jsonw_member_value (AbJsonw *w, const gchar *name, const AbValue *v);
