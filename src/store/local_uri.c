/* What a tool above the store may ask of a local store (lmdb:DIR, rocksdb:DIR)
 * without naming its backend: the directory its URI names, whether its commits
 * wait for ab_store_sync (sync=0), and the URI its native copy is read by. */
#include "store/store.h"
#include "store/backend.h"

#include <stdlib.h>
#include <string.h>

/* The backends that live in a directory: SCHEME:DIR[?PARAMS]. */
static const gchar *const local_schemes[] = { "lmdb:", "rocksdb:" };

/* What follows the scheme of a local store's URI, or NULL. */
static const gchar *
local_rest (const gchar *uri)
{
  for (guint i = 0; i < G_N_ELEMENTS (local_schemes); i++)
    if (g_str_has_prefix (uri, local_schemes[i]))
      return uri + strlen (local_schemes[i]);
  return NULL;
}

gchar *
ab_store_uri_dir (const gchar *uri)
{
  g_return_val_if_fail (uri != NULL, NULL);
  const gchar *rest = local_rest (uri);
  if (rest == NULL)
    return NULL;
  g_autofree gchar *dir = g_strndup (rest, strcspn (rest, "?"));
  gchar *real = realpath (dir, NULL);
  return real != NULL ? real : g_steal_pointer (&dir);
}

gboolean
ab_store_uri_defers_sync (const gchar *uri)
{
  g_return_val_if_fail (uri != NULL, FALSE);
  const gchar *rest = local_rest (uri);
  const gchar *q = rest != NULL ? strchr (rest, '?') : NULL;
  if (q == NULL)
    return FALSE;
  g_auto (GStrv) params = g_strsplit (q + 1, "&", -1);
  gboolean sync = TRUE; /* the last sync= wins, as the backends parse it */
  for (guint i = 0; params[i] != NULL; i++)
    ab_store_parse_flag (params[i], "sync", &sync);
  return !sync;
}

gchar *
ab_store_native_uri (AbStore *s, const gchar *dir)
{
  g_return_val_if_fail (s != NULL && dir != NULL, NULL);
  const gchar *params = s->vt->native_read_params;
  return g_strdup_printf ("%s:%s%s%s", s->vt->name, dir, params != NULL ? "?" : "",
                          params != NULL ? params : "");
}
