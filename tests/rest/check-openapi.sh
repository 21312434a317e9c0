#!/usr/bin/env bash
# Checks docs/openapi.yaml against the server under `make check`, from the top
# build directory:
# - both ways against the router: every route `actionbased --routes` lists is
#   an operation of the document and every operation of the document is a
#   route (path parameters compared by position, not by name);
# - the document is valid OpenAPI (openapi-spec-validator);
# - a live server answers GET /openapi.yaml with the file's bytes and
#   GET /openapi.json with the same document as JSON;
# - Schemathesis runs every operation of the served document against that
#   server (an LMDB store with a file WAL, seeded with a database and a table)
#   with the checks not_a_server_error, status_code_conformance,
#   content_type_conformance and response_schema_conformance, and finds
#   nothing. AB_SCHEMATHESIS_EXAMPLES (default 20) bounds the examples of
#   each operation; the seed is fixed, so a run is repeatable. One operation
#   is left out: PUT /graph/health/readiness, whose {"ready": false} drains
#   the node on purpose (every later probe then answers 503; test_api covers
#   it). One worker: Hypothesis's own state checks trip with two.
# The Python tools come from PATH or from the venv deploy/install-deps.sh
# --tests makes (AB_PYTOOLS, default ~/.cache/actionbase-c/pytools). Exit 0,
# 1 on a failed check, 77 (SKIP) when they are missing and CI is not "true"
# (the route and serving checks ran); with CI=true a missing tool fails.
set -uo pipefail
top=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
build=$(pwd)
server=${AB_SERVER_BIN:-$build/src/actionbased}
doc=$top/docs/openapi.yaml
pytools=${AB_PYTOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/actionbase-c/pytools}
examples=${AB_SCHEMATHESIS_EXAMPLES:-20}
. "$top/tests/lib/check.sh"
ab_check_setup check-openapi
. "$top/tests/lib/server.sh"

[ -x "$server" ] || die "$server is not built (run from the top build directory after make)"
for tool in curl jq python3; do
  command -v "$tool" >/dev/null || die "$tool is not installed (deploy/install-deps.sh installs it)"
done

# ---- the document against the router, both ways ----
"$server" --routes >"$tmp/routes" || die "actionbased --routes failed"
python3 - "$doc" "$tmp/routes" <<'PY' || failed=1
import re, sys, yaml
doc = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
norm = lambda p: re.sub(r"\{[^}/]*\}", "{}", p)
routes = {}
for line in open(sys.argv[2]):
    method, pattern = line.split()
    routes[(method, norm(pattern))] = f"{method} {pattern}"
ops = {}
for path, item in (doc.get("paths") or {}).items():
    for method in ("get", "put", "post", "delete", "patch", "head", "options", "trace"):
        if method in item:
            ops[(method.upper(), norm(path))] = f"{method.upper()} {path}"
missing = sorted(routes[k] for k in routes.keys() - ops.keys())
extra = sorted(ops[k] for k in ops.keys() - routes.keys())
for r in missing:
    print(f"check-openapi: FAIL: served but not in docs/openapi.yaml: {r}", file=sys.stderr)
for r in extra:
    print(f"check-openapi: FAIL: in docs/openapi.yaml but not served: {r}", file=sys.stderr)
print(f"check-openapi: {len(routes)} routes, {len(ops)} operations", file=sys.stderr)
sys.exit(1 if missing or extra else 0)
PY

# ---- the tools ----
tool() {
  if command -v "$1" >/dev/null; then command -v "$1"
  elif [ -x "$pytools/bin/$1" ]; then echo "$pytools/bin/$1"
  fi
}
validator=$(tool openapi-spec-validator)
st=$(tool schemathesis)
missing_tools=
[ -n "$validator" ] || missing_tools+=" openapi-spec-validator"
[ -n "$st" ] || missing_tools+=" schemathesis"

if [ -n "$validator" ]; then
  "$validator" "$doc" >"$tmp/validator.log" 2>&1 || { cat "$tmp/validator.log" >&2; fail "docs/openapi.yaml is not valid OpenAPI"; }
fi

# ---- what a live server serves ----
ab_start_server api "lmdb:$tmp/db" --wal "file:$tmp/wal" --log-level warning
base=http://127.0.0.1:$port
curl -sS -m 30 -o "$tmp/served.yaml" "$base/openapi.yaml" || die "GET /openapi.yaml failed"
cmp -s "$doc" "$tmp/served.yaml" || fail "GET /openapi.yaml is not docs/openapi.yaml (rebuild?)"
curl -sS -m 30 -o "$tmp/served.json" -w '%{content_type}' "$base/openapi.json" >"$tmp/ctype" || die "GET /openapi.json failed"
grep -q '^application/json' "$tmp/ctype" || fail "GET /openapi.json: content type $(cat "$tmp/ctype")"
python3 - "$doc" "$tmp/served.json" <<'PY' || fail "GET /openapi.json is not docs/openapi.yaml as JSON"
import json, sys, yaml
sys.exit(0 if json.load(open(sys.argv[2])) == yaml.safe_load(open(sys.argv[1], encoding="utf-8")) else 1)
PY

# ---- Schemathesis on every operation ----
if [ -z "$st" ]; then
  if [ "${CI:-}" = true ]; then fail "missing:$missing_tools (deploy/install-deps.sh --tests installs them)"; exit 1; fi
  note "SKIP Schemathesis: missing$missing_tools (deploy/install-deps.sh --tests installs them)"
  [ "$failed" = 0 ] && exit 77
  exit 1
fi
# Some data for the operations to find: the database and table the
# document's examples name (docs/rest-api.md's story).
seed() {
  local code
  code=$(curl -sS -m 30 -o "$tmp/seed.out" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data-binary "$2" "$base$1") || die "seeding $1: curl failed"
  case $code in 2??) ;; *) cat "$tmp/seed.out" >&2; die "seeding $1 answered $code" ;; esac
}
seed /graph/v3/databases '{"database":"social","comment":"seed"}'
seed /graph/v3/databases/social/tables '{"table":"follows","comment":"seed","storage":"datastore://social/follows","mode":"SYNC","schema":{"type":"EDGE","source":{"type":"string","comment":""},"target":{"type":"string","comment":""},"direction":"BOTH","properties":[{"name":"created_at","type":"long","nullable":false,"comment":""}],"indexes":[{"index":"created_at_desc","fields":[{"field":"created_at","order":"DESC"}],"comment":""}]}}'
seed /graph/v3/databases/social/tables/follows/edges/sync '{"mutations":[{"type":"INSERT","edge":{"version":1000,"source":"alice","target":"bob","properties":{"created_at":1000}}},{"type":"INSERT","edge":{"version":1001,"source":"alice","target":"carol","properties":{"created_at":1001}}}]}'
note "Schemathesis $("$st" --version | awk '{print $NF}') on $base, $examples example(s) per operation"
"$st" run "$base/openapi.json" --url "$base" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --phases examples,coverage,fuzzing --max-examples "$examples" --seed 42 --workers 1 \
  --exclude-operation-id setReadiness \
  --request-timeout 30 --no-color \
  >"$tmp/schemathesis.log" 2>&1
rc=$?
if [ "$rc" != 0 ]; then
  cat "$tmp/schemathesis.log" >&2
  fail "Schemathesis found problems (exit $rc); the server's log: $(tail -5 "$tmp/api/stderr")"
else
  sed -n '/^API Operations:/,/^Test cases:/p;/generated, /p' "$tmp/schemathesis.log" \
    | grep -v '^ *$' | sed 's/^/check-openapi:   /' >&2
fi
kill -0 "${pids[0]}" 2>/dev/null || fail "the server died under Schemathesis: $(tail -20 "$tmp/api/stderr")"

[ "$failed" = 0 ] && note "docs/openapi.yaml matches the router and the server" && exit 0
exit 1
