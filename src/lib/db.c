/* libactionbase: version, errors, options and the handle (open/close), the
 * error mapping from the layers below, and the conversions of values and
 * predicates between the public API and the engine. */
#include <string.h>
#include "lib/lib-private.h"
#include "catalog/catalog.h"
#include "codec/element.h"
#include "model/types.h"
#include "store/store.h"

const char *
ab_db_version (void)
{
  return PACKAGE_VERSION;
}

GQuark
ab_db_error_quark (void)
{
  return g_quark_from_static_string ("ab-db-error-quark");
}

gboolean
ab_lib_require (gconstpointer p, const gchar *what, GError **error)
{
  if (p != NULL)
    return TRUE;
  g_set_error (error, AB_DB_ERROR, AB_DB_ERROR_INVALID, "%s is required", what);
  return FALSE;
}

gboolean
ab_lib_names_ok (AbDb *db, const char *database, const char *table, GError **error)
{
  return ab_lib_require (db, "db", error) && ab_lib_require (database, "database", error)
         && ab_lib_require (table, "table", error);
}

gint
ab_lib_limit (guint limit)
{
  return limit == 0 ? -1 : (gint) MIN (limit, G_MAXINT);
}

void
ab_lib_propagate (GError **dst, GError *src)
{
  AbDbError code = AB_DB_ERROR_INTERNAL;
  if (src->domain == AB_ENGINE_ERROR)
    switch ((AbEngineError) src->code)
      {
        case AB_ENGINE_ERROR_BAD_REQUEST: code = AB_DB_ERROR_INVALID; break;
        case AB_ENGINE_ERROR_NOT_FOUND:
        case AB_ENGINE_ERROR_MISSING: code = AB_DB_ERROR_NOT_FOUND; break;
        case AB_ENGINE_ERROR_CONFLICT: code = AB_DB_ERROR_CONFLICT; break;
        case AB_ENGINE_ERROR_UNAVAILABLE: code = AB_DB_ERROR_UNAVAILABLE; break;
        case AB_ENGINE_ERROR_INTERNAL: code = AB_DB_ERROR_INTERNAL; break;
        case AB_ENGINE_ERROR_EXISTS: code = AB_DB_ERROR_EXISTS; break;
      }
  else if (src->domain == AB_CATALOG_ERROR)
    switch ((AbCatalogError) src->code)
      {
        case AB_CATALOG_ERROR_NOT_FOUND:
        case AB_CATALOG_ERROR_MISSING: code = AB_DB_ERROR_NOT_FOUND; break;
        case AB_CATALOG_ERROR_EXISTS: code = AB_DB_ERROR_EXISTS; break;
        case AB_CATALOG_ERROR_STORE: code = AB_DB_ERROR_UNAVAILABLE; break;
        case AB_CATALOG_ERROR_INVALID: code = AB_DB_ERROR_INVALID; break;
      }
  else if (src->domain == AB_MODEL_ERROR || src->domain == AB_CODEC_ERROR)
    code = AB_DB_ERROR_INVALID;
  else if (src->domain == AB_STORE_ERROR)
    code = AB_DB_ERROR_UNAVAILABLE;
  g_set_error_literal (dst, AB_DB_ERROR, code, src->message);
  g_error_free (src);
}

void
ab_db_options_init (AbDbOptions *opts)
{
  memset (opts, 0, sizeof *opts);
  opts->run_applier = TRUE;
}

AbDb *
ab_db_open (const char *uri, const AbDbOptions *opts, GError **error)
{
  if (!ab_lib_require (uri, "uri", error))
    return NULL;
  AbDbOptions defaults;
  ab_db_options_init (&defaults);
  if (opts == NULL)
    opts = &defaults;
  AbEngineConfig cfg;
  ab_engine_config_init (&cfg);
  if (opts->mutation_threads > 0)
    cfg.mutation_threads = opts->mutation_threads;
  if (opts->max_mutations > 0)
    cfg.max_mutations = opts->max_mutations;
  cfg.wal_uri = opts->wal_uri;
  cfg.cdc_uri = opts->cdc_uri;
  cfg.insert_merge_databases = (gchar **) opts->insert_merge_databases;
  cfg.run_applier = opts->run_applier;
  GError *local = NULL;
  AbEngine *engine = ab_engine_open (uri, &cfg, &local);
  if (engine == NULL)
    {
      ab_lib_propagate (error, local);
      return NULL;
    }
  AbDb *db = g_new0 (AbDb, 1);
  db->engine = engine;
  return db;
}

void
ab_db_close (AbDb *db)
{
  if (db == NULL)
    return;
  ab_engine_close (db->engine);
  g_free (db);
}

/* ---- values ---- */

void
ab_lib_value_view (AbDbValue in, AbValue *out)
{
  memset (out, 0, sizeof *out);
  switch (in.type)
    {
      case AB_DB_BOOL:
        out->kind = AB_VALUE_BOOL;
        out->u.b = in.u.b;
        break;
      case AB_DB_LONG:
        out->kind = AB_VALUE_INT64;
        out->u.i = in.u.l;
        break;
      case AB_DB_DOUBLE:
        out->kind = AB_VALUE_FLOAT64;
        out->u.f = in.u.d;
        break;
      case AB_DB_STRING:
      case AB_DB_JSON:
        if (in.u.s == NULL)
          break; /* a NULL string is a null value */
        out->kind = in.type == AB_DB_STRING ? AB_VALUE_STRING : AB_VALUE_JSON;
        out->u.s.data = (gchar *) in.u.s;
        out->u.s.len = strlen (in.u.s);
        break;
      default: break;
    }
}

AbDbValue
ab_lib_value_out (const AbValue *v)
{
  switch (v->kind)
    {
      case AB_VALUE_BOOL: return ab_db_bool (v->u.b);
      case AB_VALUE_INT8:
      case AB_VALUE_INT16:
      case AB_VALUE_INT32:
      case AB_VALUE_INT64: return ab_db_long (v->u.i);
      case AB_VALUE_FLOAT32:
      case AB_VALUE_FLOAT64: return ab_db_double (v->u.f);
      case AB_VALUE_STRING: return ab_db_string (v->u.s.data);
      case AB_VALUE_JSON: return ab_db_json (v->u.s.data);
      default: return ab_db_null ();
    }
}

AbRangeSpec *
ab_lib_specs (const AbDbPredicate *preds, guint n, AbValue **storage)
{
  guint total = 0;
  for (guint i = 0; i < n; i++)
    total += preds[i].values != NULL ? preds[i].n_values : 0;
  AbRangeSpec *specs = g_new0 (AbRangeSpec, MAX (n, 1));
  AbValue *vals = *storage = g_new0 (AbValue, MAX (total, 1));
  for (guint i = 0, at = 0; i < n; i++)
    {
      specs[i].field = preds[i].field;
      specs[i].op = (AbPredOp) preds[i].op;
      specs[i].values = &vals[at];
      specs[i].n_values = preds[i].values != NULL ? preds[i].n_values : 0;
      for (guint k = 0; k < specs[i].n_values; k++)
        ab_lib_value_view (preds[i].values[k], &vals[at++]);
    }
  return specs;
}

gboolean
ab_lib_ranges_text (const AbDbPredicate *preds, guint n, gchar **out, GError **error)
{
  static const gchar *const ops[] = { "eq", "gt", "gte", "lt", "lte", "bt", "in" };
  g_autoptr (GString) s = g_string_new (NULL);
  *out = NULL;
  for (guint i = 0; i < n; i++)
    {
      const AbDbPredicate *p = &preds[i];
      if (p->field == NULL || (guint) p->op >= G_N_ELEMENTS (ops) || strpbrk (p->field, ":;"))
        return g_set_error (error, AB_DB_ERROR, AB_DB_ERROR_INVALID, "invalid range term %u", i),
               FALSE;
      g_string_append_printf (s, "%s%s:%s:", i > 0 ? ";" : "", p->field, ops[p->op]);
      for (guint k = 0; k < p->n_values; k++)
        {
          AbValue v;
          ab_lib_value_view (p->values[k], &v);
          g_autofree gchar *text = ab_value_to_string (&v);
          if (strpbrk (text, ";,") != NULL)
            return g_set_error (error, AB_DB_ERROR, AB_DB_ERROR_INVALID,
                                "range value '%s' of '%s' holds ';' or ',' (not supported here)",
                                text, p->field),
                   FALSE;
          g_string_append_printf (s, "%s%s", k > 0 ? "," : "", text);
        }
    }
  *out = s->len > 0 ? g_string_free (g_steal_pointer (&s), FALSE) : NULL;
  return TRUE;
}
