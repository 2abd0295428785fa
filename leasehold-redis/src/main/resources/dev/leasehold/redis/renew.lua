-- Compare-and-extend: only the holder whose id is stored may extend the lock. Also one node's part
-- of a Redlock renewal, where the lease stays valid only if a majority extended. It never shortens
-- the key's life: an explicit extension may have set a longer one than the watchdog's ttl.
--
-- KEYS[1]  the lock key
-- ARGV[1]  holder id
-- ARGV[2]  new ttl, ms
--
-- Returns 1 if the key is ours and now lives at least ttl ms, 0 if another holder (or nobody, or a value of another type) has the key.

-- pcall: GET on a key of another type is an error, and such a key is simply not ours.
if redis.pcall('get', KEYS[1]) == ARGV[1] then
  if redis.call('pttl', KEYS[1]) < tonumber(ARGV[2]) then
    redis.call('pexpire', KEYS[1], ARGV[2])
  end
  return 1
end
return 0
