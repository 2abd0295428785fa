-- HerdProbe's snapshot of who listens: every channel with at least one subscriber and its count,
-- read in one script so that no SUBSCRIBE or UNSUBSCRIBE falls between two reads. The probe sends
-- it with a first line naming the probe, so that its call can be found in the MONITOR stream.
--
-- No KEYS, no ARGV.
--
-- Returns a flat list: channel, subscriber count, channel, subscriber count, ... (PUBSUB NUMSUB's
-- reply for every channel PUBSUB CHANNELS lists, asked 500 channels at a time).

local channels = redis.call('pubsub', 'channels')
local counts = {}
for i = 1, #channels, 500 do
  local part = redis.call('pubsub', 'numsub', unpack(channels, i, math.min(i + 499, #channels)))
  for j = 1, #part do counts[#counts + 1] = part[j] end
end
return counts
