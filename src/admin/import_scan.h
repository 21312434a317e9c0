/* The import's fast reader of one JSON Lines edge: a flat object of scalars
 * with at most one nested flat "properties" object, read in place without
 * json-glib; anything it does not handle is left to json-glib. */
#pragma once
#include <glib.h>
#include "codec/value.h"

/* One member of the line's object or of its "properties" object. */
typedef struct {
  const gchar *name; /* into the line, not terminated */
  gsize name_len;
  gboolean in_props;  /* a member of "properties" */
  gboolean is_object; /* the top-level "properties" object itself (value unset) */
  AbValue value;      /* null, bool, INT64 or STRING; a STRING's bytes are borrowed
                       * from the line (never ab_value_clear it) */
} AbImportMember;

/* Scans line (a NUL-terminated record) into members (AbImportMember, no
 * clear func). TRUE: the line is exactly one JSON object whose members are
 * strings without escapes, integers that fit in 64 bits, true, false, null,
 * or (top-level "properties" only) a flat object of those, no name repeated
 * at one level; with `terminate` the line is then modified in place so that
 * each STRING value is NUL-terminated (without, the line is only read and a
 * STRING is known by its length alone). FALSE: anything else (nested values,
 * escapes, numbers with a fraction or exponent, invalid UTF-8, malformed
 * JSON); the line is unchanged and members means nothing: parse it with
 * json-glib instead. */
gboolean ab_import_scan_edge (gchar *line, GArray *members, gboolean terminate);
