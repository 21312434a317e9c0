/* Private to src/store/: the constructors of each backend, called by the URI
 * dispatch in store.c. A backend fills vt and batch_atomic; store.c owns uri
 * and counters and frees them before calling vt->close, which frees the rest. */
#pragma once
#include "store/store.h"

/* Default map size of a new lmdb environment (grown on demand). */
#define AB_LMDB_DEFAULT_MAPSIZE ((gsize) 1 << 30)

AbStore *ab_store_memory_new (void);
AbStore *ab_store_lmdb_new (const gchar *dir, gsize mapsize, gboolean sync, GError **error);
/* hbase://... (hbase.c); connects lazily. */
AbStore *ab_store_hbase_new (const gchar *uri, GError **error);

/* For transact implementations: every key of b is non-empty and, when
 * max_key > 0, at most max_key bytes; else FALSE with the reason. */
gboolean ab_backend_check_batch (const AbBatch *b, gsize max_key, GError **error);
