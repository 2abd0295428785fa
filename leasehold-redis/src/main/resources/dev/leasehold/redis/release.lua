-- Compare-and-delete: frees the lock only if the caller's holder id still owns it, and wakes one
-- waiter, the registered one whose registration is oldest, when someone waits: the others would
-- only lose the race for the key. Also used to clean up an abandoned acquire, and as one node's
-- part of a Redlock release.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the waiters key (sorted set: waiter id -> registration expiry, server ms)
-- ARGV[1]  holder id
-- ARGV[2]  waiter id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
--
-- Publishes the woken waiter's id on the channel, or '*' (wake everyone) when the waiters key
-- holds another type.
--
-- Returns 1 if the lock was ours and is now free, 0 if it was not ours (another holder, nobody,
-- or a value of another type). Keys of another type are left untouched.

-- #include lib_members.lua

local waiters = redis.call('type', KEYS[2])['ok']
if ARGV[2] ~= '' and waiters == 'zset' then
  redis.call('zrem', KEYS[2], ARGV[2])
end
-- pcall: GET on a key of another type is an error, and such a key is simply not ours.
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('del', KEYS[1])
members_wake_oldest(KEYS[2], waiters, ARGV[3], false)
return 1
