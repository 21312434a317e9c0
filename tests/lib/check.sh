# Sourced by the shell checks of `make check` (tests/cli/check-monitoring.sh,
# tests/rest/check-openapi.sh): note/fail/die under the check's name, a
# temp dir $tmp, and the servers in pids stopped and $tmp removed on any exit.
# Then tests/lib/server.sh starts servers. Usage: ab_check_setup NAME

ab_check_setup() {
  ab_check_name=$1
  failed=0
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/ab-$1.XXXXXX")
  pids=()
  trap ab_check_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}
note() { echo "$ab_check_name: $*" >&2; }
fail() { echo "$ab_check_name: FAIL: $*" >&2; failed=1; }
die() { echo "$ab_check_name: FAIL: $*" >&2; exit 1; }
ab_check_cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
