/* A bare Thrift2 client (see hbase_raw.h): ThriftSocket opened the plain
 * way, TCP_NODELAY set on it, and single get/put calls on family f,
 * qualifier e, each with fresh request and result objects. */
#include "hbase_raw.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <thrift/c_glib/protocol/thrift_binary_protocol.h>
#include <thrift/c_glib/protocol/thrift_compact_protocol.h>
#include <thrift/c_glib/transport/thrift_buffered_transport.h>
#include <thrift/c_glib/transport/thrift_framed_transport.h>
#include <thrift/c_glib/transport/thrift_socket.h>

struct _AbHbRaw {
  ThriftSocket *socket;
  ThriftTransport *transport;
  ThriftProtocol *protocol;
  HbTHBaseServiceIf *client;
};

void
ab_hb_raw_close (AbHbRaw *r)
{
  if (r == NULL)
    return;
  g_clear_object (&r->client);
  g_clear_object (&r->protocol);
  g_clear_object (&r->transport);
  g_clear_object (&r->socket);
  g_free (r);
}

AbHbRaw *
ab_hb_raw_connect (const gchar *addr, gboolean framed, gboolean compact, GError **error)
{
  const gchar *colon = strrchr (addr, ':');
  g_autofree gchar *host = colon ? g_strndup (addr, colon - addr) : g_strdup (addr);
  AbHbRaw *r = g_new0 (AbHbRaw, 1);
  int one = 1;
  r->socket = g_object_new (THRIFT_TYPE_SOCKET, "hostname", host, "port",
                            colon ? (guint) atoi (colon + 1) : 9090u, NULL);
  r->transport
      = g_object_new (framed ? THRIFT_TYPE_FRAMED_TRANSPORT : THRIFT_TYPE_BUFFERED_TRANSPORT,
                      "transport", r->socket, "r_buf_size", 65536, "w_buf_size", 65536, NULL);
  r->protocol = g_object_new (compact ? THRIFT_TYPE_COMPACT_PROTOCOL : THRIFT_TYPE_BINARY_PROTOCOL,
                              "transport", r->transport, NULL);
  r->client = g_object_new (HB_TYPE_T_H_BASE_SERVICE_CLIENT, "input_protocol", r->protocol,
                            "output_protocol", r->protocol, NULL);
  if (!thrift_transport_open (r->transport, error))
    {
      ab_hb_raw_close (r);
      return NULL;
    }
  setsockopt (r->socket->sd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return r;
}

HbTHBaseServiceIf *
ab_hb_raw_client (AbHbRaw *r)
{
  return r->client;
}

static GByteArray *
bytes (const void *data, gsize len)
{
  GByteArray *a = g_byte_array_new ();
  g_byte_array_append (a, data, (guint) len);
  return a;
}

gboolean
ab_hb_raw_get_cell (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                    const guint8 *qual, gsize qlen, GByteArray **value, guint *n_cells,
                    GError **error)
{
  g_autoptr (GByteArray) t = bytes (table, strlen (table));
  HbTGet *get = g_object_new (HB_TYPE_T_GET, NULL);
  HbTResult *res = g_object_new (HB_TYPE_T_RESULT, NULL);
  HbTIOError *io = NULL;
  gboolean ok;
  get->row = bytes (row, rlen);
  *value = NULL;
  ok = hb_t_h_base_service_client_get (r->client, &res, t, get, &io, error);
  if (ok && n_cells != NULL)
    *n_cells = res->columnValues->len;
  for (guint i = 0; ok && i < res->columnValues->len; i++)
    {
      HbTColumnValue *cv = g_ptr_array_index (res->columnValues, i);
      if (cv->family->len == 1 && cv->family->data[0] == 'f' && cv->qualifier->len == qlen
          && (qlen == 0 || memcmp (cv->qualifier->data, qual, qlen) == 0))
        *value = g_byte_array_ref (cv->value);
    }
  if (io != NULL)
    g_prefix_error (error, "%s: ", io->message);
  g_clear_object (&io);
  g_object_unref (get);
  g_object_unref (res);
  return ok;
}

gboolean
ab_hb_raw_get (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen, GByteArray **value,
               GError **error)
{
  return ab_hb_raw_get_cell (r, table, row, rlen, (const guint8 *) "e", 1, value, NULL, error);
}

gboolean
ab_hb_raw_put (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen, const guint8 *value,
               gsize vlen, GError **error)
{
  g_autoptr (GByteArray) t = bytes (table, strlen (table));
  HbTPut *put = g_object_new (HB_TYPE_T_PUT, NULL);
  HbTColumnValue *cv = g_object_new (HB_TYPE_T_COLUMN_VALUE, NULL);
  HbTIOError *io = NULL;
  gboolean ok;
  put->row = bytes (row, rlen);
  cv->family = bytes ("f", 1);
  cv->qualifier = bytes ("e", 1);
  cv->value = bytes (value, vlen);
  g_ptr_array_add (put->columnValues, cv);
  ok = hb_t_h_base_service_client_put (r->client, t, put, &io, error);
  if (io != NULL)
    g_prefix_error (error, "%s: ", io->message);
  g_clear_object (&io);
  g_object_unref (put);
  return ok;
}

/* One f:e cell of row as a TPut. */
static HbTPut *
put_of (const guint8 *row, gsize rlen, const guint8 *value, gsize vlen)
{
  HbTPut *put = g_object_new (HB_TYPE_T_PUT, NULL);
  HbTColumnValue *cv = g_object_new (HB_TYPE_T_COLUMN_VALUE, NULL);
  put->row = bytes (row, rlen);
  cv->family = bytes ("f", 1);
  cv->qualifier = bytes ("e", 1);
  cv->value = bytes (value, vlen);
  g_ptr_array_add (put->columnValues, cv);
  return put;
}

static gboolean
raw_done (gboolean ok, HbTIOError *io, GError **error)
{
  if (io != NULL)
    g_prefix_error (error, "%s: ", io->message);
  g_clear_object (&io);
  return ok;
}

gboolean
ab_hb_raw_put_rows (AbHbRaw *r, const gchar *table, const guint8 *const *rows, const gsize *rlens,
                    guint n, const guint8 *value, gsize vlen, GError **error)
{
  g_autoptr (GByteArray) t = bytes (table, strlen (table));
  g_autoptr (GPtrArray) puts = g_ptr_array_new_with_free_func (g_object_unref);
  HbTIOError *io = NULL;
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (puts, put_of (rows[i], rlens[i], value, vlen));
  return raw_done (hb_t_h_base_service_client_put_multiple (r->client, t, puts, &io, error), io,
                   error);
}

gboolean
ab_hb_raw_check_and_put (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                         const guint8 *value, gsize vlen, gboolean *applied, GError **error)
{
  g_autoptr (GByteArray) t = bytes (table, strlen (table));
  g_autoptr (GByteArray) k = bytes (row, rlen), f = bytes ("f", 1), q = bytes ("e", 1);
  HbTPut *put = put_of (row, rlen, value, vlen);
  HbTIOError *io = NULL;
  gboolean ok = hb_t_h_base_service_client_check_and_put (r->client, applied, t, k, f, q, NULL, put,
                                                          &io, error);
  g_object_unref (put);
  return raw_done (ok, io, error);
}

gboolean
ab_hb_raw_check_and_delete (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen,
                            const guint8 *value, gsize vlen, gboolean *applied, GError **error)
{
  g_autoptr (GByteArray) t = bytes (table, strlen (table));
  g_autoptr (GByteArray) k = bytes (row, rlen), f = bytes ("f", 1), q = bytes ("e", 1);
  g_autoptr (GByteArray) v = bytes (value, vlen);
  HbTDelete *del = g_object_new (HB_TYPE_T_DELETE, NULL);
  HbTIOError *io = NULL;
  del->row = bytes (row, rlen);
  gboolean ok = hb_t_h_base_service_client_check_and_delete (r->client, applied, t, k, f, q, v, del,
                                                             &io, error);
  g_object_unref (del);
  return raw_done (ok, io, error);
}

gboolean
ab_hb_raw_increment (AbHbRaw *r, const gchar *table, const guint8 *row, gsize rlen, gint64 delta,
                     GError **error)
{
  g_autoptr (GByteArray) t = bytes (table, strlen (table));
  HbTIncrement *inc = g_object_new (HB_TYPE_T_INCREMENT, NULL);
  HbTColumnIncrement *col = g_object_new (HB_TYPE_T_COLUMN_INCREMENT, NULL);
  HbTResult *res = g_object_new (HB_TYPE_T_RESULT, NULL);
  HbTIOError *io = NULL;
  inc->row = bytes (row, rlen);
  col->family = bytes ("f", 1);
  col->qualifier = bytes ("e", 1);
  col->amount = delta;
  col->__isset_amount = TRUE;
  g_ptr_array_add (inc->columns, col);
  gboolean ok = hb_t_h_base_service_client_increment (r->client, &res, t, inc, &io, error);
  g_object_unref (res);
  g_object_unref (inc);
  return raw_done (ok, io, error);
}
