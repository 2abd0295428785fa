-- A semaphore's state in one atomic read, for available() and for the check at creation. Writes
-- nothing. See semaphore_acquire.lua for the layout.
--
-- KEYS[1]  the permits key
--
-- Returns {the number of permits stored, or 0 when none is (no live lease), live leases}.
-- Fails with 'LEASEHOLD_FOREIGN_TYPE <type> <key>' when the permits key is not a sorted set.

local kind = redis.call('type', KEYS[1])['ok']
if kind == 'none' then
  return {0, 0}
end
if kind ~= 'zset' then
  return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. kind .. ' ' .. KEYS[1])
end
local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local live = redis.call('zcount', KEYS[1], '(' .. millis, '+inf')
local stored = redis.call('zscore', KEYS[1], 'permits')
if live == 0 or not stored then
  return {0, live}
end
return {-tonumber(stored), live}
