/* actionbased settings: the value parsers, the config file groups, and the
 * precedence of flags over the file over the defaults. */
#include <check.h>
#include <sched.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include "server/config.h"
#include "rest/http.h"
#include "ab_check.h"

START_TEST (test_parse_listen)
{
  g_autofree gchar *h1 = NULL, *h2 = NULL, *h3 = NULL, *h4 = NULL;
  gchar *bad = NULL;
  guint16 port = 0;
  ck_assert (ab_server_parse_listen ("10.0.0.1:9090", &h1, &port, NULL));
  ck_assert_str_eq (h1, "10.0.0.1");
  ck_assert_uint_eq (port, 9090);
  ck_assert (ab_server_parse_listen ("[::1]:8081", &h2, &port, NULL));
  ck_assert_str_eq (h2, "::1");
  ck_assert_uint_eq (port, 8081);
  ck_assert (ab_server_parse_listen (":80", &h3, &port, NULL));
  ck_assert_str_eq (h3, "0.0.0.0");
  ck_assert (ab_server_parse_listen ("0", &h4, &port, NULL));
  ck_assert_str_eq (h4, "127.0.0.1");
  ck_assert_uint_eq (port, 0);
  ck_assert (!ab_server_parse_listen ("host:99999", &bad, &port, NULL));
  ck_assert (!ab_server_parse_listen ("::1:80", &bad, &port, NULL));
  ck_assert (!ab_server_parse_listen ("host:", &bad, &port, NULL));
  ck_assert (!ab_server_parse_listen ("", &bad, &port, NULL));
  ck_assert_ptr_null (bad);
}
END_TEST

START_TEST (test_parse_size_and_level)
{
  gsize n = 0;
  GLogLevelFlags level = 0;
  g_autoptr (GError) error = NULL;
  ck_assert (ab_server_parse_size ("1024", &n, NULL));
  ck_assert_uint_eq (n, 1024);
  ck_assert (ab_server_parse_size ("10M", &n, NULL));
  ck_assert_uint_eq (n, 10 * 1024 * 1024);
  ck_assert (ab_server_parse_size ("2kib", &n, NULL));
  ck_assert_uint_eq (n, 2048);
  ck_assert (!ab_server_parse_size ("0", &n, NULL));
  ck_assert (!ab_server_parse_size ("-5", &n, NULL));
  ck_assert (!ab_server_parse_size ("10X", &n, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "10X"));
  ck_assert (ab_server_parse_log_level ("WARNING", &level, NULL));
  ck_assert_int_eq (level, G_LOG_LEVEL_WARNING);
  ck_assert (ab_server_parse_log_level ("debug", &level, NULL));
  ck_assert_int_eq (level, G_LOG_LEVEL_DEBUG);
  ck_assert (!ab_server_parse_log_level ("loud", &level, NULL));
}
END_TEST

static gchar *
write_config (const gchar *text)
{
  gchar *path = NULL;
  g_autoptr (GError) error = NULL;
  int fd = g_file_open_tmp ("ab-config-XXXXXX.ini", &path, &error);
  ck_assert_int_ge (fd, 0);
  close (fd);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

START_TEST (test_file_then_flags)
{
  g_autofree gchar *path = write_config (
      "[server]\nlisten=0.0.0.0:9000\nstore=memory:\nworkers=3\nhttp-threads=2\n"
      "max-body=1M\nlog-level=warning\ndrain-timeout-ms=500\nwal-ephemeral=true\nread-only=true\n"
      "[engine]\nlock-retries=7\nlock-stale-ms=1000\nmax-scan-limit=50\n"
      "insert-merge-databases=a;b\napplier=false\nheal=false\nheal-retry-ms=250\n"
      "heal-sweep-ms=0\nwrite-budget-ms=2500\n");
  AbServerConfig cfg;
  AbEngineConfig engine;
  g_autoptr (GError) error = NULL;
  ab_engine_config_init (&engine);
  ab_server_config_init (&cfg);
  ck_assert (engine.run_applier);
  ck_assert (engine.heal);
  ck_assert_uint_eq (engine.heal_retry_ms, 1000);
  ck_assert_uint_eq (engine.heal_sweep_ms, 600000);
  ck_assert_uint_eq (engine.write_budget_ms, 4000);
  ck_assert (!cfg.wal_ephemeral);
  ck_assert_msg (ab_server_config_load_file (&cfg, &engine, path, &error), "%s",
                 error ? error->message : "");
  ck_assert_str_eq (cfg.http.host, "0.0.0.0");
  ck_assert_uint_eq (cfg.http.port, 9000);
  ck_assert_str_eq (cfg.store_uri, "memory:");
  ck_assert_uint_eq (cfg.http.workers, 3);
  ck_assert_uint_eq (cfg.http.http_threads, 2);
  ck_assert_uint_eq (cfg.http.max_body, 1024 * 1024);
  ck_assert_uint_eq (cfg.http.drain_timeout_ms, 500);
  ck_assert_int_eq (cfg.log_threshold, G_LOG_LEVEL_WARNING);
  ck_assert_uint_eq (engine.lock_retries, 7);
  ck_assert_int_eq (engine.lock_stale_ms, 1000);
  ck_assert_uint_eq (engine.max_scan_limit, 50);
  ck_assert_uint_eq (g_strv_length (engine.insert_merge_databases), 2);
  ck_assert_str_eq (engine.insert_merge_databases[1], "b");
  ck_assert (cfg.wal_ephemeral);
  ck_assert (cfg.http.read_only);
  ck_assert (!engine.run_applier);
  ck_assert (!engine.heal);
  ck_assert_uint_eq (engine.heal_retry_ms, 250);
  ck_assert_uint_eq (engine.heal_sweep_ms, 0);
  ck_assert_uint_eq (engine.write_budget_ms, 2500);

  AbServerFlags flags = { 0 };
  flags.workers = flags.http_threads = flags.drain_timeout_ms = -1;
  flags.listen = g_strdup ("127.0.0.1:0");
  flags.workers = 9;
  ck_assert (ab_server_config_apply_flags (&cfg, &flags, NULL));
  ck_assert_str_eq (cfg.http.host, "127.0.0.1");
  ck_assert_uint_eq (cfg.http.port, 0);
  ck_assert_uint_eq (cfg.http.workers, 9);
  ck_assert_uint_eq (cfg.http.http_threads, 2);
  ab_server_flags_clear (&flags);
  ab_server_config_clear (&cfg);
  g_unlink (path);
}
END_TEST

START_TEST (test_bad_file_values)
{
  g_autofree gchar *path = write_config ("[server]\nworkers=lots\n");
  AbServerConfig cfg;
  g_autoptr (GError) error = NULL;
  ab_server_config_init (&cfg);
  ck_assert (!ab_server_config_load_file (&cfg, NULL, path, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "workers"));
  g_clear_error (&error);
  ck_assert (!ab_server_config_load_file (&cfg, NULL, "/nonexistent/ab.ini", &error));
  ab_server_config_clear (&cfg);
  g_unlink (path);
}
END_TEST

START_TEST (test_flags_parse)
{
  gchar *args[]
      = { "actionbased", "--listen",    "[::1]:7000", "--workers",       "5", "--max-body",
          "64k",         "--log-level", "debug",      "--wal-ephemeral", NULL };
  int argc = G_N_ELEMENTS (args) - 1;
  g_autofree gchar **argv = g_memdup2 (args, sizeof args);
  AbServerFlags flags;
  AbServerConfig cfg;
  ck_assert (ab_server_flags_parse (&flags, &argc, &argv, NULL));
  ck_assert_int_eq (flags.http_threads, -1);
  ab_server_config_init (&cfg);
  ck_assert (ab_server_config_apply_flags (&cfg, &flags, NULL));
  ck_assert_str_eq (cfg.http.host, "::1");
  ck_assert_uint_eq (cfg.http.port, 7000);
  ck_assert_uint_eq (cfg.http.workers, 5);
  ck_assert_uint_eq (cfg.http.max_body, 65536);
  ck_assert_int_eq (cfg.log_threshold, G_LOG_LEVEL_DEBUG);
  ck_assert_str_eq (cfg.store_uri, "lmdb:./actionbase-data");
  ck_assert (cfg.wal_ephemeral);
  ab_server_flags_clear (&flags);
  ab_server_config_clear (&cfg);
}
END_TEST

/* The default WAL lies next to an embedded store, whatever its parameters. */
START_TEST (test_default_wal_next_to_store)
{
  const struct {
    const gchar *store, *wal;
  } cases[] = {
    { "lmdb:/data/ab?sync=0", "file:/data/ab/wal" },
    { "rocksdb:/data/rk?memory=1g", "file:/data/rk/wal" },
    { "rocksdb:rel", "file:rel/wal" },
    { "memory:", "file:./actionbase-wal" },
    { "hbase://h:9090/ns", "file:./actionbase-wal" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      AbServerConfig cfg;
      ab_server_config_init (&cfg);
      g_free (cfg.store_uri);
      cfg.store_uri = g_strdup (cases[i].store);
      g_autofree gchar *wal = ab_server_config_wal_uri (&cfg);
      ck_assert_str_eq (wal, cases[i].wal);
      ab_server_config_clear (&cfg);
    }
}
END_TEST

/* The default loop count follows the CPUs the process may run on: pinned to
 * one CPU (taskset -c N), the server starts one HTTP loop. */
START_TEST (test_default_threads_follow_affinity)
{
  cpu_set_t all, one;
  CPU_ZERO (&all);
  ck_assert_int_eq (sched_getaffinity (0, sizeof all, &all), 0);
  guint wide = ab_usable_cpus ();
  ck_assert_uint_ge (wide, 1);
  ck_assert_uint_le (wide, (guint) CPU_COUNT (&all));
  int first = 0;
  while (!CPU_ISSET (first, &all))
    first++;
  CPU_ZERO (&one);
  CPU_SET (first, &one);
  ck_assert_int_eq (sched_setaffinity (0, sizeof one, &one), 0);
  AbHttpConfig cfg;
  ab_http_config_init (&cfg);
  guint pinned = ab_usable_cpus ();
  ck_assert_int_eq (sched_setaffinity (0, sizeof all, &all), 0);
  ck_assert_uint_eq (pinned, 1);
  ck_assert_uint_eq (cfg.http_threads, 1);
  ck_assert_uint_eq (cfg.workers, 64);
  ab_http_config_clear (&cfg);
}
END_TEST

static void
put_cpu_max (const gchar *root, const gchar *group, const gchar *text)
{
  g_autofree gchar *dir = g_build_filename (root, group, NULL);
  g_autofree gchar *path = g_build_filename (dir, "cpu.max", NULL);
  ck_assert_int_eq (g_mkdir_with_parents (dir, 0700), 0);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
}

/* cgroup v2 quotas (docker --cpus): the tightest of the group and its
 * ancestors, rounded up to whole cores; "max", garbage and v1-only
 * hierarchies set none. */
START_TEST (test_cgroup_cpu_quota)
{
  g_autoptr (GError) error = NULL;
  g_autofree gchar *root = g_dir_make_tmp ("ab-cgroup-XXXXXX", &error);
  ck_assert_ptr_nonnull (root);
  put_cpu_max (root, "a", "max 100000\n");
  put_cpu_max (root, "a/b", "150000 100000\n");
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "0::/a/b\n"), 2);
  /* a v1 line before the v2 one, and a group without cpu.max below b */
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "12:cpu,cpuacct:/x\n0::/a/b/c\n"), 2);
  put_cpu_max (root, "a", "50000 100000");
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "0::/a/b\n"), 1);
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "0::/a\n"), 1);
  put_cpu_max (root, "a", "max 100000");
  put_cpu_max (root, "a/b", "400000 100000");
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "0::/a/b"), 4);
  put_cpu_max (root, "a/b", "lots 100000");
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "0::/a/b"), 0);
  put_cpu_max (root, "a/b", "100000");
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "0::/a/b"), 0);
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "0::/\n"), 0);
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, "12:cpu:/a/b\n"), 0);
  ck_assert_uint_eq (ab_cgroup_cpu_limit (root, ""), 0);
  const gchar *files[] = { "a/b/cpu.max", "a/cpu.max", "a/b", "a", NULL };
  for (guint i = 0; files[i] != NULL; i++)
    {
      g_autofree gchar *path = g_build_filename (root, files[i], NULL);
      ck_assert_int_eq (g_remove (path), 0);
    }
  ck_assert_int_eq (g_rmdir (root), 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("server-config");
  TCase *tc = tcase_create ("config");
  tcase_add_test (tc, test_parse_listen);
  tcase_add_test (tc, test_parse_size_and_level);
  tcase_add_test (tc, test_file_then_flags);
  tcase_add_test (tc, test_bad_file_values);
  tcase_add_test (tc, test_flags_parse);
  tcase_add_test (tc, test_default_wal_next_to_store);
  tcase_add_test (tc, test_default_threads_follow_affinity);
  tcase_add_test (tc, test_cgroup_cpu_quota);
  suite_add_tcase (s, tc);
  return ab_check_run (s);
}
