package dev.leasehold.etcd;

import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.testkit.contract.ContractBackend;
import dev.leasehold.testkit.contract.ContractKinds;
import dev.leasehold.testkit.contract.LockClientContract;
import dev.leasehold.testkit.junit.TestServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared contract for the etcd fair lock, the write lock of the read-write lock and a one-permit
 * semaphore seen as a lock, against a real three-member cluster. It runs in the {@code faults}
 * profile, not by default: the fair lock shares the mutex's queue and rule (only the local admission
 * differs), the write lock is the mutex's rule with another key letter (readers only look at the
 * letter; the read side is tested by {@link EtcdLockTest}), and each kind's 2,000 handoffs take
 * about half a minute to a minute on etcd.
 */
@Tag("faults")
@ContractKinds({"fair_lock", "write", "semaphore"})
class EtcdKindsContractTest extends LockClientContract {

    @RegisterExtension
    static final TestServer<EtcdCluster> etcd = TestServer.perClass(() -> EtcdCluster.start(3));

    @Override
    protected ContractBackend backend() {
        return new EtcdContractBackend(etcd.get());
    }
}
