/* Workarounds for libthrift_c_glib 0.17 on the reply path, called by the
 * generated client instead of the library (thrift/decode-guards.awk), all
 * found by tests/fuzz/fuzz_hbase: skipping unknown values (the library's skip
 * frees an uninitialised pointer when a string read fails and recurses
 * without bound) and exception objects whose finalize chains up. */
#include <thrift/c_glib/thrift_application_exception.h>
#include "store/hbase-private.h"

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
  gpointer data = NULL;   /* stays NULL when the read fails */
  guint32 len = 0;
  gint32 ret = thrift_protocol_read_binary (p, &data, &len, error);
  g_free (data);
  return ret;
}

static gint32
skip_struct (ThriftProtocol *p, guint depth, GError **error)
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
      if ((ret = skip (p, ftype, depth + 1, error)) < 0
          || thrift_protocol_read_field_end (p, error) < 0)
        return -1;
      xfer += ret;
    }
  return (ret = thrift_protocol_read_struct_end (p, error)) < 0 ? -1 : xfer + ret;
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
      g_set_error (error, THRIFT_PROTOCOL_ERROR, THRIFT_PROTOCOL_ERROR_INVALID_DATA,
                   "reply nests values deeper than %d levels", AB_HB_SKIP_MAX_DEPTH);
      return -1;
    }
  switch (type)
    {
    case T_BOOL: case T_BYTE: case T_I16: case T_I32: case T_I64: case T_DOUBLE:
    case T_STRING:
      return skip_scalar (p, type, error);
    case T_STRUCT:
      return skip_struct (p, depth, error);
    case T_MAP: case T_SET: case T_LIST:
      return skip_container (p, type, depth, error);
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

/* ThriftApplicationException's finalize stops short of GObject's, so the
 * qdata GObject attaches while unreffing leaked 32 bytes per T_EXCEPTION
 * reply (the generated structs get the same fix from chain-finalize.awk). */
static void (*exception_finalize) (GObject *object);

static void
exception_finalize_chained (GObject *object)
{
  exception_finalize (object);
  G_OBJECT_CLASS (g_type_class_peek (G_TYPE_OBJECT))->finalize (object);
}

gpointer
ab_hb_thrift_exception_new (void)
{
  static gsize patched;
  if (g_once_init_enter (&patched))
    {
      GObjectClass *klass = g_type_class_ref (THRIFT_TYPE_APPLICATION_EXCEPTION);
      exception_finalize = klass->finalize;
      klass->finalize = exception_finalize_chained;
      g_once_init_leave (&patched, 1);
    }
  return g_object_new (THRIFT_TYPE_APPLICATION_EXCEPTION, NULL);
}
