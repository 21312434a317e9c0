#!/usr/bin/env python3
"""Loader of tests/bench/which-store.sh: N likes through the REST API in
batches of 1,000 edges from several client threads, and the rate of each
successive slice of the load (a million edges, or a tenth of a smaller load).

Edge g (0 <= g < N): source u<((g * SPREAD) % N) // ITEMS>, target
t<(g * 40507) % N>, created_at = version = 1700000000000 + g. Both products
are bijections over 0..N-1 (SPREAD and 40507 coprime with N), so every source
has ITEMS edges (the last fewer when ITEMS does not divide N) and every target
one; with SPREAD near 0.618 N a batch of
consecutive edges touches as many sources as edges, spread over the key space,
and a source's edges arrive scattered over the whole load, as real
interactions do (no run of sequential ids). mix.lua reads the same names back.

Usage: load.py BASE_URL TABLE_PREFIX N ITEMS THREADS SPREAD
Prints: LOAD edges=N seconds=S slice=K rates=R1,R2,...  (edges/s per slice)
"""
import http.client
import math
import sys
import threading
import time
from urllib.parse import urlparse

BATCH = 1000
MULT = 40507


def body(first, n, total, items, spread):
    muts = []
    for g in range(first, first + n):
        v = 1700000000000 + g
        muts.append('{"type":"INSERT","edge":{"version":%d,"source":"u%d","target":"t%d",'
                    '"properties":{"created_at":%d}}}'
                    % (v, (g * spread) % total // items, (g * MULT) % total, v))
    return ('{"mutations":[' + ",".join(muts) + "]}").encode()


def main():
    base, prefix, total, items, nthreads, spread = sys.argv[1], sys.argv[2], \
        int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
    if math.gcd(total, MULT) != 1 or math.gcd(total, spread) != 1:
        sys.exit("load.py: N must be coprime with %d and with SPREAD %d" % (MULT, spread))
    url = urlparse(base)
    slice_edges = 1000000 if total >= 2000000 else max(BATCH, total // 10)
    # (a slice of a few batches from several clients is noise: read large loads)
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "marks": [], "error": None}
    start = time.monotonic()

    def worker():
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)
        while True:
            with lock:
                first = state["next"]
                if first >= total or state["error"]:
                    return
                state["next"] = first + BATCH
            n = min(BATCH, total - first)
            conn.request("POST", prefix + "/edges?lock=true", body(first, n, total, items, spread),
                         {"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            created = data.count(b'"status":"CREATED"')
            with lock:
                if resp.status != 200 or created != n:
                    state["error"] = "batch at %d: HTTP %d, %d of %d CREATED: %s" % (
                        first, resp.status, created, n, data[:300])
                    return
                before = state["done"]
                state["done"] += n
                if state["done"] // slice_edges > before // slice_edges:
                    state["marks"].append(time.monotonic())

    threads = [threading.Thread(target=worker) for _ in range(nthreads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if state["error"]:
        sys.exit("load.py: " + state["error"])
    secs = time.monotonic() - start
    marks, rates, prev = state["marks"], [], start
    for m in marks:
        rates.append(slice_edges / (m - prev))
        prev = m
    print("LOAD edges=%d seconds=%.1f slice=%d rates=%s" % (
        total, secs, slice_edges, ",".join("%.0f" % r for r in rates)))


if __name__ == "__main__":
    main()
