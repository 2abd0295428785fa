-- The mutex's handoff between clients: a release reserves the lock key for the waiter it wakes,
-- so a client that releases and re-acquires at once cannot beat the woken waiter to the key (it
-- would win that race nearly every time, and the woken waiter, whose failed attempt renews its
-- registration, would go to the back of the wake order). Shared by release.lua (which reserves),
-- acquire.lua and read_acquire.lua (which claim), break.lua, lib_snapshot.lua, leader_read.lua and
-- leader_publish.lua (which read); they include it after lib_members.lua with
--   -- #include lib_handoff.lua
--
-- A reservation is the lock key set to HANDOFF_PREFIX .. waiter id, with a short PX: no holder id
-- starts with the prefix (HolderIds draws URL-safe base64), so no renewal, release or hold-at-least
-- takes it for a lease, and every kind that holds or checks the lock key sees it as held. It
-- carries no token: nobody holds the lock while it lasts.

local HANDOFF_PREFIX = '~'
-- The shape of a holder (and waiter) id: HolderIds' 22 URL-safe base64 characters, ':', a base-36 counter.
local HANDOFF_HOLDER_SHAPE = string.rep('[%w_%-]', 22) .. ':[%da-z]+'

-- Whether lock key value `value` (a string, or nil/false) is a reservation: the prefix and a
-- waiter id. Another program's value that merely starts with the prefix is that program's lock.
local function handoff_is_reservation(value)
  return type(value) == 'string' and string.match(value, '^' .. HANDOFF_PREFIX .. HANDOFF_HOLDER_SHAPE .. '$') ~= nil
end

-- Whether lock key `lock` holds a lease: it exists (of any type: another program's value counts)
-- and is no reservation.
local function handoff_is_held(lock)
  return redis.call('exists', lock) == 1 and not handoff_is_reservation(redis.pcall('get', lock))
end

-- After the lock key `lock` was freed: reserves it for `reservation` ms for the live registered
-- waiter of `waiters` (of type `found`) whose registration is oldest, and wakes that waiter on
-- its client's channel beside `channel` (lib_wake.lua). The waiter leaves the registrations, so
-- one that died costs one reservation and never blocks the lock again. Without a registered waiter the key stays free; a waiters key of
-- another type wakes everyone instead (members_wake_oldest), since who waits is unknown.
local function handoff_reserve(lock, waiters, found, channel, reservation)
  if found ~= 'zset' then
    members_wake_oldest(waiters, found, channel, false)
    return
  end
  redis.call('zremrangebyscore', waiters, '-inf', members_now())
  local next = redis.call('zrange', waiters, 0, 0)[1]
  if next then
    redis.call('zrem', waiters, next)
    redis.call('set', lock, HANDOFF_PREFIX .. next, 'PX', reservation)
    wake_publish(channel, next, next)
  end
end
