-- Compare-and-extend for leases held as members of a sorted set (read leases, semaphore permits),
-- many in one call: the watchdog's batch of renewals that fell due together with the same ttl. A
-- member is extended only while it is still there and unexpired: a lease whose member expired or
-- was removed is lost, even if nobody took its place yet. A member's expiry never moves back: an
-- explicit extension may have set a later one than the watchdog's ttl.
--
-- KEYS[i]      the sorted set of the i-th lease (holder id -> lease expiry, server ms)
-- ARGV[1]      the new ttl of every lease in the call, ms
-- ARGV[i + 1]  the i-th lease's holder id
--
-- Returns one integer per key: 1 if extended, 0 if the member is gone or expired (or the key holds
-- another type than a sorted set). The set's own TTL is raised to cover the longest member.

-- #include lib_members.lua
-- #include lib_renew.lua

local millis = members_now()
local ttl = ARGV[1]
local expiry = millis + tonumber(ttl)
local extended = {}
for i, key in ipairs(KEYS) do
  local holder = ARGV[i + 1]
  -- A key of another type is just not ours (members_score); it must not fail the batch.
  local score = members_score(key, holder)
  if not score or tonumber(score) <= millis then
    extended[i] = 0
  else
    if tonumber(score) < expiry then
      redis.call('zadd', key, expiry, holder)
    end
    renew_at_least(key, ttl)
    extended[i] = 1
  end
end
return extended
