package dev.leasehold.zookeeper;

import java.time.Duration;

/** Clients as the tests make them: through the fault proxies, a 3 s session (a 500 ms suspended grace). */
final class TestClients {

    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

    private TestClients() {
    }

    static ZooKeeperLockClient connect(Ensemble ensemble) {
        return ZooKeeperLocks.builder().connectString(ensemble.connectString()).sessionTimeout(SESSION_TIMEOUT)
                .connectTimeout(Duration.ofSeconds(10)).build();
    }
}
