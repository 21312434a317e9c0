/* examples/queue.c: a work queue on libactionbase (queue/v1). A producer
 * enqueues jobs by customer key, a consumer polls each partition, does the
 * work and commits the offset; a second poll finds nothing left.
 * Build: cc queue.c $(pkg-config --cflags --libs actionbase) */
#include <stdio.h>
#include <glib.h>
#include "actionbase.h"

#define PARTITIONS 4

static int
fail (const char *what, GError *error)
{
  fprintf (stderr, "queue: %s: %s\n", what, error != NULL ? error->message : "failed");
  g_clear_error (&error);
  return 1;
}

int
main (int argc, char **argv)
{
  GError *error = NULL;
  AbDb *db = ab_db_open (argc > 1 ? argv[1] : "memory:", NULL, &error);
  if (db == NULL)
    return fail ("open", error);
  if (!ab_db_queue_create (db, "jobs", "emails", PARTITIONS, &error))
    return fail ("create", error);

  /* Producer: a customer's messages keep their order (seq) in one partition. */
  AbDbMessage messages[] = {
    { .key = "alice", .seq = 1, .value_json = "{\"send\":\"welcome\"}" },
    { .key = "bob", .seq = 1, .value_json = "{\"send\":\"welcome\"}" },
    { .key = "alice", .seq = 2, .value_json = "{\"send\":\"receipt\"}" },
  };
  guint accepted = 0;
  if (!ab_db_queue_enqueue (db, "jobs", "emails", messages, G_N_ELEMENTS (messages), &accepted,
                            &error))
    return fail ("enqueue", error);
  printf ("enqueued %u messages\n", accepted);

  /* Consumer: every partition, oldest first; commit what was done. */
  guint done = 0;
  for (guint p = 0; p < PARTITIONS; p++)
    {
      AbDbPoll *poll = ab_db_queue_poll (db, "jobs", "emails", p, NULL, 100, &error);
      if (poll == NULL)
        return fail ("poll", error);
      for (guint i = 0; i < ab_db_poll_len (poll); i++, done++)
        printf ("partition %u: seq %" G_GINT64_FORMAT " %s\n", p, ab_db_poll_seq (poll, i),
                ab_db_poll_value (poll, i));
      gint64 offset;
      if (ab_db_poll_offset (poll, &offset)
          && !ab_db_queue_commit (db, "jobs", "emails", p, offset, &error))
        return fail ("commit", error);
      ab_db_poll_free (poll);
    }
  guint left = 0;
  for (guint p = 0; p < PARTITIONS; p++)
    {
      AbDbPoll *poll = ab_db_queue_poll (db, "jobs", "emails", p, NULL, 100, &error);
      if (poll == NULL)
        return fail ("poll", error);
      left += ab_db_poll_len (poll);
      ab_db_poll_free (poll);
    }
  printf ("processed %u, left %u\n", done, left);
  ab_db_close (db);
  return done == accepted && left == 0 ? 0 : 1;
}
