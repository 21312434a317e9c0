/* lib-bench's bare-RocksDB baseline: the INSERT's rows written with no engine
 * (tests/bench/rocks-floor.c). Not part of the product: the bench links
 * librocksdb directly to measure the floor under the library. */
#pragma once

#include <glib.h>

typedef struct {
  gboolean sync; /* each batch synced */
  gboolean gets; /* a State get per edge before its rows */
} AbBenchFloor;

typedef struct {
  gdouble edges_per_s;
  gdouble cpu_us_per_edge; /* the process's CPU, RocksDB's threads included,
                            * from the first write to the close */
} AbBenchRate;

/* CPU seconds this process has used, every thread included. */
gdouble ab_bench_cpu_seconds (void);

/* Writes edges 0 .. n_edges-1 (edge e: users[e % n_users] likes
 * items[e / n_users]) into a new RocksDB at dir from this thread, in batches
 * of batch edges: per edge State and two Index puts, and a Count put per node
 * and batch (a node's adds folded into one write), as how says.
 * (Two writers taking turns measured slower than one on 2 cores.) */
AbBenchRate ab_bench_rocks_floor (const gchar *dir, gchar **users, guint n_users, gchar **items,
                                  guint n_edges, guint batch, const AbBenchFloor *how);
