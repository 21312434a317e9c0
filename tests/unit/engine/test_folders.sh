#!/bin/sh
# The engine's folders call each other one way only (docs/architecture.md,
# "The engine's folders"): read from the built objects with nm, every call
# between two folders goes down this order, and a file includes another
# folder only through that folder's face header (engine/<folder>/<folder>.h).
set -eu
top="${srcdir:-.}"
build="${builddir:-.}"
order="core plan read topk write queue upkeep doc engine"
exec python3 - "$top" "$build" "$order" <<'PY'
import glob, os, re, subprocess, sys
top, build, order = sys.argv[1], sys.argv[2], sys.argv[3].split()
rank = {f: i for i, f in enumerate(order)}
bad = []
# 1. calls: which folder defines each symbol, which folders use it
objs = glob.glob(os.path.join(build, 'src/engine/*/libabcore_la-*.o')) + \
       glob.glob(os.path.join(build, 'src/engine/libabcore_la-*.o'))
if len(objs) < 30:
    print('test_folders: engine objects not built under', build); sys.exit(1)
defs, uses = {}, {}
# objects of sources that exist (a build tree may keep objects of moved files)
src_of = lambda o: os.path.join(top, os.path.relpath(os.path.dirname(o), build),
                                os.path.basename(o)[len('libabcore_la-'):-2] + '.c')
objs = [o for o in objs if os.path.exists(src_of(o))]
for o in objs:
    d = os.path.basename(os.path.dirname(o))
    folder = 'engine' if d == 'engine' else d
    if folder not in rank:
        bad.append('%s: folder %s is not in the order' % (o, folder)); continue
    out = subprocess.run(['nm', o], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        p = line.split()
        if len(p) == 3 and p[1] in 'TDBR':
            defs[p[2]] = folder
        elif len(p) == 2 and p[0] == 'U':
            uses.setdefault(folder, set()).add(p[1])
for f, syms in sorted(uses.items()):
    for s in sorted(syms):
        g = defs.get(s)
        if g is not None and g != f and rank[g] > rank[f]:
            bad.append('%s calls up into %s: %s' % (f, g, s))
# 2. includes: another folder only through its face
inc = re.compile(r'#include "engine/([a-z_]+)/([a-z_-]+)\.h"')
for path in glob.glob(os.path.join(top, 'src/engine/*/*.[ch]')):
    here = os.path.basename(os.path.dirname(path))
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        m = inc.search(line)
        if m and m.group(1) != here and m.group(2) != m.group(1):
            bad.append('%s:%d includes %s/%s.h, not the face %s/%s.h'
                       % (path, n, m.group(1), m.group(2), m.group(1), m.group(1)))
if bad:
    print('test_folders: the engine folders call or include against', ' < '.join(order))
    print('\n'.join(bad)); sys.exit(1)
print('test_folders: %d objects, every call between folders goes down %s'
      % (len(objs), ' < '.join(order)))
PY
