-- Sorted sets of id -> expiry (server ms), as every kind keeps them: waiters, waiting writers,
-- readers, permits. Shared by the acquire and release scripts, which include it with
--   -- #include lib_members.lua

-- #include lib_wake.lua

-- Server time, ms.
local function members_now()
  local now = redis.call('time')
  return tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
end

-- The types of KEYS[i] for each {i, type} of `expected`, checked before anything is written.
-- Returns them by i, or nil and the error 'LEASEHOLD_FOREIGN_TYPE <type> <key>' for the first key
-- that exists with another type: some other program uses that name.
local function members_types(expected)
  local found = {}
  for _, check in ipairs(expected) do
    local i = check[1]
    found[i] = redis.call('type', KEYS[i])['ok']
    if found[i] ~= 'none' and found[i] ~= check[2] then
      return nil, redis.error_reply('LEASEHOLD_FOREIGN_TYPE ' .. found[i] .. ' ' .. KEYS[i])
    end
  end
  return found
end

-- The score of `member` in `key` (a string), or nil when it is absent or `key` holds another type
-- than a sorted set: a key of another type is just not ours.
local function members_score(key, member)
  local score = redis.pcall('zscore', key, member)
  if type(score) ~= 'string' then
    return nil
  end
  return score
end

-- The start of a release from a set of leases (read leases, permits): forgets the caller's
-- registration `waiter` ('' for none) in `waiters` when that is a sorted set (`found` its type),
-- then removes lease `member` from `key`. Returns nil when the member is not there (or `key` is of
-- another type: nothing else is written then), else the lease's expiry (server ms) and the server time.
local function members_end(key, member, waiters, found, waiter)
  if waiter ~= '' and found == 'zset' then
    redis.call('zrem', waiters, waiter)
  end
  local expiry = members_score(key, member)
  if not expiry then
    return nil
  end
  redis.call('zrem', key, member)
  return tonumber(expiry), members_now()
end

-- Drops the expired members of `key` (of type `found`) and counts the live ones; 0 when absent.
local function members_live(key, found, millis)
  if found ~= 'zset' then
    return 0
  end
  redis.call('zremrangebyscore', key, '-inf', millis)
  return redis.call('zcard', key)
end

-- Sets `member` of `key` to expire `life` ms after `millis`. Only ever extends the key's own TTL:
-- other members (other clients, with their own ttl or maxRecheck) may live longer, and a short one
-- must not expire them. A key without a TTL (-1) gets one.
local function members_add(key, member, millis, life)
  redis.call('zadd', key, millis + life, member)
  if redis.call('pttl', key) < life then
    redis.call('pexpire', key, life)
  end
end

-- An acquire's {0, ms} while the lock key or `count` live members of `set` block it: until the
-- later of the key's and the last member's expiry, or -1 when the key has no TTL.
local function members_blocked(lock, set, count, millis)
  local remaining = redis.call('pttl', lock)
  if remaining == -1 then
    return {0, -1}
  end
  if count > 0 then
    local last = redis.call('zrange', set, -1, -1, 'WITHSCORES')
    remaining = math.max(remaining, tonumber(last[2]) - millis)
  end
  return {0, remaining}
end

-- Wakes the registered waiter of `waiters` (of type `found`) whose registration is oldest, on
-- its client's channel beside `channel` (lib_wake.lua), and with `forget` removes its
-- registration, so a second release wakes another one.
-- A waiters key of another type cannot tell whether anyone waits: '*' (wake everyone) then, since
-- a needless wake-up costs a re-check, a missed one a whole re-check interval.
local function members_wake_oldest(waiters, found, channel, forget)
  if found == 'zset' then
    if redis.call('exists', waiters) == 1 then
      redis.call('zremrangebyscore', waiters, '-inf', members_now())
      local next = redis.call('zrange', waiters, 0, 0)[1]
      if next then
        if forget then
          redis.call('zrem', waiters, next)
        end
        wake_publish(channel, next, next)
      end
    end
  elseif found ~= 'none' then
    redis.call('publish', channel, '*')
  end
end
