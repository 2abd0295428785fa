-- An administrator breaks a lock: deletes the current holder's key whoever holds it, advances the
-- fence so the next token exceeds every token issued so far (even if the fence key had expired),
-- records who broke it and why in a short-lived audit hash, and wakes every waiter.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the audit key ({name}:broken)
-- ARGV[1]  who breaks it (user@host)
-- ARGV[2]  why
-- ARGV[3]  how long the fence key outlives this, ms
-- ARGV[4]  how long the audit record lives, ms
-- ARGV[5]  the release channel (a channel, not a key: passed as data)
--
-- Returns {0} when the lock is free (nothing is written), else {1, holder id, fence after the break
-- as a decimal string}. Fails, writing nothing, as acquire.lua does when the lock or fence key
-- holds another type, or the fence is not a counter or exhausted.

-- #include lib_fence.lua

local lock = redis.call('type', KEYS[1])['ok']
if lock == 'none' then
  return {0}
end
if lock ~= 'string' then
  return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. lock .. ' ' .. KEYS[1])
end
local refused, last = fence_check(KEYS[2])
if refused then
  return refused
end
local holder = redis.call('get', KEYS[1])
local fence = fence_next(KEYS[2], ARGV[3], last)
redis.call('del', KEYS[1])
local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('del', KEYS[3])
-- Redacted as HolderIds.redact does: the full id would let anyone who reads the record act as the holder.
local redacted = #holder <= 6 and '…' or (string.sub(holder, 1, 6) .. '…')
redis.call('hset', KEYS[3], 'by', ARGV[1], 'reason', ARGV[2], 'holder', redacted, 'fence', fence,
  'at', tostring(millis))
redis.call('pexpire', KEYS[3], ARGV[4])
redis.call('publish', ARGV[5], '*')
return {1, holder, fence}
