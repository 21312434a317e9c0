#!/usr/bin/env bash
# Starts a standalone HBase 2.6.1 (HMaster with an in-JVM ZooKeeper and region
# server, local filesystem, loopback only) plus the Thrift2 gateway in DIR,
# waits until a Thrift2 call succeeds and prints the gateway HOST:PORT.
#
# usage: hbase/start.sh DIR
# env:   AB_HBASE_PORT      gateway port (default: a free one)
#        AB_HBASE_FRAMED    1 = framed transport, 0 = buffered (default)
#        AB_HBASE_COMPACT   1 = compact protocol, 0 = binary (default)
#        AB_HBASE_TIMEOUT   seconds to wait for readiness (default 180)
#        AB_HBASE_HEAP      heap of the HBase JVM (default 1536m)
# Jars come from the local Maven repository (hbase/pom.xml). Stop with
# hbase/stop.sh DIR; logs are in DIR/logs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
timeout=${AB_HBASE_TIMEOUT:-180}

die () { echo "hbase/start.sh: $*" >&2; exit 1; }
for tool in java mvn; do
  command -v "$tool" >/dev/null || bash "$here/../deploy/install-deps.sh" >&2
  command -v "$tool" >/dev/null || die "$tool is missing (install maven and a JDK 17)"
done
if [ -f "$dir/master.pid" ] && kill -0 "$(cat "$dir/master.pid")" 2>/dev/null; then
  die "an HBase is already running in $dir (hbase/stop.sh $dir)"
fi
# A pid file left behind means the last HBase here was not stopped by
# hbase/stop.sh (killed, or the machine went down). Its in-JVM ZooKeeper
# kept the dead servers' sessions, which would hold the new master for
# their 90 s timeout and more; that state is transient (tables, rows and
# the write-ahead logs, replayed on start, are under root/), so it goes.
if [ -f "$dir/master.pid" ]; then
  echo "hbase/start.sh: $dir was not stopped cleanly: clearing its ZooKeeper state" >&2
  "$here/stop.sh" "$dir" >&2   # a gateway that outlived its master, the pid files
  rm -rf "$dir/zk"
fi

ports=()
for _ in 1 2 3 4; do ab_hb_free_port || die "no free port found"; ports+=("$ab_hb_port"); done
zk_port=${ports[0]} master_port=${ports[1]} rs_port=${ports[2]}
gw_port=${AB_HBASE_PORT:-${ports[3]}}

mkdir -p "$dir/conf" "$dir/logs" "$dir/tmp" "$dir/zk" "$dir/root"
cp "$here/log4j.properties" "$dir/conf/log4j.properties"
prop () { printf '  <property><name>%s</name><value>%s</value></property>\n' "$1" "$2"; }
{
  echo '<?xml version="1.0"?>'
  echo '<configuration>'
  prop hbase.cluster.distributed false
  prop hbase.tmp.dir "$dir/tmp"
  prop hbase.rootdir "file://$dir/root"
  prop hbase.unsafe.stream.capability.enforce false
  # Hadoop's LocalFileSystem keeps the WAL's tail in the JVM on hflush (its
  # checksum stream does not flush the file's buffer), so a killed HBase lost
  # writes it had acknowledged; the raw local file system hands each sync to
  # the OS, which keeps it across a kill -9 (not across a power cut).
  prop fs.file.impl org.apache.hadoop.fs.RawLocalFileSystem
  prop hbase.zookeeper.quorum 127.0.0.1
  prop hbase.zookeeper.property.clientPort "$zk_port"
  prop hbase.zookeeper.property.dataDir "$dir/zk"
  prop hbase.master.ipc.address 127.0.0.1
  prop hbase.regionserver.ipc.address 127.0.0.1
  prop hbase.master.hostname 127.0.0.1
  prop hbase.regionserver.hostname 127.0.0.1
  prop hbase.master.port "$master_port"
  prop hbase.regionserver.port "$rs_port"
  prop hbase.master.info.port -1
  prop hbase.regionserver.info.port -1
  prop hbase.thrift.info.port -1
  # A starved 2-core machine must not expire the in-JVM ZooKeeper session
  # (default 10 s locally, which aborts the master); max session = 20 ticks.
  prop hbase.zookeeper.property.tickTime 6000
  prop zookeeper.session.timeout.localHBaseCluster 90000
  prop zookeeper.session.timeout 90000
  # The master's own client gives up within a minute instead of twenty (the
  # gateway's, within 4 s: lib.sh, ab_hb_launch_gateway).
  prop hbase.client.operation.timeout 60000
  prop hbase.client.retries.number 10
  # Test runs create a few hundred small tables: no 2 MB MSLAB chunk per
  # region memstore, a smaller block cache, and no per-table latency metrics,
  # or the heap runs out (seen as OutOfMemoryError in region server calls).
  prop hbase.hregion.memstore.mslab.enabled false
  prop hbase.hregion.memstore.chunkpool.maxsize 0
  prop hfile.block.cache.size 0.2
  prop hbase.regionserver.enable.table.latencies false
  echo '</configuration>'
} > "$dir/conf/hbase-site.xml"

if [ ! -s "$dir/cp.txt" ]; then
  mkdir -p "$dir/logs"
  (cd "$here" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$dir/cp.txt") \
    > "$dir/logs/maven.log" 2>&1 \
    || { cat "$dir/logs/maven.log" >&2; die "maven could not resolve hbase/pom.xml"; }
fi
cp="$dir/conf:$(cat "$dir/cp.txt")"
nohup java "${jdk_flags[@]}" -Xmx${AB_HBASE_HEAP:-1536m} -Dab.log.file="$dir/logs/master.log" -cp "$cp" \
  org.apache.hadoop.hbase.master.HMaster start > "$dir/logs/master.out" 2>&1 < /dev/null &
echo $! > "$dir/master.pid"
ab_hb_launch_gateway "$dir" thrift "$gw_port"

deadline=$((SECONDS + timeout))
until ab_hb_probe "$gw_port"; do
  for p in master thrift; do
    kill -0 "$(cat "$dir/$p.pid")" 2>/dev/null && continue
    tail -n 30 "$dir/logs/$p.out" "$dir/logs/$p.log" >&2 2>/dev/null || true
    "$here/stop.sh" "$dir" >&2 || true
    die "the $p JVM exited during start-up (logs in $dir/logs)"
  done
  if [ "$SECONDS" -ge "$deadline" ]; then
    "$here/stop.sh" "$dir" >&2 || true
    die "HBase not ready after ${timeout}s (logs in $dir/logs)"
  fi
  sleep 1
done
echo "127.0.0.1:$gw_port" | tee "$dir/addr"
