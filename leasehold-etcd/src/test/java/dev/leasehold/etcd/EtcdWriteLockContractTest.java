package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for the write lock of the etcd read-write lock, against a real three-member
 * cluster. It runs in the {@code faults} profile, not by default: on etcd the write lock is the
 * mutex's rule with another key letter (readers only look at the letter), and its 2,000 handoffs take
 * about half a minute; the read side is tested by {@link EtcdLockTest}.
 */
@Tag("faults")
class EtcdWriteLockContractTest extends EtcdContract {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return client.readWriteLock(name, options).writeLock();
    }
}
