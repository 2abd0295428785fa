-- The token write-back of a Redlock acquisition: after the client took the maximum M of the
-- counters that a majority of nodes returned, it raises this node's counter to M, so any later
-- majority, which shares at least one node with this one, issues a token above M.
--
-- KEYS[1]  the fence key: this node's counter
-- ARGV[1]  M, the token the lease will carry (a decimal in [0, 2^63 - 1])
-- ARGV[2]  how long the fence key outlives its last write, ms
--
-- Returns the counter now stored, max(counter, M), as a decimal string: a Lua number (a double)
-- would round it above 2^53.
-- Fails, writing nothing, with 'LEASEHOLD_FOREIGN_TYPE <type> <key>' when the fence key holds
-- another type than a string, 'LEASEHOLD_FENCE_INVALID <key>' when it is not such a decimal.

local MAX = '9223372036854775807'

-- Digit strings without leading zeros compare like their numbers: first by length, then as text.
local function isCounter(value)
  return (value == '0' or string.match(value, '^[1-9]%d*$') ~= nil)
      and (#value < #MAX or (#value == #MAX and value <= MAX))
end

local function greater(a, b)
  return #a > #b or (#a == #b and a > b)
end

if not isCounter(ARGV[1]) then
  return redis.error_reply('ERR fence.lua: the token must be a decimal in [0, 2^63 - 1]')
end
local kind = redis.call('type', KEYS[1])['ok']
if kind ~= 'none' and kind ~= 'string' then
  return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. kind .. ' ' .. KEYS[1])
end
local last = redis.call('get', KEYS[1])
if last and not isCounter(last) then
  return redis.error_reply('LEASEHOLD_FENCE_INVALID ' .. KEYS[1])
end
local counter = ARGV[1]
if last and greater(last, counter) then
  counter = last
end
redis.call('set', KEYS[1], counter, 'PX', ARGV[2])
return counter
