package dev.leasehold.testkit.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One direction of a proxied connection. A reader thread timestamps each chunk as it arrives
 * and queues it; a writer thread delivers chunks in order once the current fault allows.
 * Reading and writing are separate so a delay never slows down the timestamping of later
 * chunks: each chunk is delayed by the latency, not by the latency times the chunks before it.
 */
final class Pipe {

    private static final int CHUNK_BYTES = 16 * 1024;
    /**
     * Bounded, so a held or delayed direction pushes back on the sender instead of buffering
     * without limit; with more chunks than this in flight, later ones are read, and so
     * timestamped, late and their delay grows, as over a saturated link.
     */
    private static final int QUEUED_CHUNKS = 64;

    /** Bytes read at {@code readNanos}; {@code bytes == null} is the end of the stream. */
    private record Chunk(byte[] bytes, long readNanos) {
    }

    private final Socket from;
    private final Socket to;
    private final boolean towardClient;
    private final FaultState faults;
    private final ProxyConnection connection;
    private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(QUEUED_CHUNKS);
    private volatile Thread reader;
    private volatile Thread writer;

    Pipe(Socket from, Socket to, boolean towardClient, FaultState faults, ProxyConnection connection) {
        this.from = from;
        this.to = to;
        this.towardClient = towardClient;
        this.faults = faults;
        this.connection = connection;
    }

    void start(ProxyThreads threads, String name) {
        reader = threads.start(name + "-read", this::read);
        writer = threads.start(name + "-write", this::write);
    }

    /** Wakes both threads, if started, from waits that closing the sockets does not end. */
    void interrupt() {
        Thread r = reader;
        Thread w = writer;
        if (r != null) {
            r.interrupt();
        }
        if (w != null) {
            w.interrupt();
        }
    }

    private void read() {
        byte[] buffer = new byte[CHUNK_BYTES];
        try {
            InputStream in = from.getInputStream();
            while (true) {
                int n = in.read(buffer);
                long now = System.nanoTime();
                // A black hole drops the end of stream too: a partition delivers no FIN either.
                if (!faults.swallowing()) {
                    queue.put(new Chunk(n < 0 ? null : Arrays.copyOf(buffer, n), now));
                }
                if (n < 0) {
                    return;
                }
            }
        } catch (IOException e) {
            connection.close(false);
        } catch (InterruptedException e) {
            // the connection is being torn down
        }
    }

    private void write() {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                Chunk chunk = queue.take();
                if (!faults.awaitDelivery(chunk.readNanos(), towardClient)) {
                    continue;
                }
                if (chunk.bytes() == null) {
                    to.shutdownOutput(); // pass the half-close on; the other direction may still carry replies
                    connection.directionFinished();
                    return;
                }
                out.write(chunk.bytes());
            }
        } catch (IOException e) {
            connection.close(false);
        } catch (InterruptedException e) {
            // the connection is being torn down
        }
    }
}
