/* The one printf-style GError setter every layer builds its own on
 * (ab_model_invalid, ab_engine_fail, the catalog's): sets domain/code with
 * the formatted message and returns FALSE, so a caller can `return ab_fail (...)`. */
#pragma once
#include <stdarg.h>
#include <glib.h>

gboolean ab_fail (GError **error, GQuark domain, gint code, const gchar *fmt, ...)
    G_GNUC_PRINTF (4, 5);
gboolean ab_fail_valist (GError **error, GQuark domain, gint code, const gchar *fmt, va_list ap)
    G_GNUC_PRINTF (4, 0);
