package dev.leasehold.examples;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.leasehold.launcher.EtcdCluster;
import dev.leasehold.launcher.PostgresServer;
import dev.leasehold.launcher.RedisServer;
import org.apache.curator.test.TestingServer;

import java.util.ArrayList;
import java.util.List;

/**
 * The servers the examples run against, one of each for the whole test JVM, started on first use
 * and stopped when it exits: the examples are many and short, and an initdb or an etcd cluster per
 * class would cost more than the examples themselves. Each example takes its own names, so sharing
 * a server changes nothing it shows.
 */
final class Servers {

    private static final List<AutoCloseable> STARTED = new ArrayList<>();
    private static RedisServer redis;
    private static PostgresServer postgres;
    private static HikariDataSource pool;
    private static TestingServer zookeeper;
    private static EtcdCluster etcd;

    private Servers() {
    }

    /** A redis-server on a free loopback port, as {@code redis://127.0.0.1:PORT}. */
    static synchronized String redisUri() {
        if (redis == null) {
            redis = started(RedisServer.builder().start());
        }
        return redis.uri();
    }

    static synchronized PostgresServer postgres() {
        if (postgres == null) {
            postgres = started(PostgresServer.start());
        }
        return postgres;
    }

    /** A HikariCP pool on {@link #postgres()}. */
    static synchronized HikariDataSource dataSource() {
        if (pool == null) {
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl(postgres().jdbcUrl());
            config.setUsername(postgres.user());
            config.setPassword(postgres.password());
            config.setMaximumPoolSize(8);
            config.addDataSourceProperty("socketTimeout", "5");
            pool = started(new HikariDataSource(config));
        }
        return pool;
    }

    /** A ZooKeeper server in this JVM (Curator's TestingServer), as its connect string. */
    static synchronized String zookeeper() {
        if (zookeeper == null) {
            try {
                zookeeper = started(new TestingServer(true));
            } catch (Exception e) {
                throw new IllegalStateException("cannot start ZooKeeper", e);
            }
        }
        return zookeeper.getConnectString();
    }

    /** A three-member etcd cluster (Debian's etcd-server), as comma-separated endpoints. */
    static synchronized String etcdEndpoints() {
        if (etcd == null) {
            etcd = started(EtcdCluster.start(3));
        }
        return etcd.endpoints();
    }

    private static <T extends AutoCloseable> T started(T server) {
        if (STARTED.isEmpty()) {
            Runtime.getRuntime().addShutdownHook(new Thread(Servers::closeAll, "examples-servers-close"));
        }
        STARTED.add(server);
        return server;
    }

    private static synchronized void closeAll() {
        for (int i = STARTED.size() - 1; i >= 0; i--) {
            try {
                STARTED.get(i).close();
            } catch (Exception e) {
                // the JVM is exiting; the launcher's reaper kills what is left
            }
        }
    }
}
