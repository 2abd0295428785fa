package dev.leasehold.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A PostgreSQL server that exits while it starts (here: its port taken by another socket when it
 * restarts) fails at once with why and the end of its log, leaves no process, and can start once
 * the port is free again.
 */
@Timeout(60)
class PostgresStartFailureTest {

    @Test
    void aRestartOnATakenPortFailsWithTheLogAndLeavesNoProcess() throws IOException {
        try (PostgresServer postgres = PostgresServer.start()) {
            postgres.stop();
            try (ServerSocket taken = new ServerSocket(postgres.port(), 1, InetAddress.getByName(postgres.host()))) {
                assertThatThrownBy(postgres::restart).isInstanceOf(IllegalStateException.class)
                        .hasMessageStartingWith("PostgreSQL on port " + postgres.port() + " exited; log:\n")
                        .hasMessageContaining("could not bind");
                assertThat(postgres.isAlive()).isFalse();
            }
            postgres.restart();
            assertThat(postgres.isAlive()).isTrue();
        }
    }
}
