package dev.leasehold.etcd;

import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for the etcd fair lock, against a real three-member cluster. It runs in the
 * {@code faults} profile, not by default: it shares the mutex's queue and rule (only the local
 * admission differs), and its 2,000 handoffs take about half a minute on etcd.
 */
@Tag("faults")
class EtcdFairLockContractTest extends EtcdContract {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return client.fairLock(name, options);
    }
}
