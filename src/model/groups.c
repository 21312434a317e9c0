/* Groups and caches of a schema: parsing of the raw JSON arrays into typed
 * AbGroup / AbCache definitions with their validation rules, lookups, and
 * the date buckets (time zone, unit truncation, formatting). */
#include <string.h>
#include "codec/keys.h"
#include "model/groups.h"
#include "model/schema-private.h"

static void bucket_free (AbBucket *b);
typedef AbBucket AbBucketOwned;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbBucketOwned, bucket_free)

static void
bucket_free (AbBucket *b)
{
  if (b == NULL)
    return;
  if (b->tz != NULL)
    g_time_zone_unref (b->tz);
  g_free (b->pattern);
  g_free (b->name);
  g_free (b);
}

static void
topk_free (AbTopk *k)
{
  g_free (k->name);
  g_free (k->ranges);
  g_free (k->constant_ranges);
  g_free (k->relative_ranges);
  g_free (k->score_table);
  g_free (k);
}

static void
rank_topk_free (AbRankTopk *k)
{
  g_free (k->name);
  g_free (k->dimension);
  g_free (k->ranges);
  g_free (k->rank_db);
  g_free (k->rank_table);
  g_strfreev (k->additional);
  g_free (k->refresh_queue);
  g_free (k);
}

void
ab_group_free (AbGroup *g)
{
  if (g == NULL)
    return;
  if (g->topks != NULL)
    g_ptr_array_unref (g->topks);
  if (g->ranks != NULL)
    g_ptr_array_unref (g->ranks);
  for (guint i = 0; i < g->n_fields; i++)
    {
      g_free (g->fields[i].name);
      bucket_free (g->fields[i].bucket);
    }
  g_free (g->fields);
  g_free (g->name);
  g_free (g->value_field);
  g_free (g);
}

void
ab_cache_free (AbCache *c)
{
  if (c == NULL)
    return;
  for (guint i = 0; i < c->n_fields; i++)
    {
      g_free (c->fields[i].field);
      g_strfreev (c->allowed[i]);
    }
  g_free (c->allowed);
  g_free (c->fields);
  g_free (c->name);
  g_free (c);
}

/* ---- date buckets ---- */

static const gchar *const UNIT_NAMES[] = { "minute", "hour", "day", "week", "month", "year" };
static const gchar *const UNIT_FORMATS[]
    = { "yyyyMMddHHmm", "yyyyMMddHH", "yyyyMMdd", "YYYYww", "yyyyMM", "yyyy" };

/* Java-style pattern letters -> strftime; quoted text is literal. */
static gchar *
java_pattern (const gchar *fmt, const gchar *path, GError **error)
{
  static const gchar *const map[][2] = {
    { "yyyy", "%Y" }, { "YYYY", "%G" }, { "yy", "%y" }, { "MM", "%m" }, { "dd", "%d" },
    { "HH", "%H" },   { "mm", "%M" },   { "ss", "%S" }, { "ww", "%V" },
  };
  g_autoptr (GString) out = g_string_new (NULL);
  for (const gchar *p = fmt; *p != '\0';)
    {
      gboolean matched = FALSE;
      for (guint k = 0; k < G_N_ELEMENTS (map) && !matched; k++)
        if (strncmp (p, map[k][0], strlen (map[k][0])) == 0)
          {
            g_string_append (out, map[k][1]);
            p += strlen (map[k][0]);
            matched = TRUE;
          }
      if (matched)
        continue;
      if (*p == '\'')
        {
          const gchar *end = strchr (p + 1, '\'');
          if (end == NULL)
            return ab_model_invalid (error, "%s.format: unterminated quote", path), NULL;
          g_string_append_len (out, p + 1, end - p - 1);
          p = end + 1;
        }
      else if (g_ascii_isalpha (*p))
        return ab_model_invalid (
                   error,
                   "%s.format: unsupported pattern letters at '%s' (use yyyy, YYYY, "
                   "yy, MM, dd, HH, mm, ss, ww, 'quoted text', or a strftime pattern with %%)",
                   path, p),
               NULL;
      else
        g_string_append_c (out, *p++);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

static GTimeZone *
parse_timezone (const gchar *name, const gchar *path, GError **error)
{
  GTimeZone *tz = g_time_zone_new_identifier (name);
  if (tz == NULL)
    ab_model_invalid (error,
                      "%s.timezone: unknown time zone '%s' (use UTC, an offset like +09:00, "
                      "or an IANA name like Asia/Seoul)",
                      path, name);
  return tz;
}

/* Upstream's value units: how many per millisecond (0: a second is 1000 ms). */
static gboolean
value_unit (const gchar *unit, gint64 *per_ms)
{
  static const struct {
    const gchar *name;
    gint64 per_ms;
  } units[] = {
    { "NANOSECOND", 1000000 }, { "MICROSECOND", 1000 }, { "MILLISECOND", 1 }, { "SECOND", 0 }
  };
  for (guint i = 0; i < G_N_ELEMENTS (units); i++)
    if (g_ascii_strcasecmp (unit, units[i].name) == 0)
      return *per_ms = units[i].per_ms, TRUE;
  return FALSE;
}

/* The bucket a format makes of an upstream value unit: minute with mm, hour
 * with HH, else day; finer than a minute is 400, as upstream has it. */
static gboolean
format_unit (const gchar *format, const gchar *path, AbBucketUnit *out, GError **error)
{
  if (format == NULL)
    return ab_model_invalid (error, "%s.format is required with a value unit", path);
  if (strchr (format, 'S') != NULL)
    return ab_model_invalid (error, "%s.format: Units below milliseconds are not supported: %s",
                             path, format);
  if (strstr (format, "ss") != NULL)
    return ab_model_invalid (error, "%s.format: Second units are not supported: %s", path, format);
  *out = strstr (format, "mm") != NULL  ? AB_BUCKET_MINUTE
         : strchr (format, 'H') != NULL ? AB_BUCKET_HOUR
                                        : AB_BUCKET_DAY;
  return TRUE;
}

static AbBucket *
parse_bucket (JsonObject *o, const gchar *path, GError **error)
{
  g_autofree gchar *type = NULL, *unit = NULL, *tzname = NULL, *format = NULL, *name = NULL;
  if (!ab_model_json_string (o, path, "type", FALSE, "date", &type, error)
      || !ab_model_json_string (o, path, "unit", TRUE, NULL, &unit, error)
      || !ab_model_json_string (o, path, "timezone", FALSE, "UTC", &tzname, error)
      || !ab_model_json_string (o, path, "format", FALSE, NULL, &format, error)
      || !ab_model_json_string (o, path, "name", FALSE, NULL, &name, error))
    return NULL;
  if (g_ascii_strcasecmp (type, "date") != 0)
    return ab_model_invalid (error, "%s.type: unknown bucket type '%s' (supported: date)", path,
                             type),
           NULL;
  g_autoptr (AbBucketOwned) b = g_new0 (AbBucket, 1);
  b->per_ms = 1;
  guint u = 0;
  while (u < G_N_ELEMENTS (UNIT_NAMES) && g_ascii_strcasecmp (unit, UNIT_NAMES[u]) != 0)
    u++;
  if (u < G_N_ELEMENTS (UNIT_NAMES))
    b->unit = (AbBucketUnit) u;
  else if (!value_unit (unit, &b->per_ms))
    return ab_model_invalid (error,
                             "%s.unit: unknown unit '%s' (minute, hour, day, week, month, year; "
                             "or what the value counts: NANOSECOND, MICROSECOND, MILLISECOND, "
                             "SECOND)",
                             path, unit),
           NULL;
  else if (!format_unit (format, path, &b->unit, error))
    return NULL;
  b->name = g_steal_pointer (&name);
  b->tz = parse_timezone (tzname, path, error);
  const gchar *f = format != NULL ? format : UNIT_FORMATS[b->unit];
  b->pattern = b->tz == NULL     ? NULL
               : strchr (f, '%') ? g_strdup (f)
                                 : java_pattern (f, path, error);
  if (b->pattern == NULL)
    return NULL;
  g_autoptr (GDateTime) probe = g_date_time_new_now (b->tz);
  g_autofree gchar *text = g_date_time_format (probe, b->pattern);
  if (text == NULL || *text == '\0')
    return ab_model_invalid (error, "%s.format: '%s' formats nothing", path, f), NULL;
  return g_steal_pointer (&b);
}

/* Start of the unit containing `t` (all in the bucket's zone). */
static GDateTime *
truncate_to_unit (const AbBucket *b, GDateTime *t)
{
  gint y, mo, d;
  g_date_time_get_ymd (t, &y, &mo, &d);
  gint h = g_date_time_get_hour (t), mi = g_date_time_get_minute (t);
  switch (b->unit)
    {
      case AB_BUCKET_MINUTE: return g_date_time_new (b->tz, y, mo, d, h, mi, 0);
      case AB_BUCKET_HOUR: return g_date_time_new (b->tz, y, mo, d, h, 0, 0);
      case AB_BUCKET_DAY: return g_date_time_new (b->tz, y, mo, d, 0, 0, 0);
      case AB_BUCKET_MONTH: return g_date_time_new (b->tz, y, mo, 1, 0, 0, 0);
      case AB_BUCKET_YEAR: return g_date_time_new (b->tz, y, 1, 1, 0, 0, 0);
      case AB_BUCKET_WEEK: break;
    }
  g_autoptr (GDateTime) day = g_date_time_new (b->tz, y, mo, d, 0, 0, 0);
  return day == NULL ? NULL : g_date_time_add_days (day, 1 - g_date_time_get_day_of_week (day));
}

/* A value in the bucket's unit as epoch ms (floored); FALSE on overflow. */
static gboolean
value_ms (const AbBucket *b, gint64 v, gint64 *ms)
{
  if (b->per_ms != 0)
    {
      *ms = v / b->per_ms - (v % b->per_ms < 0 ? 1 : 0); /* floor */
      return TRUE;
    }
  if (v > G_MAXINT64 / 1000 || v < G_MININT64 / 1000)
    return FALSE;
  *ms = v * 1000;
  return TRUE;
}

/* The start of the bucket holding the instant ms, in the bucket's zone. */
static GDateTime *
bucket_start (const AbBucket *b, gint64 ms)
{
  gint64 secs = ms / 1000 - (ms % 1000 < 0 ? 1 : 0);
  g_autoptr (GDateTime) utc = g_date_time_new_from_unix_utc (secs);
  g_autoptr (GDateTime) local = utc != NULL ? g_date_time_to_timezone (utc, b->tz) : NULL;
  return local != NULL ? truncate_to_unit (b, local) : NULL;
}

gchar *
ab_bucket_format_ms (const AbBucket *b, gint64 ms)
{
  g_autoptr (GDateTime) start = bucket_start (b, ms);
  return start != NULL ? g_date_time_format (start, b->pattern) : NULL;
}

void
ab_bucket_apply (const AbBucket *b, const AbValue *in, AbValue *out)
{
  ab_value_set_null (out);
  gint64 ms;
  if (in == NULL || in->kind < AB_VALUE_INT8 || in->kind > AB_VALUE_INT64
      || !value_ms (b, in->u.i, &ms))
    return;
  gchar *text = ab_bucket_format_ms (b, ms);
  if (text != NULL)
    ab_value_take_string (out, AB_VALUE_STRING, text, strlen (text));
}

gboolean
ab_bucket_bounds (const AbBucket *b, gint64 value, gint64 *start_ms, gint64 *next_ms)
{
  gint64 ms;
  g_autoptr (GDateTime) start = value_ms (b, value, &ms) ? bucket_start (b, ms) : NULL;
  if (start == NULL)
    return FALSE;
  GDateTime *next = NULL;
  switch (b->unit)
    {
      case AB_BUCKET_MINUTE: next = g_date_time_add_minutes (start, 1); break;
      case AB_BUCKET_HOUR: next = g_date_time_add_hours (start, 1); break;
      case AB_BUCKET_DAY: next = g_date_time_add_days (start, 1); break;
      case AB_BUCKET_WEEK: next = g_date_time_add_weeks (start, 1); break;
      case AB_BUCKET_MONTH: next = g_date_time_add_months (start, 1); break;
      case AB_BUCKET_YEAR: next = g_date_time_add_years (start, 1); break;
    }
  if (next == NULL)
    return FALSE;
  *start_ms = g_date_time_to_unix (start) * 1000;
  *next_ms = g_date_time_to_unix (next) * 1000;
  g_date_time_unref (next);
  return TRUE;
}

gint
ab_group_field_named (const AbGroup *g, const gchar *name)
{
  for (guint i = 0; i < g->n_fields; i++)
    if (g_str_equal (g->fields[i].name, name))
      return (gint) i;
  for (guint i = 0; i < g->n_fields; i++)
    if (g->fields[i].bucket != NULL && g_strcmp0 (g->fields[i].bucket->name, name) == 0)
      return (gint) i;
  return -1;
}

/* ---- field resolution ---- */

/* Canonical name of a referable field (system names win, v2 names map). */
static const gchar *
canonical_field (const AbSchema *s, const gchar *name, AbType *type)
{
  switch (ab_schema_index_field_kind (s, name))
    {
      case AB_INDEX_FIELD_VERSION: *type = AB_TYPE_LONG; return "version";
      case AB_INDEX_FIELD_SOURCE: *type = s->source_type; return "source";
      case AB_INDEX_FIELD_TARGET: *type = s->target_type; return "target";
      case AB_INDEX_FIELD_PROPERTY: *type = ab_schema_field (s, name)->type; return name;
      case AB_INDEX_FIELD_UNKNOWN: break;
    }
  return NULL;
}

static gboolean
is_integer (AbType t)
{
  return t == AB_TYPE_BYTE || t == AB_TYPE_SHORT || t == AB_TYPE_INT || t == AB_TYPE_LONG;
}

AbType
ab_group_field_type (const AbSchema *schema, const AbGroupField *f)
{
  AbType type = AB_TYPE_STRING;
  if (f->bucket == NULL)
    canonical_field (schema, f->name, &type);
  return type;
}

/* ---- groups ---- */

static gboolean
parse_group_field (const AbSchema *s, JsonNode *node, const gchar *path, AbGroupField *out,
                   GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL;
  JsonObject *bucket = NULL;
  if (o == NULL || !ab_model_json_string (o, path, "name", TRUE, NULL, &name, error)
      || !ab_model_json_child (o, path, "bucket", FALSE, &bucket, error))
    return FALSE;
  AbType type;
  const gchar *canon = canonical_field (s, name, &type);
  if (canon == NULL)
    return ab_model_invalid (
        error, "%s.name: unknown field '%s' (a property, version, source or target)", path, name);
  out->name = g_strdup (canon);
  if (bucket == NULL)
    return TRUE;
  if (!is_integer (type))
    return ab_model_invalid (
        error, "%s.bucket: a date bucket needs an integer field (epoch ms); '%s' is %s", path, name,
        ab_type_name (type));
  g_autofree gchar *bpath = ab_model_json_path (path, "bucket");
  out->bucket = parse_bucket (bucket, bpath, error);
  return out->bucket != NULL;
}

static gboolean
parse_group_kind (JsonObject *o, const gchar *path, AbGroup *g, GError **error)
{
  g_autofree gchar *type = NULL, *value = NULL;
  if (!ab_model_json_string (o, path, "type", TRUE, NULL, &type, error)
      || !ab_model_json_string (o, path, "valueField", FALSE, "-", &value, error)
      || !ab_model_json_dirtype (o, path, "directionType", FALSE, AB_DIRTYPE_BOTH, &g->direction,
                                 error)
      || !ab_model_json_int (o, path, "ttl", -1, &g->ttl, error))
    return FALSE;
  if (g_ascii_strcasecmp (type, "COUNT") == 0)
    g->type = AB_GROUP_COUNT;
  else if (g_ascii_strcasecmp (type, "SUM") == 0)
    g->type = AB_GROUP_SUM;
  else
    return ab_model_invalid (error, "%s.type: unknown group type '%s' (COUNT or SUM)", path, type);
  if (g->ttl != -1 && g->ttl <= 0)
    return ab_model_invalid (error,
                             "%s.ttl: %" G_GINT64_FORMAT " is not -1 (keep) or a positive number "
                             "of milliseconds",
                             path, g->ttl);
  /* Long.MAX_VALUE, upstream's way to say "never": no expiry that far can be
   * written (now + ttl would overflow), so it is kept forever as -1 is */
  if (g->ttl > AB_GROUP_TTL_MAX)
    g->ttl = -1;
  if (g->type == AB_GROUP_SUM)
    g->value_field = g_steal_pointer (&value);
  return TRUE;
}

static gboolean
check_value_field (const AbSchema *s, const gchar *path, AbGroup *g, GError **error)
{
  if (g->type != AB_GROUP_SUM)
    return TRUE;
  if (g_str_equal (g->value_field, "-"))
    {
      /* no valueField (upstream declares such SUM groups): 1 per edge, as COUNT */
      g_clear_pointer (&g->value_field, g_free);
      return TRUE;
    }
  AbType type;
  const gchar *canon = canonical_field (s, g->value_field, &type);
  if (canon == NULL)
    return ab_model_invalid (error,
                             "%s.valueField: a SUM group needs a numeric field to sum, got '%s'",
                             path, g->value_field);
  if (!ab_type_is_numeric (type))
    return ab_model_invalid (error, "%s.valueField: '%s' is %s, not numeric", path, g->value_field,
                             ab_type_name (type));
  gchar *name = g_strdup (canon); /* canon may be value_field itself */
  g_free (g->value_field);
  g->value_field = name;
  return TRUE;
}

/* ---- top-K definitions ---- */

static gint
group_field_index (const AbSchema *s, const AbGroup *g, const gchar *name)
{
  AbType type;
  const gchar *canon = canonical_field (s, name, &type);
  for (guint i = 0; canon != NULL && i < g->n_fields; i++)
    if (g_str_equal (g->fields[i].name, canon))
      return (gint) i;
  return ab_group_field_named (g, name); /* a bucket's name */
}

/* One `field:op:value` item of a top-K's ranges: placeholders (`{name}`, how
 * upstream scopes a score to the event's own values) stand for the ranking's
 * own segment and ranked values and are dropped; segment fields take eq only;
 * fields after the ranked one take a constant range. */
static gboolean
topk_range_item (const AbSchema *s, const AbGroup *g, AbTopk *k, const gchar *item,
                 const gchar *path, GString *constant, GString *relative, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (item, ":", 3);
  if (g_strv_length (parts) != 3 || *parts[0] == '\0')
    return ab_model_invalid (error, "%s.ranges: '%s' is not field:op:value", path, item);
  gint at = group_field_index (s, g, parts[0]);
  if (at < 0)
    return ab_model_invalid (error, "%s.ranges: '%s' is not a field of group '%s'", path, parts[0],
                             g->name);
  gboolean placeholder = parts[2][0] == '{';
  if (placeholder && (at > (gint) k->ranked || g_ascii_strcasecmp (parts[1], "eq") != 0))
    return ab_model_invalid (error,
                             "%s.ranges: a placeholder such as '%s' may only stand for a segment "
                             "field or the ranked field, with eq",
                             path, parts[2]);
  if (placeholder)
    return TRUE;
  if (at == (gint) k->ranked)
    return ab_model_invalid (error, "%s.ranges: the ranked field '%s' cannot be restricted", path,
                             parts[0]);
  if (at < (gint) k->ranked && g_ascii_strcasecmp (parts[1], "eq") != 0)
    return ab_model_invalid (error, "%s.ranges: segment field '%s' takes eq only", path, parts[0]);
  if (g_ascii_strcasecmp (parts[1], "in") == 0)
    return ab_model_invalid (error, "%s.ranges: 'in' is not supported in top-K ranges", path);
  if (strstr (parts[2], "now") == NULL)
    {
      g_string_append_printf (constant, "%s%s:%s:%s", constant->len > 0 ? ";" : "",
                              g->fields[at].name, parts[1], parts[2]);
      return TRUE;
    }
  /* a window relative to now: re-evaluated as time passes (data-model.md §17.1) */
  if (at < (gint) k->ranked || g->fields[at].bucket == NULL)
    return ab_model_invalid (error,
                             "%s.ranges: a bound relative to now ('%s') needs a bucketed field "
                             "after the ranked one; '%s' is not one",
                             path, parts[2], parts[0]);
  g_auto (GStrv) values = g_strsplit (parts[2], ",", -1);
  gboolean bt = g_ascii_strcasecmp (parts[1], "bt") == 0;
  for (guint i = 0; values[i] != NULL; i++)
    {
      gint64 off;
      if (strstr (values[i], "now") != NULL && !ab_topk_now_offset (values[i], &off))
        return ab_model_invalid (error,
                                 "%s.ranges: '%s' is not a bound relative to now (now, or now "
                                 "then +/-, a number and m, h or d: now-7d)",
                                 path, values[i]);
    }
  if (g_strv_length (values) != (bt ? 2u : 1u))
    return ab_model_invalid (error, "%s.ranges: '%s' takes %s", path, item,
                             bt ? "two values (bt:from,to)" : "one value");
  g_autofree gchar *op = g_ascii_strdown (parts[1], -1);
  if (!bt && strcmp (op, "eq") != 0 && strcmp (op, "gt") != 0 && strcmp (op, "gte") != 0
      && strcmp (op, "lt") != 0 && strcmp (op, "lte") != 0)
    return ab_model_invalid (error, "%s.ranges: unknown op '%s'", path, parts[1]);
  g_string_append_printf (relative, "%s%s:%s:%s", relative->len > 0 ? ";" : "", g->fields[at].name,
                          op, parts[2]);
  return TRUE;
}

gboolean
ab_topk_now_offset (const gchar *text, gint64 *offset_ms)
{
  const gchar *p = text;
  while (g_ascii_isspace (*p))
    p++;
  if (strncmp (p, "now", 3) != 0)
    return FALSE;
  p += 3;
  *offset_ms = 0;
  if (*p == '\0')
    return TRUE;
  gint sign = *p == '+' ? 1 : *p == '-' ? -1 : 0;
  if (sign == 0 || !g_ascii_isdigit (p[1]))
    return FALSE;
  gchar *end = NULL;
  guint64 n = g_ascii_strtoull (p + 1, &end, 10);
  gint64 unit = *end == 'm' ? 60000 : *end == 'h' ? 3600000 : *end == 'd' ? 86400000 : 0;
  if (unit == 0 || end[1] != '\0' || n > (guint64) (G_GINT64_CONSTANT (1) << 40) / (guint64) unit)
    return FALSE;
  *offset_ms = sign * (gint64) n * unit;
  return TRUE;
}

static AbTopk *
parse_topk (const AbSchema *s, const AbGroup *g, JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL, *ranges = NULL, *score = NULL;
  JsonObject *table = NULL;
  gint64 refresh;
  if (o == NULL || !ab_model_json_string (o, path, "topk", TRUE, NULL, &name, error)
      || !ab_model_json_string (o, path, "ranges", FALSE, "", &ranges, error)
      || !ab_model_json_int (o, path, "refreshAfterMillis", -1, &refresh, error)
      || !ab_model_json_child (o, path, "table", FALSE, &table, error))
    return NULL;
  g_autofree gchar *tpath = ab_model_json_path (path, "table");
  if (table != NULL && !ab_model_json_string (table, tpath, "score", FALSE, NULL, &score, error))
    return NULL;
  if (*name == '\0')
    return ab_model_invalid (error, "%s.topk: top-K names must not be empty", path), NULL;
  if (g->ttl > 0)
    return ab_model_invalid (error,
                             "%s: group '%s' has a ttl; a top-K ranks groups whose cells do "
                             "not expire",
                             path, g->name),
           NULL;
  gint ranked = -1;
  for (guint i = 0; i < g->n_fields; i++)
    if (g->fields[i].bucket == NULL)
      ranked = (gint) i;
  if (ranked < 0)
    return ab_model_invalid (error,
                             "%s: group '%s' has no field without a bucket to rank (the ranked "
                             "field is the last such field)",
                             path, g->name),
           NULL;
  AbTopk *k = g_new0 (AbTopk, 1);
  k->name = g_steal_pointer (&name);
  k->code = ab_codec_code (k->name);
  k->ranges = g_steal_pointer (&ranges);
  k->refresh_after_ms = refresh;
  k->score_table = g_steal_pointer (&score);
  k->ranked = (guint) ranked;
  g_autoptr (GString) constant = g_string_new (NULL);
  g_autoptr (GString) relative = g_string_new (NULL);
  g_auto (GStrv) items = g_strsplit (k->ranges, ";", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      g_strstrip (items[i]);
      if (*items[i] != '\0'
          && !topk_range_item (s, g, k, items[i], path, constant, relative, error))
        return topk_free (k), NULL;
    }
  k->constant_ranges = g_string_free (g_steal_pointer (&constant), FALSE);
  k->relative_ranges = g_string_free (g_steal_pointer (&relative), FALSE);
  return k;
}

/* {topk, entity, dimension, rank: "db.table", ranges?, additionalProperties?,
 * refreshAfterMillis?, refreshQueue?}: the rank table is checked when used. */
static AbRankTopk *
parse_rank_topk (JsonObject *o, const gchar *path, GError **error)
{
  g_autofree gchar *name = NULL, *entity = NULL, *dimension = NULL, *ranges = NULL, *rank = NULL,
                   *queue = NULL;
  JsonArray *extra = NULL;
  gint64 refresh;
  if (!ab_model_json_string (o, path, "topk", TRUE, NULL, &name, error)
      || !ab_model_json_string (o, path, "entity", TRUE, NULL, &entity, error)
      || !ab_model_json_string (o, path, "dimension", TRUE, NULL, &dimension, error)
      || !ab_model_json_string (o, path, "rank", TRUE, NULL, &rank, error)
      || !ab_model_json_string (o, path, "ranges", FALSE, "", &ranges, error)
      || !ab_model_json_int (o, path, "refreshAfterMillis", -1, &refresh, error)
      || !ab_model_json_string (o, path, "refreshQueue", FALSE, NULL, &queue, error)
      || !ab_model_json_array (o, path, "additionalProperties", FALSE, &extra, error))
    return NULL;
  const gchar *dot = strchr (rank, '.');
  if (*name == '\0')
    return ab_model_invalid (error, "%s.topk: top-K names must not be empty", path), NULL;
  if (dot == NULL || dot == rank || dot[1] == '\0')
    return ab_model_invalid (error,
                             "%s.rank: rank table must be a fully-qualified `database.table`, "
                             "got: %s",
                             path, rank),
           NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; extra != NULL && i < json_array_get_length (extra); i++)
    {
      JsonNode *n = json_array_get_element (extra, i);
      if (!JSON_NODE_HOLDS_VALUE (n) || json_node_get_value_type (n) != G_TYPE_STRING)
        return ab_model_invalid (error, "%s.additionalProperties[%u] must be a field name", path,
                                 i),
               NULL;
      g_ptr_array_add (names, g_strdup (json_node_get_string (n)));
    }
  g_ptr_array_add (names, NULL);
  AbRankTopk *k = g_new0 (AbRankTopk, 1);
  k->name = g_steal_pointer (&name);
  k->global = g_str_equal (entity, "__GLOBAL__");
  k->dimension = g_steal_pointer (&dimension);
  k->ranges = g_steal_pointer (&ranges);
  k->rank_db = g_strndup (rank, (gsize) (dot - rank));
  k->rank_table = g_strdup (dot + 1);
  k->additional = (gchar **) g_ptr_array_free (g_steal_pointer (&names), FALSE);
  k->refresh_after_ms = refresh;
  k->refresh_queue = queue != NULL ? g_steal_pointer (&queue) : g_strdup ("refresh");
  return k;
}

static gboolean
parse_aggregations (const AbSchema *s, JsonObject *o, const gchar *path, AbGroup *g, GError **error)
{
  JsonObject *aggs = NULL;
  JsonArray *topks = NULL;
  g->topks = g_ptr_array_new_with_free_func ((GDestroyNotify) topk_free);
  g->ranks = g_ptr_array_new_with_free_func ((GDestroyNotify) rank_topk_free);
  if (!ab_model_json_child (o, path, "aggregations", FALSE, &aggs, error))
    return FALSE;
  g_autofree gchar *apath = ab_model_json_path (path, "aggregations");
  if (aggs == NULL || !ab_model_json_array (aggs, apath, "topk", FALSE, &topks, error))
    return aggs == NULL;
  for (guint k = 0; topks != NULL && k < json_array_get_length (topks); k++)
    {
      g_autofree gchar *kpath = ab_model_json_item_path (apath, "topk", k);
      JsonNode *node = json_array_get_element (topks, k);
      if (JSON_NODE_HOLDS_OBJECT (node)
          && json_object_has_member (json_node_get_object (node), "rank"))
        {
          AbRankTopk *r = parse_rank_topk (json_node_get_object (node), kpath, error);
          if (r == NULL)
            return FALSE;
          g_ptr_array_add (g->ranks, r);
          continue;
        }
      AbTopk *t = parse_topk (s, g, node, kpath, error);
      if (t == NULL)
        return FALSE;
      g_ptr_array_add (g->topks, t);
    }
  return TRUE;
}

static gpointer
parse_group (const AbSchema *s, JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL;
  JsonArray *fields = NULL;
  if (o == NULL || !ab_model_json_string (o, path, "group", TRUE, NULL, &name, error)
      || !ab_model_json_array (o, path, "fields", FALSE, &fields, error))
    return NULL;
  if (*name == '\0' || g_str_equal (name, AB_GROUP_COUNT_NAME))
    return ab_model_invalid (error,
                             "%s.group: '%s' is not a valid group name (non-empty; %s is "
                             "reserved)",
                             path, name, AB_GROUP_COUNT_NAME),
           NULL;
  AbGroup *g = g_new0 (AbGroup, 1);
  g->name = g_steal_pointer (&name);
  g->code = ab_codec_code (g->name);
  guint n = fields != NULL ? json_array_get_length (fields) : 0;
  g->fields = g_new0 (AbGroupField, MAX (n, 1));
  gboolean ok = parse_group_kind (o, path, g, error) && check_value_field (s, path, g, error);
  for (guint k = 0; ok && k < n; k++)
    {
      g_autofree gchar *fpath = ab_model_json_item_path (path, "fields", k);
      g->n_fields = k + 1;
      ok = parse_group_field (s, json_array_get_element (fields, k), fpath, &g->fields[k], error);
    }
  ok = ok && parse_aggregations (s, o, path, g, error);
  if (!ok)
    return ab_group_free (g), NULL;
  return g;
}

/* ---- caches ---- */

/* A cache field's optional `dimension`: the values (strings, numbers or
 * booleans, kept as text) an edge must have in that field to enter the cache. */
static gboolean
parse_dimension (JsonObject *fo, const gchar *fpath, GStrv *out, GError **error)
{
  JsonArray *values = NULL;
  if (!ab_model_json_array (fo, fpath, "dimension", FALSE, &values, error))
    return FALSE;
  if (values == NULL)
    return TRUE;
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  for (guint i = 0; i < json_array_get_length (values); i++)
    {
      JsonNode *v = json_array_get_element (values, i);
      if (!JSON_NODE_HOLDS_VALUE (v))
        return ab_model_invalid (error, "%s.dimension[%u] must be a value", fpath, i);
      g_autofree gchar *text = json_node_get_value_type (v) == G_TYPE_STRING
                                   ? g_strdup (json_node_get_string (v))
                                   : json_to_string (v, FALSE);
      g_strv_builder_add (b, text);
    }
  *out = g_strv_builder_end (b);
  return TRUE;
}

static gpointer
parse_cache (const AbSchema *s, JsonNode *node, const gchar *path, GError **error)
{
  JsonObject *o = ab_model_json_object (node, path, error);
  g_autofree gchar *name = NULL;
  JsonArray *fields = NULL;
  gint64 limit, tolerance;
  if (o == NULL || !ab_model_json_string (o, path, "cache", TRUE, NULL, &name, error)
      || !ab_model_json_array (o, path, "fields", FALSE, &fields, error)
      || !ab_model_json_int (o, path, "limit", AB_CACHE_DEFAULT_LIMIT, &limit, error)
      || !ab_model_json_int (o, path, "tolerance", 0, &tolerance, error))
    return NULL;
  if (*name == '\0')
    return ab_model_invalid (error, "%s.cache: cache names must not be empty", path), NULL;
  if (limit < 1 || limit > AB_CACHE_MAX_LIMIT)
    return ab_model_invalid (error, "%s.limit: %" G_GINT64_FORMAT " is not between 1 and %d", path,
                             limit, AB_CACHE_MAX_LIMIT),
           NULL;
  if (tolerance < 0 || tolerance > AB_CACHE_MAX_TOLERANCE)
    return ab_model_invalid (error,
                             "%s.tolerance: %" G_GINT64_FORMAT " is not between 0 and %d (the "
                             "spare cells a row keeps beyond its limit)",
                             path, tolerance, AB_CACHE_MAX_TOLERANCE),
           NULL;
  AbCache *c = g_new0 (AbCache, 1);
  c->name = g_steal_pointer (&name);
  c->code = ab_codec_code (c->name);
  c->limit = (guint) limit;
  c->tolerance = (guint) tolerance;
  guint n = fields != NULL ? json_array_get_length (fields) : 0;
  c->fields = g_new0 (AbIndexField, MAX (n, 1));
  c->allowed = g_new0 (GStrv, MAX (n, 1));
  for (guint k = 0; k < n; k++)
    {
      g_autofree gchar *fpath = ab_model_json_item_path (path, "fields", k);
      JsonObject *fo = ab_model_json_object (json_array_get_element (fields, k), fpath, error);
      g_autofree gchar *field = NULL;
      AbType type;
      if (fo == NULL || !ab_model_json_string (fo, fpath, "field", TRUE, NULL, &field, error)
          || !ab_model_json_order (fo, fpath, "order", &c->fields[k].order, error))
        return ab_cache_free (c), NULL;
      const gchar *canon = canonical_field (s, field, &type);
      if (canon == NULL)
        return ab_cache_free (c),
               ab_model_invalid (error,
                                 "%s.field: unknown field '%s' (a property, "
                                 "version, source or target)",
                                 fpath, field),
               NULL;
      c->fields[k].field = g_strdup (canon);
      c->n_fields++;
      if (!parse_dimension (fo, fpath, &c->allowed[k], error))
        return ab_cache_free (c), NULL;
    }
  return c;
}

gboolean
ab_cache_allows (const AbCache *c, guint i, const gchar *text)
{
  return c->allowed[i] == NULL || g_strv_contains ((const gchar *const *) c->allowed[i], text);
}

gboolean
ab_cache_has_dimensions (const AbCache *c)
{
  for (guint i = 0; i < c->n_fields; i++)
    if (c->allowed[i] != NULL)
      return TRUE;
  return FALSE;
}

guint
ab_cache_bound (const AbCache *c)
{
  return c->limit + c->tolerance;
}

void
ab_cache_limits (const AbCache *c, guint *dflt, guint *max)
{
  *dflt = MIN (c->limit, *max);
  *max = MIN (ab_cache_bound (c), *max);
}

/* ---- the schema's lists ---- */

typedef gpointer (*ParseFn) (const AbSchema *s, JsonNode *node, const gchar *path, GError **error);

static GPtrArray *
parse_list (const AbSchema *s, JsonNode *array, const gchar *member, ParseFn parse,
            GDestroyNotify free_fn, GError **error)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (free_fn);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  JsonArray *a
      = array != NULL && JSON_NODE_HOLDS_ARRAY (array) ? json_node_get_array (array) : NULL;
  for (guint k = 0; a != NULL && k < json_array_get_length (a); k++)
    {
      g_autofree gchar *path = ab_model_json_item_path ("schema", member, k);
      gpointer item = parse (s, json_array_get_element (a, k), path, error);
      if (item == NULL)
        return g_ptr_array_unref (out), NULL;
      g_ptr_array_add (out, item);
      /* both structs start with their name */
      const gchar *name = *(gchar **) item;
      if (!g_hash_table_add (seen, (gpointer) name))
        {
          /* the message first: name belongs to an item of out */
          ab_model_invalid (error, "%s: duplicate name '%s' in schema %s", path, name, member);
          g_ptr_array_unref (out);
          return NULL;
        }
    }
  return out;
}

static guint
array_len (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_ARRAY (node)
             ? json_array_get_length (json_node_get_array (node))
             : 0;
}

/* Top-K names are unique across the table's groups (reads name no group). */
static gboolean
unique_topks (GPtrArray *groups, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < groups->len; i++)
    {
      const AbGroup *g = groups->pdata[i];
      for (guint k = 0; k < g->topks->len; k++)
        if (!g_hash_table_add (seen, ((AbTopk *) g->topks->pdata[k])->name))
          return ab_model_invalid (error, "schema.groups: duplicate top-K name '%s'",
                                   ((AbTopk *) g->topks->pdata[k])->name);
      for (guint k = 0; k < g->ranks->len; k++)
        if (!g_hash_table_add (seen, ((AbRankTopk *) g->ranks->pdata[k])->name))
          return ab_model_invalid (error, "schema.groups: duplicate top-K name '%s'",
                                   ((AbRankTopk *) g->ranks->pdata[k])->name);
    }
  return TRUE;
}

gboolean
ab_schema_parse_groups (AbSchema *schema, GError **error)
{
  if (schema->kind == AB_TABLE_IMMUTABLE_EDGE
      && (array_len (schema->groups) > 0 || array_len (schema->caches) > 0))
    return ab_model_invalid (error, "%s",
                             "An immutable edge table keeps Index rows only: it cannot have "
                             "groups or caches");
  GPtrArray *groups = parse_list (schema, schema->groups, "groups", parse_group,
                                  (GDestroyNotify) ab_group_free, error);
  if (groups == NULL)
    return FALSE;
  GPtrArray *caches = parse_list (schema, schema->caches, "caches", parse_cache,
                                  (GDestroyNotify) ab_cache_free, error);
  if (caches == NULL)
    return g_ptr_array_unref (groups), FALSE;
  if (!unique_topks (groups, error))
    return g_ptr_array_unref (groups), g_ptr_array_unref (caches), FALSE;
  g_clear_pointer (&schema->group_defs, g_ptr_array_unref);
  g_clear_pointer (&schema->cache_defs, g_ptr_array_unref);
  schema->group_defs = groups;
  schema->cache_defs = caches;
  return TRUE;
}

const AbGroup *
ab_schema_group (const AbSchema *schema, const gchar *name)
{
  for (guint i = 0; schema->group_defs != NULL && i < schema->group_defs->len; i++)
    if (g_str_equal (((AbGroup *) schema->group_defs->pdata[i])->name, name))
      return schema->group_defs->pdata[i];
  return NULL;
}

const AbCache *
ab_schema_cache (const AbSchema *schema, const gchar *name)
{
  for (guint i = 0; schema->cache_defs != NULL && i < schema->cache_defs->len; i++)
    if (g_str_equal (((AbCache *) schema->cache_defs->pdata[i])->name, name))
      return schema->cache_defs->pdata[i];
  return NULL;
}

const AbGroup *
ab_schema_group_by_code (const AbSchema *schema, gint32 code)
{
  for (guint i = 0; schema->group_defs != NULL && i < schema->group_defs->len; i++)
    if (((AbGroup *) schema->group_defs->pdata[i])->code == code)
      return schema->group_defs->pdata[i];
  return NULL;
}

const AbCache *
ab_schema_cache_by_code (const AbSchema *schema, gint32 code)
{
  for (guint i = 0; schema->cache_defs != NULL && i < schema->cache_defs->len; i++)
    if (((AbCache *) schema->cache_defs->pdata[i])->code == code)
      return schema->cache_defs->pdata[i];
  return NULL;
}

const AbTopk *
ab_schema_topk (const AbSchema *schema, const gchar *name, const AbGroup **group)
{
  for (guint i = 0; schema->group_defs != NULL && i < schema->group_defs->len; i++)
    {
      const AbGroup *g = schema->group_defs->pdata[i];
      for (guint k = 0; name != NULL && k < g->topks->len; k++)
        if (g_str_equal (((AbTopk *) g->topks->pdata[k])->name, name))
          {
            *group = g;
            return g->topks->pdata[k];
          }
    }
  return NULL;
}

const AbRankTopk *
ab_schema_rank_topk (const AbSchema *schema, const gchar *name, const AbGroup **group)
{
  for (guint i = 0; schema->group_defs != NULL && i < schema->group_defs->len; i++)
    {
      const AbGroup *g = schema->group_defs->pdata[i];
      for (guint k = 0; name != NULL && k < g->ranks->len; k++)
        if (g_str_equal (((AbRankTopk *) g->ranks->pdata[k])->name, name))
          {
            *group = g;
            return g->ranks->pdata[k];
          }
    }
  return NULL;
}
