-- Compare-and-keep: ends the holder's lease but keeps the lock held for the rest of its
-- hold-at-least (LockOptions.holdAtLeast) instead of deleting it. The key's life is set to exactly
-- the time left, shortened or lengthened, only if the caller's holder id still owns it; the key
-- then frees itself by its own expiry, even if the caller dies. Nobody is woken: the lock is not
-- free, and a waiter learns of the expiry by its re-check. Used by the mutex, the fair lock and
-- the write lock (their leases are the lock key), and as one node's part of a Redlock release.
--
-- KEYS[1]  the lock key
-- ARGV[1]  holder id
-- ARGV[2]  how long the lock stays held, ms (positive)
--
-- Returns 1 if the key was ours and now lives ARGV[2] ms, 0 if it was not ours (another holder,
-- nobody, or a value of another type, which is left untouched).

-- pcall: GET on a key of another type is an error, and such a key is simply not ours.
if redis.pcall('get', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('pexpire', KEYS[1], ARGV[2])
return 1
