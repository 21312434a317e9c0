/* The engine's core shared by every engine folder: its error domain and
 * the mapping of other layers' errors, the catalog and store it runs on, table
 * resolution, the INSERT_MERGE lookup, the clock and the write budget. */
#include <stdarg.h>
#include "engine/core/core.h"
#include "model/types.h"
#include "codec/fail.h"
#include "codec/bytes.h"

G_DEFINE_QUARK (ab - engine - error - quark, ab_engine_error)

gboolean
ab_engine_fail (GError **error, AbEngineError code, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  ab_fail_valist (error, AB_ENGINE_ERROR, code, fmt, ap);
  va_end (ap);
  return FALSE;
}

void
ab_engine_propagate (GError **dst, GError *src)
{
  AbEngineError code = AB_ENGINE_ERROR_INTERNAL;
  if (src->domain == AB_ENGINE_ERROR)
    code = src->code;
  else if (src->domain == AB_MODEL_ERROR || src->domain == AB_CODEC_ERROR)
    code = AB_ENGINE_ERROR_BAD_REQUEST;
  else if (src->domain == AB_CATALOG_ERROR)
    code = src->code == AB_CATALOG_ERROR_STORE     ? AB_ENGINE_ERROR_UNAVAILABLE
           : src->code == AB_CATALOG_ERROR_MISSING ? AB_ENGINE_ERROR_MISSING
           : src->code == AB_CATALOG_ERROR_EXISTS  ? AB_ENGINE_ERROR_EXISTS
                                                   : AB_ENGINE_ERROR_BAD_REQUEST;
  else if (src->domain == AB_STORE_ERROR)
    code = AB_ENGINE_ERROR_UNAVAILABLE;
  g_set_error_literal (dst, AB_ENGINE_ERROR, code, src->message);
  g_error_free (src);
}

AbCatalog *
ab_engine_catalog (AbEngine *engine)
{
  return engine->catalog;
}

AbStore *
ab_engine_store (AbEngine *engine)
{
  return engine->store;
}

gboolean
ab_engine_refresh (AbEngine *engine, GError **error)
{
  GError *local = NULL;
  if (ab_catalog_refresh (engine->catalog, &local))
    return TRUE;
  ab_engine_propagate (error, local);
  return FALSE;
}

AbTableDesc *
ab_engine_resolve (AbEngine *engine, const gchar *db, const gchar *name, gchar **alias_out,
                   GError **error)
{
  AbTableDesc *t = ab_catalog_resolve (engine->catalog, db, name, alias_out, NULL);
  if (t != NULL)
    return t;
  /* Another process may have created it: refresh once, then decide. */
  GError *local = NULL;
  if (!ab_catalog_refresh (engine->catalog, &local))
    {
      ab_engine_fail (error, AB_ENGINE_ERROR_UNAVAILABLE, "the store is unavailable: %s",
                      local->message);
      g_error_free (local);
      return NULL;
    }
  t = ab_catalog_resolve (engine->catalog, db, name, alias_out, &local);
  if (t == NULL)
    ab_engine_fail (error, AB_ENGINE_ERROR_MISSING, "%s", local->message);
  g_clear_error (&local);
  return t;
}

gboolean
ab_engine_insert_merge (AbEngine *engine, const gchar *db)
{
  return engine->cfg.insert_merge_databases != NULL
         && g_strv_contains ((const gchar *const *) engine->cfg.insert_merge_databases, db);
}

gint64
ab_engine_now_ms (AbEngine *engine)
{
  if (engine->cfg.now_ms != NULL)
    return engine->cfg.now_ms (engine->cfg.now_data);
  return g_get_real_time () / 1000;
}

gboolean
ab_engine_deadline_passed (gint64 deadline_us)
{
  return deadline_us != 0 && g_get_monotonic_time () >= deadline_us;
}

gboolean
ab_engine_scan_due (AbEngine *engine, const guint8 *prefix, gsize plen, gint64 now, guint max,
                    GArray *out, GError **error)
{
  g_autofree guint8 *stop = g_malloc (plen + 8);
  memcpy (stop, prefix, plen);
  ab_codec_put_be64 (stop + plen, now + 1);
  AbScanRange range = { .start = prefix,
                        .start_len = plen,
                        .start_inclusive = TRUE,
                        .stop = stop,
                        .stop_len = plen + 8,
                        .limit = max };
  return ab_store_scan (engine->store, &range, out, error);
}
