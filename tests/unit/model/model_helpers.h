/* Shared by the model suites: strict JSON parsing of test bodies, error
 * assertions that check the domain and a phrase of the message, and a
 * suite runner. */
#pragma once
#include <check.h>
#include <string.h>
#include "model/schema.h"

/* Parses text with ab_model_json_parse; fails the test on error. */
JsonNode *mt_json (const gchar *text);
/* Compact JSON text of a node (caller frees). */
gchar *mt_text (JsonNode *node);
/* Member lookup along a dotted path ("schema.source.type"); NULL if absent. */
JsonNode *mt_get (JsonNode *root, const gchar *path);
const gchar *mt_get_string (JsonNode *root, const gchar *path);
gint mt_run (Suite *s);

#define MT_ASSERT_ERROR(err, phrase)                                                       \
  do                                                                                       \
    {                                                                                      \
      ck_assert_msg ((err) != NULL, "expected an error containing '%s'", (phrase));        \
      ck_assert_msg (g_error_matches ((err), AB_MODEL_ERROR, AB_MODEL_ERROR_INVALID),      \
                     "wrong error domain/code: %s", (err)->message);                       \
      ck_assert_msg (strstr ((err)->message, (phrase)) != NULL, "message '%s' lacks '%s'", \
                     (err)->message, (phrase));                                            \
    }                                                                                      \
  while (0)
