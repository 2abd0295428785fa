-- Takes the lock for a new holder in one round trip, or says how long the current holder has left.
-- Also one node's part of a Redlock acquisition: there the token is that node's counter, and the
-- client writes the maximum over its majority back (leasehold-redlock's fence.lua).
--
-- KEYS[1]  the lock key (its value is the holder id, as with a plain SET NX PX)
-- KEYS[2]  the fence key: the last token issued for this lock
-- KEYS[3]  the waiters key: a sorted set of waiter id -> registration expiry (server ms)
-- ARGV[1]  holder id
-- ARGV[2]  ttl of the lock, ms
-- ARGV[3]  how long the fence key outlives the last acquisition, ms
-- ARGV[4]  waiter id, or '' when the caller is not (yet) waiting
-- ARGV[5]  how long a waiter registration lasts without a new attempt, ms
-- KEYS[4]  (optional; a single Redis deployment passes it, a Redlock node does not) the readers key:
--          a sorted set of reader holder id -> lease expiry (server ms). Live read leases of the name
--          block the mutex as they block a writer: the lock family excludes itself on every backend.
--
-- Returns {1, token as a decimal string} when taken (a Lua number would round it above 2^53),
-- {0, pttl of the current holder} when held ({0, ms until the last live reader's lease may end} when
-- only readers block it; {0, ms left of the reservation} when a release reserved the key for another
-- waiter). A waiter takes the key a release reserved for it (lib_handoff.lua).
-- Fails, writing nothing, when waiting would not help:
--   'LEASEHOLD_FOREIGN_TYPE <type> <key>'  the lock or fence key holds another type than a string:
--                                          some other program uses that name;
--   'LEASEHOLD_FENCE_INVALID <key>'        the fence is not a decimal counter in [0, 2^63 - 1];
--   'LEASEHOLD_FENCE_EXHAUSTED <key>'      the fence is 2^63 - 1: no higher 64-bit token exists.
-- A waiters key of another type is left alone: waiting then relies on re-checks alone.

-- #include lib_fence.lua
-- #include lib_members.lua
-- #include lib_handoff.lua

local function kind(key)
  return redis.call('type', key)['ok']
end

-- The fast path asks no TYPE: the fence GET fails on a key of another type (fence_check), and
-- SET NX writes nothing over an existing key of any type.
local refused, last = fence_check(KEYS[2])
if refused then
  return refused
end
local readers = 0
if KEYS[4] and redis.call('exists', KEYS[4]) == 1 then
  readers = members_live(KEYS[4], kind(KEYS[4]), members_now())
end
if readers == 0 and redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local token = fence_next(KEYS[2], ARGV[3], last)
  if ARGV[4] ~= '' and kind(KEYS[3]) == 'zset' then
    redis.call('zrem', KEYS[3], ARGV[4])
  end
  return {1, token}
end

-- pcall: GET on a key of another type is an error: some other program uses that name.
local current = redis.pcall('get', KEYS[1])
if type(current) == 'table' then
  return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. kind(KEYS[1]) .. ' ' .. KEYS[1])
end
-- A release reserved the key for this waiter and woke it (lib_handoff.lua): it takes the lock.
if readers == 0 and ARGV[4] ~= '' and current == HANDOFF_PREFIX .. ARGV[4] then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1, fence_next(KEYS[2], ARGV[3], last)}
end
if ARGV[4] ~= '' then
  local waiters = kind(KEYS[3])
  if waiters == 'zset' or waiters == 'none' then
    members_add(KEYS[3], ARGV[4], members_now(), tonumber(ARGV[5]))
  end
end
if readers > 0 then
  return members_blocked(KEYS[1], KEYS[4], readers, members_now())
end
return {0, redis.call('pttl', KEYS[1])}
