/* The query document of POST /graph/v3/query (upstream's ActionbaseQuery),
 * private to the engine: its parsed form (doc_parse.c), the row frames items
 * produce and reshape (doc_rows.c), and the executor (doc_exec.c). */
#pragma once
#include "engine/engine.h"
#include "model/types.h"

typedef enum { AB_ITEM_SELF, AB_ITEM_GET, AB_ITEM_COUNT, AB_ITEM_SCAN, AB_ITEM_CACHE } AbItemKind;
typedef enum { AB_VERTEX_VALUE, AB_VERTEX_REF, AB_VERTEX_STEP } AbVertexKind;

typedef struct _AbDocItem AbDocItem;

/* Where an item's start (or GET target) vertices come from. */
typedef struct {
  AbVertexKind kind;
  GArray *values;  /* VALUE: AbValue, as the JSON gave them */
  gchar *ref;      /* REF: the name of an earlier item */
  gchar *field;    /* REF, STEP: the column holding the vertices */
  AbDocItem *step; /* STEP: an item run in place */
} AbDocVertex;

typedef enum { AB_POST_JSON_OBJECT, AB_POST_SPLIT_EXPLODE } AbPostKind;

typedef struct {
  gchar *path;  /* "a.b": members of nested objects */
  gchar *alias; /* the new column */
} AbJsonPath;

typedef struct {
  AbPostKind kind;
  gchar *field;  /* the column read */
  gboolean drop; /* remove it afterwards (default TRUE) */
  GArray *paths; /* JSON_OBJECT: AbJsonPath */
  GRegex *regex; /* SPLIT_EXPLODE */
  gint limit;    /* SPLIT_EXPLODE: at most this many pieces, <= 0 all */
  gchar *alias;  /* SPLIT_EXPLODE: the new column */
  AbType type;   /* SPLIT_EXPLODE: each piece is cast to it */
} AbPostProc;

typedef enum { AB_AGGR_FLATTEN, AB_AGGR_COUNT, AB_AGGR_SUM } AbAggrKind;

typedef struct {
  AbAggrKind kind;
  gchar **keys; /* COUNT: the one grouped column; SUM: the key columns */
  gchar *value; /* SUM: the summed column */
  gboolean desc;
  guint limit;
} AbAggregator;

struct _AbDocItem {
  AbItemKind kind;
  gchar *name;
  gchar *database;
  gchar *table;
  AbDocVertex source;
  AbDocVertex target;         /* GET */
  AbQueryDirection direction; /* COUNT, SCAN, CACHE */
  gchar *index;               /* SCAN */
  gchar *cache;               /* CACHE */
  gint limit;                 /* SCAN, CACHE; < 0 = the default */
  gchar *offset;              /* SCAN, CACHE */
  gchar *ranges;              /* SCAN, CACHE */
  gboolean include;
  gboolean memoize;
  GPtrArray *post; /* AbPostProc* */
  GPtrArray *aggs; /* AbAggregator* */
};

void ab_doc_item_free (AbDocItem *item);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbDocItem, ab_doc_item_free)

/* {"query":[items...], "stats":[...]} -> AbDocItem* in order; NULL + 400
 * naming the member ("query[1].source.ref") on bad input. */
GPtrArray *ab_doc_parse (JsonNode *body, GError **error);

/* ---- rows (doc_rows.c) ---- */

AbRows *ab_rows_new (const gchar *const *columns, guint n);
/* Index of a column, or -1. */
gint ab_rows_column (const AbRows *r, const gchar *name);
/* A new row of nulls appended; returns its values to fill. */
GArray *ab_rows_add (AbRows *r);
/* Distinct non-null values of a column, in first-seen order (AbValue). */
GArray *ab_rows_distinct (const AbRows *r, guint column);

gboolean ab_rows_post (AbRows **r, const AbPostProc *p, GError **error);
gboolean ab_rows_aggregate (AbRows **r, const AbAggregator *a, GError **error);
