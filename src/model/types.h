/* Schema primitive types (boolean .. object), their JSON names, and casting of
 * JSON values and query-string text to a field's type with upstream's rules
 * (docs/data-model.md §3.3, docs/rest-api.md §1.1). Errors name the field. */
#pragma once
#include <glib.h>
#include <json-glib/json-glib.h>
#include "codec/value.h"

#define AB_MODEL_ERROR (ab_model_error_quark ())
GQuark ab_model_error_quark (void);

typedef enum {
  AB_MODEL_ERROR_INVALID, /* bad input: the REST layer answers 400 */
} AbModelError;

typedef enum {
  AB_TYPE_BOOLEAN,
  AB_TYPE_BYTE,
  AB_TYPE_SHORT,
  AB_TYPE_INT,
  AB_TYPE_LONG,
  AB_TYPE_FLOAT,
  AB_TYPE_DOUBLE,
  AB_TYPE_STRING,
  AB_TYPE_OBJECT,
} AbType;

/* names[i] of a static table of names indexed by an enum, or "UNKNOWN" when i
 * lies past the table or has no entry: a bad value never reads out of bounds. */
#define AB_ENUM_NAME(names, i)                                                               \
  ((guint) (i) < G_N_ELEMENTS (names) && (names)[(guint) (i)] != NULL ? (names)[(guint) (i)] \
                                                                      : "UNKNOWN")

/* Sets AB_MODEL_ERROR_INVALID with a printf message; returns FALSE. */
gboolean ab_model_invalid (GError **error, const gchar *fmt, ...) G_GNUC_PRINTF (2, 3);

/* Lower-case v3 JSON name ("long"); upper-case v2 name ("LONG"). */
const gchar *ab_type_name (AbType type);
const gchar *ab_type_v2_name (AbType type);
/* Case-insensitive; FALSE for unknown names. */
gboolean ab_type_parse (const gchar *name, AbType *out);
AbValueKind ab_type_value_kind (AbType type);
gboolean ab_type_is_numeric (AbType type);

/* JSON value -> typed value. A JSON null (or node == NULL) gives a null value.
 * Numbers from strings ("123" -> long), integral doubles to integer types,
 * range checks per width, booleans from true/false or "true"/"false";
 * object type keeps compact JSON text. Errors: AB_MODEL_ERROR_INVALID naming
 * `field`. */
gboolean ab_model_cast_json (JsonNode *node, AbType type, const gchar *field, AbValue *out,
                             GError **error);
/* Query-string text -> typed value (start=, source=, ranges values). */
gboolean ab_model_cast_text (const gchar *text, AbType type, const gchar *field, AbValue *out,
                             GError **error);
/* Typed value -> typed value of the field's type (the library's typed
 * mutations): the same rules as ab_model_cast_json for the JSON value the
 * input would be (integers range-checked per width, numbers from strings,
 * strings validated as UTF-8 without U+0000); a value already of the field's
 * kind is copied after that check. A null input gives a null value. */
gboolean ab_model_cast_value (const AbValue *in, AbType type, const gchar *field, AbValue *out,
                              GError **error);
/* The same for a value only read: *out is in itself when it already has
 * the type (checked as the cast checks it), else *scratch (clear it after). */
gboolean ab_model_cast_view (const AbValue *in, AbType type, const gchar *field, AbValue *scratch,
                             const AbValue **out, GError **error);
/* Parses a JSON request body (len -1: NUL-terminated). Stricter than
 * json-glib alone, which silently truncates a string at an escaped \u0000
 * and wraps integers beyond 64 bits: both are rejected here, as are raw NUL
 * bytes, doubles beyond the double range, nesting deeper than 1000 levels,
 * malformed JSON and an empty body.
 * Errors: AB_MODEL_ERROR_INVALID. Every request body should come through
 * here so that casting never sees a silently altered value. */
JsonNode *ab_model_json_parse (const gchar *data, gssize len, GError **error);
/* A copy sharing nothing with node (json_node_copy shares objects, arrays
 * and values, and json-glib counts their references without atomics): for
 * trees one thread keeps while others read and change their copies. */
JsonNode *ab_model_json_deep_copy (JsonNode *node);

/* The shortest decimal that reads back as the same float, widened to double,
 * so that 0.1f is answered as 0.1 and not 0.10000000149011612. */
gdouble ab_model_float_for_json (gdouble f);
/* Typed value -> JSON node for responses (json kind is parsed back; a
 * string that does not parse stays a string). */
JsonNode *ab_model_value_to_json (const AbValue *v);
