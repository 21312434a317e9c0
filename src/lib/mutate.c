/* libactionbase mutations: a batch keeps typed items (values copied in),
 * handed to the engine as AbMutationItems with no JSON in between; the
 * per-key results are the engine's, read through accessors. */
#include "lib/lib-private.h"

typedef struct {
  AbOpType op;
  gint64 version;
  AbValue id, source, target;
  guint first_prop; /* into the batch's names/values */
  guint n_props;
} Item;

typedef enum { KIND_NONE, KIND_EDGE, KIND_MULTI, KIND_VERTEX, KIND_MIXED } Kind;

struct _AbDbBatch {
  GArray *items;    /* Item */
  GPtrArray *names; /* gchar*, owned */
  GArray *values;   /* AbValue, owned */
  Kind kind;
  gchar *misuse; /* the first call made wrongly since the last clear */
};

struct _AbDbResults {
  GArray *results; /* AbKeyResult */
};

static void
item_clear (Item *it)
{
  ab_value_clear (&it->id);
  ab_value_clear (&it->source);
  ab_value_clear (&it->target);
}

AbDbBatch *
ab_db_batch_new (void)
{
  AbDbBatch *b = g_new0 (AbDbBatch, 1);
  b->items = g_array_new (FALSE, TRUE, sizeof (Item));
  g_array_set_clear_func (b->items, (GDestroyNotify) item_clear);
  b->names = g_ptr_array_new_with_free_func (g_free);
  b->values = g_array_new (FALSE, TRUE, sizeof (AbValue));
  g_array_set_clear_func (b->values, (GDestroyNotify) ab_value_clear);
  return b;
}

void
ab_db_batch_free (AbDbBatch *batch)
{
  if (batch == NULL)
    return;
  g_array_unref (batch->items);
  g_ptr_array_unref (batch->names);
  g_array_unref (batch->values);
  g_free (batch->misuse);
  g_free (batch);
}

void
ab_db_batch_clear (AbDbBatch *batch)
{
  g_array_set_size (batch->items, 0);
  g_ptr_array_set_size (batch->names, 0);
  g_array_set_size (batch->values, 0);
  batch->kind = KIND_NONE;
  g_clear_pointer (&batch->misuse, g_free);
}

/* Keeps the first misuse of the batch, for the mutation to fail with. */
static void G_GNUC_PRINTF (2, 3) misused (AbDbBatch *b, const char *fmt, ...)
{
  if (b->misuse != NULL)
    return;
  va_list ap;
  va_start (ap, fmt);
  b->misuse = g_strdup_vprintf (fmt, ap);
  va_end (ap);
}

guint
ab_db_batch_len (const AbDbBatch *batch)
{
  return batch->items->len;
}

static void
copy_in (AbValue *dst, AbDbValue v)
{
  AbValue view;
  ab_lib_value_view (v, &view);
  ab_value_copy (dst, &view);
}

static void
add_item (AbDbBatch *b, Kind kind, AbDbOp op, gint64 version, const AbDbValue *id,
          const AbDbValue *source, const AbDbValue *target)
{
  g_return_if_fail (b != NULL);
  if ((guint) op > AB_DB_DELETE)
    misused (b, "item %u: op %d is not an AbDbOp", b->items->len, (gint) op);
  Item it = { .op = (AbOpType) MIN ((guint) op, AB_DB_DELETE),
              .version = version,
              .first_prop = b->values->len };
  if (id != NULL)
    copy_in (&it.id, *id);
  if (source != NULL)
    copy_in (&it.source, *source);
  if (target != NULL)
    copy_in (&it.target, *target);
  g_array_append_val (b->items, it);
  b->kind = b->kind == KIND_NONE || b->kind == kind ? kind : KIND_MIXED;
}

void
ab_db_batch_add_edge (AbDbBatch *batch, AbDbOp op, gint64 version, AbDbValue source,
                      AbDbValue target)
{
  add_item (batch, KIND_EDGE, op, version, NULL, &source, &target);
}

void
ab_db_batch_add_multi_edge (AbDbBatch *batch, AbDbOp op, gint64 version, AbDbValue id,
                            AbDbValue source, AbDbValue target)
{
  add_item (batch, KIND_MULTI, op, version, &id, &source, &target);
}

void
ab_db_batch_add_vertex (AbDbBatch *batch, AbDbOp op, gint64 version, AbDbValue id)
{
  add_item (batch, KIND_VERTEX, op, version, &id, NULL, NULL);
}

void
ab_db_batch_set (AbDbBatch *batch, const char *property, AbDbValue value)
{
  g_return_if_fail (batch != NULL);
  if (batch->items->len == 0 || property == NULL)
    {
      misused (batch, "ab_db_batch_set (\"%s\") %s", property != NULL ? property : "(null)",
               property == NULL ? "without a property name" : "before any item was added");
      return;
    }
  Item *it = &g_array_index (batch->items, Item, batch->items->len - 1);
  AbValue v = AB_VALUE_INIT;
  copy_in (&v, value);
  g_ptr_array_add (batch->names, g_strdup (property));
  g_array_append_val (batch->values, v);
  it->n_props++;
}

/* Checks the call and fills o and the engine's items (borrowing from batch
 * and the names); FALSE with error set on a bad call. */
static gboolean
prepare (AbDb *db, const char *database, const char *table, const AbDbBatch *batch,
         const AbDbMutateOptions *opts, AbMutateOptions *o, AbMutationItem **items, GError **error)
{
  if (!ab_lib_names_ok (db, database, table, error) || !ab_lib_require (batch, "batch", error))
    return FALSE;
  if (batch->misuse != NULL)
    return g_set_error (error, AB_DB_ERROR, AB_DB_ERROR_INVALID,
                        "the batch was built wrongly (nothing written): %s", batch->misuse),
           FALSE;
  if (batch->kind == KIND_MIXED)
    return g_set_error (error, AB_DB_ERROR, AB_DB_ERROR_INVALID,
                        "a batch holds items of one kind (edges, multi-edges or vertices)"),
           FALSE;
  ab_mutate_options_init (o);
  o->database = database;
  o->table = table;
  o->multi_edge = batch->kind == KIND_MULTI;
  o->vertex = batch->kind == KIND_VERTEX;
  o->lock = opts == NULL || !opts->no_lock;
  o->sync_request = opts != NULL && opts->sync;
  o->force = opts != NULL && opts->force;
  o->actor = "libactionbase";
  guint n = batch->items->len;
  *items = g_new0 (AbMutationItem, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      const Item *it = &g_array_index (batch->items, Item, i);
      (*items)[i] = (AbMutationItem){
        .type = it->op,
        .version = it->version,
        .id = it->id,
        .source = it->source,
        .target = it->target,
        .n_props = it->n_props,
        .names = (const gchar *const *) batch->names->pdata + it->first_prop,
        .values = &g_array_index (batch->values, AbValue, it->first_prop),
      };
    }
  return TRUE;
}

static AbDbResults *
results_new (GArray *results)
{
  AbDbResults *r = g_new0 (AbDbResults, 1);
  r->results = results;
  return r;
}

AbDbResults *
ab_db_mutate (AbDb *db, const char *database, const char *table, const AbDbBatch *batch,
              const AbDbMutateOptions *opts, GError **error)
{
  AbMutateOptions o;
  g_autofree AbMutationItem *items = NULL;
  if (!prepare (db, database, table, batch, opts, &o, &items, error))
    return NULL;
  GError *local = NULL;
  GArray *results = ab_engine_mutate_items (db->engine, &o, items, batch->items->len, &local);
  if (results == NULL)
    return ab_lib_propagate (error, local), NULL;
  return results_new (results);
}

/* An ab_db_mutate_async in flight: the names the engine reads until done. */
typedef struct {
  gchar *database, *table;
  AbDbMutateCallback callback;
  gpointer user_data;
} Pending;

static void
pending_free (Pending *p)
{
  g_free (p->database);
  g_free (p->table);
  g_free (p);
}

static void
pending_done (GArray *results, GError *error, gpointer data)
{
  Pending *p = data;
  GError *lib_error = NULL;
  if (error != NULL)
    ab_lib_propagate (&lib_error, error);
  p->callback (results != NULL ? results_new (results) : NULL, lib_error, p->user_data);
  pending_free (p);
}

void
ab_db_mutate_async (AbDb *db, const char *database, const char *table, const AbDbBatch *batch,
                    const AbDbMutateOptions *opts, AbDbMutateCallback callback, gpointer user_data)
{
  g_return_if_fail (callback != NULL);
  Pending *p = g_new0 (Pending, 1);
  p->database = g_strdup (database);
  p->table = g_strdup (table);
  p->callback = callback;
  p->user_data = user_data;
  AbMutateOptions o;
  g_autofree AbMutationItem *items = NULL;
  GError *error = NULL;
  if (!prepare (db, p->database, p->table, batch, opts, &o, &items, &error))
    {
      callback (NULL, error, user_data);
      pending_free (p);
      return;
    }
  ab_engine_mutate_items_async (db->engine, &o, items, batch->items->len, pending_done, p);
}

/* What the accessors read past the end (after the critical): an ERROR of
 * empty values. */
static const AbKeyResult NO_RESULT = { .status = AB_STATUS_ERROR };

static const AbKeyResult *
result_at (const AbDbResults *r, guint i)
{
  g_return_val_if_fail (i < r->results->len, &NO_RESULT);
  return &g_array_index (r->results, AbKeyResult, i);
}

guint
ab_db_results_len (const AbDbResults *results)
{
  return results->results->len;
}

AbDbStatus
ab_db_results_status (const AbDbResults *results, guint i)
{
  return (AbDbStatus) result_at (results, i)->status;
}

const char *
ab_db_status_name (AbDbStatus status)
{
  return ab_key_status_name ((AbKeyStatus) status);
}

AbDbValue
ab_db_results_source (const AbDbResults *results, guint i)
{
  return ab_lib_value_out (&result_at (results, i)->source);
}

AbDbValue
ab_db_results_target (const AbDbResults *results, guint i)
{
  return ab_lib_value_out (&result_at (results, i)->target);
}

guint
ab_db_results_events (const AbDbResults *results, guint i)
{
  return result_at (results, i)->count;
}

const char *
ab_db_results_message (const AbDbResults *results, guint i)
{
  return result_at (results, i)->message;
}

void
ab_db_results_free (AbDbResults *results)
{
  if (results == NULL)
    return;
  g_array_unref (results->results);
  g_free (results);
}
