-- bench:http load script for the hello-world baseline: the same request as an order placement (method,
-- path, headers and a body of the same size), sent as a static request, so wrk does the least work per
-- request. The done() line has the same shape as bench/http/orders.lua's.
--
--   wrk -t1 -c128 -d15s --latency -s bench/http/hello.lua http://127.0.0.1:PORT

wrk.method = "POST"
wrk.path = "/api/v1/exchange/eth/orders"
wrk.body = '{"side":"buy","order_type":"limit","quantity":"0.0100","price":"2995.13","client_order_id":"k1n1x123456"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-API-Key"] = "tpk_" .. string.rep("x", 43)

function done(summary, latency, requests)
  local parts = {
    string.format('"durationUs":%d', summary.duration),
    string.format('"requests":%d', summary.requests),
    string.format('"non2xx":%d', summary.errors.status),
    string.format('"connectErrors":%d', summary.errors.connect),
    string.format('"readErrors":%d', summary.errors.read),
    string.format('"writeErrors":%d', summary.errors.write),
    string.format('"timeouts":%d', summary.errors.timeout),
    string.format('"latencyP50Us":%d', latency:percentile(50)),
    string.format('"latencyP90Us":%d', latency:percentile(90)),
    string.format('"latencyP99Us":%d', latency:percentile(99)),
    string.format('"latencyP999Us":%d', latency:percentile(99.9)),
    string.format('"latencyMaxUs":%d', latency.max),
  }
  io.write("BENCH_HTTP {" .. table.concat(parts, ",") .. "}\n")
end
