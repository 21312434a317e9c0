#!/bin/sh
# One engine, one API (docs/library.md): the programs outside src/engine (and
# the benches, the examples) include only the internal layer (engine.h,
# derive.h, core/state.h, queue/queue.h, topk/topk.h) or the public
# actionbase.h, never a header private to the engine's folders (their faces
# to each other: docs/architecture.md); white-box unit and fuzz tests may.
set -eu
top="${srcdir:-.}"
private='engine/(core/core|core/predicate|core/ulid|plan/plan|read/read|write/write|upkeep/upkeep|doc/doc|queue/queue-private)\.h'
bad=$( (cd "$top" && grep -rnE "#include \"$private\"" src tests/bench examples \
  --include='*.c' --include='*.h' | grep -v '^src/engine/') || true)
# an internal-layer header must not pull a private one in
leak=$( (cd "$top" && grep -nE "#include \"$private\"" src/engine/engine.h src/engine/derive.h \
  src/engine/core/state.h src/engine/queue/queue.h src/engine/topk/topk.h) || true)
bad="$bad$leak"
if [ -n "$bad" ]; then
  echo "private engine headers included outside src/engine:"
  echo "$bad"
  exit 1
fi
echo "test_layers: no private engine header outside src/engine"
