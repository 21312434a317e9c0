/* The import's key order for a window of JSON Lines edges: records sorted by
 * (source, target), stably, when every record's key is known exactly from the
 * fast scanner; see docs/data-tools.md, "Bulk import". */
#pragma once
#include <glib.h>
#include "model/types.h"

/* Orders the n records texts[0..n-1] (NUL-terminated JSON Lines; read, not
 * modified) of an EDGE table by their (source, target) keys. TRUE: order[]
 * holds the record indexes in key order, equal keys in record order, and
 * same[i] says whether order[i] has the key of order[i-1] (same[0] FALSE).
 * FALSE when any record's key cannot be compared exactly without the full
 * parse (escapes, a fraction, a value of another type than the schema's, a
 * missing source or target, a line the scanner leaves to json-glib): the
 * window then keeps its file order. */
gboolean ab_import_sort_window (const gchar *const *texts, guint n, AbType source_type,
                                AbType target_type, guint *order, gboolean *same);
