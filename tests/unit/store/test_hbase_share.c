/* The shared calls of the HBase store (src/store/hbase/hbase_share.c) without an
 * HBase: a run function that only sleeps stands for a slow gateway, so the
 * queue's waits, and the deadline a run's calls get, can be checked on
 * their own. And the connect's check for a socket connected to itself. */
#include <check.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include "store/hbase/hbase-private.h"
#include "ab_check.h"

#define FIRST_RUN_MS 30 /* within the queued callers' budget */
#define SLOW_RUN_MS 300 /* far past it */
#define BUDGET_MS 50

static gint runs;
/* Every time here times this: 10 under valgrind, which runs one thread at a
 * time and slowly (a queued caller gave up there before the first run ended). */
static guint scale = 1;

/* The first run ends before the queued callers' budget; the next one, which
 * carries them, outlasts it. */
/* When the second run began, and the deadline its calls were given. */
static gint64 second_start, second_deadline;

static void
slow_run (AbHbStore *h, gpointer *ops, guint n, GError **errors)
{
  gint run = g_atomic_int_add (&runs, 1);
  if (run == 1)
    {
      second_start = g_get_monotonic_time ();
      second_deadline = ab_hb_call_deadline (h);
    }
  g_usleep ((run == 0 ? FIRST_RUN_MS : SLOW_RUN_MS) * 1000 * scale);
}

typedef struct {
  AbHbStore *h;
  AbHbShare *s;
  gboolean ok;
} Caller;

static gpointer
submit (gpointer data)
{
  Caller *c = data;
  g_autoptr (GError) error = NULL;
  c->ok = ab_hb_share_submit (c->h, c->s, c, &error);
  return NULL;
}

static gdouble
cpu_seconds (void)
{
  struct rusage ru;
  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec
         + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* A caller carried by a leader whose call outlasts the caller's own budget
 * waits for it asleep. It used to spin on the share's mutex once its
 * deadline had passed, starving the leader that needed the mutex to say it
 * was done: under a stalled gateway every write of a node hung. */
START_TEST (a_carried_caller_past_its_budget_waits_asleep)
{
  scale = g_getenv ("AB_TEST_UNDER_VALGRIND") != NULL ? 10 : 1;
  AbHbStore *h = g_new0 (AbHbStore, 1);
  h->cfg.timeout_ms = BUDGET_MS * scale; /* far less than one slow run */
  h->addr = g_strdup ("test:0");
  AbHbShare *s = ab_hb_share_new (1, 0, slow_run);
  Caller cs[3];
  GThread *th[3];
  for (guint i = 0; i < 3; i++)
    {
      cs[i] = (Caller){ h, s, FALSE };
      th[i] = g_thread_new ("caller", submit, &cs[i]);
      if (i == 0)
        g_usleep (10 * 1000 * scale); /* the first leads alone; the others queue behind it */
    }
  gdouble cpu0 = cpu_seconds ();
  for (guint i = 0; i < 3; i++)
    g_thread_join (th[i]);
  gdouble cpu = cpu_seconds () - cpu0;
  /* the first run, then one run carrying both queued callers */
  guint64 calls, callers;
  ab_hb_share_counts (s, &calls, &callers);
  ck_assert_uint_eq (calls, 2);
  ck_assert_uint_eq (callers, 3);
  for (guint i = 0; i < 3; i++)
    ck_assert (cs[i].ok);
  /* the run carrying the queued callers ends when the first of their
   * budgets does, not a whole budget after it began: a caller's shared
   * call takes at most timeout_ms, its wait in the queue included */
  ck_assert_int_lt (second_deadline, second_start + (gint64) h->cfg.timeout_ms * 1000);
  /* asleep: a spinning waiter burns about a whole run's time (not judged
   * under valgrind, whose own scheduling is what the clock would measure;
   * the hang the spin caused still fails there, on Check's timeout) */
  if (g_getenv ("AB_TEST_UNDER_VALGRIND") == NULL)
    ck_assert_msg (cpu < 0.1, "the waiters used %.3f s of CPU in %d ms of runs", cpu,
                   FIRST_RUN_MS + SLOW_RUN_MS);
  ab_hb_share_free (s);
  g_free (h->addr);
  g_free (h);
}
END_TEST

static int
loopback_socket (struct sockaddr_in *at)
{
  socklen_t len = sizeof *at;
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  *at = (struct sockaddr_in){ .sin_family = AF_INET, .sin_addr.s_addr = htonl (INADDR_LOOPBACK) };
  ck_assert_int_eq (bind (fd, (struct sockaddr *) at, sizeof *at), 0);
  ck_assert_int_eq (getsockname (fd, (struct sockaddr *) at, &len), 0);
  return fd;
}

/* A connect to the socket's own address is answered by its own SYN (what a
 * reconnect to a gateway's free port meets when the kernel picks that port
 * as the source): the adapter must see it; a real connection is not it. */
START_TEST (a_socket_connected_to_itself_is_seen)
{
  struct sockaddr_in self, srv;
  int fd = loopback_socket (&self);
  ck_assert (!ab_hb_self_connected (fd)); /* not connected yet */
  ck_assert_int_eq (connect (fd, (struct sockaddr *) &self, sizeof self), 0);
  ck_assert (ab_hb_self_connected (fd));
  close (fd);
  int listener = loopback_socket (&srv);
  ck_assert_int_eq (listen (listener, 1), 0);
  int client = socket (AF_INET, SOCK_STREAM, 0);
  ck_assert_int_eq (connect (client, (struct sockaddr *) &srv, sizeof srv), 0);
  int accepted = accept (listener, NULL, NULL);
  ck_assert_int_ge (accepted, 0);
  ck_assert (!ab_hb_self_connected (client));
  ck_assert (!ab_hb_self_connected (accepted));
  close (accepted);
  close (client);
  close (listener);
}
END_TEST

int
main (void)
{
  Suite *su = suite_create ("hbase_share");
  TCase *tc = tcase_create ("share");
  tcase_add_test (tc, a_carried_caller_past_its_budget_waits_asleep);
  tcase_add_test (tc, a_socket_connected_to_itself_is_seen);
  suite_add_tcase (su, tc);
  return ab_check_run (su);
}
