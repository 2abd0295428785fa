package dev.leasehold.jdbc;

import dev.leasehold.launcher.PostgresServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The test launcher: a real server that can be frozen, killed and restarted, and leaves no process behind. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PostgresServerTest {

    @Test
    void startsFreezesKillsRestartsAndClosesWithoutLeavingAProcess() throws Exception {
        List<ProcessHandle> processes;
        try (PostgresServer server = PostgresServer.start()) {
            TestDatabase.execute(server, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7)");
            assertThat(treeSize(server)).isGreaterThan(1); // postmaster and its background workers

            var quick = TestDatabase.dataSource(server);
            quick.setSocketTimeout(1);
            try (Connection connection = quick.getConnection()) {
                server.pause();
                assertThatThrownBy(() -> selectOne(connection)).isInstanceOf(SQLException.class); // socket timeout: no answer
                server.resume();
            }
            assertThat(selectKept(server)).isEqualTo(7);

            processes = tree(server);
            server.kill();
            assertThat(processes).noneMatch(PostgresServerTest::running);
            assertThatThrownBy(() -> selectKept(server)).isInstanceOf(SQLException.class);

            server.restart();
            assertThat(selectKept(server)).isEqualTo(7); // the data survived the crash
            try (Connection open = TestDatabase.dataSource(server).getConnection()) {
                assertThat(open.isValid(1)).isTrue();
                server.pause();
                processes = tree(server); // a frozen backend too
                assertThat(processes.size()).isGreaterThan(2);
            }
        }
        assertThat(processes).noneMatch(PostgresServerTest::running);
    }

    @Test
    void aWrongPasswordIsRefused() throws Exception {
        try (PostgresServer server = PostgresServer.start()) {
            var source = TestDatabase.dataSource(server);
            source.setPassword("not-" + server.password());
            assertThatThrownBy(source::getConnection).isInstanceOf(SQLException.class)
                    .hasMessageContaining("password authentication failed");
        }
    }

    private static int selectKept(PostgresServer server) throws SQLException {
        try (Connection connection = TestDatabase.dataSource(server).getConnection()) {
            return selectOne(connection);
        }
    }

    private static int selectOne(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery("SELECT v FROM kept")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static List<ProcessHandle> tree(PostgresServer server) {
        ProcessHandle root = ProcessHandle.of(server.pid()).orElseThrow();
        return java.util.stream.Stream.concat(java.util.stream.Stream.of(root), root.descendants()).toList();
    }

    /** A killed process whose parent died stays a zombie until init reaps it: dead all the same. */
    private static boolean running(ProcessHandle process) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc", Long.toString(process.pid()), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static int treeSize(PostgresServer server) {
        return tree(server).size();
    }
}
