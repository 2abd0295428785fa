-- The pub/sub floor's acquire (RawPubSubAdapter): takes the lock if it is free, or finds it
-- already handed to the caller; otherwise queues the caller once, at the tail.
--
-- KEYS[1]  the lock key (its value is the holder's id)
-- KEYS[2]  the queue: a list of waiter ids, oldest first
-- ARGV[1]  the caller's id, one per acquisition
-- ARGV[2]  ttl of the lock and of the queue, ms
--
-- Returns 1 when the caller holds the lock, 0 when it is queued.

if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) or redis.call('get', KEYS[1]) == ARGV[1] then
  return 1
end
redis.call('lrem', KEYS[2], 0, ARGV[1])
redis.call('rpush', KEYS[2], ARGV[1])
redis.call('pexpire', KEYS[2], ARGV[2])
return 0
