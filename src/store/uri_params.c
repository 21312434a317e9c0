/* The URI parameters the local backends share (lmdb:, rocksdb:): sizes with
 * a binary unit and 0/1 flags, so that both parse and refuse them alike and
 * their messages stay in the backend that names the parameter. */
#include "store/backend.h"

#include <string.h>

gchar *
ab_store_uri_parse (const gchar *rest, const gchar *shape, AbStoreUriParam param, gpointer options,
                    GError **error)
{
  const gchar *q = strchr (rest, '?');
  g_autofree gchar *dir = q ? g_strndup (rest, q - rest) : g_strdup (rest);
  if (dir[0] == '\0')
    {
      g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_URI, "%.*s URI needs a directory: %s",
                   (int) strcspn (shape, ":"), shape, shape);
      return NULL;
    }
  g_auto (GStrv) params = q != NULL ? g_strsplit (q + 1, "&", -1) : NULL;
  for (guint i = 0; params != NULL && params[i] != NULL; i++)
    if (!param (params[i], options, error))
      return NULL;
  return g_steal_pointer (&dir);
}

gboolean
ab_store_parse_size (const gchar *text, gsize *out)
{
  gchar *end = NULL;
  guint64 n;
  guint shift = 0;
  if (!g_ascii_isdigit (text[0]))
    return FALSE;
  n = g_ascii_strtoull (text, &end, 10);
  switch (g_ascii_tolower (*end))
    {
      case '\0': break;
      case 'k':
        shift = 10;
        end++;
        break;
      case 'm':
        shift = 20;
        end++;
        break;
      case 'g':
        shift = 30;
        end++;
        break;
      default: return FALSE;
    }
  if (*end != '\0' || n == 0 || n > (G_MAXSIZE >> shift))
    return FALSE;
  *out = (gsize) n << shift;
  return TRUE;
}

gboolean
ab_store_parse_flag (const gchar *param, const gchar *name, gboolean *flag)
{
  gsize n = strlen (name);
  if (strncmp (param, name, n) != 0 || param[n] != '='
      || (param[n + 1] != '0' && param[n + 1] != '1') || param[n + 2] != '\0')
    return FALSE;
  *flag = param[n + 1] == '1';
  return TRUE;
}
