package dev.leasehold.launcher;

/**
 * Run in a child JVM by {@link ShutdownReaperTest}: starts a server, pauses it, prints its pid and
 * directory and exits without closing it, as a test that fails half-way would.
 */
public final class ReaperProbe {

    private ReaperProbe() {
    }

    public static void main(String[] args) {
        RedisServer server = RedisServer.builder().start();
        server.pause();
        System.out.println("pid=" + server.pid());
        System.out.println("dir=" + server.dir());
        System.out.flush();
        System.exit(0);
    }
}
