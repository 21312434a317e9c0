#!/usr/bin/env bash
# Installs the Debian packages actionbase-c needs to build, test and benchmark,
# only when something is missing (so a warm machine skips apt entirely).
# Used by the README's start command, tests/run.sh and .ci/run.
# --tests (tests/run.sh) adds what only the test suites need: the browser suite
# of the web console (tests/browser) drives chromium through Selenium, the
# which-store smoke test compares against PostgreSQL, check-monitoring.sh runs
# promtool.
set -euo pipefail
for_tests=0
for arg in "$@"; do
  case $arg in
    --tests) for_tests=1 ;;
    *) echo "install-deps: unknown argument $arg (known: --tests)" >&2; exit 2 ;;
  esac
done
PKGS=(build-essential autoconf automake libtool pkg-config
      libglib2.0-dev libjson-glib-dev libh2o-evloop-dev libssl-dev libsoup-3.0-dev
      libthrift-c-glib-dev thrift-compiler libxxhash-dev liblmdb-dev check
      librocksdb-dev             # the log-structured store (rocksdb:DIR)
      libsqlite3-dev             # SQL transform steps of /graph/v3/query
      libmimalloc-dev            # the programs' allocator (configure --with-mimalloc)
      curl jq valgrind
      wrk                        # load generator of tests/bench/*-bench.sh
      libedit-dev libyaml-dev
      librdkafka-dev kcat
      openssl                    # throw-away certificates of tests/rest/test_tls
      python3-yaml               # tests/cli/check-deploy.sh parses deploy/k8s and compose.yaml
      clang-format               # tests/run.sh checks the C style against .clang-format
      clang libclang-rt-14-dev)  # libFuzzer targets (tests/fuzz/run.sh)
# The Kafka test broker (tests/kafka/start.sh) and the HBase of the HBase
# suites (hbase/start.sh) run on a JRE and are resolved with Maven: installed
# only when no java / mvn is on the PATH.
command -v java >/dev/null || PKGS+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || PKGS+=(maven)
# ... and the library's API reference (make api-docs, tests/lib/test_api_docs.sh),
# and PostgreSQL (initdb, pg_ctl, psql, pgbench) for tests/bench/which-store-smoke.sh,
# which starts its own server on a free loopback port, and Prometheus for its
# promtool only (tests/cli/check-monitoring.sh checks deploy/monitoring/ with
# it; the package's prometheus service is not used).
if [ "$for_tests" = 1 ]; then PKGS+=(chromium chromium-driver python3-selenium doxygen postgresql prometheus python3-venv); fi
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian's prometheus package enables and starts a Prometheus server; only
  # its promtool is wanted here, so the service this install started goes.
  if [[ " ${missing[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null \
    && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  fi
fi
# The API checks of tests/rest/check-openapi.sh come from PyPI, pinned, in a
# venv of their own (Debian has neither at these versions).
if [ "$for_tests" = 1 ]; then
  pytools=${AB_PYTOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/actionbase-c/pytools}
  if [ ! -x "$pytools/bin/schemathesis" ] || [ ! -x "$pytools/bin/openapi-spec-validator" ]; then
    echo "install-deps: installing Schemathesis and openapi-spec-validator into $pytools"
    python3 -m venv "$pytools"
    "$pytools/bin/pip" install -q --disable-pip-version-check \
      "schemathesis==4.32.5" "openapi-spec-validator==0.9.0"
  fi
fi
