/* Helpers shared by the store suites: scratch directories, store opening and
 * value asserts (see store_test_util.h). Kept apart from the tests so the
 * conformance and lmdb suites stay about behaviour. */
#include "store_test_util.h"
#include "../../hbase/hbase_test_uri.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static gchar *root;
static guint seq;

void
st_root_init (void)
{
  GError *error = NULL;
  root = g_dir_make_tmp ("ab-store-test-XXXXXX", &error);
  g_assert_no_error (error);
}

void
st_root_cleanup (void)
{
  st_rmtree (root);
  g_clear_pointer (&root, g_free);
}

gchar *
st_fresh_dir (const gchar *tag)
{
  /* The pid keeps dirs of Check's forked test processes apart. */
  return g_strdup_printf ("%s/%s-%d-%u", root, tag, (int) getpid (), ++seq);
}

void
st_rmtree (const gchar *dir)
{
  GDir *d;
  const gchar *name;
  if (dir == NULL || (d = g_dir_open (dir, 0, NULL)) == NULL)
    return;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree gchar *p = g_build_filename (dir, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR) && !g_file_test (p, G_FILE_TEST_IS_SYMLINK))
        st_rmtree (p);
      else
        g_unlink (p);
    }
  g_dir_close (d);
  g_rmdir (dir);
}

guint
st_backend_count (void)
{
  return ab_hbase_test_n_stores (3);
}

gboolean
st_backend_hbase (guint k)
{
  return k == 3;
}

AbStore *
st_open (const gchar *uri)
{
  GError *error = NULL;
  AbStore *s = ab_store_open (uri, &error);
  ck_assert_msg (s != NULL, "open %s: %s", uri, error ? error->message : "?");
  return s;
}

gchar *
st_uri (const gchar *scheme, const gchar *dir, const gchar *query)
{
  return g_strdup_printf ("%s:%s%s%s", scheme, dir, query ? "?" : "", query ? query : "");
}

void
st_assert_open_fails (const gchar *uri, gint code, const gchar *needle)
{
  GError *error = NULL;
  AbStore *s = ab_store_open (uri, &error);
  ck_assert_msg (s == NULL, "%s opened", uri);
  ck_assert_ptr_nonnull (error);
  ck_assert_int_eq (error->code, code);
  ck_assert_msg (strstr (error->message, needle) != NULL, "%s: '%s' lacks '%s'", uri,
                 error->message, needle);
  g_clear_error (&error);
}

int
st_run (Suite *suite)
{
  SRunner *sr = srunner_create (suite);
  st_root_init ();
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  st_root_cleanup ();
  return failed == 0 ? 0 : 1;
}

AbStore *
st_open_backend (guint k)
{
  g_autofree gchar *dir = NULL;
  g_autofree gchar *uri = NULL;
  if (k == 0)
    return st_open ("memory:");
  if (st_backend_hbase (k))
    {
      uri = ab_hbase_test_uri ("store", 4);
      return st_open (uri);
    }
  dir = st_fresh_dir ("conf");
  uri = g_strdup_printf ("%s:%s?sync=0", k == 1 ? "lmdb" : "rocksdb", dir);
  return st_open (uri);
}

void
st_put (AbStore *s, const guint8 *k, gsize klen, const guint8 *v, gsize vlen)
{
  GError *error = NULL;
  gboolean ok = ab_store_put (s, k, klen, v, vlen, &error);
  ck_assert_msg (ok, "put: %s", error ? error->message : "?");
}

void
st_assert_bytes_eq (GBytes *b, const guint8 *v, gsize vlen)
{
  ck_assert_ptr_nonnull (b);
  ck_assert_uint_eq (g_bytes_get_size (b), vlen);
  if (vlen > 0)
    ck_assert_mem_eq (g_bytes_get_data (b, NULL), v, vlen);
}

typedef struct {
  guint calls;
  GBytes *value; /* a copy of what the visitor saw; NULL: absent */
} Seen;

static gboolean
see_value (const guint8 *key, gsize klen, const guint8 *value, gsize vlen, gpointer data)
{
  Seen *seen = data;
  (void) key;
  (void) klen;
  seen->calls++;
  if (value != NULL)
    seen->value = g_bytes_new (value, vlen);
  return TRUE;
}

/* Through get and through get_with (borrowed bytes): the same answer. */
void
st_assert_value (AbStore *s, const guint8 *k, gsize klen, const guint8 *v, gsize vlen)
{
  GError *error = NULL;
  g_autoptr (GBytes) got = NULL;
  gboolean ok = ab_store_get (s, k, klen, &got, &error);
  ck_assert_msg (ok, "get: %s", error ? error->message : "?");
  Seen seen = { 0, NULL };
  ok = ab_store_get_with (s, k, klen, see_value, &seen, &error);
  ck_assert_msg (ok, "get_with: %s", error ? error->message : "?");
  ck_assert_uint_eq (seen.calls, 1);
  if (v == NULL)
    {
      ck_assert_ptr_null (got);
      ck_assert_ptr_null (seen.value);
    }
  else
    {
      st_assert_bytes_eq (got, v, vlen);
      st_assert_bytes_eq (seen.value, v, vlen);
    }
  g_clear_pointer (&seen.value, g_bytes_unref);
}

void
st_assert_counter (AbStore *s, const guint8 *k, gsize klen, gint64 expected)
{
  guint64 be = GUINT64_TO_BE ((guint64) expected);
  st_assert_value (s, k, klen, (const guint8 *) &be, 8);
}
