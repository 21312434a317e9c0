/* Helpers shared by the read paths (query.c, scan.c): output edges and
 * frames, filters over output edges, and casting of `start`. */
#pragma once
#include "engine/engine-private.h"
#include "engine/predicate.h"

AbEdgeOut *ab_edge_out_new (void);
void ab_edge_out_add (AbEdgeOut *e, const AbField *field, const AbValue *v);
const AbValue *ab_edge_out_lookup (const gchar *field, gpointer data);
AbEdgeFrame *ab_edge_frame_new (void);
void ab_edge_frame_filter (AbEdgeFrame *f, GPtrArray *filters);
gboolean ab_query_cast_start (const AbTableDesc *t, const gchar *text, AbQueryDirection dir,
                              AbValue *out, GError **error);
