-- One node's part of a Redlock renewal: compare-and-extend, so only the holder whose id is stored
-- may extend the key. The lease stays valid only if a majority of nodes extended.
--
-- KEYS[1]  the lock key
-- ARGV[1]  holder id
-- ARGV[2]  new ttl, ms
--
-- Returns 1 if extended, 0 if another holder (or nobody) has the key on this node.

if redis.call('get', KEYS[1]) == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
return 0
