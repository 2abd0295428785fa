-- Takes the lock for a new holder in one round trip, or says how long the current holder has left.
-- Also one node's part of a Redlock acquisition: there the token is that node's counter, and the
-- client writes the maximum over its majority back (leasehold-redlock's fence.lua).
--
-- KEYS[1]  the lock key (its value is the holder id, as with a plain SET NX PX)
-- KEYS[2]  the fence key: the last token issued for this lock
-- KEYS[3]  the waiters key: a sorted set of waiter id -> registration expiry (server ms)
-- ARGV[1]  holder id
-- ARGV[2]  ttl of the lock, ms
-- ARGV[3]  how long the fence key outlives the last acquisition, ms
-- ARGV[4]  waiter id, or '' when the caller is not (yet) waiting
-- ARGV[5]  how long a waiter registration lasts without a new attempt, ms
--
-- Returns {1, token as a decimal string} when taken (a Lua number would round it above 2^53),
-- {0, pttl of the current holder} when held.
-- Fails, writing nothing, when waiting would not help:
--   'LEASEHOLD_FOREIGN_TYPE <type> <key>'  the lock or fence key holds another type than a string:
--                                          some other program uses that name;
--   'LEASEHOLD_FENCE_INVALID <key>'        the fence is not a decimal counter in [0, 2^63 - 1];
--   'LEASEHOLD_FENCE_EXHAUSTED <key>'      the fence is 2^63 - 1: no higher 64-bit token exists.
-- A waiters key of another type is left alone: waiting then relies on re-checks alone.

local function kind(key)
  return redis.call('type', key)['ok']
end

local function foreign(key, found)
  return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. found .. ' ' .. key)
end

local MAX = '9223372036854775807'

-- What INCR advances exactly: a decimal without sign or leading zeros, at most 2^63 - 1. Digit
-- strings of equal length compare like their numbers.
local function isCounter(value)
  return (value == '0' or string.match(value, '^[1-9]%d*$') ~= nil)
      and (#value < #MAX or (#value == #MAX and value <= MAX))
end

local lock = kind(KEYS[1])
if lock ~= 'none' and lock ~= 'string' then
  return foreign(KEYS[1], lock)
end
local waiters = kind(KEYS[3])
local ownWaiters = waiters == 'zset' or waiters == 'none'

if lock == 'none' then
  local fence = kind(KEYS[2])
  if fence ~= 'none' and fence ~= 'string' then
    return foreign(KEYS[2], fence)
  end
  local last = redis.call('get', KEYS[2])
  if last and not isCounter(last) then
    return redis.error_reply('LEASEHOLD_FENCE_INVALID ' .. KEYS[2])
  end
  if last == MAX then
    return redis.error_reply('LEASEHOLD_FENCE_EXHAUSTED ' .. KEYS[2])
  end
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  -- The token is max(last + 1, server time in microseconds): it advances even after the fence
  -- key expired, as long as the server clock did not step back by more than the fence retention.
  -- Lua numbers are doubles, exact only below 2^53. micros is (until the year 2255), so comparing
  -- it with tonumber(last) decides rightly even for a larger counter, which INCR then advances
  -- exactly on the server.
  local now = redis.call('time')
  local micros = tonumber(now[1]) * 1000000 + tonumber(now[2])
  local token
  if last and tonumber(last) >= micros then
    redis.call('incr', KEYS[2])
    redis.call('pexpire', KEYS[2], ARGV[3])
    token = redis.call('get', KEYS[2])
  else
    token = string.format('%d', micros)
    redis.call('set', KEYS[2], token, 'PX', ARGV[3])
  end
  if ARGV[4] ~= '' and waiters == 'zset' then
    redis.call('zrem', KEYS[3], ARGV[4])
  end
  return {1, token}
end

if ARGV[4] ~= '' and ownWaiters then
  local now = redis.call('time')
  local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  redis.call('zadd', KEYS[3], millis + tonumber(ARGV[5]), ARGV[4])
  -- Only ever extend: clients may register for different times (their own maxRecheck), and a short
  -- one must not expire the others' registrations. A key without a TTL (-1) gets one.
  if redis.call('pttl', KEYS[3]) < tonumber(ARGV[5]) then
    redis.call('pexpire', KEYS[3], ARGV[5])
  end
end
return {0, redis.call('pttl', KEYS[1])}
