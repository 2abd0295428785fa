-- Releases the fair lock and hands it straight to the first live waiter, in the same step: the
-- waiter holds it without another round trip and learns it from the notification (or from its
-- next attempt, if the notification is lost). Also cleans up an abandoned acquisition: the caller
-- always leaves the queue, and a lock handed to it is passed on to the next waiter.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the queue (sorted set, see lib_fair_queue.lua)
-- KEYS[4]  the queue info (hash, see lib_fair_queue.lua)
-- ARGV[1]  holder id (also its waiter id)
-- ARGV[2]  how long the fence key outlives the last acquisition, ms
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- On a handoff, publishes '<waiter> <token> <stamp>' (the waiter's id, its token, the stamp of its
-- last attempt this server processed) on the waiter's client's channel (lib_wake.lua). If the
-- fence cannot issue a token, publishes '<waiter>' there instead, so the waiter tries again and
-- meets the fence's error itself. Queue keys of another
-- type are left alone and '*' (wake everyone) is published, since who waits is unknown.
--
-- Returns 1 if the lock was the caller's and is now released (and perhaps handed over), 0 if not
-- (another holder, nobody, or a lock key of another type, which is left untouched).

-- #include lib_fence.lua
-- #include lib_fair_queue.lua
-- #include lib_wake.lua

local queueKind = redis.call('type', KEYS[3])['ok']
local infoKind = redis.call('type', KEYS[4])['ok']
local ownQueue = (queueKind == 'zset' or queueKind == 'none') and (infoKind == 'hash' or infoKind == 'none')
if ownQueue then
  queue_forget(KEYS[3], KEYS[4], ARGV[1])
end
-- pcall: GET on a key of another type is an error, and such a key is simply not ours.
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
if not ownQueue then
  redis.call('publish', ARGV[3], '*')
  return 1
end

local nowMillis = queue_now()
local waiter, entry = queue_head(KEYS[3], KEYS[4], nowMillis, nil)
if not waiter then
  return 1
end
local refused, last = fence_check(KEYS[2])
if refused then
  wake_publish(ARGV[3], waiter, waiter)
  return 1
end
redis.call('set', KEYS[1], waiter, 'PX', entry.ttl)
local token = fence_next(KEYS[2], ARGV[2], last)
-- The waiter keeps its place and its token while the handed-over key lives: an attempt that
-- missed the notification still finds them.
local ttl = tonumber(entry.ttl)
queue_write(KEYS[3], KEYS[4], waiter, nowMillis + ttl, entry.ttl, entry.stamp, token, ttl)
wake_publish(ARGV[3], waiter, waiter .. ' ' .. token .. ' ' .. entry.stamp)
return 1
