package dev.leasehold.launcher;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code stop()} and {@code kill()} on an interrupted thread (a test's cleanup after a timeout, a
 * cancelled task) do what they say, as {@code close()} does, and keep the interrupt: a graceful stop
 * stays graceful rather than turning into a crash, and a restart afterwards finds the server's data.
 */
class StopWhileInterruptedTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void redisServerStopsGracefullyAndRestarts() {
        try (RedisServer server = RedisServer.builder().start()) {
            Thread.currentThread().interrupt();
            server.stop();
            assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
            assertThat(server.isAlive()).isFalse();
            assertThat(server.logTail(20)).contains("ready to exit");
            server.restart();
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    /** stop() resumes a paused server first (a stopped process cannot act on SIGTERM): that too on an interrupted thread. */
    @Test
    void aPausedRedisServerStopsGracefully() {
        try (RedisServer server = RedisServer.builder().start()) {
            server.pause();
            Thread.currentThread().interrupt();
            try {
                server.stop();
            } finally {
                assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
            }
            assertThat(server.isAlive()).isFalse();
            assertThat(server.logTail(20)).contains("ready to exit");
        }
    }

    @Test
    void aPausedPostgresStopsGracefully() {
        try (PostgresServer postgres = PostgresServer.start()) {
            postgres.pause();
            Thread.currentThread().interrupt();
            try {
                postgres.stop();
            } finally {
                assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
            }
            assertThat(postgres.isAlive()).isFalse();
            assertThat(postgres.logTail(20)).as("a fast shutdown, not a crash").contains("fast shutdown request");
        }
    }

    @Test
    void postgresStopsGracefully() {
        try (PostgresServer postgres = PostgresServer.start()) {
            Thread.currentThread().interrupt();
            try {
                postgres.stop();
            } finally {
                assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
            }
            assertThat(postgres.isAlive()).isFalse();
            assertThat(postgres.logTail(20)).as("a fast shutdown, not a crash").contains("fast shutdown request");
        }
    }

    /** A restart on an interrupted thread (a retry loop after a cancel) either starts the server or fails at once. */
    @Test
    void postgresRestartsOnAnInterruptedThread() {
        try (PostgresServer postgres = PostgresServer.start()) {
            postgres.stop();
            Thread.currentThread().interrupt();
            long started = System.nanoTime();
            try {
                postgres.restart();
            } finally {
                assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
                assertThat((System.nanoTime() - started) / 1_000_000).as("restart() took ms").isLessThan(10_000);
            }
            assertThat(postgres.isAlive()).isTrue();
        }
    }

    @Test
    void postgresKillEndsEveryProcess() {
        try (PostgresServer postgres = PostgresServer.start()) {
            long pid = postgres.pid();
            Thread.currentThread().interrupt();
            try {
                postgres.kill();
            } finally {
                assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
            }
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        }
    }
}
