/* The import's parsing: each JSON Lines or CSV record (and a CSV file's
 * header) read into an item of the engine's form, cast to the table's schema
 * and checked, so that a bad line is skipped alone (or stops --strict). */
#include <string.h>
#include <json-glib/json-glib.h>
#include "admin/import-private.h"
#include "admin/import_scan.h"
#include "model/types.h"

/* Roles of CSV columns; values >= 0 are schema field positions. */
enum {
  COL_IGNORE = -1,
  COL_VERSION = -2,
  COL_SOURCE = -3,
  COL_TARGET = -4,
  COL_ID = -5,
  COL_TYPE = -6,
};

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
    return ab_admin_import_fail (error, "\"%s\" is required", name);
  return raw_cast (r, type, name, out, error);
}

/* One record before casting. */
typedef struct {
  AbOpType op;
  Raw version, source, target, id;
  gboolean props_bad; /* "properties" is there and neither an object nor null */
  Raw *props;         /* per schema field */
} RawEdge;

void
ab_admin_import_batch_init (AbImportBatch *b, guint n)
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

void
ab_admin_import_batch_clear (AbImportBatch *b)
{
  for (guint i = 0; i < b->items->len; i++)
    item_clear (&g_array_index (b->items, AbMutationItem, i));
  g_array_unref (b->items);
  g_array_unref (b->values);
  g_ptr_array_unref (b->names);
  g_array_unref (b->first);
  g_array_unref (b->lines);
}

void
ab_admin_import_batch_link (AbImportBatch *b)
{
  for (guint i = 0; i < b->items->len; i++)
    {
      AbMutationItem *it = &g_array_index (b->items, AbMutationItem, i);
      guint first = g_array_index (b->first, guint, i);
      it->names = it->n_props > 0 ? (const gchar *const *) b->names->pdata + first : NULL;
      it->values = it->n_props > 0 ? &g_array_index (b->values, AbValue, first) : NULL;
    }
}

void
ab_admin_import_batch_remove (AbImportBatch *b, guint i)
{
  item_clear (&g_array_index (b->items, AbMutationItem, i));
  g_array_remove_index (b->items, i);
  g_array_remove_index (b->first, i);
  g_array_remove_index (b->lines, i);
}

/* Casts and checks one record and appends it to b; nothing is appended on a
 * failure. */
static gboolean
edge_add (AbImport *imp, const RawEdge *e, guint64 line, AbImportBatch *b, GError **error)
{
  const AbSchema *s = imp->schema;
  gboolean del = e->op == AB_OP_DELETE, ins = e->op == AB_OP_INSERT;
  if (s->kind == AB_TABLE_IMMUTABLE_EDGE && !ins)
    return ab_admin_import_fail (error, "%s is not allowed on an immutable table (INSERT only)",
                                 OP_NAMES[e->op]);
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
    ok = ab_admin_import_fail (error, "\"properties\" must be an object");
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
            ok = ab_admin_import_fail (error, "Property '%s' is required and cannot be null",
                                       f->name);
          continue;
        }
      AbValue v = AB_VALUE_INIT;
      if (!raw_cast (r, f->type, f->name, &v, error))
        ok = FALSE;
      else if (!f->nullable && ab_value_is_null (&v))
        ok = ab_admin_import_fail (error,
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
scanned_edge (AbImport *imp, GArray *members, RawEdge *e, GError **error)
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
        return ab_admin_import_fail (error, "\"type\" must be INSERT, UPDATE or DELETE");
    }
  return TRUE;
}

/* One JSON Lines record into b: the scanner for the usual flat edge,
 * json-glib for anything else. */
static gboolean
parse_jsonl (AbImport *imp, gchar *text, guint64 line, AbImportBatch *b, Scratch *sc,
             GError **error)
{
  guint nf = imp->schema->fields->len;
  RawEdge e = { .op = AB_OP_INSERT, .props = sc->props };
  memset (sc->props, 0, nf * sizeof (Raw));
  if (ab_import_scan_edge (text, sc->members, TRUE))
    return scanned_edge (imp, sc->members, &e, error) && edge_add (imp, &e, line, b, error);
  g_autoptr (GError) local = NULL;
  g_autoptr (JsonNode) node = ab_model_json_parse (text, -1, &local);
  if (node == NULL)
    return ab_admin_import_fail (error, "%s", local->message);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return ab_admin_import_fail (error, "a line must be a JSON object (an edge)");
  JsonObject *edge = json_node_get_object (node);
  JsonNode *tn = json_object_get_member (edge, "type");
  if (tn != NULL && !JSON_NODE_HOLDS_NULL (tn))
    {
      const gchar *t = JSON_NODE_HOLDS_VALUE (tn) && json_node_get_value_type (tn) == G_TYPE_STRING
                           ? json_node_get_string (tn)
                           : NULL;
      if (t == NULL || !op_parse (t, &e.op))
        return ab_admin_import_fail (error, "\"type\" must be INSERT, UPDATE or DELETE");
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
                  return ab_admin_import_fail (error, "unterminated quoted cell"), NULL;
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
              return ab_admin_import_fail (error, "a closing quote must end its cell (cell %u)",
                                           cells->len + 1),
                     NULL;
            }
        }
      else
        for (; *p != ',' && *p != '\0'; p++)
          {
            if (*p == '"')
              {
                g_string_free (cell, TRUE);
                return ab_admin_import_fail (error, "a quote inside an unquoted cell (cell %u)",
                                             cells->len + 1),
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
endpoint_type (AbImport *imp, gint role)
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
parse_csv (AbImport *imp, const AbImportFile *f, const gchar *text, guint64 line, AbImportBatch *b,
           Scratch *sc, GError **error)
{
  g_autoptr (GArray) cells = csv_split (text, error);
  if (cells == NULL)
    return FALSE;
  if (cells->len != f->n_columns)
    return ab_admin_import_fail (error, "%u cells, the header has %u", cells->len, f->n_columns);
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
            return ab_admin_import_fail (error, "\"type\" must be INSERT, UPDATE or DELETE");
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

gboolean
ab_admin_import_read_header (AbImport *imp, AbImportFile *f, GError **error)
{
  AbImportReader r;
  AbImportMark start = { 0, 0 };
  if (ab_admin_import_open_at (f, &start, &r, error) == NULL)
    return FALSE;
  g_autoptr (GString) rec = g_string_new (NULL);
  guint64 first, n_lines;
  gboolean too_long;
  g_autoptr (GError) local = NULL;
  gboolean got = ab_admin_import_read_record (&r, TRUE, rec, &first, &n_lines, &too_long, &local);
  free (r.buf);
  fclose (r.fp);
  if (!got)
    return ab_admin_import_fail (error, "%s: %s", f->path,
                                 local ? local->message : "empty file: no header row");
  if (n_lines != 1 || too_long)
    return ab_admin_import_fail (error, "%s:1: the header row must be one line", f->path);
  g_autoptr (GArray) cells = csv_split (rec->str, &local);
  if (cells == NULL)
    return ab_admin_import_fail (error, "%s:1: header: %s", f->path, local->message);
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
        return ab_admin_import_fail (error, "%s:1: column '%s' appears twice", f->path, name);
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
    return ab_admin_import_fail (error, "%s:1: the header has no '%s' column", f->path, missing);
  return TRUE;
}

/* ---- a chunk ---- */

static void
scratch_init (AbImport *imp, Scratch *sc)
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

gboolean
ab_admin_import_parse_chunk (AbImport *imp, AbImportChunk *c, AbImportBatch *b)
{
  AbImportFile *f = c->file;
  Scratch sc;
  scratch_init (imp, &sc);
  guint read = 0, skipped = 0;
  gboolean clean = TRUE;
  for (guint i = 0; i < c->recs->len; i++)
    {
      const AbImportRec *r = &g_array_index (c->recs, AbImportRec, i);
      gchar *text = c->text->str + r->off;
      read++;
      if (r->too_long)
        {
          ab_admin_import_report (f, r->line, "record longer than %d bytes",
                                  AB_IMPORT_MAX_RECORD_BYTES);
          skipped++, clean = FALSE;
          continue;
        }
      g_autoptr (GError) error = NULL;
      gboolean ok = f->format == AB_IMPORT_FORMAT_CSV
                        ? parse_csv (imp, f, text, r->line, b, &sc, &error)
                        : parse_jsonl (imp, text, r->line, b, &sc, &error);
      if (!ok)
        {
          ab_admin_import_report (f, r->line, "%s", error->message);
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
