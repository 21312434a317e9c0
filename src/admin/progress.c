/* Progress lines of actionbase-admin: redrawn in place on a terminal at most
 * ten times a second (bar, rows, rows/s, ETA), else one plain line every
 * five seconds, so logs of a batch job stay readable. */
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include "admin/admin-private.h"

#define TTY_EVERY_US (G_USEC_PER_SEC / 10)
#define LOG_EVERY_US (5 * G_USEC_PER_SEC)
#define BAR_WIDTH 30

struct _AbProgress {
  gchar *what;
  guint64 total;
  gboolean tty;
  gint64 started;
  atomic_uint_fast64_t rows;
  GMutex lock; /* guards last_print and the output */
  gint64 last_print;
};

AbProgress *
ab_progress_new (const gchar *what, guint64 total)
{
  AbProgress *p = g_new0 (AbProgress, 1);
  p->what = g_strdup (what);
  p->total = total;
  p->tty = isatty (STDERR_FILENO);
  p->started = p->last_print = g_get_monotonic_time ();
  atomic_init (&p->rows, 0);
  g_mutex_init (&p->lock);
  return p;
}

static gdouble
rate_of (AbProgress *p, guint64 rows, gint64 now)
{
  gdouble secs = (gdouble) (now - p->started) / G_USEC_PER_SEC;
  return secs > 0 ? (gdouble) rows / secs : 0;
}

static void
print_line (AbProgress *p, guint64 rows, gint64 now)
{
  gdouble rate = rate_of (p, rows, now);
  if (!p->tty)
    {
      fprintf (stderr, "%s: %" G_GUINT64_FORMAT " rows, %.0f rows/s\n", p->what, rows, rate);
      return;
    }
  if (p->total == 0)
    {
      fprintf (stderr, "\r%s: %" G_GUINT64_FORMAT " rows, %.0f rows/s   ", p->what, rows, rate);
      return;
    }
  gdouble frac = MIN (1.0, (gdouble) rows / (gdouble) p->total);
  gint filled = (gint) (frac * BAR_WIDTH);
  gchar bar[BAR_WIDTH + 1];
  for (gint i = 0; i < BAR_WIDTH; i++)
    bar[i] = i < filled ? '#' : '.';
  bar[BAR_WIDTH] = '\0';
  gint64 eta = rate > 0 && rows < p->total ? (gint64) ((gdouble) (p->total - rows) / rate) : 0;
  fprintf (stderr,
           "\r%s [%s] %3.0f%% %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
           " rows %.0f rows/s ETA %" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT "   ",
           p->what, bar, frac * 100, rows, p->total, rate, eta / 60, eta % 60);
}

void
ab_progress_add (AbProgress *p, guint64 rows)
{
  guint64 now_rows = atomic_fetch_add (&p->rows, rows) + rows;
  gint64 now = g_get_monotonic_time ();
  g_mutex_lock (&p->lock);
  if (now - p->last_print >= (p->tty ? TTY_EVERY_US : LOG_EVERY_US))
    {
      p->last_print = now;
      print_line (p, now_rows, now);
    }
  g_mutex_unlock (&p->lock);
}

guint64
ab_progress_rows (AbProgress *p)
{
  return atomic_load (&p->rows);
}

void
ab_progress_free (AbProgress *p)
{
  if (p == NULL)
    return;
  if (p->tty)
    fputc ('\n', stderr);
  g_mutex_clear (&p->lock);
  g_free (p->what);
  g_free (p);
}

void
ab_progress_finish (AbProgress *p)
{
  gint64 now = g_get_monotonic_time ();
  guint64 rows = atomic_load (&p->rows);
  if (p->tty)
    fputc ('\r', stderr);
  fprintf (stderr, "%s: done, %" G_GUINT64_FORMAT " rows in %.1f s (%.0f rows/s)%s\n", p->what,
           rows, (gdouble) (now - p->started) / G_USEC_PER_SEC, rate_of (p, rows, now),
           p->tty ? "                    " : "");
  p->tty = FALSE; /* the line is finished */
  ab_progress_free (p);
}
