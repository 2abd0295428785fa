package dev.leasehold.etcd;

import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for a one-permit etcd semaphore seen as a lock, against a real three-member
 * cluster; in the {@code faults} profile with the other kinds' suites (each takes about a minute).
 */
@Tag("faults")
class EtcdSemaphoreContractTest extends EtcdContract {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
    }
}
