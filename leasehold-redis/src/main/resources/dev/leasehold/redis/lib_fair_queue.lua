-- The fair lock's queue, shared by fair_acquire.lua and fair_release.lua, which include it with
--   -- #include lib_fair_queue.lua
-- Two keys, always written together, so each waiter in one has its entry in the other:
--   queue       sorted set: waiter id -> arrival order (server microseconds, made strictly
--               increasing, so the server's arrival order decides, never a client clock)
--   queue info  hash: waiter id -> '<expiry ms> <ttl ms> <stamp>', or
--               '<expiry ms> <ttl ms> <stamp> <token>' once a release handed it the lock:
--               expiry  server ms after which the waiter counts as dead and is skipped
--               ttl     the lease ttl it asked for (a handoff sets the lock key with it)
--               stamp   the stamp of its last attempt the server processed (echoed on a handoff)
--               token   the token of the handoff, for an attempt that missed the notification
-- Both keys get a TTL covering their longest entry: nothing outlives its last waiter.

-- Server time: (milliseconds, microseconds).
local function queue_now()
  local now = redis.call('time')
  local seconds, micros = tonumber(now[1]), tonumber(now[2])
  return seconds * 1000 + math.floor(micros / 1000), seconds * 1000000 + micros
end

-- The entry of `waiter` in the info hash, or nil (absent or unreadable).
local function queue_entry(info, waiter)
  local value = redis.call('hget', info, waiter)
  if not value then
    return nil
  end
  local expiry, ttl, stamp, token = string.match(value, '^(%d+) (%d+) (%-?%d+) ?(%d*)$')
  if not expiry then
    return nil
  end
  return {expiry = tonumber(expiry), ttl = ttl, stamp = stamp, token = token ~= '' and token or nil}
end

local function queue_forget(queue, info, waiter)
  redis.call('zrem', queue, waiter)
  redis.call('hdel', info, waiter)
end

-- Drops dead waiters from the head of the queue: expired or unreadable entries, and handoffs that
-- are over (the lock key no longer names the waiter it was handed to: released or expired).
-- `lockHolder` is the lock key's value, or nil/false when free. Returns the first live waiter and
-- its entry, or nil when nobody waits.
local function queue_head(queue, info, nowMillis, lockHolder)
  while true do
    local head = redis.call('zrange', queue, 0, 0)[1]
    if not head then
      return nil
    end
    local entry = queue_entry(info, head)
    if entry and entry.expiry > nowMillis and (not entry.token or lockHolder == head) then
      return head, entry
    end
    queue_forget(queue, info, head)
  end
end

-- Only ever extends a key's TTL: waiters register for different times, and a short one must not
-- expire the others' entries. A key without a TTL (-1) gets one.
local function queue_keep(key, millis)
  if redis.call('pttl', key) < millis then
    redis.call('pexpire', key, millis)
  end
end

-- Appends `waiter` to the queue unless it is in it already (then it keeps its place).
local function queue_append(queue, waiter, nowMicros)
  if redis.call('zscore', queue, waiter) then
    return
  end
  local order = nowMicros
  local tail = redis.call('zrange', queue, -1, -1, 'withscores')
  if tail[2] and tonumber(tail[2]) >= order then
    -- Same microsecond, or the server clock stepped back: arrival order still wins.
    order = tonumber(tail[2]) + 1
  end
  redis.call('zadd', queue, string.format('%d', order), waiter)
end

-- Writes the entry of `waiter` (token may be nil) and keeps both keys for `keepMillis` at least.
local function queue_write(queue, info, waiter, expiry, ttl, stamp, token, keepMillis)
  local value = string.format('%d', expiry) .. ' ' .. ttl .. ' ' .. stamp
  if token then
    value = value .. ' ' .. token
  end
  redis.call('hset', info, waiter, value)
  queue_keep(queue, keepMillis)
  queue_keep(info, keepMillis)
end
