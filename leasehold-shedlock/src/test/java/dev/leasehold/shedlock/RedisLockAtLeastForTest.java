package dev.leasehold.shedlock;

import dev.leasehold.LockClient;

import java.util.Map;

/** lockAtLeastFor on a real Redis server. */
class RedisLockAtLeastForTest extends LockAtLeastForContract {

    @Override
    protected LockClient newClient() {
        return Backends.redisClient();
    }

    @Override
    protected Map<String, String> processEnvironment() {
        return Backends.redisEnvironment();
    }
}
