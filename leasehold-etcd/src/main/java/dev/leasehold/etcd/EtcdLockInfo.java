package dev.leasehold.etcd;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A snapshot of one lock name's queue (mutex, fair, read and write keys; semaphore permits are not
 * counted), as {@link EtcdLockClient#inspect(String)} read it in one range request.
 *
 * @param name      the lock name
 * @param holder    the oldest holder's id, redacted (a full id would let anyone release the lock)
 * @param holders   how many hold it now: 1, or the readers ahead of the first writer
 * @param token     the oldest holder's fencing token (its key's create revision)
 * @param remaining how long the oldest holder's etcd lease lives without renewal
 * @param waiters   acquisitions queued behind the holders
 */
public record EtcdLockInfo(String name, Optional<String> holder, int holders, OptionalLong token,
                           Optional<Duration> remaining, int waiters) {

    /** Whether anyone holds the lock. */
    public boolean isHeld() {
        return holder.isPresent();
    }
}
