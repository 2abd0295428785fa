-- A consistent snapshot of one lock, for `leasehold inspect` and for tests.
--
-- KEYS[1]  the lock key
-- KEYS[2]  the fence key
-- KEYS[3]  the waiters key
--
-- Returns {holder id or '', pttl of the lock (-2 when free), last token or '', live waiters}.

local now = redis.call('time')
local millis = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local holder = redis.call('get', KEYS[1]) or ''
local fence = redis.call('get', KEYS[2]) or ''
return {holder, redis.call('pttl', KEYS[1]), fence, redis.call('zcount', KEYS[3], millis, '+inf')}
