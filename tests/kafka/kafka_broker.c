/* The private-broker and kcat helpers of the Kafka suites: runs
 * tests/kafka/start.sh and stop.sh (AB_KAFKA_SCRIPTS) synchronously and keeps
 * the broker's directory and address for a restart on the same port. */
#include <check.h>
#include <string.h>
#include "kafka_broker.h"

/* Runs tests/kafka/<name> DIR (start.sh or stop.sh); *out = its last line. */
static gboolean
run_script (const gchar *name, const gchar *dir, gchar **out)
{
  g_autofree gchar *script = g_build_filename (AB_KAFKA_SCRIPTS, name, NULL);
  const gchar *argv[] = { "bash", script, dir, NULL };
  g_autofree gchar *text = NULL;
  g_autofree gchar *err = NULL;
  gint status = 0;
  gboolean ok = g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &text,
                              &err, &status, NULL)
                && g_spawn_check_wait_status (status, NULL);
  if (!ok)
    g_printerr ("%s %s failed: %s%s\n", name, dir, text ? text : "", err ? err : "");
  if (ok && out != NULL)
    {
      g_strstrip (text);
      const gchar *nl = strrchr (text, '\n');
      *out = g_strdup (nl != NULL ? nl + 1 : text);
    }
  return ok;
}

void
ab_test_broker_start (AbTestBroker *b)
{
  memset (b, 0, sizeof *b);
  const gchar *shared = g_getenv ("AB_KAFKA_DIR");
  if (shared != NULL && shared[0] != '\0')
    b->dir = g_mkdtemp (g_build_filename (shared, "outage-XXXXXX", NULL));
  else
    b->dir = g_dir_make_tmp ("ab-kafka-outage-XXXXXX", NULL);
  ck_assert_ptr_nonnull (b->dir);
  g_autofree gchar *cp = shared != NULL ? g_build_filename (shared, "cp.txt", NULL) : NULL;
  g_autofree gchar *text = NULL;
  gsize len = 0;
  if (cp != NULL && g_file_get_contents (cp, &text, &len, NULL))
    {
      g_autofree gchar *copy = g_build_filename (b->dir, "cp.txt", NULL);
      ck_assert (g_file_set_contents (copy, text, (gssize) len, NULL));
    }
  ck_assert_msg (run_script ("start.sh", b->dir, &b->addr), "private broker in %s", b->dir);
}

gboolean
ab_test_broker_stop (AbTestBroker *b)
{
  return run_script ("stop.sh", b->dir, NULL);
}

gboolean
ab_test_broker_restart (AbTestBroker *b)
{
  g_autofree gchar *again = NULL;
  if (!run_script ("start.sh", b->dir, &again))
    return FALSE;
  if (g_strcmp0 (again, b->addr) == 0)
    return TRUE;
  g_printerr ("the broker of %s came back on %s, not %s\n", b->dir, again, b->addr);
  return FALSE;
}

void
ab_test_broker_destroy (AbTestBroker *b)
{
  if (b->dir == NULL)
    return;
  ab_test_broker_stop (b);
  const gchar *argv[] = { "rm", "-rf", b->dir, NULL };
  g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                NULL);
  g_clear_pointer (&b->dir, g_free);
  g_clear_pointer (&b->addr, g_free);
}

gchar **
ab_test_kcat_keys (const gchar *addr, const gchar *topic)
{
  g_autofree gchar *out = NULL;
  gint status = 0;
  /* -m bounds the wait for metadata when the broker is unreachable. */
  const gchar *argv[]
      = { "kcat", "-C", "-b", addr, "-t", topic, "-e", "-q", "-m", "5", "-f", "%k\n", NULL };
  if (!g_spawn_sync (NULL, (gchar **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDERR_TO_DEV_NULL,
                     NULL, NULL, &out, NULL, &status, NULL)
      || status != 0)
    return NULL;
  g_strchomp (out);
  return g_strsplit (out, "\n", -1);
}
