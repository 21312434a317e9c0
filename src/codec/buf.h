/* AbBuf: the byte buffer the encoders write into, with room for a typical
 * key inline (no allocation until it outgrows that) and an inlined append
 * path. Lives where it is declared: never copy or move one by value. */
#pragma once
#include <string.h>
#include <glib.h>

#define AB_BUF_INLINE 192

typedef struct {
  guint8 *data; /* inline_ or a heap block */
  gsize len;
  gsize cap;
  guint8 inline_[AB_BUF_INLINE];
} AbBuf;

void ab_buf_init (AbBuf *b);
/* Frees a heap block; the buffer is empty and usable again. */
void ab_buf_clear (AbBuf *b);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (AbBuf, ab_buf_clear)
guint8 *ab_buf_grow (AbBuf *b, gsize n);

/* n more bytes at the end, returned to be written. */
static inline guint8 *
ab_buf_extend (AbBuf *b, gsize n)
{
  if (G_UNLIKELY (b->cap - b->len < n))
    return ab_buf_grow (b, n);
  guint8 *p = b->data + b->len;
  b->len += n;
  return p;
}

static inline void
ab_buf_append (AbBuf *b, const void *data, gsize n)
{
  if (n > 0)
    memcpy (ab_buf_extend (b, n), data, n);
}

/* The GByteArray forms of the encoders end here: when ok, out gets the
 * contents appended; b is cleared either way; returns ok. */
gboolean ab_buf_flush_to (AbBuf *b, GByteArray *out, gboolean ok);

/* New copies of the contents. */
GBytes *ab_buf_to_bytes (const AbBuf *b);
GByteArray *ab_buf_to_array (const AbBuf *b);
