-- Compare-and-delete: frees the lock only if the caller's holder id still owns it, and wakes one
-- waiter, the registered one whose registration is oldest, when someone waits: the others would
-- only lose the race for the key. With a reservation time, the freed key is reserved for that
-- waiter meanwhile (lib_handoff.lua). Also used to clean up an abandoned acquire (which passes a
-- reservation made for it on to the next waiter), and as one node's part of a Redlock release
-- (without reservations: a node cannot tell which waiter the other nodes would reserve for).
--
-- KEYS[1]  the lock key
-- KEYS[2]  the waiters key (sorted set: waiter id -> registration expiry, server ms)
-- KEYS[3]  (optional; passed with ARGV[4]) the permits key of the name's semaphore, whose waiters
--          register in the same waiters key: while it exists, nothing is reserved
-- ARGV[1]  holder id
-- ARGV[2]  waiter id to forget, or ''
-- ARGV[3]  the release channel (a channel, not a key: passed as data)
-- ARGV[4]  (optional) how long the freed key stays reserved for the woken waiter, ms; absent or
--          '' for no reservation
--
-- Publishes the woken waiter's id on its client's channel (lib_wake.lua), or '*' (wake everyone)
-- on the channel when the waiters key holds another type.
--
-- Returns 1 if the lock was ours and is now free (or reserved for the woken waiter), 0 if it was
-- not ours (another holder, nobody, a reservation, or a value of another type). Keys of another
-- type are left untouched.

-- #include lib_members.lua
-- #include lib_handoff.lua

local waiters = redis.call('type', KEYS[2])['ok']
if ARGV[2] ~= '' and waiters == 'zset' then
  redis.call('zrem', KEYS[2], ARGV[2])
end
local reservation = ARGV[4] or ''

-- A permit's waiter never claims a reservation (semaphore_acquire.lua takes no lock key): one
-- reserved for would stall the lock for the whole reservation, again on each release that picks it.
local function wake()
  if reservation == '' or (KEYS[3] and redis.call('exists', KEYS[3]) == 1) then
    members_wake_oldest(KEYS[2], waiters, ARGV[3], false)
  else
    handoff_reserve(KEYS[1], KEYS[2], waiters, ARGV[3], reservation)
  end
end

-- pcall: GET on a key of another type is an error, and such a key is simply not ours.
local current = redis.pcall('get', KEYS[1])
if current == ARGV[1] then
  redis.call('del', KEYS[1])
  wake()
  return 1
end
if ARGV[2] ~= '' and current == HANDOFF_PREFIX .. ARGV[2] then
  redis.call('del', KEYS[1])
  wake()
end
return 0
