-- wrk driver for tests/bench/topk-bench.sh, chosen by environment variables:
--   BENCH_OP     topk | health | writeN (N INSERT mutations per POST)
--   BENCH_PREFIX path prefix of the table (".../tables/ranked")
--   BENCH_USERS  entities <BENCH_ENTITY>0..N-1 (topk: preloaded; writeN: written)
--   BENCH_ITEMS  writeN: items 0..M-1 (the group's cells per entity)
--   BENCH_ENTITY entity name prefix (default "w")
-- topk reads the first 10 of a random entity's ranking; health is GET
-- /health (answered on the HTTP loop, no store: what the box itself puts
-- under a p99 at the same connections and threads); writeN inserts new
-- edges (a target unique to run, thread, request and edge) of random
-- entities and items, so each one adds 1 to a COUNT group cell. done() prints
-- the line bench-lib.sh's bench_wrk parses (rest-bench/wrk.lua's format).
local op     = os.getenv("BENCH_OP") or "topk"
local prefix = os.getenv("BENCH_PREFIX") or ""
local users  = tonumber(os.getenv("BENCH_USERS") or "100")
local items  = tonumber(os.getenv("BENCH_ITEMS") or "1000")
local entity = os.getenv("BENCH_ENTITY") or "w"
local batch  = tonumber(string.match(op, "^write(%d+)$") or "")
if op ~= "topk" and op ~= "health" and (batch == nil or batch < 1) then error("bad BENCH_OP " .. op) end

local threads = {}
function setup(thread)
  table.insert(threads, thread)
  thread:set("tid", #threads)
end

local reqs, nreq, i, counter, base = {}, 0, 0, 0, 0
bad = 0 -- (global: read by done() via thread:get) 200 answers without one CREATED per edge

function init(args)
  math.randomseed(os.time() * 1000 + (tid or 0) * 7919)
  base = os.time() * 1000
  if batch then return end
  if op == "health" then
    nreq = 1
    reqs[1] = wrk.format("GET", "/health")
    return
  end
  nreq = 8192
  for k = 1, nreq do
    reqs[k] = wrk.format("GET", string.format("%s/edges/topk/top?entity=%s%d&direction=OUT&limit=10",
      prefix, entity, math.random(0, users - 1)))
  end
end

local headers = { ["Content-Type"] = "application/json" }
local EDGE = '{"type":"INSERT","edge":{"version":%d,"source":"%s%d","target":"n%d_%d_%d_%d","properties":{"item":%d}}}'
local muts = {}

function request()
  if batch then
    counter = counter + 1
    local v = base + counter
    for k = 1, batch do
      muts[k] = string.format(EDGE, v, entity, math.random(0, users - 1), base, tid, counter, k,
        math.random(0, items - 1))
    end
    return wrk.format("POST", prefix .. "/edges", headers, '{"mutations":[' .. table.concat(muts, ",") .. ']}')
  end
  i = i + 1
  if i > nreq then i = 1 end
  return reqs[i]
end

if batch then
  function response(status, hdrs, body)
    local created, at = 0, 1
    if status == 200 then
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
