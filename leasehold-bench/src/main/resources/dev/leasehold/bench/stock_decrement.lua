-- The stock benchmark's atomic alternative to a lock: sells one unit if any is left, in one step.
--
-- KEYS[1]  the stock count (a decimal string)
--
-- Returns 1 if a unit was sold (the count was above 0 and is now one lower), 0 if sold out
-- (nothing changed).

local left = tonumber(redis.call('get', KEYS[1]) or '0')
if left > 0 then
  redis.call('decr', KEYS[1])
  return 1
end
return 0
