/* Parsing of the `ranges` and `filters` query strings (field:op:value;...)
 * into typed predicates, and evaluation of filters on an edge's values
 * (docs/data-model.md §7.4-§7.5). */
#pragma once
#include "engine/core/core.h"

/* (AbPredOp and AbRangeSpec, the typed form: engine.h) */

typedef struct {
  gchar *field;
  AbPredOp op;
  GArray *values; /* AbValue, cast to the field type: 1, 2 (bt) or n (in) */
  AbType type;
} AbPredicate;

/* Type of a queryable field: a property or version/source/target. */
gboolean ab_engine_field_type (const AbTableDesc *t, const gchar *field, AbType *out);

/* Parses "a:op:v;b:op:v" into AbPredicate* (owned array). Duplicate fields
 * collapse, last wins. `allow_in` FALSE for ranges. */
GPtrArray *ab_predicates_parse (const AbTableDesc *t, const gchar *text, gboolean allow_in,
                                const gchar *what, GError **error);
void ab_predicate_free (AbPredicate *p);
/* The same with the field types given by a function (group fields, whose
 * bucketed values are strings): FALSE = unknown field. */
typedef gboolean (*AbFieldTypeFn) (gconstpointer data, const gchar *field, AbType *out);
GPtrArray *ab_predicates_parse_typed (const gchar *text, gboolean allow_in, const gchar *what,
                                      AbFieldTypeFn type_of, gconstpointer data, GError **error);

/* The same from typed terms (the library): values cast with the REST rules. */
GPtrArray *ab_predicates_from_specs (const AbTableDesc *t, const AbRangeSpec *specs, guint n,
                                     gboolean allow_in, const gchar *what, GError **error);

/* Evaluates every filter on one edge. lookup returns the edge's value of a
 * field (NULL when absent). */
typedef const AbValue *(*AbFieldLookup) (const gchar *field, gpointer data);
gboolean ab_filters_match (GPtrArray *filters, AbFieldLookup lookup, gpointer data);
