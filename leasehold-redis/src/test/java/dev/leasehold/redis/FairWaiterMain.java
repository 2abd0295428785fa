package dev.leasehold.redis;

import dev.leasehold.Lease;

import java.time.Duration;

/**
 * A fair-lock waiter in a JVM of its own, for tests that kill it mid-queue. Arguments: the Redis
 * URI, the lock name, the client's max re-check and operation timeout in ms (which make its
 * registration time). Prints {@code acquired <token>} if it ever gets the lock.
 */
public final class FairWaiterMain {

    private FairWaiterMain() {
    }

    public static void main(String[] args) {
        try (RedisLockClient client = RedisLocks.builder().uri(args[0])
                .maxRecheck(Duration.ofMillis(Long.parseLong(args[2])))
                .operationTimeout(Duration.ofMillis(Long.parseLong(args[3])))
                .connect()) {
            try (Lease lease = client.fairLock(args[1]).acquire(Duration.ofMinutes(1))) {
                System.out.println("acquired " + lease.token());
            }
        }
    }
}
