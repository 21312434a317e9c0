# Post-processes the generated c_glib code (src/store/gen/*.c) where thrift
# 0.17's generator mishandles hostile replies; both found by tests/fuzz/fuzz_hbase
# and replayed by tests/unit/store/test_hbase_replies:
# 1. a reply's method name is checked with strncmp (fname, ...), but an empty
#    name leaves fname NULL: crash;
# 2. a binary field read twice in one struct (a repeated field id) frees the
#    first GByteArray with g_free, not g_byte_array_unref: heap corruption;
# 3. libthrift_c_glib's thrift_protocol_skip frees an uninitialised pointer
#    when a string read fails and recurses without bound: unknown fields are
#    skipped by ab_hb_thrift_skip (src/store/hbase_wire.c) instead;
# 4. its ThriftApplicationException leaks 32 bytes per T_EXCEPTION reply (no
#    finalize chain-up): made by ab_hb_thrift_exception_new instead.
# Lines are buffered so that a g_free (this_object->X) is only rewritten when
# the same case reads X into a new GByteArray a few lines on.
{ line[NR] = $0 }
END {
  for (i = 1; i <= NR; i++) {
    s = line[i]
    gsub(/strncmp \(fname, /, "strncmp (fname != NULL ? fname : \"\", ", s)
    gsub(/thrift_protocol_skip \(/, "ab_hb_thrift_skip (", s)
    gsub(/g_object_new \(THRIFT_TYPE_APPLICATION_EXCEPTION, NULL\)/, "ab_hb_thrift_exception_new ()", s)
    if (match(s, /g_free\(this_object->[A-Za-z_0-9]+\);/)) {
      field = substr(s, RSTART + 20, RLENGTH - 22)
      for (j = i + 1; j <= NR && j <= i + 12 && line[j] !~ /case [0-9]+:/; j++)
        if (index(line[j], "this_object->" field " = g_byte_array_new();")) {
          sub(/g_free\(this_object->/, "g_byte_array_unref(this_object->", s)
          break
        }
    }
    print s
    if (s ~ /^#include "hb_(hbase_types|t_h_base_service)\.h"$/)
      print "gint32 ab_hb_thrift_skip (ThriftProtocol *protocol, ThriftType type, GError **error);\n" \
            "gpointer ab_hb_thrift_exception_new (void);"
  }
}
