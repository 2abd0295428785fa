-- Reads the leader record of an election, only if its term still holds the lock: the lock key
-- holds a lease (it exists, and is no reservation for a waiter, lib_handoff.lua) and the fence
-- still reads the record's token. A record left by a leader whose lock expired (or was released,
-- or taken over) reads as nobody leading.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the leader record (hash)
--
-- Returns {token, id, value, has_value}, or an empty array when nobody leads.

-- #include lib_members.lua
-- #include lib_handoff.lua

if redis.call('type', KEYS[3])['ok'] ~= 'hash' or not handoff_is_held(KEYS[1]) then
  return {}
end
local record = redis.call('hmget', KEYS[3], 'token', 'id', 'value', 'has_value')
if not record[1] or redis.call('get', KEYS[2]) ~= record[1] then
  return {}
end
return record
