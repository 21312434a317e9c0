/* ULID generation and parsing. The 128 bits are held as a 16-bit high and a
 * 64-bit low random part beside the time, so the monotonic increment is a
 * plain carry between two integers. */
#include <string.h>
#include "engine/core/core.h"

static const gchar ALPHABET[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

void
ab_ulid_format (guint64 ms, guint16 rand_hi, guint64 rand_lo, gchar out[27])
{
  /* 128 bits: ms (48) | rand_hi (16) | rand_lo (64), emitted 5 bits at a time
   * from the top; 26 chars = 130 bits, the first char carries 3 bits. */
  guint64 hi = (ms << 16) | rand_hi; /* top 64 bits */
  guint64 lo = rand_lo;              /* bottom 64 bits */
  for (gint i = 25; i >= 0; i--)
    {
      out[i] = ALPHABET[lo & 31];
      lo = (lo >> 5) | ((hi & 31) << 59);
      hi >>= 5;
    }
  out[26] = '\0';
}

void
ab_ulid_new (gchar out[27])
{
  static GMutex lock;
  static guint64 last_ms;
  static guint16 last_hi;
  static guint64 last_lo;
  guint64 ms = (guint64) (g_get_real_time () / 1000);
  g_mutex_lock (&lock);
  if (ms <= last_ms)
    {
      ms = last_ms; /* clock did not move (or went back): stay monotonic */
      if (++last_lo == 0)
        last_hi++;
    }
  else
    {
      last_ms = ms;
      last_hi = (guint16) g_random_int_range (0, 0x8000); /* room to increment */
      last_lo = ((guint64) g_random_int () << 32) | g_random_int ();
    }
  guint16 hi = last_hi;
  guint64 lo = last_lo;
  g_mutex_unlock (&lock);
  ab_ulid_format (ms, hi, lo, out);
}

gboolean
ab_ulid_time (const gchar *ulid, guint64 *ms)
{
  if (ulid == NULL || strlen (ulid) != 26)
    return FALSE;
  guint64 v = 0;
  for (guint i = 0; i < 10; i++)
    {
      const gchar *p = strchr (ALPHABET, g_ascii_toupper (ulid[i]));
      if (p == NULL || *p == '\0')
        return FALSE;
      v = (v << 5) | (guint64) (p - ALPHABET);
    }
  *ms = v;
  return TRUE;
}
