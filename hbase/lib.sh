# Shared by hbase/start.sh and hbase/gateway.sh (sourced, not run): the JDK 17
# flags of the HBase JVMs, free ports, launching a Thrift2 gateway JVM of the
# HBase in a directory, and the readiness probe of a gateway port.
# env: AB_HBASE_FRAMED / AB_HBASE_COMPACT (1 = framed / compact, default 0).
framed=${AB_HBASE_FRAMED:-0}
compact=${AB_HBASE_COMPACT:-0}

jdk_flags=(-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true
  --add-modules jdk.unsupported
  --add-opens java.base/java.io=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED
  --add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED
  --add-opens java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.lang.reflect=ALL-UNNAMED
  --add-opens java.base/java.util=ALL-UNNAMED
  --add-opens java.base/java.util.concurrent=ALL-UNNAMED
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED
  --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED
  --add-exports java.base/sun.net.dns=ALL-UNNAMED
  --add-exports java.base/sun.net.util=ALL-UNNAMED
  -Djava.net.preferIPv4Stack=true -XX:+UseG1GC)

# ab_hb_free_port: a loopback port nobody listens on, outside the kernel's
# ephemeral range (a client socket or its TIME_WAIT on a port is invisible to
# the probe yet makes a bind fail), and not handed out before in this shell:
# sets ab_hb_port (not a subshell, so that the ports taken are remembered).
ab_hb_taken=" "
ab_hb_free_port () {
  local lo hi base span p
  read -r lo hi < /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || { lo=32768; hi=60999; }
  if [ "$lo" -gt 21024 ]; then base=20000 span=$((lo - 20000))
  elif [ "$hi" -lt 64511 ]; then base=$((hi + 1)) span=$((65535 - hi))
  else base=20000 span=40000; fi
  for _ in $(seq 1 200); do
    p=$((base + RANDOM % span))
    case "$ab_hb_taken" in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      ab_hb_taken="$ab_hb_taken$p "; ab_hb_port=$p; return 0
    fi
  done
  return 1
}

# ab_hb_launch_gateway DIR NAME PORT: a Thrift2 gateway on 127.0.0.1:PORT for
# the HBase configured in DIR/conf (classpath DIR/cp.txt), in the background;
# pid in DIR/NAME.pid, logs DIR/logs/NAME.{out,log}.
#
# The gateway's own HBase client gives up on a call before the node does
# (hbase.client.operation.timeout 4 s, below the node's timeout_ms of 5 s;
# AB_HBASE_GATEWAY_TIMEOUT_MS): a call the node has given up on must never be
# applied after the node's healer replayed it, or a Count increment would
# count twice (docs/hbase-adapter.md §3.8). The master keeps DIR/conf; the
# gateway reads DIR/conf-gateway first.
ab_hb_launch_gateway () {
  local dir=$1 name=$2 port=$3
  local flags=(-b 127.0.0.1 -p "$port" --infoport -1)
  [ "$framed" = 1 ] && flags+=(-f)
  [ "$compact" = 1 ] && flags+=(-c)
  mkdir -p "$dir/conf-gateway"
  sed "s#<name>hbase.client.operation.timeout</name><value>[0-9]*</value>#<name>hbase.client.operation.timeout</name><value>${AB_HBASE_GATEWAY_TIMEOUT_MS:-4000}</value>#" \
    "$dir/conf/hbase-site.xml" > "$dir/conf-gateway/hbase-site.xml"
  nohup java "${jdk_flags[@]}" -Xmx256m -Dab.log.file="$dir/logs/$name.log" \
    -cp "$dir/conf-gateway:$dir/conf:$(cat "$dir/cp.txt")" \
    org.apache.hadoop.hbase.thrift2.ThriftServer "${flags[@]}" start \
    > "$dir/logs/$name.out" 2>&1 < /dev/null &
  echo $! > "$dir/$name.pid"
}

# ab_hb_probe PORT: readiness. listNamespaces needs the master and hbase:meta,
# unlike getThriftServerType. The call is written by hand (binary or compact,
# framed or not) and the reply's first field tells success (id 0) from
# TIOError (id 1).
ab_hb_probe () {
  local port=$1 msg hdr out
  if [ "$compact" = 1 ]; then
    msg='\x82\x21\x00\x0elistNamespaces\x00'; hdr=18
  else
    msg='\x80\x01\x00\x01\x00\x00\x00\x0elistNamespaces\x00\x00\x00\x00\x00'; hdr=26
  fi
  [ "$framed" = 1 ] && { msg="\\x00\\x00\\x00\\x$(printf %02x $((hdr + 1)))$msg"; hdr=$((hdr + 4)); }
  out=$(timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port && printf '$msg' >&3 \
        && head -c $((hdr + 3)) <&3 | od -An -tx1 -v" 2>/dev/null | tr -d ' \n') || return 1
  [ "${#out}" -ge $(((hdr + 1) * 2)) ] || return 1
  case "${out:$((hdr * 2)):2}" in 0f|09) return 0 ;; *) return 1 ;; esac
}
