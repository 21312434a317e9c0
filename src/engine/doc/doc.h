/* The query document of POST /graph/v3/query (upstream's ActionbaseQuery),
 * private to the engine: its parsed form (doc_parse.c), the row frames items
 * produce and reshape (doc_rows.c), and the executor (doc_exec.c). */
#pragma once
#include "engine/engine.h"
#include "model/types.h"
#include "model/groups.h"

typedef enum {
  AB_ITEM_SELF,
  AB_ITEM_GET,
  AB_ITEM_COUNT,
  AB_ITEM_SCAN,
  AB_ITEM_CACHE,
  AB_ITEM_SQL,  /* a transform step: a SELECT over earlier items' rows */
  AB_ITEM_TOPK, /* upstream's top-K read: a SCAN of the rank table once resolved */
} AbItemKind;
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
  gchar *filters;             /* SCAN, CACHE: kept edges of each page read */
  gchar *sql;                 /* SQL */
  gchar *topk;                /* TOPK: the declaration's name */
  GHashTable *dims;           /* TOPK: dimensionValues, field -> text (or NULL) */
  GArray *sql_args;           /* SQL: AbValue of ?1, ?2... (ab_doc_bind) */
  gboolean include;
  gboolean memoize;
  GPtrArray *post; /* AbPostProc* */
  GPtrArray *aggs; /* AbAggregator* */
};

void ab_doc_item_free (AbDocItem *item);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbDocItem, ab_doc_item_free)

/* {"query":[items...], "stats":[...]} or {"fetch":[items...],
 * "transform":[SQL steps...]} -> AbDocItem* in order (fetch, then
 * transform); NULL + 400 naming the member ("fetch[1].source.ref") on bad
 * input. Placeholders are replaced before (ab_doc_bind). */
GPtrArray *ab_doc_parse (JsonNode *body, GError **error);
/* TOPK items made SCANs of their rank table's metric_desc index from the
 * keys of their entities (VALUE only); 400 for an unknown top-K, a rank
 * table without that index, an entity that is not VALUE. */
gboolean ab_doc_resolve_topks (AbEngine *engine, GPtrArray *items, GError **error);

/* ---- arguments (doc_bind.c) ---- */

/* A registration's argument declarations [{name, type, comment}] -> *out,
 * name -> AbType*; 400 for a bad name or type, a name declared twice. */
gboolean ab_doc_declarations (JsonArray *declared, GHashTable **out, GError **error);
/* A copy of doc's query/fetch/transform/stats with every string that is one
 * "{name}" placeholder replaced by argument `name` of args (cast to its
 * declared type when declared is not NULL), and each {name} in an "sql"
 * statement (outside '...') made a parameter ?N whose value goes into the
 * step's "arguments". 400: an argument missing, extra or not castable. */
JsonNode *ab_doc_bind (JsonObject *doc, GHashTable *declared, JsonObject *args, GError **error);
/* 400 unless the placeholders doc uses are exactly the declared names. */
gboolean ab_doc_check_placeholders (JsonObject *doc, GHashTable *declared, GError **error);

/* ---- rank rows of upstream's top-K (rank.c) ---- */

/* value appended to a rank key, '|' first unless the key is empty, with
 * '|' and '\' escaped by '\'. */
void ab_rank_key_append (GString *key, const gchar *value);
/* db|table|topk|entity|values of the ranking's key fields (the group's
 * fields without a bucket other than the dimension; values: field name ->
 * text, absent = ""); entity __GLOBAL__ for a global ranking. */
GString *ab_rank_key (const gchar *db, const gchar *table, const AbGroup *g, const AbRankTopk *k,
                      const gchar *entity, GHashTable *values);

/* ---- SQL transforms (doc_sql.c) ---- */

typedef struct {
  guint max_rows; /* rows a statement may answer */
  gint64 max_us;  /* how long it may run; 0 = unbounded */
} AbSqlLimits;

/* Runs one read-only SELECT, params (AbValue, nullable) bound to ?1...,
 * over the rows of earlier items (done: name -> AbRows*), each a temporary
 * table of that name with its columns, on this thread's connection. 400: not exactly one SELECT, an SQL error, more than
 * max_rows rows, longer than max_us. */
AbRows *ab_doc_sql_run (GHashTable *done, const gchar *sql, GArray *params, const AbSqlLimits *lim,
                        GError **error);

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
