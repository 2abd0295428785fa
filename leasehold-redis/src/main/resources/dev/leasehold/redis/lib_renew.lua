-- What renew_batch.lua and renew_members.lua share, included with
--   -- #include lib_renew.lua
-- Both take one batch's leases, all renewed with the same ttl: KEYS[i] and ARGV[i + 1] are the
-- i-th lease's key and holder id, ARGV[1] the ttl in ms.

-- Gives `key` a TTL of `ttl` ms when it would live shorter (or has none); never shortens it.
local function renew_at_least(key, ttl)
  if redis.call('pttl', key) < tonumber(ttl) then
    redis.call('pexpire', key, ttl)
  end
end
