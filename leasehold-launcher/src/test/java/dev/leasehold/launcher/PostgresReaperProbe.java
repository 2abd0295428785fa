package dev.leasehold.launcher;

import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Run in a child JVM by {@link ShutdownReaperTest}: starts a PostgreSQL server, pauses it (the
 * postmaster and every process it forked), prints their pids and exits without closing it, as a
 * test that fails half-way would.
 */
public final class PostgresReaperProbe {

    private PostgresReaperProbe() {
    }

    public static void main(String[] args) {
        PostgresServer server = PostgresServer.start();
        server.pause();
        ProcessHandle postmaster = ProcessHandle.of(server.pid()).orElseThrow();
        System.out.println("pids=" + Stream.concat(Stream.of(postmaster), postmaster.descendants())
                .map(process -> Long.toString(process.pid())).collect(Collectors.joining(",")));
        System.out.flush();
        System.exit(0);
    }
}
