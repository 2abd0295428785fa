-- A renewal script that fails the whole call, as a server that refuses it (OOM, a wrong script)
-- would: RenewalBatchTest checks that every lease of the call is failed, and only once.
--
-- KEYS and ARGV as renew_batch.lua's, unread.
--
-- Returns an error reply, always.

return redis.error_reply('LEASEHOLD_TEST the renewal call failed')
