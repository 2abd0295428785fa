package dev.leasehold.launcher;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A close on an interrupted thread (a Ctrl-C handler, a cancelled task, a test that timed out)
 * still ends every process and deletes every directory, does not throw, and keeps the interrupt.
 */
class CloseWhileInterruptedTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void redisServer() {
        RedisServer server = RedisServer.builder().start();
        try {
            closeInterrupted(server);
            assertThat(server.isAlive()).as("redis-server alive after close()").isFalse();
            assertThat(Files.exists(server.dir())).as("directory left after close()").isFalse();
        } finally {
            server.kill();
        }
    }

    @Test
    void sentinelGroup() {
        RedisSentinelGroup group = RedisSentinelGroup.start(1, null);
        List<RedisServer> all = new ArrayList<>(group.sentinels());
        all.add(group.master());
        all.addAll(group.replicas());
        try {
            closeInterrupted(group);
            assertThat(all).as("servers left running after close()").noneMatch(RedisServer::isAlive);
            assertThat(all).as("directories left after close()").noneMatch(s -> Files.exists(s.dir()));
        } finally {
            all.forEach(RedisServer::kill);
        }
    }

    @Test
    void clusterGroup() {
        RedisClusterGroup cluster = RedisClusterGroup.start(3, 0);
        List<RedisServer> nodes = cluster.nodes();
        try {
            closeInterrupted(cluster);
            assertThat(nodes).as("nodes left running after close()").noneMatch(RedisServer::isAlive);
        } finally {
            nodes.forEach(RedisServer::kill);
        }
    }

    @Test
    void postgresServer() {
        PostgresServer postgres = PostgresServer.start();
        long pid = postgres.pid();
        closeInterrupted(postgres);
        assertThat(postgres.isAlive()).as("PostgreSQL alive after close()").isFalse();
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).as("postmaster pid " + pid).isEmpty();
    }

    @Test
    void etcdCluster() {
        EtcdCluster etcd = EtcdCluster.start(1);
        List<Long> pids = IntStream.range(0, etcd.size()).mapToObj(etcd::pid).toList();
        closeInterrupted(etcd);
        assertThat(pids).as("etcd members alive after close()")
                .noneMatch(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }

    private static void closeInterrupted(AutoCloseable closeable) {
        Thread.currentThread().interrupt();
        try {
            closeable.close();
        } catch (Exception e) {
            throw new AssertionError("close() on an interrupted thread threw", e);
        }
        assertThat(Thread.currentThread().isInterrupted()).as("interrupt kept for the caller").isTrue();
    }
}
