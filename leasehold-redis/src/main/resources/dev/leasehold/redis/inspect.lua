-- A consistent snapshot of one lock, for `leasehold inspect` and for tests.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the waiters key
--
-- Returns {holder id or '', pttl of the lock (-2 when free), last token or '', live waiters,
-- '' or '<type> <key>' for the first of these keys that holds another type than Leasehold writes}.
-- A key of another type reads as absent in the other fields.

local expected = {'string', 'string', 'zset'}
local foreign = ''
local usable = {}
for i = 1, 3 do
  local found = redis.call('type', KEYS[i])['ok']
  usable[i] = found == expected[i]
  if found ~= 'none' and not usable[i] and foreign == '' then
    foreign = found .. ' ' .. KEYS[i]
  end
end
local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local holder = usable[1] and redis.call('get', KEYS[1]) or ''
local fence = usable[2] and redis.call('get', KEYS[2]) or ''
local waiting = usable[3] and redis.call('zcount', KEYS[3], millis, '+inf') or 0
return {holder, redis.call('pttl', KEYS[1]), fence, waiting, foreign}
