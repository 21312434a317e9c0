/* The full-disk check the disk backends share: on a small tmpfs of its own,
 * a batch that needs more room than is left is refused as unavailable with
 * the reason, nothing of it written; reads go on; writes resume once space
 * is freed, and everything acknowledged is there after a reopen. */
#include "store_test_util.h"

#include "small_disk.h"
#include <unistd.h>

/* A batch too big for the room left: 2 MiB of value with 1 MiB free. */
static gboolean
write_big (AbStore *s, GError **error)
{
  gsize len = 2u << 20;
  g_autofree guint8 *big = g_malloc (len);
  memset (big, 'x', len);
  g_autoptr (AbBatch) b = ab_batch_new ();
  ab_batch_put (b, ST_S ("during"), big, len);
  ab_batch_add (b, ST_S ("n"), 1);
  return ab_store_batch (s, b, error);
}

gboolean
st_check_disk_full (const gchar *scheme, const gchar *params)
{
  g_autofree gchar *what = g_strdup_printf ("disk-full check on %s", scheme);
  gchar *mnt = ab_small_disk_new ("24m", what);
  if (mnt == NULL)
    return FALSE;
  g_autofree gchar *dir = g_build_filename (mnt, "db", NULL);
  g_autofree gchar *uri = st_uri (scheme, dir, params);
  AbStore *s = st_open (uri);
  GError *error = NULL;
  st_put (s, ST_S ("before"), ST_S ("kept"));
  ab_small_disk_fill (mnt, "filler", 1 << 20);
  for (guint i = 0; i < 3; i++)
    {
      ck_assert (!write_big (s, &error));
      ck_assert_msg (error->code == AB_STORE_ERROR_UNAVAILABLE, "%s", error->message);
      ck_assert_msg (strstr (error->message, "disk is full") != NULL, "%s", error->message);
      g_clear_error (&error);
    }
  st_assert_value (s, ST_S ("before"), ST_S ("kept")); /* reads go on */
  st_assert_value (s, ST_S ("during"), NULL, 0);
  st_assert_value (s, ST_S ("n"), NULL, 0);
  g_autofree gchar *filler = g_build_filename (mnt, "filler", NULL);
  ck_assert_int_eq (unlink (filler), 0);
  ck_assert_msg (write_big (s, &error), "after freeing: %s", error ? error->message : "");
  st_put (s, ST_S ("after"), ST_S ("written"));
  ab_store_close (s);
  s = st_open (uri);
  st_assert_value (s, ST_S ("before"), ST_S ("kept"));
  st_assert_value (s, ST_S ("after"), ST_S ("written"));
  st_assert_counter (s, ST_S ("n"), 1);
  ab_store_close (s);
  ab_small_disk_free (mnt);
  return TRUE;
}
