/* The import's order for events that tie: two batches in flight holding an
 * event of the same key at the same version apply in file order (the later
 * one folded wins, docs/data-model.md §2.3); every other pair at once. */
#pragma once
#include <glib.h>
#include "engine/engine.h"

typedef struct _AbImportTies AbImportTies;

AbImportTies *ab_import_ties_new (void);
void ab_import_ties_free (AbImportTies *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AbImportTies, ab_import_ties_free)

/* Chunk seq is queued: called by the one reader, in seq order, before any
 * worker can take the chunk. */
void ab_import_ties_add (AbImportTies *t, guint64 seq);
/* The (key, version) marks of n parsed items: a hash of the id (when set,
 * else source and target) and the version, sorted. */
GArray *ab_import_ties_marks (const AbMutationItem *items, guint n);
/* Publishes chunk seq's marks (taken) and waits until every chunk before it
 * still in flight has published its marks and shares none with them. */
void ab_import_ties_ready (AbImportTies *t, guint64 seq, GArray *marks);
/* Chunk seq is done (applied, failed or skipped): the chunks after it that
 * wait for it go on. */
void ab_import_ties_done (AbImportTies *t, guint64 seq);
