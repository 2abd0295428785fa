-- Gives one permit of a semaphore back: removes only the caller's own member, and wakes one
-- waiter, the registered one whose registration is oldest (one permit came free: the others would
-- only find the semaphore full). The woken waiter's registration is removed, so a second release
-- right after wakes another one; the woken waiter registers again if it still finds no permit.
-- Also used to clean up an abandoned acquire. See semaphore_acquire.lua for the layout.
--
-- KEYS[1]  the permits key
-- KEYS[2]  the waiters key (sorted set: waiter id -> registration expiry, server ms)
-- ARGV[1]  holder id
-- ARGV[2]  waiter id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- Publishes the woken waiter's id on the channel, or '*' (wake everyone) when the waiters key
-- holds another type. Deletes the permits key once no live lease is left in it, which also
-- forgets the number of permits.
--
-- Returns 1 if the caller's lease was live and is now gone, 0 if it was not there (never taken,
-- released already, or expired and purged), or had expired (the permit was free already).
-- Keys of another type are left untouched.

-- #include lib_members.lua

local waiters = redis.call('type', KEYS[2])['ok']
local expiry, millis = members_end(KEYS[1], ARGV[1], KEYS[2], waiters, ARGV[2])
if not expiry then
  return 0
end
redis.call('zremrangebyscore', KEYS[1], 0, millis)
if redis.call('zcount', KEYS[1], '(' .. millis, '+inf') == 0 then
  redis.call('del', KEYS[1])
end
members_wake_oldest(KEYS[2], waiters, ARGV[3], true)
if expiry > millis then
  return 1
end
return 0
