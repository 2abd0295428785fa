package dev.leasehold.launcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class RedisGroupCloseTest {

    /** A close on an interrupted thread (a Ctrl-C handler, a cancelled task) still ends every server of the group. */
    @Test
    void closeOnAnInterruptedThreadStopsEveryServer() {
        RedisSentinelGroup group = RedisSentinelGroup.start(1, null);
        List<RedisServer> all = new ArrayList<>(group.sentinels());
        all.add(group.master());
        all.addAll(group.replicas());
        Thread.currentThread().interrupt();
        try {
            group.close();
        } catch (RuntimeException interruptedWhileWaiting) {
            // Reported after every server was closed.
        } finally {
            Thread.interrupted();
        }
        try {
            assertThat(all).as("servers left running after close()").noneMatch(RedisServer::isAlive);
        } finally {
            all.forEach(RedisServer::kill);
        }
    }
}
