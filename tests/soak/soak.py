#!/usr/bin/env python3
"""The soak of issue 41: a real actionbased under a mixed read and write load
for N minutes while infrastructure faults are injected at random, then the
invariants every fault test asserts, checked once more over the whole run:

  - no acknowledged write is lost (every edge answered CREATED or QUEUED is
    read back once the applier caught up);
  - no answer came later than the request timeout (--request-max-s);
  - every refusal is a JSON error {timestamp, status, error, message} with
    status 503 (500 and others are counted as wrong);
  - service resumes without a restart once the dependency is back (seconds
    to the first acknowledged write after each fault, goal <= 5);
  - counts equal scans for every source written, and actionbase-verify finds
    nothing, with no repair run (seconds to consistency, goal <= 30).

Faults (--faults, comma-separated; each needs what its setup needs):
  wal-disk      the file WAL on a tmpfs of its own (root) filled for a while
  kafka         the Kafka WAL's broker (tests/kafka/start.sh, a private one)
                stopped and started again
  gateway-stall the HBase Thrift2 gateway stopped (SIGSTOP) for a while
  gateway-kill  the gateway killed (-9) and started again (hbase/gateway.sh)
  hbase-kill    HBase itself (the standalone JVM of DIR) killed (-9) and
                started again with hbase/start.sh DIR; the extra gateway
                with it, on the same port
The store is LMDB in a temp dir, or HBase with --hbase DIR (a running
hbase/start.sh DIR; the faults use an extra gateway of its own).
Writes are acknowledged again within 5 s of a fault's end, except after
hbase-kill: HBase answers once its master is up, and then reassigns the
killed server's regions and replays its write-ahead logs, so writes may be
refused (503) for a while; the bound there is 120 s after hbase/start.sh.

usage: tests/soak/soak.py --server build/release/src/actionbased
                          [--verify build/release/src/actionbase-verify]
                          [--minutes 10] [--faults wal-disk] [--hbase DIR]
                          [--writers 4] [--readers 2] [--seed N]
Exit 0 when every invariant held, 1 otherwise; a summary is printed either way.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DB, TABLE = "soak", "edges"
T = f"/graph/v3/databases/{DB}/tables/{TABLE}"


def log(msg):
    print(f"soak: {msg}", file=sys.stderr, flush=True)


class Server:
    """actionbased on a free loopback port, its stderr in DIR/stderr."""

    def __init__(self, binary, workdir, args):
        os.makedirs(workdir, exist_ok=True)
        self.err = open(os.path.join(workdir, "stderr"), "w+")
        self.proc = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--log-level", "warning"] + args,
                                     cwd=workdir, stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.time() + 60
        self.port = None
        while self.port is None and time.time() < deadline and self.proc.poll() is None:
            with open(self.err.name) as f:
                m = re.search(r"^listening on .*:(\d+)$", f.read(), re.M)
            self.port = m and int(m.group(1))
            time.sleep(0.1)
        if self.port is None:
            raise SystemExit("soak: actionbased did not start: " + open(self.err.name).read()[-2000:])
        self.base = f"http://127.0.0.1:{self.port}"

    def call(self, method, path, body=None, timeout=30):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def ok(self, method, path, body=None, busy_ok=False):
        """The JSON answer of a 200; with busy_ok, a JSON 503 (the store still
        recovering) raises Busy for the caller to ask again; else it fails."""
        status, raw = self.call(method, path, body)
        if status == 503 and busy_ok and refusal_ok(status, raw):
            raise Busy(raw[:500])
        if status != 200:
            raise SystemExit(f"soak: {method} {path} answered {status}: {raw[:500]!r}")
        return json.loads(raw)

    def setup(self, path, body, wait_s=180):
        """POST a database or table as a client would: a JSON 503 (the store
        still reassigning regions after an earlier restart) is retried for up
        to wait_s; a retry that finds the name taken means the refused call
        had in fact been written."""
        deadline = time.time() + wait_s
        retried = False
        while True:
            status, raw = self.call("POST", path, body)
            if status == 200 or (retried and b"already exists" in raw):
                return
            if not refusal_ok(status, raw) or time.time() > deadline:
                raise SystemExit(f"soak: POST {path} answered {status}: {raw[:500]!r}")
            retried = True
            time.sleep(1)

    def metric(self, name):
        """A sample without labels on /metrics, or None when absent."""
        status, raw = self.call("GET", "/metrics")
        m = re.search(rb"^" + re.escape(name.encode()) + rb" (\S+)$", raw, re.M) if status == 200 else None
        return float(m.group(1)) if m else None

    def stop(self):
        """SIGTERM, then its exit status (a sanitizer's leak report makes it
        non-zero); SIGKILL after 30 s."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.acked = {}  # source -> set of targets acknowledged
        self.refused = 0
        self.wrong = []  # answers that break an invariant
        self.late = 0
        self.reads = 0
        self.last_ack = 0.0
        self.worst_s = 0.0
        self.late_what = []  # "METHOD PATH STATUS seconds" of the answers past the limit
        self.ack_how = {}  # (source, target) -> "CREATED at HH:MM:SS.mmm" (its latest answer)

    def note_answer(self, seconds, limit, what=""):
        with self.lock:
            self.worst_s = max(self.worst_s, seconds)
            if seconds > limit:
                self.late += 1
                self.late_what.append(f"{what} {seconds:.1f} s at {time.strftime('%H:%M:%S')}")


class Busy(Exception):
    """A JSON 503 where a read was wanted: the store is not back yet."""


def refusal_ok(status, raw):
    try:
        body = json.loads(raw)
    except ValueError:
        return False
    return status == 503 and isinstance(body, dict) and {"timestamp", "status", "error", "message"} <= set(body)


def check_consistency(srv, stats):
    """How many acknowledged edges are missing or counts differ from scans,
    with what for the report; Busy when a read answers a JSON 503."""
    missing = 0
    lost = []
    for source, targets in stats.acked.items():
        got = set()
        offset = None
        while True:
            q = (f"/edges/scan/recent?start={source}&direction=OUT&limit=1000"
                 + (f"&offset={urllib.parse.quote(offset)}" if offset else ""))
            page = srv.ok("GET", T + q, busy_ok=True)
            got.update(e["target"] for e in page["edges"])
            if not page.get("hasNext"):
                break
            offset = page["offset"]
        count = srv.ok("GET", T + f"/edges/count?start={source}&direction=OUT", busy_ok=True)["count"]
        missing += len(targets - got) + (count != len(got))
        lost += [f"{source}->{t} (acknowledged {stats.ack_how.get((source, t), '?')})"
                 for t in sorted(targets - got)]
        if count != len(got):
            lost.append(f"{source}: count {count}, scan {len(got)}")
    return missing, lost


def verdict(verify):
    """The verifier's mismatch line, or why there is none."""
    if verify is None:
        return "not run"
    found = [ln for ln in verify.stdout.splitlines() if ln.startswith("mismatches:")]
    return found[0] if found else verify.stdout.strip()[-300:]


def writer(srv, stats, stop, wid, limit, rng, path):
    n = 0
    while not stop.is_set():
        source = f"w{wid}s{rng.randrange(8)}"
        batch = [f"t{wid}-{n + i}" for i in range(rng.choice((1, 1, 1, 5)))]
        n += len(batch)
        body = {"mutations": [{"type": "INSERT", "edge": {"version": 1, "source": source, "target": t,
                                                           "properties": {}}} for t in batch]}
        t0 = time.time()
        try:
            sent = path if path is not None else rng.choice(("/edges", "/edges/sync"))
            status, raw = srv.call("POST", T + sent, body, timeout=limit * 2)
        except Exception as e:  # a connection the server cut, or no answer in time
            stats.note_answer(time.time() - t0, limit, f"POST {sent} (no answer)")
            with stats.lock:
                stats.wrong.append(f"POST: {e}")
            continue
        stats.note_answer(time.time() - t0, limit, f"POST {sent} {status}")
        with stats.lock:
            if status == 200:
                res = json.loads(raw)["results"]
                done = {r["target"] for r in res if r["status"] in ("CREATED", "QUEUED", "IDLE")}
                at = time.strftime("%H:%M:%S", time.localtime(t0)) + f".{int(t0 * 1000) % 1000:03d}"
                for r in res:
                    if r["target"] in done:
                        stats.ack_how[(source, r["target"])] = f"{r['status']} by {sent} at {at}"
                stats.acked.setdefault(source, set()).update(done)
                stats.last_ack = time.time()
                if len(done) != len(batch):  # per-key ERROR: not acknowledged, allowed under faults
                    stats.refused += len(batch) - len(done)
            elif refusal_ok(status, raw):
                stats.refused += len(batch)
            else:
                stats.wrong.append(f"POST {status}: {raw[:200]!r}")
        time.sleep(rng.uniform(0, 0.01))


def reader(srv, stats, stop, limit, rng):
    while not stop.is_set():
        source = f"w{rng.randrange(4)}s{rng.randrange(8)}"
        path = rng.choice((f"/edges/count?start={source}&direction=OUT",
                           f"/edges/scan/recent?start={source}&direction=OUT&limit=10"))
        t0 = time.time()
        try:
            status, raw = srv.call("GET", T + path, timeout=limit * 2)
        except Exception as e:
            with stats.lock:
                stats.wrong.append(f"GET: {e}")
            continue
        stats.note_answer(time.time() - t0, limit, f"GET {path.split('?')[0]} {status}")
        with stats.lock:
            stats.reads += 1
            if status != 200 and not refusal_ok(status, raw):
                stats.wrong.append(f"GET {status}: {raw[:200]!r}")
        time.sleep(rng.uniform(0, 0.01))


# ---- faults: each is (name, inject() -> undo) ----

class WalDisk:
    name = "wal-disk"
    resume_limit = 5

    def __init__(self, mnt):
        self.mnt = mnt

    def inject(self):
        filler = os.path.join(self.mnt, "filler")
        fd = os.open(filler, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
        try:
            for chunk in (1 << 20, 4096):  # until not even a page is left (the WAL grows meanwhile)
                try:
                    while True:
                        os.write(fd, bytes(chunk))
                except OSError as e:
                    if e.errno != 28:
                        raise
        finally:
            os.close(fd)
        return lambda: os.unlink(filler)


class Kafka:
    name = "kafka"
    resume_limit = 5

    def __init__(self, kdir):
        self.kdir = kdir

    def inject(self):
        subprocess.run(["bash", os.path.join(TOP, "tests/kafka/stop.sh"), self.kdir], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return lambda: subprocess.run(["bash", os.path.join(TOP, "tests/kafka/start.sh"), self.kdir],
                                      check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def quiet_port(rng):
    """A free loopback port below the kernel's ephemeral range (as hbase/lib.sh
    picks them). The soak's gateway is started again on its port while the
    node keeps reconnecting; a port in that range can meanwhile be taken by
    one of those connects, connected to itself (a TCP self-connect: the node
    then read its own request back, "invalid message type 1"), and the
    gateway's bind fails. It did, with the port drawn from 30000-34999."""
    lo, hi = 32768, 60999
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            lo, hi = map(int, f.read().split())
    except (OSError, ValueError):
        pass
    base, span = (20000, lo - 20000) if lo > 21024 else (hi + 1, 65535 - hi)
    for _ in range(200):
        p = base + rng.randrange(span)
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", p)) != 0:
                return p
    raise SystemExit("soak: no free port below the ephemeral range")


class Gateway:
    resume_limit = 5

    def __init__(self, hdir, port, kill):
        self.hdir, self.port, self.kill = hdir, port, kill
        self.name = "gateway-kill" if kill else "gateway-stall"

    def gw(self, *args):
        return subprocess.run(["bash", os.path.join(TOP, "hbase/gateway.sh"), self.hdir, *args], check=True,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()

    def inject(self):
        if self.kill:
            self.gw("kill", "soak")
            return lambda: self.gw("start", "soak", str(self.port))
        pid = int(open(os.path.join(self.hdir, "soak.pid")).read())
        os.kill(pid, signal.SIGSTOP)
        return lambda: os.kill(pid, signal.SIGCONT)


class HBase:
    name = "hbase-kill"
    resume_limit = 120

    def __init__(self, hdir, gateway):
        self.hdir, self.gateway = hdir, gateway

    def inject(self):
        pid = int(open(os.path.join(self.hdir, "master.pid")).read())
        os.kill(pid, signal.SIGKILL)
        while os.path.exists(f"/proc/{pid}"):
            time.sleep(0.1)

        def undo():
            # start.sh stops what outlived the master (the gateways), clears
            # the dead instance's ZooKeeper state and starts HBase again
            subprocess.run(["bash", os.path.join(TOP, "hbase/start.sh"), self.hdir], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.gateway.gw("start", "soak", str(self.gateway.port))
        return undo


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True)
    ap.add_argument("--verify")
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--faults", default="wal-disk")
    ap.add_argument("--hbase")
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--readers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--request-max-s", type=float, default=10.0)
    ap.add_argument("--mode", choices=("async", "sync", "mixed"),
                    help="ASYNC writes (/edges: the WAL takes them, the applier writes the store), "
                         "SYNC ones (/edges/sync: the store in the request) or each request either "
                         "at random; default async on LMDB, sync on HBase, where a cut write is "
                         "what the faults test")
    a = ap.parse_args()
    a.server = os.path.abspath(a.server)
    verify_bin = os.path.abspath(a.verify or os.path.join(os.path.dirname(a.server), "actionbase-verify"))
    faults_wanted = [f for f in a.faults.split(",") if f]
    rng = random.Random(a.seed)
    tmp = tempfile.mkdtemp(prefix="ab-soak-")
    cleanups = []
    faults = []
    log(f"seed {a.seed}, {a.minutes} min, faults {faults_wanted or 'none'}, store {'hbase' if a.hbase else 'lmdb'}")
    try:
        args = []
        if "kafka" in faults_wanted:
            kdir = os.path.join(tmp, "kafka")
            addr = subprocess.run(["bash", os.path.join(TOP, "tests/kafka/start.sh"), kdir], check=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
            cleanups.append(lambda: subprocess.run(["bash", os.path.join(TOP, "tests/kafka/stop.sh"), kdir],
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            args += ["--wal", f"kafka://{addr}/soak-{os.getpid()}"]
            faults.append(Kafka(kdir))
        else:
            mnt = os.path.join(tmp, "waldisk")
            os.makedirs(mnt)
            if "wal-disk" in faults_wanted:
                subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", mnt], check=True)
                cleanups.append(lambda: subprocess.run(["umount", "-l", mnt]))
                faults.append(WalDisk(mnt))
            # Small segments, removed a second after they are applied: the
            # WAL itself never fills the small disk, only the fault does.
            args += ["--wal", f"file:{mnt}/wal?segment_bytes=4194304&retention_ms=1000"]
        if a.hbase:
            port = quiet_port(rng)
            addr = Gateway(a.hbase, port, True).gw("start", "soak", str(port))
            cleanups.append(lambda: subprocess.run(["bash", os.path.join(TOP, "hbase/gateway.sh"), a.hbase, "kill", "soak"],
                                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            store = f"hbase://{addr}/default?table=soak_{os.getpid()}"
            for kind in ("gateway-stall", "gateway-kill"):
                if kind in faults_wanted:
                    faults.append(Gateway(a.hbase, port, kind == "gateway-kill"))
            if "hbase-kill" in faults_wanted:
                faults.append(HBase(a.hbase, Gateway(a.hbase, port, True)))
        else:
            store = f"lmdb:{tmp}/db"
        srv = Server(a.server, os.path.join(tmp, "server"), ["--store", store] + args)
        cleanups.insert(0, srv.stop)
        srv.setup("/graph/v3/databases", {"database": DB, "comment": "soak"})
        srv.setup(f"/graph/v3/databases/{DB}/tables", {
            "table": TABLE, "storage": f"datastore://{DB}/{TABLE}", "comment": "soak", "mode": "ASYNC",
            "schema": {"type": "EDGE", "source": {"type": "string", "comment": ""},
                       "target": {"type": "string", "comment": ""}, "direction": "BOTH",
                       "properties": [],
                       "indexes": [{"index": "recent", "fields": [{"field": "version", "order": "DESC"}]}]}})
        stats = Stats()
        stop = threading.Event()
        mode = a.mode or ("sync" if a.hbase else "async")
        path = {"sync": "/edges/sync", "async": "/edges", "mixed": None}[mode]
        # daemons: a harness error in this thread (a fault's undo failing)
        # must end the run, not leave it waiting on them (it once sat until
        # an outer timeout killed it)
        threads = [threading.Thread(target=writer, args=(srv, stats, stop, i, a.request_max_s,
                                                         random.Random(rng.random()), path), daemon=True)
                   for i in range(a.writers)]
        threads += [threading.Thread(target=reader, args=(srv, stats, stop, a.request_max_s, random.Random(rng.random())),
                                     daemon=True)
                    for _ in range(a.readers)]
        for th in threads:
            th.start()
        end = time.time() + a.minutes * 60
        resumed = []
        gap = (5, 20) if a.minutes >= 2 else (2, 5)  # a smoke run still sees faults
        quiet = min(30, a.minutes * 15)  # the end of the run is fault-free
        while time.time() < end:
            time.sleep(rng.uniform(*gap))
            if not faults or time.time() > end - quiet:
                continue
            f = rng.choice(faults)
            hold = rng.uniform(2, 8)
            log(f"fault {f.name} for {hold:.1f} s at {time.strftime('%H:%M:%S')}")
            undo = f.inject()
            time.sleep(hold)
            undoing = time.time()
            undo()
            back = time.time()
            if back - undoing > 1:
                log(f"  {f.name} undone in {back - undoing:.1f} s")
            wait = max(60, 2 * f.resume_limit)
            while stats.last_ack < back and time.time() < back + wait:
                time.sleep(0.05)
            resumed.append((f, stats.last_ack - back if stats.last_ack >= back else None))
            log(f"  writes acknowledged again {resumed[-1][1]:.1f} s after the fault ended" if resumed[-1][1] is not None else f"  writes NOT acknowledged again within {wait} s")
        stop.set()
        for th in threads:
            th.join()
        # consistency: every acknowledged edge read back, counts equal scans
        settle = time.time()
        missing = pending = None
        busy = 0  # reads answered 503 while settling: HBase still reassigning regions
        lost = []
        while time.time() < settle + 300:  # the applier may have a backlog to write
            try:
                missing, lost = check_consistency(srv, stats)
            except Busy:
                busy += 1
                missing = None
                time.sleep(1)
                continue
            # writes cut by a fault and answered ERROR are finished by the
            # node's healer (HBase): the verifier looks once it has none left
            # (and whose replays' Count adds it has checked again)
            pending = sum(srv.metric(m) or 0 for m in ("actionbase_heal_pending", "actionbase_heal_rechecks"))
            if missing == 0 and not pending:
                break
            time.sleep(1)
        consistent_s = time.time() - settle
        report = os.path.join(tmp, "verify.jsonl")
        verify = subprocess.run([verify_bin, "--store", store, "--database", DB, "--table", TABLE,
                                 "--report", report],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) \
            if not a.hbase or os.path.exists(verify_bin) else None
        acked = sum(len(t) for t in stats.acked.values())
        print(f"soak: {a.minutes} min, seed {a.seed}: {acked} writes acknowledged, {stats.refused} refused, "
              f"{stats.reads} reads; slowest answer {stats.worst_s:.1f} s ({stats.late} past {a.request_max_s} s); "
              f"{len(stats.wrong)} wrong answers")
        for name in sorted({f.name for f, _ in resumed}):
            times = [s for f, s in resumed if f.name == name]
            done = [s for s in times if s is not None]
            print(f"soak:   {name} x{len(times)}: writes acknowledged again at most "
                  f"{max(done, default=0):.1f} s after it ended" + (f", never after {len(times) - len(done)}" if len(done) < len(times) else ""))
        reached = missing == 0 and not pending
        print(f"soak: consistency {'reached' if reached else 'NOT reached'} {consistent_s:.1f} s after the load "
              f"stopped" + (f" ({busy} passes met a JSON 503 first)" if busy else "")
              + f"; verifier: {verdict(verify)}")
        for w in (lost if missing else [])[:10]:
            print(f"soak:   missing: {w}")
        for w in stats.late_what[:10]:
            print(f"soak:   late: {w}")
        for w in stats.wrong[:10]:
            print(f"soak:   wrong: {w}")
        node_rc = srv.stop()
        if node_rc != 0:
            print(f"soak: the node exited with status {node_rc}")
        good = (reached and not stats.wrong and stats.late == 0 and node_rc == 0
                and all(s is not None and s <= f.resume_limit for f, s in resumed)
                and (verify is None or verify.returncode == 0))
        if not good:
            # the node's warnings say which writes it replayed or gave up on
            srv.err.flush()
            with open(srv.err.name) as f:
                lines = f.readlines()
            tail = [ln.rstrip() for ln in lines if re.search(r" (WARN|CRIT|ERROR)", ln)][-30:]
            if node_rc != 0:  # its last words: a sanitizer's report
                tail += [ln.rstrip() for ln in lines[-40:]]
            for ln in tail:
                print(f"soak:   node: {ln[:400]}")
            if verify is not None and verify.returncode != 0 and os.path.exists(report):
                with open(report) as f:
                    for ln in f.readlines()[:20]:
                        print(f"soak:   verifier: {ln.rstrip()[:400]}")
        print("soak: " + ("every invariant held" if good else "INVARIANTS BROKEN"))
        return 0 if good else 1
    finally:
        for c in cleanups:
            try:
                c()
            except Exception as e:  # keep cleaning up
                log(f"cleanup: {e}")
        if os.environ.get("AB_SOAK_KEEP"):
            log(f"kept {tmp} (AB_SOAK_KEEP)")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
