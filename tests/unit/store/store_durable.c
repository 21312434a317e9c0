/* The durability check the disk backends share: a child process writes
 * batches from several threads and acknowledges each through a pipe, is
 * killed with SIGKILL, and every acknowledged batch must be there, whole. */
#include "store_test_util.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define DUR_WRITERS 4
#define DUR_ROWS 5
#define DUR_MIN_ACKS 60

typedef struct {
  AbStore *s;
  guint id;
  int fd;
} DurWriter;

static void
dur_key (gchar *buf, gsize n, guint id, guint32 seq, guint r)
{
  g_snprintf (buf, n, "dur/%u/%08u/%u", id, seq, r);
}

static gpointer
dur_worker (gpointer p)
{
  DurWriter *w = p;
  for (guint32 seq = 1;; seq++)
    {
      g_autoptr (AbBatch) b = ab_batch_new ();
      guint32 ack[2] = { w->id, seq };
      for (guint r = 0; r < DUR_ROWS; r++)
        {
          gchar key[48];
          dur_key (key, sizeof key, w->id, seq, r);
          ab_batch_put (b, ST_S (key), (const guint8 *) &seq, sizeof seq);
        }
      ab_batch_increment (b, ST_S ("dur/count"), 1);
      if (!ab_store_batch (w->s, b, NULL) || write (w->fd, ack, sizeof ack) != sizeof ack)
        _exit (3);
    }
  return NULL;
}

static G_NORETURN void
dur_child (const gchar *uri, int fd)
{
  AbStore *s = ab_store_open (uri, NULL);
  DurWriter w[DUR_WRITERS];
  if (s == NULL)
    _exit (2);
  for (guint i = 0; i < DUR_WRITERS; i++)
    {
      w[i] = (DurWriter){ s, i, fd };
      g_thread_new ("dur", dur_worker, &w[i]);
    }
  for (;;)
    pause ();
}

/* Reads acks until n arrived or until EOF; checks each writer acks in order. */
static guint
read_acks (int fd, guint32 *last, guint n)
{
  guint32 ack[2];
  guint got = 0;
  while (got < n && read (fd, ack, sizeof ack) == sizeof ack)
    {
      ck_assert_uint_lt (ack[0], DUR_WRITERS);
      ck_assert_uint_eq (ack[1], last[ack[0]] + 1); /* each writer acks in order */
      last[ack[0]] = ack[1];
      got++;
    }
  return got;
}

/* Batches 1..last[w] complete; later ones complete or absent, never partial. */
static guint
check_writer (AbStore *s, guint id, guint32 last)
{
  for (guint32 seq = 1;; seq++)
    {
      guint present = 0;
      for (guint r = 0; r < DUR_ROWS; r++)
        {
          g_autoptr (GBytes) v = NULL;
          gchar key[48];
          dur_key (key, sizeof key, id, seq, r);
          ck_assert (ab_store_get (s, ST_S (key), &v, NULL));
          if (v != NULL)
            {
              st_assert_bytes_eq (v, (const guint8 *) &seq, sizeof seq);
              present++;
            }
        }
      ck_assert_msg (present == 0 || present == DUR_ROWS, "writer %u batch %u: %u of %u rows", id,
                     seq, present, DUR_ROWS);
      ck_assert_msg (present == DUR_ROWS || seq > last, "writer %u lost acked batch %u", id, seq);
      if (present == 0)
        return seq - 1;
    }
}

void
st_check_durable_after_sigkill (const gchar *uri)
{
  guint32 last[DUR_WRITERS] = { 0 };
  guint complete = 0;
  int fds[2], status;
  pid_t pid;
  g_autoptr (AbStore) s = NULL;
  ck_assert_int_eq (pipe (fds), 0);
  pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0)
    {
      close (fds[0]);
      dur_child (uri, fds[1]);
    }
  close (fds[1]);
  ck_assert_uint_eq (read_acks (fds[0], last, DUR_MIN_ACKS), DUR_MIN_ACKS);
  kill (pid, SIGKILL);
  ck_assert_int_eq (waitpid (pid, &status, 0), pid);
  ck_assert (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  read_acks (fds[0], last, G_MAXUINT); /* acks written before the kill */
  close (fds[0]);
  s = st_open (uri);
  for (guint i = 0; i < DUR_WRITERS; i++)
    complete += check_writer (s, i, last[i]);
  /* the counter moved with every complete batch, no more, no less */
  st_assert_counter (s, ST_S ("dur/count"), complete);
}
