#!/bin/sh
# The API reference builds from actionbase.h without a Doxygen warning
# (docs/Doxyfile fails on any) and documents every call the header declares.
set -eu
command -v doxygen >/dev/null || { echo "doxygen not installed (deploy/install-deps.sh --tests)"; exit 77; }
rm -rf docs/api
${MAKE:-make} -s api-docs
page=docs/api/html/actionbase_8h.html
[ -f "$page" ] || { echo "test_api_docs: $page not written"; exit 1; }
status=0
for f in $(sed -n 's/^AB_DB_API [^(]*[ *]\(ab_db_[a-z0-9_]*\) (.*/\1/p' "${srcdir:-.}/src/lib/actionbase.h"); do
  grep -q ">$f<" "$page" || { echo "not in the reference: $f"; status=1; }
done
[ $status -ne 0 ] || echo "test_api_docs: every declared call is in $page"
exit $status
