/* Typed groups (real-time aggregations) and caches (top-N wide rows) of a
 * schema, parsed and validated from the schema's raw JSON arrays, and the
 * date buckets a group field may carry (docs/rest-api.md §1.1; bucket JSON is ours). */
#pragma once
#include <glib.h>
#include "model/schema.h"

typedef enum { AB_GROUP_COUNT, AB_GROUP_SUM } AbGroupType;

/* A group ttl beyond this (about 3,000 years, in ms) never expires: it is
 * kept as -1 (upstream writes Long.MAX_VALUE for that). */
#define AB_GROUP_TTL_MAX G_GINT64_CONSTANT (100000000000000)

typedef enum {
  AB_BUCKET_MINUTE,
  AB_BUCKET_HOUR,
  AB_BUCKET_DAY,
  AB_BUCKET_WEEK, /* ISO week, starting Monday */
  AB_BUCKET_MONTH,
  AB_BUCKET_YEAR,
} AbBucketUnit;

/* {"type":"date","unit":"day","timezone":"UTC","format":"yyyyMMdd"}: an
 * epoch-millisecond value becomes the text of the start of its unit in the
 * time zone, formatted (Java-style letters or a strftime pattern with %).
 * Upstream's newer form {"type":"date","name":"day","unit":"MILLISECOND",
 * "timezone":"UTC","format":"yyyy-MM-dd"}: unit is what the value counts
 * (NANOSECOND, MICROSECOND, MILLISECOND or SECOND since the epoch), the
 * format says the bucket (minute with mm, hour with HH, else day), and
 * `name` is what ranges may call the field. */
typedef struct {
  AbBucketUnit unit;
  GTimeZone *tz;
  gchar *pattern; /* g_date_time_format pattern */
  gint64 per_ms;  /* the value's units per millisecond (1e6 ns .. 1 ms); 0: seconds */
  gchar *name;    /* NULL unless given */
} AbBucket;

/* Upstream's current top-K declaration (`aggregations.topk[]` with a
 * `rank` table): rankings the caller asks for by POST /aggregations/v1/
 * aggregate, each a row of the user's rank table (docs/rest-api.md §11.6);
 * nothing is kept at write time. */
typedef struct {
  gchar *name;
  gboolean global;  /* entity "__GLOBAL__": one ranking for all */
  gchar *dimension; /* the ranked field (source/_source, target/_target or a property) */
  gchar *ranges;    /* template, {name} placeholders filled from the event */
  gchar *rank_db;   /* the rank table */
  gchar *rank_table;
  gchar **additional;      /* field names copied onto the row (NULL-terminated) */
  gint64 refresh_after_ms; /* > 0: a refresh is queued on namespace `topk` */
  gchar *refresh_queue;    /* that queue ("refresh" unless declared) */
} AbRankTopk;

typedef struct {
  gchar *name;      /* property, or version/source/target (v2 names mapped) */
  AbBucket *bucket; /* NULL: the raw value */
} AbGroupField;

/* A top-K ranking of a group's cells (`aggregations.topk[]`, docs/data-model.md
 * §17.1): the ranked field is the group's last field without a bucket; the
 * fields before it are segment fields (one ranking per value combination),
 * the fields after it are summed over, restricted by `ranges`. */
typedef struct {
  gchar *name;
  gint32 code;             /* ab_codec_code(name) */
  gchar *ranges;           /* as given ("" = none) */
  gchar *constant_ranges;  /* its constant items, canonical field names ("" = none) */
  gchar *relative_ranges;  /* its items with a bound relative to now (`now`, `now-7d`, on
                            * bucketed fields after the ranked one), canonical names ("" = none) */
  gint64 refresh_after_ms; /* -1 = not given */
  gchar *score_table;      /* `table.score` as given, or NULL */
  guint ranked;            /* index of the ranked field in the group's fields */
} AbTopk;

typedef struct {
  gchar *name;
  gint32 code; /* ab_codec_code(name) */
  AbGroupType type;
  AbGroupField *fields;
  guint n_fields;
  gchar *value_field; /* SUM: the summed field, or NULL (adds 1, like COUNT); COUNT: NULL */
  AbDirectionType direction;
  gint64 ttl;       /* ms; -1 = cells never expire */
  GPtrArray *topks; /* AbTopk*, `aggregations.topk` (never NULL) */
  GPtrArray *ranks; /* AbRankTopk*, those of them with a `rank` table (never NULL) */
} AbGroup;

typedef struct {
  gchar *name;
  gint32 code;          /* ab_codec_code(name) */
  AbIndexField *fields; /* field + order, like an index */
  guint n_fields;
  guint limit;     /* cells a seek shows by default, > 0 */
  guint tolerance; /* spare cells kept beyond limit (absorbing deletes), >= 0 */
  GStrv *allowed;  /* per field: the `dimension` values an edge must have to
                    * enter the cache (as text), or NULL for any */
} AbCache;

#define AB_GROUP_COUNT_NAME "__count__"
#define AB_CACHE_DEFAULT_LIMIT 100
#define AB_CACHE_MAX_LIMIT 10000
#define AB_CACHE_MAX_TOLERANCE 10000

/* The cells a trimmed row keeps: limit + tolerance. */
guint ab_cache_bound (const AbCache *c);
/* Whether a cache keeps an edge whose field i has the value `text`. */
gboolean ab_cache_allows (const AbCache *c, guint i, const gchar *text);
/* Whether any field of the cache has a `dimension` list. */
gboolean ab_cache_has_dimensions (const AbCache *c);
/* A read of a cache row (multihop, query items): its default limit (the
 * cache's) and its most (the bound), both within *max on entry. */
void ab_cache_limits (const AbCache *c, guint *dflt, guint *max);

/* Parses schema->groups and schema->caches into schema->group_defs and
 * schema->cache_defs (replacing previous ones), checking every rule: unique
 * non-empty names, `__count__` reserved, known fields, SUM over a numeric
 * valueField, buckets on integer fields, ttl -1 or > 0, cache limit in
 * 1..AB_CACHE_MAX_LIMIT, tolerance in 0..AB_CACHE_MAX_TOLERANCE (default 0).
 * Errors: AB_MODEL_ERROR_INVALID naming the member. */
gboolean ab_schema_parse_groups (AbSchema *schema, GError **error);
void ab_group_free (AbGroup *g);
void ab_cache_free (AbCache *c);

/* Lookups by name; NULL when absent. */
const AbGroup *ab_schema_group (const AbSchema *schema, const gchar *name);
const AbCache *ab_schema_cache (const AbSchema *schema, const gchar *name);
const AbGroup *ab_schema_group_by_code (const AbSchema *schema, gint32 code);
const AbCache *ab_schema_cache_by_code (const AbSchema *schema, gint32 code);
/* A top-K by name, with its group in *group; NULL when absent. */
const AbTopk *ab_schema_topk (const AbSchema *schema, const gchar *name, const AbGroup **group);
/* The rank declaration called name and its group, or NULL. */
const AbRankTopk *ab_schema_rank_topk (const AbSchema *schema, const gchar *name,
                                       const AbGroup **group);

/* A bound relative to now, as upstream writes them: `now`, or `now` then
 * + or -, digits and m (minutes), h (hours) or d (days): the offset in ms. */
gboolean ab_topk_now_offset (const gchar *text, gint64 *offset_ms);

/* The type of a group field's qualifier element: string when bucketed,
 * else the field's own type. */
AbType ab_group_field_type (const AbSchema *schema, const AbGroupField *f);

/* Bucket of one value: a string, or null when the input is null, not an
 * integer, or out of the calendar's range. out must be clear. */
void ab_bucket_apply (const AbBucket *b, const AbValue *in, AbValue *out);
/* The text of the bucket holding the instant ms (epoch), or NULL. */
gchar *ab_bucket_format_ms (const AbBucket *b, gint64 ms);
/* The bucket holding a value (in the bucket's value unit): its start and the
 * next bucket's start, both in epoch ms; FALSE out of the calendar's range. */
gboolean ab_bucket_bounds (const AbBucket *b, gint64 value, gint64 *start_ms, gint64 *next_ms);
/* The index of the group field called `name` (its own name, or its
 * bucket's name), or -1. */
gint ab_group_field_named (const AbGroup *g, const gchar *name);
