package dev.leasehold.launcher;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A minimal RESP2 client over one plain or TLS socket, for tests that must talk to Redis
 * without the code under test.
 *
 * <p>Replies decode to {@link String} (simple and bulk strings, UTF-8; {@code null} for nil),
 * {@link Long} (integers) and {@code List<Object>} (arrays; {@code null} for a nil array). A
 * top-level error reply is thrown as {@link RedisReplyException}; an error nested in an array
 * (e.g. inside {@code EXEC}'s reply) is returned as a {@code RedisReplyException} element, so
 * the rest of the array is still read. I/O failures, including read timeouts (cause
 * {@link java.net.SocketTimeoutException}), are {@link UncheckedIOException}s; after one, the
 * position in the reply stream is unknown and the client should be closed.
 *
 * <p>Not thread-safe: use one client per thread.
 */
public final class RespClient implements AutoCloseable {

    /** Connect and default read timeout. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);

    private static final byte[] CRLF = {'\r', '\n'};

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RespClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Opens a plain TCP connection.
     *
     * @throws UncheckedIOException if the connection cannot be made within {@link #DEFAULT_TIMEOUT}
     */
    public static RespClient connect(String host, int port) {
        return connect(host, port, null);
    }

    /**
     * Opens a TLS connection trusting what {@code tls} trusts, verifying that the server's
     * certificate names {@code host}, and completes the handshake before returning.
     *
     * @param tls the context to use, or {@code null} for plain TCP
     * @throws UncheckedIOException if the connection or the handshake fails or times out
     */
    public static RespClient connect(String host, int port, SSLContext tls) {
        Socket plain = new Socket();
        try {
            plain.setTcpNoDelay(true);
            plain.connect(new InetSocketAddress(host, port), (int) DEFAULT_TIMEOUT.toMillis());
            plain.setSoTimeout((int) DEFAULT_TIMEOUT.toMillis());
            return new RespClient(tls == null ? plain : handshake(plain, host, port, tls));
        } catch (IOException e) {
            closeQuietly(plain);
            throw new UncheckedIOException("cannot connect to " + host + ":" + port + (tls == null ? "" : " over TLS"), e);
        }
    }

    /**
     * Sets how long a read waits for the server; {@link Duration#ZERO} waits forever.
     *
     * @throws IllegalArgumentException if {@code timeout} is negative or over {@link Integer#MAX_VALUE} ms
     * @throws UncheckedIOException if the socket is closed
     */
    public void setReadTimeout(Duration timeout) {
        if (timeout.isNegative() || timeout.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("timeout must be between 0 and " + Integer.MAX_VALUE + " ms, was " + timeout);
        }
        try {
            socket.setSoTimeout((int) timeout.toMillis());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Sends one command and reads its reply.
     *
     * @throws RedisReplyException if the reply is an error
     * @throws UncheckedIOException on I/O failure or read timeout
     */
    public Object call(String... args) {
        send(args);
        return read();
    }

    /**
     * Sends one command without reading a reply, e.g. to pipeline, or to {@code SUBSCRIBE} and
     * then {@link #read()} pushed messages.
     *
     * @throws IllegalArgumentException if {@code args} is empty
     * @throws UncheckedIOException on I/O failure
     */
    public void send(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("a command needs at least one argument");
        }
        // One buffer, one write: a command never goes out as many tiny TCP or TLS records.
        ByteArrayOutputStream command = new ByteArrayOutputStream();
        writeAscii(command, "*" + args.length);
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(command, "$" + bytes.length);
            command.write(bytes, 0, bytes.length);
            command.write(CRLF, 0, CRLF.length);
        }
        try {
            command.writeTo(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot send " + args[0] + " to " + socket.getRemoteSocketAddress(), e);
        }
    }

    /**
     * Reads the next reply.
     *
     * @throws RedisReplyException if the reply is an error
     * @throws UncheckedIOException on I/O failure, read timeout, a closed connection or a protocol error
     */
    public Object read() {
        Object reply;
        try {
            reply = readValue();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read a reply from " + socket.getRemoteSocketAddress(), e);
        }
        if (reply instanceof RedisReplyException error) {
            throw error;
        }
        return reply;
    }

    /** Closes the socket; idempotent. */
    @Override
    public void close() {
        closeQuietly(socket);
    }

    private static SSLSocket handshake(Socket plain, String host, int port, SSLContext tls) throws IOException {
        SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, host, port, true);
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // check the certificate names host
        socket.setSSLParameters(parameters);
        socket.startHandshake();
        return socket;
    }

    private Object readValue() throws IOException {
        int type = in.read();
        if (type == -1) {
            throw new EOFException("connection closed by the server");
        }
        String line = readLine();
        switch (type) {
            case '+':
                return line;
            case '-':
                return new RedisReplyException(line);
            case ':':
                return parseNumber(line);
            case '$':
                return readBulk(Math.toIntExact(parseNumber(line)));
            case '*':
                return readArray(Math.toIntExact(parseNumber(line)));
            default:
                throw new IOException("not a RESP2 reply: type byte " + type + " followed by " + line);
        }
    }

    private String readBulk(int length) throws IOException {
        if (length < 0) {
            return null;
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length || !readLine().isEmpty()) {
            throw new EOFException("bulk string of " + length + " bytes cut short");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private List<Object> readArray(int size) throws IOException {
        if (size < 0) {
            return null;
        }
        List<Object> elements = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            elements.add(readValue());
        }
        return elements;
    }

    /** Reads up to CRLF, which it consumes; simple strings and errors may carry UTF-8 text. */
    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b == -1) {
                throw new EOFException("connection closed in the middle of a reply");
            }
            if (b == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("malformed RESP line: CR not followed by LF");
                }
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }

    private static long parseNumber(String line) throws IOException {
        try {
            return Long.parseLong(line);
        } catch (NumberFormatException e) {
            throw new IOException("malformed RESP number: " + line, e);
        }
    }

    private static void writeAscii(ByteArrayOutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        out.write(bytes, 0, bytes.length);
        out.write(CRLF, 0, CRLF.length);
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing left to release: the socket is unusable either way
        }
    }
}
