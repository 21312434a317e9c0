/* Small helpers the actionbase-admin commands share: a GError from a printf
 * format, whether a store holds any row at all, the fsync of a directory after
 * a rename into it, and an integer member of the JSON files they write. */
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>
#include <json-glib/json-glib.h>
#include "admin/admin-private.h"
#include "store/store.h"

gboolean
ab_admin_fail (GError **error, GQuark domain, gint code, const gchar *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error_literal (error, domain, code, msg);
  return FALSE;
}

gboolean
ab_admin_store_is_empty (AbStore *store, gboolean *empty, GError **error)
{
  AbScanRange all = { .limit = 1 };
  g_autoptr (GArray) rows = ab_kv_array_new ();
  if (!ab_store_scan (store, &all, rows, error))
    return FALSE;
  *empty = rows->len == 0;
  return TRUE;
}

void
ab_admin_sync_dir (const gchar *dir)
{
  int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
}

void
ab_admin_json_int (JsonBuilder *b, const gchar *name, gint64 value)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, value);
}
