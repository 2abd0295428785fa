package dev.leasehold.cli;

import dev.leasehold.redis.LockInfo;

/** Reads one lock's state on whichever backend the command uses, for {@code run}'s waiting messages. */
@FunctionalInterface
interface LockInspector {

    /**
     * @throws dev.leasehold.LeaseholdException if the backend cannot be read
     */
    LockInfo inspect(String name);
}
