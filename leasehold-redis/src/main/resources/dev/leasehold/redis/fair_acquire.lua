-- One attempt at the fair lock: granted in the server's arrival order. The caller gets the lock if
-- it is free and the caller is the first live waiter (or nobody waits), or if a release already
-- handed it to the caller; otherwise the caller takes (or keeps) its place in the queue.
--
-- KEYS[1]  the lock key (its value is the holder id, as with the mutex: the two exclude each other)
-- KEYS[2]  the fence key: the last token issued for this lock name
-- KEYS[3]  the queue: sorted set of waiter id -> arrival order (see lib_fair_queue.lua)
-- KEYS[4]  the queue info: hash of waiter id -> expiry, ttl, stamp[, handed-off token]
-- ARGV[1]  holder id, which is also the caller's waiter id
-- ARGV[2]  ttl of the lease, ms
-- ARGV[3]  how long the fence key outlives the last acquisition, ms
-- ARGV[4]  how long a registration lasts without a new attempt, ms
-- ARGV[5]  the attempt's stamp (a decimal, possibly negative), echoed on a handoff
-- ARGV[6..] (optional) waiter ids of the same client this attempt covers: each registered one
--          keeps its place, its registration is renewed (ARGV[4]) and its stamp becomes ARGV[5],
--          as if it had attempted itself; one the lock was handed to, one first in line for the
--          free lock, and one not (or no longer) registered are named in the reply instead, since
--          each must attempt itself
-- KEYS[5]  (optional) the readers key: a sorted set of reader holder id -> lease expiry (server ms); live read
--          leases of the name block the fair lock as they block a writer (the lock family excludes
--          itself). The last reader's release wakes no fair waiter: it finds out at its next re-check.
--
-- Returns {1, token as a decimal string} when the caller holds the lock; {0, ms} when it waits;
-- either followed by the covered waiters to wake (ARGV[6..]). {0, ms}:
-- the holder's pttl (-1: a key without TTL), or, when the lock is free but another waiter is
-- first, how long that waiter's registration still lasts; when live readers block it, until the last
-- reader's lease may end.
-- Fails, writing nothing, when waiting would not help:
--   'LEASEHOLD_FOREIGN_TYPE <type> <key>'  the lock or fence key is not a string, or the queue
--                                          keys are not a sorted set and a hash: some other
--                                          program uses that name, and no order can be kept;
--   'LEASEHOLD_FENCE_INVALID <key>'        (lock free, or handed over without a token) the fence
--   'LEASEHOLD_FENCE_EXHAUSTED <key>'      cannot issue a token: see lib_fence.lua.

-- #include lib_fence.lua
-- #include lib_fair_queue.lua
-- #include lib_members.lua

local function kind(key)
  return redis.call('type', key)['ok']
end

local expected = {'string', 'string', 'zset', 'hash'}
for i = 1, 4 do
  local found = kind(KEYS[i])
  if found ~= 'none' and found ~= expected[i] then
    return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. found .. ' ' .. KEYS[i])
  end
end

local holder = ARGV[1]
local current = redis.call('get', KEYS[1])
local nowMillis, nowMicros = queue_now()

-- The caller's own attempt: its reply.
local function attempt()
  if current == holder then
    -- A release handed the lock to the caller, whose notification was lost or is still on its way:
    -- the same token as the notification's. The lease now counts from this attempt, so the key
    -- gets the full ttl again.
    local entry = queue_entry(KEYS[4], holder)
    local token = entry and entry.token
    if not token then
      local refused, last = fence_check(KEYS[2])
      if refused then
        return refused
      end
      token = fence_next(KEYS[2], ARGV[3], last)
    end
    redis.call('pexpire', KEYS[1], ARGV[2])
    queue_forget(KEYS[3], KEYS[4], holder)
    return {1, token}
  end

  local last
  if not current then
    local refused
    refused, last = fence_check(KEYS[2])
    if refused then
      return refused
    end
  end

  local head, headEntry = queue_head(KEYS[3], KEYS[4], nowMillis, current)
  local readers = 0
  if not current and KEYS[5] and redis.call('exists', KEYS[5]) == 1 then
    readers = members_live(KEYS[5], kind(KEYS[5]), nowMillis)
  end
  if not current and readers == 0 and (head == nil or head == holder) then
    redis.call('set', KEYS[1], holder, 'PX', ARGV[2])
    local token = fence_next(KEYS[2], ARGV[3], last)
    queue_forget(KEYS[3], KEYS[4], holder)
    return {1, token}
  end

  local registration = tonumber(ARGV[4])
  queue_append(KEYS[3], holder, nowMicros)
  queue_write(KEYS[3], KEYS[4], holder, nowMillis + registration, ARGV[2], ARGV[5], nil, registration)
  if current then
    return {0, redis.call('pttl', KEYS[1])}
  end
  if readers > 0 then
    return members_blocked(KEYS[1], KEYS[5], readers, nowMillis)
  end
  return {0, headEntry.expiry - nowMillis}
end

local reply = attempt()
if reply.err or #ARGV < 6 then
  return reply
end

-- The waiters this attempt covers (the same client's, which leave re-checking to it): each keeps
-- its place and registration as if it had attempted with this attempt's stamp; one that must act
-- itself is named in the reply, to be woken.
local registration = tonumber(ARGV[4])
local lockHolder = redis.call('get', KEYS[1])
local first = nil
if not lockHolder then
  first = queue_head(KEYS[3], KEYS[4], nowMillis, lockHolder)
end
for i = 6, #ARGV do
  local waiter = ARGV[i]
  local entry = queue_entry(KEYS[4], waiter)
  if lockHolder == waiter or first == waiter or not entry or entry.token then
    reply[#reply + 1] = waiter
  else
    queue_write(KEYS[3], KEYS[4], waiter, nowMillis + registration, entry.ttl, ARGV[5], nil, registration)
  end
end
return reply
