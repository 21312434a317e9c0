/* AbBuf's slow paths: growing past the inline room, freeing, and handing
 * the contents over as GBytes or GByteArray (one allocation each, sized to
 * the contents). The inline append lives in buf.h. */
#include <string.h>
#include "codec/buf.h"

void
ab_buf_init (AbBuf *b)
{
  b->data = b->inline_;
  b->len = 0;
  b->cap = sizeof b->inline_;
}

void
ab_buf_clear (AbBuf *b)
{
  if (b->data != b->inline_)
    g_free (b->data);
  ab_buf_init (b);
}

guint8 *
ab_buf_grow (AbBuf *b, gsize n)
{
  if (G_MAXSIZE - b->len < n)
    g_error ("AbBuf: %" G_GSIZE_FORMAT " more bytes overflow", n);
  gsize want = b->len + n, cap = b->cap;
  while (cap < want)
    cap = cap > G_MAXSIZE / 2 ? want : cap * 2;
  if (b->data == b->inline_)
    {
      guint8 *heap = g_malloc (cap);
      memcpy (heap, b->data, b->len);
      b->data = heap;
    }
  else
    b->data = g_realloc (b->data, cap);
  b->cap = cap;
  guint8 *p = b->data + b->len;
  b->len = want;
  return p;
}

gboolean
ab_buf_flush_to (AbBuf *b, GByteArray *out, gboolean ok)
{
  if (ok)
    g_byte_array_append (out, b->data, (guint) b->len);
  ab_buf_clear (b);
  return ok;
}

GBytes *
ab_buf_to_bytes (const AbBuf *b)
{
  return g_bytes_new (b->data, b->len);
}

GByteArray *
ab_buf_to_array (const AbBuf *b)
{
  GByteArray *a = g_byte_array_sized_new ((guint) b->len);
  g_byte_array_append (a, b->data, (guint) b->len);
  return a;
}
