-- Waking one waiter: every script that wakes one waiter (or hands it the lock) publishes through
-- wake_publish. Included by lib_members.lua, and by the release scripts that do not include that
-- with
--   -- #include lib_wake.lua
--
-- A client that waits on a lock listens on the lock's channel and on a channel of its own beside
-- it: the lock's channel, ':', and the first 16 hex digits of the SHA-1 of the part of its waiter
-- ids before their first ':' (the prefix all of one client's ids share; hashed, so the channel
-- name reveals nothing of the ids). A message meant for one waiter then reaches that waiter's
-- client alone, instead of every client that waits on the lock. The lock's channel still carries
-- what is meant for everyone ('*'), and whatever is meant for a waiter whose client does not
-- listen on a channel of its own: a client of an older version, or one on a deployment where a
-- script cannot tell who listens (RedisScript#withoutClientChannels, a Cluster: PUBSUB NUMSUB
-- counts one node's subscribers only).

local WAKE_CLIENT_CHANNELS = true

-- The channel of the client of `waiter`, beside `channel`.
local function wake_channel(channel, waiter)
  return channel .. ':' .. string.sub(redis.sha1hex(string.match(waiter, '^[^:]*')), 1, 16)
end

-- Publishes `message` for `waiter` on the channel of its client, or on `channel` when nobody
-- listens there: one PUBLISH either way. pcall: a Redis 7 ACL user may be refused PUBSUB or the
-- client's channel (its '&' patterns allow the lock's channel only); the lock's channel then, on
-- which the waiter's client listens too.
local function wake_publish(channel, waiter, message)
  if WAKE_CLIENT_CHANNELS then
    local own = wake_channel(channel, waiter)
    local listening = redis.pcall('pubsub', 'numsub', own)
    -- PUBLISH answers a number, an error a table.
    if not listening.err and listening[2] > 0 and type(redis.pcall('publish', own, message)) == 'number' then
      return
    end
  end
  redis.call('publish', channel, message)
end
