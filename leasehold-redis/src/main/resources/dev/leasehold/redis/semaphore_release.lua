-- Gives one permit of a semaphore back: removes only the caller's own member, and wakes one
-- waiter, the registered one whose registration is oldest (one permit came free: the others would
-- only find the semaphore full). The woken waiter's registration is removed, so a second release
-- right after wakes another one; the woken waiter registers again if it still finds no permit.
-- Also used to clean up an abandoned acquire. See semaphore_acquire.lua for the layout.
--
-- KEYS[1]  the permits key
-- KEYS[2]  the waiters key (sorted set: waiter id -> registration expiry, server ms)
-- ARGV[1]  holder id
-- ARGV[2]  waiter id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- Publishes the woken waiter's id on the channel, or '*' (wake everyone) when the waiters key
-- holds another type. Deletes the permits key once no live lease is left in it, which also
-- forgets the number of permits.
--
-- Returns 1 if the caller's lease was live and is now gone, 0 if it was not there (never taken,
-- released already, or expired and purged), or had expired (the permit was free already).
-- Keys of another type are left untouched.

local waiters = redis.call('type', KEYS[2])['ok']
if ARGV[2] ~= '' and waiters == 'zset' then
  redis.call('zrem', KEYS[2], ARGV[2])
end
if redis.call('type', KEYS[1])['ok'] ~= 'zset' then
  return 0
end
local score = redis.call('zscore', KEYS[1], ARGV[1])
if not score then
  return 0
end
local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('zrem', KEYS[1], ARGV[1])
redis.call('zremrangebyscore', KEYS[1], 0, millis)
if redis.call('zcount', KEYS[1], '(' .. millis, '+inf') == 0 then
  redis.call('del', KEYS[1])
end

if waiters == 'zset' then
  if redis.call('exists', KEYS[2]) == 1 then
    redis.call('zremrangebyscore', KEYS[2], '-inf', millis)
    local next = redis.call('zrange', KEYS[2], 0, 0)[1]
    if next then
      redis.call('zrem', KEYS[2], next)
      redis.call('publish', ARGV[3], next)
    end
  end
elseif waiters ~= 'none' then
  -- A waiters key of another type cannot tell whether anyone waits: a needless wake-up costs a
  -- re-check, a missed one a whole re-check interval.
  redis.call('publish', ARGV[3], '*')
end
if tonumber(score) > millis then
  return 1
end
return 0
