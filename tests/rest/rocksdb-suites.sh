#!/usr/bin/env bash
# The REST suites on rocksdb (tests/rest/store-suites.sh), with the crash and
# queue suite whose server dies under load.
STORE=rocksdb SUITES_EXTRA="test_async test_hostile" exec bash "$(dirname "$0")/store-suites.sh"
