-- Compare-and-extend for many leases in one call: a watchdog round's renewals with the same ttl,
-- or one explicit extension. Each key is extended only if its holder id is still stored there, and
-- never shortened: an explicit extension may have set a longer life than the ttl.
--
-- KEYS[i]      the lock key of the i-th lease
-- ARGV[1]      the new ttl of every lease in the call, ms
-- ARGV[i + 1]  the i-th lease's holder id
--
-- Returns the positions (1-based, ascending) of the keys it did not extend because another holder
-- (or nobody, or a value of another type) has them; every other key is ours and now lives at least
-- the ttl. Usually none: an empty array is the cheapest reply to build, send and read.
--
-- On Redis 7 or later one PEXPIRE ... GT extends without shortening; older servers refuse the
-- option (an error, caught by pcall on the first key extended), and the call then reads PTTL
-- first, as every renewal did before. A key GT did not extend lives longer already, or has no TTL
-- (PERSIST): PEXPIRE ... NX then gives it one, as the PTTL path does.
-- The loop is written out (no function per key): it runs for every lease the watchdog keeps.

-- #include lib_renew.lua

local ttl = ARGV[1]
local refused = {}
local gt = true
for i, key in ipairs(KEYS) do
  -- pcall: a key of another type (GET fails on it) is just not ours; it must not fail the call.
  if redis.pcall('get', key) == ARGV[i + 1] then
    local applied = gt and redis.pcall('pexpire', key, ttl, 'GT')
    if type(applied) == 'table' then
      gt = false
    elseif applied == 0 then
      -- GT counts a key without a TTL as living forever: give it one (NX), as PTTL -1 would below.
      redis.call('pexpire', key, ttl, 'NX')
    end
    if not gt then
      renew_at_least(key, ttl)
    end
  else
    refused[#refused + 1] = i
  end
end
return refused
