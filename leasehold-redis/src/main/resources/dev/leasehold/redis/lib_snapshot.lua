-- A consistent snapshot of one lock name, whatever kind holds it, shared by inspect.lua and
-- list.lua, which include it with
--   -- #include lib_snapshot.lua
-- (after lib_fair_queue.lua, whose queue entries it reads, and lib_handoff.lua). A name's keys,
-- in this order:
--   1 lock, 2 fence, 3 waiters, 4 readers, 5 writers, 6 permits, 7 queue, 8 queue info
-- The lock family's holder is the lock key's value (a mutex, fair lock or write lock: one slot),
-- else its live readers; the semaphore family's holders are the live permits (the member
-- 'permits' stores the number, see semaphore_acquire.lua). Nothing is written.

local SNAPSHOT_KEYS = 8
local SNAPSHOT_TYPES = {'string', 'string', 'zset', 'zset', 'zset', 'zset', 'zset', 'hash'}

-- The live members of sorted set `key` (score after `millis`), earliest expiry first, and the ms
-- left of the first (nil when none is live).
local function snapshot_live(key, millis)
  local live = redis.call('zrangebyscore', key, '(' .. millis, '+inf', 'WITHSCORES')
  local members = {}
  for i = 1, #live, 2 do
    table.insert(members, live[i])
  end
  return members, live[2] and tonumber(live[2]) - millis
end

-- {kind ('lock', 'read', 'semaphore', or '' when free), permits (0 unless a semaphore), holder ids,
-- ms left of the first holder (-2 when free, -1 without ttl), last token or '', live waiters, ''
-- or '<type> <key>' for the first key that holds another type than Leasehold writes}. A key of
-- another type reads as absent. Waiters: the registered ones, the waiting writers, and the fair
-- queue's live entries not yet handed the lock.
local function snapshot(keys, millis)
  local usable = {}
  local foreign = ''
  for i = 1, SNAPSHOT_KEYS do
    local found = redis.call('type', keys[i])['ok']
    usable[i] = found == SNAPSHOT_TYPES[i]
    if found ~= 'none' and not usable[i] and foreign == '' then
      foreign = found .. ' ' .. keys[i]
    end
  end
  local kind, permits, holders, pttl = '', 0, {}, -2
  -- A lock key reserved for a woken waiter (lib_handoff.lua) is free, and that waiter still waits.
  local reserved = 0
  if usable[1] then
    local value = redis.call('get', keys[1])
    if handoff_is_reservation(value) then
      reserved = 1
    else
      kind, holders, pttl = 'lock', {value}, redis.call('pttl', keys[1])
    end
  end
  if kind == '' and usable[4] then
    local readers, left = snapshot_live(keys[4], millis)
    if left then
      kind, holders, pttl = 'read', readers, left
    end
  end
  if kind == '' and usable[6] then
    local permitted, left = snapshot_live(keys[6], millis)
    if left then
      local stored = redis.call('zscore', keys[6], 'permits')
      kind, holders, pttl = 'semaphore', permitted, left
      permits = stored and -tonumber(stored) or 0
    end
  end
  local waiting = reserved
  for _, i in ipairs({3, 5}) do
    if usable[i] then
      waiting = waiting + redis.call('zcount', keys[i], millis, '+inf')
    end
  end
  if usable[7] and usable[8] then
    for _, waiter in ipairs(redis.call('zrange', keys[7], 0, -1)) do
      local entry = queue_entry(keys[8], waiter)
      if entry and entry.expiry > millis and not entry.token then
        waiting = waiting + 1
      end
    end
  end
  local fence = usable[2] and redis.call('get', keys[2]) or ''
  return {kind, permits, holders, pttl, fence, waiting, foreign}
end
