/* What the two queue/v1 forms (queue.c, queue_db.c) share inside
 * src/engine/queue and nowhere else: finding a queue's table. The folder's
 * face to others is queue.h. */
#pragma once
#include "engine/core/core.h"
#include "engine/queue/queue.h"

/* A queue's table (a reference), the catalog reloaded once on a miss (a
 * queue made on another node); NULL when there is none. */
AbTableDesc *ab_queue_lookup (AbEngine *engine, const gchar *db, const gchar *table);
