-- The pub/sub floor's release (RawPubSubAdapter): if the caller holds the lock, either hands it
-- straight to the oldest queued waiter, or frees it and wakes that waiter to try again.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the queue: a list of waiter ids, oldest first
-- ARGV[1]  the caller's id
-- ARGV[2]  ttl of a handed-over lock, ms
-- ARGV[3]  the channel the waiters listen on (data, not a key)
-- ARGV[4]  'direct' to hand the lock over, anything else to free it and wake the waiter
--
-- Publishes the woken waiter's id on the channel. Returns 1 if the caller held the lock, else 0.

if redis.call('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
local next = redis.call('lpop', KEYS[2])
if next and ARGV[4] == 'direct' then
  redis.call('set', KEYS[1], next, 'PX', ARGV[2])
else
  redis.call('del', KEYS[1])
end
if next then
  redis.call('publish', ARGV[3], next)
end
return 1
