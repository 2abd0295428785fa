package dev.leasehold.zookeeper;

import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import org.junit.jupiter.api.Tag;

/** The whole shared contract for the ZooKeeper semaphore kind, against a real three-server ensemble.
 *
 * <p>In the {@code faults} profile: its herd wake-ups make the suite's 2,000 contended acquisitions
 * cost 40 s here; {@code ZooKeeperKindsTest} covers the semaphore in the default build.
 */
@Tag("faults")
class ZooKeeperSemaphoreContractTest extends ZooKeeperContract {

    @Override
    protected DistributedLock lock(LockClient client, String name, LockOptions options) {
        return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
    }
}
