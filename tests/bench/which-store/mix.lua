-- wrk driver of tests/bench/which-store.sh: a mix of reads and single-edge
-- INSERTs over the likes that which-store/load.py wrote. Environment:
--   MIX_PREFIX   the table's path prefix (".../tables/likes")
--   MIX_EDGES    edges loaded (N): edge g is u<g//ITEMS> -> t<(g*40507)%N>
--   MIX_ITEMS    edges per source (ITEMS)
--   MIX_WRITES   percent of requests that insert one new edge (5, 50)
-- A read is GET of one loaded edge, SCAN limit 25 of a source's index or
-- COUNT of a source's edges, a third each. done() prints one parseable line:
--   BENCH requests=.. duration_us=.. p50_us=.. p99_us=.. non2xx=.. sockerr=.. notcreated=..
local prefix = os.getenv("MIX_PREFIX") or ""
local edges = tonumber(os.getenv("MIX_EDGES") or "1000000")
local items = tonumber(os.getenv("MIX_ITEMS") or "10")
local writes = tonumber(os.getenv("MIX_WRITES") or "5")
local users = math.floor(edges / items)

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local reads, nreads, r = {}, 8192, 0
local counter, base = 0, 0
bad = 0

function init(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
  base = os.time() * 1000
  for k = 1, nreads do
    local u = math.random(0, users - 1)
    local kind = k % 3
    local path
    if kind == 0 then
      local g = u * items + math.random(0, items - 1)
      path = string.format("%s/edges/get?source=u%d&target=t%d", prefix, u, (g * 40507) % edges)
    elseif kind == 1 then
      path = string.format("%s/edges/scan/recent?start=u%d&direction=OUT&limit=25", prefix, u)
    else
      path = string.format("%s/edges/count?start=u%d&direction=OUT", prefix, u)
    end
    reads[k] = wrk.format("GET", path)
  end
end

local headers = { ["Content-Type"] = "application/json" }
local EDGE = '{"mutations":[{"type":"INSERT","edge":{"version":%d,"source":"u%d","target":"w%d_%d_%d","properties":{"created_at":%d}}}]}'

function request()
  if math.random(1, 100) <= writes then
    counter = counter + 1
    local v = base + counter
    local body = string.format(EDGE, v, math.random(0, users - 1), base, tid, counter, v)
    return wrk.format("POST", prefix .. "/edges?lock=true", headers, body)
  end
  r = r + 1
  if r > nreads then r = 1 end
  return reads[r]
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
