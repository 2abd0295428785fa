-- RedisFenceGuard: checks a fencing token against the guard fence of a data key and, only if it
-- is not lower than the highest token admitted there, performs one write on the data key and
-- records the token, in one atomic step. The fence lives beside the data key, in its Cluster slot.
--
-- KEYS[1]  the data key
-- KEYS[2]  the guard fence of the data key (string: highest admitted token, decimal)
-- ARGV[1]  the token: a decimal without sign or leading zeros, at most 2^63 - 1 (checked by the caller)
-- ARGV[2]  fence retention, ms: the fence lives this long after the last admitted write
-- ARGV[3]  the write: 'set', 'hset', 'incrby' or 'del'
-- ARGV[4]  set: the value; hset: the field; incrby: the increment (decimal); del: unused
-- ARGV[5]  hset: the value
--
-- Tokens are compared as decimal strings (length, then digits), never as Lua numbers, which are
-- doubles and would round tokens above 2^53.
--
-- Returns {1, result} when admitted: the write's reply as a string ('OK' for set, the number of
-- new fields for hset, the new value for incrby, the number of keys deleted for del);
-- {0, highest} when refused: the highest admitted token, as a decimal string. Nothing is
-- written on a refusal.
-- Errors (nothing written, fence unchanged):
--   'LEASEHOLD_FENCE_INVALID <key>'   the fence key holds something other than a token;
--   'LEASEHOLD_GUARD_UNKNOWN_WRITE <op>'  ARGV[3] names no supported write;
--   the server's own error when the write fails (e.g. WRONGTYPE: the data key has another type).

local function is_token(value)
  return type(value) == 'string' and (value == '0' or string.match(value, '^[1-9]%d*$') ~= nil)
      and #value <= 19
end

-- Whether decimal a < decimal b, both valid tokens.
local function lower(a, b)
  if #a ~= #b then
    return #a < #b
  end
  return a < b
end

local token = ARGV[1]
local highest = redis.pcall('get', KEYS[2])
if type(highest) == 'table' or (highest and not is_token(highest)) then
  return redis.error_reply('LEASEHOLD_FENCE_INVALID ' .. KEYS[2])
end
if highest and lower(token, highest) then
  return {0, highest}
end

local op = ARGV[3]
local reply
if op == 'set' then
  reply = redis.pcall('set', KEYS[1], ARGV[4])
elseif op == 'hset' then
  reply = redis.pcall('hset', KEYS[1], ARGV[4], ARGV[5])
elseif op == 'incrby' then
  reply = redis.pcall('incrby', KEYS[1], ARGV[4])
  -- The reply is a Lua number (a double); the stored string is the exact value.
  if type(reply) ~= 'table' then
    reply = redis.call('get', KEYS[1])
  end
elseif op == 'del' then
  reply = redis.pcall('del', KEYS[1])
else
  return redis.error_reply('LEASEHOLD_GUARD_UNKNOWN_WRITE ' .. op)
end
if type(reply) == 'table' and reply['err'] then
  return reply
end
if type(reply) == 'table' and reply['ok'] then
  reply = reply['ok']
end

redis.call('set', KEYS[2], token, 'PX', ARGV[2])
return {1, tostring(reply)}
