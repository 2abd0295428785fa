package dev.leasehold.jdbc;

import dev.leasehold.Lease;
import dev.leasehold.LockOptions;
import org.postgresql.ds.PGSimpleDataSource;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Optional;

/**
 * A {@link JdbcLocks} client in a JVM of its own, for {@link ClockSkewTest}, which starts it under
 * libfaketime. Arguments: the JDBC URL and the user; the password comes in the environment
 * variable {@value #PASSWORD_ENV}, never on a command line. Reads one command a line on stdin and
 * answers one line on stdout:
 * <ul>
 *   <li>{@code clock}: {@code clock <System.currentTimeMillis()>}, the clock this JVM sees;</li>
 *   <li>{@code hold NAME TTL_MS}: takes a fixed lease (no renewal, no release: it expires) and answers
 *       {@code held <token>};</li>
 *   <li>{@code try NAME WAIT_MS}: {@code acquired <token>} (then releases it) or {@code busy};</li>
 *   <li>{@code count NAME N}: N times, under the lock, reads the counter of {@value #COUNTER_TABLE},
 *       sleeps, and writes it back plus one, an unguarded read-modify-write that loses updates
 *       unless the lock excludes; answers {@code counted N};</li>
 * </ul>
 * Any failure answers {@code error <message>}. End of input closes the client and exits.
 */
public final class SkewedClientMain {

    static final String PASSWORD_ENV = "LEASEHOLD_TEST_PG_PASSWORD";
    /** The table of the counter that {@code count} increments: {@code (id int PRIMARY KEY, value bigint)}, row 1. */
    static final String COUNTER_TABLE = "skew_counter";

    private SkewedClientMain() {
    }

    public static void main(String[] args) throws Exception {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(args[0]);
        source.setUser(args[1]);
        source.setPassword(System.getenv(PASSWORD_ENV));
        source.setConnectTimeout(10);
        source.setSocketTimeout(10);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (JdbcLockClient client = JdbcLocks.builder(source).operationTimeout(Duration.ofSeconds(10)).build()) {
            System.out.println("ready");
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] command = line.split(" ");
                try {
                    System.out.println(run(client, source, command));
                } catch (Exception e) {
                    System.out.println("error " + e.toString().replace('\n', ' '));
                }
            }
        }
    }

    private static String run(JdbcLockClient client, PGSimpleDataSource source, String[] command) throws Exception {
        switch (command[0]) {
            case "clock":
                return "clock " + System.currentTimeMillis();
            case "hold": {
                Lease lease = client.lock(command[1], LockOptions.fixedLease(Duration.ofMillis(Long.parseLong(command[2]))))
                        .acquire(Duration.ofSeconds(30));
                return "held " + lease.token();
            }
            case "try": {
                Optional<Lease> lease = client.lock(command[1]).tryAcquire(Duration.ofMillis(Long.parseLong(command[2])));
                if (lease.isEmpty()) {
                    return "busy";
                }
                lease.get().release();
                return "acquired " + lease.get().token();
            }
            case "count": {
                int times = Integer.parseInt(command[2]);
                for (int i = 0; i < times; i++) {
                    try (Lease lease = client.lock(command[1]).acquire(Duration.ofSeconds(60))) {
                        increment(source);
                    }
                }
                return "counted " + times;
            }
            default:
                throw new IllegalArgumentException("unknown command " + command[0]);
        }
    }

    /** Reads, waits a little (widening the race a missing exclusion would lose), writes back plus one. */
    static void increment(javax.sql.DataSource source) throws SQLException, InterruptedException {
        long value;
        try (Connection connection = source.getConnection()) {
            try (PreparedStatement read = connection.prepareStatement("SELECT value FROM " + COUNTER_TABLE + " WHERE id = 1");
                 ResultSet row = read.executeQuery()) {
                row.next();
                value = row.getLong(1);
            }
            Thread.sleep(5);
            try (PreparedStatement write = connection.prepareStatement("UPDATE " + COUNTER_TABLE + " SET value = ? WHERE id = 1")) {
                write.setLong(1, value + 1);
                write.executeUpdate();
            }
        }
    }
}
