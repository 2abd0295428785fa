-- The loop of a renewal batch, shared by renew_batch.lua and renew_members.lua, which include it with
--   -- #include lib_renew.lua

-- Calls extend(key, holder id, new ttl in ms as ARGV holds it) for the i-th lease of the batch
-- (KEYS[i], ARGV[2i-1], ARGV[2i]) and returns the batch's reply: one integer per key, 1 where
-- extend returned true, else 0.
local function renew_each(extend)
  local extended = {}
  for i, key in ipairs(KEYS) do
    if extend(key, ARGV[2 * i - 1], ARGV[2 * i]) then
      extended[i] = 1
    else
      extended[i] = 0
    end
  end
  return extended
end

-- Gives `key` a TTL of `ttl` ms when it would live shorter (or has none); never shortens it.
local function renew_at_least(key, ttl)
  if redis.call('pttl', key) < tonumber(ttl) then
    redis.call('pexpire', key, ttl)
  end
end
