/* The lmdb backend's URI: lmdb:DIR[?mapsize=BYTES[k|m|g]&sync=0|1&writemap=0|1]
 * into the directory and the options of ab_store_lmdb_new; store.c hands
 * over what follows "lmdb:". */
#include "store/lmdb/lmdb-private.h"

#include <string.h>

/* Default map size of a new lmdb environment (grown on demand). */
#define AB_LMDB_DEFAULT_MAPSIZE ((gsize) 1 << 30)

static gboolean
parse_param (const gchar *param, gpointer options, GError **error)
{
  AbLmdbOptions *o = options;
  if (g_str_has_prefix (param, "mapsize=")
          ? ab_store_parse_size (param + 8, &o->mapsize)
          : ab_store_parse_flag (param, "sync", &o->sync)
                || ab_store_parse_flag (param, "writemap", &o->writemap))
    return TRUE;
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_URI,
               "bad lmdb URI parameter '%s' (expected mapsize=BYTES[k|m|g], sync=0|1 or "
               "writemap=0|1)",
               param);
  return FALSE;
}

AbStore *
ab_store_lmdb_open (const gchar *uri, const gchar *rest, GError **error)
{
  AbLmdbOptions o = { .mapsize = AB_LMDB_DEFAULT_MAPSIZE, .sync = TRUE };
  (void) uri;
  g_autofree gchar *dir = ab_store_uri_parse (
      rest, "lmdb:DIR[?mapsize=BYTES&sync=0|1&writemap=0|1]", parse_param, &o, error);
  return dir != NULL ? ab_store_lmdb_new (dir, &o, error) : NULL;
}
