package dev.leasehold.jdbc;

import dev.leasehold.testkit.meters.WithoutMicrometer;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Runs inside {@link WithoutMicrometer}'s class loader, which has no Micrometer: a client built
 * without a registry must live a whole life there.
 */
public final class NoMicrometerProbe {

    private NoMicrometerProbe() {
    }

    /** @param connection the JDBC URL, the user and the password, separated by newlines */
    public static String run(String connection) throws Exception {
        String[] parts = connection.split("\n");
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(parts[0]);
        source.setUser(parts[1]);
        source.setPassword(parts[2]);
        return WithoutMicrometer.lifeOf(JdbcLocks.builder(source).build());
    }
}
