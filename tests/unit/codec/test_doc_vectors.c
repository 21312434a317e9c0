/* Doc vectors suite: owns the executable form of docs/storage-format.md §9. It
 * parses every ```vector block of that file and checks that the codec (element,
 * keys, record, bytes) produces exactly the bytes each record states. */
#include <stdlib.h>
#include <string.h>
#include "codec_helpers.h"
#include "codec/bytes.h"
#include "codec/keys.h"
#include "codec/record.h"
#include "engine/topk/topk.h"

#ifndef AB_DOCS_DIR
#error "AB_DOCS_DIR must name the docs/ directory (see src/codec/local.mk)"
#endif

#define DOC_PATH AB_DOCS_DIR "/storage-format.md"
#define MIN_RECORDS 60

typedef struct {
  gchar *key;
  gchar *value;
} Field;

typedef struct {
  guint line;     /* of its first field in the document */
  GArray *fields; /* Field, in document order */
  gchar *problem; /* a syntax error found while parsing, or NULL */
} Record;

static GPtrArray *records;  /* Record*, parsed once in main () */
static gchar *load_problem; /* why the document could not be read */

/* ---- the document ---- */

static void
field_clear (gpointer p)
{
  Field *f = p;
  g_free (f->key);
  g_free (f->value);
}

static void
record_free (gpointer p)
{
  Record *r = p;
  g_array_unref (r->fields);
  g_free (r->problem);
  g_free (r);
}

static Record *
record_new (guint line)
{
  Record *r = g_new0 (Record, 1);
  r->line = line;
  r->fields = g_array_new (FALSE, TRUE, sizeof (Field));
  g_array_set_clear_func (r->fields, field_clear);
  return r;
}

/* Adds "key: value" (value may be empty) to r, or notes a syntax problem. */
static void
record_add_line (Record *r, const gchar *line, guint lineno)
{
  const gchar *colon = strchr (line, ':');
  if (colon == NULL || colon == line)
    {
      if (r->problem == NULL)
        r->problem = g_strdup_printf ("line %u: expected 'key: value', got '%s'", lineno, line);
      return;
    }
  const gchar *v = colon + 1;
  if (*v == ' ')
    v++;
  Field f = { g_strndup (line, (gsize) (colon - line)), g_strdup (v) };
  g_array_append_val (r->fields, f);
}

/* Splits the ```vector blocks of text into records (blank lines separate
 * records inside a block). */
static GPtrArray *
parse_document (const gchar *text)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (record_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean in_block = FALSE;
  Record *cur = NULL;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      gchar *line = lines[i];
      gsize n = strlen (line);
      if (n > 0 && line[n - 1] == '\r')
        line[n - 1] = '\0';
      if (!in_block)
        {
          in_block = g_str_equal (line, "```vector");
          continue;
        }
      if (g_str_has_prefix (line, "```") || line[0] == '\0')
        {
          if (cur != NULL)
            g_ptr_array_add (out, cur);
          cur = NULL;
          in_block = !g_str_has_prefix (line, "```");
          continue;
        }
      if (cur == NULL)
        cur = record_new (i + 1);
      record_add_line (cur, line, i + 1);
    }
  if (cur != NULL) /* an unterminated block still counts */
    {
      cur->problem = cur->problem ? cur->problem : g_strdup ("the ```vector block is not closed");
      g_ptr_array_add (out, cur);
    }
  return out;
}

static const gchar *
get (const Record *r, const gchar *key)
{
  for (guint i = 0; i < r->fields->len; i++)
    if (g_str_equal (g_array_index (r->fields, Field, i).key, key))
      return g_array_index (r->fields, Field, i).value;
  return NULL;
}

/* ---- reading values ---- */

typedef struct {
  const Record *r;
  GString *why; /* the first problem, empty while all is well */
} Ctx;

static gboolean vec_fail (Ctx *c, const gchar *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
vec_fail (Ctx *c, const gchar *fmt, ...)
{
  if (c->why->len > 0)
    return FALSE;
  va_list ap;
  va_start (ap, fmt);
  g_string_append_vprintf (c->why, fmt, ap);
  va_end (ap);
  return FALSE;
}

static const gchar *
need (Ctx *c, const gchar *key)
{
  const gchar *v = get (c->r, key);
  if (v == NULL)
    vec_fail (c, "missing '%s'", key);
  return v;
}

static gboolean
parse_int (Ctx *c, const gchar *text, gint64 min, gint64 max, gint64 *out)
{
  g_autoptr (GError) error = NULL;
  if (text != NULL && g_ascii_string_to_signed (text, 10, min, max, out, &error))
    return TRUE;
  return vec_fail (c, "'%s' is not an integer in %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                   text ? text : "", min, max);
}

/* Hex with optional spaces; NULL (and a problem) when malformed. */
static GByteArray *
parse_hex (Ctx *c, const gchar *hex)
{
  if (hex == NULL)
    return NULL;
  GByteArray *out = g_byte_array_new ();
  gint hi = -1;
  for (const gchar *p = hex; *p != '\0'; p++)
    {
      if (*p == ' ')
        continue;
      gint d = g_ascii_xdigit_value (*p);
      if (d < 0)
        return g_byte_array_unref (out), vec_fail (c, "bad hex '%s'", hex), NULL;
      if (hi < 0)
        hi = d;
      else
        {
          guint8 b = (guint8) (hi << 4 | d);
          g_byte_array_append (out, &b, 1);
          hi = -1;
        }
    }
  if (hi >= 0)
    return g_byte_array_unref (out), vec_fail (c, "odd number of hex digits in '%s'", hex), NULL;
  return out;
}

/* "TYPE TEXT" (TEXT to the end of the line; none for null). */
static gboolean
parse_typed (Ctx *c, const gchar *text, AbValue *out)
{
  static const struct {
    const gchar *name;
    AbValueKind kind;
    gint64 min, max;
  } types[] = {
    { "int8", AB_VALUE_INT8, G_MININT8, G_MAXINT8 },
    { "int16", AB_VALUE_INT16, G_MININT16, G_MAXINT16 },
    { "int32", AB_VALUE_INT32, G_MININT32, G_MAXINT32 },
    { "int64", AB_VALUE_INT64, G_MININT64, G_MAXINT64 },
  };
  if (text == NULL)
    return vec_fail (c, "missing typed value");
  const gchar *space = strchr (text, ' ');
  g_autofree gchar *type = space ? g_strndup (text, (gsize) (space - text)) : g_strdup (text);
  const gchar *rest = space ? space + 1 : "";
  if (g_str_equal (type, "null"))
    return ab_value_set_null (out), TRUE;
  if (g_str_equal (type, "string") || g_str_equal (type, "json"))
    {
      ab_value_set_string (out, g_str_equal (type, "json") ? AB_VALUE_JSON : AB_VALUE_STRING, rest,
                           strlen (rest));
      return TRUE;
    }
  if (g_str_equal (type, "bool") && (g_str_equal (rest, "true") || g_str_equal (rest, "false")))
    return ab_value_set_bool (out, g_str_equal (rest, "true")), TRUE;
  if (g_str_equal (type, "float32") || g_str_equal (type, "float64"))
    {
      gchar *end = NULL;
      gdouble d = g_ascii_strtod (rest, &end);
      if (*rest == '\0' || *end != '\0')
        return vec_fail (c, "'%s' is not a number", rest);
      ab_value_set_float (out, type[5] == '3' ? AB_VALUE_FLOAT32 : AB_VALUE_FLOAT64, d);
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (g_str_equal (type, types[i].name))
      {
        gint64 v;
        if (!parse_int (c, rest, types[i].min, types[i].max, &v))
          return FALSE;
        ab_value_set_int (out, types[i].kind, v);
        return TRUE;
      }
  return vec_fail (c, "bad typed value '%s'", text);
}

/* "asc TYPE TEXT" / "desc TYPE TEXT". */
static gboolean
parse_ordered (Ctx *c, const gchar *text, AbOrder *order, AbValue *out)
{
  if (g_str_has_prefix (text, "asc "))
    *order = AB_ORDER_ASC;
  else if (g_str_has_prefix (text, "desc "))
    *order = AB_ORDER_DESC;
  else
    return vec_fail (c, "'%s' must start with asc or desc", text);
  return parse_typed (c, text + (*order == AB_ORDER_ASC ? 4 : 5), out);
}

/* A property name or "#N" (a raw code). */
static gboolean
parse_code (Ctx *c, const gchar *name, gint32 *code)
{
  if (name[0] != '#')
    return *code = ab_codec_code (name), TRUE;
  gint64 v;
  if (!parse_int (c, name + 1, G_MININT32, G_MAXINT32, &v))
    return FALSE;
  *code = (gint32) v;
  return TRUE;
}

/* Compares bytes with the record's hex member `key`. */
static gboolean
expect_hex (Ctx *c, const gchar *key, const guint8 *got, gsize len)
{
  g_autoptr (GByteArray) want = parse_hex (c, need (c, key));
  if (want == NULL)
    return FALSE;
  if (want->len == len && (len == 0 || memcmp (want->data, got, len) == 0))
    return TRUE;
  g_autofree gchar *g = ab_codec_hex (got, len);
  g_autofree gchar *w = ab_codec_hex (want->data, want->len);
  return vec_fail (c, "%s: the codec gives %s, the document says %s", key, g, w);
}

/* Every key of the record must be one its kind knows, and only the list
 * members (prop, field, append, append-hex) may repeat. */
static gboolean
check_keys (Ctx *c, const gchar *const *allowed)
{
  static const gchar *const lists[] = { "prop", "field", "append", "append-hex", NULL };
  for (guint i = 0; i < c->r->fields->len; i++)
    {
      const gchar *k = g_array_index (c->r->fields, Field, i).key;
      if (!g_str_equal (k, "kind") && !g_str_equal (k, "name") && !g_strv_contains (allowed, k))
        return vec_fail (c, "unknown member '%s' for this kind", k);
      for (guint j = 0; j < i && !g_strv_contains (lists, k); j++)
        if (g_str_equal (g_array_index (c->r->fields, Field, j).key, k))
          return vec_fail (c, "member '%s' is given twice", k);
    }
  return TRUE;
}

/* ---- the kinds ---- */

static gboolean
check_code (Ctx *c)
{
  static const gchar *const keys[]
      = { "text", "database", "table", "int32", "hex", "partitions", "partition", NULL };
  const gchar *text = get (c->r, "text"), *db = get (c->r, "database"), *tb = get (c->r, "table");
  gint64 want;
  if (!check_keys (c, keys) || !parse_int (c, need (c, "int32"), G_MININT32, G_MAXINT32, &want))
    return FALSE;
  if ((text != NULL) == (db != NULL || tb != NULL) || (db != NULL) != (tb != NULL))
    return vec_fail (c, "give either 'text' or both 'database' and 'table'");
  gint32 code = text != NULL ? ab_codec_code (text) : ab_codec_table_code (db, tb);
  if (code != want)
    return vec_fail (c, "int32: the codec gives %d, the document says %" G_GINT64_FORMAT, code,
                     want);
  g_autoptr (GByteArray) elem = g_byte_array_new ();
  ab_codec_put_int32 (elem, code, AB_ORDER_ASC);
  if (!expect_hex (c, "hex", elem->data, elem->len))
    return FALSE;
  const gchar *parts = get (c->r, "partitions");
  if (parts == NULL)
    return get (c->r, "partition") == NULL || vec_fail (c, "'partition' needs 'partitions'");
  gint64 n, p;
  if (!parse_int (c, parts, 1, G_MAXINT32, &n)
      || !parse_int (c, need (c, "partition"), 0, n - 1, &p))
    return FALSE;
  gint64 got = ((gint64) code % n + n) % n; /* floorMod */
  return got == p
         || vec_fail (c,
                      "partition: %" G_GINT64_FORMAT " by the codec's code, the document "
                      "says %" G_GINT64_FORMAT,
                      got, p);
}

static gboolean
check_element (Ctx *c)
{
  static const gchar *const keys[] = { "value", "asc", "desc", NULL };
  AbValue v = AB_VALUE_INIT;
  gboolean ok = check_keys (c, keys) && parse_typed (c, need (c, "value"), &v);
  if (ok && get (c->r, "asc") == NULL && get (c->r, "desc") == NULL)
    ok = vec_fail (c, "give 'asc' or 'desc' (or both)");
  static const gchar *const members[] = { "asc", "desc" };
  for (guint o = 0; ok && o < 2; o++)
    {
      if (get (c->r, members[o]) == NULL)
        continue;
      g_autoptr (GByteArray) e = g_byte_array_new ();
      g_autoptr (GError) error = NULL;
      if (!ab_codec_put_value (e, &v, (AbOrder) o, &error))
        {
          ok = vec_fail (c, "%s: the codec refuses the value: %s", members[o], error->message);
          break;
        }
      ok = expect_hex (c, members[o], e->data, e->len);
      /* and the stated bytes decode back to the value, in that order */
      AbValue back = AB_VALUE_INIT;
      AbOrder order;
      gsize pos = 0;
      if (ok
          && (!ab_codec_get_value (e->data, e->len, &pos, &back, &order, NULL) || pos != e->len
              || order != (AbOrder) o || !ab_value_equal (&back, &v)))
        ok = vec_fail (c, "%s: the bytes do not decode back to the value", members[o]);
      ab_value_clear (&back);
    }
  ab_value_clear (&v);
  return ok;
}

static gboolean
parse_direction (Ctx *c, AbDirection *dir)
{
  const gchar *d = need (c, "direction");
  if (g_strcmp0 (d, "OUT") == 0)
    *dir = AB_DIR_OUT;
  else if (g_strcmp0 (d, "IN") == 0)
    *dir = AB_DIR_IN;
  else
    return d == NULL ? FALSE : vec_fail (c, "direction '%s' is not OUT or IN", d);
  return TRUE;
}

/* The table code of "<database>.<table>". */
static gboolean
parse_table (Ctx *c, gint32 *code)
{
  const gchar *t = need (c, "table");
  const gchar *dot = t != NULL ? strchr (t, '.') : NULL;
  if (dot == NULL)
    return t == NULL ? FALSE : vec_fail (c, "table '%s' is not <database>.<table>", t);
  g_autofree gchar *db = g_strndup (t, (gsize) (dot - t));
  *code = ab_codec_table_code (db, dot + 1);
  return TRUE;
}

/* The code of the index / group / cache: its name, or a raw `code`. */
static gboolean
parse_row_code (Ctx *c, const gchar *member, gint32 *code)
{
  const gchar *name = get (c->r, member), *raw = get (c->r, "code");
  gint64 v;
  if ((name == NULL) == (raw == NULL))
    return vec_fail (c, "give either '%s' or 'code'", member);
  if (name != NULL)
    return *code = ab_codec_code (name), TRUE;
  if (!parse_int (c, raw, G_MININT32, G_MAXINT32, &v))
    return FALSE;
  *code = (gint32) v;
  return TRUE;
}

/* The index values: every `field` line, in order. */
static gboolean
parse_fields (Ctx *c, GArray *values, GArray *orders)
{
  for (guint i = 0; i < c->r->fields->len; i++)
    {
      const Field *f = &g_array_index (c->r->fields, Field, i);
      if (!g_str_equal (f->key, "field"))
        continue;
      AbValue v = AB_VALUE_INIT;
      AbOrder o;
      if (!parse_ordered (c, f->value, &o, &v))
        return FALSE;
      g_array_append_val (values, v);
      g_array_append_val (orders, o);
    }
  return TRUE;
}

static GByteArray *
build_key (Ctx *c, const gchar *row, AbRowType *type, AbValue *source)
{
  AbValue target = AB_VALUE_INIT;
  AbDirection dir = AB_DIR_OUT;
  gint32 table = 0, code = 0;
  g_autoptr (GError) error = NULL;
  GByteArray *key = NULL;
  gboolean pair = g_str_equal (row, "state") || g_str_equal (row, "lock");
  gboolean index = g_str_equal (row, "index") || g_str_equal (row, "index-prefix");
  if (!parse_table (c, &table) || !parse_typed (c, need (c, "source"), source))
    return NULL;
  if (!pair && !parse_direction (c, &dir))
    return NULL;
  if ((pair || g_str_equal (row, "index")) && !parse_typed (c, need (c, "target"), &target))
    return NULL;
  if (pair)
    {
      *type = g_str_equal (row, "state") ? AB_ROW_STATE : AB_ROW_LOCK;
      key = *type == AB_ROW_STATE ? ab_codec_state_key (source, &target, table, &error)
                                  : ab_codec_lock_key (source, &target, table, &error);
    }
  else if (g_str_equal (row, "count"))
    {
      *type = AB_ROW_COUNT;
      key = ab_codec_count_key (source, dir, table, &error);
    }
  else if (index && parse_row_code (c, "index", &code))
    {
      g_autoptr (GArray) values = g_array_new (FALSE, TRUE, sizeof (AbValue));
      g_autoptr (GArray) orders = g_array_new (FALSE, TRUE, sizeof (AbOrder));
      g_array_set_clear_func (values, (GDestroyNotify) ab_value_clear);
      *type = AB_ROW_INDEX;
      if (g_str_equal (row, "index-prefix"))
        key = ab_codec_index_prefix (source, dir, table, code, &error);
      else if (parse_fields (c, values, orders))
        key = ab_codec_index_key (source, dir, table, code, (AbValue *) values->data,
                                  (AbOrder *) orders->data, values->len, &target, &error);
    }
  else if ((g_str_equal (row, "group") || g_str_equal (row, "cache"))
           && parse_row_code (c, row, &code))
    {
      *type = row[0] == 'g' ? AB_ROW_GROUP : AB_ROW_CACHE;
      key = ab_codec_wide_key (source, dir, table, *type, code, &error);
    }
  else if ((g_str_equal (row, "rank") || g_str_equal (row, "score"))
           && parse_row_code (c, "topk", &code))
    {
      *type = row[0] == 'r' ? AB_ROW_TOPK_RANK : AB_ROW_TOPK_SCORE;
      key = ab_codec_wide_key (source, dir, table, *type, code, &error);
    }
  else if (!index && !g_str_equal (row, "group") && !g_str_equal (row, "cache")
           && !g_str_equal (row, "rank") && !g_str_equal (row, "score"))
    vec_fail (c, "unknown row '%s'", row);
  ab_value_clear (&target);
  if (key == NULL && error != NULL)
    vec_fail (c, "the codec refuses the key: %s", error->message);
  return key;
}

/* The key's prefix read back: source, record type and salt. The key parser
 * takes only upstream's types (-6..-1), so the top-K rows (-7, -8) are read
 * element by element; their salt is their entity's Group salt. */
static gboolean
prefix_reads_back (const GByteArray *key, const AbValue *source, AbRowType type)
{
  AbKeyParts parts;
  AbValue back = AB_VALUE_INIT;
  gsize pos = 4;
  gint32 table;
  gint8 t;
  gboolean ok;
  if (type != AB_ROW_TOPK_RANK && type != AB_ROW_TOPK_SCORE)
    {
      if (!ab_codec_parse_key (key->data, key->len, &parts, NULL))
        return FALSE;
      ok = ab_value_equal (&parts.source, source) && parts.type == type
           && parts.salt == (guint32) ab_codec_hash (key->data + 4, parts.rest - 4);
      ab_codec_key_parts_clear (&parts);
      return ok;
    }
  ok = ab_codec_get_value (key->data, key->len, &pos, &back, NULL, NULL)
       && ab_codec_get_int32 (key->data, key->len, &pos, &table, NULL);
  gsize at_type = pos;
  ok = ok && ab_codec_get_int8 (key->data, key->len, &pos, &t, NULL) && t == (gint8) type
       && ab_value_equal (&back, source);
  ab_value_clear (&back);
  if (!ok)
    return FALSE;
  /* salted as the entity's Group rows (storage-format.md §3) */
  g_autoptr (GByteArray) body = g_byte_array_new ();
  g_byte_array_append (body, key->data + 4, (guint) (at_type - 4));
  ab_codec_put_int8 (body, (gint8) AB_ROW_GROUP, AB_ORDER_ASC);
  return ab_codec_key_salt (key->data) == (guint32) ab_codec_hash (body->data, body->len);
}

/* `append` (an element) and `append-hex` (raw bytes) lines, in order. */
static gboolean
append_all (Ctx *c, GByteArray *key)
{
  for (guint i = 0; i < c->r->fields->len; i++)
    {
      const Field *f = &g_array_index (c->r->fields, Field, i);
      if (g_str_equal (f->key, "append"))
        {
          AbValue v = AB_VALUE_INIT;
          AbOrder o;
          gboolean ok
              = parse_ordered (c, f->value, &o, &v) && ab_codec_put_value (key, &v, o, NULL);
          ab_value_clear (&v);
          if (!ok)
            return vec_fail (c, "cannot append '%s'", f->value);
        }
      else if (g_str_equal (f->key, "append-hex"))
        {
          g_autoptr (GByteArray) raw = parse_hex (c, f->value);
          if (raw == NULL)
            return FALSE;
          g_byte_array_append (key, raw->data, raw->len);
        }
    }
  return TRUE;
}

static gboolean
check_key (Ctx *c)
{
  static const gchar *const keys[]
      = { "row",  "table", "source", "target", "direction",  "index", "group", "cache",
          "topk", "code",  "field",  "append", "append-hex", "then",  "hex",   NULL };
  AbValue source = AB_VALUE_INIT;
  AbRowType type = AB_ROW_STATE;
  const gchar *row = need (c, "row");
  g_autoptr (GByteArray) key
      = check_keys (c, keys) && row != NULL ? build_key (c, row, &type, &source) : NULL;
  gboolean ok = key != NULL;
  /* The bare key parses back to its prefix; a wide row splits where it ends. */
  if (ok && !prefix_reads_back (key, &source, type))
    ok = vec_fail (c, "the key does not parse back to its source, type and salt");
  gsize base = ok ? key->len : 0;
  ok = ok && append_all (c, key);
  if (ok && (type == AB_ROW_GROUP || type == AB_ROW_CACHE)
      && ab_codec_wide_row_length (key->data, key->len) != base)
    ok = vec_fail (c, "the wide row does not end where its code element ends");
  const gchar *then = get (c->r, "then");
  if (ok && then != NULL && g_str_equal (then, "plus-one"))
    ok = ab_codec_plus_one (key) || vec_fail (c, "plusOne wrapped");
  else if (ok && then != NULL && g_str_equal (then, "upper-bound"))
    {
      GByteArray *ub = ab_codec_prefix_upper_bound (key->data, key->len);
      g_byte_array_unref (g_steal_pointer (&key));
      key = ub;
      if (key == NULL)
        ok = g_strcmp0 (get (c->r, "hex"), "none") == 0
             || vec_fail (c, "hex: the upper bound is unbounded, the document says %s",
                          get (c->r, "hex"));
    }
  else if (ok && then != NULL)
    ok = vec_fail (c, "then '%s' is not plus-one or upper-bound", then);
  if (ok && key != NULL)
    ok = expect_hex (c, "hex", key->data, key->len);
  ab_value_clear (&source);
  return ok;
}

/* `prop` lines of a State value: "NAME @VERSION TYPE TEXT". */
static gboolean
parse_state_props (Ctx *c, AbStateValue *sv)
{
  for (guint i = 0; i < c->r->fields->len; i++)
    {
      const Field *f = &g_array_index (c->r->fields, Field, i);
      if (!g_str_equal (f->key, "prop"))
        continue;
      g_auto (GStrv) parts = g_strsplit (f->value, " ", 3);
      gint32 code;
      gint64 version;
      AbValue v = AB_VALUE_INIT;
      if (g_strv_length (parts) < 3 || parts[1][0] != '@')
        return vec_fail (c, "prop '%s' is not 'NAME @VERSION TYPE TEXT'", f->value);
      if (!parse_code (c, parts[0], &code)
          || !parse_int (c, parts[1] + 1, G_MININT64, G_MAXINT64, &version)
          || !parse_typed (c, parts[2], &v))
        return FALSE;
      ab_codec_state_value_add (sv, code, &v, version);
      ab_value_clear (&v);
    }
  return TRUE;
}

static gboolean
parse_opt_time (Ctx *c, const gchar *key, gboolean *has, gint64 *ts)
{
  const gchar *v = get (c->r, key);
  *has = v != NULL;
  return v == NULL || parse_int (c, v, G_MININT64, G_MAXINT64, ts);
}

static gboolean
same_state (const AbStateValue *a, const AbStateValue *b)
{
  if (a->meta.active != b->meta.active || a->meta.version != b->meta.version
      || a->props->len != b->props->len || a->meta.has_created_at != b->meta.has_created_at
      || a->meta.has_deleted_at != b->meta.has_deleted_at
      || (a->meta.has_created_at && a->meta.created_at != b->meta.created_at)
      || (a->meta.has_deleted_at && a->meta.deleted_at != b->meta.deleted_at))
    return FALSE;
  for (guint i = 0; i < a->props->len; i++)
    {
      const AbCodedProp *x = &g_array_index (a->props, AbCodedProp, i);
      const AbCodedProp *y = &g_array_index (b->props, AbCodedProp, i);
      if (x->code != y->code || x->version != y->version || !ab_value_equal (&x->value, &y->value))
        return FALSE;
    }
  return TRUE;
}

static gboolean
check_state_value (Ctx *c)
{
  static const gchar *const keys[]
      = { "active", "version", "prop", "created-at", "deleted-at", "hex", NULL };
  AbStateValue sv, back = { 0 };
  ab_codec_state_value_init (&sv);
  const gchar *active = need (c, "active");
  gboolean ok = check_keys (c, keys) && active != NULL
                && parse_int (c, need (c, "version"), G_MININT64, G_MAXINT64, &sv.meta.version)
                && parse_state_props (c, &sv)
                && parse_opt_time (c, "created-at", &sv.meta.has_created_at, &sv.meta.created_at)
                && parse_opt_time (c, "deleted-at", &sv.meta.has_deleted_at, &sv.meta.deleted_at);
  if (ok && !g_str_equal (active, "true") && !g_str_equal (active, "false"))
    ok = vec_fail (c, "active '%s' is not true or false", active);
  sv.meta.active = ok && g_str_equal (active, "true");
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  if (ok && !ab_codec_encode_state_value (out, &sv, &error))
    ok = vec_fail (c, "the codec refuses the state: %s", error->message);
  ok = ok && expect_hex (c, "hex", out->data, out->len);
  if (ok
      && (!ab_codec_decode_state_value (out->data, out->len, &back, NULL)
          || !same_state (&sv, &back)))
    ok = vec_fail (c, "the bytes do not decode back to the same state");
  ab_codec_state_value_clear (&sv);
  if (back.props != NULL)
    ab_codec_state_value_clear (&back);
  return ok;
}

static gboolean
check_index_value (Ctx *c)
{
  static const gchar *const keys[] = { "version", "prop", "hex", NULL };
  g_autoptr (GArray) props = ab_codec_coded_prop_array_new ();
  gint64 version;
  gboolean ok = check_keys (c, keys)
                && parse_int (c, need (c, "version"), G_MININT64, G_MAXINT64, &version);
  for (guint i = 0; ok && i < c->r->fields->len; i++)
    {
      const Field *f = &g_array_index (c->r->fields, Field, i);
      if (!g_str_equal (f->key, "prop"))
        continue;
      const gchar *space = strchr (f->value, ' ');
      g_autofree gchar *name = space ? g_strndup (f->value, (gsize) (space - f->value)) : NULL;
      AbCodedProp p = { .value = AB_VALUE_INIT };
      if (name == NULL)
        ok = vec_fail (c, "prop '%s' is not 'NAME TYPE TEXT'", f->value);
      else if ((ok = parse_code (c, name, &p.code) && parse_typed (c, space + 1, &p.value)))
        g_array_append_val (props, p);
      else
        ab_value_clear (&p.value);
    }
  g_autoptr (GByteArray) out = g_byte_array_new ();
  g_autoptr (GError) error = NULL;
  if (ok
      && !ab_codec_encode_index_value (out, version, (AbCodedProp *) props->data, props->len,
                                       &error))
    ok = vec_fail (c, "the codec refuses the value: %s", error->message);
  ok = ok && expect_hex (c, "hex", out->data, out->len);
  g_autoptr (GArray) back = ab_codec_coded_prop_array_new ();
  gint64 v2 = 0;
  if (ok
      && (!ab_codec_decode_index_value (out->data, out->len, &v2, back, NULL) || v2 != version
          || back->len != props->len))
    ok = vec_fail (c, "the bytes do not decode back to the same value");
  for (guint i = 0; ok && i < back->len; i++)
    if (g_array_index (back, AbCodedProp, i).code != g_array_index (props, AbCodedProp, i).code
        || !ab_value_equal (&g_array_index (back, AbCodedProp, i).value,
                            &g_array_index (props, AbCodedProp, i).value))
      ok = vec_fail (c, "property %u does not decode back", i);
  return ok;
}

static gboolean
check_lock_value (Ctx *c)
{
  static const gchar *const keys[] = { "ms", "hex", NULL };
  gint64 ms, back = 0;
  if (!check_keys (c, keys) || !parse_int (c, need (c, "ms"), G_MININT64, G_MAXINT64, &ms))
    return FALSE;
  g_autoptr (GByteArray) out = g_byte_array_new ();
  ab_codec_encode_lock_value (out, ms);
  if (!expect_hex (c, "hex", out->data, out->len))
    return FALSE;
  return (ab_codec_decode_lock_value (out->data, out->len, &back, NULL) && back == ms)
         || vec_fail (c, "the lock value does not decode back");
}

static gboolean
check_counter (Ctx *c)
{
  static const gchar *const keys[] = { "value", "hex", NULL };
  gint64 v;
  guint8 out[8];
  if (!check_keys (c, keys) || !parse_int (c, need (c, "value"), G_MININT64, G_MAXINT64, &v))
    return FALSE;
  ab_codec_put_be64 (out, v);
  return expect_hex (c, "hex", out, sizeof out)
         && (ab_codec_get_be64 (out) == v || vec_fail (c, "the counter does not read back"));
}

/* The value of a rank or score row: be64(score) || be64(ms). */
static gboolean
check_topk_value (Ctx *c)
{
  static const gchar *const keys[] = { "score", "ms", "hex", NULL };
  gint64 score, ms;
  guint8 out[16];
  if (!check_keys (c, keys) || !parse_int (c, need (c, "score"), G_MININT64, G_MAXINT64, &score)
      || !parse_int (c, need (c, "ms"), G_MININT64, G_MAXINT64, &ms))
    return FALSE;
  ab_topk_value (out, score, ms);
  return expect_hex (c, "hex", out, sizeof out);
}

static gboolean
check_topk_due (Ctx *c)
{
  static const gchar *const keys[] = { "due", "score-key", "hex", NULL };
  gint64 due;
  g_autoptr (GByteArray) sk = check_keys (c, keys) ? parse_hex (c, need (c, "score-key")) : NULL;
  if (sk == NULL || !parse_int (c, need (c, "due"), G_MININT64, G_MAXINT64, &due))
    return FALSE;
  g_autoptr (GByteArray) key = ab_topk_due_key_of (sk->data, sk->len, due);
  return expect_hex (c, "hex", key->data, key->len);
}

static gboolean
check_plus_one (Ctx *c)
{
  static const gchar *const keys[] = { "input", "wraps", "hex", NULL };
  const gchar *wraps = get (c->r, "wraps");
  g_autoptr (GByteArray) b = check_keys (c, keys) ? parse_hex (c, need (c, "input")) : NULL;
  if (b == NULL)
    return FALSE;
  gboolean want_wrap = wraps != NULL && g_str_equal (wraps, "yes");
  if (wraps != NULL && !want_wrap && !g_str_equal (wraps, "no"))
    return vec_fail (c, "wraps '%s' is not yes or no", wraps);
  if (ab_codec_plus_one (b) == want_wrap)
    return vec_fail (c, "plusOne %s, the document says it %s",
                     want_wrap ? "did not wrap" : "wrapped", want_wrap ? "wraps" : "does not");
  return expect_hex (c, "hex", b->data, b->len);
}

static gboolean
check_upper_bound (Ctx *c)
{
  static const gchar *const keys[] = { "input", "hex", NULL };
  g_autoptr (GByteArray) b = check_keys (c, keys) ? parse_hex (c, need (c, "input")) : NULL;
  if (b == NULL)
    return FALSE;
  g_autoptr (GByteArray) ub = ab_codec_prefix_upper_bound (b->data, b->len);
  if (ub == NULL)
    return g_strcmp0 (get (c->r, "hex"), "none") == 0
           || vec_fail (c, "hex: the upper bound is unbounded, the document says %s",
                        get (c->r, "hex"));
  return expect_hex (c, "hex", ub->data, ub->len);
}

static gboolean
check_token (Ctx *c)
{
  static const gchar *const keys[] = { "suffix", "token", NULL };
  const gchar *want = need (c, "token");
  g_autoptr (GByteArray) suffix = check_keys (c, keys) ? parse_hex (c, need (c, "suffix")) : NULL;
  if (suffix == NULL || want == NULL)
    return FALSE;
  g_autofree gchar *token = ab_codec_offset_encode (suffix->data, suffix->len);
  if (!g_str_equal (token, want))
    return vec_fail (c, "token: the codec gives %s, the document says %s", token, want);
  g_autoptr (GBytes) back = ab_codec_offset_decode (want, NULL);
  return (back != NULL && g_bytes_get_size (back) == suffix->len
          && memcmp (g_bytes_get_data (back, NULL), suffix->data, suffix->len) == 0)
         || vec_fail (c, "the token does not decode back to the suffix");
}

static const struct {
  const gchar *kind;
  gboolean (*check) (Ctx *c);
} kinds[] = {
  { "code", check_code },
  { "element", check_element },
  { "key", check_key },
  { "state-value", check_state_value },
  { "index-value", check_index_value },
  { "lock-value", check_lock_value },
  { "counter", check_counter },
  { "topk-value", check_topk_value },
  { "topk-due", check_topk_due },
  { "plus-one", check_plus_one },
  { "upper-bound", check_upper_bound },
  { "token", check_token },
};

/* ---- the suite ---- */

START_TEST (test_document)
{
  ck_assert_msg (load_problem == NULL, "%s", load_problem);
  ck_assert_msg (records->len >= MIN_RECORDS, "%s holds %u vector records, expected at least %d",
                 DOC_PATH, records->len, MIN_RECORDS);
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      gboolean seen = FALSE;
      for (guint i = 0; i < records->len && !seen; i++)
        seen = g_strcmp0 (get (records->pdata[i], "kind"), kinds[k].kind) == 0;
      ck_assert_msg (seen, "%s has no vector of kind '%s'", DOC_PATH, kinds[k].kind);
    }
}
END_TEST

START_TEST (test_vector)
{
  const Record *r = records->pdata[_i];
  g_autoptr (GString) why = g_string_new (NULL);
  Ctx c = { r, why };
  const gchar *kind = get (r, "kind");
  gboolean ok = FALSE, known = FALSE;
  if (r->problem != NULL)
    vec_fail (&c, "%s", r->problem);
  else if (kind == NULL)
    vec_fail (&c, "the record has no 'kind'");
  for (guint k = 0; why->len == 0 && k < G_N_ELEMENTS (kinds); k++)
    if (g_str_equal (kind, kinds[k].kind))
      {
        known = TRUE;
        ok = kinds[k].check (&c);
      }
  if (why->len == 0 && !known)
    vec_fail (&c, "unknown kind '%s'", kind);
  ck_assert_msg (ok && why->len == 0, "%s line %u (%s): %s", DOC_PATH, r->line, kind ? kind : "?",
                 why->len ? why->str : "check failed");
}
END_TEST

int
main (void)
{
  g_autofree gchar *text = NULL;
  g_autoptr (GError) error = NULL;
  if (g_file_get_contents (DOC_PATH, &text, NULL, &error))
    records = parse_document (text);
  else
    {
      records = g_ptr_array_new_with_free_func (record_free);
      load_problem = g_strdup_printf ("cannot read %s: %s", DOC_PATH, error->message);
    }
  Suite *s = suite_create ("codec_doc_vectors");
  TCase *tc = tcase_create ("storage-format");
  tcase_add_test (tc, test_document);
  tcase_add_loop_test (tc, test_vector, 0, (gint) records->len);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  g_ptr_array_unref (records);
  g_free (load_problem);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
