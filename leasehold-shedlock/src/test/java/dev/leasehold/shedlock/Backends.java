package dev.leasehold.shedlock;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.LockClient;
import dev.leasehold.jdbc.JdbcLocks;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.launcher.RedisServer;
import dev.leasehold.redis.RedisLocks;
import dev.leasehold.zookeeper.ZooKeeperLocks;
import org.apache.curator.test.TestingServer;

/**
 * One Redis server, one PostgreSQL server (with a pool) and one ZooKeeper server (Curator's
 * {@code TestingServer}) for the whole test JVM, started on first
 * use and stopped when it exits: the suites run many short tests, and a PostgreSQL initdb per class
 * would cost a second each. Every client a test takes from here is its own, as a second process's.
 */
final class Backends {

    private static RedisServer redis;
    private static RedisServer otherRedis;
    private static PostgresServer postgres;
    private static HikariDataSource pool;
    private static TestingServer zookeeper;
    private static boolean hooked;

    private Backends() {
    }

    static synchronized LockClient redisClient() {
        if (redis == null) {
            hook();
            redis = RedisServer.builder().start();
        }
        return RedisLocks.connect(redis.uri());
    }

    /** What a process of its own needs to open a client of the Redis server: {@link JobProcess}'s environment. */
    static synchronized java.util.Map<String, String> redisEnvironment() {
        redisClient().close();
        return java.util.Map.of(JobProcessMain.REDIS_URI, redis.uri());
    }

    /** What a process of its own needs to open a client of the PostgreSQL server. */
    static synchronized java.util.Map<String, String> postgresEnvironment() {
        postgresClient().close();
        return java.util.Map.of(JobProcessMain.JDBC_URL, postgres.jdbcUrl(), JobProcessMain.JDBC_USER, postgres.user(),
                JobProcessMain.JDBC_PASSWORD, postgres.password());
    }

    /** A client of a second, unrelated Redis server: locks there exclude nobody on the first. */
    static synchronized LockClient otherRedisClient() {
        if (otherRedis == null) {
            hook();
            otherRedis = RedisServer.builder().start();
        }
        return RedisLocks.connect(otherRedis.uri());
    }

    static synchronized LockClient postgresClient() {
        if (pool == null) {
            hook();
            postgres = PostgresServer.start();
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(postgres.jdbcUrl());
            config.setUsername(postgres.user());
            config.setPassword(postgres.password());
            config.setMaximumPoolSize(24);
            config.setConnectionTimeout(5_000);
            config.addDataSourceProperty("socketTimeout", "5");
            config.addDataSourceProperty("connectTimeout", "5");
            pool = new HikariDataSource(config);
        }
        return JdbcLocks.create(pool);
    }

    static synchronized LockClient zookeeperClient() {
        if (zookeeper == null) {
            hook();
            // Test data need not survive a power cut: skipping fsync keeps each write a loopback round trip.
            System.setProperty("zookeeper.forceSync", "no");
            try {
                zookeeper = new TestingServer(true);
            } catch (Exception e) {
                throw new IllegalStateException("the ZooKeeper test server did not start", e);
            }
        }
        return ZooKeeperLocks.connect(zookeeper.getConnectString());
    }

    private static void hook() {
        if (!hooked) {
            hooked = true;
            Runtime.getRuntime().addShutdownHook(new Thread(Backends::close, "backends-close"));
        }
    }

    private static synchronized void close() {
        if (pool != null) {
            pool.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (otherRedis != null) {
            otherRedis.close();
        }
        if (zookeeper != null) {
            try {
                zookeeper.close();
            } catch (java.io.IOException ignored) {
                // the JVM is exiting: its temporary directory goes with it
            }
        }
    }
}
