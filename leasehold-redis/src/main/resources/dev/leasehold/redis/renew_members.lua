-- Compare-and-extend for leases held as members of a sorted set (read leases, semaphore permits),
-- many in one call: a watchdog round's renewals with the same ttl, or one explicit extension. A
-- member is extended only while it is still there and unexpired: a lease whose member expired or
-- was removed is lost, even if nobody took its place yet. A member's expiry never moves back: an
-- explicit extension may have set a later one than the watchdog's ttl.
--
-- KEYS[i]      the sorted set of the i-th lease (holder id -> lease expiry, server ms)
-- ARGV[1]      the new ttl of every lease in the call, ms
-- ARGV[i + 1]  the i-th lease's holder id
--
-- Returns the positions (1-based, ascending) of the leases it did not extend because their member is
-- gone or expired (or the key holds another type than a sorted set); usually none. The set's own
-- TTL is raised to cover the longest member.

-- #include lib_members.lua
-- #include lib_renew.lua

local millis = members_now()
local ttl = ARGV[1]
local expiry = millis + tonumber(ttl)
local refused = {}
for i, key in ipairs(KEYS) do
  local holder = ARGV[i + 1]
  -- A key of another type is just not ours (members_score); it must not fail the batch.
  local score = members_score(key, holder)
  if not score or tonumber(score) <= millis then
    refused[#refused + 1] = i
  else
    if tonumber(score) < expiry then
      redis.call('zadd', key, expiry, holder)
    end
    renew_at_least(key, ttl)
  end
end
return refused
