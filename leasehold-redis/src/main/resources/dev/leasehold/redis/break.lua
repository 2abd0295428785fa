-- An administrator breaks a lock: deletes whatever holds the name, whoever holds it (the lock
-- key, the readers set, the permits set), advances the fence so the next token exceeds every
-- token issued so far (even if the fence key had expired), records who broke it and why in a
-- short-lived audit hash, and wakes every waiter.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the audit key ({name}:broken)
-- KEYS[4]  the readers key (sorted set: reader holder id -> lease expiry, server ms)
-- KEYS[5]  the permits key (sorted set: permit holder id -> lease expiry, server ms)
-- ARGV[1]  who breaks it (user@host)
-- ARGV[2]  why
-- ARGV[3]  how long the fence key outlives this, ms
-- ARGV[4]  how long the audit record lives, ms
-- ARGV[5]  the release channel (a channel, not a key: passed as data)
--
-- Returns {0} when nobody holds the name (nothing is written), else {1, the holder id reported (the
-- lock key's, else the reader's or permit's that expires first), fence after the break as a
-- decimal string}. Fails, writing nothing, as acquire.lua does when a key holds another type, or
-- the fence is not a counter or exhausted.

-- #include lib_fence.lua
-- #include lib_members.lua
-- #include lib_handoff.lua

local expected = {[1] = 'string', [4] = 'zset', [5] = 'zset'}
local found = {}
for i, kind in pairs(expected) do
  found[i] = redis.call('type', KEYS[i])['ok']
  if found[i] ~= 'none' and found[i] ~= kind then
    return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. found[i] .. ' ' .. KEYS[i])
  end
end
local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local holder = nil
if found[1] == 'string' then
  holder = redis.call('get', KEYS[1])
  -- A reservation (lib_handoff.lua) is nobody's lease: nothing to break, and it soon lapses.
  if handoff_is_reservation(holder) then
    holder = nil
  end
end
for _, i in ipairs({4, 5}) do
  if not holder and found[i] == 'zset' then
    holder = redis.call('zrangebyscore', KEYS[i], '(' .. millis, '+inf', 'LIMIT', 0, 1)[1]
  end
end
if not holder then
  return {0}
end
local refused, last = fence_check(KEYS[2])
if refused then
  return refused
end
local fence = fence_next(KEYS[2], ARGV[3], last)
redis.call('del', KEYS[1], KEYS[4], KEYS[5])
redis.call('del', KEYS[3])
-- Redacted as HolderIds.redact does: the full id would let anyone who reads the record act as the holder.
local redacted = #holder <= 6 and '…' or (string.sub(holder, 1, 6) .. '…')
redis.call('hset', KEYS[3], 'by', ARGV[1], 'reason', ARGV[2], 'holder', redacted, 'fence', fence,
  'at', tostring(millis))
redis.call('pexpire', KEYS[3], ARGV[4])
redis.call('publish', ARGV[5], '*')
return {1, holder, fence}
