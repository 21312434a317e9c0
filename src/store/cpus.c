/* How many cores this process may use (cpus.h): the CPUs of its affinity
 * mask (taskset, a cpuset), capped by the CPU quota of its cgroup v2 and the
 * cgroups above it (docker --cpus). */
#include <sched.h>
#include <string.h>
#include "store/cpus.h"

/* The quota of one cpu.max file ("QUOTA PERIOD" or "max PERIOD") in cores,
 * rounded up; 0 when there is none or the file cannot be read. */
static guint
cpu_max_cores (const gchar *path)
{
  g_autofree gchar *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  g_auto (GStrv) parts = g_strsplit_set (g_strstrip (text), " \t", -1);
  if (g_strv_length (parts) != 2 || g_str_equal (parts[0], "max"))
    return 0;
  guint64 quota = 0, period = 0;
  if (!g_ascii_string_to_unsigned (parts[0], 10, 1, G_MAXUINT32, &quota, NULL)
      || !g_ascii_string_to_unsigned (parts[1], 10, 1, G_MAXUINT32, &period, NULL))
    return 0;
  return (guint) MAX (1, (quota + period - 1) / period);
}

guint
ab_cgroup_cpu_limit (const gchar *cgroup_root, const gchar *self_cgroup)
{
  /* cgroup v2 names the process's group on the line "0::/path". */
  const gchar *line = self_cgroup;
  while (line != NULL && !g_str_has_prefix (line, "0::/"))
    {
      line = strchr (line, '\n');
      line = line != NULL ? line + 1 : NULL;
    }
  if (line == NULL)
    return 0;
  g_autofree gchar *rel = g_strndup (line + 3, strcspn (line + 3, "\n"));
  guint limit = 0;
  /* The group itself and every group above it up to the root: the tightest
   * quota wins. */
  for (;;)
    {
      g_autofree gchar *path = g_build_filename (cgroup_root, rel, "cpu.max", NULL);
      guint cores = cpu_max_cores (path);
      if (cores != 0 && (limit == 0 || cores < limit))
        limit = cores;
      gchar *slash = strrchr (rel, '/');
      if (slash == NULL || rel[1] == '\0')
        break;
      slash[slash == rel ? 1 : 0] = '\0';
    }
  return limit;
}

guint
ab_usable_cpus (void)
{
  guint cores = MAX (1, g_get_num_processors ());
  cpu_set_t set;
  CPU_ZERO (&set);
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    cores = MIN (cores, (guint) CPU_COUNT (&set));
  g_autofree gchar *self = NULL;
  if (g_file_get_contents ("/proc/self/cgroup", &self, NULL, NULL))
    {
      guint quota = ab_cgroup_cpu_limit ("/sys/fs/cgroup", self);
      if (quota != 0)
        cores = MIN (cores, quota);
    }
  return cores;
}
