package dev.leasehold.testkit.fault;

import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** One client connection through the proxy: its two sockets and a {@link Pipe} each way. */
final class ProxyConnection {

    private final Socket client;
    private final Socket server;
    private final Pipe up;
    private final Pipe down;
    private final Consumer<ProxyConnection> onClosed;
    private final AtomicInteger finishedDirections = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();

    ProxyConnection(Socket client, Socket server, FaultState faults, Consumer<ProxyConnection> onClosed) {
        this.client = client;
        this.server = server;
        this.up = new Pipe(client, server, false, faults, this);
        this.down = new Pipe(server, client, true, faults, this);
        this.onClosed = onClosed;
    }

    void start(ProxyThreads threads, String name) {
        up.start(threads, name + "-up");
        down.start(threads, name + "-down");
        // A pipe that failed at once may have closed the connection before the other pipe's
        // threads existed to be interrupted; those would then wait forever on an empty queue.
        if (closed.get()) {
            up.interrupt();
            down.interrupt();
        }
    }

    /** Called by a pipe that delivered its end of stream; the connection ends when both have. */
    void directionFinished() {
        if (finishedDirections.incrementAndGet() == 2) {
            close(false);
        }
    }

    /**
     * Closes both sockets and ends the four threads; idempotent.
     *
     * @param abrupt reset both peers (RST) instead of closing normally (FIN)
     */
    void close(boolean abrupt) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeSocket(client, abrupt);
        closeSocket(server, abrupt);
        up.interrupt();
        down.interrupt();
        onClosed.accept(this);
    }

    static void closeSocket(Socket socket, boolean abrupt) {
        try {
            if (abrupt) {
                socket.setSoLinger(true, 0); // close() then sends RST: the peer sees "connection reset"
            }
            socket.close();
        } catch (IOException e) {
            // closing is best effort: the socket is unusable either way
        }
    }
}
