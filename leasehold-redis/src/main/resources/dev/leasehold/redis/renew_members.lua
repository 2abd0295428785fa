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

local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local extended = {}
for i, key in ipairs(KEYS) do
  local holder = ARGV[2 * i - 1]
  local ttl = tonumber(ARGV[2 * i])
  -- pcall: a key of another type is just not ours; it must not fail the batch.
  local score = redis.pcall('zscore', key, holder)
  if type(score) == 'string' and tonumber(score) > millis then
    if tonumber(score) < millis + ttl then
      redis.call('zadd', key, millis + ttl, holder)
    end
    if redis.call('pttl', key) < ttl then
      redis.call('pexpire', key, ttl)
    end
    extended[i] = 1
  else
    extended[i] = 0
  end
end
return extended
