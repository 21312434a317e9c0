/* Private to src/model: enum-valued members of request bodies (type, order,
 * direction, mode) with errors naming the member and the accepted values,
 * shared by the v3 and v2 parsers. */
#pragma once
#include "model/json_get.h"
#include "model/schema.h"

gboolean ab_model_json_type (JsonObject *o, const gchar *prefix, const gchar *member, AbType *out,
                             GError **error);
gboolean ab_model_json_order (JsonObject *o, const gchar *prefix, const gchar *member, AbOrder *out,
                              GError **error);
/* required FALSE: absent -> def. */
gboolean ab_model_json_dirtype (JsonObject *o, const gchar *prefix, const gchar *member,
                                gboolean required, AbDirectionType def, AbDirectionType *out,
                                GError **error);
gboolean ab_model_json_mode (JsonObject *o, const gchar *prefix, const gchar *member,
                             AbMutationMode *out, GError **error);
/* groups / caches: absent or null -> []; otherwise must be an array. */
gboolean ab_model_json_array_copy (JsonObject *o, const gchar *prefix, const gchar *member,
                                   JsonNode **out, GError **error);
/* "prefix[k]" */
gchar *ab_model_json_item_path (const gchar *prefix, const gchar *member, guint k);
