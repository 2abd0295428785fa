-- Takes a read lease in one round trip, or says how long what blocks it may last. Many readers hold
-- at once; none enters while a writer holds the lock key or a live writer waits (registered in the
-- writers set), so a stream of readers never starves a writer.
--
-- KEYS[1]  the lock key: a writer's (or a plain mutex's) holder id
-- KEYS[2]  the fence key: the last token issued for this name, by any kind of lease
-- KEYS[3]  the readers key: a sorted set of reader holder id -> lease expiry (server ms)
-- KEYS[4]  the writers key: a sorted set of waiting writer id -> registration expiry (server ms)
-- KEYS[5]  the waiters key: a sorted set of waiter id -> registration expiry (server ms)
-- ARGV[1]  holder id
-- ARGV[2]  ttl of the read lease, ms
-- ARGV[3]  how long the fence key outlives the last acquisition, ms
-- ARGV[4]  waiter id, or '' when the caller is not (yet) waiting
-- ARGV[5]  how long a waiter registration lasts without a new attempt, ms
--
-- Returns {1, token as a decimal string} when taken (a Lua number would round it above 2^53),
-- {0, ms until what blocks it (writer's key, writer registrations) may be gone, or -1 if unknown}.
-- Fails, writing nothing, when waiting would not help:
--   'LEASEHOLD_FOREIGN_TYPE <type> <key>'  the lock key is not a string, or the readers or writers
--                                          key not a sorted set: some other program uses that name;
--   'LEASEHOLD_FENCE_INVALID <key>', 'LEASEHOLD_FENCE_EXHAUSTED <key>'  as in lib_fence.lua.
-- A waiters key of another type is left alone: waiting then relies on re-checks alone.

-- #include lib_fence.lua
-- #include lib_members.lua
-- #include lib_handoff.lua

local found, foreign = members_types({{1, 'string'}, {3, 'zset'}, {4, 'zset'}})
if foreign then
  return foreign
end
local waiters = redis.call('type', KEYS[5])['ok']
-- A mutex release reserved the lock key for this waiter and woke it (lib_handoff.lua): a reader
-- takes no key, so it drops the reservation and enters like any reader.
if found[1] == 'string' and ARGV[4] ~= '' and redis.call('get', KEYS[1]) == HANDOFF_PREFIX .. ARGV[4] then
  redis.call('del', KEYS[1])
  found[1] = 'none'
end

local millis = members_now()
-- A dead writer's registration stops blocking readers once it expires.
local writers = members_live(KEYS[4], found[4], millis)

if found[1] == 'none' and writers == 0 then
  return fence_grant(KEYS[2], ARGV[3], function()
    if found[3] == 'zset' then
      redis.call('zremrangebyscore', KEYS[3], '-inf', millis)
    end
    -- The set must outlive its longest member.
    members_add(KEYS[3], ARGV[1], millis, tonumber(ARGV[2]))
    if ARGV[4] ~= '' and waiters == 'zset' then
      redis.call('zrem', KEYS[5], ARGV[4])
    end
  end)
end

if ARGV[4] ~= '' and (waiters == 'zset' or waiters == 'none') then
  members_add(KEYS[5], ARGV[4], millis, tonumber(ARGV[5]))
end
return members_blocked(KEYS[1], KEYS[4], writers, millis)
