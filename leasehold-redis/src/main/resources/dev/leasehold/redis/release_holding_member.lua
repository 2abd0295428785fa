-- Compare-and-keep for leases held as members of a sorted set (read leases, semaphore permits):
-- ends the holder's lease but keeps its member for the rest of its hold-at-least
-- (LockOptions.holdAtLeast) instead of removing it. The member's expiry (its score) is set to
-- exactly server now + the time left, earlier or later than before, only while the member is still
-- there and unexpired; every acquire purges expired members, so it then frees itself even if the
-- caller dies. The set's own TTL is raised to cover it, never lowered (other members live in it).
-- Nobody is woken: the permit (or read lease) is not free.
--
-- KEYS[1]  the sorted set (holder id -> lease expiry, server ms)
-- ARGV[1]  holder id
-- ARGV[2]  how long the lease stays held, ms (positive)
--
-- Returns 1 if the member was live and is now kept, 0 if it was gone or expired (or the key holds
-- another type than a sorted set, which is left untouched).

-- #include lib_members.lua

local score = members_score(KEYS[1], ARGV[1])
local millis = members_now()
if not score or tonumber(score) <= millis then
  return 0
end
members_add(KEYS[1], ARGV[1], millis, tonumber(ARGV[2]))
return 1
