-- Ends a write lease by compare-and-delete of the lock key, and wakes whoever may go now. Also
-- cleans up an abandoned write acquire: forgets its writer registration, so a writer that gave up
-- does not keep new readers out until the registration expires.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the writers key: a sorted set of waiting writer id -> registration expiry (server ms)
-- KEYS[3]  the waiters key: a sorted set of waiter id -> registration expiry (server ms): waiting
--          readers and plain-mutex waiters
-- ARGV[1]  holder id
-- ARGV[2]  waiting writer id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- Publishes on the channel, only when someone live waits:
--   after a release: '*' (wake everyone) when readers or mutex waiters wait, since all readers may
--   go at once; else the id of the waiting writer with the oldest registration (on its client's
--   channel, lib_wake.lua);
--   after forgetting the last writer registration while the lock key is free: '*', for the readers
--   that yielded to that writer.
-- A waiters key of another type cannot tell whether anyone waits: '*' then.
-- Returns 1 if the lock was ours and is now free, 0 if it was not ours (another holder, nobody, or
-- a value of another type). Keys of another type are left untouched.

-- #include lib_wake.lua

local function kind(key)
  return redis.call('type', key)['ok']
end

local writers = kind(KEYS[2])
local waiters = kind(KEYS[3])
local forgot = false
if ARGV[2] ~= '' and writers == 'zset' then
  forgot = redis.call('zrem', KEYS[2], ARGV[2]) == 1
end
-- pcall: GET on a key of another type is an error, and such a key is simply not ours.
local ours = redis.pcall('get', KEYS[1]) == ARGV[1]
if ours then
  redis.call('del', KEYS[1])
elseif not forgot or redis.call('exists', KEYS[1]) == 1 then
  return 0
end

local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local waiting = 0
if waiters == 'zset' then
  redis.call('zremrangebyscore', KEYS[3], '-inf', millis)
  waiting = redis.call('zcard', KEYS[3])
elseif waiters ~= 'none' then
  waiting = 1
end
local writer = nil
if writers == 'zset' then
  redis.call('zremrangebyscore', KEYS[2], '-inf', millis)
  writer = redis.call('zrange', KEYS[2], 0, 0)[1]
end

if ours then
  if waiting > 0 then
    redis.call('publish', ARGV[3], '*')
  elseif writer then
    wake_publish(ARGV[3], writer, writer)
  end
  return 1
end
if not writer and waiting > 0 then
  redis.call('publish', ARGV[3], '*')
end
return 0
