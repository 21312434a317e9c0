#!/usr/bin/env bash
# Checks deploy/monitoring/ under `make check`, from the top build directory:
# - `promtool check rules` on actionbase-rules.yaml, `promtool test rules` on
#   actionbase-rules.test.yaml (alerts fire, with their labels and text, on
#   synthetic series), and `promtool check rules` on a throw-away rules file
#   made of every PromQL expression of the dashboard (so that a panel's query
#   parses too);
# - the dashboard is JSON with a datasource variable DS_PROMETHEUS, an
#   instance variable, unique panel ids and a query in every panel;
# - `promtool check metrics` on every live server's /metrics (the text
#   format and Prometheus's naming rules: base units, HELP and TYPE);
# - every actionbase_* metric name the rules file (comments aside) and the
#   dashboard mention is one a live actionbased exports (a histogram's family
#   name counts, its _bucket/_sum/_count only where they are exported), and
#   every recording rule the dashboard or the alerts query
#   (level:actionbase_...:op) is defined in the rules file. Where:
#     memory server   `--store memory: --wal none`, after creating a database
#                     and a table and writing, reading, scanning and counting
#                     edges (README's tour): every name not below
#     rocksdb server  `--store rocksdb:TMP --wal file:TMP`, the same requests
#                     plus an ASYNC write the applier applies:
#                     actionbase_store_rocksdb_*, actionbase_applier_*
#     HBase           actionbase_store_rpc_*, actionbase_store_hbase_*: against
#                     docs/operations.md's metrics table, or, when
#                     AB_HBASE_ADDR names a Thrift2 gateway, a third server on
#                     hbase://$AB_HBASE_ADDR/abmon?table=mon<pid> (live)
#   Names outside actionbase_* (Prometheus's `up`, node_exporter's
#   node_filesystem_*) are not checked; the rules file marks them.
# Servers listen on 127.0.0.1:0 (the port is read from their "listening on"
# line) and are stopped, and the temp dirs removed, on any exit.
# Exit 0, 1 on a failed check, 77 (SKIP) when promtool is missing (Debian:
# prometheus; deploy/install-deps.sh --tests installs it) and CI is not
# "true" (the other checks ran); with CI=true a missing promtool fails.
set -uo pipefail
top=$(cd "${srcdir:-$(dirname "$0")/../..}" && pwd)
build=$(pwd)
server=${AB_SERVER_BIN:-$build/src/actionbased}
rules=$top/deploy/monitoring/actionbase-rules.yaml
rules_test=$top/deploy/monitoring/actionbase-rules.test.yaml
dash=$top/deploy/monitoring/actionbase-dashboard.json
ops_doc=$top/docs/operations.md
. "$top/tests/lib/check.sh"
ab_check_setup check-monitoring
. "$top/tests/lib/server.sh"

[ -x "$server" ] || die "$server is not built (run from the top build directory after make)"
for tool in curl jq; do
  command -v "$tool" >/dev/null || die "$tool is not installed (deploy/install-deps.sh installs it)"
done
for f in "$rules" "$rules_test" "$dash"; do [ -f "$f" ] || die "$f is missing"; done

# ---- promtool ----
no_promtool=""
if command -v promtool >/dev/null; then
  out=$(promtool check rules "$rules" 2>&1) || { echo "$out" >&2; fail "promtool check rules $rules"; }
  note "promtool check rules: $(tail -1 <<<"$out" | sed 's/^ *//')"
  # The alerts' unit tests (synthetic series; the test file names the rules file).
  out=$(cd "$(dirname "$rules_test")" && promtool test rules "$(basename "$rules_test")" 2>&1) \
    || { echo "$out" >&2; fail "promtool test rules $rules_test"; }
  note "promtool test rules: $(tail -1 <<<"$out" | sed 's/^ *//')"
elif [ "${CI:-}" = true ]; then
  fail "promtool is not installed and CI=true (Debian: prometheus; deploy/install-deps.sh --tests)"
else
  no_promtool=1
  note "promtool is not installed: rules not checked by promtool (Debian: prometheus)"
fi

# ---- the dashboard's structure, and its queries as a rules file ----
jq -e . "$dash" >/dev/null || die "$dash is not JSON"
jq -e '.templating.list | any(.name == "DS_PROMETHEUS" and .type == "datasource" and .query == "prometheus")' \
  "$dash" >/dev/null || fail "dashboard: no datasource variable DS_PROMETHEUS (type datasource, query prometheus)"
jq -e '.templating.list | any(.name == "instance" and .type == "query")' "$dash" >/dev/null \
  || fail "dashboard: no instance variable"
dups=$(jq -r '[.. | objects | select(has("gridPos")) | .id] | group_by(.) | map(select(length > 1) | .[0]) | .[]' "$dash")
[ -z "$dups" ] || fail "dashboard: panel ids used twice: $dups"
empty=$(jq -r '.. | objects | select(has("gridPos") and .type != "row")
               | select([.targets[]?.expr // empty] | length == 0) | .title' "$dash")
[ -z "$empty" ] || fail "dashboard: panels without a query: $empty"
bad_ds=$(jq -r '[.. | objects | select(has("datasource")) | .datasource | objects
                 | select(.type == "prometheus" and .uid != "${DS_PROMETHEUS}")] | length' "$dash")
[ "$bad_ds" = 0 ] || fail "dashboard: $bad_ds Prometheus datasource references not through \${DS_PROMETHEUS}"
if [ -z "$no_promtool" ] && command -v promtool >/dev/null; then
  # Grafana's variables replaced by what they stand for, one recording rule each.
  jq -r '[.. | objects | .expr? // empty] | to_entries[]
         | "      - record: dashboard:query:\(.key)\n        expr: \(.value | tojson)"' "$dash" \
    | sed -e 's/\$__rate_interval/5m/g' -e 's/\$__interval/1m/g' -e 's/\$instance/.*/g' \
    | { echo "groups:"; echo "  - name: dashboard-queries"; echo "    rules:"; cat; } > "$tmp/dashboard-queries.yaml"
  out=$(promtool check rules "$tmp/dashboard-queries.yaml" 2>&1) \
    || { echo "$out" >&2; fail "a dashboard query does not parse (promtool, see above)"; }
  note "promtool on the dashboard's $(grep -c 'record:' "$tmp/dashboard-queries.yaml") queries: $(tail -1 <<<"$out" | sed 's/^ *//')"
fi

# ---- the names the two files use ----
# Identifiers (metric names and recording rules: letters, digits, _ and :)
# containing actionbase_; the rules file without its comment lines.
# A colon that ends a token is prose ("actionbase_up: ..."), not a rule name.
idents() { grep -oE '[A-Za-z_:][A-Za-z0-9_:]*' | sed -E 's/^:+//; s/:+$//' | grep 'actionbase_' | sort -u; }
rule_idents=$(grep -vE '^[[:space:]]*#' "$rules" | idents)
dash_idents=$(idents < "$dash")
defined_records=$(sed -n 's/^[[:space:]]*-[[:space:]]*record:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$rules" | sort -u)
for r in $(printf '%s\n%s\n' "$rule_idents" "$dash_idents" | grep ':' | sort -u); do
  grep -qxF "$r" <<<"$defined_records" || fail "recording rule $r is used but not defined in $rules"
done
names=$(printf '%s\n%s\n' "$rule_idents" "$dash_idents" | grep -v ':' | grep -E '^actionbase_[a-z0-9_]+$' | sort -u)
odd=$(printf '%s\n%s\n' "$rule_idents" "$dash_idents" | grep -v ':' | grep -vE '^actionbase_[a-z0-9_]*[a-z0-9]$' | sort -u)
[ -z "$odd" ] || fail "not metric names (a glob or a typo?): $(tr '\n' ' ' <<<"$odd")"
[ -n "$names" ] || die "no actionbase_* names found in the rules and the dashboard"
# A name's place: hbase, rocksdb (the rocksdb server: rocksdb and applier
# series) or memory.
place_of() {
  case $1 in
    actionbase_store_rpc_* | actionbase_store_hbase_*) echo hbase ;;
    actionbase_store_rocksdb_* | actionbase_applier_*) echo rocksdb ;;
    *) echo memory ;;
  esac
}

# ---- live servers ----
# start NAME STORE [ARGS...]: runs actionbased in $tmp/NAME, sets port.
start() {
  ab_start_server "$@"
  note "$1 server on 127.0.0.1:$port (--store $2 ${*:3})"
}
# call METHOD PATH [BODY]: 200 required; prints the answer.
call() {
  local out code
  out=$(curl -sS -m 30 -X "$1" -H 'Content-Type: application/json' ${3:+--data-binary "$3"} \
    -w '\n%{http_code}' "http://127.0.0.1:$port$2") || die "$1 $2: curl failed"
  code=${out##*$'\n'}
  [ "$code" = 200 ] || die "$1 $2 -> $code: ${out%$'\n'*}"
  printf '%s' "${out%$'\n'*}"
}
# traffic [MODE]: the README's tour on the server at $port (a table likes in
# database social), so that the labelled series appear.
table_body() {
  cat <<EOF
{"table": "$1", "comment": "check-monitoring", "storage": "datastore://social/$1", "mode": "$2",
 "schema": {"type": "EDGE",
  "source": {"type": "string", "comment": "user"}, "target": {"type": "string", "comment": "item"},
  "properties": [{"name": "createdAt", "type": "long", "nullable": false, "comment": ""}],
  "direction": "BOTH",
  "indexes": [{"index": "recent", "fields": [{"field": "createdAt", "order": "DESC"}]}]}}
EOF
}
edges='{"mutations":[
  {"type":"INSERT","edge":{"version":1,"source":"alice","target":"phone","properties":{"createdAt":1000}}},
  {"type":"INSERT","edge":{"version":2,"source":"alice","target":"laptop","properties":{"createdAt":2000}}},
  {"type":"INSERT","edge":{"version":3,"source":"bob","target":"phone","properties":{"createdAt":3000}}}]}'
traffic() {
  local t=/graph/v3/databases/social/tables/likes/edges out
  call POST /graph/v3/databases '{"database":"social","comment":"check-monitoring"}' >/dev/null
  call POST /graph/v3/databases/social/tables "$(table_body likes SYNC)" >/dev/null
  out=$(call POST "$t" "$edges") && grep -q CREATED <<<"$out" || die "POST $t: no CREATED in the answer"
  call GET "$t/get?source=alice&target=phone" >/dev/null
  call GET "$t/scan/recent?start=alice&direction=OUT" >/dev/null
  out=$(call GET "$t/count?start=phone&direction=IN") && grep -q '"count":2' <<<"$out" \
    || die "GET $t/count: not 2"
  call POST "$t" '{"mutations":[{"type":"DELETE","edge":{"version":4,"source":"alice","target":"phone"}}]}' >/dev/null
  # a 404 too, so that a non-200 status series exists
  curl -s -o /dev/null "http://127.0.0.1:$port/graph/v3/databases/social/tables/nosuchtable"
}
# exported FILE: the names /metrics exports: every sample's name, and the
# family name of a histogram or summary that has samples.
exported() {
  { grep -vE '^#|^$' "$1" | sed -E 's/[{ ].*//'
    sed -n 's/^# TYPE \([^ ]*\) \(histogram\|summary\)$/\1/p' "$1" | while read -r fam; do
      grep -qE "^${fam}(_bucket|_sum|_count)?[{ ]" "$1" && echo "$fam"
    done; } | sort -u
}
metrics() { # NAME: /metrics of the server at $port into $tmp/NAME.metrics, linted
  curl -sS -m 10 -f "http://127.0.0.1:$port/metrics" > "$tmp/$1.metrics" || die "$1 server: GET /metrics failed"
  exported "$tmp/$1.metrics" > "$tmp/$1.names"
  if [ -z "$no_promtool" ]; then
    out=$(promtool check metrics < "$tmp/$1.metrics" 2>&1) \
      || { echo "$out" >&2; fail "$1 server: promtool check metrics finds the exposition wrong (above)"; }
  fi
}

start memory memory: --wal none
traffic
metrics memory

start rocksdb "rocksdb:$tmp/rocksdb/data" --wal "file:$tmp/rocksdb/wal"
traffic
# An ASYNC write, applied by the applier: its lag series then carry a sample.
call POST /graph/v3/databases/social/tables "$(table_body queued ASYNC)" >/dev/null
out=$(call POST /graph/v3/databases/social/tables/queued/edges "$edges") && grep -q QUEUED <<<"$out" \
  || die "POST .../queued/edges: no QUEUED in the answer"
for ((i = 0; i < 300; i++)); do  # bounded: 30 s
  metrics rocksdb
  applied=$(sed -n 's/^actionbase_applier_records_total{outcome="applied"} \([0-9]*\)$/\1/p' "$tmp/rocksdb.metrics")
  [ "${applied:-0}" -ge 3 ] && break
  sleep 0.1
done
[ "${applied:-0}" -ge 3 ] || fail "rocksdb server: the applier applied ${applied:-no} records of 3 within 30 s"

hbase_where="docs/operations.md metrics table"
if [ -n "${AB_HBASE_ADDR:-}" ]; then
  start hbase "hbase://$AB_HBASE_ADDR/abmon?table=mon$$" --wal none
  traffic
  metrics hbase
  hbase_where="live hbase server"
else
  note "AB_HBASE_ADDR is not set: HBase names are checked against docs/operations.md's metrics table"
  # The table's first column: `name`, or several `name`s separated by commas.
  sed -n '/^## Metrics reference/,/^## /p' "$ops_doc" | grep '^| `actionbase_' | cut -d'|' -f2 \
    | grep -oE '`actionbase_[a-z0-9_]+`' | tr -d '`' | sort -u > "$tmp/hbase.names"
  [ -s "$tmp/hbase.names" ] || die "no metric names found in docs/operations.md's Metrics reference table"
fi

# ---- every name where it lives ----
declare -A checked
for name in $names; do
  where=$(place_of "$name")
  case $where in
    memory) label="live memory server" ;;
    rocksdb) label="live rocksdb server (file WAL, applier)" ;;
    hbase) label=$hbase_where ;;
  esac
  if grep -qxF "$name" "$tmp/$where.names"; then
    checked[$label]+=" $name"
  else
    fail "$name (used in deploy/monitoring) is not in the $label"
  fi
done
for label in "${!checked[@]}"; do
  n=$(wc -w <<<"${checked[$label]}")
  note "$n name(s) checked against the $label:${checked[$label]}"
done

[ "$failed" = 0 ] || exit 1
if [ -n "$no_promtool" ]; then
  echo "SKIP: promtool is not installed (Debian: prometheus): the rules were not checked by promtool" >&2
  exit 77
fi
note "all monitoring checks passed"
