-- Compare-and-extend for leases held as members of a sorted set (read leases, semaphore permits),
-- many in one call: the watchdog's batch of renewals that fell due together. A member is extended
-- only while it is still there and unexpired: a lease whose member expired or was removed is lost,
-- even if nobody took its place yet. A member's expiry never moves back: an explicit extension may
-- have set a later one than the watchdog's ttl.
--
-- KEYS[i]      the sorted set of the i-th lease (holder id -> lease expiry, server ms)
-- ARGV[2i-1]   its holder id
-- ARGV[2i]     its new ttl, ms
--
-- Returns one integer per key: 1 if extended, 0 if the member is gone or expired (or the key holds
-- another type than a sorted set). The set's own TTL is raised to cover the longest member.

-- #include lib_members.lua
-- #include lib_renew.lua

local millis = members_now()
return renew_each(function(key, holder, ttl)
  -- A key of another type is just not ours (members_score); it must not fail the batch.
  local score = members_score(key, holder)
  if not score or tonumber(score) <= millis then
    return false
  end
  if tonumber(score) < millis + tonumber(ttl) then
    redis.call('zadd', key, millis + tonumber(ttl), holder)
  end
  renew_at_least(key, ttl)
  return true
end)
