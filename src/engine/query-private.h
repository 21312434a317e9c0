/* Helpers shared by the read paths (query.c, scan.c): output edges and
 * frames, filters over output edges, and casting of `start`. */
#pragma once
#include "engine/engine-private.h"
#include "engine/predicate.h"

AbEdgeOut *ab_edge_out_new (void);
void ab_edge_out_free (AbEdgeOut *e);
void ab_edge_out_add (AbEdgeOut *e, const AbField *field, const AbValue *v);
const AbValue *ab_edge_out_lookup (const gchar *field, gpointer data);
AbEdgeFrame *ab_edge_frame_new (void);
void ab_edge_frame_filter (AbEdgeFrame *f, GPtrArray *filters);
gboolean ab_query_cast_start (const AbTableDesc *t, const gchar *text, AbQueryDirection dir,
                              AbValue *out, GError **error);

/* startKey/stopKey of an index-shaped key space (prefix || fields in their
 * orders || target) from ranges over a prefix of the fields (semantics.md
 * §7.4); start receives the bound appended to the prefix it holds; *stop =
 * NULL when there is no stop item. */
gboolean ab_engine_range_keys (const AbIndexField *fields, guint n_fields, GPtrArray *ranges,
                               const GByteArray *prefix, GByteArray *start, GByteArray **stop,
                               GError **error);
/* The key suffix a pagination token stands for, checked to be exactly
 * n_fields values and a target; NULL + 400 naming `name` otherwise. */
GBytes *ab_engine_offset_suffix (const gchar *offset, guint n_fields, const gchar *name,
                                 GError **error);
/* An Index row or Cache cell (prefix of plen bytes, n_fields values, the
 * directed target; value = version || properties) as an output edge, flipped
 * back for direction IN. */
AbEdgeOut *ab_engine_edge_from_row (const AbTableDesc *t, AbQueryDirection dir,
                                    const AbValue *start, guint n_fields, gsize plen,
                                    const AbKv *kv, GError **error);
