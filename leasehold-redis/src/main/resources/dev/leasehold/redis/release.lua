-- Compare-and-delete: frees the lock only if the caller's holder id still owns it, and wakes one
-- waiter, the registered one whose registration is oldest, when someone waits: the others would
-- only lose the race for the key. Also used to clean up an abandoned acquire, and as one node's
-- part of a Redlock release.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the waiters key (sorted set: waiter id -> registration expiry, server ms)
-- ARGV[1]  holder id
-- ARGV[2]  waiter id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- Publishes the woken waiter's id on the channel, or '*' (wake everyone) when the waiters key
-- holds another type.
--
-- Returns 1 if the lock was ours and is now free, 0 if it was not ours (another holder, nobody,
-- or a value of another type). Keys of another type are left untouched.

local waiters = redis.call('type', KEYS[2])['ok']
if ARGV[2] ~= '' and waiters == 'zset' then
  redis.call('zrem', KEYS[2], ARGV[2])
end
-- pcall: GET on a key of another type is an error, and such a key is simply not ours.
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
if waiters == 'zset' then
  if redis.call('exists', KEYS[2]) == 1 then
    local now = redis.call('time')
    local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
    redis.call('zremrangebyscore', KEYS[2], '-inf', millis)
    local next = redis.call('zrange', KEYS[2], 0, 0)[1]
    if next then
      redis.call('publish', ARGV[3], next)
    end
  end
elseif waiters ~= 'none' then
  -- A waiters key of another type cannot tell whether anyone waits: a needless wake-up costs a
  -- re-check, a missed one a whole re-check interval.
  redis.call('publish', ARGV[3], '*')
end
return 1
