/* libFuzzer target: decoding of HBase Thrift2 responses as the hbase backend
 * reads them: the generated c_glib client's recv functions (get, getMultiple,
 * getScannerResults, increment, checkAndMutate) over an in-memory transport
 * that fails at the end of the reply as a socket does, then the value and
 * the unpacked cells of every result; a binary getScannerResults reply also
 * through the hand-written reader (src/store/hbase/hbase_decode.c). The first byte
 * picks the protocol (binary / compact) and the call; the rest is the reply. */
#include <thrift/c_glib/protocol/thrift_binary_protocol.h>
#include <thrift/c_glib/protocol/thrift_compact_protocol.h>
#include <thrift/c_glib/transport/thrift_memory_buffer.h>
#include <string.h>
#include "fuzz.h"
#include "store/hbase/hbase-private.h"

void hb_types_ensure (void);

/* ThriftMemoryBuffer answers 0 bytes once drained, and thrift's read loops
 * (read_all, compact varints) spin on 0 forever; a socket at EOF or past its
 * receive timeout fails instead, so this one does too. */
typedef struct {
  ThriftMemoryBuffer parent;
} AbReplyBuffer;
typedef struct {
  ThriftMemoryBufferClass parent_class;
} AbReplyBufferClass;
GType ab_reply_buffer_get_type (void);
G_DEFINE_TYPE (AbReplyBuffer, ab_reply_buffer, THRIFT_TYPE_MEMORY_BUFFER)

static gint32
reply_read (ThriftTransport *transport, gpointer buf, guint32 len, GError **error)
{
  GByteArray *data = THRIFT_MEMORY_BUFFER (transport)->buf;
  if (len > 0 && data->len == 0)
    {
      g_set_error_literal (error, THRIFT_TRANSPORT_ERROR, THRIFT_TRANSPORT_ERROR_RECEIVE,
                           "end of reply");
      return -1;
    }
  guint32 give = MIN (len, data->len);
  memcpy (buf, data->data, give);
  g_byte_array_remove_range (data, 0, give);
  return (gint32) give;
}

static void
ab_reply_buffer_class_init (AbReplyBufferClass *klass)
{
  THRIFT_TRANSPORT_CLASS (klass)->read = reply_read;
}

static void
ab_reply_buffer_init (AbReplyBuffer *self)
{
}

/* What the backend reads out of a result: the narrow value, and every
 * cell of a row as datastore keys (wide rows unpacked). */
static void
results (GPtrArray *rows)
{
  g_autoptr (GArray) cells = ab_kv_array_new ();
  for (guint i = 0; rows != NULL && i < rows->len; i++)
    {
      ab_hb_result_value (g_ptr_array_index (rows, i));
      ab_hb_result_cells (g_ptr_array_index (rows, i), NULL, G_MAXUINT, cells);
    }
}

static void
recv_one (HbTHBaseServiceIf *c, guint call)
{
  HbTIOError *io = NULL;
  HbTResult *r = NULL;
  GPtrArray *rows = NULL;
  gboolean flag = FALSE;
  g_autoptr (GError) error = NULL;
  switch (call % 5)
    {
      case 0:
        r = g_object_new (HB_TYPE_T_RESULT, NULL); /* preallocated, as hbase.c does */
        hb_t_h_base_service_client_recv_get (c, &r, &io, &error);
        break;
      case 1:
        rows = g_ptr_array_new_with_free_func (g_object_unref);
        hb_t_h_base_service_client_recv_get_multiple (c, &rows, &io, &error);
        break;
      case 2:
        rows = g_ptr_array_new_with_free_func (g_object_unref);
        hb_t_h_base_service_client_recv_get_scanner_results (c, &rows, &io, &error);
        break;
      case 3:
        r = g_object_new (HB_TYPE_T_RESULT, NULL);
        hb_t_h_base_service_client_recv_increment (c, &r, &io, &error);
        break;
      default: hb_t_h_base_service_client_recv_check_and_mutate (c, &flag, &io, &error); break;
    }
  ab_hb_result_value (r);
  results (rows);
  g_clear_object (&r);
  g_clear_object (&io);
  g_clear_pointer (&rows, g_ptr_array_unref);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  /* One transport for the process, as the backend keeps its connections;
   * protocol and client are fresh per input, so no state carries over. */
  static ThriftMemoryBuffer *buf;
  if (buf == NULL)
    {
      hb_types_ensure ();
      ab_hb_thrift_fix_classes ();
      buf = g_object_new (ab_reply_buffer_get_type (), "buf_size", 1, NULL);
    }
  if (size < 1)
    return 0;
  g_byte_array_set_size (buf->buf, 0);
  g_byte_array_append (buf->buf, data + 1, (guint) size - 1);
  GObject *proto
      = g_object_new ((data[0] & 1) ? THRIFT_TYPE_COMPACT_PROTOCOL : THRIFT_TYPE_BINARY_PROTOCOL,
                      "transport", buf, NULL);
  GObject *client = g_object_new (HB_TYPE_T_H_BASE_SERVICE_CLIENT, "input_protocol", proto,
                                  "output_protocol", proto, NULL);
  recv_one (HB_T_H_BASE_SERVICE_IF (client), data[0] >> 1);
  g_object_unref (client);
  g_object_unref (proto);
  /* A binary getScannerResults reply: the same bytes through the
   * hand-written reader of whole-table reads (src/store/hbase/hbase_decode.c). */
  if ((data[0] & 1) == 0 && (data[0] >> 1) % 5 == 2)
    {
      AbHbPage page;
      HbTIOError *io = NULL;
      g_autoptr (GError) error = NULL;
      g_byte_array_set_size (buf->buf, 0);
      g_byte_array_append (buf->buf, data + 1, (guint) size - 1);
      ab_hb_page_init (&page);
      ab_hb_decode_scanner_results (THRIFT_TRANSPORT (buf), NULL, G_MAXUINT, &page, &io, &error);
      g_clear_object (&io);
      ab_hb_page_clear (&page);
    }
  return 0;
}
