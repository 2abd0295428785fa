-- Clears the leader record of an election when its leader resigns, only if the record is still
-- the one of the resigning term.
--
-- KEYS[1]  the leader record (hash)
-- ARGV[1]  the resigning term's token (decimal)
--
-- Returns 1 if deleted, 0 if the record was another term's or absent.

if redis.call('type', KEYS[1])['ok'] == 'hash' and redis.call('hget', KEYS[1], 'token') == ARGV[1] then
  redis.call('del', KEYS[1])
  return 1
end
return 0
