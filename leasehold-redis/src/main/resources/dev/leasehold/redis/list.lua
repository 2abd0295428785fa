-- One batch of `RedisLockClient.list`: of the candidate names a SCAN found, those that are held,
-- each read atomically (lib_snapshot.lua). A name held through its lock key counts only when the
-- key's value has the shape of a Leasehold holder id (22 base64url characters, ':', a base-36
-- counter) or its fence key holds a fencing counter, so plain strings are not listed; a name held
-- by readers or permits always counts. Writes nothing.
--
-- KEYS[8i-7..8i]  the i-th candidate's lock, fence, waiters, readers, writers, permits, queue and
--                 queue info keys
--
-- Returns, for each candidate that is held: {index i, snapshot of lib_snapshot.lua}.

-- #include lib_fair_queue.lua
-- #include lib_members.lua
-- #include lib_handoff.lua
-- #include lib_snapshot.lua

local HOLDER = '^' .. HANDOFF_HOLDER_SHAPE .. '$'
local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local found = {}
for i = 1, #KEYS / SNAPSHOT_KEYS do
  local keys = {}
  for k = 1, SNAPSHOT_KEYS do
    keys[k] = KEYS[SNAPSHOT_KEYS * (i - 1) + k]
  end
  local state = snapshot(keys, millis)
  local kind, holders, fence = state[1], state[3], state[5]
  if kind ~= '' and (kind ~= 'lock' or string.match(holders[1], HOLDER) or string.match(fence, '^%d+$')) then
    table.insert(found, {i, state})
  end
end
return found
