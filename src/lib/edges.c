/* libactionbase edge lists: an engine frame read through accessors that
 * borrow its strings (no copies); the iterator's current edge is a
 * one-edge view of its page. */
#include "lib/lib-private.h"

AbDbEdges *
ab_lib_edges_new (AbEdgeFrame *frame)
{
  AbDbEdges *e = g_new0 (AbDbEdges, 1);
  e->frame = frame;
  e->len = frame->edges->len;
  return e;
}

/* What the accessors read past the end (after the critical): an edge of
 * empty values. */
static const AbEdgeOut NO_EDGE = { 0 };

static const AbEdgeOut *
edge_at (const AbDbEdges *edges, guint i)
{
  g_return_val_if_fail (i < edges->len, &NO_EDGE);
  return edges->frame->edges->pdata[edges->first + i];
}

guint
ab_db_edges_len (const AbDbEdges *edges)
{
  return edges->len;
}

gint64
ab_db_edges_version (const AbDbEdges *edges, guint i)
{
  return edge_at (edges, i)->version;
}

AbDbValue
ab_db_edges_source (const AbDbEdges *edges, guint i)
{
  return ab_lib_value_out (&edge_at (edges, i)->source);
}

AbDbValue
ab_db_edges_target (const AbDbEdges *edges, guint i)
{
  return ab_lib_value_out (&edge_at (edges, i)->target);
}

guint
ab_db_edges_n_properties (const AbDbEdges *edges, guint i)
{
  return edge_at (edges, i)->n_props;
}

const char *
ab_db_edges_property_name (const AbDbEdges *edges, guint i, guint k)
{
  const AbEdgeOut *e = edge_at (edges, i);
  g_return_val_if_fail (k < e->n_props, NULL);
  return e->names[k];
}

AbDbValue
ab_db_edges_property_at (const AbDbEdges *edges, guint i, guint k)
{
  const AbEdgeOut *e = edge_at (edges, i);
  g_return_val_if_fail (k < e->n_props, ab_db_null ());
  return ab_lib_value_out (&e->values[k]);
}

gboolean
ab_db_edges_property (const AbDbEdges *edges, guint i, const char *name, AbDbValue *out)
{
  const AbEdgeOut *e = edge_at (edges, i);
  for (guint k = 0; name != NULL && k < e->n_props; k++)
    if (g_str_equal (e->names[k], name))
      {
        *out = ab_lib_value_out (&e->values[k]);
        return TRUE;
      }
  return FALSE;
}

const char *
ab_db_edges_next (const AbDbEdges *edges)
{
  return edges->frame->has_next ? edges->frame->offset : NULL;
}

void
ab_db_edges_free (AbDbEdges *edges)
{
  if (edges == NULL)
    return;
  ab_edge_frame_free (edges->frame);
  g_free (edges);
}
