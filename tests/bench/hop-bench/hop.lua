-- wrk driver for tests/bench/hop-bench.sh: one 2-hop query ("what did my
-- friends like") per iteration, timed from its first request to its last
-- response with a monotonic clock (one connection per thread: -c = -t).
--   HOP_MODE  cache | index: one POST …/edges/multihop over caches or indexes
--             client:        1 scan of follows + 1 scan of likes per friend,
--                            sequential, merged here (dedup, hits, order)
--   HOP_DB    database path prefix ("/graph/v3/databases/sns")
--   HOP_USERS users u0..u(N-1); HOP_L1 / HOP_L2 the two hop limits
-- done() prints: HOP queries=.. requests=.. p50_us=.. p99_us=.. errors=..
local ffi = require("ffi")
ffi.cdef [[ typedef struct { long tv_sec; long tv_nsec; } hop_ts;
            int clock_gettime (int clk, hop_ts *ts); ]]
local ts = ffi.new("hop_ts")
local function now_us()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000000 + tonumber(ts.tv_nsec) / 1000
end

local mode  = os.getenv("HOP_MODE") or "cache"
local db    = os.getenv("HOP_DB") or "/graph/v3/databases/sns"
local users = tonumber(os.getenv("HOP_USERS") or "2000")
local l1    = tonumber(os.getenv("HOP_L1") or "20")
local l2    = tonumber(os.getenv("HOP_L2") or "10")
local headers = { ["Content-Type"] = "application/json" }

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

lat = {}          -- (globals: read by done() through thread:get)
nq, nreq, errors, items = 0, 0, 0, 0
local t0, phase, friends, idx, hits, order = 0, "first", {}, 0, {}, {}

function init(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
end

local function finish()
  lat[#lat + 1] = now_us() - t0
  nq = nq + 1
  phase = "first"
end

function request()
  nreq = nreq + 1
  if phase == "first" then
    t0 = now_us()
    local u = math.random(0, users - 1)
    if mode == "client" then
      return wrk.format("GET", string.format(
        "%s/tables/follows/edges/scan/recent_idx?start=u%d&direction=OUT&limit=%d", db, u, l1))
    end
    local how = mode == "cache" and '"cache":"recent"' or '"index":"recent_idx"'
    local body = string.format(
      '{"start":"u%d","hops":[{"table":"follows",%s,"direction":"OUT","limit":%d},' ..
      '{"table":"likes",%s,"direction":"OUT","limit":%d}],"order":"hits","limit":100}',
      u, how, l1, how, l2)
    return wrk.format("POST", db .. "/edges/multihop", headers, body)
  end
  idx = idx + 1
  return wrk.format("GET", string.format(
    "%s/tables/likes/edges/scan/recent_idx?start=%s&direction=OUT&limit=%d", db, friends[idx], l2))
end

function response(status, hdrs, body)
  if status ~= 200 then
    errors = errors + 1
    return finish()
  end
  if mode ~= "client" then
    for _ in string.gmatch(body, '"hits":') do items = items + 1 end
    return finish()
  end
  if phase == "first" then
    friends, idx, hits, order = {}, 0, {}, {}
    for t in string.gmatch(body, '"target":"([^"]*)"') do friends[#friends + 1] = t end
    if #friends == 0 then return finish() end
    phase = "second"
    return
  end
  for t in string.gmatch(body, '"target":"([^"]*)"') do
    if not hits[t] then order[#order + 1] = t; hits[t] = 0 end
    hits[t] = hits[t] + 1
  end
  if idx == #friends then
    -- the same answer as the server's: first-seen order, then most hits first
    local pos = {}
    for k, t in ipairs(order) do pos[t] = k end
    table.sort(order, function (a, b)
      if hits[a] ~= hits[b] then return hits[a] > hits[b] end
      return pos[a] < pos[b]
    end)
    items = items + math.min(#order, 100)
    finish()
  end
end

function done(summary, latency, requests)
  local all, q, r, e, n = {}, 0, 0, 0, 0
  for _, t in ipairs(threads) do
    for _, v in ipairs(t:get("lat")) do all[#all + 1] = v end
    q = q + t:get("nq"); r = r + t:get("nreq"); e = e + t:get("errors"); n = n + t:get("items")
  end
  table.sort(all)
  local function pct(p)
    if #all == 0 then return 0 end
    return all[math.max(1, math.ceil(#all * p))]
  end
  io.write(string.format("HOP queries=%d requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d items=%d\n",
    q, r, summary.duration, pct(0.50), pct(0.99), e + summary.errors.status, n))
end
