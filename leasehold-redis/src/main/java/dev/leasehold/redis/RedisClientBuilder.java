package dev.leasehold.redis;

import dev.leasehold.engine.EngineBuilder;
import dev.leasehold.spi.Args;
import dev.leasehold.redis.internal.LettuceConnections;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The settings every Redis-based client shares, with their defaults and bounds in one place:
 * {@link RedisLocks.Builder} and leasehold-redlock's builder extend it. The engine's settings
 * ({@code operationTimeout}, which also bounds connecting, {@code maxRecheck} and the meters) come
 * from {@link EngineBuilder}. Each setter validates its argument at once.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class RedisClientBuilder<B extends RedisClientBuilder<B>> extends EngineBuilder<B> {

    private Path trustedCertificate;
    private Duration fenceRetention = RedisLocks.DEFAULT_FENCE_RETENTION;

    protected RedisClientBuilder() {
    }

    /**
     * A PEM file of CA certificates to trust for {@code rediss://}, e.g. a private CA.
     *
     * @throws IllegalArgumentException if it is null or not a readable file
     */
    public B trustedCertificate(Path pemFile) {
        this.trustedCertificate = LettuceConnections.trustedCertificate(pemFile);
        return self();
    }

    /**
     * How long a fence key (the last token issued for a lock name) outlives its last write
     * (default 10 min). Tokens are {@code max(last + 1, server time in µs)}, so after the fence key
     * expired they still grow, unless the server clock stepped back (or, across servers, differs)
     * by more than this.
     *
     * @throws IllegalArgumentException if outside [1 s, 30 days]
     */
    public B fenceRetention(Duration retention) {
        this.fenceRetention = Args.within("fenceRetention", retention, Duration.ofSeconds(1), Duration.ofDays(30));
        return self();
    }

    /** The trusted CA file, or {@code null} for the JDK's default trust store. */
    protected Path trustedCertificate() {
        return trustedCertificate;
    }

    protected Duration fenceRetention() {
        return fenceRetention;
    }
}
