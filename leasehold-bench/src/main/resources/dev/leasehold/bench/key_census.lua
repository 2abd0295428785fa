-- KeyCensus: the keys on the server grouped by shape, a lock name ('lock-' and digits) read as NAME
-- and a run of hex digits (an id) as ID, with how many keys of each shape have no TTL and the
-- longest TTL among them. KEYS * is fine here: the benchmark's own server, read between cells.
--
-- No KEYS, no ARGV.
--
-- Returns one {shape, keys, keys without a TTL, longest TTL in ms or -1} per shape, in the order
-- the shapes were first met.

local shapes, order = {}, {}
for _, key in ipairs(redis.call('keys', '*')) do
  local shape = (string.gsub(key, 'lock%-%d+', 'NAME'))
  shape = (string.gsub(shape, '%x%x%x%x%x%x%x%x[%x%-]*', 'ID'))
  local s = shapes[shape]
  if not s then
    s = {0, 0, -1}
    shapes[shape] = s
    order[#order + 1] = shape
  end
  s[1] = s[1] + 1
  local ttl = redis.call('pttl', key)
  if ttl == -1 then s[2] = s[2] + 1 elseif ttl > s[3] then s[3] = ttl end
end
local out = {}
for _, shape in ipairs(order) do
  local s = shapes[shape]
  out[#out + 1] = {shape, s[1], s[2], s[3]}
end
return out
