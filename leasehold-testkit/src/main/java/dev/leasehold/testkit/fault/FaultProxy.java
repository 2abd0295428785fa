package dev.leasehold.testkit.fault;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free 127.0.0.1 port forwarding to a target server, whose faults can be
 * switched at any time; a switch applies at once to open connections (including bytes
 * already read but not yet delivered) and to new ones. Point the client under test at
 * {@link #host()}:{@link #port()} instead of the server.
 *
 * <p>Faults are exclusive: each mode method replaces the previous one. Each connection uses
 * four platform daemon threads and the listener one, all named
 * {@value #THREAD_NAME_PREFIX}{@code N-...}; {@link #close()} returns only after all of them
 * have ended. Thread-safe.
 */
public final class FaultProxy implements AutoCloseable {

    /** Every thread a proxy starts has a name beginning with this. */
    public static final String THREAD_NAME_PREFIX = "leasehold-fault-proxy-";

    private static final String HOST = "127.0.0.1";
    private static final AtomicInteger PROXY_IDS = new AtomicInteger();
    private static final int TARGET_CONNECT_TIMEOUT_MILLIS = 2_000;
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(5);

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final FaultState faults = new FaultState();
    private final ProxyThreads threads;
    private final Set<ProxyConnection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger connectionIds = new AtomicInteger();
    private final Thread acceptor;
    private volatile boolean refusing;
    private volatile boolean closed;

    private FaultProxy(String targetHost, int targetPort, ServerSocket listener) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = listener;
        this.threads = new ProxyThreads(THREAD_NAME_PREFIX + PROXY_IDS.incrementAndGet() + "-");
        this.acceptor = threads.start("accept", this::acceptLoop);
    }

    /**
     * Starts a proxy in pass-through mode to {@code host}:{@code port}. The target is
     * connected once per client connection, when the client connects; if that fails, the
     * client's connection is reset.
     *
     * @throws IllegalArgumentException if {@code port} is not in 1..65535
     * @throws UncheckedIOException if no loopback port can be bound
     */
    public static FaultProxy start(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be between 1 and 65535, was " + port);
        }
        try {
            ServerSocket listener = new ServerSocket(0, 50, InetAddress.getByName(HOST));
            return new FaultProxy(host, port, listener);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a proxy port on " + HOST, e);
        }
    }

    /** Always {@code "127.0.0.1"}. */
    public String host() {
        return HOST;
    }

    /** The port clients connect to. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Forwards bytes as they come: no fault. */
    public void pass() {
        faults.set(FaultState.Kind.PASS, 0);
    }

    /**
     * Delays every chunk of bytes, in both directions, until {@code oneWay} after the proxy
     * read it, preserving order; a round trip therefore takes at least twice {@code oneWay}.
     *
     * @throws IllegalArgumentException if {@code oneWay} is negative
     */
    public void latency(Duration oneWay) {
        if (Objects.requireNonNull(oneWay, "oneWay").isNegative()) {
            throw new IllegalArgumentException("oneWay must not be negative, was " + oneWay);
        }
        faults.set(FaultState.Kind.LATENCY, oneWay.toNanos());
    }

    /**
     * Swallows bytes both ways, like a network partition: connections stay open, nothing is
     * delivered (not even a close), and what was swallowed is lost for good, so a connection
     * that lost part of a command stays out of step after {@link #pass()}; use a new one.
     */
    public void blackhole() {
        faults.set(FaultState.Kind.BLACKHOLE, 0);
    }

    /**
     * Holds server-to-client bytes until {@link #releaseReplies()} (or another mode);
     * client-to-server bytes pass, so the server acts on commands whose replies the client
     * does not see yet. When the hold buffer fills, the server's writes block, as over a
     * stalled network.
     */
    public void holdReplies() {
        faults.set(FaultState.Kind.HOLD_REPLIES, 0);
    }

    /** Delivers every held reply, in order, and returns to {@link #pass()} mode. */
    public void releaseReplies() {
        pass();
    }

    /** Resets (RST) both sides of every open connection; new connections are still accepted. */
    public void cutAll() {
        List.copyOf(connections).forEach(connection -> connection.close(true));
    }

    /**
     * While {@code true}, every connection the proxy accepts is reset at once; connections
     * accepted earlier are untouched. A client's connect returns before the proxy accepts, so
     * a connection counts as earlier once it has carried a reply.
     */
    public void refuse(boolean refuse) {
        this.refusing = refuse;
    }

    /**
     * Stops listening, resets every connection and waits until every proxy thread has ended; idempotent.
     *
     * @throws IllegalStateException if some thread has not ended within 5 s (a bug), naming it
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // the listener is unusable either way, and the acceptor ends on it
        }
        // The acceptor ends first, so no connection can be added after the reset below.
        try {
            acceptor.join(CLOSE_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cutAll();
        threads.joinAll(CLOSE_TIMEOUT);
    }

    @Override
    public String toString() {
        return "FaultProxy[" + HOST + ":" + port() + " -> " + targetHost + ":" + targetPort + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed by close(), or broken beyond use: either way no more connections
            }
            if (refusing) {
                ProxyConnection.closeSocket(client, true);
                continue;
            }
            Socket server = new Socket();
            try {
                client.setTcpNoDelay(true); // forward small writes (RESP replies) at once, not after Nagle's delay
                server.setTcpNoDelay(true);
                server.connect(new InetSocketAddress(targetHost, targetPort), TARGET_CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                ProxyConnection.closeSocket(server, false);
                ProxyConnection.closeSocket(client, true);
                continue;
            }
            ProxyConnection connection = new ProxyConnection(client, server, faults, connections::remove);
            connections.add(connection);
            connection.start(threads, "c" + connectionIds.incrementAndGet());
        }
    }
}
