#!/usr/bin/env bash
# Starts a single-node Apache Kafka 4.1.1 (KRaft broker+controller in one JVM,
# loopback only) with its data in DIR, waits until the broker answers a
# metadata request and prints its bootstrap address HOST:PORT.
#
# usage: tests/kafka/start.sh DIR
# env:   AB_KAFKA_TIMEOUT  seconds to wait for readiness (default 90)
#        AB_KAFKA_HEAP     JVM heap (default 512m)
# Jars come from the local Maven repository (tests/kafka/pom.xml). A second
# start on the same DIR (after tests/kafka/stop.sh DIR) keeps the ports, the
# cluster id and the topics, so clients reconnect to the same address. Logs
# are in DIR/logs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1"
dir=$(cd "$1" && pwd)
timeout=${AB_KAFKA_TIMEOUT:-90}
heap=${AB_KAFKA_HEAP:-512m}

die () { echo "tests/kafka/start.sh: $*" >&2; exit 1; }
for tool in java mvn kcat; do
  command -v "$tool" >/dev/null || bash "$here/../../deploy/install-deps.sh" >&2
  command -v "$tool" >/dev/null || die "$tool is missing (install maven, a JDK 17 and kcat)"
done
if [ -f "$dir/kafka.pid" ] && kill -0 "$(cat "$dir/kafka.pid")" 2>/dev/null; then
  die "a Kafka is already running in $dir (tests/kafka/stop.sh $dir)"
fi

# A port nobody listens on, probed on loopback, and outside the kernel's
# ephemeral range: the probe cannot see a client socket (or its TIME_WAIT) on a
# port, yet either makes the broker's bind fail with "Address already in use".
read -r eph_lo eph_hi < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null \
  || { eph_lo=32768; eph_hi=60999; }
if [ "$eph_lo" -gt 21024 ]; then port_lo=20000 port_n=$((eph_lo - 20000))
elif [ "$eph_hi" -lt 64511 ]; then port_lo=$((eph_hi + 1)) port_n=$((65535 - eph_hi))
else port_lo=20000 port_n=40000; fi   # no room outside: the old range
taken=" "
free_port () {
  local p
  for _ in $(seq 1 200); do
    p=$((port_lo + RANDOM % port_n))
    case "$taken" in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      taken="$taken$p "; echo "$p"; return 0
    fi
  done
  die "no free port found"
}

mkdir -p "$dir/logs" "$dir/data"
conf="$dir/server.properties"
if [ ! -s "$conf" ]; then
  port=$(free_port); cport=$(free_port)
  cat > "$conf" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
fi
port=$(sed -n 's|^advertised.listeners=PLAINTEXT://127.0.0.1:\([0-9]*\)$|\1|p' "$conf")
[ -n "$port" ] || die "cannot read the broker port from $conf"

if [ ! -s "$dir/cp.txt" ]; then
  (cd "$here" && mvn -q -B dependency:build-classpath -Dmdep.outputFile="$dir/cp.txt") >&2 \
    || die "maven could not resolve tests/kafka/pom.xml"
fi
cp=$(cat "$dir/cp.txt")
jvm=(-Xms128m "-Xmx$heap" -XX:+UseG1GC -XX:MaxGCPauseMillis=20
  -Djava.awt.headless=true -Djava.net.preferIPv4Stack=true
  "-Dlog4j2.configurationFile=$here/log4j2.properties" "-Dab.log.dir=$dir/logs")

# Format once: a random base64url cluster id (16 bytes, 22 characters). With
# controller.quorum.voters set, StorageTool wants no --standalone. One id in
# 64 starts with '-', which the tool's argument parser takes for an option
# ("--cluster-id: expected one argument"): such a first character becomes 'A'.
if [ ! -f "$dir/data/meta.properties" ]; then
  uuid=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  uuid=${uuid/#-/A}
  java "${jvm[@]}" -cp "$cp" kafka.tools.StorageTool format -t "$uuid" -c "$conf" \
    > "$dir/logs/format.out" 2>&1 || { cat "$dir/logs/format.out" >&2; die "storage format failed"; }
fi

# A session of its own: a caller that kills its process group (Check's forked
# tests do) must not take the broker with it. The JVM writes its own pid.
rm -f "$dir/kafka.pid"
setsid bash -c 'echo $$ > "$1"; shift; exec "$@"' _ "$dir/kafka.pid" \
  java "${jvm[@]}" -cp "$cp" kafka.Kafka "$conf" > "$dir/logs/kafka.out" 2>&1 < /dev/null &
for _ in $(seq 1 50); do [ -s "$dir/kafka.pid" ] && break; sleep 0.1; done
[ -s "$dir/kafka.pid" ] || die "the Kafka JVM did not start"

deadline=$((SECONDS + timeout))
until kcat -L -b "127.0.0.1:$port" -m 3 2>/dev/null | grep -q "broker 1 at"; do
  if ! kill -0 "$(cat "$dir/kafka.pid")" 2>/dev/null; then
    tail -n 30 "$dir/logs/kafka.out" "$dir/logs/server.log" >&2 2>/dev/null || true
    rm -f "$dir/kafka.pid"
    die "the Kafka JVM exited during start-up (logs in $dir/logs)"
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    "$here/stop.sh" "$dir" >&2 || true
    die "Kafka not ready after ${timeout}s (logs in $dir/logs)"
  fi
  sleep 0.5
done
echo "127.0.0.1:$port" | tee "$dir/addr"
