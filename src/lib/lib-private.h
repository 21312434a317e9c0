/* libactionbase internals shared by src/lib: the handle, the conversions
 * between the public AbDbValue and the engine's AbValue, and the error
 * mapping into AB_DB_ERROR. Not installed. */
#pragma once
#include "lib/actionbase.h"
#include "engine/engine.h"

struct _AbDb {
  AbEngine *engine;
};

/* AbDbValue -> AbValue viewing the caller's string (never cleared). */
void ab_lib_value_view (AbDbValue in, AbValue *out);
/* AbValue -> AbDbValue borrowing v's string. */
AbDbValue ab_lib_value_out (const AbValue *v);
/* n typed predicates -> engine range specs viewing them; values in
 * *storage (free both with g_free). */
AbRangeSpec *ab_lib_specs (const AbDbPredicate *preds, guint n, AbValue **storage);
/* The predicates as ranges text ("f:op:v;..."), for the engine calls that
 * take text; FALSE (INVALID) when a value holds a separator. */
gboolean ab_lib_ranges_text (const AbDbPredicate *preds, guint n, gchar **out, GError **error);
/* Any error of a layer below -> AB_DB_ERROR (takes src). */
void ab_lib_propagate (GError **dst, GError *src);
/* A NULL argument that must not be: INVALID naming it. */
gboolean ab_lib_require (gconstpointer p, const gchar *what, GError **error);

/* db, database and table given (INVALID naming the missing one). */
gboolean ab_lib_names_ok (AbDb *db, const char *database, const char *table, GError **error);
/* A public limit (0: the default) as the engine's (< 0: the default). */
gint ab_lib_limit (guint limit);

/* A frame of edges as the public list (takes frame). */
AbDbEdges *ab_lib_edges_new (AbEdgeFrame *frame);

/* One page of a scan from resume (NULL: the first), with per-edge tokens
 * when asked; NULL + AB_DB_ERROR. */
AbEdgeFrame *ab_lib_scan_page (AbDb *db, const char *database, const char *table,
                               const AbDbScan *scan, const char *resume, gboolean edge_offsets,
                               GError **error);

/* The reads the iterator and the list share. */
struct _AbDbEdges {
  AbEdgeFrame *frame;
  guint first; /* the iterator's one-edge view: edges [first, first + len) */
  guint len;
};
