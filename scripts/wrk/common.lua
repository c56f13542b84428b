-- Shared by create.lua and lookup.lua (loaded with dofile from the repository root, in wrk's main Lua state and in
-- each thread's): per-thread counters of the answers, and done(), which sums them over the threads and writes them
-- with wrk's own latency distribution as JSON to $KUATIA_WRK_OUT.

-- Main state: the threads, to read their counters back in done().
threads = {}
-- Thread states: answers with the expected status, others, and every status seen.
ok, other, statuses = 0, 0, {}

function setup(thread)
  table.insert(threads, thread)
  thread:set("thread_no", #threads)
end

-- Counts one answer; `on_ok(body)` (optional, set by the script) sees every answer with the expected status.
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status == expected_status then
    ok = ok + 1
    if on_ok then on_ok(body) end
  else
    other = other + 1
  end
end

local function json_object(t)
  local parts = {}
  for k, v in pairs(t) do
    table.insert(parts, string.format('"%s": %s', tostring(k), tostring(v)))
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

function done(summary, latency, requests)
  local sum_ok, sum_other, all = 0, 0, {}
  for _, t in ipairs(threads) do
    sum_ok = sum_ok + t:get("ok")
    sum_other = sum_other + t:get("other")
    for s, n in pairs(t:get("statuses")) do all[s] = (all[s] or 0) + n end
    if on_done_thread then on_done_thread(t) end
  end
  local e = summary.errors
  local out = assert(io.open(os.getenv("KUATIA_WRK_OUT"), "w"))
  out:write(json_object({
    threads = #threads,
    requests = summary.requests,
    duration_us = summary.duration,
    expected_status = expected_status,
    expected = sum_ok,
    other = sum_other,
    statuses = json_object(all),
    socket_errors = json_object({connect = e.connect, read = e.read, write = e.write, timeout = e.timeout}),
    latency_us = json_object({p50 = latency:percentile(50), p90 = latency:percentile(90),
                              p99 = latency:percentile(99), p999 = latency:percentile(99.9),
                              max = latency.max, mean = latency.mean}),
  }), "\n")
  out:close()
  if on_done then on_done() end
end
