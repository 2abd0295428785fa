package dev.leasehold.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Free TCP ports on the loopback interface.
 *
 * <p>A port is free when it is handed out; nothing stops another process from binding it
 * before the caller does, so callers that start servers should be ready to retry on a bind
 * failure ({@link RedisServer} is). Within one JVM the same port is never handed out twice,
 * so two servers started by the same test run cannot be given the same port.
 */
public final class FreePorts {

    private static final int MAX_ATTEMPTS = 100;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private FreePorts() {
    }

    /**
     * Returns a port that was free on 127.0.0.1 a moment ago and that this JVM has not handed out before.
     *
     * @throws UncheckedIOException if no loopback socket can be bound at all
     * @throws IllegalStateException if the system keeps offering ports already handed out
     */
    public static int find() {
        for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, loopback())) {
                port = socket.getLocalPort();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot bind a free port on 127.0.0.1", e);
            }
            if (HANDED_OUT.add(port)) {
                return port;
            }
        }
        throw new IllegalStateException("no loopback port this JVM has not already handed out after "
                + MAX_ATTEMPTS + " attempts");
    }

    private static InetAddress loopback() throws UnknownHostException {
        // Explicitly IPv4: servers here bind 127.0.0.1, and getLoopbackAddress() may be ::1.
        return InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
    }
}
