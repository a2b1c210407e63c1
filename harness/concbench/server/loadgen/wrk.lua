-- concbench's wrk script: optional per-request ids, and a done() that writes the summary as
-- JSON to the file named by CONCBENCH_WRK_OUT (wrk's own text output is not parsed).
local prefix = os.getenv("CONCBENCH_WRK_ID_PREFIX")
local counter = 0

if prefix ~= nil and prefix ~= "" then
  request = function()
    counter = counter + 1
    return wrk.format(nil, prefix .. tostring((counter % 1000000) + 1))
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
