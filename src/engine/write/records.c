/* WAL and CDC record values (docs/data-model.md §13): one WAL record per event,
 * written before processing, and one CDC record per applied key, built from
 * the event it folded last with before/after states and the count
 * delta. Keys are "<src>:<tgt>" ("<id>:-" for a vertex, whose records are
 * those of the edge (id, "-")). */
#include <string.h>
#include "engine/write/write.h"
#include "model/types.h"
#include "model/jsonw.h"

static const gchar *
mode_or_null (gint mode)
{
  return mode < 0 ? NULL : ab_mode_name ((AbMutationMode) mode);
}

/* {l, g, r, i, queue}: table, global (system), request, internal modes. */
static void
add_mode (AbJsonw *b, const AbWalContext *ctx)
{
  ab_jsonw_key (b, "mode");
  ab_jsonw_begin_object (b);
  ab_jsonw_member_string (b, "l", ab_mode_name (ctx->table_mode));
  ab_jsonw_member_string (b, "g", mode_or_null (ctx->system_mode));
  ab_jsonw_member_string (b, "r", ctx->opts->sync_request ? "SYNC" : NULL);
  ab_jsonw_member_string (b, "i", ctx->opts->internal ? "SYNC" : NULL);
  ab_jsonw_member_bool (b, "queue", ctx->queued);
  ab_jsonw_end_object (b);
}

/* The fields every record shares after the type-specific ones. */
static void
add_trailer (AbEngine *engine, AbJsonw *b, const AbWalContext *ctx, gboolean cdc)
{
  ab_jsonw_key (b, "audit");
  ab_jsonw_begin_object (b);
  ab_jsonw_member_string (b, "actor", ctx->opts->actor != NULL ? ctx->opts->actor : "-");
  ab_jsonw_end_object (b);
  ab_jsonw_member_string (b, "requestId",
                          ctx->opts->request_id != NULL ? ctx->opts->request_id : "-");
  ab_jsonw_member_int (b, "ts", ab_engine_now_ms (engine));
  g_autofree gchar *label = g_strdup_printf ("%s.%s", ctx->table->database, ctx->table->table);
  g_autofree gchar *alias
      = ctx->alias != NULL ? g_strdup_printf ("%s.%s", ctx->table->database, ctx->alias) : NULL;
  ab_jsonw_member_string (b, "alias",
                          cdc && g_strcmp0 (ctx->alias, ctx->table->table) == 0 ? NULL : alias);
  ab_jsonw_member_string (b, "label", label);
  ab_jsonw_member_string (b, "version", "2");
  ab_jsonw_member_string (b, "phase", engine->cfg.phase);
  ab_jsonw_member_string (b, "tenant", engine->cfg.tenant);
}

static const AbValue *
slot_of (const AbTableDesc *t, const AbEventProp *props, const gchar *name)
{
  gint pos = ab_schema_field_pos (t->schema, name);
  return pos >= 0 && props[pos].present ? &props[pos].value : NULL;
}

/* edge = {ts, src, tgt, props, traceId}; multi-edge src/tgt are _source and
 * _target ("0" when absent) and props carry _id. */
static void
add_event_edge (AbJsonw *b, const AbTableDesc *t, const AbKeyGroup *g, const AbEvent *ev,
                const gchar *trace)
{
  gboolean multi = t->schema->kind == AB_TABLE_MULTI_EDGE;
  ab_jsonw_key (b, "edge");
  ab_jsonw_begin_object (b);
  ab_jsonw_member_int (b, "ts", ev->version);
  if (multi)
    {
      const AbValue *s = slot_of (t, ev->props, "_source"), *d = slot_of (t, ev->props, "_target");
      static const AbValue zero = { .kind = AB_VALUE_STRING, .u.s = { (gchar *) "0", 1 } };
      ab_jsonw_member_value (b, "src", s != NULL ? s : &zero);
      ab_jsonw_member_value (b, "tgt", d != NULL ? d : &zero);
    }
  else
    {
      ab_jsonw_member_value (b, "src", &g->source);
      ab_jsonw_member_value (b, "tgt", &g->target);
    }
  ab_jsonw_key (b, "props");
  ab_jsonw_begin_object (b);
  for (guint f = 0; f < ev->n; f++)
    {
      const AbField *field = t->schema->fields->pdata[f];
      if (ev->props[f].present && field->name[0] != '_')
        ab_jsonw_member_value (b, field->name, &ev->props[f].value);
    }
  if (multi)
    ab_jsonw_member_value (b, "_id", &g->source);
  ab_jsonw_end_object (b);
  ab_jsonw_member_string (b, "traceId", trace);
  ab_jsonw_end_object (b);
}

static AbSinkRecord *
finish_record (AbJsonw *b, const AbTableDesc *t, const AbKeyGroup *g)
{
  ab_jsonw_end_object (b);
  g_autofree gchar *key = ab_key_group_record_key (t, g);
  return ab_sink_record_new (key, b->out->str);
}

GPtrArray *
ab_engine_wal_records (AbEngine *engine, const AbWalContext *ctx, GPtrArray *groups)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) ab_sink_record_free);
  for (guint i = 0; i < groups->len; i++)
    {
      const AbKeyGroup *g = groups->pdata[i];
      for (guint e = 0; e < g->events->len; e++)
        {
          const AbEvent *ev = g->events->pdata[e];
          gchar trace[27];
          ab_ulid_new (trace);
          g_auto (AbJsonw) b;
          ab_jsonw_init (&b, 512);
          ab_jsonw_begin_object (&b);
          add_event_edge (&b, ctx->table, g, ev, trace);
          ab_jsonw_member_string (&b, "op", ab_op_name (ev->type));
          add_mode (&b, ctx);
          add_trailer (engine, &b, ctx, FALSE);
          g_ptr_array_add (out, finish_record (&b, ctx->table, g));
        }
    }
  return out;
}

/* before/after = {ts, src, tgt, props, active}, or null for the initial state. */
static void
add_state (AbJsonw *b, const gchar *name, const AbTableDesc *t, const AbKeyGroup *g,
           const AbState *st)
{
  ab_jsonw_key (b, name);
  if (st == NULL || ab_state_is_initial (st))
    {
      ab_jsonw_null (b);
      return;
    }
  ab_jsonw_begin_object (b);
  ab_jsonw_member_int (b, "ts", st->meta.version);
  ab_jsonw_member_value (b, "src", &g->source);
  ab_jsonw_member_value (b, "tgt",
                         t->schema->kind == AB_TABLE_MULTI_EDGE ? &g->source : &g->target);
  ab_jsonw_key (b, "props");
  ab_jsonw_begin_object (b);
  static const AbValue null_value = AB_VALUE_INIT;
  for (guint f = 0; f < st->n; f++)
    if (st->slots[f].kind != AB_SLOT_ABSENT)
      ab_jsonw_member_value (b, ((AbField *) t->schema->fields->pdata[f])->name,
                             st->slots[f].kind == AB_SLOT_VALUE ? &st->slots[f].value
                                                                : &null_value);
  ab_jsonw_end_object (b);
  ab_jsonw_member_bool (b, "active", st->meta.active);
  ab_jsonw_end_object (b);
}

AbSinkRecord *
ab_engine_cdc_record (AbEngine *engine, const AbWalContext *ctx, const AbKeyGroup *g,
                      const AbKeyResult *r, const AbState *before, const AbState *after)
{
  const AbEvent *last = ab_events_last_folded (g->events);
  g_auto (AbJsonw) b;
  ab_jsonw_init (&b, 1024);
  ab_jsonw_begin_object (&b);
  add_event_edge (&b, ctx->table, g, last, NULL);
  ab_jsonw_member_string (&b, "op", ab_op_name (last->type));
  ab_jsonw_member_string (&b, "status", ab_key_status_name (r->status));
  add_state (&b, "before", ctx->table, g, before);
  add_state (&b, "after", ctx->table, g, after);
  /* a purge of a deleted edge is DELETED and moves no count */
  ab_jsonw_member_int (&b, "acc", (gint) after->meta.active - (gint) before->meta.active);
  ab_jsonw_member_string (&b, "message", r->message);
  add_trailer (engine, &b, ctx, TRUE);
  return finish_record (&b, ctx->table, g);
}
