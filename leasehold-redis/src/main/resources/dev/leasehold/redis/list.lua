-- One batch of `RedisLockClient.list`: of the keys a SCAN returned, those that are held locks, each
-- read atomically with its fence and waiters. A key counts as a Leasehold lock when it is a string
-- whose value has the shape of a Leasehold holder id (22 base64url characters, ':', a base-36
-- counter) or whose fence key holds a fencing counter; auxiliary keys never pass (the client
-- drops them before the call: their names are refused as lock names).
--
-- KEYS[3i-2], KEYS[3i-1], KEYS[3i]  the lock key, fence key and waiters key of the i-th candidate
--
-- Returns, for each candidate that is a held lock: {index i, holder id, pttl, last token or '',
-- live waiters}, flattened into one list.

local HOLDER = '^' .. string.rep('[%w_%-]', 22) .. ':[%da-z]+$'
local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local found = {}
for i = 1, #KEYS / 3 do
  local lock, fence, waiters = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  if redis.call('type', lock)['ok'] == 'string' then
    local holder = redis.call('get', lock)
    local last = ''
    if redis.call('type', fence)['ok'] == 'string' then
      last = redis.call('get', fence)
      if not string.match(last, '^%d+$') then
        last = ''
      end
    end
    if string.match(holder, HOLDER) or last ~= '' then
      local waiting = 0
      if redis.call('type', waiters)['ok'] == 'zset' then
        waiting = redis.call('zcount', waiters, millis, '+inf')
      end
      table.insert(found, i)
      table.insert(found, holder)
      table.insert(found, redis.call('pttl', lock))
      table.insert(found, last)
      table.insert(found, waiting)
    end
  end
end
return found
