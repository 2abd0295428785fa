-- The fencing token sequence of a lock name, shared by every script that grants a lease (of any
-- kind: mutex, fair lock, read and write lock, semaphore permit), so all leases of one name draw
-- from one strictly increasing sequence. Scripts include it with the line
--   -- #include lib_fence.lua
-- which RedisScript.load replaces by this file.

local FENCE_MAX = '9223372036854775807'

-- What INCR advances exactly: a decimal without sign or leading zeros, at most 2^63 - 1. Digit
-- strings of equal length compare like their numbers.
local function fence_is_counter(value)
  return (value == '0' or string.match(value, '^[1-9]%d*$') ~= nil)
      and (#value < #FENCE_MAX or (#value == #FENCE_MAX and value <= FENCE_MAX))
end

-- Checks, before the caller writes anything, that a token can be issued from fence key `key`.
-- Returns nil and the last token (false when there is none), to hand to fence_next, if so; else
-- the error reply to return:
--   'LEASEHOLD_FOREIGN_TYPE <type> <key>'  the fence key holds another type than a string;
--   'LEASEHOLD_FENCE_INVALID <key>'        the fence is not a decimal counter in [0, 2^63 - 1];
--   'LEASEHOLD_FENCE_EXHAUSTED <key>'      the fence is 2^63 - 1: no higher 64-bit token exists.
-- pcall: GET fails on a key of another type, and only then is TYPE asked, for the message.
local function fence_check(key)
  local last = redis.pcall('get', key)
  if type(last) == 'table' then
    return redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. redis.call('type', key)['ok'] .. ' ' .. key)
  end
  if last and not fence_is_counter(last) then
    return redis.error_reply('LEASEHOLD_FENCE_INVALID ' .. key)
  end
  if last == FENCE_MAX then
    return redis.error_reply('LEASEHOLD_FENCE_EXHAUSTED ' .. key)
  end
  return nil, last
end

-- Issues the next token from fence key `key` and keeps the key for `retention` ms; `last` is what
-- fence_check returned for the key in the same script (nothing wrote the key in between).
-- Returns the token as a decimal string (a Lua number would round it above 2^53).
-- The token is max(last + 1, server time in microseconds): it advances even after the fence key
-- expired, as long as the server clock did not step back by more than the retention. Lua numbers
-- are doubles, exact only below 2^53. micros is (until the year 2255), so comparing it with
-- tonumber(last) decides rightly even for a larger counter, which INCR then advances exactly.
local function fence_next(key, retention, last)
  local now = redis.call('time')
  local micros = tonumber(now[1]) * 1000000 + tonumber(now[2])
  if last and tonumber(last) >= micros then
    redis.call('incr', key)
    redis.call('pexpire', key, retention)
    return redis.call('get', key)
  end
  local token = string.format('%d', micros)
  redis.call('set', key, token, 'PX', retention)
  return token
end

-- Grants a lease once fence key `key` can issue its token: checks the fence (fence_check) before
-- anything is written, then calls `grant()`, which writes the lease, and issues the token
-- (fence_next, keeping the key `retention` ms). Returns the acquire's reply: {1, token as a decimal
-- string}, or fence_check's error reply, with nothing written.
local function fence_grant(key, retention, grant)
  local refused, last = fence_check(key)
  if refused then
    return refused
  end
  grant()
  return {1, fence_next(key, retention, last)}
end
