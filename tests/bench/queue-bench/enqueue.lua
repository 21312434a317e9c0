-- wrk driver for tests/bench/queue-bench.sh: each request enqueues a batch of
-- 100 messages with random keys (spread over the partitions) and rising seqs.
local path = os.getenv("QUEUE_PATH")
local headers = { ["Content-Type"] = "application/json" }
local threads, seq = {}, 0
function setup(thread) table.insert(threads, thread); thread:set("tid", #threads) end
function init(args) math.randomseed(os.time() + (tid or 0) * 7919); seq = (tid or 0) * 1000000000 end
function request()
  local parts = {}
  for k = 1, 100 do
    seq = seq + 1
    parts[k] = string.format('{"key":"k%d","seq":%d,"value":{"n":%d}}', math.random(0, 9999), seq, seq)
  end
  return wrk.format("POST", path, headers, '{"messages":[' .. table.concat(parts, ",") .. ']}')
end
