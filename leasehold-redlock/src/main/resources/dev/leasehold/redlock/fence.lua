-- The token write-back of a Redlock acquisition: after the client took the maximum M of the
-- counters that a majority of nodes returned, it raises this node's counter to M, so any later
-- majority, which shares at least one node with this one, issues a token above M.
--
-- KEYS[1]  the fence key: this node's counter
-- ARGV[1]  M, the token the lease will carry
-- ARGV[2]  how long the fence key outlives its last write, ms
--
-- Returns the counter now stored: max(counter, M).

local last = tonumber(redis.call('get', KEYS[1]) or '0')
local counter = math.max(last, tonumber(ARGV[1]))
redis.call('set', KEYS[1], string.format('%d', counter), 'PX', ARGV[2])
return counter
