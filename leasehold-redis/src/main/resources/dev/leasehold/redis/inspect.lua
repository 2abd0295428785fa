-- A consistent snapshot of one lock name, whatever kind holds it, for `leasehold inspect` and for
-- tests. Writes nothing.
--
-- KEYS[1..8]  the name's lock, fence, waiters, readers, writers, permits, queue and queue info keys
--
-- Returns {kind ('lock', 'read', 'semaphore', or '' when free), permits (0 unless a semaphore),
-- holder ids, ms left of the first holder (-2 when free, -1 without ttl), last token or '', live
-- waiters, '' or '<type> <key>' for the first of these keys that holds another type than
-- Leasehold writes}: see lib_snapshot.lua. A key of another type reads as absent.

-- #include lib_fair_queue.lua
-- #include lib_members.lua
-- #include lib_handoff.lua
-- #include lib_snapshot.lua

local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
return snapshot(KEYS, millis)
