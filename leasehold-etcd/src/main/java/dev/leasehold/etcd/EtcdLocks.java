package dev.leasehold.etcd;

import dev.leasehold.LockUnavailableException;
import dev.leasehold.engine.EngineBuilder;
import dev.leasehold.engine.LeaseEngine;
import dev.leasehold.etcd.internal.EtcdErrors;
import dev.leasehold.spi.Args;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.options.GetOption;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Entry point of the etcd backend.
 *
 * <pre>{@code
 * try (EtcdLockClient locks = EtcdLocks.connect("http://etcd1:2379,http://etcd2:2379,http://etcd3:2379")) {
 *     try (Lease lease = locks.lock("order:123").acquire(Duration.ofSeconds(5))) {
 *         store.write(order, lease.token());
 *     }
 * }
 * }</pre>
 *
 * <p>Passwords never appear in messages or logs.
 */
public final class EtcdLocks {

    /** Where lock keys live unless {@link Builder#keyPrefix(String)} says otherwise. */
    public static final String DEFAULT_KEY_PREFIX = "leasehold/";
    private static final long RETRY_DELAY_MILLIS = 50;
    /** The first call also sets up the gRPC channel: it may take longer than later calls. */
    private static final Duration MIN_CONNECT_WAIT = Duration.ofSeconds(2);

    private EtcdLocks() {
    }

    /**
     * Connects to the cluster at {@code endpoints} (comma-separated {@code http://host:port} or
     * {@code https://host:port} URLs) with default settings.
     *
     * @throws IllegalArgumentException if endpoints is null, empty or malformed
     * @throws LockUnavailableException if the cluster cannot be reached or rejects the request; nothing
     *                                  (thread, connection) is left open then
     */
    public static EtcdLockClient connect(String endpoints) {
        return builder().endpoints(endpoints).connect();
    }

    /**
     * A lock client on an existing jetcd client, with default settings. Closing the lock client does
     * not close {@code client}. Its leases and keys are this lock client's own: closing it revokes them.
     *
     * @throws IllegalArgumentException if client is null
     * @throws LockUnavailableException if the cluster cannot be reached or rejects the request
     */
    public static EtcdLockClient using(Client client) {
        return builder().client(client).connect();
    }

    /** Settings for an {@link EtcdLockClient}. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Builds an {@link EtcdLockClient}; each setter validates its argument at once. The engine's
     * settings come from {@link EngineBuilder}; {@code operationTimeout} also bounds the connect
     * check, to at least 2 s (the first call also sets up the connection).
     */
    public static final class Builder extends EngineBuilder<Builder> {

        private List<URI> endpoints;
        private Client existing;
        private String user;
        private String password;
        private String keyPrefix = DEFAULT_KEY_PREFIX;

        private Builder() {
        }

        @Override
        protected Builder self() {
            return this;
        }

        /**
         * The cluster: comma-separated {@code http://host:port} or {@code https://host:port} URLs.
         *
         * @throws IllegalArgumentException if null, empty, or an entry is not such a URL
         */
        public Builder endpoints(String endpoints) {
            if (endpoints == null || endpoints.isBlank()) {
                throw new IllegalArgumentException("endpoints must not be null or empty; give e.g. "
                        + "\"http://127.0.0.1:2379\" (comma-separated for several members)");
            }
            List<URI> parsed = new ArrayList<>();
            for (String entry : endpoints.split(",")) {
                parsed.add(endpoint(entry.trim()));
            }
            this.endpoints = parsed;
            return this;
        }

        private static URI endpoint(String entry) {
            URI uri;
            try {
                uri = URI.create(entry);
            } catch (IllegalArgumentException malformed) {
                uri = null;
            }
            if (uri == null || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                    || uri.getHost() == null || uri.getPort() < 1 || uri.getUserInfo() != null) {
                // Up to the last '@' may be credentials (a password may itself hold '@' or '/'): never echoed.
                String shown = entry.replaceFirst("^([a-zA-Z][a-zA-Z0-9+.-]*://)?.*@", "$1<credentials removed>@");
                throw new IllegalArgumentException("etcd endpoint '" + shown + "' is not an http://host:port or "
                        + "https://host:port URL (credentials go to user() and password(), not into the URL)");
            }
            return uri;
        }

        /** Uses an existing jetcd client instead of creating one; it stays open when the lock client closes. */
        public Builder client(Client client) {
            this.existing = Args.notNull("client", client);
            return this;
        }

        /** The etcd user, for a cluster with authentication enabled. */
        public Builder user(String user) {
            if (user == null || user.isBlank()) {
                throw new IllegalArgumentException("user must not be null or blank");
            }
            this.user = user;
            return this;
        }

        /** The user's password; never logged. */
        public Builder password(String password) {
            if (password == null || password.isEmpty()) {
                throw new IllegalArgumentException("password must not be null or empty");
            }
            this.password = password;
            return this;
        }

        /**
         * The prefix of every key of every lock of this client ({@value EtcdLocks#DEFAULT_KEY_PREFIX}
         * by default); the user needs read-write permission on it.
         *
         * @throws IllegalArgumentException if null, empty or longer than 256 characters
         */
        public Builder keyPrefix(String prefix) {
            if (prefix == null || prefix.isEmpty() || prefix.length() > 256) {
                throw new IllegalArgumentException("keyPrefix must be 1 to 256 characters, e.g. \"leasehold/\"; got "
                        + (prefix == null ? "null" : "'" + prefix + "'"));
            }
            this.keyPrefix = prefix;
            return this;
        }

        /**
         * Connects and checks that the cluster answers a read under the key prefix with these
         * credentials.
         *
         * @throws IllegalStateException if neither endpoints nor a client were given, or both
         * @throws LockUnavailableException if the cluster cannot be reached in time, rejects the
         *                                  credentials or denies access to the prefix; nothing is
         *                                  left open then
         */
        public EtcdLockClient connect() {
            if ((endpoints == null) == (existing == null)) {
                throw new IllegalStateException(endpoints == null
                        ? "no etcd endpoints given; call endpoints(\"http://host:2379\") or client(...) first"
                        : "give either endpoints(...) or client(...), not both");
            }
            if ((user == null) != (password == null)) {
                throw new IllegalStateException("give both user(...) and password(...), or neither");
            }
            boolean owns = existing == null;
            String description = owns ? "etcd " + String.join(",", endpoints.stream().map(URI::toString).toList())
                    : "etcd (a given jetcd client)";
            Client client = owns ? build() : existing;
            try {
                check(client, description);
                LeaseEngine.Settings settings = engineSettings();
                return new EtcdLockClient(new EtcdBackend(client, owns, description, keyPrefix,
                        settings.operationTimeout()), settings);
            } catch (RuntimeException e) {
                if (owns) {
                    client.close();
                }
                throw e;
            }
        }

        private Client build() {
            ClientBuilder builder = Client.builder()
                    .endpoints(endpoints.toArray(URI[]::new))
                    .connectTimeout(operationTimeout())
                    // jetcd retries safe calls after a connection failure (acquire is safe to repeat, see
                    // EtcdQueueProtocol): soon, and never for much longer than a call may take.
                    .retryDelay(RETRY_DELAY_MILLIS)
                    .retryMaxDelay(10 * RETRY_DELAY_MILLIS)
                    .retryMaxDuration(operationTimeout().plusMillis(2 * RETRY_DELAY_MILLIS));
            if (user != null) {
                builder.user(ByteSequence.from(user, StandardCharsets.UTF_8))
                        .password(ByteSequence.from(password, StandardCharsets.UTF_8));
            }
            return builder.build();
        }

        private void check(Client client, String description) {
            try {
                client.getKVClient().get(ByteSequence.from(keyPrefix, StandardCharsets.UTF_8),
                                GetOption.builder().withCountOnly(true).isPrefix(true).build())
                        .get(Math.max(operationTimeout().toMillis(), MIN_CONNECT_WAIT.toMillis()), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw EtcdErrors.translate(description, "connect", e);
            } catch (ExecutionException | TimeoutException e) {
                throw EtcdErrors.translate(description, "connect", e);
            }
        }
    }
}
