package dev.leasehold.testkit.contract;

import dev.leasehold.LockClient;

import java.time.Duration;

/**
 * How the contract suites reach one backend deployment: what a backend module's test implements
 * once (usually over a server a {@link dev.leasehold.testkit.junit.TestServer} started) and hands
 * to every contract it joins ({@link LockClientContract}, {@link HoldAtLeastContract}).
 */
public interface ContractBackend {

    /** A new client of the deployment under test; the contract that asked closes it after its test. */
    LockClient connect();

    /**
     * Freezes the deployment (e.g. SIGSTOP on every server process, or every fault proxy
     * black-holing) so no request is answered. Closing the returned handle resumes it.
     */
    AutoCloseable pause();

    /**
     * How much later than its ttl the backend itself may drop an expired lease (none by default): a
     * backend whose leases count in coarser units or expire on a timer of its own (etcd: whole
     * seconds, checked every 500 ms) says so here, and tests that wait for the server's expiry allow
     * it on top of their slack. It never loosens a local deadline.
     */
    default Duration serverExpiryGranularity() {
        return Duration.ZERO;
    }

    /**
     * Acquisitions in the lock contract's mutual-exclusion test (default 2,000). A backend whose
     * every handoff is a consensus write may ask for fewer, so the test stays well inside its time
     * limit on a loaded machine; a few hundred still interleave all 32 threads.
     */
    default int mutualExclusionAcquisitions() {
        return 2_000;
    }
}
