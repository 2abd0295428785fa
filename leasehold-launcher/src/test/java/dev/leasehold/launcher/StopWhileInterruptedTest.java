package dev.leasehold.launcher;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code stop()}, {@code kill()} and {@code restart()} on an interrupted thread (a test's cleanup after
 * a timeout, a cancelled task) do what they say, as {@code close()} does, and keep the interrupt: a
 * graceful stop stays graceful, also of a paused server, rather than failing or turning into a crash.
 */
class StopWhileInterruptedTest {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @ParameterizedTest(name = "paused: {0}")
    @ValueSource(booleans = {false, true})
    void redisServerStopsGracefully(boolean paused) {
        try (RedisServer server = RedisServer.builder().start()) {
            if (paused) {
                server.pause();
            }
            interrupted(server::stop);
            assertThat(server.isAlive()).isFalse();
            assertThat(server.logTail(20)).contains("ready to exit");
            interrupted(server::restart);
            assertThat(server.command("PING")).isEqualTo("PONG");
        }
    }

    @ParameterizedTest(name = "paused: {0}")
    @ValueSource(booleans = {false, true})
    void postgresStopsGracefully(boolean paused) {
        try (PostgresServer postgres = PostgresServer.start()) {
            if (paused) {
                postgres.pause();
            }
            interrupted(postgres::stop);
            assertThat(postgres.isAlive()).isFalse();
            assertThat(postgres.logTail(20)).as("a fast shutdown, not a crash").contains("fast shutdown request");
            long started = System.nanoTime();
            interrupted(postgres::restart);
            assertThat((System.nanoTime() - started) / 1_000_000).as("restart() took ms").isLessThan(10_000);
            assertThat(postgres.isAlive()).isTrue();
        }
    }

    @Test
    void postgresKillEndsEveryProcess() {
        try (PostgresServer postgres = PostgresServer.start()) {
            long pid = postgres.pid();
            interrupted(postgres::kill);
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty();
        }
    }

    /** Runs {@code action} on this thread with its interrupt flag set, and checks the flag is still set after. */
    private static void interrupted(Runnable action) {
        Thread.currentThread().interrupt();
        try {
            action.run();
        } finally {
            assertThat(Thread.interrupted()).as("interrupt kept for the caller").isTrue();
        }
    }
}
