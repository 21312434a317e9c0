-- wrk driver of tests/bench/which-store.sh: a mix of reads and single-edge
-- INSERTs over the likes that which-store/load.py wrote. Environment:
--   MIX_PREFIX   the table's path prefix (".../tables/likes")
--   MIX_EDGES    edges loaded (N): edge g is
--                u<((g*MIX_SPREAD)%N)//ITEMS> -> t<(g*40507)%N>
--   MIX_ITEMS    edges per source (ITEMS)
--   MIX_SPREAD   the loader's source multiplier (SPREAD)
--   MIX_WRITES   percent of requests that insert one new edge (5, 50)
-- Each request is drawn afresh: an INSERT with MIX_WRITES percent chance,
-- else GET of a random loaded edge, SCAN limit 25 of a random source's index
-- or COUNT of a random source's edges, a third each. Keys are uniform over
-- the whole store, as pgbench's are. done() prints one parseable line:
--   BENCH requests=.. duration_us=.. p50_us=.. p99_us=.. non2xx=.. sockerr=.. notcreated=..
local prefix = os.getenv("MIX_PREFIX") or ""
local edges = tonumber(os.getenv("MIX_EDGES") or "1000000")
local items = tonumber(os.getenv("MIX_ITEMS") or "10")
local spread = tonumber(os.getenv("MIX_SPREAD") or "1")
local writes = tonumber(os.getenv("MIX_WRITES") or "5")
local users = math.floor(edges / items)

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local counter, base = 0, 0
bad = 0 -- (global: read by done() via thread:get) INSERT answers without CREATED

function init(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
  base = os.time() * 1000
end

local headers = { ["Content-Type"] = "application/json" }
local EDGE = '{"mutations":[{"type":"INSERT","edge":{"version":%d,"source":"u%d","target":"w%d_%d_%d","properties":{"created_at":%d}}}]}'
local GET = prefix .. "/edges/get?source=u%d&target=t%d"
local SCAN = prefix .. "/edges/scan/recent?start=u%d&direction=OUT&limit=25"
local COUNT = prefix .. "/edges/count?start=u%d&direction=OUT"

function request()
  if math.random(1, 100) <= writes then
    counter = counter + 1
    local v = base + counter
    local body = string.format(EDGE, v, math.random(0, users - 1), base, tid, counter, v)
    return wrk.format("POST", prefix .. "/edges?lock=true", headers, body)
  end
  local kind = math.random(0, 2)
  if kind == 0 then
    -- products stay below 2^53 (N * max(SPREAD, 40507)): exact in a double
    local g = math.random(0, edges - 1)
    return wrk.format("GET", string.format(GET, math.floor((g * spread) % edges / items), (g * 40507) % edges))
  elseif kind == 1 then
    return wrk.format("GET", string.format(SCAN, math.random(0, users - 1)))
  end
  return wrk.format("GET", string.format(COUNT, math.random(0, users - 1)))
end

function response(status, hdrs, body)
  -- a mutation answer (it has results) must say CREATED
  if status == 200 and string.find(body, '"results"', 1, true)
     and not string.find(body, '"status":"CREATED"', 1, true) then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local notcreated = 0
  for _, t in ipairs(threads) do notcreated = notcreated + (t:get("bad") or 0) end
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d sockerr=%d notcreated=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout, notcreated))
end
