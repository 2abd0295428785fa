package dev.leasehold.zookeeper;

import dev.leasehold.testkit.meters.WithoutMicrometer;

/**
 * Runs inside {@link WithoutMicrometer}'s class loader, which has no Micrometer: a client built
 * without a registry must live a whole life there.
 */
public final class NoMicrometerProbe {

    private NoMicrometerProbe() {
    }

    /** @param connectString the ensemble */
    public static String run(String connectString) throws Exception {
        return WithoutMicrometer.lifeOf(ZooKeeperLocks.connect(connectString));
    }
}
