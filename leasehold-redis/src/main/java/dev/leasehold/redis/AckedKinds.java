package dev.leasehold.redis;

import dev.leasehold.LockKind;
import dev.leasehold.LockOptions;
import dev.leasehold.redis.internal.RedisDeployment;
import dev.leasehold.spi.LockProtocol;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock kinds of one client as {@link LockOptions#withReplicaAck} needs them: each kind's
 * protocol again, on a command connection of its own (opened on first use, closed with the
 * client), wrapped in a {@link ReplicaAckProtocol} per acknowledgement setting. One protocol object
 * per kind and setting, as the engine keeps its local bookkeeping per protocol and name.
 */
final class AckedKinds implements AutoCloseable {

    private record Key(LockKind kind, LockOptions.ReplicaAck ack) {
    }

    private final RedisProtocol.Server server;
    private final Duration operationTimeout;
    private final Map<Key, LockProtocol> protocols = new ConcurrentHashMap<>();
    private RedisDeployment connection;
    private RedisProtocol.Server ackServer;
    private boolean closed;

    AckedKinds(RedisProtocol.Server server, Duration operationTimeout) {
        this.server = server;
        this.operationTimeout = operationTimeout;
    }

    /**
     * {@code plain} itself when the options ask for no acknowledgement, else its replica-ack twin:
     * the same kind's scripts on the replica-ack connection, whatever the kind.
     *
     * @throws IllegalArgumentException if options is null, or the acknowledgement timeout is not
     *                                  shorter than the operation timeout
     * @throws dev.leasehold.LockUnavailableException if the replica-ack connection cannot be opened
     */
    LockProtocol protocol(RedisProtocol plain, LockOptions options) {
        if (options == null || options.replicaAck().isEmpty()) {
            return plain;
        }
        LockOptions.ReplicaAck ack = options.replicaAck().get();
        if (ack.timeout().compareTo(operationTimeout) >= 0) {
            throw new IllegalArgumentException("withReplicaAck's timeout (" + ack.timeout() + ") must be shorter than "
                    + "the client's operationTimeout (" + operationTimeout + "), which bounds the acquire's round trip "
                    + "and the WAIT together");
        }
        return protocols.computeIfAbsent(new Key(plain.scripts().kind(), ack), key -> {
            RedisProtocol.Server on = ackServer();
            return new ReplicaAckProtocol(new RedisProtocol(on, plain.scripts()), on.deployment(), ack);
        });
    }

    private synchronized RedisProtocol.Server ackServer() {
        if (closed) {
            throw new IllegalStateException("the client is closed");
        }
        if (ackServer == null) {
            connection = server.deployment().dedicated();
            ackServer = server.on(connection);
        }
        return ackServer;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (connection != null) {
            connection.close();
        }
    }
}
