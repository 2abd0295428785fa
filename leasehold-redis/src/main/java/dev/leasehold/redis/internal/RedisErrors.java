package dev.leasehold.redis.internal;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.engine.Futures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;

import javax.net.ssl.SSLException;
import java.net.ConnectException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;

/**
 * Turns Lettuce's errors into {@link LockUnavailableException}s that name the server and say
 * what to do. Messages never contain credentials: the server is always given by
 * {@link RedisEndpoint#describe()}. Public so other Redis-based backends (leasehold-redlock)
 * classify a node's errors the same way.
 */
public final class RedisErrors {

    private RedisErrors() {
    }

    /** The error of {@code operation} on {@code server}, typed, with advice; Leasehold's own exceptions pass through. */
    public static LeaseholdException translate(String server, String operation, Throwable error) {
        Throwable cause = Futures.unwrap(error);
        if (cause instanceof LeaseholdException leasehold) {
            return leasehold;
        }
        NodeFailure.Kind kind = classify(cause);
        String scriptError = scriptError(cause);
        String connectError = scriptError != null ? null : connectError(server, operation, kind, cause);
        String advice = scriptError != null ? scriptError : connectError != null ? connectError : switch (kind) {
            case AUTHENTICATION -> "the server rejected the credentials (" + firstLine(authMessage(cause))
                    + "); check the user name and password in the URI";
            case REFUSED -> "cannot connect (" + firstLine(rootMessage(cause))
                    + "); check that the server is running and the host and port are right";
            case TIMED_OUT -> "no answer in time; the server may be overloaded, paused or unreachable";
            default -> cause instanceof SSLException || hasCause(cause, SSLException.class)
                    ? "the TLS handshake failed (" + firstLine(rootMessage(cause))
                        + "); check the server certificate and the trusted CA"
                    : firstLine(rootMessage(cause));
        };
        return new LockUnavailableException("Redis at " + server + ": " + operation + " failed: " + advice,
                new NodeFailure(server, kind, cause));
    }

    /**
     * The advice for an error a Leasehold script raised itself (see the headers of the {@code .lua}
     * files: a code, then facts, the key last since a key may contain spaces), or null for any other error.
     */
    private static String scriptError(Throwable cause) {
        if (!(cause instanceof RedisCommandExecutionException) || cause.getMessage() == null) {
            return null;
        }
        String[] parts = cause.getMessage().split(" ", 3);
        if (parts[0].equals("LEASEHOLD_FOREIGN_TYPE") && parts.length == 3) {
            return "key '" + parts[2] + "' holds a Redis " + parts[1] + ", not the type Leasehold keeps there, "
                    + "so another program (or another kind of lock) uses this name (a Redisson lock is a hash); "
                    + "use another lock name, or delete the key if nothing needs it";
        }
        if (parts[0].equals("LEASEHOLD_FENCE_EXHAUSTED") && parts.length >= 2) {
            String key = cause.getMessage().substring(parts[0].length() + 1);
            return "the fence counter '" + key + "' reached " + Long.MAX_VALUE + ", the largest fencing token, "
                    + "so no higher token can be issued for this lock; use another lock name for the resource "
                    + "(deleting the key would issue lower tokens, which the resource's guards must refuse)";
        }
        if (parts[0].equals("LEASEHOLD_FENCE_INVALID") && parts.length >= 2) {
            String key = cause.getMessage().substring(parts[0].length() + 1);
            return "the fence counter '" + key + "' holds a value that is not a 64-bit token, so Leasehold did not "
                    + "write it; use another lock name, or delete the key if nothing else needs it (tokens then "
                    + "continue from the server clock)";
        }
        return null;
    }

    /**
     * The advice for a connect that reached something, but not the Redis the URI meant: a server at
     * its {@code maxclients} limit, one that closed the connection during the handshake, a database
     * the server does not have, a plaintext port asked for TLS (it never answers the handshake),
     * a port of another service (an HTTP server's reply is not the Redis protocol); else null.
     */
    private static String connectError(String server, String operation, NodeFailure.Kind kind, Throwable cause) {
        String root = firstLine(rootMessage(cause));
        // Redis answers a connection over its limit with this error before any command, then closes.
        if (root.contains("max number of clients reached")) {
            return "the server is at its connection limit (" + root + "); close idle connections to it or raise "
                    + "its 'maxclients' setting (each Leasehold client holds one connection, and a second one "
                    + "while a thread waits for a lock)";
        }
        if (isClosedDuringHandshake(cause)) {
            return "the server closed the connection during the handshake (" + root + "); check the password, "
                    + "that the port serves Redis with the scheme the URI names (rediss:// for TLS), and that the "
                    + "server is not at its 'maxclients' limit or shutting down";
        }
        if (root.contains("DB index is out of range")) {
            return "the server has no such database (" + root + "); use a database number below the server's "
                    + "'databases' setting (16 by default), e.g. /0";
        }
        // Lettuce says the second when the server writes before the client's handshake, as an HTTP
        // server answering at once does: whichever of the two a race gives, it is not Redis.
        if (root.startsWith("Invalid first byte") || root.contains("RedisHandshakeHandler not registered")) {
            return "the server does not speak the Redis protocol (" + root + "); check the port: it may belong to "
                    + "another service, such as an HTTP server";
        }
        if (kind == NodeFailure.Kind.TIMED_OUT && operation.equals("connect") && server.startsWith("rediss")) {
            return "no answer to the TLS handshake in time; check that the server serves TLS on this port (a "
                    + "plaintext port never answers it: use redis:// there), and that it is not overloaded or paused";
        }
        return null;
    }

    /**
     * Whether a connect failed because the server closed the connection during the handshake.
     * Lettuce reports a rejected AUTH that way now and then (the close overtakes the error
     * reply), so {@link LettuceConnections#connect} tries again to learn the real cause.
     */
    static boolean isClosedDuringHandshake(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RedisConnectionException && t.getMessage() != null
                    && t.getMessage().contains("closed prematurely")) {
                return true;
            }
        }
        return false;
    }

    static NodeFailure.Kind classify(Throwable cause) {
        if (authMessage(cause) != null) {
            return NodeFailure.Kind.AUTHENTICATION;
        }
        if (cause instanceof TimeoutException || cause instanceof RedisCommandTimeoutException
                || hasCause(cause, RedisCommandTimeoutException.class)) {
            return NodeFailure.Kind.TIMED_OUT;
        }
        if (hasCause(cause, ConnectException.class) || hasCause(cause, ClosedChannelException.class)
                || isNotConnected(cause)) {
            return NodeFailure.Kind.REFUSED;
        }
        if (cause instanceof RedisConnectionException && !hasCause(cause, SSLException.class)) {
            return NodeFailure.Kind.REFUSED;
        }
        return NodeFailure.Kind.ERROR;
    }

    private static boolean isNotConnected(Throwable cause) {
        String message = cause.getMessage();
        return message != null && (message.contains("not connected") || message.contains("Connection closed"));
    }

    /** The server's authentication error text, if any error in the chain is one. */
    private static String authMessage(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (t instanceof RedisCommandExecutionException && t.getMessage() != null) {
                String message = t.getMessage();
                if (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH")
                        || message.startsWith("NOPERM") || message.contains("invalid password")
                        || message.contains("invalid username-password")) {
                    return message;
                }
            }
        }
        return null;
    }

    private static boolean hasCause(Throwable error, Class<? extends Throwable> type) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    private static String firstLine(String text) {
        if (text == null) {
            return "";
        }
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }
}
