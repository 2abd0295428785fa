package dev.leasehold.redis;

import dev.leasehold.engine.EngineSemaphore;
import dev.leasehold.DistributedLock;
import dev.leasehold.LockClient;
import dev.leasehold.LockOptions;
import dev.leasehold.testkit.contract.LockClientContract;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * The shared contract for every Redis lock kind on one deployment (Sentinel, Cluster): a subclass
 * starts the servers and says how to connect and how to freeze them; each nested class runs the
 * whole {@link LockClientContract} for one kind. The mutex runs in the default build; the other
 * kinds (the same engine and deployment code, other scripts) in the {@code faults} profile, which
 * CI runs too, to keep the default build's time in budget.
 */
abstract class DeploymentContract {

    /** A client of the deployment under test. */
    abstract LockClient connectDeployment();

    /** Freezes whatever serves the locks; closing the result resumes it. */
    abstract AutoCloseable pauseDeployment();

    /** The contract as one kind sees it; {@link #lock} picks the kind. */
    abstract class Kind extends LockClientContract {

        @Override
        protected LockClient connect() {
            return connectDeployment();
        }

        @Override
        protected AutoCloseable pauseBackend() {
            return pauseDeployment();
        }
    }

    @Nested
    class Mutex extends Kind {
    }

    @Nested
    @Tag("faults")
    class FairLock extends Kind {
        @Override
        protected DistributedLock lock(LockClient client, String name, LockOptions options) {
            return client.fairLock(name, options);
        }
    }

    @Nested
    @Tag("faults")
    class WriteLock extends Kind {
        @Override
        protected DistributedLock lock(LockClient client, String name, LockOptions options) {
            return client.readWriteLock(name, options).writeLock();
        }
    }

    @Nested
    @Tag("faults")
    class Semaphore extends Kind {
        @Override
        protected DistributedLock lock(LockClient client, String name, LockOptions options) {
            return ((EngineSemaphore) client.semaphore(name, 1, options)).lock();
        }
    }
}
