-- One node's part of a Redlock release (and of the clean-up of a failed or abandoned round):
-- compare-and-delete, so another holder's key is never removed, and a wake-up for the waiters
-- registered on this node, only when some are.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the waiters key (sorted set: waiter id -> registration expiry, server ms)
-- ARGV[1]  holder id
-- ARGV[2]  waiter id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- Returns 1 if the key was ours and is now deleted, 0 if it was not ours.

if ARGV[2] ~= '' then
  redis.call('zrem', KEYS[2], ARGV[2])
end
if redis.call('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
if redis.call('exists', KEYS[2]) == 1 then
  local now = redis.call('time')
  local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
  redis.call('zremrangebyscore', KEYS[2], '-inf', millis)
  if redis.call('zcard', KEYS[2]) > 0 then
    redis.call('publish', ARGV[3], '1')
  end
end
return 1
