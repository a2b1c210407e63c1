-- concbench's wrk script: optional per-request ids, an optional think time per connection,
-- and a done() that writes the summary as JSON to the file named by CONCBENCH_WRK_OUT (wrk's
-- own text output is not parsed).
local prefix = os.getenv("CONCBENCH_WRK_ID_PREFIX")
local counter = 0

if prefix ~= nil and prefix ~= "" then
  request = function()
    counter = counter + 1
    return wrk.format(nil, prefix .. tostring((counter % 1000000) + 1))
  end
end

-- Think time (CONCBENCH_WRK_THINK_MS > 0): wrk calls delay() before every request of a
-- connection, its first included, and waits that many ms. A thread's first
-- CONCBENCH_WRK_STAGGER calls (one per connection it holds: wrk opens them all before its event
-- loop starts, so these are the connections' first requests) spread evenly over one think
-- time, so that requests arrive spread out rather than all connections at once every think-ms;
-- every later call is think-ms. Without think time no delay() is defined: wrk then adds no
-- timer per request.
local think = tonumber(os.getenv("CONCBENCH_WRK_THINK_MS") or "0") or 0
local stagger = tonumber(os.getenv("CONCBENCH_WRK_STAGGER") or "0") or 0
local delays = 0

if think > 0 then
  delay = function()
    delays = delays + 1
    if delays <= stagger then
      return think * (delays - 0.5) / stagger
    end
    return think
  end
end

done = function(summary, latency, requests)
  local points = {50, 75, 90, 99, 99.9, 99.99, 99.999, 100}
  local parts = {}
  for _, p in ipairs(points) do
    -- wrk's percentile(100) is 0 (its search stops short of the top): the maximum is exact
    local v = p == 100 and latency.max or latency:percentile(p)
    parts[#parts + 1] = string.format("[%g,%d]", p, v)
  end
  local e = summary.errors
  local f = assert(io.open(os.getenv("CONCBENCH_WRK_OUT"), "w"))
  f:write(string.format(
    '{"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"min":%d,"max":%d,"mean":%.3f,"stdev":%.3f,' ..
    '"p50":%d,"p90":%d,"p99":%d,"p999":%d},"percentiles_us":[%s]}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency.min, latency.max, latency.mean, latency.stdev,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency:percentile(99.9), table.concat(parts, ",")))
  f:close()
end
