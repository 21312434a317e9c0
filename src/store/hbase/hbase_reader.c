/* A Thrift transport that buffers what it reads: c_glib's buffered transport
 * asks the socket for exactly the bytes each field needs (one recv per
 * integer), so large answers (scans) cost a syscall per field without it. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include "store/hbase/hbase-private.h"

#define READ_CHUNK 65536

struct _AbHbReader {
  ThriftTransport parent;
  ThriftSocket *socket; /* writes, open/close and the descriptor */
  guint8 *buf;
  gsize cap;        /* bytes allocated at buf (READ_CHUNK, more after a long take) */
  gsize start, end; /* unread bytes are buf[start, end) */
};

G_DEFINE_TYPE (AbHbReader, ab_hb_reader, THRIFT_TYPE_TRANSPORT)

static ThriftTransportClass *
socket_class (AbHbReader *r)
{
  return THRIFT_TRANSPORT_GET_CLASS (r->socket);
}

static gboolean
reader_is_open (ThriftTransport *t)
{
  AbHbReader *r = AB_HB_READER (t);
  return socket_class (r)->is_open (THRIFT_TRANSPORT (r->socket));
}

static gboolean
reader_peek (ThriftTransport *t, GError **error)
{
  AbHbReader *r = AB_HB_READER (t);
  return r->end > r->start || socket_class (r)->peek (THRIFT_TRANSPORT (r->socket), error);
}

static gboolean
reader_open (ThriftTransport *t, GError **error)
{
  AbHbReader *r = AB_HB_READER (t);
  return socket_class (r)->open (THRIFT_TRANSPORT (r->socket), error);
}

static gboolean
reader_close (ThriftTransport *t, GError **error)
{
  AbHbReader *r = AB_HB_READER (t);
  r->start = r->end = 0;
  return socket_class (r)->close (THRIFT_TRANSPORT (r->socket), error);
}

/* One recv into buf[end, cap): FALSE with error when the peer hung up or
 * the socket failed (its receive timeout included). */
static gboolean
fill (AbHbReader *r, GError **error)
{
  for (;;)
    {
      ssize_t n = recv (r->socket->sd, r->buf + r->end, r->cap - r->end, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int e = n == 0 ? 0 : errno;
          g_set_error (error, THRIFT_TRANSPORT_ERROR, THRIFT_TRANSPORT_ERROR_RECEIVE,
                       "failed to read from the gateway: %s",
                       n == 0 ? "connection closed" : g_strerror (e));
          return FALSE;
        }
      r->end += (gsize) n;
      return TRUE;
    }
}

/* Blocks until len bytes are there (the socket's receive timeout bounds each
 * wait), taking whatever the kernel has, up to the buffer's size at a time. */
static gint32
reader_read (ThriftTransport *t, gpointer out, guint32 len, GError **error)
{
  AbHbReader *r = AB_HB_READER (t);
  guint8 *dst = out;
  guint32 got = 0;
  while (got < len)
    {
      if (r->start == r->end)
        {
          r->start = r->end = 0;
          if (!fill (r, error))
            return -1;
        }
      gsize take = MIN ((gsize) (len - got), r->end - r->start);
      memcpy (dst + got, r->buf + r->start, take);
      r->start += take;
      got += (guint32) take;
    }
  return (gint32) got;
}

static gboolean
reader_read_end (ThriftTransport *t, GError **error)
{
  (void) t;
  (void) error;
  return TRUE;
}

static gboolean
reader_write (ThriftTransport *t, const gpointer buf, const guint32 len, GError **error)
{
  AbHbReader *r = AB_HB_READER (t);
  return socket_class (r)->write (THRIFT_TRANSPORT (r->socket), buf, len, error);
}

static gboolean
reader_write_end (ThriftTransport *t, GError **error)
{
  AbHbReader *r = AB_HB_READER (t);
  return socket_class (r)->write_end (THRIFT_TRANSPORT (r->socket), error);
}

static gboolean
reader_flush (ThriftTransport *t, GError **error)
{
  AbHbReader *r = AB_HB_READER (t);
  return socket_class (r)->flush (THRIFT_TRANSPORT (r->socket), error);
}

static void
reader_finalize (GObject *o)
{
  AbHbReader *r = AB_HB_READER (o);
  g_clear_object (&r->socket);
  g_free (r->buf);
  G_OBJECT_CLASS (ab_hb_reader_parent_class)->finalize (o);
}

static void
ab_hb_reader_class_init (AbHbReaderClass *cls)
{
  ThriftTransportClass *tc = THRIFT_TRANSPORT_CLASS (cls);
  G_OBJECT_CLASS (cls)->finalize = reader_finalize;
  tc->is_open = reader_is_open;
  tc->peek = reader_peek;
  tc->open = reader_open;
  tc->close = reader_close;
  tc->read = reader_read;
  tc->read_end = reader_read_end;
  tc->write = reader_write;
  tc->write_end = reader_write_end;
  tc->flush = reader_flush;
}

static void
ab_hb_reader_init (AbHbReader *r)
{
  r->cap = READ_CHUNK;
  r->buf = g_malloc (r->cap);
}

ThriftTransport *
ab_hb_reader_new (ThriftSocket *socket)
{
  AbHbReader *r = g_object_new (AB_TYPE_HB_READER, NULL);
  r->socket = g_object_ref (socket);
  return THRIFT_TRANSPORT (r);
}

gsize
ab_hb_reader_pending (ThriftTransport *t)
{
  AbHbReader *r = AB_HB_READER (t);
  return r->end - r->start;
}

const guint8 *
ab_hb_reader_take (ThriftTransport *t, gsize n, GError **error)
{
  /* Called per field of a large reply: a plain cast (the caller checked the
   * type once, direct_input in hbase_decode.c), not a checked one. */
  AbHbReader *r = (AbHbReader *) t;
  if (r->end - r->start < n)
    {
      /* Move what is unread to the front, make room for n, receive the rest. */
      gsize have = r->end - r->start;
      if (have > 0 && r->start > 0)
        memmove (r->buf, r->buf + r->start, have);
      r->start = 0;
      r->end = have;
      /* The buffer grows as bytes arrive, not to a length the peer claims. */
      while (r->end < n)
        {
          if (r->end == r->cap)
            {
              r->cap = MIN (n, r->cap * 2);
              r->buf = g_realloc (r->buf, r->cap);
            }
          if (!fill (r, error))
            return NULL;
        }
    }
  const guint8 *p = r->buf + r->start;
  r->start += n;
  return p;
}
