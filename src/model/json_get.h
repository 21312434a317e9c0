/* Typed access to the members of JSON request bodies, for the model, the
 * engine's query document and the REST handlers (one copy of each check).
 * Every error is AB_MODEL_ERROR_INVALID and names the member by its path
 * ("schema.source.type"), so a person can find the mistake in the body. */
#pragma once
#include <glib.h>
#include <json-glib/json-glib.h>

/* "prefix.member" (or member alone when prefix is NULL or ""). */
gchar *ab_model_json_path (const gchar *prefix, const gchar *member);
gboolean ab_model_json_missing (const gchar *prefix, const gchar *member, GError **error);

/* node must hold an object; `what` names it in the error. */
JsonObject *ab_model_json_object (JsonNode *node, const gchar *what, GError **error);

/* A member that is absent or JSON null takes the default, or is an error
 * when required. A member of the wrong JSON type is always an error. */
/* The member as a node when it holds a scalar of `type` (G_TYPE_STRING,
 * G_TYPE_BOOLEAN, G_TYPE_INT64); *out = NULL when absent or JSON null.
 * Borrowed from o. */
gboolean ab_model_json_scalar (JsonObject *o, const gchar *prefix, const gchar *member, GType type,
                               JsonNode **out, GError **error);
/* The member's text when it is a JSON string, else NULL (absent, null or
 * any other type: no GLib warning, unlike json-glib's _with_default
 * getters on an object or array). Borrowed from o. */
const gchar *ab_model_json_get_string (JsonObject *o, const gchar *member);
gboolean ab_model_json_string (JsonObject *o, const gchar *prefix, const gchar *member,
                               gboolean required, const gchar *def, gchar **out, GError **error);
gboolean ab_model_json_bool (JsonObject *o, const gchar *prefix, const gchar *member, gboolean def,
                             gboolean *out, GError **error);
gboolean ab_model_json_int (JsonObject *o, const gchar *prefix, const gchar *member, gint64 def,
                            gint64 *out, GError **error);
/* *out is borrowed from o; NULL when absent and not required. */
gboolean ab_model_json_array (JsonObject *o, const gchar *prefix, const gchar *member,
                              gboolean required, JsonArray **out, GError **error);
gboolean ab_model_json_child (JsonObject *o, const gchar *prefix, const gchar *member,
                              gboolean required, JsonObject **out, GError **error);
/* A new empty JSON array node. */
JsonNode *ab_model_json_empty_array (void);

/* Builder members for responses: a string (NULL written as "") and a boolean. */
void ab_model_json_add_string (JsonBuilder *b, const gchar *member, const gchar *value);
/* member = a deep copy of node (an array), or [] when node is NULL: the
 * schema's groups and caches, read by many threads (types.h). */
void ab_model_json_add_array_copy (JsonBuilder *b, const gchar *member, JsonNode *node);
void ab_model_json_add_bool (JsonBuilder *b, const gchar *member, gboolean value);
