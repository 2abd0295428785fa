-- Takes one permit of a semaphore for a new holder in one round trip, or says how long until the
-- first permit held comes free.
--
-- The permits key is a sorted set: each holder id -> its lease expiry (server ms, positive), plus
-- the member 'permits' whose score is minus the number of permits. The number lives in the set so
-- that it lives exactly as long as the longest lease: renew_members.lua raises the set's TTL to
-- cover every renewed member, and the set is gone once no lease is left. Holder ids always
-- contain a ':', so no holder is ever called 'permits'.
--
-- KEYS[1]  the permits key
-- KEYS[2]  the fence key: the last token issued for this name (any kind)
-- KEYS[3]  the waiters key: a sorted set of waiter id -> registration expiry (server ms)
-- ARGV[1]  holder id
-- ARGV[2]  ttl of the lease, ms
-- ARGV[3]  the number of permits the caller expects
-- ARGV[4]  how long the fence key outlives the last acquisition, ms
-- ARGV[5]  waiter id, or '' when the caller is not (yet) waiting
-- ARGV[6]  how long a waiter registration lasts without a new attempt, ms
--
-- Expired holders are removed first: a crashed holder's permit is free once its lease expired.
-- Returns {1, token as a decimal string} when a permit was taken (a Lua number would round it
-- above 2^53), {0, ms until the earliest live lease expires} when every permit is held.
-- Fails, writing nothing, when waiting would not help:
--   'LEASEHOLD_PERMITS_MISMATCH <stored> <asked> <key>'  live leases hold the semaphore with
--                                                       another number of permits;
--   'LEASEHOLD_FOREIGN_TYPE <type> <key>'                the permits key is not a sorted set, or
--                                                       the fence key not a string;
--   'LEASEHOLD_FENCE_INVALID <key>', 'LEASEHOLD_FENCE_EXHAUSTED <key>'  see lib_fence.lua.
-- A waiters key of another type is left alone: waiting then relies on re-checks alone.

-- #include lib_fence.lua
-- #include lib_members.lua

local MARKER = 'permits'

local permitsKind = redis.call('type', KEYS[1])['ok']
if permitsKind ~= 'none' and permitsKind ~= 'zset' then
  return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. permitsKind .. ' ' .. KEYS[1])
end
local refused, last = fence_check(KEYS[2])
if refused then
  return refused
end

local millis = members_now()
local ttl = tonumber(ARGV[2])
local permits = tonumber(ARGV[3])

local live = 0
if permitsKind == 'zset' then
  live = redis.call('zcount', KEYS[1], '(' .. millis, '+inf')
  local stored = redis.call('zscore', KEYS[1], MARKER)
  if live > 0 and stored and -tonumber(stored) ~= permits then
    return redis.error_reply('LEASEHOLD_PERMITS_MISMATCH ' .. string.format('%d', -tonumber(stored))
        .. ' ' .. ARGV[3] .. ' ' .. KEYS[1])
  end
  -- Past the checks: purging expired holders is the first write.
  redis.call('zremrangebyscore', KEYS[1], 0, millis)
end

local waiters = redis.call('type', KEYS[3])['ok']

if live < permits then
  -- Written on every grant: once no lease is live, the next acquire sets the number afresh.
  redis.call('zadd', KEYS[1], -permits, MARKER)
  -- The set must outlive its longest lease.
  members_add(KEYS[1], ARGV[1], millis, ttl)
  local token = fence_next(KEYS[2], ARGV[4], last)
  if ARGV[5] ~= '' and waiters == 'zset' then
    redis.call('zrem', KEYS[3], ARGV[5])
  end
  return {1, token}
end

if ARGV[5] ~= '' and (waiters == 'zset' or waiters == 'none') then
  members_add(KEYS[3], ARGV[5], millis, tonumber(ARGV[6]))
end
local earliest = redis.call('zrangebyscore', KEYS[1], '(' .. millis, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return {0, tonumber(earliest[2]) - millis}
