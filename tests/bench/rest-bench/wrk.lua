-- wrk driver for tests/bench/rest-bench.sh.  One script for every phase; the
-- phase is chosen by environment variables:
--   BENCH_OP     get | scan | count | mget25 | insert | batchN | static
--   BENCH_PREFIX path prefix of the table (".../tables/likes"), "" for nginx
--   BENCH_USERS  preloaded sources u0..u(N-1)     (default 200)
--   BENCH_ITEMS  preloaded targets i0..i(M-1) per source (default 50)
-- GET/SCAN/COUNT pick random preloaded keys; MGET25 gets 25 distinct preloaded
-- targets of one random source in one GET /edges/get (needs BENCH_ITEMS >= 25).
-- INSERT posts one INSERT mutation per request, batchN (batch10, batch1000...)
-- N of them, each with a target unique to (run, thread, request, edge), so
-- every edge is a real CREATED one; a 200 answer with fewer than N CREATED
-- statuses counts as notcreated.  done() prints one parseable line:
--   BENCH requests=.. duration_us=.. p50_us=.. p99_us=.. ...
local op     = os.getenv("BENCH_OP") or "get"
local prefix = os.getenv("BENCH_PREFIX") or ""
local users  = tonumber(os.getenv("BENCH_USERS") or "200")
local items  = tonumber(os.getenv("BENCH_ITEMS") or "50")

local batch = op == "insert" and 1 or tonumber(string.match(op, "^batch(%d+)$") or "")
local writes = batch ~= nil   -- a mutation phase: bodies built per request
if writes and batch < 1 then error("bad BENCH_OP " .. op) end
if op == "mget25" and items < 25 then error("mget25 needs BENCH_ITEMS >= 25") end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local reqs, nreq, i = {}, 0, 0
local counter, base = 0, 0
bad = 0         -- (global: read by done() via thread:get) 200 mutation answers without one CREATED per edge

function init(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
  base = os.time() * 1000
  if writes then return end
  -- Pre-format a ring of random requests so the per-request Lua cost stays
  -- small and identical for the nginx ceiling and the REST phases.
  nreq = 8192
  for k = 1, nreq do
    local u = math.random(0, users - 1)
    local path
    if op == "get" or op == "static" then
      path = string.format("%s/edges/get?source=u%d&target=i%d", prefix, u, math.random(0, items - 1))
    elseif op == "scan" then
      path = string.format("%s/edges/scan/recent?start=u%d&direction=OUT&limit=25", prefix, u)
    elseif op == "mget25" then
      -- 25 distinct targets: a random window of the item ring
      local first, t = math.random(0, items - 1), {}
      for j = 0, 24 do t[#t + 1] = "i" .. ((first + j) % items) end
      path = string.format("%s/edges/get?source=u%d&target=%s", prefix, u, table.concat(t, ","))
    elseif op == "count" then
      path = string.format("%s/edges/count?start=u%d&direction=OUT", prefix, u)
    else
      error("unknown BENCH_OP " .. op)
    end
    reqs[k] = wrk.format("GET", path)
  end
end

local headers = { ["Content-Type"] = "application/json" }

local EDGE = '{"type":"INSERT","edge":{"version":%d,"source":"u%d","target":"n%d_%d_%d_%d_%d","properties":{"created_at":%d}}}'
local muts = {}

function request()
  if writes then
    counter = counter + 1
    local v = base + counter
    local u = math.random(0, users - 1)
    for k = 1, batch do
      muts[k] = string.format(EDGE, v, u, base, batch, tid, counter, k, v)
    end
    local body = '{"mutations":[' .. table.concat(muts, ",") .. ']}'
    return wrk.format("POST", prefix .. "/edges?lock=true", headers, body)
  end
  i = i + 1
  if i > nreq then i = 1 end
  return reqs[i]
end

if writes then
  function response(status, hdrs, body)
    local created = 0
    if status == 200 then
      local at = 1
      while true do
        local s = string.find(body, '"status":"CREATED"', at, true)
        if not s then break end
        created, at = created + 1, s + 18
      end
    end
    if status == 200 and created ~= batch then
      bad = bad + 1
      if not badbody then badbody = body end
    end
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  local notcreated, sample = 0, nil
  for _, t in ipairs(threads) do
    notcreated = notcreated + (t:get("bad") or 0)
    sample = sample or t:get("badbody")
  end
  io.write(string.format(
    "BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d sockerr=%d notcreated=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout, notcreated))
  if sample then io.write("BENCH-SAMPLE not CREATED: ", sample, "\n") end
end
