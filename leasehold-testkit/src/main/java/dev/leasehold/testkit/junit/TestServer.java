package dev.leasehold.testkit.junit;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.Objects;

/**
 * A real server for a test class, as a JUnit 5 extension in place of a {@code @BeforeAll}/{@code
 * @AfterAll} pair: registered on a static field, it starts the server before the class's first test
 * (and before its own {@code @BeforeAll} methods) and closes it when the class is done, also when a
 * test or a later callback failed. Servers listen on free loopback ports, as the launchers choose.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TestServer<RedisServer> redis = TestServer.perClass(() -> RedisServer.builder().start());
 * ... redis.get().uri() ...
 * }</pre>
 *
 * <p>{@link #perClass} serves the top-level class: its {@code @Nested} classes and every invocation of
 * a parameterised class (a contract run once per kind) share the one server. {@link #perJvm} serves
 * every class that names the same key, and closes the server when the test run ends; use it for a
 * group that is slow to start and that its tests leave as they found it.
 *
 * @param <S> the server, closed by {@link AutoCloseable#close()}
 */
public final class TestServer<S extends AutoCloseable> implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(TestServer.class);

    private final Starter<S> start;
    private final String sharedKey;
    private volatile S server;

    private TestServer(Starter<S> start, String sharedKey) {
        this.start = Objects.requireNonNull(start, "start");
        this.sharedKey = sharedKey;
    }

    /** A server {@code start} starts for the test class that registers it, closed after that class. */
    public static <S extends AutoCloseable> TestServer<S> perClass(Starter<S> start) {
        return new TestServer<>(start, null);
    }

    /**
     * One server for every class registering {@code key} in this test JVM, started by the first of
     * them and closed when the run ends.
     *
     * @throws IllegalArgumentException if {@code key} is blank
     */
    public static <S extends AutoCloseable> TestServer<S> perJvm(String key, Starter<S> start) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("a shared test server needs a key naming it, got '" + key + "'");
        }
        return new TestServer<>(start, key);
    }

    /**
     * The running server.
     *
     * @throws IllegalStateException outside the lifecycle of a class that registered this extension
     */
    public S get() {
        S running = server;
        if (running == null) {
            throw new IllegalStateException("the test server is not started: register it with @RegisterExtension"
                    + " on a static field and use it from tests or @BeforeAll methods");
        }
        return running;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void beforeAll(ExtensionContext context) {
        ExtensionContext owner = sharedKey == null ? topLevelClass(context) : context.getRoot();
        Object key = sharedKey == null ? this : sharedKey;
        // The store closes what it holds when its context ends, whatever happened in between.
        server = (S) owner.getStore(NAMESPACE).getOrComputeIfAbsent(key, k -> started(), AutoCloseable.class);
    }

    private S started() {
        try {
            return start.start();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("the test server did not start: " + e.getMessage(), e);
        }
    }

    /**
     * Starts a server: a launcher's {@code start()}, or a constructor that throws checked exceptions.
     *
     * @param <S> the server
     */
    @FunctionalInterface
    public interface Starter<S> {

        /** A running server; an exception fails the test class before its first test. */
        S start() throws Exception;
    }

    /** The context of the outermost class around {@code context} (nested classes and class invocations share it). */
    private static ExtensionContext topLevelClass(ExtensionContext context) {
        ExtensionContext current = context;
        while (current.getParent().isPresent() && current.getParent().get() != context.getRoot()) {
            current = current.getParent().get();
        }
        return current;
    }
}
