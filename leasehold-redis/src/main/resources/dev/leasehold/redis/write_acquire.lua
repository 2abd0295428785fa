-- Takes the write lease in one round trip, or registers the caller as a waiting writer and says how
-- long what blocks it may last. The writer holds the lock key itself (SET NX PX semantics), so the
-- write lock and a plain mutex of the same name exclude each other; it enters only when no live
-- reader remains. A blocked writer always registers, even on a first attempt without a
-- subscription: from then on new readers yield to it (read_acquire.lua), so it is not starved.
--
-- KEYS[1]  the lock key (its value is the writer's holder id)
-- KEYS[2]  the fence key: the last token issued for this name, by any kind of lease
-- KEYS[3]  the readers key: a sorted set of reader holder id -> lease expiry (server ms)
-- KEYS[4]  the writers key: a sorted set of waiting writer id -> registration expiry (server ms)
-- ARGV[1]  holder id, also the waiting writer's id
-- ARGV[2]  ttl of the write lease, ms
-- ARGV[3]  how long the fence key outlives the last acquisition, ms
-- ARGV[4]  how long a writer registration lasts without a new attempt, ms
--
-- Returns {1, token as a decimal string} when taken (a Lua number would round it above 2^53),
-- {0, ms until what blocks it (the lock key, the readers' leases) may be gone, or -1 if unknown}.
-- Fails, writing nothing, when waiting would not help:
--   'LEASEHOLD_FOREIGN_TYPE <type> <key>'  the lock key is not a string, or the readers or writers
--                                          key not a sorted set: some other program uses that name;
--   'LEASEHOLD_FENCE_INVALID <key>', 'LEASEHOLD_FENCE_EXHAUSTED <key>'  as in lib_fence.lua.

-- #include lib_fence.lua
-- #include lib_members.lua

local found, foreign = members_types({{1, 'string'}, {3, 'zset'}, {4, 'zset'}})
if foreign then
  return foreign
end

local millis = members_now()
-- A crashed reader stops blocking writers once its lease expires.
local readers = members_live(KEYS[3], found[3], millis)

if found[1] == 'none' and readers == 0 then
  return fence_grant(KEYS[2], ARGV[3], function()
    redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
    if found[4] == 'zset' then
      redis.call('zrem', KEYS[4], ARGV[1])
    end
  end)
end

members_add(KEYS[4], ARGV[1], millis, tonumber(ARGV[4]))
return members_blocked(KEYS[1], KEYS[3], readers, millis)
