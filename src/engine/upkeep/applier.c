/* The built-in async applier: a thread that tails the WAL from the position
 * saved in the store, applies the records of ASYNC mutations through the
 * normal engine path (internal SYNC mode, no WAL), saves the new position
 * (at most once a second), and reports lag. Re-applying a record is harmless: transitions are
 * version-idempotent, so delivery is at-least-once and the result exact. */
#include <stdatomic.h>
#include <string.h>
#include "engine/upkeep/upkeep.h"
#include "engine/write/write.h"

/* Reserved key (byte 4 = 0x00 is never an element header). */
static const guint8 POSITION_KEY[]
    = { 0, 0, 0, 0, 0, 'a', 'b', 'w', 'a', 'l', 0, 'a', 'p', 'p', 'l', 'i', 'e', 'r' };
#define LAG_SAMPLES 1024
/* Records per mutation request: under the engine's default max_mutations. */
#define BATCH_MAX 500

typedef struct _AbApplier {
  AbEngine *engine;
  GThread *thread;
  atomic_int stop;
  AbSinkReader *reader;
  GMutex mu; /* guards below */
  GCond cond;
  guint64 idle_rounds; /* empty reads so far (drain waits on it) */
  atomic_uint_fast64_t applied, skipped, failed;
  gint64 lags[LAG_SAMPLES]; /* ms, ring buffer */
  guint n_lags, next_lag;
  gint64 lag_sum_ms; /* over every record noted since the start */
  guint64 lag_count;
  /* applier thread only: the position read up to and not saved yet, whether
   * anything was applied before it, and when a position was last saved */
  GBytes *unsaved;
  gboolean unsaved_applied;
  gint64 saved_at_us;
} AbApplier;

/* A position is saved at most once a second, and one that only passed over
 * skipped records at most once a minute (so that the WAL can still be
 * trimmed): on a remote store a save is a call (docs/wal.md). */
#define SAVE_APPLIED_US G_USEC_PER_SEC
#define SAVE_SKIPPED_US (60 * G_USEC_PER_SEC)

/* The record's effective mode (system, then request, then table). */
static const gchar *
effective_mode (JsonObject *rec)
{
  JsonObject *m = json_object_get_object_member (rec, "mode");
  const gchar *eff = NULL;
  static const gchar *const order[] = { "g", "r", "l" };
  for (guint i = 0; m != NULL && i < 3 && eff == NULL; i++)
    eff = json_object_get_string_member_with_default (m, order[i], NULL);
  return eff;
}

/* Which records a pass applies: the applier's (queued, effective mode ASYNC;
 * DROP records are never applied) or a catch-up's (every record the source
 * applied or queued, SYNC or ASYNC, built at or after since_ms). */
typedef struct {
  gboolean catch_up;
  gint64 since_ms;
} Pick;

static gboolean
wants_apply (JsonObject *rec, const Pick *pick)
{
  const gchar *eff = effective_mode (rec);
  if (pick->catch_up)
    return (g_strcmp0 (eff, "SYNC") == 0 || g_strcmp0 (eff, "ASYNC") == 0)
           && json_object_get_int_member_with_default (rec, "ts", 0) >= pick->since_ms;
  JsonObject *m = json_object_get_object_member (rec, "mode");
  return m != NULL && json_object_get_boolean_member_with_default (m, "queue", FALSE)
         && g_strcmp0 (eff, "ASYNC") == 0;
}

/* Most of a WAL is SYNC records the applier skips: a queued record says
 * "queue":true (as our writer and upstream's print it), so a line without
 * it is passed over without being parsed. A property text containing it
 * only costs the parse. */
static gboolean
maybe_queued (const gchar *value)
{
  return value != NULL
         && (strstr (value, "\"queue\":true") != NULL || strstr (value, "\"queue\": true") != NULL);
}

/* WAL edge -> a mutation item of the REST body shape. */
static JsonNode *
mutation_of (JsonObject *rec, gboolean *multi)
{
  JsonObject *edge = json_object_get_object_member (rec, "edge");
  const gchar *op = json_object_get_string_member_with_default (rec, "op", NULL);
  if (edge == NULL || op == NULL)
    return NULL;
  JsonObject *props = json_object_get_object_member (edge, "props");
  JsonObject *e = json_object_new ();
  json_object_set_member (e, "version", json_node_copy (json_object_get_member (edge, "ts")));
  *multi = props != NULL && json_object_has_member (props, "_id");
  if (*multi)
    json_object_set_member (e, "id", json_node_copy (json_object_get_member (props, "_id")));
  static const gchar *const ends[][2] = { { "src", "source" }, { "tgt", "target" } };
  for (guint i = 0; i < 2; i++)
    {
      JsonNode *v = json_object_get_member (edge, ends[i][0]);
      /* Multi-edge WAL records write "0" for an endpoint the event lacked. */
      gboolean absent = *multi && strcmp (op, "INSERT") != 0 && v != NULL
                        && JSON_NODE_HOLDS_VALUE (v)
                        && json_node_get_value_type (v) == G_TYPE_STRING
                        && strcmp (json_node_get_string (v), "0") == 0;
      if (v != NULL && !absent)
        json_object_set_member (e, ends[i][1], json_node_copy (v));
    }
  JsonObject *copy = json_object_new ();
  g_autoptr (GList) names = props != NULL ? json_object_get_members (props) : NULL;
  for (GList *l = names; l != NULL; l = l->next)
    if (strcmp (l->data, "_id") != 0)
      json_object_set_member (copy, l->data,
                              json_node_copy (json_object_get_member (props, l->data)));
  json_object_set_object_member (e, "properties", copy);
  JsonObject *m = json_object_new ();
  json_object_set_string_member (m, "type", op);
  json_object_set_object_member (m, "edge", e);
  JsonNode *n = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (n, m);
  return n;
}

typedef struct {
  gchar *label;
  gboolean multi;
  JsonArray *items;
} LabelBatch;

static void
label_batch_free (LabelBatch *b)
{
  g_free (b->label);
  json_array_unref (b->items);
  g_free (b);
}

static void
note_lag (AbApplier *a, JsonObject *rec)
{
  gint64 ts = json_object_get_int_member_with_default (rec, "ts", 0);
  if (ts <= 0)
    return;
  g_mutex_lock (&a->mu);
  a->lags[a->next_lag] = MAX (0, ab_engine_now_ms (a->engine) - ts);
  a->lag_sum_ms += a->lags[a->next_lag];
  a->lag_count++;
  a->next_lag = (a->next_lag + 1) % LAG_SAMPLES;
  a->n_lags = MIN (a->n_lags + 1, LAG_SAMPLES);
  g_mutex_unlock (&a->mu);
}

/* Groups the records to apply by label, in WAL order; a (the applier, or
 * NULL for a catch-up) notes their lag. */
static GPtrArray *
collect (AbApplier *a, const Pick *pick, GPtrArray *entries)
{
  GPtrArray *batches = g_ptr_array_new_with_free_func ((GDestroyNotify) label_batch_free);
  for (guint i = 0; i < entries->len; i++)
    {
      AbSinkEntry *e = entries->pdata[i];
      if (!pick->catch_up && !maybe_queued (e->record.value))
        continue;
      g_autoptr (JsonNode) n = json_from_string (e->record.value, NULL);
      JsonObject *rec = n != NULL && JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
      gboolean multi = FALSE;
      JsonNode *m = rec != NULL && wants_apply (rec, pick) ? mutation_of (rec, &multi) : NULL;
      const gchar *label
          = rec != NULL ? json_object_get_string_member_with_default (rec, "label", NULL) : NULL;
      if (m == NULL || label == NULL)
        {
          if (m != NULL)
            json_node_unref (m);
          continue;
        }
      if (a != NULL)
        note_lag (a, rec);
      LabelBatch *b = batches->len > 0 ? batches->pdata[batches->len - 1] : NULL;
      if (b == NULL || strcmp (b->label, label) != 0 || b->multi != multi
          || json_array_get_length (b->items) >= BATCH_MAX)
        {
          b = g_new0 (LabelBatch, 1);
          b->label = g_strdup (label);
          b->multi = multi;
          b->items = json_array_new ();
          g_ptr_array_add (batches, b);
        }
      json_array_add_element (b->items, m);
    }
  return batches;
}

/* What a pass counted. */
typedef struct {
  atomic_uint_fast64_t *applied, *skipped, *failed;
  gboolean lock; /* take each edge's lock (stores without transactions) */
} Counts;

/* Applies one label's records; TRUE when nothing needs a retry: keys that
 * failed on a cause that may pass (the store unreachable, a lock held) are
 * retried, with the batch; the others cannot succeed and are counted as
 * failed. */
static gboolean
apply_batch (AbEngine *engine, const Counts *n, LabelBatch *b)
{
  const gchar *dot = strchr (b->label, '.');
  if (dot == NULL)
    return TRUE;
  g_autofree gchar *db = g_strndup (b->label, (gsize) (dot - b->label));
  AbMutateOptions o;
  ab_mutate_options_init (&o);
  o.database = db;
  o.table = dot + 1;
  o.multi_edge = b->multi;
  o.internal = TRUE;
  o.lock = n->lock;
  o.request_id = "applier";
  JsonObject *body = json_object_new ();
  json_object_set_array_member (body, "mutations", json_array_ref (b->items));
  g_autoptr (JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, body);
  g_autoptr (GError) error = NULL;
  g_autoptr (GArray) results = ab_engine_mutate (engine, &o, node, &error);
  if (results == NULL)
    {
      /* The table is gone or the record is malformed: retrying cannot help. */
      g_warning ("applier skips %u record(s) of %s: %s", json_array_get_length (b->items), b->label,
                 error->message);
      atomic_fetch_add (n->skipped, json_array_get_length (b->items));
      return TRUE;
    }
  gboolean retry = FALSE;
  guint failed = 0;
  for (guint i = 0; i < results->len; i++)
    {
      const AbKeyResult *r = &g_array_index (results, AbKeyResult, i);
      retry |= r->may_pass;
      failed += r->status == AB_STATUS_ERROR && !r->may_pass;
    }
  if (retry)
    return FALSE;
  for (guint i = 0; i < results->len && failed > 0; i++)
    if (g_array_index (results, AbKeyResult, i).status == AB_STATUS_ERROR)
      g_warning ("applier: a record of %s cannot be applied: %s", b->label,
                 g_array_index (results, AbKeyResult, i).message);
  atomic_fetch_add (n->failed, failed);
  atomic_fetch_add (n->applied, json_array_get_length (b->items) - failed);
  return TRUE;
}

/* apply_batch until it succeeds, backing off (50 ms doubling to 1 s): the
 * applier (stop != NULL) tries until it succeeds or *stop, so that an
 * outage of any length loses no queued write; a catch-up (stop NULL) at
 * most 21 times. FALSE when it stopped or gave up. */
static gboolean
apply_with_retries (AbEngine *engine, const Counts *n, LabelBatch *b, atomic_int *stop)
{
  for (guint attempt = 0; !apply_batch (engine, n, b); attempt++)
    {
      if ((stop == NULL && attempt == 20) || (stop != NULL && atomic_load (stop)))
        {
          if (stop == NULL)
            g_warning ("catch-up gives up on a batch of %s after %u attempts", b->label,
                       attempt + 1);
          return FALSE;
        }
      if (stop != NULL && (attempt == 20 || attempt % 300 == 299))
        g_warning ("applier: a batch of %s still fails after %u attempts; retrying", b->label,
                   attempt + 1);
      g_usleep (MIN (50000u << MIN (attempt, 5u), 1000000u));
    }
  return TRUE;
}

static void
save_position (AbApplier *a, GBytes *position)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (position, &len);
  g_autoptr (AbBatch) batch = ab_batch_new ();
  ab_batch_put (batch, POSITION_KEY, sizeof POSITION_KEY, p, len);
  g_autoptr (GError) error = NULL;
  if (!ab_store_batch (a->engine->store, batch, &error)
      || !ab_sink_commit (a->reader, position, &error))
    g_warning ("applier could not save its WAL position: %s", error->message);
}

/* Saves the unsaved position when it is due (always when final). */
static void
maybe_save (AbApplier *a, gboolean final)
{
  gint64 now = g_get_monotonic_time ();
  gint64 wait = a->unsaved_applied ? SAVE_APPLIED_US : SAVE_SKIPPED_US;
  if (a->unsaved == NULL || (!final && now - a->saved_at_us < wait))
    return;
  save_position (a, a->unsaved);
  g_clear_pointer (&a->unsaved, g_bytes_unref);
  a->unsaved_applied = FALSE;
  a->saved_at_us = now;
}

/* Applies the records of entries; the position moves past them only once
 * every one is applied (a stop in the middle leaves it: they are read and
 * applied again on the next start). */
static void
process (AbApplier *a, GPtrArray *entries)
{
  const Pick pick = { 0 };
  const Counts n = { &a->applied, &a->skipped, &a->failed, TRUE };
  g_autoptr (GPtrArray) batches = collect (a, &pick, entries);
  for (guint i = 0; i < batches->len; i++)
    if (!apply_with_retries (a->engine, &n, batches->pdata[i], &a->stop))
      return;
  g_clear_pointer (&a->unsaved, g_bytes_unref);
  a->unsaved = g_bytes_ref (((AbSinkEntry *) entries->pdata[entries->len - 1])->position);
  a->unsaved_applied |= batches->len > 0;
}

/* The reader starts at the position saved in the store; a store that is
 * down (remote gateway) only delays the start. */
static gboolean
open_reader (AbApplier *a)
{
  g_autoptr (GBytes) from = NULL;
  g_autoptr (GError) error = NULL;
  if (ab_store_get (a->engine->store, POSITION_KEY, sizeof POSITION_KEY, &from, &error))
    a->reader = ab_sink_open_reader (a->engine->wal, from, &error);
  if (a->reader != NULL)
    return TRUE;
  g_warning ("applier waits for the store/WAL: %s", error->message);
  return FALSE;
}

static gpointer
run (gpointer data)
{
  AbApplier *a = data;
  while (!atomic_load (&a->stop) && !open_reader (a))
    for (guint i = 0; i < 10 && !atomic_load (&a->stop); i++)
      g_usleep (G_USEC_PER_SEC / 10);
  while (!atomic_load (&a->stop))
    {
      g_autoptr (GPtrArray) entries
          = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_entry_free);
      g_autoptr (GError) error = NULL;
      if (!ab_sink_read (a->reader, 512, 100, entries, &error))
        {
          g_warning ("applier cannot read the WAL: %s", error->message);
          g_usleep (G_USEC_PER_SEC / 2);
          continue;
        }
      if (entries->len > 0)
        process (a, entries);
      maybe_save (a, FALSE);
      g_mutex_lock (&a->mu);
      if (entries->len == 0)
        a->idle_rounds++;
      g_cond_broadcast (&a->cond);
      g_mutex_unlock (&a->mu);
    }
  maybe_save (a, TRUE);
  return NULL;
}

gboolean
ab_engine_applier_start (AbEngine *engine, GError **error)
{
  AbApplier *a = g_new0 (AbApplier, 1);
  a->engine = engine;
  g_mutex_init (&a->mu);
  g_cond_init (&a->cond);
  engine->applier = a;
  a->thread = g_thread_new ("ab-applier", run, a);
  return TRUE;
}

void
ab_engine_applier_stop (AbEngine *engine)
{
  AbApplier *a = engine->applier;
  if (a == NULL)
    return;
  atomic_store (&a->stop, 1);
  g_thread_join (a->thread);
  if (a->reader != NULL)
    ab_sink_close_reader (a->reader);
  g_mutex_clear (&a->mu);
  g_cond_clear (&a->cond);
  g_free (a);
  engine->applier = NULL;
}

gboolean
ab_engine_applier_drain (AbEngine *engine, gint timeout_ms)
{
  AbApplier *a = engine->applier;
  if (a == NULL)
    return TRUE;
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  g_mutex_lock (&a->mu);
  /* Two empty reads after the call: everything appended before it is done. */
  guint64 target = a->idle_rounds + 2;
  gboolean ok = TRUE;
  while (ok && a->idle_rounds < target)
    ok = g_cond_wait_until (&a->cond, &a->mu, deadline);
  g_mutex_unlock (&a->mu);
  return ok;
}

static gint
cmp_i64 (gconstpointer x, gconstpointer y)
{
  gint64 a = *(const gint64 *) x, b = *(const gint64 *) y;
  return a < b ? -1 : a > b;
}

void
ab_engine_applier_metrics (AbEngine *engine, GString *out)
{
  AbApplier *a = engine->applier;
  if (a == NULL)
    return;
  gint64 sorted[LAG_SAMPLES];
  g_mutex_lock (&a->mu);
  guint n = a->n_lags;
  memcpy (sorted, a->lags, sizeof (gint64) * n);
  gint64 sum_ms = a->lag_sum_ms;
  guint64 count = a->lag_count;
  g_mutex_unlock (&a->mu);
  qsort (sorted, n, sizeof (gint64), cmp_i64);
  /* Seconds, as Prometheus names want; the quantiles over the last
   * LAG_SAMPLES records, _sum and _count over all of them (so that
   * rate(_sum) / rate(_count) is the mean lag of a window). */
  g_string_append_printf (
      out,
      "# HELP actionbase_applier_records_total WAL records handled by the async applier.\n"
      "# TYPE actionbase_applier_records_total counter\n"
      "actionbase_applier_records_total{outcome=\"applied\"} %" G_GSSIZE_FORMAT "\n"
      "actionbase_applier_records_total{outcome=\"skipped\"} %" G_GSSIZE_FORMAT "\n"
      "actionbase_applier_records_total{outcome=\"failed\"} %" G_GSSIZE_FORMAT "\n"
      "# HELP actionbase_applier_lag_seconds Now minus the time of the applied records.\n"
      "# TYPE actionbase_applier_lag_seconds summary\n"
      "actionbase_applier_lag_seconds{quantile=\"0.5\"} %.3f\n"
      "actionbase_applier_lag_seconds{quantile=\"0.99\"} %.3f\n"
      "actionbase_applier_lag_seconds_sum %.3f\n"
      "actionbase_applier_lag_seconds_count %" G_GUINT64_FORMAT "\n",
      (gssize) atomic_load (&a->applied), (gssize) atomic_load (&a->skipped),
      (gssize) atomic_load (&a->failed), n ? sorted[n / 2] / 1e3 : 0.0,
      n ? sorted[MIN (n - 1, n * 99 / 100)] / 1e3 : 0.0, sum_ms / 1e3, count);
}

/* The lane of a mutation item: a hash of its edge's endpoints (or id), so
 * that each edge's records stay on one lane. */
static guint
lane_of (JsonNode *item, guint lanes)
{
  JsonObject *m = json_node_get_object (item);
  JsonObject *e = json_object_get_object_member (m, "edge");
  guint h = 0;
  static const gchar *const ends[] = { "id", "source", "target" };
  for (guint i = 0; e != NULL && i < G_N_ELEMENTS (ends); i++)
    {
      JsonNode *v = json_object_get_member (e, ends[i]);
      if (v == NULL || !JSON_NODE_HOLDS_VALUE (v))
        continue;
      g_autofree gchar *text = json_node_get_value_type (v) == G_TYPE_STRING
                                   ? g_strdup (json_node_get_string (v))
                                   : g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (v));
      h = h * 31 + g_str_hash (text);
    }
  return h % lanes;
}

/* One lane of a replay: its share of every label batch, in WAL order. */
typedef struct {
  AbEngine *engine;
  const Counts *n;
  GPtrArray *batches; /* LabelBatch* */
  gboolean ok;
  gchar *failed_label;
} Lane;

static gpointer
lane_run (gpointer data)
{
  Lane *l = data;
  l->ok = TRUE;
  for (guint i = 0; i < l->batches->len && l->ok; i++)
    if (!apply_with_retries (l->engine, l->n, l->batches->pdata[i], NULL))
      {
        l->ok = FALSE;
        l->failed_label = g_strdup (((LabelBatch *) l->batches->pdata[i])->label);
      }
  return NULL;
}

gboolean
ab_engine_replay_wal (AbEngine *engine, GPtrArray *entries, gint64 since_ms, gboolean lock,
                      guint lanes, guint64 *applied, guint64 *skipped, GError **error)
{
  const Pick pick = { .catch_up = TRUE, .since_ms = since_ms };
  atomic_uint_fast64_t done = 0, passed = 0, failed = 0;
  const Counts n = { &done, &passed, &failed, lock };
  g_autoptr (GPtrArray) batches = collect (NULL, &pick, entries);
  lanes = CLAMP (lanes, 1, 64);
  Lane *lane = g_new0 (Lane, lanes);
  for (guint k = 0; k < lanes; k++)
    {
      lane[k].engine = engine;
      lane[k].n = &n;
      lane[k].batches = g_ptr_array_new_with_free_func ((GDestroyNotify) label_batch_free);
    }
  for (guint i = 0; i < batches->len; i++)
    {
      LabelBatch *b = batches->pdata[i];
      LabelBatch **part = g_new0 (LabelBatch *, lanes);
      for (guint j = 0; j < json_array_get_length (b->items); j++)
        {
          JsonNode *item = json_array_get_element (b->items, j);
          guint k = lanes > 1 ? lane_of (item, lanes) : 0;
          if (part[k] == NULL)
            {
              part[k] = g_new0 (LabelBatch, 1);
              part[k]->label = g_strdup (b->label);
              part[k]->multi = b->multi;
              part[k]->items = json_array_new ();
              g_ptr_array_add (lane[k].batches, part[k]);
            }
          json_array_add_element (part[k]->items, json_node_ref (item));
        }
      g_free (part);
    }
  GThread **threads = g_new0 (GThread *, lanes);
  for (guint k = 1; k < lanes; k++)
    threads[k] = g_thread_new ("ab-replay", lane_run, &lane[k]);
  lane_run (&lane[0]);
  gboolean ok = TRUE;
  for (guint k = 0; k < lanes; k++)
    {
      if (k > 0)
        g_thread_join (threads[k]);
      if (ok && !lane[k].ok)
        ok = ab_engine_fail (error, AB_ENGINE_ERROR_UNAVAILABLE,
                             "records of %s still fail after 21 attempts", lane[k].failed_label);
      g_free (lane[k].failed_label);
      g_ptr_array_unref (lane[k].batches);
    }
  g_free (threads);
  g_free (lane);
  if (ok && atomic_load (&failed) > 0)
    ok = ab_engine_fail (error, AB_ENGINE_ERROR_INTERNAL,
                         "%" G_GUINT64_FORMAT " record(s) cannot be applied (see the log)",
                         (guint64) atomic_load (&failed));
  *applied += (guint64) atomic_load (&done);
  *skipped += (guint64) atomic_load (&passed);
  return ok;
}
