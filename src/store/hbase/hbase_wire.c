/* Workarounds for libthrift_c_glib 0.17, all found by tests/fuzz/fuzz_hbase:
 * skipping unknown values (the library's skip frees an uninitialised pointer
 * when a string read fails and recurses without bound), called by the
 * generated client (thrift/decode-guards.awk) and by the exception reader
 * that replaces the library's; string, binary and message-header reads with
 * checked lengths (the compact protocol sign-extends a length into a
 * g_malloc0 of exabytes: abort); container headers of an unknown element
 * type fail instead of half-failing; the compact protocol's field-id stack
 * emptied on finalize; the finalize chain-up of the library classes
 * the backend instantiates. */
#include <thrift/c_glib/protocol/thrift_binary_protocol.h>
#include <thrift/c_glib/protocol/thrift_compact_protocol.h>
#include <thrift/c_glib/thrift_application_exception.h>
#include <thrift/c_glib/transport/thrift_buffered_transport.h>
#include <thrift/c_glib/transport/thrift_framed_transport.h>
#include <thrift/c_glib/transport/thrift_memory_buffer.h>
#include <thrift/c_glib/transport/thrift_socket.h>
#include "store/hbase/hbase-private.h"

/* HBase's Thrift2 structs nest a few levels; anything deeper is hostile. */
#define AB_HB_SKIP_MAX_DEPTH 32

static gint32 skip (ThriftProtocol *p, ThriftType type, guint depth, GError **error);

static gint32
skip_scalar (ThriftProtocol *p, ThriftType type, GError **error)
{
  gboolean b;
  gint8 i8;
  gint16 i16;
  gint32 i32;
  gint64 i64;
  gdouble d;
  switch (type)
    {
      case T_BOOL: return thrift_protocol_read_bool (p, &b, error);
      case T_BYTE: return thrift_protocol_read_byte (p, &i8, error);
      case T_I16: return thrift_protocol_read_i16 (p, &i16, error);
      case T_I32: return thrift_protocol_read_i32 (p, &i32, error);
      case T_I64: return thrift_protocol_read_i64 (p, &i64, error);
      case T_DOUBLE: return thrift_protocol_read_double (p, &d, error);
      default: break;
    }
  gpointer data = NULL; /* stays NULL when the read fails */
  guint32 len = 0;
  gint32 ret = thrift_protocol_read_binary (p, &data, &len, error);
  g_free (data);
  return ret;
}

/* One field's value of a struct being read (after its header). */
typedef gint32 (*FieldReader) (ThriftProtocol *p, ThriftType type, gint16 id, gpointer ctx,
                               GError **error);

/* A struct, field by field until T_STOP: bytes read, or -1. */
static gint32
read_struct (ThriftProtocol *p, FieldReader field, gpointer ctx, GError **error)
{
  gchar *name = NULL;
  gint32 ret, xfer = thrift_protocol_read_struct_begin (p, &name, error);
  g_free (name);
  if (xfer < 0)
    return -1;
  for (;;)
    {
      ThriftType ftype = T_STOP;
      gint16 fid = 0;
      name = NULL;
      ret = thrift_protocol_read_field_begin (p, &name, &ftype, &fid, error);
      g_free (name);
      if (ret < 0)
        return -1;
      xfer += ret;
      if (ftype == T_STOP)
        break;
      if ((ret = field (p, ftype, fid, ctx, error)) < 0
          || thrift_protocol_read_field_end (p, error) < 0)
        return -1;
      xfer += ret;
    }
  return (ret = thrift_protocol_read_struct_end (p, error)) < 0 ? -1 : xfer + ret;
}

static gint32
skip_field (ThriftProtocol *p, ThriftType type, gint16 id, gpointer depth, GError **error)
{
  (void) id;
  return skip (p, type, GPOINTER_TO_UINT (depth), error);
}

static gint32
skip_struct (ThriftProtocol *p, guint depth, GError **error)
{
  return read_struct (p, skip_field, GUINT_TO_POINTER (depth + 1), error);
}

/* Lists, sets and maps: n elements of one type (maps: n key/value pairs). */
static gint32
skip_container (ThriftProtocol *p, ThriftType type, guint depth, GError **error)
{
  ThriftType kt = T_STOP, vt = T_STOP;
  guint32 n = 0;
  gint32 ret, xfer;
  if (type == T_MAP)
    xfer = thrift_protocol_read_map_begin (p, &kt, &vt, &n, error);
  else if (type == T_SET)
    xfer = thrift_protocol_read_set_begin (p, &vt, &n, error);
  else
    xfer = thrift_protocol_read_list_begin (p, &vt, &n, error);
  if (xfer < 0)
    return -1;
  for (guint32 i = 0; i < n; i++)
    {
      if (type == T_MAP)
        {
          if ((ret = skip (p, kt, depth + 1, error)) < 0)
            return -1;
          xfer += ret;
        }
      if ((ret = skip (p, vt, depth + 1, error)) < 0)
        return -1;
      xfer += ret;
    }
  if (type == T_MAP)
    ret = thrift_protocol_read_map_end (p, error);
  else if (type == T_SET)
    ret = thrift_protocol_read_set_end (p, error);
  else
    ret = thrift_protocol_read_list_end (p, error);
  return ret < 0 ? -1 : xfer + ret;
}

static gint32
skip (ThriftProtocol *p, ThriftType type, guint depth, GError **error)
{
  if (depth > AB_HB_SKIP_MAX_DEPTH)
    {
      g_set_error (error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_DEPTH_LIMIT,
                   "reply nests values deeper than %d levels", AB_HB_SKIP_MAX_DEPTH);
      return -1;
    }
  switch (type)
    {
      case T_BOOL:
      case T_BYTE:
      case T_I16:
      case T_I32:
      case T_I64:
      case T_DOUBLE:
      case T_STRING: return skip_scalar (p, type, error);
      case T_STRUCT: return skip_struct (p, depth, error);
      case T_MAP:
      case T_SET:
      case T_LIST: return skip_container (p, type, depth, error);
      default:
        g_set_error (error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_INVALID_DATA,
                     "cannot skip a value of Thrift type %d", (int) type);
        return -1;
    }
}

gint32
ab_hb_thrift_skip (ThriftProtocol *protocol, ThriftType type, GError **error)
{
  return skip (protocol, type, 0, error);
}

/* ---- strings, binaries and message headers with checked lengths ---- */

/* HBase refuses cells over 10 MiB by default (hbase.client.keyvalue.maxsize). */
#define AB_HB_MAX_BYTES (64 * 1024 * 1024)

static gint32
read_varint32 (ThriftProtocol *p, gint32 *out, GError **error)
{
  guint32 v = 0;
  for (guint shift = 0, n = 1; shift < 35; shift += 7, n++)
    {
      guint8 b = 0;
      if (thrift_transport_read_all (p->transport, &b, 1, error) < 0)
        return -1;
      v |= (guint32) (b & 0x7f) << shift;
      if ((b & 0x80) == 0)
        {
          *out = (gint32) v;
          return (gint32) n;
        }
    }
  g_set_error_literal (error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_INVALID_DATA,
                       "variable-length integer longer than 5 bytes");
  return -1;
}

/* Length (i32 or varint) then bytes; text adds a NUL. Never leaves *buf set
 * on failure. */
static gint32
read_bytes (ThriftProtocol *p, gboolean text, gpointer *buf, guint32 *len, GError **error)
{
  gint32 n = 0;
  gint32 xfer = THRIFT_IS_COMPACT_PROTOCOL (p) ? read_varint32 (p, &n, error)
                                               : thrift_protocol_read_i32 (p, &n, error);
  *buf = NULL;
  *len = 0;
  if (xfer < 0)
    return -1;
  if (n < 0 || n > AB_HB_MAX_BYTES)
    {
      g_set_error (error, THRIFT_PROTOCOL_ERROR,
                   n < 0 ? THRIFT_PROTOCOL_ERROR_NEGATIVE_SIZE : THRIFT_PROTOCOL_ERROR_SIZE_LIMIT,
                   "string of %d bytes in a reply", n);
      return -1;
    }
  if (n == 0 && !text)
    return xfer;
  guint8 *data = g_malloc ((gsize) n + 1);
  if (n > 0 && thrift_transport_read_all (p->transport, data, (guint32) n, error) < 0)
    {
      g_free (data);
      return -1;
    }
  data[n] = 0;
  *buf = data;
  *len = (guint32) n;
  return xfer + n;
}

static gint32
read_string (ThriftProtocol *p, gchar **str, GError **error)
{
  guint32 len;
  return read_bytes (p, TRUE, (gpointer *) str, &len, error);
}

static gint32
read_binary (ThriftProtocol *p, gpointer *buf, guint32 *len, GError **error)
{
  return read_bytes (p, FALSE, buf, len, error);
}

static gint32
bad_header (GError **error, const gchar *what)
{
  g_set_error (error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_BAD_VERSION,
               "bad reply header: %s", what);
  return -1;
}

/* Strict binary header: version|type, name, seqid. */
static gint32
binary_message_begin (ThriftProtocol *p, gchar **name, ThriftMessageType *type, gint32 *seqid,
                      GError **error)
{
  gint32 word = 0, a, b, c;
  *name = NULL;
  if ((a = thrift_protocol_read_i32 (p, &word, error)) < 0)
    return -1;
  if (((guint32) word & 0xffff0000u) != 0x80010000u)
    return bad_header (error, "not a strict binary message");
  *type = (ThriftMessageType) (word & 0xff);
  if ((b = read_string (p, name, error)) < 0)
    return -1;
  if ((c = thrift_protocol_read_i32 (p, seqid, error)) < 0)
    {
      g_clear_pointer (name, g_free);
      return -1;
    }
  return a + b + c;
}

/* Compact header: 0x82, version 1 | type << 5, varint seqid, name. */
static gint32
compact_message_begin (ThriftProtocol *p, gchar **name, ThriftMessageType *type, gint32 *seqid,
                       GError **error)
{
  guint8 head[2];
  gint32 a, b;
  *name = NULL;
  if (thrift_transport_read_all (p->transport, head, 2, error) < 0)
    return -1;
  if (head[0] != 0x82 || (head[1] & 0x1f) != 1)
    return bad_header (error, "not a compact protocol version 1 message");
  *type = (ThriftMessageType) (head[1] >> 5);
  if ((a = read_varint32 (p, seqid, error)) < 0 || (b = read_string (p, name, error)) < 0)
    return -1;
  return 2 + a + b;
}

/* The library's list and set headers look up the minimum size of an
 * element type and, for a type it does not know, set an error yet return
 * success: the caller then sets another error over it. These wrappers fail
 * the read when the library left an error behind. */
typedef gint32 (*ListBegin) (ThriftProtocol *p, ThriftType *et, guint32 *n, GError **error);

static ListBegin list_reads[2], set_reads[2]; /* binary, compact */

static gint32
checked_begin (const ListBegin *reads, ThriftProtocol *p, ThriftType *et, guint32 *n,
               GError **error)
{
  GError *local = NULL;
  gint32 ret = reads[THRIFT_IS_COMPACT_PROTOCOL (p) ? 1 : 0](p, et, n, &local);
  if (local == NULL)
    return ret;
  g_propagate_error (error, local);
  return -1;
}

static gint32
list_begin (ThriftProtocol *p, ThriftType *et, guint32 *n, GError **error)
{
  return checked_begin (list_reads, p, et, n, error);
}

static gint32
set_begin (ThriftProtocol *p, ThriftType *et, guint32 *n, GError **error)
{
  return checked_begin (set_reads, p, et, n, error);
}

/* Map headers are read here: the library's looks up both types and, when
 * neither is known, sets its error twice. */
static gboolean
known_type (ThriftType t)
{
  switch (t)
    {
      case T_BOOL:
      case T_BYTE:
      case T_DOUBLE:
      case T_I16:
      case T_I32:
      case T_I64:
      case T_STRING:
      case T_STRUCT:
      case T_MAP:
      case T_SET:
      case T_LIST: return TRUE;
      default: return FALSE;
    }
}

/* A compact type nibble as a ThriftType (T_STOP when unknown). */
static ThriftType
compact_type (guint8 nibble)
{
  static const ThriftType types[] = { T_STOP,   T_BOOL,   T_BOOL, T_BYTE, T_I16, T_I32,   T_I64,
                                      T_DOUBLE, T_STRING, T_LIST, T_SET,  T_MAP, T_STRUCT };
  return nibble < G_N_ELEMENTS (types) ? types[nibble] : T_STOP;
}

static gint32
map_begin (ThriftProtocol *p, ThriftType *kt, ThriftType *vt, guint32 *n, GError **error)
{
  gint32 size = 0, xfer;
  guint8 types[2];
  if (THRIFT_IS_COMPACT_PROTOCOL (p))
    {
      if ((xfer = read_varint32 (p, &size, error)) < 0)
        return -1;
      *kt = *vt = T_STOP; /* an empty map has no type byte */
      if (size != 0)
        {
          if (thrift_transport_read_all (p->transport, types, 1, error) < 0)
            return -1;
          xfer += 1;
          *kt = compact_type (types[0] >> 4);
          *vt = compact_type (types[0] & 0x0f);
        }
    }
  else
    {
      gint32 ret;
      if (thrift_transport_read_all (p->transport, types, 2, error) < 0
          || (ret = thrift_protocol_read_i32 (p, &size, error)) < 0)
        return -1;
      xfer = 2 + ret;
      *kt = (ThriftType) types[0];
      *vt = (ThriftType) types[1];
    }
  if (size < 0)
    {
      g_set_error (error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_NEGATIVE_SIZE,
                   "map of %d entries in a reply", size);
      return -1;
    }
  if (size > 0 && (!known_type (*kt) || !known_type (*vt)))
    {
      g_set_error (error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_INVALID_DATA,
                   "map of unknown key or value type in a reply");
      return -1;
    }
  *n = (guint32) size;
  return xfer;
}

/* Several libthrift_c_glib classes (ThriftApplicationException, the socket,
 * buffered, framed and memory transports) finalize without chaining up to
 * GObject, so the qdata GObject attaches while unreffing leaks 32 bytes per
 * instance: per connection and per T_EXCEPTION reply. Their finalize is
 * wrapped once to finish with GObject's own (the generated structs get the
 * same fix from chain-finalize.awk). */
typedef struct {
  GType type;
  void (*finalize) (GObject *object);
} AbFinalizeFix;

static AbFinalizeFix fixes[5];

static void
finalize_chained (GObject *object)
{
  for (GType t = G_OBJECT_TYPE (object); t != 0; t = g_type_parent (t))
    for (guint i = 0; i < G_N_ELEMENTS (fixes); i++)
      if (fixes[i].type == t)
        {
          fixes[i].finalize (object);
          G_OBJECT_CLASS (g_type_class_peek (G_TYPE_OBJECT))->finalize (object);
          return;
        }
}

/* The compact protocol keeps a stack of field ids (a GQueue inside the
 * instance) that a reply cut inside a struct leaves non-empty, and its
 * finalize does not empty it: 24 bytes leaked per open struct. */
static void (*compact_finalize) (GObject *object);

static void
compact_finalize_emptied (GObject *object)
{
  g_queue_clear (&THRIFT_COMPACT_PROTOCOL (object)->_last_field);
  compact_finalize (object);
}

/* ThriftApplicationException's own reader skips unknown fields with the
 * library's skip too: read it here, unknown fields through ours. */
static gint32
exception_read_field (ThriftProtocol *p, ThriftType type, gint16 id, gpointer ctx, GError **error)
{
  ThriftApplicationException *x = ctx;
  if (id == 1 && type == T_STRING)
    {
      g_clear_pointer (&x->message, g_free);
      x->__isset_message = TRUE;
      return thrift_protocol_read_string (p, &x->message, error);
    }
  if (id == 2 && type == T_I32)
    {
      x->__isset_type = TRUE;
      return thrift_protocol_read_i32 (p, &x->type, error);
    }
  return skip (p, type, 1, error);
}

static gint32
exception_read (ThriftStruct *object, ThriftProtocol *p, GError **error)
{
  return read_struct (p, exception_read_field, THRIFT_APPLICATION_EXCEPTION (object), error);
}

void
ab_hb_thrift_fix_classes (void)
{
  static gsize done;
  if (!g_once_init_enter (&done))
    return;
  GType types[G_N_ELEMENTS (fixes)] = {
    THRIFT_TYPE_APPLICATION_EXCEPTION, THRIFT_TYPE_SOCKET,        THRIFT_TYPE_BUFFERED_TRANSPORT,
    THRIFT_TYPE_FRAMED_TRANSPORT,      THRIFT_TYPE_MEMORY_BUFFER,
  };
  for (guint i = 0; i < G_N_ELEMENTS (fixes); i++)
    {
      GObjectClass *klass = g_type_class_ref (types[i]); /* kept: classes live forever */
      fixes[i].type = types[i];
      fixes[i].finalize = klass->finalize;
      klass->finalize = finalize_chained;
    }
  THRIFT_STRUCT_CLASS (g_type_class_peek (THRIFT_TYPE_APPLICATION_EXCEPTION))->read
      = exception_read;
  GObjectClass *compact = g_type_class_ref (THRIFT_TYPE_COMPACT_PROTOCOL);
  compact_finalize = compact->finalize;
  compact->finalize = compact_finalize_emptied;
  GType protocols[] = { THRIFT_TYPE_BINARY_PROTOCOL, THRIFT_TYPE_COMPACT_PROTOCOL };
  for (guint i = 0; i < G_N_ELEMENTS (protocols); i++)
    {
      ThriftProtocolClass *klass = g_type_class_ref (protocols[i]);
      klass->read_string = read_string;
      klass->read_binary = read_binary;
      klass->read_message_begin = i == 0 ? binary_message_begin : compact_message_begin;
      list_reads[i] = klass->read_list_begin;
      set_reads[i] = klass->read_set_begin;
      klass->read_list_begin = list_begin;
      klass->read_set_begin = set_begin;
      klass->read_map_begin = map_begin;
    }
  g_once_init_leave (&done, 1);
}

gpointer
ab_hb_thrift_exception_new (void)
{
  ab_hb_thrift_fix_classes ();
  return g_object_new (THRIFT_TYPE_APPLICATION_EXCEPTION, NULL);
}
