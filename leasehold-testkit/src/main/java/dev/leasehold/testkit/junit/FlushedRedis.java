package dev.leasehold.testkit.junit;

import dev.leasehold.launcher.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real {@code redis-server} for a test class with one Lettuce connection to it, emptied
 * ({@code FLUSHALL}) before each test: the set-up of tests that call Lua scripts on their own and
 * read the keys they leave. Registered on a static field, it starts the server and connects before
 * the class's first test (and before its own {@code @BeforeAll} methods), and closes the connection,
 * the client and the server when the class is done, as {@link TestServer#perClass} does; its
 * {@code FLUSHALL} runs before the class's own {@code @BeforeEach} methods.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final FlushedRedis server = FlushedRedis.perClass();
 * ... SCRIPT.run(server.commands(), ...) ... server.get().command("GET", key) ...
 * }</pre>
 *
 * <p>Needs Lettuce on the test class path (the testkit's dependency on it is optional).
 */
public final class FlushedRedis implements BeforeAllCallback, BeforeEachCallback {

    private final TestServer<Connected> connected = TestServer.perClass(Connected::start);

    private FlushedRedis() {
    }

    /** A server and a connection for the test class that registers it, closed after that class. */
    public static FlushedRedis perClass() {
        return new FlushedRedis();
    }

    /**
     * The running server, for direct commands ({@link RedisServer#command}) and its address.
     *
     * @throws IllegalStateException outside the lifecycle of a class that registered this extension
     */
    public RedisServer get() {
        return connected.get().server();
    }

    /** The class's Lettuce client, for further connections (pub/sub). */
    public RedisClient client() {
        return connected.get().client();
    }

    /** The class's connection. */
    public StatefulRedisConnection<String, String> connection() {
        return connected.get().connection();
    }

    /** The asynchronous commands of the class's connection, as scripts are run on them. */
    public RedisAsyncCommands<String, String> commands() {
        return connection().async();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        connected.beforeAll(context);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        get().command("FLUSHALL");
    }

    /** The server with its client and connection, closed in the reverse order. */
    private record Connected(RedisServer server, RedisClient client, StatefulRedisConnection<String, String> connection)
            implements AutoCloseable {

        static Connected start() {
            RedisServer server = RedisServer.builder().start();
            RedisClient client = null;
            try {
                client = RedisClient.create(server.uri());
                return new Connected(server, client, client.connect());
            } catch (RuntimeException e) {
                if (client != null) {
                    client.shutdown();
                }
                server.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try {
                connection.close();
                client.shutdown();
            } finally {
                server.close();
            }
        }
    }
}
