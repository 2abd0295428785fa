package dev.leasehold.shedlock;

import dev.leasehold.LockClient;

/** The provider contract on a real Redis server. */
class RedisLockProviderTest extends LockProviderContract {

    @Override
    protected LockClient newClient() {
        return Backends.redisClient();
    }
}
