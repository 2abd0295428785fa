-- Publishes (or refreshes) the leader record of an election: a hash beside the election's lock key
-- with the term's token, the leader's display id and its published value, expiring after the ttl
-- unless refreshed. Fenced by the token: a record of a higher term is never overwritten, so a
-- deposed leader's late refresh cannot hide its successor. Written only while the term's lock is
-- still held (the lock key holds a lease, no reservation for a waiter, lib_handoff.lua, and the
-- fence still reads the term's token: the fence only advances for a new holder). The fence key is made to live at least as long as the record (never
-- shortened): it is written only at acquisitions and would otherwise expire, after the fence
-- retention, under a term that outlasts it, and the record would then read as nobody leading.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the leader record (hash: token, id, value, has_value)
-- ARGV[1]  the term's token (decimal)
-- ARGV[2]  the leader's display id
-- ARGV[3]  the published value, or ''
-- ARGV[4]  '1' if a value is published, '0' if not
-- ARGV[5]  ttl in milliseconds
--
-- Returns 1 if written, 0 if a higher term's record is stored or the term's lock is gone.
-- Fails with 'LEASEHOLD_FOREIGN_TYPE <type> <key>', writing nothing, when the record key holds
-- another type than a hash.

-- #include lib_members.lua
-- #include lib_handoff.lua

if not handoff_is_held(KEYS[1]) or redis.call('get', KEYS[2]) ~= ARGV[1] then
  return 0
end
local record = redis.call('type', KEYS[3])['ok']
if record ~= 'hash' and record ~= 'none' then
  -- Some other program uses that name: its key is left untouched.
  return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. record .. ' ' .. KEYS[3])
end
if record == 'hash' then
  local stored = redis.call('hget', KEYS[3], 'token')
  -- Tokens are up to 19 decimal digits: compare as strings of equal length, not as Lua numbers.
  if stored and (#stored > #ARGV[1] or (#stored == #ARGV[1] and stored > ARGV[1])) then
    return 0
  end
end
redis.call('del', KEYS[3])
redis.call('hset', KEYS[3], 'token', ARGV[1], 'id', ARGV[2], 'value', ARGV[3], 'has_value', ARGV[4])
redis.call('pexpire', KEYS[3], ARGV[5])
local fence_ttl = redis.call('pttl', KEYS[2])
if fence_ttl >= 0 and fence_ttl < tonumber(ARGV[5]) then
  redis.call('pexpire', KEYS[2], ARGV[5])
end
return 1
