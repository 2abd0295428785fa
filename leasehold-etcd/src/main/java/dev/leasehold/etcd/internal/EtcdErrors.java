package dev.leasehold.etcd.internal;

import dev.leasehold.LeaseholdException;
import dev.leasehold.LockUnavailableException;
import dev.leasehold.NodeFailure;
import dev.leasehold.engine.Futures;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.Status;

import java.util.concurrent.TimeoutException;

/** Turns jetcd's and gRPC's failures into the API's typed exceptions, saying what to do. */
public final class EtcdErrors {

    private EtcdErrors() {
    }

    /** Whether {@code error} is etcd's "requested lease not found": the lease expired or was revoked. */
    public static boolean isLeaseNotFound(Throwable error) {
        Throwable cause = Futures.unwrap(error);
        String message = String.valueOf(cause.getMessage());
        return message.contains("requested lease not found");
    }

    /**
     * The typed exception for a failed {@code operation} against {@code endpoints}: a rejected user
     * or password, a permission the user lacks, no answer in time, an unreachable cluster, or any
     * other error, each as a {@link LockUnavailableException} whose message says what to check.
     */
    public static LeaseholdException translate(String endpoints, String operation, Throwable error) {
        Throwable cause = Futures.unwrap(error);
        if (cause instanceof LeaseholdException leasehold) {
            return leasehold;
        }
        // jetcd wraps the server's reason (a failed authentication) in its own status: read the whole chain.
        StringBuilder chain = new StringBuilder();
        for (Throwable each = cause; each != null && chain.length() < 4_000; each = each.getCause()) {
            chain.append(each.getMessage()).append('\n');
        }
        String message = chain.toString();
        Status.Code code = cause instanceof EtcdException etcd ? toCode(etcd) : Status.fromThrowable(cause).getCode();
        if (message.contains("authentication failed") || message.contains("invalid user ID or password")) {
            return new LockUnavailableException(operation + " failed: " + endpoints + " rejected the user or its"
                    + " password; check EtcdLocks.builder().user(...).password(...)",
                    new NodeFailure(endpoints, NodeFailure.Kind.AUTHENTICATION, cause));
        }
        if (code == Status.Code.PERMISSION_DENIED || message.contains("permission denied")) {
            return new LockUnavailableException(operation + " failed: " + endpoints + " denied the user access;"
                    + " grant its role readwrite on the key prefix (etcdctl role grant-permission --prefix)",
                    new NodeFailure(endpoints, NodeFailure.Kind.AUTHENTICATION, cause));
        }
        if (message.contains("user name is empty") || code == Status.Code.UNAUTHENTICATED) {
            return new LockUnavailableException(operation + " failed: " + endpoints + " has authentication"
                    + " enabled; give a user and password with EtcdLocks.builder().user(...).password(...)",
                    new NodeFailure(endpoints, NodeFailure.Kind.AUTHENTICATION, cause));
        }
        if (cause instanceof TimeoutException || code == Status.Code.DEADLINE_EXCEEDED) {
            return new LockUnavailableException(operation + ": " + endpoints + " did not answer in time; check"
                    + " that the cluster is running, reachable, and has a leader",
                    new NodeFailure(endpoints, NodeFailure.Kind.TIMED_OUT, cause));
        }
        if (code == Status.Code.UNAVAILABLE) {
            return new LockUnavailableException(operation + " failed: " + endpoints + " is unreachable or has no"
                    + " leader: " + cause.getMessage(), new NodeFailure(endpoints, NodeFailure.Kind.REFUSED, cause));
        }
        return new LockUnavailableException(operation + " failed at " + endpoints + ": " + cause,
                new NodeFailure(endpoints, NodeFailure.Kind.ERROR, cause));
    }

    private static Status.Code toCode(EtcdException etcd) {
        try {
            return Status.Code.valueOf(etcd.getErrorCode().name());
        } catch (IllegalArgumentException unknown) {
            return Status.Code.UNKNOWN;
        }
    }
}
