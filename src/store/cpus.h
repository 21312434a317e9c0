/* The cores this process may use (cpus.c): for the default numbers of HTTP
 * loops and workers (rest) and of RocksDB's background jobs (store), which
 * all must follow taskset, cpusets and a container's CPU quota. */
#pragma once
#include <glib.h>

/* The cores this process may run on: its CPU affinity (taskset, cpusets),
 * capped by its cgroup v2 CPU quota rounded up; at least 1. */
guint ab_usable_cpus (void);
/* The tightest cpu.max quota, in cores rounded up, of the cgroup named on the
 * "0::/path" line of self_cgroup (/proc/self/cgroup's text) and of the groups
 * above it, under cgroup_root; 0 when none sets one. */
guint ab_cgroup_cpu_limit (const gchar *cgroup_root, const gchar *self_cgroup);
