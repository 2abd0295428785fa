-- The round-trip floor's release (RawFloorAdapter): the classic compare-and-delete, nothing more.
--
-- KEYS[1]  the lock key
-- ARGV[1]  the holder's id
--
-- Returns 1 if the key held the caller's id and is now deleted, 0 otherwise (nothing changed).

if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
