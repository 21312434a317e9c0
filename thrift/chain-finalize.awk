# Post-processes the c_glib code generated from hbase.thrift (thrift 0.17):
# the generated struct finalizers do not chain up to GObject's, so the qdata
# GObject attaches while unreffing leaks 32 bytes per struct. This adds the
# chain-up as the last statement of every generated *_finalize function.
/^[a-z_0-9]+_finalize \(GObject \*object\)$/ { in_fin = 1 }
in_fin && /^}$/ {
  print "  G_OBJECT_CLASS (g_type_class_peek_parent (G_OBJECT_GET_CLASS (object)))->finalize (object);"
  in_fin = 0
}
{ print }
