/* The read paths, the face of src/engine/read to the other engine folders:
 * output edges and frames, filters, casting of `start`, key windows and pages,
 * the fan-out reads of many start nodes (fanout.c) and cache reads (seek.c). */
#pragma once
#include "engine/core/core.h"
#include "model/groups.h"

AbEdgeOut *ab_edge_out_new (void);
void ab_edge_out_free (AbEdgeOut *e);
void ab_edge_out_add (AbEdgeOut *e, const AbField *field, const AbValue *v);
/* The same moving *v in (left null) instead of copying it. */
void ab_edge_out_take (AbEdgeOut *e, const AbField *field, AbValue *v);
/* Appends name = *v, moving *v in (left null), null or not. */
void ab_edge_out_push (AbEdgeOut *e, const gchar *name, AbValue *v);
const AbValue *ab_edge_out_lookup (const gchar *field, gpointer data);
AbEdgeFrame *ab_edge_frame_new (void);
/* The same with room for n edges (a scan page: no regrowth while filling). */
AbEdgeFrame *ab_edge_frame_sized_new (guint n);
void ab_edge_frame_filter (AbEdgeFrame *f, GPtrArray *filters);
/* Point reads of State rows for (srcs[i], tgts[i]) pairs (AbValue*, cast
 * to the key types); the active ones are appended to frame as edges, in
 * request order, in one store call. */
gboolean ab_query_fetch_states (AbEngine *engine, const AbTableDesc *t, GPtrArray *srcs,
                                GPtrArray *tgts, AbEdgeFrame *frame, GError **error);
gboolean ab_query_cast_start (const AbTableDesc *t, const gchar *text, AbQueryDirection dir,
                              AbValue *out, GError **error);
gboolean ab_query_cast_start_value (const AbTableDesc *t, const AbValue *value,
                                    AbQueryDirection dir, AbValue *out, GError **error);

/* startKey/stopKey of an index-shaped key space (prefix || fields in their
 * orders || target) from ranges over a prefix of the fields (docs/data-model.md
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
/* The same from borrowed key and value bytes (a scan_with visitor's); with
 * strings (nullable), the target's and the properties' strings go there and
 * the edge borrows them, and shares start's when start is itself borrowed
 * from strings. */
AbEdgeOut *ab_engine_edge_from_index (const AbTableDesc *t, AbQueryDirection dir,
                                      const AbValue *start, guint n_fields, gsize plen,
                                      const guint8 *k, gsize klen, const guint8 *v, gsize vlen,
                                      GStringChunk *strings, GError **error);

/* One page of edges read from a key window (scan.c): up to limit rows made
 * edges by to_edge from the store's own bytes (NULL + error: the read
 * fails), each with its offset token when edge_offsets; one more row sets
 * has_next and the page's offset (the key suffix after plen bytes). */
typedef AbEdgeOut *(*AbRowToEdge) (const guint8 *k, gsize klen, const guint8 *v, gsize vlen,
                                   gpointer user, GError **error);
typedef struct {
  guint limit;
  gsize plen;
  gboolean edge_offsets;
  AbRowToEdge to_edge;
  gpointer user;
} AbPageRead;
gboolean ab_engine_read_page (AbStore *store, const AbScanRange *window, const AbPageRead *pr,
                              AbEdgeFrame *frame, GError **error);

/* ---- one read per start node over a cache or an index (fanout.c) ---- */

/* What every read of a fan-out shares: the table (a reference the caller
 * owns), exactly one of cache / index, the direction, limit, ranges and the
 * page token (NULL for the first page). */
typedef struct {
  AbTableDesc *t;
  const AbCache *cache;
  const gchar *index;
  AbQueryDirection dir;
  guint limit;
  const gchar *ranges;
  const gchar *offset;
} AbHopPlan;

/* One read: from a node (cast to the start type), into a frame or an error. */
typedef struct {
  AbEngine *engine;
  const AbHopPlan *plan;
  AbValue node;
  AbEdgeFrame *frame;
  GError *error;
} AbHopRead;

/* Reads from every node of `nodes` (AbValue of any kind, cast to the start
 * type through its text) concurrently on the key pool. strict: a node that
 * does not cast is a 400; else it reads nothing. The first read error is
 * propagated; the reads are returned either way (free with
 * ab_hop_reads_free (reads, nodes->len)). */
AbHopRead *ab_hop_read_all (AbEngine *engine, const AbHopPlan *hp, GArray *nodes, gboolean strict,
                            GError **error);
void ab_hop_reads_free (AbHopRead *reads, guint n);

/* ---- cache reads (seek.c) ---- */

/* The top `limit` edges of the cache row of (start, dir), ranges as text
 * (checked here); falls back to the equivalent index when trimming left the
 * row short for the window. */
AbEdgeFrame *ab_engine_seek_row (AbEngine *engine, const AbTableDesc *t, const AbCache *c,
                                 const AbValue *start, AbQueryDirection dir, guint limit,
                                 const gchar *ranges, const gchar *offset, GError **error);
/* The cache of a table by name, or NULL + a 400 error naming the table. */
const AbCache *ab_engine_find_cache (const AbTableDesc *t, const gchar *name, GError **error);
