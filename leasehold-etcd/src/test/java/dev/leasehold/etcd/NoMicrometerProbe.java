package dev.leasehold.etcd;

import dev.leasehold.testkit.meters.WithoutMicrometer;

/**
 * Runs inside {@link WithoutMicrometer}'s class loader, which has no Micrometer: a client built
 * without a registry must live a whole life there.
 */
public final class NoMicrometerProbe {

    private NoMicrometerProbe() {
    }

    /** @param endpoints the cluster */
    public static String run(String endpoints) throws Exception {
        return WithoutMicrometer.lifeOf(EtcdLocks.connect(endpoints));
    }
}
