#!/bin/sh
# One engine, one API (docs/library.md): the programs outside src/engine (and
# the benches, the examples) include only the internal layer (engine.h,
# queue.h, derive.h, state.h, topk.h) or the public actionbase.h, never a header
# private to the engine; white-box unit and fuzz tests may.
set -eu
top="${srcdir:-.}"
private='engine/(engine-private|query-private|predicate|wide|doc)\.h'
bad=$( (cd "$top" && grep -rnE "#include \"$private\"" src tests/bench examples \
  --include='*.c' --include='*.h' | grep -v '^src/engine/') || true)
# an internal-layer header must not pull a private one in
leak=$( (cd "$top" && grep -nE "#include \"$private\"" src/engine/engine.h src/engine/queue.h \
  src/engine/derive.h src/engine/topk.h) || true)
bad="$bad$leak"
if [ -n "$bad" ]; then
  echo "private engine headers included outside src/engine:"
  echo "$bad"
  exit 1
fi
echo "test_layers: no private engine header outside src/engine"
