/* actionbase-admin import: bulk-loads edges from JSON Lines or CSV files through
 * the engine's own write path (typed items, ab_engine_mutate_items), several batches
 * in flight on threads, JSON Lines edges sorted by key a window at a time; bad lines
 * are reported as FILE:LINE and skipped; a checkpoint makes it resumable. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "admin/admin-private.h"
#include "admin/import_scan.h"
#include "admin/import_sort.h"
#include "admin/import_ties.h"
#include "catalog/catalog.h"
#include "engine/engine.h"
#include "model/schema.h"
#include "model/types.h"

/* Two batches in flight keep the store's single committer busy while the
 * next batch is parsed and planned; big batches mean few durable commits,
 * each rewriting the B-tree pages it touched. */
#define DEFAULT_THREADS 2
#define DEFAULT_BATCH 10000
#define MAX_BATCH 100000
#define MAX_THREADS 256
/* A record longer than this is reported and skipped (a runaway CSV quote,
 * or a file that is not line-oriented at all). */
#define MAX_RECORD_BYTES (16 * 1024 * 1024)
/* JSON Lines edges are applied in (source, target) order a window at a time:
 * a source's rows then land next to each other in the store's B-tree instead
 * of on a random page each (docs/data-tools.md, Bulk import). */
#define WINDOW_BATCHES 20
#define WINDOW_MAX_BYTES (32 * 1024 * 1024)
#define CHECKPOINT_EVERY_US G_USEC_PER_SEC
/* With sync=0 (lmdb:, rocksdb:) a checkpoint costs a sync of the store
 * (LMDB: all its dirty pages): much less often. */
#define CHECKPOINT_NOSYNC_EVERY_US (30 * G_USEC_PER_SEC)

typedef enum { FORMAT_AUTO, FORMAT_JSONL, FORMAT_CSV } Format;

/* Roles of CSV columns; values >= 0 are schema field positions. */
enum {
  COL_IGNORE = -1,
  COL_VERSION = -2,
  COL_SOURCE = -3,
  COL_TARGET = -4,
  COL_ID = -5,
  COL_TYPE = -6,
};

typedef struct {
  guint64 line;   /* physical lines consumed up to here */
  guint64 offset; /* bytes consumed up to here */
} Mark;

typedef struct {
  gchar *path; /* as given, for messages */
  gchar *abs;  /* canonical, the checkpoint's key */
  Format format;
  guint64 size;
  gint *columns; /* CSV: role per header column */
  guint n_columns;
  Mark resume; /* where reading starts (from the checkpoint) */
  /* The applied prefix, under Import.ck_lock. */
  Mark prefix;
  guint64 next_chunk;    /* the chunk whose completion extends the prefix */
  GHashTable *done;      /* chunk index -> Mark*, completed ahead of next_chunk */
  guint64 n_chunks;      /* set when the reader reached the end; G_MAXUINT64 before */
  gboolean blocked;      /* a chunk was not fully applied: the prefix stops there */
  gboolean complete;     /* every line applied (or reported bad) */
  gboolean was_complete; /* the checkpoint said so at start */
} ImportFile;

typedef struct {
  gsize off;         /* into Chunk.text */
  gsize len;         /* its bytes there, the NUL after them left out */
  guint64 line;      /* its first physical line, 1-based */
  gboolean too_long; /* longer than MAX_RECORD_BYTES: reported, not parsed */
  Mark after;        /* the file position after it */
} Rec;

typedef struct {
  ImportFile *file;
  guint64 seq;   /* global order, for --strict */
  guint64 index; /* order within the file */
  GString *text; /* records, each NUL-terminated */
  GArray *recs;  /* Rec */
  guint64 lines; /* physical lines in this chunk */
  Mark end;
} Chunk;

typedef struct {
  /* options */
  gchar *store_uri, *database, *table, *checkpoint;
  gboolean nosync; /* lmdb: or rocksdb:DIR?sync=0: synced by the import */
  Format format;
  gboolean strict, verbose, insert_merge, no_sort;
  gboolean sort; /* JSON Lines of an EDGE table go in key order (not --strict, --no-sort) */
  gint threads, batch;
  /* engine and table */
  AbEngine *engine;
  AbTableDesc *desc;
  const AbSchema *schema;
  gboolean multi;
  AbMutateOptions mopts;
  GPtrArray *files; /* ImportFile* */
  /* the bounded queue of chunks */
  GMutex q_lock;
  GCond q_cond;
  GQueue queue;
  guint q_cap;
  gboolean q_closed;
  /* chunks in flight: equal-version events of a key apply in file order */
  AbImportTies *ties;
  /* --strict: chunks are written only after every earlier one parsed clean */
  GMutex gate_lock;
  GCond gate_cond;
  guint64 gate_seq;
  gboolean gate_failed;
  atomic_bool stop;
  gchar *fatal; /* the first error that stopped the import (under gate_lock) */
  /* checkpoint */
  GMutex ck_lock;
  gint64 ck_last;
  gboolean ck_dirty; /* a prefix moved since the last write */
  /* figures */
  atomic_uint_fast64_t read, applied, skipped, failed;
  AbProgress *progress;
} Import;

static void
chunk_free (Chunk *c)
{
  if (c == NULL)
    return;
  g_string_free (c->text, TRUE);
  g_array_unref (c->recs);
  g_free (c);
}

static void
import_file_free (ImportFile *f)
{
  g_free (f->path);
  g_free (f->abs);
  g_free (f->columns);
  if (f->done != NULL)
    g_hash_table_unref (f->done);
  g_free (f);
}

/* ---- messages ---- */

static void report (const ImportFile *f, guint64 line, const gchar *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
report (const ImportFile *f, guint64 line, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "%s:%" G_GUINT64_FORMAT ": %s\n", f->path, line, msg);
}

/* Stops the import: no further batch is written; the first reason is kept. */
static void
stop_import (Import *imp, const gchar *why)
{
  g_mutex_lock (&imp->gate_lock);
  if (why != NULL && imp->fatal == NULL)
    imp->fatal = g_strdup (why);
  imp->gate_failed = TRUE;
  atomic_store (&imp->stop, TRUE);
  g_cond_broadcast (&imp->gate_cond);
  g_mutex_unlock (&imp->gate_lock);
  g_mutex_lock (&imp->q_lock);
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
}

static gboolean fail (GError **error, const gchar *fmt, ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (GError **error, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, msg);
  return FALSE;
}

/* ---- one edge, typed (the rules of docs/data-model.md §3.3) ----
 * Each record becomes an AbMutationItem whose values are already cast to the
 * schema's types. The engine checks all of this again; checking here too lets
 * a bad line be skipped alone instead of failing its whole batch, and lets
 * --strict stop before anything of that batch is written. */

static const gchar *const OP_NAMES[] = { "INSERT", "UPDATE", "DELETE" };

static gboolean
op_parse (const gchar *s, AbOpType *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (OP_NAMES); i++)
    if (g_str_equal (s, OP_NAMES[i]))
      {
        *out = (AbOpType) i;
        return TRUE;
      }
  return FALSE;
}

/* A member's value as read: a json-glib node, a scanned or CSV value, or
 * absent (both NULL). */
typedef struct {
  JsonNode *node;
  const AbValue *value;
} Raw;

static gboolean
raw_absent (const Raw *r)
{
  return r->node == NULL && r->value == NULL;
}

static gboolean
raw_is_null (const Raw *r)
{
  return r->node != NULL ? JSON_NODE_HOLDS_NULL (r->node)
                         : r->value == NULL || ab_value_is_null (r->value);
}

/* The value cast to type with the REST rules (the same for a node and for
 * the value json-glib would have made of it). */
static gboolean
raw_cast (const Raw *r, AbType type, const gchar *name, AbValue *out, GError **error)
{
  if (r->node != NULL)
    return ab_model_cast_json (r->node, type, name, out, error);
  if (r->value != NULL)
    return ab_model_cast_value (r->value, type, name, out, error);
  ab_value_clear (out);
  return TRUE;
}

static gboolean
raw_required (const Raw *r, AbType type, const gchar *name, AbValue *out, GError **error)
{
  if (raw_is_null (r))
    return fail (error, "\"%s\" is required", name);
  return raw_cast (r, type, name, out, error);
}

/* One record before casting. */
typedef struct {
  AbOpType op;
  Raw version, source, target, id;
  gboolean props_bad; /* "properties" is there and neither an object nor null */
  Raw *props;         /* per schema field */
} RawEdge;

/* The typed items of one chunk, in the engine's form. */
typedef struct {
  GArray *items;    /* AbMutationItem; its id, source and target are owned */
  GArray *values;   /* AbValue: the items' property values, owned */
  GPtrArray *names; /* const gchar * (the schema's), parallel to values */
  GArray *first;    /* guint per item: its first property in values */
  GArray *lines;    /* guint64 per item: the line it came from */
} Batch;

static void
batch_init (Batch *b, guint n)
{
  b->items = g_array_sized_new (FALSE, TRUE, sizeof (AbMutationItem), n);
  b->values = g_array_sized_new (FALSE, TRUE, sizeof (AbValue), n);
  g_array_set_clear_func (b->values, (GDestroyNotify) ab_value_clear);
  b->names = g_ptr_array_sized_new (n);
  b->first = g_array_sized_new (FALSE, FALSE, sizeof (guint), n);
  b->lines = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
}

static void
item_clear (AbMutationItem *it)
{
  ab_value_clear (&it->id);
  ab_value_clear (&it->source);
  ab_value_clear (&it->target);
}

static void
batch_clear (Batch *b)
{
  for (guint i = 0; i < b->items->len; i++)
    item_clear (&g_array_index (b->items, AbMutationItem, i));
  g_array_unref (b->items);
  g_array_unref (b->values);
  g_ptr_array_unref (b->names);
  g_array_unref (b->first);
  g_array_unref (b->lines);
}

/* Points each item at its properties (the arrays no longer move). */
static void
batch_link (Batch *b)
{
  for (guint i = 0; i < b->items->len; i++)
    {
      AbMutationItem *it = &g_array_index (b->items, AbMutationItem, i);
      guint first = g_array_index (b->first, guint, i);
      it->names = it->n_props > 0 ? (const gchar *const *) b->names->pdata + first : NULL;
      it->values = it->n_props > 0 ? &g_array_index (b->values, AbValue, first) : NULL;
    }
}

/* Drops item i (its properties stay in values, unreferenced). */
static void
batch_remove (Batch *b, guint i)
{
  item_clear (&g_array_index (b->items, AbMutationItem, i));
  g_array_remove_index (b->items, i);
  g_array_remove_index (b->first, i);
  g_array_remove_index (b->lines, i);
}

/* Casts and checks one record and appends it to b; nothing is appended on a
 * failure. */
static gboolean
edge_add (Import *imp, const RawEdge *e, guint64 line, Batch *b, GError **error)
{
  const AbSchema *s = imp->schema;
  gboolean del = e->op == AB_OP_DELETE, ins = e->op == AB_OP_INSERT;
  if (s->kind == AB_TABLE_IMMUTABLE_EDGE && !ins)
    return fail (error, "%s is not allowed on an immutable table (INSERT only)", OP_NAMES[e->op]);
  AbMutationItem it = { .type = e->op };
  AbValue version = AB_VALUE_INIT;
  guint mark = b->values->len;
  gboolean ok = raw_required (&e->version, AB_TYPE_LONG, "version", &version, error);
  it.version = version.u.i;
  if (ok && imp->multi)
    {
      static const gchar *const members[] = { "source", "target" };
      static const gchar *const slots[] = { "_source", "_target" };
      const Raw *ends[] = { &e->source, &e->target };
      AbValue *outs[] = { &it.source, &it.target };
      ok = raw_required (&e->id, s->id_type, "id", &it.id, error);
      for (guint i = 0; i < 2 && ok && !del; i++)
        {
          const AbField *f = ab_schema_field (s, slots[i]);
          if (f != NULL)
            ok = ins ? raw_required (ends[i], f->type, members[i], outs[i], error)
                     : raw_cast (ends[i], f->type, members[i], outs[i], error);
        }
    }
  else if (ok)
    ok = raw_required (&e->source, s->source_type, "source", &it.source, error)
         && (s->kind == AB_TABLE_VERTEX
             || raw_required (&e->target, s->target_type, "target", &it.target, error));
  if (ok && e->props_bad)
    ok = fail (error, "\"properties\" must be an object");
  gboolean need = ins && !imp->insert_merge; /* every non-nullable property */
  for (guint i = 0; ok && !del && i < s->fields->len; i++)
    {
      const AbField *f = s->fields->pdata[i];
      const Raw *r = &e->props[i];
      if (f->name[0] == '_')
        continue;
      if (raw_absent (r) || (imp->multi && raw_is_null (r)))
        {
          if (!f->nullable && need)
            ok = fail (error, "Property '%s' is required and cannot be null", f->name);
          continue;
        }
      AbValue v = AB_VALUE_INIT;
      if (!raw_cast (r, f->type, f->name, &v, error))
        ok = FALSE;
      else if (!f->nullable && ab_value_is_null (&v))
        ok = fail (error,
                   need ? "Property '%s' is required and cannot be null"
                        : "Property '%s' cannot be null",
                   f->name);
      else
        {
          g_array_append_val (b->values, v);
          g_ptr_array_add (b->names, (gpointer) f->name);
          continue;
        }
      ab_value_clear (&v);
    }
  if (!ok)
    {
      item_clear (&it);
      g_array_set_size (b->values, mark);
      g_ptr_array_set_size (b->names, (gint) mark);
      return FALSE;
    }
  it.n_props = b->values->len - mark;
  g_array_append_val (b->items, it);
  g_array_append_val (b->first, mark);
  g_array_append_val (b->lines, line);
  return TRUE;
}

/* A worker's reusable buffers. */
typedef struct {
  GArray *members; /* AbImportMember */
  Raw *props;      /* per schema field */
  GArray *cells;   /* AbValue: one CSV record's cast cells */
} Scratch;

static gint
field_by_name (const AbSchema *s, const gchar *name, gsize len)
{
  for (guint i = 0; i < s->fields->len; i++)
    {
      const AbField *f = s->fields->pdata[i];
      if (strncmp (f->name, name, len) == 0 && f->name[len] == '\0')
        return f->name[0] == '_' ? -1 : (gint) i;
    }
  return -1;
}

static gboolean
member_is (const AbImportMember *m, const gchar *name)
{
  return m->name_len == strlen (name) && memcmp (m->name, name, m->name_len) == 0;
}

/* A scanned line (import_scan.c) as a RawEdge; FALSE + error: a bad "type". */
static gboolean
scanned_edge (Import *imp, GArray *members, RawEdge *e, GError **error)
{
  for (guint i = 0; i < members->len; i++)
    {
      const AbImportMember *m = &g_array_index (members, AbImportMember, i);
      const AbValue *v = &m->value;
      if (m->in_props)
        {
          gint f = field_by_name (imp->schema, m->name, m->name_len);
          if (f >= 0)
            e->props[f].value = v;
        }
      else if (m->is_object)
        continue;
      else if (member_is (m, "version"))
        e->version.value = v;
      else if (member_is (m, "source"))
        e->source.value = v;
      else if (member_is (m, "target"))
        e->target.value = v;
      else if (member_is (m, "id"))
        e->id.value = v;
      else if (member_is (m, "properties"))
        e->props_bad = !ab_value_is_null (v);
      else if (member_is (m, "type") && !ab_value_is_null (v)
               && (v->kind != AB_VALUE_STRING || !op_parse (v->u.s.data, &e->op)))
        return fail (error, "\"type\" must be INSERT, UPDATE or DELETE");
    }
  return TRUE;
}

/* One JSON Lines record into b: the scanner for the usual flat edge,
 * json-glib for anything else. */
static gboolean
parse_jsonl (Import *imp, gchar *text, guint64 line, Batch *b, Scratch *sc, GError **error)
{
  guint nf = imp->schema->fields->len;
  RawEdge e = { .op = AB_OP_INSERT, .props = sc->props };
  memset (sc->props, 0, nf * sizeof (Raw));
  if (ab_import_scan_edge (text, sc->members, TRUE))
    return scanned_edge (imp, sc->members, &e, error) && edge_add (imp, &e, line, b, error);
  g_autoptr (GError) local = NULL;
  g_autoptr (JsonNode) node = ab_model_json_parse (text, -1, &local);
  if (node == NULL)
    return fail (error, "%s", local->message);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return fail (error, "a line must be a JSON object (an edge)");
  JsonObject *edge = json_node_get_object (node);
  JsonNode *tn = json_object_get_member (edge, "type");
  if (tn != NULL && !JSON_NODE_HOLDS_NULL (tn))
    {
      const gchar *t = JSON_NODE_HOLDS_VALUE (tn) && json_node_get_value_type (tn) == G_TYPE_STRING
                           ? json_node_get_string (tn)
                           : NULL;
      if (t == NULL || !op_parse (t, &e.op))
        return fail (error, "\"type\" must be INSERT, UPDATE or DELETE");
    }
  e.version.node = json_object_get_member (edge, "version");
  e.source.node = json_object_get_member (edge, "source");
  e.target.node = json_object_get_member (edge, "target");
  e.id.node = json_object_get_member (edge, "id");
  JsonNode *pn = json_object_get_member (edge, "properties");
  e.props_bad = pn != NULL && !JSON_NODE_HOLDS_NULL (pn) && !JSON_NODE_HOLDS_OBJECT (pn);
  JsonObject *props = pn != NULL && JSON_NODE_HOLDS_OBJECT (pn) ? json_node_get_object (pn) : NULL;
  for (guint i = 0; props != NULL && i < nf; i++)
    {
      const AbField *f = imp->schema->fields->pdata[i];
      if (f->name[0] != '_')
        e.props[i].node = json_object_get_member (props, f->name);
    }
  return edge_add (imp, &e, line, b, error);
}

/* ---- CSV (RFC 4180: quoted cells, "" inside quotes, records spanning lines) ---- */

typedef struct {
  gchar *text;
  gboolean quoted;
} Cell;

static void
cell_clear (gpointer p)
{
  g_free (((Cell *) p)->text);
}

static GArray *
csv_split (const gchar *s, GError **error)
{
  g_autoptr (GArray) cells = g_array_new (FALSE, TRUE, sizeof (Cell));
  g_array_set_clear_func (cells, cell_clear);
  const gchar *p = s;
  for (;;)
    {
      GString *cell = g_string_new (NULL);
      gboolean quoted = *p == '"';
      if (quoted)
        {
          for (p++;; p++)
            {
              if (*p == '\0')
                {
                  g_string_free (cell, TRUE);
                  return fail (error, "unterminated quoted cell"), NULL;
                }
              if (*p == '"' && p[1] == '"')
                g_string_append_c (cell, '"'), p++;
              else if (*p == '"')
                break;
              else
                g_string_append_c (cell, *p);
            }
          p++;
          if (*p != ',' && *p != '\0')
            {
              g_string_free (cell, TRUE);
              return fail (error, "a closing quote must end its cell (cell %u)", cells->len + 1),
                     NULL;
            }
        }
      else
        for (; *p != ',' && *p != '\0'; p++)
          {
            if (*p == '"')
              {
                g_string_free (cell, TRUE);
                return fail (error, "a quote inside an unquoted cell (cell %u)", cells->len + 1),
                       NULL;
              }
            g_string_append_c (cell, *p);
          }
      Cell c = { g_string_free (cell, FALSE), quoted };
      g_array_append_val (cells, c);
      if (*p == '\0')
        break;
      p++; /* the comma */
    }
  return g_steal_pointer (&cells);
}

static AbType
endpoint_type (Import *imp, gint role)
{
  const AbSchema *s = imp->schema;
  if (role == COL_ID)
    return s->id_type;
  if (imp->multi)
    {
      const AbField *f = ab_schema_field (s, role == COL_SOURCE ? "_source" : "_target");
      return f != NULL ? f->type : AB_TYPE_STRING;
    }
  return role == COL_SOURCE ? s->source_type : s->target_type;
}

/* One CSV record into b: each cell cast from text to its column's type (the
 * query-string rules), then the record checked as a JSON line would be. */
static gboolean
parse_csv (Import *imp, const ImportFile *f, const gchar *text, guint64 line, Batch *b, Scratch *sc,
           GError **error)
{
  g_autoptr (GArray) cells = csv_split (text, error);
  if (cells == NULL)
    return FALSE;
  if (cells->len != f->n_columns)
    return fail (error, "%u cells, the header has %u", cells->len, f->n_columns);
  guint nf = imp->schema->fields->len;
  RawEdge e = { .op = AB_OP_INSERT, .props = sc->props };
  memset (sc->props, 0, nf * sizeof (Raw));
  g_array_set_size (sc->cells, 0);
  g_array_set_size (sc->cells, cells->len); /* cleared: every cell null */
  for (guint c = 0; c < cells->len; c++)
    {
      const Cell *cell = &g_array_index (cells, Cell, c);
      gint role = f->columns[c];
      if (role == COL_IGNORE || (cell->text[0] == '\0' && !cell->quoted))
        continue; /* an empty cell: the property is absent */
      if (role == COL_TYPE)
        {
          if (!op_parse (cell->text, &e.op))
            return fail (error, "\"type\" must be INSERT, UPDATE or DELETE");
          continue;
        }
      const AbField *field = role >= 0 ? imp->schema->fields->pdata[role] : NULL;
      static const gchar *const names[] = { "", "", "version", "source", "target", "id" };
      const gchar *name = field != NULL ? field->name : names[-role];
      AbType type = field != NULL         ? field->type
                    : role == COL_VERSION ? AB_TYPE_LONG
                                          : endpoint_type (imp, role);
      AbValue *v = &g_array_index (sc->cells, AbValue, c);
      if (!ab_model_cast_text (cell->text, type, name, v, error))
        return FALSE;
      Raw *slot = field != NULL         ? &e.props[role]
                  : role == COL_VERSION ? &e.version
                  : role == COL_SOURCE  ? &e.source
                  : role == COL_TARGET  ? &e.target
                                        : &e.id;
      slot->value = v;
    }
  return edge_add (imp, &e, line, b, error);
}

/* ---- reading records ---- */

typedef struct {
  FILE *fp;
  gchar *buf; /* getline's buffer */
  size_t cap;
  guint64 line;   /* physical lines consumed */
  guint64 offset; /* bytes consumed */
} Reader;

/* The next record into rec (without its line end); its first line in
 * *first, its physical lines in *n_lines. FALSE at the end or on a read
 * error (error set). *too_long: the record was longer than the limit and is
 * skipped. */
static gboolean
read_record (Reader *r, gboolean csv, GString *rec, guint64 *first, guint64 *n_lines,
             gboolean *too_long, GError **error)
{
  g_string_truncate (rec, 0);
  *too_long = FALSE;
  *n_lines = 0;
  *first = r->line + 1;
  gboolean open_quote = FALSE;
  for (;;)
    {
      errno = 0;
      ssize_t n = getline (&r->buf, &r->cap, r->fp);
      if (n < 0)
        {
          if (ferror (r->fp))
            return g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno), "read: %s",
                                g_strerror (errno)),
                   FALSE;
          if (*n_lines == 0)
            return FALSE;
          break; /* an unterminated quote runs to the end: the parser says so */
        }
      gboolean at_start = r->offset == 0;
      r->line++;
      r->offset += (guint64) n;
      (*n_lines)++;
      const gchar *s = r->buf;
      gsize len = (gsize) n;
      if (at_start && len >= 3 && memcmp (s, "\xEF\xBB\xBF", 3) == 0)
        s += 3, len -= 3; /* a UTF-8 byte order mark */
      if (csv)
        for (gsize i = 0; i < len; i++)
          if (s[i] == '"')
            open_quote = !open_quote;
      if (!csv || !open_quote)
        {
          if (len > 0 && s[len - 1] == '\n')
            len--;
          if (len > 0 && s[len - 1] == '\r')
            len--;
        }
      if (!*too_long && rec->len + len <= MAX_RECORD_BYTES)
        g_string_append_len (rec, s, (gssize) len);
      else
        *too_long = TRUE, g_string_truncate (rec, 0);
      if (!open_quote)
        break;
    }
  return TRUE;
}

static gboolean
blank (const gchar *s)
{
  for (; *s != '\0'; s++)
    if (!g_ascii_isspace (*s))
      return FALSE;
  return TRUE;
}

/* ---- the queue ---- */

static void
queue_push (Import *imp, Chunk *c)
{
  ab_import_ties_add (imp->ties, c->seq); /* before a worker can take it */
  g_mutex_lock (&imp->q_lock);
  while (imp->queue.length >= imp->q_cap && !atomic_load (&imp->stop))
    g_cond_wait (&imp->q_cond, &imp->q_lock);
  g_queue_push_tail (&imp->queue, c);
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
}

static Chunk *
queue_pop (Import *imp)
{
  g_mutex_lock (&imp->q_lock);
  while (imp->queue.length == 0 && !imp->q_closed)
    g_cond_wait (&imp->q_cond, &imp->q_lock);
  Chunk *c = g_queue_pop_head (&imp->queue);
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
  return c;
}

static void
queue_close (Import *imp)
{
  g_mutex_lock (&imp->q_lock);
  imp->q_closed = TRUE;
  g_cond_broadcast (&imp->q_cond);
  g_mutex_unlock (&imp->q_lock);
}

/* ---- the checkpoint ----
 * {"database","table","files":[{"path","size","lines","offset","complete"}]}:
 * per file the prefix of physical lines (and bytes) every record of which
 * was applied or reported bad. Written to FILE.tmp, fsynced, renamed over
 * FILE, and the directory fsynced: a crash leaves the old or the new one. */

static gboolean
write_all (int fd, const gchar *data, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

static gboolean
checkpoint_write (Import *imp, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "database");
  json_builder_add_string_value (b, imp->database);
  json_builder_set_member_name (b, "table");
  json_builder_add_string_value (b, imp->table);
  json_builder_set_member_name (b, "files");
  json_builder_begin_array (b);
  for (guint i = 0; i < imp->files->len; i++)
    {
      const ImportFile *f = imp->files->pdata[i];
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "path");
      json_builder_add_string_value (b, f->abs);
      json_builder_set_member_name (b, "size");
      json_builder_add_int_value (b, (gint64) f->size);
      json_builder_set_member_name (b, "lines");
      json_builder_add_int_value (b, (gint64) f->prefix.line);
      json_builder_set_member_name (b, "offset");
      json_builder_add_int_value (b, (gint64) f->prefix.offset);
      json_builder_set_member_name (b, "complete");
      json_builder_add_boolean_value (b, f->complete || f->was_complete);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  g_autofree gchar *text = json_to_string (root, TRUE);
  g_autofree gchar *tmp = g_strconcat (imp->checkpoint, ".tmp", NULL);
  int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return fail (error, "checkpoint %s: %s", tmp, g_strerror (errno));
  gboolean ok = write_all (fd, text, strlen (text)) && write_all (fd, "\n", 1) && fsync (fd) == 0;
  int saved = errno;
  close (fd);
  if (!ok || rename (tmp, imp->checkpoint) != 0)
    {
      if (ok)
        saved = errno;
      g_unlink (tmp);
      return fail (error, "checkpoint %s: %s", imp->checkpoint, g_strerror (saved));
    }
  g_autofree gchar *dir = g_path_get_dirname (imp->checkpoint);
  int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0)
    {
      fsync (dfd);
      close (dfd);
    }
  return TRUE;
}

static gboolean
checkpoint_load (Import *imp, GError **error)
{
  g_autofree gchar *text = NULL;
  gsize len = 0;
  g_autoptr (GError) local = NULL;
  if (!g_file_get_contents (imp->checkpoint, &text, &len, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return TRUE; /* the first run */
      return fail (error, "checkpoint %s: %s", imp->checkpoint, local->message);
    }
  g_autoptr (JsonNode) root = ab_model_json_parse (text, (gssize) len, &local);
  JsonObject *o
      = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonArray *files = o != NULL ? json_object_get_array_member (o, "files") : NULL;
  if (files == NULL)
    return fail (error, "checkpoint %s is not an import checkpoint", imp->checkpoint);
  const gchar *db = json_object_get_string_member_with_default (o, "database", "");
  const gchar *t = json_object_get_string_member_with_default (o, "table", "");
  if (!g_str_equal (db, imp->database) || !g_str_equal (t, imp->table))
    return fail (error, "checkpoint %s belongs to an import into %s.%s, not %s.%s", imp->checkpoint,
                 db, t, imp->database, imp->table);
  for (guint i = 0; i < json_array_get_length (files); i++)
    {
      JsonNode *en = json_array_get_element (files, i);
      if (!JSON_NODE_HOLDS_OBJECT (en))
        continue;
      JsonObject *e = json_node_get_object (en);
      const gchar *path = json_object_get_string_member_with_default (e, "path", "");
      for (guint k = 0; k < imp->files->len; k++)
        {
          ImportFile *f = imp->files->pdata[k];
          if (!g_str_equal (f->abs, path))
            continue;
          gint64 lines = json_object_get_int_member_with_default (e, "lines", 0);
          gint64 offset = json_object_get_int_member_with_default (e, "offset", 0);
          gint64 size = json_object_get_int_member_with_default (e, "size", 0);
          if (lines < 0 || offset < 0 || (guint64) offset > f->size || (guint64) size > f->size)
            return fail (error,
                         "%s is shorter than when checkpoint %s was written: remove the "
                         "checkpoint to import it from the start",
                         f->path, imp->checkpoint);
          f->resume = f->prefix = (Mark){ (guint64) lines, (guint64) offset };
          f->was_complete = json_object_get_boolean_member_with_default (e, "complete", FALSE)
                            && (guint64) size == f->size;
        }
    }
  return TRUE;
}

/* ---- lmdb:DIR?sync=0 or rocksdb:DIR?sync=0: durable by a sync now and then ----
 * With sync off, a commit only reaches the page cache (LMDB: no fsync per
 * commit, so the pages a commit rewrote are written to disk once, not once
 * per commit; RocksDB: no fsync of its write-ahead log). The import makes
 * them durable itself: the store is synced (ab_engine_sync: LMDB's data
 * file, RocksDB's log) before each checkpoint is written (a checkpoint never
 * counts lines that are not on disk) and once more at the end. A crash of
 * the machine (not of the process) in between can lose what was written
 * since the last sync, as both stores say of that mode. */

/* Makes every commit so far durable (sync=0 stores only). */
static gboolean
flush_store (Import *imp, GError **error)
{
  return !imp->nosync || ab_engine_sync (imp->engine, error);
}

/* Called with ck_lock held. Writes at most once a second unless forced. */
static void
checkpoint_maybe (Import *imp, gboolean force)
{
  if (imp->checkpoint == NULL)
    return;
  gint64 now = g_get_monotonic_time ();
  gint64 every = imp->nosync ? CHECKPOINT_NOSYNC_EVERY_US : CHECKPOINT_EVERY_US;
  if (!force && (!imp->ck_dirty || now - imp->ck_last < every))
    return;
  imp->ck_last = now;
  imp->ck_dirty = FALSE;
  g_autoptr (GError) error = NULL;
  if (!flush_store (imp, &error) || !checkpoint_write (imp, &error))
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      return;
    }
  if (imp->verbose)
    for (guint i = 0; i < imp->files->len; i++)
      {
        const ImportFile *f = imp->files->pdata[i];
        fprintf (stderr, "checkpoint: %s: %" G_GUINT64_FORMAT " lines applied%s\n", f->path,
                 f->prefix.line, f->complete ? " (complete)" : "");
      }
}

/* A chunk is finished: fully applied (ok) or not. The file's prefix grows
 * over the chunks finished in order. */
static void
chunk_finished (Import *imp, Chunk *c, gboolean ok)
{
  ImportFile *f = c->file;
  g_mutex_lock (&imp->ck_lock);
  if (!ok)
    f->blocked = TRUE;
  else if (!f->blocked)
    {
      Mark *m = g_new (Mark, 1);
      *m = c->end;
      g_hash_table_insert (f->done, GSIZE_TO_POINTER (c->index), m);
      Mark *next;
      while ((next = g_hash_table_lookup (f->done, GSIZE_TO_POINTER (f->next_chunk))) != NULL)
        {
          f->prefix = *next;
          imp->ck_dirty = TRUE;
          g_hash_table_remove (f->done, GSIZE_TO_POINTER (f->next_chunk));
          f->next_chunk++;
        }
      if (f->next_chunk == f->n_chunks)
        f->complete = TRUE;
    }
  checkpoint_maybe (imp, FALSE);
  g_mutex_unlock (&imp->ck_lock);
}

static void
file_read_to_end (Import *imp, ImportFile *f, guint64 n_chunks)
{
  g_mutex_lock (&imp->ck_lock);
  f->n_chunks = n_chunks;
  if (!f->blocked && f->next_chunk == n_chunks)
    f->complete = TRUE;
  g_mutex_unlock (&imp->ck_lock);
}

/* ---- applying a chunk ---- */

/* The engine's key text of an item ("<source>:<target>" or the id), as in
 * its results. */
static gchar *
item_key (Import *imp, const AbMutationItem *it)
{
  if (imp->multi)
    return ab_value_to_string (&it->id);
  g_autofree gchar *st = ab_value_to_string (&it->source);
  g_autofree gchar *tt
      = imp->schema->kind == AB_TABLE_VERTEX ? g_strdup ("-") : ab_value_to_string (&it->target);
  return g_strconcat (st, ":", tt, NULL);
}

/* ERROR / INVALID results name keys; every line of such a key failed. */
static guint
report_failed_keys (Import *imp, Chunk *c, const Batch *b, GArray *results)
{
  g_autoptr (GHashTable) bad = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint k = 0; k < results->len; k++)
    {
      const AbKeyResult *r = &g_array_index (results, AbKeyResult, k);
      if (r->status != AB_STATUS_ERROR && r->status != AB_STATUS_INVALID)
        continue;
      gchar *key = imp->multi ? ab_value_to_string (&r->source) : NULL;
      if (key == NULL)
        {
          g_autofree gchar *st = ab_value_to_string (&r->source);
          g_autofree gchar *tt = ab_value_to_string (&r->target);
          key = g_strconcat (st, ":", tt, NULL);
        }
      g_hash_table_insert (bad, key, (gpointer) r);
    }
  if (g_hash_table_size (bad) == 0)
    return 0;
  guint failed = 0;
  for (guint i = 0; i < b->items->len; i++)
    {
      g_autofree gchar *key = item_key (imp, &g_array_index (b->items, AbMutationItem, i));
      const AbKeyResult *r = g_hash_table_lookup (bad, key);
      if (r == NULL)
        continue;
      report (c->file, g_array_index (b->lines, guint64, i), "%s: %s",
              ab_key_status_name (r->status), r->message ? r->message : "(no message)");
      failed++;
    }
  return failed;
}

/* --strict: waits until every earlier chunk parsed clean; FALSE when one did
 * not (or this one did not), and then nothing more is written. */
static gboolean
strict_gate (Import *imp, Chunk *c, gboolean clean)
{
  g_mutex_lock (&imp->gate_lock);
  while (imp->gate_seq != c->seq && !imp->gate_failed)
    g_cond_wait (&imp->gate_cond, &imp->gate_lock);
  gboolean go = clean && !imp->gate_failed;
  if (go)
    imp->gate_seq++;
  else
    imp->gate_failed = TRUE;
  g_cond_broadcast (&imp->gate_cond);
  g_mutex_unlock (&imp->gate_lock);
  return go;
}

static void
scratch_init (Import *imp, Scratch *sc)
{
  sc->members = g_array_new (FALSE, FALSE, sizeof (AbImportMember));
  sc->props = g_new0 (Raw, imp->schema->fields->len);
  sc->cells = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (sc->cells, (GDestroyNotify) ab_value_clear);
}

static void
scratch_clear (Scratch *sc)
{
  g_array_unref (sc->members);
  g_free (sc->props);
  g_array_unref (sc->cells);
}

/* Parses the chunk's records into b; FALSE when any was bad (reported). */
static gboolean
parse_chunk (Import *imp, Chunk *c, Batch *b)
{
  ImportFile *f = c->file;
  Scratch sc;
  scratch_init (imp, &sc);
  guint read = 0, skipped = 0;
  gboolean clean = TRUE;
  for (guint i = 0; i < c->recs->len; i++)
    {
      const Rec *r = &g_array_index (c->recs, Rec, i);
      gchar *text = c->text->str + r->off;
      read++;
      if (r->too_long)
        {
          report (f, r->line, "record longer than %d bytes", MAX_RECORD_BYTES);
          skipped++, clean = FALSE;
          continue;
        }
      g_autoptr (GError) error = NULL;
      gboolean ok = f->format == FORMAT_CSV ? parse_csv (imp, f, text, r->line, b, &sc, &error)
                                            : parse_jsonl (imp, text, r->line, b, &sc, &error);
      if (!ok)
        {
          report (f, r->line, "%s", error->message);
          skipped++, clean = FALSE;
          if (imp->strict)
            break;
        }
    }
  scratch_clear (&sc);
  atomic_fetch_add (&imp->read, read);
  atomic_fetch_add (&imp->skipped, skipped);
  return clean;
}

static void
apply_chunk (Import *imp, Chunk *c)
{
  ImportFile *f = c->file;
  Batch b;
  batch_init (&b, c->recs->len);
  gboolean clean = parse_chunk (imp, c, &b);
  ab_import_ties_ready (
      imp->ties, c->seq,
      ab_import_ties_marks ((const AbMutationItem *) b.items->data, b.items->len));
  if (imp->strict && !strict_gate (imp, c, clean))
    {
      if (!clean)
        stop_import (imp, "--strict: stopped at a bad line; nothing of its batch was written");
      chunk_finished (imp, c, FALSE);
      batch_clear (&b);
      return;
    }
  g_autoptr (GArray) results = NULL;
  gboolean ok = TRUE;
  while (b.items->len > 0)
    {
      g_autoptr (GError) error = NULL;
      batch_link (&b);
      results = ab_engine_mutate_items (
          imp->engine, &imp->mopts, (const AbMutationItem *) b.items->data, b.items->len, &error);
      if (results != NULL)
        break;
      guint idx = 0;
      gint used = 0;
      if (g_error_matches (error, AB_ENGINE_ERROR, AB_ENGINE_ERROR_BAD_REQUEST)
          && sscanf (error->message, "mutations[%u]: %n", &idx, &used) == 1 && used > 0
          && idx < b.items->len)
        {
          /* a rule this tool does not check itself: that item alone is bad */
          report (f, g_array_index (b.lines, guint64, idx), "%s", error->message + used);
          atomic_fetch_add (&imp->skipped, 1);
          batch_remove (&b, idx);
          if (imp->strict)
            {
              stop_import (imp,
                           "--strict: stopped at a bad line; nothing of its batch was written");
              ok = FALSE;
              break;
            }
          continue;
        }
      guint n = b.items->len;
      report (f, g_array_index (b.lines, guint64, 0),
              "the batch of %u lines up to line %" G_GUINT64_FORMAT " failed: %s", n,
              g_array_index (b.lines, guint64, n - 1), error->message);
      atomic_fetch_add (&imp->failed, n);
      stop_import (imp, error->message);
      ok = FALSE;
      break;
    }
  if (!ok)
    {
      chunk_finished (imp, c, FALSE);
      batch_clear (&b);
      return;
    }
  guint n = b.items->len;
  guint failed = results != NULL ? report_failed_keys (imp, c, &b, results) : 0;
  atomic_fetch_add (&imp->failed, failed);
  atomic_fetch_add (&imp->applied, n - failed);
  if (failed > 0 && imp->strict)
    stop_import (imp, "--strict: stopped at a line the engine did not apply");
  chunk_finished (imp, c, failed == 0);
  batch_clear (&b);
}

static gpointer
worker (gpointer data)
{
  Import *imp = data;
  Chunk *c;
  while ((c = queue_pop (imp)) != NULL)
    {
      if (!atomic_load (&imp->stop))
        apply_chunk (imp, c);
      ab_import_ties_done (imp->ties, c->seq);
      ab_progress_add (imp->progress, c->lines);
      chunk_free (c);
    }
  return NULL;
}

/* ---- reading files into chunks (the main thread) ---- */

static Chunk *
chunk_new (ImportFile *f, guint64 seq, guint64 index)
{
  Chunk *c = g_new0 (Chunk, 1);
  c->file = f;
  c->seq = seq;
  c->index = index;
  c->text = g_string_new (NULL);
  c->recs = g_array_new (FALSE, FALSE, sizeof (Rec));
  return c;
}

static FILE *
open_at (ImportFile *f, const Mark *at, Reader *r, GError **error)
{
  FILE *fp = fopen (f->path, "rb");
  if (fp == NULL)
    return fail (error, "%s: %s", f->path, g_strerror (errno)), NULL;
  if (at->offset > 0 && fseeko (fp, (off_t) at->offset, SEEK_SET) != 0)
    {
      fclose (fp);
      return fail (error, "%s: seek: %s", f->path, g_strerror (errno)), NULL;
    }
  *r = (Reader){ fp, NULL, 0, at->line, at->offset };
  return fp;
}

/* Queues the records of window w (read from mark start to w->end) as chunks
 * of the batch size: in (source, target) order when the import sorts and
 * every key is known exactly (ab_import_sort_window), else in file order. A
 * key's records stay in one chunk (one request folds them in file order)
 * unless they outgrow a second batch. Sorted chunks but the last end at the
 * window's start: the checkpoint passes a window only once all of it is
 * applied. */
static void
push_window (Import *imp, ImportFile *f, Chunk *w, Mark start, guint64 *seq, guint64 *index)
{
  guint n = w->recs->len;
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  g_autofree gboolean *same = g_new0 (gboolean, MAX (n, 1));
  gboolean sorted = FALSE;
  if (imp->sort && f->format == FORMAT_JSONL && n > 1)
    {
      g_autofree const gchar **texts = g_new (const gchar *, n);
      for (guint i = 0; i < n; i++)
        {
          const Rec *r = &g_array_index (w->recs, Rec, i);
          texts[i] = r->too_long ? "" : w->text->str + r->off;
        }
      sorted = ab_import_sort_window (texts, n, imp->schema->source_type, imp->schema->target_type,
                                      order, same);
    }
  for (guint i = 0; !sorted && i < n; i++)
    order[i] = i, same[i] = FALSE;
  /* a chunk's text sized once: a batch of the window's average record */
  gsize chunk_bytes = n > 0 ? w->text->len / n * MIN ((gsize) imp->batch, n) * 9 / 8 + 64 : 0;
  Mark prev = start;
  Chunk *c = NULL;
  for (guint i = 0; i < n; i++)
    {
      if (c == NULL)
        {
          c = chunk_new (f, (*seq)++, (*index)++);
          g_string_set_size (c->text, chunk_bytes);
          g_string_truncate (c->text, 0);
        }
      const Rec *r = &g_array_index (w->recs, Rec, order[i]);
      Rec e = { c->text->len, r->len, r->line, r->too_long, r->after };
      g_array_append_val (c->recs, e);
      g_string_append_len (c->text, w->text->str + r->off, (gssize) r->len);
      g_string_append_c (c->text, '\0');
      guint len = c->recs->len, batch = (guint) imp->batch;
      gboolean key_goes_on = i + 1 < n && same[i + 1] && len < 2 * batch;
      if (i + 1 < n && (len < batch || key_goes_on))
        continue;
      if (i + 1 == n)
        c->end = w->end, c->lines = w->end.line - prev.line;
      else if (sorted)
        c->end = start, c->lines = 0;
      else
        c->end = r->after, c->lines = r->after.line - prev.line, prev = r->after;
      queue_push (imp, c);
      c = NULL;
    }
  if (n == 0 && w->lines > 0)
    {
      /* blank lines only: a chunk of none, so the checkpoint passes them */
      c = chunk_new (f, (*seq)++, (*index)++);
      c->end = w->end, c->lines = w->lines;
      queue_push (imp, c);
    }
}

static gboolean
read_file (Import *imp, ImportFile *f, guint64 *seq, GError **error)
{
  Reader r;
  if (open_at (f, &f->resume, &r, error) == NULL)
    return FALSE;
  gboolean csv = f->format == FORMAT_CSV;
  g_autoptr (GString) rec = g_string_new (NULL);
  guint64 index = 0, first, n_lines;
  gboolean too_long, ok = TRUE;
  /* the window being gathered: a chunk of up to WINDOW_BATCHES batches */
  guint window = (guint) imp->batch * (imp->sort ? WINDOW_BATCHES : 1);
  Mark start = f->resume;
  Chunk *w = chunk_new (f, 0, 0);
  w->end = start;
  g_autoptr (GError) local = NULL;
  while (!atomic_load (&imp->stop))
    {
      if (!read_record (&r, csv, rec, &first, &n_lines, &too_long, &local))
        {
          ok = local == NULL;
          break;
        }
      w->lines += n_lines;
      w->end = (Mark){ r.line, r.offset };
      if (csv && first == 1)
        continue; /* the header, read at start */
      if (!too_long && blank (rec->str))
        continue;
      Rec e = { w->text->len, too_long ? 0 : rec->len, first, too_long, w->end };
      g_array_append_val (w->recs, e);
      if (!too_long)
        g_string_append_len (w->text, rec->str, (gssize) rec->len);
      g_string_append_c (w->text, '\0');
      if (w->recs->len >= window || w->text->len >= WINDOW_MAX_BYTES)
        {
          push_window (imp, f, w, start, seq, &index);
          start = w->end;
          /* the next window reuses this one's memory */
          g_string_truncate (w->text, 0);
          g_array_set_size (w->recs, 0);
          w->lines = 0;
        }
    }
  if (!atomic_load (&imp->stop))
    push_window (imp, f, w, start, seq, &index);
  chunk_free (w);
  free (r.buf);
  fclose (r.fp);
  if (!ok)
    return fail (error, "%s:%" G_GUINT64_FORMAT ": %s", f->path, r.line + 1, local->message);
  if (!atomic_load (&imp->stop))
    file_read_to_end (imp, f, index);
  return TRUE;
}

/* ---- setting up ---- */

static Format
format_of (const gchar *path)
{
  g_autofree gchar *lower = g_ascii_strdown (path, -1);
  if (g_str_has_suffix (lower, ".csv"))
    return FORMAT_CSV;
  if (g_str_has_suffix (lower, ".jsonl") || g_str_has_suffix (lower, ".json")
      || g_str_has_suffix (lower, ".ndjson"))
    return FORMAT_JSONL;
  return FORMAT_AUTO;
}

/* Reads a CSV file's header and maps its columns. */
static gboolean
read_header (Import *imp, ImportFile *f, GError **error)
{
  Reader r;
  Mark start = { 0, 0 };
  if (open_at (f, &start, &r, error) == NULL)
    return FALSE;
  g_autoptr (GString) rec = g_string_new (NULL);
  guint64 first, n_lines;
  gboolean too_long;
  g_autoptr (GError) local = NULL;
  gboolean got = read_record (&r, TRUE, rec, &first, &n_lines, &too_long, &local);
  free (r.buf);
  fclose (r.fp);
  if (!got)
    return fail (error, "%s: %s", f->path, local ? local->message : "empty file: no header row");
  if (n_lines != 1 || too_long)
    return fail (error, "%s:1: the header row must be one line", f->path);
  g_autoptr (GArray) cells = csv_split (rec->str, &local);
  if (cells == NULL)
    return fail (error, "%s:1: header: %s", f->path, local->message);
  f->n_columns = cells->len;
  f->columns = g_new (gint, cells->len);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  static const struct {
    const gchar *name;
    gint role;
  } system[] = { { "version", COL_VERSION },
                 { "source", COL_SOURCE },
                 { "target", COL_TARGET },
                 { "id", COL_ID },
                 { "type", COL_TYPE } };
  for (guint c = 0; c < cells->len; c++)
    {
      const gchar *name = g_array_index (cells, Cell, c).text;
      if (!g_hash_table_add (seen, (gpointer) name))
        return fail (error, "%s:1: column '%s' appears twice", f->path, name);
      gint role = COL_IGNORE;
      for (guint s = 0; s < G_N_ELEMENTS (system); s++)
        if (g_str_equal (name, system[s].name))
          role = system[s].role;
      if (role == COL_ID && !imp->multi)
        role = COL_IGNORE;
      if (role == COL_IGNORE && name[0] != '_')
        role = ab_schema_field_pos (imp->schema, name);
      if (role == COL_IGNORE || role == -1)
        {
          fprintf (stderr, "%s:1: column '%s' is not a property of %s.%s: ignored\n", f->path, name,
                   imp->database, imp->table);
          role = COL_IGNORE;
        }
      f->columns[c] = role;
    }
  gboolean has[7] = { FALSE };
  for (guint c = 0; c < f->n_columns; c++)
    if (f->columns[c] < COL_IGNORE)
      has[-f->columns[c]] = TRUE;
  const gchar *missing = !has[-COL_VERSION]                 ? "version"
                         : imp->multi && !has[-COL_ID]      ? "id"
                         : !imp->multi && !has[-COL_SOURCE] ? "source"
                         : !imp->multi && imp->schema->kind != AB_TABLE_VERTEX && !has[-COL_TARGET]
                             ? "target"
                             : NULL;
  if (missing != NULL)
    return fail (error, "%s:1: the header has no '%s' column", f->path, missing);
  return TRUE;
}

/* Physical lines from offset to the end (the progress total). */
static guint64
count_lines (const ImportFile *f)
{
  FILE *fp = fopen (f->path, "rb");
  if (fp == NULL)
    return 0;
  if (f->resume.offset > 0 && fseeko (fp, (off_t) f->resume.offset, SEEK_SET) != 0)
    {
      fclose (fp);
      return 0;
    }
  g_autofree gchar *buf = g_malloc (1 << 20);
  guint64 lines = 0;
  gsize n;
  gchar last = '\n';
  while ((n = fread (buf, 1, 1 << 20, fp)) > 0)
    {
      for (const gchar *p = buf; (p = memchr (p, '\n', n - (gsize) (p - buf))) != NULL; p++)
        lines++;
      last = buf[n - 1];
    }
  fclose (fp);
  return lines + (last != '\n');
}

static gboolean
parse_format (const gchar *name, const gchar *value, gpointer data, GError **error)
{
  Import *imp = data;
  (void) name;
  if (g_ascii_strcasecmp (value, "jsonl") == 0 || g_ascii_strcasecmp (value, "json") == 0
      || g_ascii_strcasecmp (value, "ndjson") == 0)
    imp->format = FORMAT_JSONL;
  else if (g_ascii_strcasecmp (value, "csv") == 0)
    imp->format = FORMAT_CSV;
  else
    return fail (error, "--format must be jsonl or csv, not '%s'", value);
  return TRUE;
}

static const gchar *const DESCRIPTION
    = "Each record becomes one mutation sent through the engine's write path, exactly as\n"
      "if it came through REST (State, Index, Count, Groups and Caches; versions fold).\n"
      "\n"
      "JSON Lines (.jsonl, .json, .ndjson): one edge per line,\n"
      "  {\"version\":1,\"source\":\"a\",\"target\":\"b\",\"properties\":{...}}\n"
      "  optionally with \"type\": INSERT (default), UPDATE or DELETE; multi-edge tables\n"
      "  take \"id\" as in REST.\n"
      "CSV (.csv): a header row names the columns: version, source, target (id for\n"
      "  multi-edge tables), optionally type, and property names; cells are cast to\n"
      "  the table's schema; an empty cell is an absent property (\"\" is an empty\n"
      "  string); quoted cells may hold commas, quotes (\"\") and line breaks.\n"
      "\n"
      "JSON Lines edges are applied in (source, target) order, 20 batches at a time:\n"
      "a source's rows then go to the store together (much faster on LMDB). The\n"
      "events of one key keep their file order, so the result is the same; a window\n"
      "with a key the fast reader cannot compare exactly (escapes, a value of another\n"
      "type) keeps its file order, as does --strict and --no-sort.\n"
      "\n"
      "Bad lines are reported as FILE:LINE: reason and skipped (--strict: the import\n"
      "stops there, and nothing of that line's batch is written).\n"
      "Exit status: 0 all lines applied, 1 some lines skipped or failed (or the\n"
      "import stopped), 2 usage.\n"
      "\n"
      "Resuming: re-running the same import is always safe (an event already applied\n"
      "is IDLE: versions decide). With --checkpoint FILE the lines applied so far (per\n"
      "input file, the prefix every line of which was applied or reported) are saved\n"
      "durably about once a second and at the end; a rerun with the same --checkpoint\n"
      "skips them. Delete FILE to import the same files from the start again.\n"
      "\n"
      "Into LMDB or RocksDB, ?sync=0 in the URI (lmdb:DIR?sync=0, rocksdb:DIR?sync=0)\n"
      "skips the fsync of every commit: the import syncs the store itself (LMDB's\n"
      "data file, RocksDB's write-ahead log) before each checkpoint and at the end\n"
      "(much faster on a large store; a machine crash during the import can lose or\n"
      "damage what was written since the last sync).";

/* Everything after the options: opens the engine, reads, applies, sums up. */
static int
run (Import *imp, gchar **paths)
{
  g_autoptr (GError) error = NULL;
  imp->files = g_ptr_array_new_with_free_func ((GDestroyNotify) import_file_free);
  for (guint i = 0; paths[i] != NULL; i++)
    {
      ImportFile *f = g_new0 (ImportFile, 1);
      g_ptr_array_add (imp->files, f);
      f->path = g_strdup (paths[i]);
      f->abs = g_canonicalize_filename (paths[i], NULL);
      f->done = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      f->n_chunks = G_MAXUINT64;
      f->format = imp->format != FORMAT_AUTO ? imp->format : format_of (paths[i]);
      if (f->format == FORMAT_AUTO)
        {
          fprintf (stderr,
                   "actionbase-admin import: %s: cannot tell the format from the name "
                   "(.jsonl/.json/.ndjson or .csv): use --format\n",
                   f->path);
          return AB_ADMIN_EXIT_USAGE;
        }
      GStatBuf st;
      errno = 0;
      if (g_stat (f->path, &st) != 0 || !S_ISREG (st.st_mode))
        {
          fprintf (stderr, "actionbase-admin import: %s: %s\n", f->path,
                   errno != 0 ? g_strerror (errno) : "not a regular file");
          return AB_ADMIN_EXIT_USAGE;
        }
      f->size = (guint64) st.st_size;
    }
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  cfg.max_mutations = MAX ((guint) imp->batch, cfg.max_mutations);
  cfg.run_applier = FALSE;
  gchar *merge[] = { imp->database, NULL };
  if (imp->insert_merge)
    cfg.insert_merge_databases = merge;
  imp->nosync = ab_store_uri_defers_sync (imp->store_uri);
  if (imp->nosync)
    fprintf (stderr,
             "%s: sync=0: commits are made durable by a sync of the store before each "
             "checkpoint and at the end\n",
             imp->store_uri);
  imp->engine = ab_engine_open (imp->store_uri, &cfg, &error);
  if (imp->engine == NULL)
    {
      fprintf (stderr, "actionbase-admin import: %s: %s\n", imp->store_uri, error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  /* A store without transactions (HBase) takes a lock row per edge: two
   * batches in flight that hold the same edge would fight over its lock until
   * one gives up. One batch at a time there; the engine still applies the
   * keys of a batch concurrently. */
  if (!ab_engine_reads_inline (imp->engine) && imp->threads > 1)
    {
      fprintf (stderr,
               "actionbase-admin import: %s takes per-edge locks: one batch in flight "
               "(--threads %d ignored)\n",
               imp->store_uri, imp->threads);
      imp->threads = 1;
    }
  imp->desc = ab_catalog_resolve (ab_engine_catalog (imp->engine), imp->database, imp->table, NULL,
                                  &error);
  if (imp->desc == NULL)
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  imp->schema = imp->desc->schema;
  imp->multi = imp->schema->kind == AB_TABLE_MULTI_EDGE;
  /* --strict stops at the first bad line in file order: no sorting there */
  imp->sort = !imp->no_sort && !imp->strict && imp->schema->kind == AB_TABLE_EDGE;
  ab_mutate_options_init (&imp->mopts);
  imp->mopts.database = imp->database;
  imp->mopts.table = imp->table;
  imp->mopts.multi_edge = imp->multi;
  imp->mopts.sync_request = TRUE; /* applied before the answer, whatever the table's mode */
  imp->mopts.actor = "actionbase-admin import";
  for (guint i = 0; i < imp->files->len; i++)
    {
      ImportFile *f = imp->files->pdata[i];
      if (f->format == FORMAT_CSV && !read_header (imp, f, &error))
        {
          fprintf (stderr, "actionbase-admin import: %s\n", error->message);
          return AB_ADMIN_EXIT_FAILED;
        }
    }
  if (imp->checkpoint != NULL && !checkpoint_load (imp, &error))
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      return AB_ADMIN_EXIT_FAILED;
    }
  guint64 total = 0;
  for (guint i = 0; i < imp->files->len; i++)
    {
      ImportFile *f = imp->files->pdata[i];
      if (f->was_complete)
        fprintf (stderr, "%s: already imported (checkpoint %s)\n", f->path, imp->checkpoint);
      else
        {
          if (f->resume.line > 0)
            fprintf (stderr, "%s: resuming after line %" G_GUINT64_FORMAT " (checkpoint %s)\n",
                     f->path, f->resume.line, imp->checkpoint);
          total += count_lines (f);
        }
    }
  /* Sorting: room for a whole window, so the workers apply one while the
   * next is read and sorted (a queue of a few batches stalled them at every
   * window). */
  imp->q_cap = (guint) imp->threads * 2 + (imp->sort ? WINDOW_BATCHES : 0);
  imp->progress = ab_progress_new ("import", total);
  gint64 started = g_get_monotonic_time ();
  g_autoptr (GPtrArray) threads = g_ptr_array_new ();
  for (gint t = 0; t < imp->threads; t++)
    g_ptr_array_add (threads, g_thread_new ("ab-import", worker, imp));
  guint64 seq = 0;
  for (guint i = 0; i < imp->files->len && !atomic_load (&imp->stop); i++)
    {
      ImportFile *f = imp->files->pdata[i];
      if (!f->was_complete && !read_file (imp, f, &seq, &error))
        {
          fprintf (stderr, "actionbase-admin import: %s\n", error->message);
          stop_import (imp, error->message);
        }
    }
  queue_close (imp);
  for (guint t = 0; t < threads->len; t++)
    g_thread_join (threads->pdata[t]);
  gdouble secs = (gdouble) (g_get_monotonic_time () - started) / G_USEC_PER_SEC;
  ab_progress_finish (g_steal_pointer (&imp->progress));
  g_mutex_lock (&imp->ck_lock);
  checkpoint_maybe (imp, TRUE);
  g_mutex_unlock (&imp->ck_lock);
  if (imp->nosync && !flush_store (imp, &error))
    {
      fprintf (stderr, "actionbase-admin import: %s\n", error->message);
      stop_import (imp, error->message);
      g_clear_error (&error);
    }
  guint64 read = atomic_load (&imp->read), applied = atomic_load (&imp->applied);
  guint64 skipped = atomic_load (&imp->skipped), failed = atomic_load (&imp->failed);
  printf ("import %s.%s: %" G_GUINT64_FORMAT " lines read, %" G_GUINT64_FORMAT
          " applied, %" G_GUINT64_FORMAT " skipped (bad), %" G_GUINT64_FORMAT
          " failed; %.1f s, %.0f rows/s\n",
          imp->database, imp->table, read, applied, skipped, failed, secs,
          secs > 0 ? (gdouble) read / secs : 0.0);
  if (imp->fatal != NULL)
    printf ("import stopped: %s\n", imp->fatal);
  if (skipped == 0 && failed == 0 && imp->fatal == NULL)
    {
      printf ("all lines applied\n");
      return AB_ADMIN_EXIT_OK;
    }
  printf ("NOT all lines applied: see the FILE:LINE messages; fix those lines and import them "
          "again (re-applying is harmless%s)\n",
          imp->checkpoint != NULL ? "; --checkpoint skips what was applied" : "");
  return AB_ADMIN_EXIT_FAILED;
}

int
ab_admin_import (int argc, char **argv)
{
  Import *imp = g_new0 (Import, 1);
  imp->threads = DEFAULT_THREADS;
  imp->batch = DEFAULT_BATCH;
  g_mutex_init (&imp->q_lock);
  g_cond_init (&imp->q_cond);
  imp->ties = ab_import_ties_new ();
  g_mutex_init (&imp->gate_lock);
  g_cond_init (&imp->gate_cond);
  g_mutex_init (&imp->ck_lock);
  g_auto (GStrv) paths = NULL;
  GOptionEntry entries[] = {
    { "store", 0, 0, G_OPTION_ARG_STRING, &imp->store_uri,
      "Store URI (lmdb:DIR, rocksdb:DIR, hbase://HOST:PORT/NS?table=T, memory:)", "URI" },
    { "database", 0, 0, G_OPTION_ARG_STRING, &imp->database, "Database", "NAME" },
    { "table", 0, 0, G_OPTION_ARG_STRING, &imp->table, "Table (or alias)", "NAME" },
    { "format", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_format,
      "jsonl or csv (default: from each file's extension)", "FORMAT" },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &imp->strict, "Stop at the first bad line", NULL },
    { "no-sort", 0, 0, G_OPTION_ARG_NONE, &imp->no_sort,
      "Apply JSON Lines in file order (default: by key, a window at a time)", NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &imp->threads, "Batches in flight (default 2)", "N" },
    { "batch", 0, 0, G_OPTION_ARG_INT, &imp->batch, "Lines per mutation request (default 10000)",
      "N" },
    { "checkpoint", 0, 0, G_OPTION_ARG_FILENAME, &imp->checkpoint,
      "Save progress here; a rerun skips what was applied", "FILE" },
    { "insert-merge", 0, 0, G_OPTION_ARG_NONE, &imp->insert_merge,
      "INSERT with UPDATE rules, as a server with insert-merge-databases naming the database",
      NULL },
    { "verbose", 'v', 0, G_OPTION_ARG_NONE, &imp->verbose, "Say when the checkpoint is saved",
      NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &paths, NULL, "FILE..." },
    G_OPTION_ENTRY_NULL,
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("FILE... - import edges into a table");
  GOptionGroup *group = g_option_group_new ("import", "", "", imp, NULL);
  g_option_group_add_entries (group, entries);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_description (ctx, DESCRIPTION);
  g_autoptr (GError) error = NULL;
  int rc = AB_ADMIN_EXIT_USAGE;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    fprintf (stderr, "actionbase-admin import: %s\n", error->message);
  else if (imp->store_uri == NULL || imp->database == NULL || imp->table == NULL || paths == NULL
           || paths[0] == NULL)
    fprintf (stderr, "actionbase-admin import: --store, --database, --table and at least one "
                     "FILE are required (--help)\n");
  else if (imp->threads < 1 || imp->threads > MAX_THREADS || imp->batch < 1
           || imp->batch > MAX_BATCH)
    fprintf (stderr, "actionbase-admin import: --threads must be 1..%d and --batch 1..%d\n",
             MAX_THREADS, MAX_BATCH);
  else
    rc = run (imp, paths);
  if (imp->engine != NULL)
    ab_engine_close (imp->engine);
  if (imp->desc != NULL)
    ab_table_desc_unref (imp->desc);
  if (imp->files != NULL)
    g_ptr_array_unref (imp->files);
  if (imp->progress != NULL)
    ab_progress_free (imp->progress);
  g_mutex_clear (&imp->q_lock);
  g_cond_clear (&imp->q_cond);
  ab_import_ties_free (imp->ties);
  g_mutex_clear (&imp->gate_lock);
  g_cond_clear (&imp->gate_cond);
  g_mutex_clear (&imp->ck_lock);
  g_free (imp->fatal);
  g_free (imp->store_uri);
  g_free (imp->database);
  g_free (imp->table);
  g_free (imp->checkpoint);
  g_free (imp);
  return rc;
}
