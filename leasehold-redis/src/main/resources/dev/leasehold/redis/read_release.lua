-- Ends a read lease: removes the reader from the readers set only if it is still there, and when
-- the last live reader leaves, wakes the waiting writer with the oldest registration (readers never
-- wait for readers, and one writer is enough: the others would only lose the race). Also cleans up
-- an abandoned read acquire.
--
-- KEYS[1]  the readers key: a sorted set of reader holder id -> lease expiry (server ms)
-- KEYS[2]  the writers key: a sorted set of waiting writer id -> registration expiry (server ms)
-- KEYS[3]  the waiters key: a sorted set of waiter id -> registration expiry (server ms)
-- ARGV[1]  holder id
-- ARGV[2]  waiter id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- Publishes the woken writer's id on its client's channel (lib_wake.lua).
-- Returns 1 if the lease was live and is now ended, 0 if it was not (gone, expired, or a key of
-- another type, which is left untouched).

-- #include lib_members.lua

local function kind(key)
  return redis.call('type', key)['ok']
end

local expiry, millis = members_end(KEYS[1], ARGV[1], KEYS[3], kind(KEYS[3]), ARGV[2])
if not expiry then
  return 0
end
redis.call('zremrangebyscore', KEYS[1], '-inf', millis)
if redis.call('zcard', KEYS[1]) == 0 and kind(KEYS[2]) == 'zset' then
  redis.call('zremrangebyscore', KEYS[2], '-inf', millis)
  local writer = redis.call('zrange', KEYS[2], 0, 0)[1]
  if writer then
    wake_publish(ARGV[3], writer, writer)
  end
end
if expiry > millis then
  return 1
end
return 0
