-- bench:http load script for wrk: single-order requests against POST /api/v1/exchange/{symbol}/orders
-- and DELETE /api/v1/exchange/{symbol}/orders/{order_id}, keeping the book near its seeded size.
--
--   wrk -t1 -c128 -d15s --latency -s bench/http/orders.lua http://127.0.0.1:PORT -- CONFIG.lua
--
-- CONFIG.lua is written by bench/http.ts and returns a table: keys (API keys, rotated so that no key's
-- rate limit is what gets measured), symbol, bidTopTicks and askBottomTicks (the inner edge of each side
-- of the seeded book, see below), depthTicks, cancelBeyondTicks, quantity, rate (requests per second for
-- the whole run, 0 = as fast as the connections allow), threads and run (the number of this wrk run, part
-- of the client order ids).
--
-- Prices. The server's book is hybrid: with AMM venues on (the default), the pools of four chains quote
-- levels into it beside our resting orders, and they move (AMM_FLOW=sim moves every pool by up to 4 bps
-- per 500 ms quote). bench/http.ts reads the hybrid book before seeding and sets the two edges so that
-- our buys are below its best ask and our sells above its best bid, with a margin: buys rest at
-- bidTopTicks - k, sells at askBottomTicks + k, 0 <= k < depthTicks. With the AMM off (or a hybrid book
-- with no venue levels) the edges are 2999.99 and 3000.01. Once our book holds both edges the engine keeps
-- every venue level from crossing it (a quote's bids at or above our best ask, and asks at or below our
-- best bid, are clipped), so venue levels can only show up in the gap between our best bid and best ask.
--
-- Every request is one of three kinds:
--   passive  a GTC limit k ticks behind its side's edge, k = floor((depthTicks-1)u^2) for uniform u, so
--            denser near the edge as real depth is, sent with post_only: it never takes liquidity. When
--            the AMM has moved a venue level into our spread beyond its price, the engine refuses it (409
--            POST_ONLY_WOULD_TAKE): counted as postOnlyRefused, not as a failure, and it changes nothing.
--            One placed k >= cancelBeyondTicks behind the edge carries client_order_id
--            "k<key>r<run>n<thread>x<counter>": when it rests, its id and the key that placed it (the
--            cancel must come from the same user) are kept;
--   ioc      a limit IOC priced beyond the whole other side of our book, with stp "none" (the bench's
--            users trade with each other and with themselves): it takes the best price of the hybrid
--            book, which is our best resting order as long as no venue level sits inside our spread.
--            Every order has the same quantity, so an IOC takes exactly one resting order, or 0.0100 ETH
--            from a venue when the AMM has drifted into our spread (a venue level is better than our best
--            order). The script tells the two apart by each fill's venue ("clob" or the pool): iocFills
--            counts our orders taken, iocVenueFills the venue fills, which leave our book as it was;
--   cancel   a DELETE of one of the kept far orders, picked at random.
-- Each answer says exactly what its request did to the quantity resting in our book (+ an order's quantity
-- rested, - what its fills against "clob" took, - what was left of an order cancelled, 0 refused or filled
-- by a venue), so a thread knows its own effect on the book; with the expected effect of its requests still
-- in flight added (an order's quantity each), it sends a passive placement when that sum is <= 0 and a
-- removal otherwise (a cancel for every third removal when it holds a far order, else an IOC).
-- The book so stays within about a connection count of its seeded size, and placements dominate: half
-- the requests are passive placements, the IOCs take the near orders and the cancels the far ones
-- (bench/http.ts, cancelBeyondTicks, says why the two never race for the same order). With the AMM on,
-- the share of IOCs that a venue filled and of passives refused is printed beside every run: they say how
-- far the AMM drifted into our spread during it.
--
-- With BENCH_HTTP_PACED=1 in the environment the script also defines delay(), pacing each thread to
-- rate / threads requests per second (see delay below).

local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
  int clock_gettime(int clock_id, bench_timespec *time);
]]
local clockMonotonic = 1
local timespec = ffi.new("bench_timespec")

local function nowUs()
  ffi.C.clock_gettime(clockMonotonic, timespec)
  return tonumber(timespec.tv_sec) * 1e6 + tonumber(timespec.tv_nsec) / 1e3
end

-- The main state (setup, done) keeps the threads to read their counters at the end.
local threads = {}

function setup(thread)
  thread:set("threadId", #threads + 1)
  table.insert(threads, thread)
end

-- Per-thread state, set in init.
local config
local keys
local keyCount
local ordersPath
-- Each key's request heads, made once in init: wrk.format walks a header table and formats every line on
-- each call, and the script's own CPU is taken from the server (wrk and the server share two cores).
-- A placement is its key's head, the body's length, a blank line and the body; a cancel is the request
-- line with the order's id and its key's headers.
local placementHeads, cancelHeads = {}, {}
-- Request bodies made once in init (see there): by ticks behind the edge, then side + 1; IOC bodies by side.
local passiveBodies, iocBodies = {}, {}
local keyCursor = 0
local counter = 0
local nextSide = 0        -- passive placements alternate buy and sell
local nextIocSide = 0     -- so do IOCs
local removals = 0
-- Ids of this thread's resting far orders and the index of the key that placed each (parallel arrays).
local restingIds, restingKeys = {}, {}
local restingCount = 0
local restingMax = 50000

-- Book accounting (see the header): confirmed effect of answered requests, expected effect of sent ones,
-- in units of 0.0001 (the last decimal of the quantities; config.quantity is one order's): a fill can take
-- part of an order.
local confirmed = 0
local orderLots = 0
local sentPassive, sentIoc, sentCancel = 0, 0, 0
local answeredPassive, answeredIoc, answeredCancel = 0, 0, 0

-- Globals, so that done() can read them through thread:get.
placedPassive = 0
placedIoc = 0
iocFills = 0
iocVenueFills = 0
postOnlyRefused = 0
cancelled = 0
cancelMisses = 0
status2xxOther = 0
status4xx = 0
status429 = 0
status422 = 0
status5xx = 0
status503 = 0
lateSends = 0
lateMaxUs = 0
-- The first failed answer (status and body), to say what failed.
firstFailure = ""

-- Pacing (rate > 0): each thread hands out send slots `intervalUs` apart on an absolute schedule.
local intervalUs = 0
local nextDueUs = 0

local function priceText(ticks)
  return string.format("%d.%02d", math.floor(ticks / 100), ticks % 100)
end

-- A passive placement's body up to where a client order id would go (the caller closes it).
local function passiveBody(side, ticks)
  return '{"side":"' .. (side == 0 and "buy" or "sell") .. '","order_type":"limit","quantity":"' .. config.quantity ..
    '","price":"' .. priceText(ticks) .. '","post_only":true'
end

local function iocBody(side, ticks)
  return '{"side":"' .. (side == 0 and "buy" or "sell") .. '","order_type":"limit","time_in_force":"IOC","quantity":"' ..
    config.quantity .. '","price":"' .. priceText(ticks) .. '","stp":"none"}'
end

function init(args)
  config = dofile(args[1])
  keys = config.keys
  keyCount = #keys
  ordersPath = "/api/v1/exchange/" .. config.symbol .. "/orders"
  for index, key in ipairs(keys) do
    -- wrk.format without a body ends the head with a blank line; the placement's Content-Length goes there.
    local head = wrk.format("POST", ordersPath, { ["Content-Type"] = "application/json", ["X-API-Key"] = key })
    placementHeads[index] = string.sub(head, 1, -3) .. "Content-Length: "
    cancelHeads[index] = string.sub(wrk.format("DELETE", "/", { ["X-API-Key"] = key }), #"DELETE / HTTP/1.1\r\n" + 1)
  end
  -- Every passive body without a client order id, and both IOC bodies, made once: the prices a thread can
  -- send are the depthTicks behind each edge and one IOC price a side.
  for behind = 0, config.depthTicks - 1 do
    passiveBodies[behind] = {
      passiveBody(0, config.bidTopTicks - behind),
      passiveBody(1, config.askBottomTicks + behind),
    }
  end
  iocBodies[0] = iocBody(0, config.askBottomTicks + config.depthTicks + 10)
  iocBodies[1] = iocBody(1, config.bidTopTicks - config.depthTicks - 10)
  orderLots = math.floor(tonumber(config.quantity) * 1e4 + 0.5)
  -- Threads start on different keys and draw different prices.
  keyCursor = (threadId - 1) * math.floor(keyCount / config.threads)
  math.randomseed(threadId * 7919)
  if config.rate > 0 then
    intervalUs = 1e6 * config.threads / config.rate
    nextDueUs = nowUs()
  end
end

local function nextKey()
  keyCursor = keyCursor + 1
  return (keyCursor % keyCount) + 1
end

local function passiveRequest()
  local side = nextSide
  nextSide = 1 - nextSide
  local u = math.random()
  -- 0..depthTicks-1 ticks behind the side's edge, denser near it (as real depth is).
  local behind = math.floor((config.depthTicks - 1) * u * u)
  local key = nextKey()
  sentPassive = sentPassive + 1
  local body = passiveBodies[behind][side + 1]
  if behind >= config.cancelBeyondTicks then
    -- A candidate for a later cancel: the id names the key (and so the user) that may cancel it.
    counter = counter + 1
    body = body .. ',"client_order_id":"k' .. key .. "r" .. config.run .. "n" .. threadId .. "x" .. counter .. '"}'
  else
    body = body .. "}"
  end
  return placementHeads[key] .. #body .. "\r\n\r\n" .. body
end

local function iocRequest()
  local side = nextIocSide
  nextIocSide = 1 - nextIocSide
  -- Beyond every resting order of ours on the other side: it takes the best price of the hybrid book.
  local key = nextKey()
  sentIoc = sentIoc + 1
  local body = iocBodies[side]
  return placementHeads[key] .. #body .. "\r\n\r\n" .. body
end

local function cancelRequest()
  local index = math.random(restingCount)
  local id, key = restingIds[index], restingKeys[index]
  restingIds[index], restingKeys[index] = restingIds[restingCount], restingKeys[restingCount]
  restingIds[restingCount], restingKeys[restingCount] = nil, nil
  restingCount = restingCount - 1
  sentCancel = sentCancel + 1
  return "DELETE " .. ordersPath .. "/" .. id .. " HTTP/1.1\r\n" .. cancelHeads[key]
end

function request()
  local inFlight = (sentPassive - answeredPassive) - (sentIoc - answeredIoc) - (sentCancel - answeredCancel)
  if confirmed + inFlight * orderLots <= 0 then return passiveRequest() end
  removals = removals + 1
  if removals % 3 == 0 and restingCount > 0 then return cancelRequest() end
  return iocRequest()
end

-- Answers are read with plain finds from known places only, no patterns: this script's CPU is taken from
-- the server's two cores (against a stub server answering with the order server's records, wrk's user
-- CPU per request fell from about 6 to 3.5 us when string.match, string.gsub and the per-request bodies
-- went; bench/README.md). An order record starts {"order_id":"<id>","client_order_id":<"id" or null>, in
-- that order (shell/http/order-json.ts).
local find, sub = string.find, string.sub
local idStart = #'{"order_id":"' + 1
local clientPrefix = '","client_order_id":"k'
local fillStart = '{"trade_id":"'
local fillQuantity = '"quantity":"'
local takerFill = '"liquidity":"taker"'
local bookVenue = ',"venue":"clob"'
local filledQuantity = '"filled_quantity":"'

-- A decimal quantity ("0.0100") in units of 0.0001, from `at` to the next quote.
local function lotsAt(body, at)
  local last = find(body, '"', at, true)
  if last == nil then return 0 end
  return math.floor((tonumber(sub(body, at, last - 1)) or 0) * 1e4 + 0.5)
end

local function remember(body)
  local idEnd = find(body, '"', idStart, true)
  if idEnd == nil or sub(body, idEnd, idEnd + #clientPrefix - 1) ~= clientPrefix then return end
  local keyStart = idEnd + #clientPrefix
  local keyEnd = find(body, "r", keyStart, true)
  if keyEnd == nil then return end
  local id, key = sub(body, idStart, idEnd - 1), tonumber(sub(body, keyStart, keyEnd - 1))
  if key == nil then return end
  if restingCount >= restingMax then
    -- Full (cancels have not kept up): this one replaces a random kept one, which stays on the book.
    local index = math.random(restingCount)
    restingIds[index], restingKeys[index] = id, key
    return
  end
  restingCount = restingCount + 1
  restingIds[restingCount], restingKeys[restingCount] = id, key
end

-- An IOC's fills from `at` on: how many, how many against our book ("venue":"clob") rather than a pool,
-- and the lots those took from our book. A fill record reads {"trade_id":…,"price":…,"quantity":"…",…,
-- "liquidity":"taker","venue":"…" (shell/http/order-json.ts). A fill may take part of one of our orders
-- (a venue filled the rest of the IOC first): counting it as a whole order taken would have the thread
-- place more than it removes, and the book grow, whenever the AMM sits in our spread.
local function countFills(body, at)
  local fills, bookFills, bookLots = 0, 0, 0
  while true do
    local _, start = find(body, fillStart, at, true)
    if start == nil then return fills, bookFills, bookLots end
    local _, quantityLast = find(body, fillQuantity, start, true)
    local _, last = find(body, takerFill, quantityLast or start, true)
    if last == nil then return fills, bookFills, bookLots end
    fills = fills + 1
    if sub(body, last + 1, last + #bookVenue) == bookVenue then
      bookFills = bookFills + 1
      bookLots = bookLots + (quantityLast == nil and orderLots or lotsAt(body, quantityLast + 1))
    end
    at = last + 1
  end
end

function response(status, headers, body)
  if status == 201 then
    -- One pass along the record: its time in force, then its status, then (an IOC's) fills after it.
    local _, tifLast = find(body, '"time_in_force":"', 1, true)
    local _, statusLast = find(body, '"status":"', tifLast or 1, true)
    if tifLast ~= nil and sub(body, tifLast + 1, tifLast + 4) == 'IOC"' then
      answeredIoc = answeredIoc + 1
      placedIoc = placedIoc + 1
      -- Each fill names its venue: "clob" for one of our resting orders, else the pool that filled it.
      local fills, bookFills, bookLots = countFills(body, statusLast or 1)
      iocFills = iocFills + bookFills
      iocVenueFills = iocVenueFills + fills - bookFills
      confirmed = confirmed - bookLots
    else
      answeredPassive = answeredPassive + 1
      placedPassive = placedPassive + 1
      if statusLast ~= nil and sub(body, statusLast + 1, statusLast + 5) == 'open"' then
        confirmed = confirmed + orderLots
        remember(body)
      end
    end
    return
  end
  if status == 200 and find(body, '"status":"cancelled"', 1, true) then
    answeredCancel = answeredCancel + 1
    cancelled = cancelled + 1
    -- What was left of it: an IOC may have taken part of it before.
    local _, filledLast = find(body, filledQuantity, 1, true)
    confirmed = confirmed - orderLots + (filledLast == nil and 0 or lotsAt(body, filledLast + 1))
    return
  end
  if status == 409 and find(body, "POST_ONLY_WOULD_TAKE", 1, true) then
    -- Only a passive placement is post-only: a venue level had moved into our spread beyond its price.
    answeredPassive = answeredPassive + 1
    postOnlyRefused = postOnlyRefused + 1
    return
  end
  if status == 404 then
    -- Only a cancel answers 404 here: its order was taken by an IOC first.
    answeredCancel = answeredCancel + 1
    cancelMisses = cancelMisses + 1
    return
  end
  if firstFailure == "" then firstFailure = status .. " " .. body end
  if status < 300 then
    status2xxOther = status2xxOther + 1
  elseif status < 500 then
    status4xx = status4xx + 1
    if status == 429 then status429 = status429 + 1 end
    if status == 422 then status422 = status422 + 1 end
  else
    status5xx = status5xx + 1
    if status == 503 then status503 = status503 + 1 end
  end
end

if os.getenv("BENCH_HTTP_PACED") == "1" then
  -- Called when a connection is ready for its next request: wait for the next free slot of this thread's
  -- schedule. wrk's timer has millisecond resolution, so a request may leave up to 1 ms before its slot.
  -- A slot already past (every connection was busy when it came due) is sent at once and counted late.
  function delay()
    local now = nowUs()
    local due = nextDueUs
    nextDueUs = nextDueUs + intervalUs
    if due >= now then return math.floor((due - now) / 1000) end
    local late = now - due
    if late > 1000 then
      lateSends = lateSends + 1
      if late > lateMaxUs then lateMaxUs = late end
    end
    return 0
  end
end

local counterNames = {
  "placedPassive", "placedIoc", "iocFills", "iocVenueFills", "postOnlyRefused", "cancelled", "cancelMisses", "status2xxOther", "status4xx", "status429",
  "status422", "status5xx", "status503", "lateSends",
}

-- One line for bench/http.ts to parse: totals over the threads and wrk's own latency percentiles.
function done(summary, latency, requests)
  local totals = {}
  for _, name in ipairs(counterNames) do totals[name] = 0 end
  local lateMax = 0
  for _, thread in ipairs(threads) do
    for _, name in ipairs(counterNames) do totals[name] = totals[name] + (thread:get(name) or 0) end
    lateMax = math.max(lateMax, thread:get("lateMaxUs") or 0)
  end
  local parts = {}
  for _, name in ipairs(counterNames) do table.insert(parts, string.format('"%s":%d', name, totals[name])) end
  table.insert(parts, string.format('"lateMaxUs":%d', lateMax))
  table.insert(parts, string.format('"durationUs":%d', summary.duration))
  table.insert(parts, string.format('"requests":%d', summary.requests))
  table.insert(parts, string.format('"connectErrors":%d', summary.errors.connect))
  table.insert(parts, string.format('"readErrors":%d', summary.errors.read))
  table.insert(parts, string.format('"writeErrors":%d', summary.errors.write))
  table.insert(parts, string.format('"timeouts":%d', summary.errors.timeout))
  table.insert(parts, string.format('"latencyP50Us":%d', latency:percentile(50)))
  table.insert(parts, string.format('"latencyP90Us":%d', latency:percentile(90)))
  table.insert(parts, string.format('"latencyP99Us":%d', latency:percentile(99)))
  table.insert(parts, string.format('"latencyP999Us":%d', latency:percentile(99.9)))
  table.insert(parts, string.format('"latencyMaxUs":%d', latency.max))
  table.insert(parts, string.format('"latencyMeanUs":%d', math.floor(latency.mean)))
  io.write("BENCH_HTTP " .. "{" .. table.concat(parts, ",") .. "}\n")
  for _, thread in ipairs(threads) do
    local failure = thread:get("firstFailure")
    if failure ~= nil and failure ~= "" then
      io.write("BENCH_HTTP_FAILURE " .. string.gsub(failure, "\n", " ") .. "\n")
      break
    end
  end
end
