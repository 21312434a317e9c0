#!/bin/sh
# Every declaration of the public header (a call, a type, an inline helper)
# sits right under a doc comment (/** ... */); the API reference builds
# from actionbase.h without a Doxygen warning (docs/Doxyfile fails on any)
# and names every call the header declares.
set -eu
hdr="${srcdir:-.}/src/lib/actionbase.h"
awk '
  /^\/\*\*/ { doc = 1 }
  /^\/\*[^*]/ || /^\/\*$/ { doc = 0 }
  /\*\/ *$/ && !/^ *[a-zA-Z_].*;.*\/\*/ { end = NR }
  /^(AB_DB_API|typedef|static inline)/ {
    if (!(doc && end == NR - 1)) { print FILENAME ":" NR ": no doc comment: " $0; bad++ }
  }
  END { exit bad > 0 }' "$hdr" || { echo "test_api_docs: undocumented declarations in $hdr"; exit 1; }
command -v doxygen >/dev/null || { echo "doxygen not installed (deploy/install-deps.sh --tests)"; exit 77; }
rm -rf docs/api
${MAKE:-make} -s api-docs
page=docs/api/html/actionbase_8h.html
[ -f "$page" ] || { echo "test_api_docs: $page not written"; exit 1; }
status=0
for f in $(sed -n 's/^AB_DB_API [^(]*[ *]\(ab_db_[a-z0-9_]*\) (.*/\1/p' "$hdr"); do
  grep -q ">$f<" "$page" || { echo "not in the reference: $f"; status=1; }
done
[ $status -ne 0 ] || echo "test_api_docs: every declaration documented, every call in $page"
exit $status
