#!/usr/bin/env bash
# Prints the HBase shell DDL of an actionbase-c table (namespace, family f,
# 1 version, ROW bloom filter, FAST_DIFF, NEW_VERSION_BEHAVIOR, regions
# pre-split on the first salt byte), for clusters where the store must not
# create it itself: run the output in `hbase shell`. The backend creates the
# same table on first use through a buffered (unframed) Thrift2 gateway; a
# framed gateway corrupts split keys and family attributes (README.md).
#
# usage: hbase/create-table.sh NAMESPACE [TABLE] [REGIONS] [COMPRESSION]
#        (defaults: actionbase, 16, NONE)
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 NAMESPACE [TABLE] [REGIONS] [COMPRESSION]" >&2; exit 2; }
ns=$1 table=${2:-actionbase} regions=${3:-16} compression=${4:-NONE}
case "$regions" in ''|*[!0-9]*) echo "REGIONS must be 1-256" >&2; exit 2 ;; esac
[ "$regions" -ge 1 ] && [ "$regions" -le 256 ] || { echo "REGIONS must be 1-256" >&2; exit 2; }
splits=""
for ((i = 1; i < regions; i++)); do
  splits+="${splits:+, }\"\\x$(printf %02x $((i * 256 / regions)))\""
done
[ "$ns" = default ] || echo "create_namespace '$ns' rescue nil"
printf "create '%s:%s', {NAME => 'f', VERSIONS => 1, BLOOMFILTER => 'ROW', " "$ns" "$table"
printf "DATA_BLOCK_ENCODING => 'FAST_DIFF', COMPRESSION => '%s', " "$compression"
printf "METADATA => {'NEW_VERSION_BEHAVIOR' => 'true'}}"
[ -n "$splits" ] && printf ", SPLITS => [%s]" "$splits"
printf "\n"
