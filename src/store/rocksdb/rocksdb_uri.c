/* The rocksdb backend's URI: rocksdb:DIR[?memory=BYTES[k|m|g]&sync=0|1&readonly=0|1]
 * into the directory and the options of ab_store_rocksdb_new; store.c hands
 * over what follows "rocksdb:". */
#include "store/rocksdb/rocksdb-private.h"

#include <string.h>

/* The default budget of block cache and memtables (rocksdb-memory). */
#define AB_ROCKS_DEFAULT_MEMORY ((gsize) 256 << 20)

static gboolean
parse_param (const gchar *param, gpointer options, GError **error)
{
  AbRocksOptions *o = options;
  if (g_str_has_prefix (param, "memory=")
          ? ab_store_parse_size (param + 7, &o->memory)
          : ab_store_parse_flag (param, "sync", &o->sync)
                || ab_store_parse_flag (param, "readonly", &o->readonly))
    return TRUE;
  g_set_error (error, AB_STORE_ERROR, AB_STORE_ERROR_URI,
               "bad rocksdb URI parameter '%s' (expected memory=BYTES[k|m|g], sync=0|1 or "
               "readonly=0|1)",
               param);
  return FALSE;
}

AbStore *
ab_store_rocksdb_open (const gchar *uri, const gchar *rest, GError **error)
{
  AbRocksOptions o = { .memory = AB_ROCKS_DEFAULT_MEMORY, .sync = TRUE };
  (void) uri;
  g_autofree gchar *dir = ab_store_uri_parse (
      rest, "rocksdb:DIR[?memory=BYTES&sync=0|1&readonly=0|1]", parse_param, &o, error);
  return dir != NULL ? ab_store_rocksdb_new (dir, &o, error) : NULL;
}
