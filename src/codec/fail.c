/* ab_fail: the shared printf-style GError setter returning FALSE. A NULL
 * error is allowed (the message is then dropped), as with g_set_error; the
 * message is set literally, so a '%' in it is never read as a format. */
#include "codec/fail.h"

gboolean
ab_fail_valist (GError **error, GQuark domain, gint code, const gchar *fmt, va_list ap)
{
  if (error == NULL)
    return FALSE;
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  g_set_error_literal (error, domain, code, msg);
  return FALSE;
}

gboolean
ab_fail (GError **error, GQuark domain, gint code, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  ab_fail_valist (error, domain, code, fmt, ap);
  va_end (ap);
  return FALSE;
}
