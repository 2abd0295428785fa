package dev.leasehold.shedlock;

import dev.leasehold.LockClient;
import dev.leasehold.jdbc.JdbcLocks;
import dev.leasehold.redis.RedisLocks;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.postgresql.ds.PGSimpleDataSource;

import java.time.Duration;

/**
 * An application instance in a process of its own, for {@link JobProcess}: takes the lock named by
 * its first argument with {@code lockAtMostFor} and {@code lockAtLeastFor} (milliseconds, the next
 * two), unlocks it at once, prints {@code unlocked} and the nanoseconds since it began to lock, and then waits to be killed. The backend comes
 * from the environment (never the command line, which other users can read).
 */
public final class JobProcessMain {

    static final String REDIS_URI = "SHEDLOCK_TEST_REDIS_URI";
    static final String JDBC_URL = "SHEDLOCK_TEST_JDBC_URL";
    static final String JDBC_USER = "SHEDLOCK_TEST_JDBC_USER";
    static final String JDBC_PASSWORD = "SHEDLOCK_TEST_JDBC_PASSWORD";

    private JobProcessMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        LockClient client = connect();
        long start = System.nanoTime();
        SimpleLock lock = new LeaseholdLockProvider(client).lock(ProviderFixture.config(args[0],
                Duration.ofMillis(Long.parseLong(args[1])), Duration.ofMillis(Long.parseLong(args[2])))).orElseThrow();
        lock.unlock();
        System.out.println("unlocked " + (System.nanoTime() - start));
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }

    private static LockClient connect() {
        String redis = System.getenv(REDIS_URI);
        if (redis != null) {
            return RedisLocks.connect(redis);
        }
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setURL(System.getenv(JDBC_URL));
        source.setUser(System.getenv(JDBC_USER));
        source.setPassword(System.getenv(JDBC_PASSWORD));
        return JdbcLocks.create(source);
    }
}
