/* examples/likes.c: "likes" on libactionbase. Opens a store (argv[1], else a
 * fresh LMDB directory), creates a table with a recent-first index, inserts
 * likes, lists a user's most recent ones, counts both ways, unlikes one.
 * Build: cc likes.c $(pkg-config --cflags --libs actionbase) */
#include <stdio.h>
#include <stdlib.h>
#include <glib.h>
#include <glib/gstdio.h>
#include "actionbase.h"

static int
fail (const char *what, GError *error)
{
  fprintf (stderr, "likes: %s: %s\n", what, error != NULL ? error->message : "failed");
  g_clear_error (&error);
  return 1;
}

static int
run (AbDb *db)
{
  GError *error = NULL;
  static const AbDbProperty props[] = { { .name = "created_at", .type = AB_DB_FIELD_LONG } };
  static const AbDbIndexField recent[] = { { .field = "created_at", .descending = TRUE } };
  static const AbDbIndex indexes[] = { { .name = "recent", .fields = recent, .n_fields = 1 } };
  AbDbTableDesc likes = { .name = "likes",
                          .kind = AB_DB_TABLE_EDGE,
                          .key_type = AB_DB_FIELD_STRING,
                          .target_type = AB_DB_FIELD_STRING,
                          .both_directions = TRUE,
                          .properties = props,
                          .n_properties = 1,
                          .indexes = indexes,
                          .n_indexes = 1 };
  if (!ab_db_create_database (db, "shop", "an example", &error)
      || !ab_db_create_table (db, "shop", &likes, &error))
    return fail ("create", error);

  /* Alice likes five products, Bob one: one batch, one durable commit. */
  static const char *products[] = { "phone", "laptop", "watch", "tablet", "camera" };
  AbDbBatch *batch = ab_db_batch_new ();
  for (guint i = 0; i < G_N_ELEMENTS (products); i++)
    {
      ab_db_batch_add_edge (batch, AB_DB_INSERT, 100 + i, ab_db_string ("alice"),
                            ab_db_string (products[i]));
      ab_db_batch_set (batch, "created_at", ab_db_long (1700000000000 + i));
    }
  ab_db_batch_add_edge (batch, AB_DB_INSERT, 100, ab_db_string ("bob"), ab_db_string ("phone"));
  ab_db_batch_set (batch, "created_at", ab_db_long (1700000000100));
  AbDbResults *results = ab_db_mutate (db, "shop", "likes", batch, NULL, &error);
  if (results == NULL)
    return fail ("insert", error);
  printf ("inserted %u edges\n", ab_db_results_len (results));
  ab_db_results_free (results);

  /* Alice's three most recent likes. */
  AbDbScan scan
      = { .index = "recent", .start = ab_db_string ("alice"), .direction = AB_DB_OUT, .limit = 3 };
  AbDbEdges *page = ab_db_scan (db, "shop", "likes", &scan, &error);
  if (page == NULL)
    return fail ("scan", error);
  printf ("alice's recent likes:");
  for (guint i = 0; i < ab_db_edges_len (page); i++)
    printf (" %s", ab_db_edges_target (page, i).u.s);
  printf ("%s\n", ab_db_edges_next (page) != NULL ? " ..." : "");
  gboolean order_ok
      = ab_db_edges_len (page) == 3 && g_str_equal (ab_db_edges_target (page, 0).u.s, "camera");
  ab_db_edges_free (page);

  /* Unlike, then count both ways. */
  ab_db_batch_clear (batch);
  ab_db_batch_add_edge (batch, AB_DB_DELETE, 200, ab_db_string ("alice"), ab_db_string ("phone"));
  results = ab_db_mutate (db, "shop", "likes", batch, NULL, &error);
  ab_db_batch_free (batch);
  if (results == NULL)
    return fail ("delete", error);
  printf ("alice/phone: %s\n", ab_db_status_name (ab_db_results_status (results, 0)));
  ab_db_results_free (results);
  gint64 alice = 0, phone = 0;
  if (!ab_db_count (db, "shop", "likes", ab_db_string ("alice"), AB_DB_OUT, &alice, &error)
      || !ab_db_count (db, "shop", "likes", ab_db_string ("phone"), AB_DB_IN, &phone, &error))
    return fail ("count", error);
  printf ("alice likes %" G_GINT64_FORMAT " products; phone is liked by %" G_GINT64_FORMAT "\n",
          alice, phone);
  return order_ok && alice == 4 && phone == 1 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  g_autofree gchar *dir = NULL;
  g_autofree gchar *uri = NULL;
  if (argc > 1)
    uri = g_strdup (argv[1]);
  else
    {
      dir = g_dir_make_tmp ("likes-XXXXXX", NULL);
      uri = g_strdup_printf ("lmdb:%s", dir);
    }
  GError *error = NULL;
  AbDb *db = ab_db_open (uri, NULL, &error);
  if (db == NULL)
    return fail (uri, error);
  int rc = run (db);
  ab_db_close (db);
  if (dir != NULL)
    {
      g_autofree gchar *data = g_build_filename (dir, "data.mdb", NULL);
      g_autofree gchar *lock = g_build_filename (dir, "lock.mdb", NULL);
      g_remove (data);
      g_remove (lock);
      g_rmdir (dir);
    }
  return rc;
}
