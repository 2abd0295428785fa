package dev.leasehold.redlock;

import dev.leasehold.LockClient;
import dev.leasehold.testkit.contract.ContractBackend;

/** How the contract suites reach Redlock: a client of every node; pausing the backend freezes them all. */
final class RedlockContractBackend implements ContractBackend {

    private final RedisNodes nodes;

    RedlockContractBackend(RedisNodes nodes) {
        this.nodes = nodes;
    }

    @Override
    public LockClient connect() {
        return RedlockLocks.connect(nodes.uris());
    }

    @Override
    public AutoCloseable pause() {
        nodes.pauseAll();
        return nodes::resumeAll;
    }
}
